"""No boolean schema where an MCP host expects a schema object.

The TypeScript MCP SDK refuses a tool list whose ``outputSchema``/``inputSchema`` has ``true`` or ``false`` as the
schema of a property (and hosts built on it go further); axag writes ``{}`` and ``{"not": {}}`` instead, in every
target, and keeps ``additionalProperties: false``. tests/serve/test_host_clients.py runs the real TypeScript SDK and the
MCP Inspector against `axag serve`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axag.compile.subschemas import object_subschemas
from axag.compile.targets import SCHEMA_FILES, STRICT_TARGETS, TARGETS
from axag.compile.validate import self_check
from tests.conftest import FIXTURES, REPO, SHARED, run_axag, shared_or_skip

# keywords whose value is a schema, a list of schemas, an object of schemas: written independently of
# axag.compile.subschemas, as the test's own reading of JSON Schema 2020-12
ONE = ("items", "contains", "not", "if", "then", "else", "propertyNames", "additionalItems", "contentSchema")
LIST = ("prefixItems", "allOf", "anyOf", "oneOf")
MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
SITES = [(FIXTURES / "site", FIXTURES / "site"), (FIXTURES / "spec" / "site", FIXTURES / "spec"),
         (REPO / "tests" / "data" / "serve" / "site", REPO / "tests" / "data" / "serve" / "site"),
         (SHARED / "corpus", SHARED / "corpus")]


def booleans(node: Any, path: str = "") -> list[str]:
    """Where a boolean stands as a schema in a property, item, or other schema position, anywhere in a document."""
    found: list[str] = []
    if isinstance(node, list):
        for i, v in enumerate(node):
            found += booleans(v, f"{path}/{i}")
        return found
    if not isinstance(node, dict):
        return found
    for key, value in node.items():
        here = f"{path}/{key}"
        if key in ONE and isinstance(value, bool):
            found.append(here)
        elif key in LIST and isinstance(value, list):
            found += [f"{here}/{i}" for i, v in enumerate(value) if isinstance(v, bool)]
        elif key in MAP and isinstance(value, dict):
            found += [f"{here}/{k}" for k, v in value.items() if isinstance(v, bool)]
        found += booleans(value, here)
    return found


def compiled(site: Path, root: Path, target: str, *extra: str) -> dict[str, Any]:
    res = run_axag(["compile", "--isolated", "--keep-going", str(site), "--root", str(root), "--target", target,
                    *extra, "-o", "-"], cwd=REPO)
    assert res.exit_code in (0, 1), res.stderr
    doc: dict[str, Any] = json.loads(res.stdout)
    assert doc["tools"] if target != "manifest" else doc["actions"]
    return doc


@pytest.mark.parametrize(("site", "root"), SITES, ids=["site", "spec", "serve", "corpus"])
def test_no_target_writes_a_boolean_schema(site: Path, root: Path) -> None:
    if site.is_relative_to(SHARED):
        shared_or_skip(site.relative_to(SHARED).as_posix())
    for target in TARGETS:
        for extra in ([], ["--strict"]) if target in STRICT_TARGETS else ([],):
            doc = compiled(site, root, target, *extra)
            assert booleans(doc) == [], (target, extra)
            if target != "manifest":
                assert self_check(doc, target) == [], (target, extra)
            if target == "mcp":
                for tool in doc["tools"]:
                    out = tool["outputSchema"]
                    assert out["properties"]["result"] == {}
                    violation = out["properties"]["violations"]["items"]["properties"]
                    assert violation["expected"] == {} and violation["actual"] == {}
                    assert tool["inputSchema"]["additionalProperties"] is False


def test_shipped_schemas_write_no_boolean_schema() -> None:
    for name in [*SCHEMA_FILES.values(), "envelope.schema.json"]:
        assert booleans(json.loads((REPO / "schemas" / name).read_text(encoding="utf-8"))) == [], name


@pytest.mark.parametrize("target", ["mcp", "openai", "openai-responses", "anthropic"])
def test_shipped_schemas_refuse_a_boolean_parameter_schema(target: str) -> None:
    from axag.files.shipped_schemas import load_schema

    doc = compiled(FIXTURES / "spec" / "site", FIXTURES / "spec", target)
    validator = jsonschema.Draft202012Validator(load_schema(SCHEMA_FILES[target]))
    assert list(validator.iter_errors(doc)) == []
    tool = doc["tools"][0]
    params = {"mcp": lambda: tool["inputSchema"], "openai": lambda: tool["function"]["parameters"],
              "openai-responses": lambda: tool["parameters"], "anthropic": lambda: tool["input_schema"]}[target]()
    for bad in ({"type": "array", "items": True}, True,
                {"type": "object", "properties": {"x": {"type": "array", "items": False}}}):
        params["properties"]["extra"] = bad
        assert list(validator.iter_errors(doc)), (target, bad)
    params["properties"]["extra"] = {"type": "array", "items": {}}
    assert list(validator.iter_errors(doc)) == []


# ---------------------------------------------------------------------------------------------- the rewriting
_leaf = st.sampled_from([True, False, {}, {"type": "string"}, {"type": "integer", "minimum": 0}, {"const": None},
                         {"enum": [1, "a"]}])


def _schemas() -> st.SearchStrategy[Any]:
    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        names = st.sampled_from(["a", "b", "c"])
        return st.one_of(
            st.fixed_dictionaries({"type": st.just("object"), "properties": st.dictionaries(names, inner, max_size=3)},
                                  optional={"additionalProperties": inner, "required": st.just(["a"])}),
            st.fixed_dictionaries({"type": st.just("array"), "items": inner},
                                  optional={"prefixItems": st.lists(inner, max_size=2)}),
            st.fixed_dictionaries({}, optional={"anyOf": st.lists(inner, min_size=1, max_size=2),
                                                "not": inner, "contains": inner}),
        )

    return st.recursive(_leaf, extend, max_leaves=8)


_json = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "a"]),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "c"]),
                                                                                  inner, max_size=3),
                     max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(_schemas(), st.lists(_json, min_size=1, max_size=8))
def test_rewritten_schemas_accept_exactly_what_the_originals_accept(schema: Any, instances: list[Any]) -> None:
    before = json.dumps(schema)
    out = object_subschemas(schema)
    assert json.dumps(schema) == before  # the input is never modified
    root = out if isinstance(out, dict) else {}
    assert booleans(root) == []
    if isinstance(schema, dict) and "additionalProperties" in schema and isinstance(
            schema["additionalProperties"], bool):
        assert out["additionalProperties"] is schema["additionalProperties"]  # strict hosts need `false`
    for instance in instances:
        assert jsonschema.Draft202012Validator(schema).is_valid(instance) == \
            jsonschema.Draft202012Validator(out).is_valid(instance), (schema, out, instance)
    if not booleans(schema if isinstance(schema, dict) else {}):
        assert out is schema  # nothing to rewrite: the same object (compile shares one outputSchema)
