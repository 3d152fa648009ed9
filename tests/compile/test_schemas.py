"""Shipped schemas and self-validation (self-validation and shipped schemas): schemas/, axag.files.shipped_schemas, axag.compile.validate."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema_specifications import REGISTRY

from axag.compile.contract import ToolContract
from axag.compile.targets import LEGACY_SCHEMA_IDS, SCHEMA_FILES, SCHEMA_IDS, TARGETS, render
from axag.compile.validate import META_KEYS, check_structure, emitted_schemas, self_check
from axag.files.shipped_schemas import SCHEMA_FILES as SHIPPED
from axag.files.shipped_schemas import load_schema, schema_dir, schema_path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "compile"
VERSION = "0.1.0"


def booking() -> ToolContract:
    tool = json.loads((DATA / "booking.tool.json").read_text(encoding="utf-8"))
    return ToolContract(tool=tool, declared_description="Book a room.", declared_required_parameters=True)


def doc_for(target: str, strict: bool = False) -> dict[str, Any]:
    return render(target, [booking()], VERSION, strict=strict, paths=["site/booking.html"], environ={}).doc


# ---------------------------------------------------------------- the files

def test_schema_files_and_ids() -> None:
    assert sorted(p.name for p in (ROOT / "schemas").glob("*.json")) == sorted(SHIPPED)
    assert sorted(SCHEMA_FILES.values()) == sorted(n for n in SHIPPED if n != "envelope.schema.json")
    for target, name in SCHEMA_FILES.items():
        schema = load_schema(name)
        assert schema["$id"] == SCHEMA_IDS[target]
        if target == "manifest":
            assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
            Draft7Validator.check_schema(schema)
        else:
            assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
            Draft202012Validator.check_schema(schema)
            accepted = [SCHEMA_IDS[target], *LEGACY_SCHEMA_IDS.get(target, ())]
            assert schema["properties"]["$schema"] == ({"const": accepted[0]} if len(accepted) == 1 else
                                                       {"enum": accepted})


def test_schema_files_are_serialised_by_axag() -> None:
    from axag.compile.serialize import dumps

    for name in SHIPPED:
        text = (ROOT / "schemas" / name).read_text(encoding="utf-8")
        assert dumps(json.loads(text)) == text


def _objects(node: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema that lists `properties`, except the `if` of a conditional."""
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict) and "type" in node:
            yield path, node
        for key, value in node.items():
            if key == "if":
                continue
            if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
                for name, sub in value.items():
                    yield from _objects(sub, f"{path}/{key}/{name}")
            else:
                yield from _objects(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _objects(item, f"{path}/{i}")


@pytest.mark.parametrize("name", [n for n in SHIPPED if n != "envelope.schema.json"])
def test_fixed_key_objects_are_closed(name: str) -> None:
    found = list(_objects(load_schema(name)))
    assert len(found) > 3
    for path, obj in found:
        assert obj.get("additionalProperties") is False, path


def test_envelope_schema_is_open_for_later_envelope_keys() -> None:
    """The envelope (a tool's outputSchema) lists its keys but admits new ones, so that a client validating
    structuredContent with this schema keeps accepting envelopes of a later runtime."""
    schema = load_schema("envelope.schema.json")
    Draft202012Validator.check_schema(schema)
    assert "additionalProperties" not in schema
    assert schema["required"] == ["success", "permission", "violations", "guidance", "tool"]
    v = Draft202012Validator(schema)
    ok = {"success": True, "result": {"status": 200}, "permission": "not_required", "violations": [],
          "guidance": "The call succeeded.", "tool": "t", "later_key": 1}
    assert not list(v.iter_errors(ok))
    assert list(v.iter_errors({**ok, "permission": "maybe"}))


def test_tools_schema_details() -> None:
    schema = load_schema("tools.schema.json")
    defs = schema["$defs"]
    action = defs["action"]
    assert list(action["properties"]) == list(META_KEYS)
    for key, sub in action["properties"].items():
        assert set(sub) & {"type", "enum", "$ref", "const"}, key
    assert action["required"] == ["intent", "entity", "action_type", "sources"]
    assert action["properties"]["extensions"] == {"type": "object", "additionalProperties": {"type": "string"}}
    inp = defs["inputSchema"]
    assert inp["properties"]["$schema"] == {"const": "https://json-schema.org/draft/2020-12/schema"}
    assert inp["properties"]["type"] == {"const": "object"}
    assert inp["properties"]["additionalProperties"] == {"const": False}
    assert inp["properties"]["properties"]["additionalProperties"] == {"$ref": "#/$defs/parameterSchema"}
    assert defs["toolName"]["pattern"] == "^[A-Za-z_][A-Za-z0-9_-]{0,63}$"
    assert defs["tool"]["properties"]["name"] == {"$ref": "#/$defs/toolName"}
    assert defs["tool"]["required"] == ["name", "title", "description", "inputSchema", "annotations", "_meta"]


def test_manifest_schema_details() -> None:
    schema = load_schema("axag-manifest-1.1.schema.json")
    assert schema["required"] == ["version", "generated_at", "source", "conformance", "actions"]
    action = schema["definitions"]["action"]
    assert action["required"] == ["intent", "entity", "action_type", "description"]
    param = schema["definitions"]["parameter"]
    assert param["properties"]["format"] == {"enum": ["email", "url", "date", "datetime", "uuid"]}
    assert param["properties"]["source"] == {"enum": ["harvested:html", "zod", "openapi"]}
    assert action["properties"]["risk_level"] == {"enum": ["none", "low", "medium", "high", "critical"]}
    assert action["properties"]["scope"] == {"enum": ["public", "user", "tenant", "global"]}


def test_schema_path_and_load() -> None:
    assert schema_dir() == ROOT / "schemas"  # editable install: the repository copy
    assert schema_path("tools.schema.json") == ROOT / "schemas" / "tools.schema.json"
    first = load_schema("tools.schema.json")
    first["$id"] = "changed"
    assert load_schema("tools.schema.json")["$id"] == SCHEMA_IDS["mcp"]
    with pytest.raises(KeyError):
        schema_path("nope.json")


def test_installed_copy_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import axag.files.shipped_schemas as sp

    (tmp_path / "schemas").mkdir()
    monkeypatch.setattr(sp, "_PACKAGE_DIR", tmp_path)
    assert sp.schema_dir() == tmp_path / "schemas"
    assert sp.schema_path("tools.schema.json") == tmp_path / "schemas" / "tools.schema.json"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # offline with the installed build backend; otherwise pip fetches hatchling into an isolated build env
    offline = ["--no-build-isolation", "--no-index"] if importlib.util.find_spec("hatchling") else []
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", *offline, "-q", "-w", str(out), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )
    (found,) = out.glob("axag-*.whl")
    return found


def test_wheel_carries_identical_schemas(wheel: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = sorted(n for n in zf.namelist() if n.startswith("axag/schemas/"))
        assert names == sorted(f"axag/schemas/{n}" for n in SHIPPED)
        for name in SHIPPED:
            assert zf.read(f"axag/schemas/{name}") == (ROOT / "schemas" / name).read_bytes(), name
        zf.extractall(tmp_path)
    # the installed package reads its own copy
    code = "import axag.files.shipped_schemas as s; print(s.schema_dir()); print(s.load_schema('tools.schema.json')['$id'])"
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True,
                            env={"PYTHONPATH": str(tmp_path), "PATH": ""})
    assert result.stdout.splitlines() == [str(tmp_path / "axag" / "schemas"), SCHEMA_IDS["mcp"]]


# ---------------------------------------------------------------- every emitted document validates

@pytest.mark.parametrize(("target", "strict"), [(t, False) for t in TARGETS] + [("openai", True)])
def test_documents_validate(target: str, strict: bool) -> None:
    doc = doc_for(target, strict)
    assert check_structure(doc, target) == []
    assert self_check(doc, target) == []
    schemas = list(emitted_schemas(doc, target))
    if target != "manifest":
        assert len(schemas) == 1
        meta = Draft202012Validator(REGISTRY.contents("https://json-schema.org/draft/2020-12/schema"),
                                    registry=REGISTRY)
        for _, schema in schemas:
            assert list(meta.iter_errors(schema)) == []


def test_validate_does_not_import_jsonschema() -> None:
    code = (
        "import sys, axag.compile.validate, axag.compile.targets.openai, axag.compile.targets.manifest, "
        "axag.compile.targets.mcp, axag.compile.targets.anthropic, axag.files.shipped_schemas\n"
        "print(sorted(m for m in ('jsonschema', 'referencing', 'jsonschema_specifications', 'rich', 'jinja2', 'bs4')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ---------------------------------------------------------------- broken documents are caught

def _broken(target: str, path: tuple[Any, ...], value: Any, *, strict: bool = False, delete: bool = False) -> (
    dict[str, Any]
):
    doc = copy.deepcopy(doc_for(target, strict))
    node: Any = doc
    for part in path[:-1]:
        node = node[part]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return doc


PROPS = ("tools", 0, "inputSchema", "properties")
META = ("tools", 0, "_meta", "org.axag/action")


@pytest.mark.parametrize(
    ("target", "path", "value", "delete", "message"),
    [
        ("mcp", ("axag",), "1.0", False, "/axag: expected '1.1', got \"1.0\""),
        ("mcp", ("$schema",), "x", False, "/$schema: expected 'https://axag.org/schema/tools/v2/tools.schema.json'"),
        ("mcp", ("extra",), 1, False, "/: unexpected key 'extra'"),
        ("mcp", ("tools", 0, "_meta"), None, True, "/tools/0: missing key '_meta'"),
        ("mcp", ("tools", 0, "name"), "bad name", False, "/tools/0/name: expected a tool name"),
        ("mcp", (*PROPS, "note", "maxLength"), -1, False, "/maxLength: expected an integer >= 0, got -1"),
        ("mcp", (*PROPS, "note", "maxLength"), 1.5, False, "/maxLength: expected an integer >= 0, got 1.5"),
        ("mcp", (*PROPS, "note", "minimum"), 1, False, "/minimum: keyword does not apply to type 'string'"),
        ("mcp", (*PROPS, "note", "frobnicate"), 1, False, "/note: unexpected key 'frobnicate'"),
        ("mcp", (*PROPS, "note", "type"), "text", False, "/note/type: expected one of string"),
        ("mcp", (*PROPS, "note", "type"), ["string", "null"], False, "/note/type: expected one of string"),
        ("mcp", (*PROPS, "note", "format"), "url", False, "/note/format: expected a JSON Schema format"),
        ("mcp", (*PROPS, "guests", "minimum"), True, False, "/guests/minimum: expected a number, got true"),
        ("mcp", (*PROPS, "bad-name"), {"type": "string"}, False, "invalid property name 'bad-name'"),
        ("mcp", ("tools", 0, "inputSchema", "required"), ["nope"], False, "'nope' is not a property"),
        ("mcp", ("tools", 0, "inputSchema", "additionalProperties"), True, False, "expected false, got true"),
        ("mcp", ("tools", 0, "inputSchema", "$schema"), None, True, "missing key '$schema'"),
        ("mcp", ("tools", 0, "annotations", "readOnlyHint"), "no", False, "expected a boolean"),
        ("mcp", ("tools", 0, "annotations", "title"), "Other", False, "expected the tool title"),
        ("mcp", (*META, "risk_level"), "High", False, "/risk_level: expected a risk level"),
        ("mcp", (*META, "sources"), [], False, "/sources: expected a non-empty array"),
        ("mcp", (*META, "rate_limit", "window_seconds"), 61, False, "expected the period's seconds"),
        ("mcp", (*META, "preconditions", 1, "form"), "later_than", False, "expected a relational form"),
        ("mcp", (*META, "preconditions", 0, "params"), ["a"], False, "only relational preconditions have this key"),
        ("mcp", (*META, "extensions"), {"b": "1", "a": "2"}, False, "keys not sorted in code-point order"),
        ("mcp", (*META, "extensions"), {"a": 1}, False, "/extensions/a: expected a string, got 1"),
        ("mcp", (*META, "intent"), None, True, "missing key 'intent'"),
        ("mcp", (*META, "approval_required"), True, False, "missing key 'approval_count' (approval is required)"),
        ("openai", ("tools", 0, "type"), "tool", False, "/tools/0/type: expected 'function'"),
        ("openai", ("tools", 0, "function", "strict"), None, True, "missing key 'strict'"),
        ("openai", ("tools", 0, "function", "parameters", "$schema"), "x", False, "unexpected key '$schema'"),
        ("anthropic", ("tools", 0, "input_schema"), None, True, "missing key 'input_schema'"),
        ("manifest", ("version",), "1.0.0", False, "/version: expected '1.1.0'"),
        ("manifest", ("generated_at",), "2024-01-01", False, "/generated_at: expected an RFC 3339 UTC timestamp"),
        ("manifest", ("conformance",), "gold", False, "/conformance: expected a conformance level"),
        ("manifest", ("actions", 0, "description"), None, True, "missing key 'description'"),
        ("manifest", ("actions", 0, "rate_limit"), {}, False, "unexpected key 'rate_limit'"),
        ("manifest", ("actions", 0, "required_parameters", 0, "format"), "date-time", False,
         "expected a manifest format"),
        ("manifest", ("actions", 0, "required_parameters", 0, "minimum"), 1, False, "unexpected key 'minimum'"),
        ("manifest", ("dynamic_actions",), [], False, "/dynamic_actions: expected a non-empty array"),
    ],
)
def test_structure_catches(target: str, path: tuple[Any, ...], value: Any, delete: bool, message: str) -> None:
    doc = _broken(target, path, value, delete=delete)
    problems = check_structure(doc, target)
    assert any(message in p for p in problems), problems


@pytest.mark.parametrize(
    ("target", "path", "value", "delete", "message"),
    [
        ("mcp", ("axag",), "1.0", False, "/axag: '1.1' was expected"),
        ("mcp", ("tools", 0, "_meta"), None, True, "/tools/0: '_meta' is a required property"),
        ("mcp", ("tools", 0, "name"), "bad name", False, "/tools/0/name: 'bad name' does not match"),
        ("mcp", (*PROPS, "note", "maxLength"), -1, False, "/tools/0/inputSchema/properties/note/maxLength: -1 is less"),
        ("mcp", ("tools", 0, "inputSchema", "additionalProperties"), True, False, "False was expected"),
        ("mcp", (*META, "risk_level"), "High", False, "/risk_level: 'High' is not one of"),
        ("mcp", (*META, "preconditions", 0, "params"), ["a"], False,
         "/org.axag~1action/preconditions/0: {'text': 'room_available', 'kind': 'state', 'params': ['a']} should not"),
        ("mcp", (*META, "bogus"), 1, False, "Additional properties are not allowed ('bogus' was unexpected)"),
        ("mcp", (*META, "approval_required"), True, False, "/org.axag~1action: 'approval_count' is a required"),
        ("openai", ("tools", 0, "function", "strict"), None, True, "'strict' is a required property"),
        ("anthropic", ("tools", 0, "input_schema", "$schema"), "x", False, "('$schema' was unexpected)"),
        ("manifest", ("actions", 0, "rate_limit"), {}, False, "('rate_limit' was unexpected)"),
        ("manifest", ("actions", 0, "required_parameters", 0, "format"), "date-time", False, "is not one of"),
        ("manifest", ("dynamic_actions",), [], False, "/dynamic_actions: [] should be non-empty"),
        ("manifest", ("source", "paths"), "a.html", False, "/source/paths: 'a.html' is not of type 'array'"),
    ],
)
def test_shipped_schemas_catch(target: str, path: tuple[Any, ...], value: Any, delete: bool, message: str) -> None:
    doc = _broken(target, path, value, delete=delete)
    problems = self_check(doc, target)
    assert any(message in p for p in problems), problems


def test_structure_catches_key_order_and_sorting() -> None:
    doc = doc_for("mcp")
    tool = doc["tools"][0]
    doc["tools"][0] = {k: tool[k] for k in ("title", "name", "description", "inputSchema", "annotations", "_meta")}
    assert check_structure(doc, "mcp") == [
        "/tools/0: keys out of order: title, name, description, inputSchema, annotations, _meta"]
    doc = doc_for("mcp")
    second = copy.deepcopy(doc["tools"][0])
    second["name"] = "a_first"
    doc["tools"].append(second)
    assert check_structure(doc, "mcp") == ["/tools: tool names not sorted in code-point order"]
    doc["tools"][1]["name"] = "booking_create"
    assert check_structure(doc, "mcp") == ["/tools: repeated tool names"]
    assert check_structure(doc, "mcp", ordered=False) == ["/tools: repeated tool names"]
    prop = doc_for("mcp")
    note = prop["tools"][0]["inputSchema"]["properties"]["note"]
    prop["tools"][0]["inputSchema"]["properties"]["note"] = {"maxLength": 200, "type": "string"}
    assert note == {"type": "string", "maxLength": 200}
    assert check_structure(prop, "mcp") == ["/tools/0/inputSchema/properties/note: keys out of order: maxLength, type"]
    assert check_structure(prop, "mcp", ordered=False) == []
    shuffled = json.loads(json.dumps(doc_for("manifest"), sort_keys=True))
    assert check_structure(shuffled, "manifest") != []
    assert check_structure(shuffled, "manifest", ordered=False) == []
    shuffled = json.loads(json.dumps(doc_for("mcp"), sort_keys=True))
    shuffled["tools"][0]["_meta"]["org.axag/action"]["sources"] *= 2
    shuffled["tools"][0]["_meta"]["org.axag/action"]["sources"][0]["line"] = 9
    shuffled["tools"][0]["_meta"]["org.axag/action"]["extensions"] = {"b": "", "a": ""}
    assert check_structure(shuffled, "mcp", ordered=False) == []
    assert len(check_structure(shuffled, "mcp")) > 5


def test_structure_strict_forms() -> None:
    strict = doc_for("openai", strict=True)
    assert check_structure(strict, "openai") == []
    params = strict["tools"][0]["function"]["parameters"]
    # the strict forms are only accepted when the tool says strict
    lax = copy.deepcopy(strict)
    lax["tools"][0]["function"]["strict"] = False
    assert check_structure(lax, "openai") == [
        ("/tools/0/function/parameters/properties/note/type: expected one of string, number, integer, boolean, "
         'array, object, got ["string","null"]')
    ]
    # strict mode: every property required, no unsupported keywords
    broken = copy.deepcopy(strict)
    broken["tools"][0]["function"]["parameters"]["required"] = params["required"][:-1]
    assert check_structure(broken, "openai") == [
        "/tools/0/function/parameters/required: strict mode requires every property, in property order"]
    broken = copy.deepcopy(strict)
    broken["tools"][0]["function"]["parameters"]["properties"]["note"]["maxLength"] = 3
    assert check_structure(broken, "openai") == [
        "/tools/0/function/parameters/properties/note/maxLength: keyword not allowed in strict mode"]
    broken = copy.deepcopy(strict)
    broken["tools"][0]["function"]["parameters"]["properties"]["note"]["type"] = ["null", "string"]
    assert check_structure(broken, "openai") == [
        '/tools/0/function/parameters/properties/note/type: expected [type, \'null\'], got ["null","string"]']
    broken = copy.deepcopy(strict)
    broken["tools"][0]["function"]["parameters"]["properties"]["note"] = {"type": ["object", "null"]}
    broken["tools"][0]["function"]["parameters"]["properties"]["guests"] = {"type": "array"}
    assert check_structure(broken, "openai") == [
        "/tools/0/function/parameters/properties/guests: strict mode needs 'items' on an array schema",
        "/tools/0/function/parameters/properties/note: strict mode needs 'properties' on an object schema",
    ]
    broken = copy.deepcopy(strict)
    broken["tools"][0]["function"]["parameters"]["properties"]["check_in"]["format"] = "uri"
    assert check_structure(broken, "openai") == [
        "/tools/0/function/parameters/properties/check_in/format: expected a JSON Schema format, got \"uri\""]


def test_structure_nested_fragments() -> None:
    doc = doc_for("mcp")
    props = doc["tools"][0]["inputSchema"]["properties"]
    props["addr"] = {"type": "object", "properties": {"zip": {"type": "string", "minItems": 1}},
                     "required": ["zip", "city"]}
    props["list"] = {"type": "array", "items": {"type": "integer", "enum": []}}
    assert check_structure(doc, "mcp") == [
        "/tools/0/inputSchema/properties/addr/properties/zip/minItems: keyword does not apply to type 'string'",
        "/tools/0/inputSchema/properties/addr/required: 'city' is not a property",
        "/tools/0/inputSchema/properties/addr: 'additionalProperties': false goes with 'properties' and only with it",
        "/tools/0/inputSchema/properties/list/items/enum: expected a non-empty array, got []",
    ]


def test_structure_fragment_required_is_optional() -> None:
    doc = doc_for("mcp")
    props = doc["tools"][0]["inputSchema"]["properties"]
    props["addr"] = {"type": "object", "properties": {"zip": {"type": "string"}}, "additionalProperties": False}
    assert check_structure(doc, "mcp") == []
    assert self_check(doc, "mcp") == []
    del doc["tools"][0]["inputSchema"]["required"]
    assert check_structure(doc, "mcp") == [
        "/tools/0/inputSchema: missing key 'required'",
        "/tools/0/inputSchema/required: expected an array of strings, got null",
    ]


def test_self_check_reports_unserialisable_documents() -> None:
    doc = doc_for("mcp")
    doc["tools"][0]["inputSchema"]["properties"]["guests"]["maximum"] = float("inf")
    (problem,) = self_check(doc, "mcp")
    assert problem.startswith("/: not serialisable as JSON: ")


def test_structure_rejects_non_json() -> None:
    doc = doc_for("mcp")
    doc["tools"][0]["inputSchema"]["properties"]["guests"]["maximum"] = float("nan")
    assert check_structure(doc, "mcp") == [
        "/tools/0/inputSchema/properties/guests/maximum: expected a number, got float"]
    doc = doc_for("mcp")
    doc["tools"][0]["inputSchema"]["properties"]["note"] = {"type": "string", "default": {1, 2}}
    assert check_structure(doc, "mcp") == [
        "/tools/0/inputSchema/properties/note/default: expected a JSON value, got set"]
    with pytest.raises(ValueError):
        check_structure(doc, "gemini")
    assert check_structure([], "mcp") == ["/: expected an object, got an array"]
    assert check_structure("x", "manifest") == ["/: expected an object, got a string"]


def test_self_check_catches_what_the_metaschema_rejects() -> None:
    doc = doc_for("mcp")
    doc["tools"][0]["inputSchema"]["properties"]["note"]["pattern"] = 5
    assert self_check(doc, "mcp") == [
        "/tools/0/inputSchema/properties/note/pattern: 5 is not of type 'string'",
        "/tools/0/inputSchema/properties/note/pattern: not a valid JSON Schema 2020-12: 5 is not of type 'string'",
    ]
    doc = doc_for("anthropic")
    doc["tools"][0]["input_schema"]["properties"]["note"]["type"] = "strin"
    problems = self_check(doc, "anthropic")
    assert "/tools/0/input_schema/properties/note/type: not a valid JSON Schema 2020-12: 'strin' is not valid " \
           "under any of the given schemas" in problems
    doc = doc_for("manifest")
    doc["actions"][0]["scope"] = "organization"
    assert self_check(doc, "manifest") == [
        "/actions/0/scope: 'organization' is not one of ['public', 'user', 'tenant', 'global']"]
