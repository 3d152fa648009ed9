"""Compile targets (the tools.json output, the other compile targets, the manifest target): mcp, openai (+ strict), anthropic, manifest."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axag.compile.contract import ManifestParam, ToolContract
from axag.compile.serialize import dumps
from axag.compile.targets import Rendered, render
from axag.compile.targets import manifest as manifest_target
from axag.compile.targets import openai as openai_target
from axag.compile.targets.manifest import DynamicAction, conformance, generated_at
from axag.compile.validate import check_structure, self_check
from axag.model.facts import Kind
from axag.vocabulary import SCHEMA_KEY_ORDER

DATA = Path(__file__).resolve().parents[1] / "data" / "compile"
UPDATE = os.environ.get("AXAG_UPDATE_GOLDENS") == "1"
VERSION = "0.1.0"
META_2020 = "https://json-schema.org/draft/2020-12/schema"


def booking_tool() -> dict[str, Any]:
    """The tool object of the tools.json example."""
    tool: dict[str, Any] = json.loads((DATA / "booking.tool.json").read_text(encoding="utf-8"))
    return tool


def booking() -> ToolContract:
    return ToolContract(
        tool=booking_tool(),
        declared_description="Book a room.",
        declared_required_parameters=True,
        params=[
            ManifestParam("check_in", True, False),
            ManifestParam("check_out", True, False),
            ManifestParam("guests", True, False),
            ManifestParam("note", False, False),
        ],
        sources=[("site/booking.html", 2, 3)],
        declared=frozenset({
            "axag-intent", "axag-action-type", "axag-description", "axag-required-parameters",
            "axag-optional-parameters", "axag-preconditions", "axag-risk-level", "axag-confirmation-required",
            "axag-confirmation-message", "axag-idempotent", "axag-side-effects", "axag-rate-limit",
        }),
    )


def contract(
    intent: str,
    properties: dict[str, Any] | None = None,
    required: list[str] | None = None,
    *,
    action_type: str = "read",
    name: str | None = None,
    meta: dict[str, Any] | None = None,
    description: str | None = None,
    declared: frozenset[str] = frozenset(),
    declared_required: bool = False,
    params: list[ManifestParam] | None = None,
) -> ToolContract:
    """A hand-built contract with the tool naming and duplicates key orders."""
    entity, verb = intent.split(".")
    title = " ".join(w.capitalize() for w in (entity + " " + verb).replace("_", " ").split())
    m: dict[str, Any] = {"intent": intent, "entity": entity, "action_type": action_type}
    m.update(meta or {})
    m["sources"] = [{"file": "site/a.html", "line": 1, "column": 1}]
    tool = {
        "name": name or intent.replace(".", "_"),
        "title": title,
        "description": description or f"{title}.",
        "inputSchema": {
            "$schema": META_2020,
            "type": "object",
            "properties": properties or {},
            "required": required or [],
            "additionalProperties": False,
        },
        "annotations": {"title": title, "readOnlyHint": True, "destructiveHint": False, "idempotentHint": False,
                        "openWorldHint": True},
        "_meta": {"org.axag/action": m},
    }
    return ToolContract(tool=tool, declared_description=description, declared_required_parameters=declared_required,
                        params=params or [], declared=declared)


def assert_valid(rendered: Rendered, target: str) -> None:
    assert check_structure(rendered.doc, target) == []
    assert self_check(rendered.doc, target) == []


def golden(name: str, text: str) -> None:
    path = DATA / name
    if UPDATE:
        path.write_text(text, encoding="utf-8", newline="\n")
    assert text == path.read_text(encoding="utf-8")


# ---------------------------------------------------------------- the tools.json example through every target

@pytest.mark.parametrize(
    ("target", "strict", "file"),
    [
        ("mcp", False, "booking.mcp.json"),
        ("openai", False, "booking.openai.json"),
        ("openai", True, "booking.openai-strict.json"),
        ("openai-responses", False, "booking.openai-responses.json"),
        ("openai-responses", True, "booking.openai-responses-strict.json"),
        ("anthropic", False, "booking.anthropic.json"),
        ("manifest", False, "booking.manifest.json"),
    ],
)
def test_booking_golden(target: str, strict: bool, file: str) -> None:
    rendered = render(target, [booking()], VERSION, strict=strict, paths=["site/booking.html"], environ={})
    assert rendered.problems == []
    golden(file, dumps(rendered.doc))
    assert_valid(rendered, target)


def test_mcp_document_is_the_section_9_7_tool() -> None:
    doc = render("mcp", [booking()], VERSION).doc
    assert list(doc) == ["$schema", "axag", "generator", "tools"]
    assert doc["$schema"] == "https://axag.org/schema/tools/v2/tools.schema.json"
    assert doc["axag"] == "1.1"
    assert doc["generator"] == {"name": "axag", "version": VERSION}
    assert doc["tools"] == [booking_tool()]
    assert list(doc["tools"][0]) == ["name", "title", "description", "inputSchema", "annotations", "_meta"]


def test_openai_tool_shape() -> None:
    doc = render("openai", [booking()], VERSION).doc
    assert doc["$schema"] == "https://axag.org/schema/tools/v1/openai-tools.schema.json"
    tool = doc["tools"][0]
    schema = {k: v for k, v in booking_tool()["inputSchema"].items() if k != "$schema"}
    assert tool == {
        "type": "function",
        "function": {
            "name": "booking_create",
            "description": booking_tool()["description"],
            "parameters": schema,
            "strict": False,
        },
    }
    assert list(tool["function"]["parameters"]) == ["type", "properties", "required", "additionalProperties"]


def test_anthropic_tool_shape() -> None:
    doc = render("anthropic", [booking()], VERSION).doc
    assert doc["$schema"] == "https://axag.org/schema/tools/v1/anthropic-tools.schema.json"
    schema = {k: v for k, v in booking_tool()["inputSchema"].items() if k != "$schema"}
    assert doc["tools"] == [{"name": "booking_create", "description": booking_tool()["description"],
                             "input_schema": schema}]


def test_openai_strict_booking() -> None:
    doc = render("openai", [booking()], VERSION, strict=True).doc
    function = doc["tools"][0]["function"]
    assert function["strict"] is True
    assert function["parameters"] == {
        "type": "object",
        "properties": {
            "check_in": {"type": "string", "format": "date"},
            "check_out": {"type": "string", "format": "date"},
            "guests": {"type": "integer", "minimum": 1, "maximum": 10},
            "note": {"type": ["string", "null"], "description": "Constraints: maxLength 200."},
        },
        "required": ["check_in", "check_out", "guests", "note"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize("target", ["mcp", "openai", "anthropic"])
def test_tools_sorted_by_code_point(target: str) -> None:
    names = ["b_x", "B_y", "_z", "a_b", "a-b"]
    contracts = [contract("thing.read", name=n) for n in names]
    doc = render(target, contracts, VERSION).doc
    got = [t["function"]["name"] if target == "openai" else t["name"] for t in doc["tools"]]
    assert got == ["B_y", "_z", "a-b", "a_b", "b_x"]
    assert_valid(render(target, contracts, VERSION), target)


@pytest.mark.parametrize("target", ["mcp", "openai", "anthropic", "manifest"])
def test_render_does_not_modify_contracts_and_is_deterministic(target: str) -> None:
    c = booking()
    before = copy.deepcopy(c.tool)
    first = dumps(render(target, [c], VERSION, strict=True, environ={}).doc)
    assert c.tool == before
    second = dumps(render(target, [booking()], VERSION, strict=True, environ={}).doc)
    assert first == second


def test_empty_documents() -> None:
    for target in ("mcp", "openai", "anthropic"):
        rendered = render(target, [], VERSION)
        assert rendered.doc["tools"] == []
        assert_valid(rendered, target)
    rendered = render("manifest", [], VERSION, environ={})
    assert rendered.doc == {
        "version": "1.1.0",
        "generated_at": "1970-01-01T00:00:00Z",
        "source": {"paths": [], "tool": "axag", "tool_version": VERSION},
        "conformance": "basic",
        "actions": [],
    }
    assert_valid(rendered, "manifest")


def test_unknown_target() -> None:
    with pytest.raises(ValueError):
        render("gemini", [], VERSION)


# ---------------------------------------------------------------- openai --strict (the other compile targets)

STRICT_PROPERTIES: dict[str, Any] = {
    "q": {"type": "string", "description": "Search text.", "minLength": 1, "maxLength": 100, "pattern": "^\\S"},
    "kind": {"type": "string", "enum": ["a", "b"]},
    "mode": {"type": "string", "const": "x"},
    "fixed": {"type": "integer", "const": 3},
    "both": {"type": "string", "enum": ["x", "y"], "const": "y"},
    "site": {"type": "string", "format": "uri", "default": "https://e.org"},
    "when": {"type": "string", "format": "date-time"},
    "host": {"type": "string", "format": "hostname"},
    "count": {"type": "integer", "default": 5, "minimum": 0, "exclusiveMaximum": 10.0, "multipleOf": 1},
    "tags": {"type": "array", "description": "Tags.", "examples": [["a", "é"]],
             "items": {"type": "string", "maxLength": 20}, "minItems": 1, "uniqueItems": True},
    "addr": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
             "required": ["city"], "additionalProperties": False},
    "flag": {"type": "boolean"},
}
STRICT_EXPECTED: dict[str, Any] = {
    "q": {"type": "string", "description": "Search text. Constraints: minLength 1; maxLength 100.", "pattern": "^\\S"},
    "kind": {"type": ["string", "null"], "enum": ["a", "b", None]},
    "mode": {"type": ["string", "null"], "enum": ["x", None]},
    "fixed": {"type": "integer", "enum": [3]},
    "both": {"type": ["string", "null"], "enum": ["y", None]},
    "site": {"type": ["string", "null"], "description": 'Constraints: format "uri"; default "https://e.org".'},
    "when": {"type": ["string", "null"], "format": "date-time"},
    "host": {"type": ["string", "null"], "format": "hostname"},
    "count": {"type": ["integer", "null"], "description": "Constraints: default 5.", "minimum": 0,
              "exclusiveMaximum": 10, "multipleOf": 1},
    "tags": {"type": "array", "description": 'Tags. Constraints: examples [["a","é"]]; uniqueItems true.',
             "items": {"type": "string", "description": "Constraints: maxLength 20."}, "minItems": 1},
    "addr": {"type": ["object", "null"],
             "properties": {"city": {"type": "string"}, "zip": {"type": ["string", "null"], "pattern": "^[0-9]{5}$"}},
             "required": ["city", "zip"], "additionalProperties": False},
    "flag": {"type": ["boolean", "null"]},
}


def test_strict_transformation() -> None:
    c = contract("search.run", STRICT_PROPERTIES, ["q", "fixed", "tags"])
    rendered = render("openai", [c], VERSION, strict=True)
    assert rendered.kind is Kind.STRICT_MODE_INCOMPATIBLE
    assert rendered.problems == []
    params = rendered.doc["tools"][0]["function"]["parameters"]
    assert params == {
        "type": "object",
        "properties": STRICT_EXPECTED,
        "required": list(STRICT_PROPERTIES),
        "additionalProperties": False,
    }
    for name, schema in params["properties"].items():  # the property schema key order everywhere
        assert list(schema) == list(STRICT_EXPECTED[name]), name
    assert list(params["properties"]["addr"]) == ["type", "properties", "required", "additionalProperties"]
    assert_valid(rendered, "openai")
    text = dumps(rendered.doc)
    assert '"enum": [\n                "a",\n                "b",\n                null\n              ]' in text


def test_strict_is_false_without_the_flag() -> None:
    c = contract("search.run", STRICT_PROPERTIES, ["q", "fixed", "tags"])
    rendered = render("openai", [c], VERSION)
    assert rendered.problems == []
    function = rendered.doc["tools"][0]["function"]
    assert function["strict"] is False
    assert function["parameters"]["properties"] == STRICT_PROPERTIES
    assert_valid(rendered, "openai")


def _nested_items(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "array", "items": schema}
    return schema


@pytest.mark.parametrize(
    ("properties", "required", "reasons"),
    [
        ({"meta": {"type": "object"}}, ["meta"], ["the object schema at /properties/meta has no properties"]),
        ({"list": {"type": "array"}}, [], ["the array schema at /properties/list has no items"]),
        (
            {"o": {"type": "object", "properties": {"inner": {"type": "array", "items": {"type": "object"}}},
                   "additionalProperties": False}},
            [],
            ["the object schema at /properties/o/properties/inner/items has no properties"],
        ),
        ({"big": {"type": "integer", "enum": list(range(1001))}}, ["big"],
         ["the enum at /properties/big has 1001 values (at most 1000)"]),
        ({"big": {"type": "integer", "enum": list(range(1000))}}, [],
         ["the enum at /properties/big has 1001 values (at most 1000)"]),
        ({"deep": _nested_items(10)}, ["deep"],
         ["the schema at /properties/deep" + "/items" * 10 + " is nested deeper than 10 levels"]),
        ({f"p{i}": {"type": "string"} for i in range(5001)}, [],
         ["the schema has 5001 properties in total (at most 5000)"]),
        (
            {"a": {"type": "object"}, "b": {"type": "array"}},
            [],
            ["the object schema at /properties/a has no properties", "the array schema at /properties/b has no items"],
        ),
    ],
)
def test_strict_problems(properties: dict[str, Any], required: list[str], reasons: list[str]) -> None:
    bad = contract("bad.thing", properties, required)
    good = contract("good.thing", {"x": {"type": "string"}}, ["x"])
    rendered = render("openai", [good, bad], VERSION, strict=True)
    assert rendered.kind is Kind.STRICT_MODE_INCOMPATIBLE
    assert rendered.problems == [("bad_thing", r) for r in reasons]
    # the tool that cannot be expressed is left out; the others stay
    assert [t["function"]["name"] for t in rendered.doc["tools"]] == ["good_thing"]
    assert_valid(rendered, "openai")
    # without --strict there is nothing to report
    assert render("openai", [good, bad], VERSION).problems == []


def test_strict_limits_are_inclusive() -> None:
    ok = contract("ok.thing", {
        "deep": _nested_items(9),
        "e": {"type": "integer", "enum": list(range(1000))},
        **{f"p{i}": {"type": "string"} for i in range(4998)},
    }, ["e"])
    params, reasons = openai_target.strict_parameters(ok)
    assert reasons == []
    assert len(params["properties"]) == 5000


# ---------------------------------------------------------------- manifest (the manifest target)

FULL_META: dict[str, Any] = {
    "risk_level": "critical",
    "idempotent": True,
    "confirmation_required": True,
    "confirmation_message": "Really?",
    "approval_required": True,
    "approval_roles": ["admin"],
    "approval_count": 2,
    "required_roles": ["ops", "billing"],
    "scope": "tenant",
    "tenant_boundary": "strict",
    "side_effects": ["email"],
    "preconditions": [{"text": "account_open", "kind": "state"}],
    "postconditions": ["account closed"],
    "rate_limit": {"count": 1, "period": "hour", "window_seconds": 3600},
    "cooldown": {"duration": "30s", "milliseconds": 30000},
    "async": True,
    "operation_id": "closeAccount",
    "role_escalation": False,
    "workflow": {"id": "w1", "step": 1},
    "extensions": {"acme-team": "core"},
}


def full_contract() -> ToolContract:
    return contract(
        "account.close", {"reason": {"type": "string"}}, ["reason"], action_type="delete", name="closeAccount",
        meta=FULL_META, description="Close the account.", declared_required=True,
        declared=frozenset({"axag-idempotent", "axag-side-effects", "axag-confirmation-required",
                            "axag-preconditions", "axag-approval-required", "axag-approval-roles"}),
    )


def test_manifest_action_key_order_and_silent_drops() -> None:
    rendered = render("manifest", [full_contract()], VERSION, paths=["b.html", "a.html"], environ={})
    doc = rendered.doc
    assert list(doc) == ["version", "generated_at", "source", "conformance", "actions"]
    assert doc["source"] == {"paths": ["a.html", "b.html"], "tool": "axag", "tool_version": VERSION}
    action = doc["actions"][0]
    assert list(action) == [
        "intent", "entity", "action_type", "operation_id", "description", "required_parameters",
        "optional_parameters", "risk_level", "confirmation_required", "approval_required", "approval_roles",
        "idempotent", "async", "scope", "tenant_boundary", "required_roles", "side_effects", "preconditions",
        "postconditions", "source_file", "source_line",
    ]
    assert action["operation_id"] == "closeAccount"
    assert action["description"] == "Close the account."
    assert action["preconditions"] == ["account_open"]
    assert action["required_parameters"] == [{"name": "reason", "type": "string"}]
    assert action["optional_parameters"] == []
    # rate limit, cooldown, confirmation message, approval count, extensions: dropped silently
    assert rendered.problems == []
    assert doc["conformance"] == "full"
    assert_valid(rendered, "manifest")


def test_manifest_minimal_action() -> None:
    c = contract("cart.add_item", {}, [])
    action = manifest_target.action(c)
    assert action == {
        "intent": "cart.add_item",
        "entity": "cart",
        "action_type": "read",
        "operation_id": "cart_add_item",
        "description": "Cart Add Item",  # the humanised intent without a final "."
        "required_parameters": [],
        "optional_parameters": [],
        "source_file": "site/a.html",
        "source_line": 1,
    }


MANIFEST_PROPERTIES: dict[str, Any] = {
    "email": {"type": "string", "description": "Mail.", "format": "email", "maxLength": 80, "minLength": 3,
              "pattern": "@"},
    "site": {"type": "string", "format": "uri"},
    "at": {"type": "string", "format": "date-time", "default": "2024-01-01T00:00:00Z"},
    "start": {"type": "string", "format": "time", "examples": ["10:00:00Z"]},
    "ip": {"type": "string", "format": "ipv4"},
    "ip6": {"type": "string", "format": "ipv6"},
    "host": {"type": "string", "format": "hostname"},
    "n": {"type": "number", "minimum": 0, "exclusiveMinimum": 0, "maximum": 9.5, "exclusiveMaximum": 10,
          "multipleOf": 0.5},
    "level": {"type": "integer", "enum": [1, 2, 3]},
    "fixed": {"type": "string", "const": "x"},
    "list": {"type": "array", "items": {"type": "string", "format": "time", "minLength": 1}, "minItems": 1,
             "maxItems": 3, "uniqueItems": True},
    "addr": {"type": "object", "properties": {"zip": {"type": "string", "format": "ipv4", "examples": ["x"]}},
             "required": ["zip"], "additionalProperties": False},
    "picked": {"type": "string"},
}


def test_manifest_parameters_and_lossy_drops() -> None:
    c = contract("user.update", MANIFEST_PROPERTIES, ["email", "n", "addr"], action_type="write",
                 params=[ManifestParam("picked", False, True, True)])
    rendered = render("manifest", [c], VERSION, environ={})
    action = rendered.doc["actions"][0]
    assert action["required_parameters"] == [
        {"name": "email", "type": "string", "description": "Mail.", "maxLength": 80, "minLength": 3, "pattern": "@",
         "format": "email"},
        {"name": "n", "type": "number", "min": 0, "max": 9.5},
        {"name": "addr", "type": "object", "properties": MANIFEST_PROPERTIES["addr"]["properties"]},
    ]
    assert action["optional_parameters"] == [
        {"name": "site", "type": "string", "format": "url"},
        {"name": "at", "type": "string", "format": "datetime", "default": "2024-01-01T00:00:00Z"},
        {"name": "start", "type": "string"},
        {"name": "ip", "type": "string"},
        {"name": "ip6", "type": "string"},
        {"name": "host", "type": "string"},
        {"name": "level", "type": "integer", "enum": [1, 2, 3]},
        {"name": "fixed", "type": "string", "enum": ["x"]},
        {"name": "list", "type": "array", "items": {"type": "string", "format": "time", "minLength": 1}},
        {"name": "picked", "type": "string", "source": "harvested:html"},
    ]
    assert list(action["required_parameters"][0]) == [
        "name", "type", "description", "maxLength", "minLength", "pattern", "format"]
    assert rendered.kind is Kind.LOSSY_MAPPING
    assert rendered.problems == [
        ("user.update", 'the format "time" of parameter "start"'),
        ("user.update", 'the examples of parameter "start"'),
        ("user.update", 'the format "ipv4" of parameter "ip"'),
        ("user.update", 'the format "ipv6" of parameter "ip6"'),
        ("user.update", 'the format "hostname" of parameter "host"'),
        ("user.update", 'the exclusiveMin of parameter "n"'),
        ("user.update", 'the exclusiveMax of parameter "n"'),
        ("user.update", 'the multipleOf of parameter "n"'),
        ("user.update", 'the minItems of parameter "list"'),
        ("user.update", 'the maxItems of parameter "list"'),
        ("user.update", 'the uniqueItems of parameter "list"'),
        ("user.update", 'the required list of parameter "addr"'),
    ]
    assert_valid(rendered, "manifest")


def test_manifest_actions_sorted_by_intent_and_drops_in_action_order() -> None:
    a = contract("zeta.run", {"x": {"type": "integer", "multipleOf": 2}}, [], name="a_first")
    b = contract("alpha.run", {"y": {"type": "integer", "exclusiveMinimum": 1}}, [], name="z_last")
    rendered = render("manifest", [a, b], VERSION, environ={})
    assert [x["intent"] for x in rendered.doc["actions"]] == ["alpha.run", "zeta.run"]
    assert rendered.problems == [("alpha.run", 'the exclusiveMin of parameter "y"'),
                                 ("zeta.run", 'the multipleOf of parameter "x"')]


def test_manifest_dynamic_actions() -> None:
    dyn = [DynamicAction("site/b.html", 3, "dynamic value in axag-risk-level"),
           DynamicAction("site/a.html", 9, "dynamic value in axag-intent")]
    rendered = render("manifest", [booking()], VERSION, dynamic_actions=dyn, environ={})
    assert list(rendered.doc)[-1] == "dynamic_actions"
    assert rendered.doc["dynamic_actions"] == [
        {"source_file": "site/a.html", "source_line": 9, "reason": "dynamic value in axag-intent"},
        {"source_file": "site/b.html", "source_line": 3, "reason": "dynamic value in axag-risk-level"},
    ]
    assert_valid(rendered, "manifest")
    assert "dynamic_actions" not in render("manifest", [booking()], VERSION, environ={}).doc


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "1970-01-01T00:00:00Z"),
        ({"SOURCE_DATE_EPOCH": "0"}, "1970-01-01T00:00:00Z"),
        ({"SOURCE_DATE_EPOCH": "1700000000"}, "2023-11-14T22:13:20Z"),
        ({"SOURCE_DATE_EPOCH": "86399"}, "1970-01-01T23:59:59Z"),
        ({"SOURCE_DATE_EPOCH": "soon"}, "1970-01-01T00:00:00Z"),
        ({"SOURCE_DATE_EPOCH": "-5"}, "1970-01-01T00:00:00Z"),
        ({"SOURCE_DATE_EPOCH": "99999999999999999999"}, "1970-01-01T00:00:00Z"),
    ],
)
def test_generated_at(env: dict[str, str], expected: str) -> None:
    assert generated_at(env) == expected
    assert render("manifest", [], VERSION, environ=env).doc["generated_at"] == expected


def test_generated_at_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert render("manifest", [], VERSION).doc["generated_at"] == "2023-11-14T22:13:20Z"
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert render("manifest", [], VERSION).doc["generated_at"] == "1970-01-01T00:00:00Z"


def _intermediate(intent: str = "doc.read", action_type: str = "read", risk: str = "low",
                  **meta: Any) -> ToolContract:
    return contract(intent, {}, [], action_type=action_type, description="Does it.", declared_required=True,
                    meta={"risk_level": risk, "scope": "user", **meta})


def test_conformance_levels() -> None:
    assert conformance([]) == "basic"
    # read actions have nothing more to declare
    assert conformance([_intermediate()]) == "full"
    # intermediate needs a declared description, an effective scope, a risk level and parameters
    no_desc = contract("doc.read", {}, [], declared_required=True, meta={"risk_level": "low", "scope": "user"})
    assert conformance([no_desc]) == "basic"
    assert conformance([_intermediate(), no_desc]) == "basic"
    no_scope = contract("doc.read", {}, [], description="D.", declared_required=True, meta={"risk_level": "low"})
    assert conformance([no_scope]) == "basic"
    no_risk = contract("doc.read", {}, [], description="D.", declared_required=True, meta={"scope": "user"})
    assert conformance([no_risk]) == "basic"
    no_params = contract("doc.read", {}, [], description="D.", meta={"risk_level": "low", "scope": "user"})
    assert conformance([no_params]) == "basic"
    harvested = contract("doc.read", {"q": {"type": "string"}}, [], description="D.",
                         meta={"risk_level": "low", "scope": "user"},
                         params=[ManifestParam("q", False, False, harvested=True)])
    assert conformance([harvested]) == "full"
    harvested_only = contract("doc.read", {"q": {"type": "string"}}, [], description="D.",
                              meta={"risk_level": "low", "scope": "user"}, params=[ManifestParam("q", False, True)])
    assert conformance([harvested_only]) == "full"
    # full: write/delete declare idempotent and side effects
    write = _intermediate("doc.save", "write", "low")
    assert conformance([write]) == "intermediate"
    write_ok = _intermediate("doc.save", "write", "low", idempotent=True, side_effects=[])
    assert conformance([write_ok]) == "full"
    # high/critical declare confirmation and preconditions
    high = _intermediate("doc.read", "read", "high", confirmation_required=False)
    assert conformance([high]) == "intermediate"
    high_ok = _intermediate("doc.read", "read", "high", confirmation_required=False,
                            preconditions=[{"text": "x", "kind": "state"}])
    assert conformance([high_ok]) == "full"
    # critical also declares approval and its roles
    critical = _intermediate("doc.read", "read", "critical", confirmation_required=True,
                             preconditions=[{"text": "x", "kind": "state"}], approval_required=True)
    assert conformance([critical]) == "intermediate"
    critical_ok = _intermediate("doc.read", "read", "critical", confirmation_required=True,
                                preconditions=[{"text": "x", "kind": "state"}], approval_required=True,
                                approval_roles=["boss"])
    assert conformance([critical_ok]) == "full"
    assert conformance([critical_ok, write]) == "intermediate"
    assert conformance([full_contract()]) == "full"


def test_conformance_uses_declared_attribute_names() -> None:
    write = contract("doc.save", {}, [], action_type="write", description="D.", declared_required=False,
                     meta={"risk_level": "low", "scope": "user"},
                     declared=frozenset({"axag-required-parameters", "axag-idempotent", "axag-side-effects"}))
    assert conformance([write]) == "full"


# ---------------------------------------------------------------- property: every target accepts every schema

_NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
_TEXT = st.text(min_size=1, max_size=8)
_NUM = st.integers(-100, 100) | st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
_VALUES = {
    "string": _TEXT,
    "number": _NUM,
    "integer": st.integers(-100, 100),
    "boolean": st.booleans(),
    "array": st.lists(st.integers(0, 3), max_size=2),
    "object": st.dictionaries(_NAMES, st.integers(0, 3), max_size=2),
}


@st.composite
def property_schemas(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    type_ = draw(st.sampled_from(["string", "number", "integer", "boolean", "array", "object"]))
    s: dict[str, Any] = {"type": type_}

    def maybe() -> bool:
        return draw(st.booleans())

    if maybe():
        s["description"] = draw(_TEXT)
    values = _VALUES[type_]
    if type_ == "string" and maybe():
        s["format"] = draw(st.sampled_from(
            ["email", "uri", "date", "date-time", "time", "uuid", "ipv4", "ipv6", "hostname"]))
    if maybe():
        s["enum"] = draw(st.lists(values, min_size=1, max_size=3, unique_by=repr))
    if maybe():
        s["const"] = draw(values)
    if maybe():
        s["default"] = draw(values)
    if maybe():
        s["examples"] = draw(st.lists(values, max_size=2))
    if type_ in ("number", "integer"):
        for key in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
            if maybe():
                s[key] = draw(_NUM)
        if maybe():
            s["multipleOf"] = draw(st.sampled_from([1, 2, 0.5]))
    if type_ == "string":
        for key in ("minLength", "maxLength"):
            if maybe():
                s[key] = draw(st.integers(0, 50))
        if maybe():
            s["pattern"] = draw(st.sampled_from(["^a", "[0-9]+", "x|y"]))
    if type_ == "array":
        if depth < 3 and maybe():
            s["items"] = draw(property_schemas(depth + 1))
        for key in ("minItems", "maxItems"):
            if maybe():
                s[key] = draw(st.integers(0, 5))
        if maybe():
            s["uniqueItems"] = draw(st.booleans())
    if type_ == "object" and depth < 3 and maybe():
        props = draw(st.dictionaries(_NAMES, property_schemas(depth + 1), min_size=1, max_size=3))
        s["properties"] = props
        if maybe():
            s["required"] = [n for n in props if draw(st.booleans())]
        s["additionalProperties"] = False
    return {k: s[k] for k in SCHEMA_KEY_ORDER if k in s}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_NAMES, property_schemas(), max_size=4), st.data())
def test_every_target_validates_any_schema(properties: dict[str, Any], data: st.DataObject) -> None:
    required = [n for n in properties if data.draw(st.booleans())]
    c = contract("thing.do", properties, required)
    for target in ("mcp", "openai", "anthropic", "manifest"):
        rendered = render(target, [c], VERSION, environ={})
        assert check_structure(rendered.doc, target) == [], target
        assert self_check(rendered.doc, target) == [], target
    strict = render("openai", [c], VERSION, strict=True)
    if strict.problems:
        assert strict.doc["tools"] == []
        return
    assert check_structure(strict.doc, "openai") == []
    assert self_check(strict.doc, "openai") == []
    params = strict.doc["tools"][0]["function"]["parameters"]
    assert params["required"] == list(properties)
    for name, schema in params["properties"].items():
        nullable = name not in required
        assert (schema["type"] == [properties[name]["type"], "null"]) is nullable
        if "enum" in schema:
            assert (schema["enum"][-1] is None) is nullable
    # the manifest reports exactly the parameter-level keys it cannot hold
    drops = render("manifest", [c], VERSION, environ={}).problems
    expected = 0
    for schema in properties.values():
        expected += sum(k in schema for k in ("examples", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                                              "minItems", "maxItems", "uniqueItems", "required"))
        expected += schema.get("format") in ("time", "ipv4", "ipv6", "hostname")
    assert len(drops) == expected


# ---------------------------------------------------------------- openai-responses

@pytest.mark.parametrize("strict", [False, True])
def test_openai_responses_is_the_chat_function_flattened(strict: bool) -> None:
    chat = render("openai", [booking()], VERSION, strict=strict).doc
    responses = render("openai-responses", [booking()], VERSION, strict=strict).doc
    assert responses["$schema"] == "https://axag.org/schema/tools/v1/openai-responses-tools.schema.json"
    assert responses["tools"] == [{"type": "function", **t["function"]} for t in chat["tools"]]
    assert list(responses["tools"][0]) == ["type", "name", "description", "parameters", "strict"]
    assert responses["tools"][0]["strict"] is strict


def test_openai_responses_structure_check_rejects_the_chat_shape() -> None:
    chat = render("openai", [booking()], VERSION).doc
    chat["$schema"] = "https://axag.org/schema/tools/v1/openai-responses-tools.schema.json"
    errors = check_structure(chat, "openai-responses")
    assert errors and any("function" in e for e in errors)
    assert self_check(chat, "openai-responses")
