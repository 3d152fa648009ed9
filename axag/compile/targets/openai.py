"""Targets ``openai`` (Chat Completions) and ``openai-responses`` (Responses API) (the other compile targets), with the
``--strict`` transformation (OpenAI Structured Outputs). The two differ only in the tool object: Chat Completions
nests the function (``{"type": "function", "function": {"name", ...}}``), the Responses API takes it flat
(``{"type": "function", "name", "description", "parameters", "strict"}``).

Strict mode problems (`AXAG-LINT-146`) are returned as data, ``(tool name, reason)``; the caller turns them into
findings. A tool with a problem is left out of the strict document (it only gets written with ``--keep-going``,
which drops tools with error findings).

Choices where the other compile targets leaves room: nesting counts the ``parameters`` object as level 0 and each property schema as
level 1, so a parameter may nest 9 levels of fragments; the enum limit applies to the emitted enum (``null``
included); a ``const`` next to an ``enum`` becomes the enum (``[c]`` or ``[c, null]``), as 116 guarantees the
const is one of the enum values; the removed keywords of ``items`` fragments go to the fragment's description.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from axag.compile.contract import ToolContract
from axag.compile.sentence import as_sentence
from axag.compile.serialize import dumps_compact
from axag.compile.targets import Options, Rendered, Target, tool_schemas
from axag.compile.targets.mcp import envelope, sorted_contracts
from axag.compile.validate import Checker, Path, is_bool, is_text, matches
from axag.model.facts import Kind
from axag.vocabulary import SCHEMA_KEY_ORDER as PROPERTY_KEYS
from axag.vocabulary import TOOL_NAME_RE

__all__ = [
    "MAX_DEPTH",
    "MAX_ENUM_VALUES",
    "MAX_PROPERTIES",
    "RESPONSES_SCHEMA_ID",
    "SCHEMA_ID",
    "STRICT_FORMATS",
    "TARGETS",
    "StrictProblem",
    "check_responses_tool",
    "check_tool",
    "render",
    "strict_parameters",
    "tool",
]

SCHEMA_ID = "https://axag.org/schema/tools/v1/openai-tools.schema.json"
RESPONSES_SCHEMA_ID = "https://axag.org/schema/tools/v1/openai-responses-tools.schema.json"

MAX_DEPTH = 10  # the parameters object is level 0, its properties level 1
MAX_PROPERTIES = 5000
MAX_ENUM_VALUES = 1000
STRICT_FORMATS = ("date-time", "time", "date", "email", "hostname", "ipv4", "ipv6", "uuid")
# keywords strict mode does not support, removed and stated in the description (format only when not above)
_UNSUPPORTED = ("format", "default", "examples", "minLength", "maxLength", "uniqueItems")

StrictProblem = tuple[str, str]  # (tool name, reason) for AXAG-LINT-146


def _plain_parameters(contract: ToolContract) -> dict[str, Any]:
    return {k: copy.deepcopy(v) for k, v in contract.tool["inputSchema"].items() if k != "$schema"}


def tool(contract: ToolContract, parameters: dict[str, Any] | None = None, *, strict: bool = False,
         responses: bool = False) -> dict[str, Any]:
    """One OpenAI function tool, nested (Chat Completions) or flat (``responses``: the Responses API);
    `parameters` defaults to ``inputSchema`` without ``$schema``."""
    mcp = contract.tool
    function = {
        "name": mcp["name"],
        "description": mcp["description"],
        "parameters": _plain_parameters(contract) if parameters is None else parameters,
        "strict": strict,
    }
    return {"type": "function", **function} if responses else {"type": "function", "function": function}


@dataclass
class _Walk:
    reasons: list[str] = field(default_factory=list)
    properties: int = 0
    too_deep: bool = False


def _pointer(parts: Sequence[str]) -> str:
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts) or "/"


def _transform(schema: dict[str, Any], nullable: bool, depth: int, path: list[str], walk: _Walk) -> dict[str, Any]:
    """The strict form of one property schema or fragment (steps 1-3 of the OpenAI strict form), keys in property-schema order."""
    if depth > MAX_DEPTH and not walk.too_deep:
        walk.too_deep = True
        walk.reasons.append(f"the schema at {_pointer(path)} is nested deeper than {MAX_DEPTH} levels")
    out: dict[str, Any] = {}
    removed: list[str] = []
    for key, value in schema.items():
        if key in _UNSUPPORTED and not (key == "format" and value in STRICT_FORMATS):
            removed.append(key)
        elif key not in ("const", "items", "properties", "required", "additionalProperties"):
            out[key] = copy.deepcopy(value)
    type_ = schema.get("type")
    if nullable:
        out["type"] = [type_, "null"]
    if "const" in schema:  # a const is the tightest enum (116 keeps it inside a declared enum)
        out["enum"] = [copy.deepcopy(schema["const"])] + ([None] if nullable else [])
    elif "enum" in schema and nullable:
        out["enum"] = out["enum"] + [None]
    if "enum" in out and len(out["enum"]) > MAX_ENUM_VALUES:
        walk.reasons.append(f"the enum at {_pointer(path)} has {len(out['enum'])} values (at most {MAX_ENUM_VALUES})")
    if "items" in schema:
        out["items"] = _transform(schema["items"], False, depth + 1, [*path, "items"], walk)
    elif type_ == "array":
        walk.reasons.append(f"the array schema at {_pointer(path)} has no items")
    if "properties" in schema:
        out.update(_object(schema, depth, path, walk))
    elif type_ == "object":
        walk.reasons.append(f"the object schema at {_pointer(path)} has no properties")
    if removed:
        note = "Constraints: " + "; ".join(f"{k} {dumps_compact(schema[k])}" for k in PROPERTY_KEYS if k in removed) + "."
        out["description"] = f"{as_sentence(out['description'])} {note}" if out.get("description") else note
    return {k: out[k] for k in PROPERTY_KEYS if k in out}


def _object(schema: dict[str, Any], depth: int, path: list[str], walk: _Walk) -> dict[str, Any]:
    """Step (1) and (2) for an object schema: every property required, the optional ones nullable, closed."""
    names = list(schema["properties"])
    walk.properties += len(names)
    required = set(schema.get("required", ()))
    return {
        "properties": {
            name: _transform(sub, name not in required, depth + 1, [*path, "properties", name], walk)
            for name, sub in schema["properties"].items()
        },
        "required": names,
        "additionalProperties": False,
    }


def strict_parameters(contract: ToolContract) -> tuple[dict[str, Any], list[str]]:
    """The strict-mode ``parameters`` of a tool and the reasons it cannot be expressed (empty when it can)."""
    walk = _Walk()
    params = {"type": "object", **_object(_plain_parameters(contract), 0, [], walk)}
    if walk.properties > MAX_PROPERTIES:
        walk.reasons.append(f"the schema has {walk.properties} properties in total (at most {MAX_PROPERTIES})")
    return params, walk.reasons


def render(
    contracts: Sequence[ToolContract], version: str, *, strict: bool = False, responses: bool = False
) -> tuple[dict[str, Any], list[StrictProblem]]:
    """The openai (or, with ``responses``, openai-responses) document and the `AXAG-LINT-146` problems (always
    empty without `strict`)."""
    tools: list[dict[str, Any]] = []
    problems: list[StrictProblem] = []
    for contract in sorted_contracts(contracts):
        if not strict:
            tools.append(tool(contract, responses=responses))
            continue
        params, reasons = strict_parameters(contract)
        if reasons:
            problems.extend((contract.name, reason) for reason in reasons)
        else:
            tools.append(tool(contract, params, strict=True, responses=responses))
    return envelope(RESPONSES_SCHEMA_ID if responses else SCHEMA_ID, version, tools), problems


def check_tool(c: Checker, v: Any, path: Path) -> str | None:
    t = c.obj(v, path, ("type", "function"), ("type", "function"))
    if t is None:
        return None
    c.val(t, "type", path, lambda x: x == "function", "'function'")
    keys = ("name", "description", "parameters", "strict")
    fpath = (*path, "function")
    f = c.obj(t.get("function"), fpath, keys, keys)
    if f is None:
        return None
    c.val(f, "name", fpath, matches(TOOL_NAME_RE), "a tool name")
    c.val(f, "description", fpath, is_text, "a non-empty string")
    c.val(f, "strict", fpath, is_bool, "a boolean")
    c.root_schema(f.get("parameters"), (*fpath, "parameters"), with_schema=False, strict=f.get("strict") is True)
    name = f.get("name")
    return name if isinstance(name, str) else None


def check_responses_tool(c: Checker, v: Any, path: Path) -> str | None:
    keys = ("type", "name", "description", "parameters", "strict")
    t = c.obj(v, path, keys, keys)
    if t is None:
        return None
    c.val(t, "type", path, lambda x: x == "function", "'function'")
    c.val(t, "name", path, matches(TOOL_NAME_RE), "a tool name")
    c.val(t, "description", path, is_text, "a non-empty string")
    c.val(t, "strict", path, is_bool, "a boolean")
    c.root_schema(t.get("parameters"), (*path, "parameters"), with_schema=False, strict=t.get("strict") is True)
    name = t.get("name")
    return name if isinstance(name, str) else None


def _rendered(contracts: Sequence[ToolContract], o: Options, *, responses: bool) -> Rendered:
    doc, problems = render(contracts, o.version, strict=o.strict, responses=responses)
    return Rendered(doc, Kind.STRICT_MODE_INCOMPATIBLE, problems)


def _check(c: Checker, doc: Any, *, responses: bool) -> None:
    c.strict_formats = STRICT_FORMATS
    c.tools(doc, TARGETS[responses], check_responses_tool if responses else check_tool)


def _strict_in(doc: dict[str, Any], *, responses: bool) -> bool:
    tools = doc.get("tools")
    return isinstance(tools, list) and any(
        isinstance(t, dict) and (t.get("strict") is True if responses else (
            isinstance(t.get("function"), dict) and t["function"].get("strict") is True))
        for t in tools)


TARGETS: Final[tuple[Target, ...]] = (
    Target(
        name="openai",
        summary='OpenAI Chat Completions tools, {"type": "function", "function": {…}}',
        schema_file="openai-tools.schema.json",
        schema_id=SCHEMA_ID,
        render=lambda contracts, o: _rendered(contracts, o, responses=False),
        check=lambda c, doc: _check(c, doc, responses=False),
        schemas=tool_schemas("function", "parameters"),
        strict=True,
        strict_in=lambda doc: _strict_in(doc, responses=False),
    ),
    Target(
        name="openai-responses",
        summary='OpenAI Responses API tools, flat {"type": "function", "name", …}',
        schema_file="openai-responses-tools.schema.json",
        schema_id=RESPONSES_SCHEMA_ID,
        render=lambda contracts, o: _rendered(contracts, o, responses=True),
        check=lambda c, doc: _check(c, doc, responses=True),
        schemas=tool_schemas("parameters"),
        strict=True,
        strict_in=lambda doc: _strict_in(doc, responses=True),
    ),
)
