"""Self-validation of compile output (self-validation and shipped schemas).

`check_structure` is the fast built-in checker that compile always runs before writing (no ``jsonschema``):
every emitted schema uses only the keywords of the property schema (with the strict forms of the other compile targets) with values of the right
JSON types, and the document has the shape of its target (compile outputs, the other compile targets, the manifest target), key order included.
`self_check` is the full validation with ``jsonschema`` (tests and ``--self-check``): every emitted schema
against the bundled JSON Schema 2020-12 metaschema and the whole document against its shipped schema; nothing is
fetched. Both return problems as ``"<JSON pointer>: <text>"`` strings (empty list = valid); a non-empty result
is an internal error for the caller.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

from axag.values.jsontext import is_number
from axag.vocabulary import (
    ACTION_TYPES,
    ENTITY_RE,
    INTENT_RE,
    PARAM_NAME_RE,
    PARAMETER_TYPES,
    PERIOD_SECONDS,
    RISK_LEVELS,
    SCHEMA_KEY_ORDER,
    SCOPES,
    TENANT_BOUNDARIES,
    TOOL_NAME_RE,
    VERSION_RE,
    WORKFLOW_ID_RE,
)

if TYPE_CHECKING:
    from axag.compile.targets import Target

__all__ = [
    "ANNOTATION_KEYS",
    "INPUT_SCHEMA_KEYS",
    "JSON_SCHEMA_2020_12",
    "META_KEYS",
    "SCHEMA_FORMATS",
    "TOOL_KEYS",
    "TOOL_REQUIRED",
    "Checker",
    "check_names",
    "check_sources",
    "check_structure",
    "check_tools_file",
    "emitted_schemas",
    "is_bool",
    "is_json",
    "is_nonneg_int",
    "is_number",
    "is_pos_int",
    "is_text",
    "is_text_list",
    "kind_of",
    "matches",
    "one_of",
    "pointer",
    "self_check",
    "short",
]

JSON_SCHEMA_2020_12: Final = "https://json-schema.org/draft/2020-12/schema"
TOOL_KEYS: Final = ("name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta")
TOOL_REQUIRED: Final = ("name", "title", "description", "inputSchema", "annotations", "_meta")
HTTP_KEYS: Final = ("openapi", "method", "action", "enctype", "fields", "constants", "checkbox", "refresh",
                    "live", "form", "page", "unsupported", "multiline")
OPENAPI_KEYS: Final = ("operation_id", "method", "path", "in")
INPUT_SCHEMA_KEYS: Final = ("$schema", "type", "properties", "required", "additionalProperties")
ANNOTATION_KEYS: Final = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
META_KEYS: Final = (
    "intent", "entity", "action_type", "risk_level", "idempotent", "confirmation_required",
    "confirmation_message", "approval_required", "approval_roles", "approval_count", "required_roles", "scope",
    "tenant_boundary", "side_effects", "preconditions", "postconditions", "rate_limit", "cooldown", "async",
    "operation_id", "role_escalation", "format_bounds", "schema", "workflow", "visibility", "versioning",
    "sources", "extensions",
)
SCHEMA_FORMATS: Final = ("email", "uri", "date", "date-time", "time", "uuid", "ipv4", "ipv6", "hostname")
PRECONDITION_FORMS: Final = (
    "greater_than", "greater_than_or_equal", "less_than", "less_than_or_equal", "equal", "not_equal", "requires",
    "mutually_exclusive", "exactly_one_of", "at_least_one_of", "required_when_equal", "required_when_present",
)
_NUMERIC_KEYS: Final = ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf")
_STRING_KEYS: Final = ("format", "minLength", "maxLength", "pattern")
_ARRAY_KEYS: Final = ("items", "minItems", "maxItems", "uniqueItems")
_OBJECT_KEYS: Final = ("properties", "required", "additionalProperties")
_STRICT_REMOVED: Final = ("const", "default", "examples", "minLength", "maxLength", "uniqueItems")
_COOLDOWN_RE: Final = re.compile(r"[1-9][0-9]*(ms|s|m|h|d)")


def pointer(parts: tuple[str | int, ...] | list[str | int]) -> str:
    """The JSON Pointer (RFC 6901) of a path; ``""`` is the whole document."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


# ---------------------------------------------------------------- JSON type predicates

def _is_int(v: Any) -> bool:
    """A JSON number with an integral value (an integral float is written as an integer, canonical numbers)."""
    if isinstance(v, bool):
        return False
    return isinstance(v, int) or (isinstance(v, float) and math.isfinite(v) and v.is_integer())


def is_json(v: Any) -> bool:
    if v is None or isinstance(v, (bool, str)) or is_number(v):
        return True
    if isinstance(v, (list, tuple)):
        return all(is_json(x) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, str) and is_json(x) for k, x in v.items())
    return False


def is_text(v: Any) -> bool:
    return isinstance(v, str) and v != ""


def is_text_list(v: Any) -> bool:
    return isinstance(v, list) and all(is_text(x) for x in v)


def matches(regex: re.Pattern[str]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and regex.fullmatch(v) is not None


def one_of(values: tuple[Any, ...]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and v in values


def is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def is_pos_int(v: Any) -> bool:
    return _is_int(v) and v >= 1


def is_nonneg_int(v: Any) -> bool:
    return _is_int(v) and v >= 0


# ---------------------------------------------------------------- the checker

Path = tuple[str | int, ...]


def _is_count(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _is_form_locator(x: Any) -> bool:
    if not isinstance(x, dict):
        return False
    if set(x) == {"id"}:
        return is_text(x["id"])
    return (set(x) == {"action", "method", "index", "count"} and is_text(x["action"])
            and x["method"] in ("GET", "POST") and _is_count(x["index"]) and _is_count(x["count"])
            and x["count"] >= 1)


class Checker:
    """Finds the structural problems of a compiled document; each target's `Target.check` drives it over its
    document with the parts below (objects with ordered keys, typed fields, emitted schemas, the envelope and tools
    of a tools document, the ``_meta`` blocks) and adds what only it has."""

    def __init__(self, ordered: bool = True) -> None:
        self.errors: list[str] = []
        self.ordered = ordered
        self.strict_formats: tuple[str, ...] = ()  # the formats a strict schema may keep (`Target.strict`)

    def err(self, path: Path, text: str) -> None:
        self.errors.append(f"{pointer(path) or '/'}: {text}")

    def obj(
        self, v: Any, path: Path, allowed: tuple[str, ...], required: tuple[str, ...] = ()
    ) -> dict[str, Any] | None:
        """`v` is an object with keys from `allowed` in that order and every `required` key."""
        if not isinstance(v, dict):
            self.err(path, f"expected an object, got {kind_of(v)}")
            return None
        for key in v:
            if key not in allowed:
                self.err(path, f"unexpected key {key!r}")
        for key in required:
            if key not in v:
                self.err(path, f"missing key {key!r}")
        known = [k for k in v if k in allowed]
        if self.ordered and known != sorted(known, key=allowed.index):
            self.err(path, f"keys out of order: {', '.join(known)}")
        return v

    def val(self, v: dict[str, Any], key: str, path: Path, test: Callable[[Any], bool], what: str) -> None:
        if key in v and not test(v[key]):
            self.err((*path, key), f"expected {what}, got {short(v[key])}")

    def fields(self, v: dict[str, Any], path: Path, table: dict[str, tuple[Callable[[Any], bool], str]]) -> None:
        for key, (test, what) in table.items():
            self.val(v, key, path, test, what)

    # -------------------------------------------------- schemas (the property schema, inputSchema, the other compile targets)

    def root_schema(self, v: Any, path: Path, *, with_schema: bool, strict: bool) -> None:
        keys = INPUT_SCHEMA_KEYS if with_schema else INPUT_SCHEMA_KEYS[1:]
        s = self.obj(v, path, keys, keys)
        if s is None:
            return
        if with_schema:
            self.val(s, "$schema", path, lambda x: x == JSON_SCHEMA_2020_12, repr(JSON_SCHEMA_2020_12))
        self.val(s, "type", path, lambda x: x == "object", "'object'")
        self.val(s, "additionalProperties", path, lambda x: x is False, "false")
        self.properties(s, path, 0, strict)

    def properties(self, s: dict[str, Any], path: Path, depth: int, strict: bool) -> None:
        props = s.get("properties")
        if not isinstance(props, dict):
            if "properties" in s:
                self.err((*path, "properties"), f"expected an object, got {kind_of(props)}")
            return
        for name, sub in props.items():
            if not PARAM_NAME_RE.fullmatch(name):
                self.err((*path, "properties"), f"invalid property name {name!r}")
            self.schema(sub, (*path, "properties", name), depth + 1, strict)
        if "required" not in s and depth > 0 and not strict:
            return  # a fragment lists `required` only when declared (fragments); the root always has it (inputSchema)
        req = s.get("required")
        if not isinstance(req, list) or not all(isinstance(x, str) for x in req):
            self.err((*path, "required"), f"expected an array of strings, got {short(req)}")
            return
        if len(set(req)) != len(req):
            self.err((*path, "required"), "repeated names")
        for name in req:
            if name not in props:
                self.err((*path, "required"), f"{name!r} is not a property")
        if strict and req != list(props):
            self.err((*path, "required"), "strict mode requires every property, in property order")

    def schema(self, v: Any, path: Path, depth: int, strict: bool) -> None:
        s = self.obj(v, path, SCHEMA_KEY_ORDER, ("type",))
        if s is None:
            return
        type_ = s.get("type")
        base = type_
        if strict and isinstance(type_, list):
            if len(type_) == 2 and type_[1] == "null" and type_[0] in PARAMETER_TYPES:
                base = type_[0]
            else:
                self.err((*path, "type"), f"expected [type, 'null'], got {short(type_)}")
        elif type_ not in PARAMETER_TYPES:
            self.err((*path, "type"), f"expected one of {', '.join(PARAMETER_TYPES)}, got {short(type_)}")
        self.fields(s, path, {
            "description": (is_text, "a non-empty string"),
            "format": (one_of(self.strict_formats if strict else SCHEMA_FORMATS), "a JSON Schema format"),
            "enum": (lambda x: isinstance(x, list) and x != [] and is_json(x), "a non-empty array"),
            "const": (is_json, "a JSON value"),
            "default": (is_json, "a JSON value"),
            "examples": (lambda x: isinstance(x, list) and is_json(x), "an array"),
            "minimum": (is_number, "a number"),
            "exclusiveMinimum": (is_number, "a number"),
            "maximum": (is_number, "a number"),
            "exclusiveMaximum": (is_number, "a number"),
            "multipleOf": (lambda x: is_number(x) and x > 0, "a number > 0"),
            "minLength": (is_nonneg_int, "an integer >= 0"),
            "maxLength": (is_nonneg_int, "an integer >= 0"),
            "pattern": (lambda x: isinstance(x, str), "a string"),
            "minItems": (is_nonneg_int, "an integer >= 0"),
            "maxItems": (is_nonneg_int, "an integer >= 0"),
            "uniqueItems": (is_bool, "a boolean"),
            "additionalProperties": (lambda x: x is False, "false"),
        })
        if strict:
            for key in _STRICT_REMOVED:
                if key in s:
                    self.err((*path, key), "keyword not allowed in strict mode")
            if base == "object" and "properties" not in s:
                self.err(path, "strict mode needs 'properties' on an object schema")
            if base == "array" and "items" not in s:
                self.err(path, "strict mode needs 'items' on an array schema")
        if isinstance(base, str) and base in PARAMETER_TYPES:
            groups = {"number": _NUMERIC_KEYS, "integer": _NUMERIC_KEYS, "string": _STRING_KEYS,
                      "array": _ARRAY_KEYS, "object": _OBJECT_KEYS}
            for group in (_NUMERIC_KEYS, _STRING_KEYS, _ARRAY_KEYS, _OBJECT_KEYS):
                if group is not groups.get(base):
                    for key in group:
                        if key in s:
                            self.err((*path, key), f"keyword does not apply to type {base!r}")
        if "items" in s:
            self.schema(s["items"], (*path, "items"), depth + 1, strict)
        has_props = "properties" in s
        if has_props:
            self.properties(s, path, depth, strict)
        elif "required" in s:
            self.err((*path, "required"), "'required' without 'properties'")
        if has_props != ("additionalProperties" in s):
            self.err(path, "'additionalProperties': false goes with 'properties' and only with it")

    # -------------------------------------------------- documents

    def tools(self, doc: Any, target: Target, tool: Callable[[Checker, Any, Path], str | None]) -> None:
        """A document of ``{"$schema", "axag", "generator", "tools"}`` whose tools `tool` checks (it returns the
        tool's name), sorted by name."""
        tools = self.envelope(doc, target)
        names = [tool(self, t, ("tools", i)) for i, t in enumerate(tools)]
        self.names_sorted([n for n in names if n is not None], ("tools",), "tool names")

    def envelope(self, doc: Any, target: Target) -> list[Any]:
        d = self.obj(doc, (), ("$schema", "axag", "generator", "tools"), ("$schema", "axag", "generator", "tools"))
        if d is None:
            return []
        accepted = (target.schema_id,) if self.ordered else (target.schema_id, *target.legacy_schema_ids)
        self.val(d, "$schema", (), lambda x: x in accepted, repr(target.schema_id))
        self.val(d, "axag", (), lambda x: x == "1.1", "'1.1'")
        gen = self.obj(d.get("generator"), ("generator",), ("name", "version"), ("name", "version"))
        if gen is not None:
            self.val(gen, "name", ("generator",), lambda x: x == "axag", "'axag'")
            self.val(gen, "version", ("generator",), is_text, "a non-empty string")
        tools = d.get("tools")
        if not isinstance(tools, list):
            self.err(("tools",), f"expected an array, got {kind_of(tools)}")
            return []
        return tools

    def names_sorted(self, names: list[Any], path: Path, what: str) -> None:
        clean = [n for n in names if isinstance(n, str)]
        if self.ordered and clean != sorted(clean):
            self.err(path, f"{what} not sorted in code-point order")
        if len(set(clean)) != len(clean):
            self.err(path, f"repeated {what}")

    def tool_head(self, t: dict[str, Any], path: Path) -> None:
        """``name``, ``title``, ``description`` and ``inputSchema``: what mcp and webmcp tools share."""
        self.fields(t, path, {
            "name": (matches(TOOL_NAME_RE), "a tool name"),
            "title": (is_text, "a non-empty string"),
            "description": (is_text, "a non-empty string"),
        })
        self.root_schema(t.get("inputSchema"), (*path, "inputSchema"), with_schema=True, strict=False)

    def http(self, v: Any, path: Path) -> None:
        """`_meta["org.axag/http"]`: a form binding or an OpenAPI binding (see axag/compile/http.py)."""
        # "form" (the form locator) is absent from a navigate link's binding: it has no form
        form = ("method", "action", "enctype", "fields", "constants", "checkbox", "refresh", "live", "page")
        b = self.obj(v, path, HTTP_KEYS, ("openapi", "page") if isinstance(v, dict) and "openapi" in v else form)
        if b is None:
            return
        if b.get("live") and "form" not in b:  # live values are read from the annotated form: it must be found
            self.err(path, "missing key 'form' (the binding reads live values from its form)")
        self.fields(b, path, {
            "method": (lambda x: x in ("GET", "POST"), "'GET' or 'POST'"),
            "action": (is_text, "a non-empty string"),
            "enctype": (lambda x: x in ("application/x-www-form-urlencoded", "multipart/form-data", "text/plain"),
                        "a form encoding"),
            "fields": (lambda x: isinstance(x, dict) and all(isinstance(n, str) for n in x.values()),
                       "an object of control names"),
            "constants": (lambda x: isinstance(x, list) and all(
                isinstance(c, list) and len(c) == 2 and isinstance(c[0], str) and (c[1] is None or isinstance(
                    c[1], str)) for c in x), "an array of [name, value] pairs"),
            "checkbox": (lambda x: isinstance(x, dict) and all(isinstance(n, str) for n in x.values()),
                         "an object of checkbox values"),
            "refresh": (is_bool, "a boolean"),
            "live": (lambda x: isinstance(x, list) and all(
                isinstance(e, list) and len(e) == 3 and _is_count(e[0]) and is_text(e[1]) and _is_count(e[2])
                for e in x), "an array of [index, kind, occurrence]"),
            "form": (_is_form_locator, "{id} or {action, method, index, count}"),
            "page": (is_text, "a non-empty string"),
            "unsupported": (lambda x: isinstance(x, list) and all(isinstance(n, str) for n in x),
                            "an array of control names"),
            "multiline": (lambda x: isinstance(x, list) and all(isinstance(n, str) for n in x),
                          "an array of parameter names"),
        })
        if "openapi" in b:
            op = self.obj(b["openapi"], (*path, "openapi"), OPENAPI_KEYS, OPENAPI_KEYS)
            if op is not None:
                self.fields(op, (*path, "openapi"), {
                    "operation_id": (is_text, "a non-empty string"),
                    "method": (is_text, "a non-empty string"),
                    "path": (is_text, "a non-empty string"),
                    "in": (lambda x: isinstance(x, dict) and all(
                        w in ("path", "query", "header", "body") for w in x.values()), "an object of locations"),
                })

    def meta(self, v: Any, path: Path) -> None:
        m = self.obj(v, path, META_KEYS, ("intent", "entity", "action_type", "sources"))
        if m is None:
            return
        self.fields(m, path, {
            "intent": (matches(INTENT_RE), "an intent"),
            "entity": (matches(ENTITY_RE), "an entity"),
            "action_type": (one_of(ACTION_TYPES), "an action type"),
            "risk_level": (one_of(RISK_LEVELS), "a risk level"),
            "idempotent": (is_bool, "a boolean"),
            "confirmation_required": (is_bool, "a boolean"),
            "confirmation_message": (is_text, "a non-empty string"),
            "approval_required": (is_bool, "a boolean"),
            "approval_roles": (is_text_list, "an array of strings"),
            "approval_count": (is_pos_int, "an integer >= 1"),
            "required_roles": (is_text_list, "an array of strings"),
            "scope": (one_of(SCOPES), "a scope"),
            "tenant_boundary": (one_of(TENANT_BOUNDARIES), "a tenant boundary"),
            "side_effects": (is_text_list, "an array of strings"),
            "postconditions": (is_text_list, "an array of strings"),
            "async": (is_bool, "a boolean"),
            "operation_id": (matches(TOOL_NAME_RE), "a tool name"),
            "role_escalation": (is_bool, "a boolean"),
            "schema": (is_text, "a non-empty string"),
        })
        if m.get("approval_required") is True and "approval_count" not in m:
            self.err(path, "missing key 'approval_count' (approval is required)")
        if "preconditions" in m:
            self.preconditions(m["preconditions"], (*path, "preconditions"))
        if "rate_limit" in m:
            rkeys = ("count", "period", "window_seconds")
            rl = self.obj(m["rate_limit"], (*path, "rate_limit"), rkeys, rkeys)
            if rl is not None:
                rpath = (*path, "rate_limit")
                seconds = PERIOD_SECONDS.get(str(rl.get("period")))
                self.val(rl, "count", rpath, is_pos_int, "an integer >= 1")
                self.val(rl, "period", rpath, one_of(tuple(PERIOD_SECONDS)), "a period")
                self.val(rl, "window_seconds", rpath,
                         lambda x: _is_int(x) and (seconds is None or x == seconds), "the period's seconds")
        if "cooldown" in m:
            ckeys = ("duration", "milliseconds")
            cd = self.obj(m["cooldown"], (*path, "cooldown"), ckeys, ckeys)
            if cd is not None:
                self.val(cd, "duration", (*path, "cooldown"), matches(_COOLDOWN_RE), "a duration")
                self.val(cd, "milliseconds", (*path, "cooldown"), is_pos_int, "an integer >= 1")
        if "format_bounds" in m:
            fb = m["format_bounds"]
            if not isinstance(fb, dict):
                self.err((*path, "format_bounds"), f"expected an object, got {kind_of(fb)}")
            else:
                for name, bounds in fb.items():
                    bpath = (*path, "format_bounds", name)
                    if not PARAM_NAME_RE.fullmatch(name):
                        self.err(bpath, "invalid parameter name")
                    b = self.obj(bounds, bpath, ("formatMinimum", "formatMaximum"))
                    if b is not None:
                        if not b:
                            self.err(bpath, "empty bounds")
                        for key in b:
                            self.val(b, key, bpath, is_text, "a non-empty string")
        self.sub_object(m, "workflow", path, {
            "id": (matches(WORKFLOW_ID_RE), "a workflow id"),
            "step": (is_pos_int, "an integer >= 1"),
            "total_steps": (is_pos_int, "an integer >= 1"),
            "next": (matches(INTENT_RE), "an intent"),
            "previous": (matches(INTENT_RE), "an intent"),
        })
        self.sub_object(m, "visibility", path, {
            "visible": (is_bool, "a boolean"),
            "operable": (is_bool, "a boolean"),
            "operability_reason": (is_text, "a non-empty string"),
        })
        self.sub_object(m, "versioning", path, {
            "version": (matches(VERSION_RE), "a version"),
            "since": (matches(VERSION_RE), "a version"),
            "deprecated": (is_bool, "a boolean"),
            "deprecated_replacement": (matches(INTENT_RE), "an intent"),
        })
        self.sources(m.get("sources"), (*path, "sources"))
        if "extensions" in m:
            ext = m["extensions"]
            epath = (*path, "extensions")
            if not isinstance(ext, dict):
                self.err(epath, f"expected an object, got {kind_of(ext)}")
            else:
                if self.ordered and list(ext) != sorted(ext):
                    self.err(epath, "keys not sorted in code-point order")
                for key, value in ext.items():
                    if not isinstance(value, str):
                        self.err((*epath, key), f"expected a string, got {short(value)}")

    def sub_object(
        self, m: dict[str, Any], key: str, path: Path, table: dict[str, tuple[Callable[[Any], bool], str]]
    ) -> None:
        if key in m:
            sub = self.obj(m[key], (*path, key), tuple(table))
            if sub is not None:
                if not sub:
                    self.err((*path, key), "empty object")
                self.fields(sub, (*path, key), table)

    def preconditions(self, v: Any, path: Path) -> None:
        if not isinstance(v, list):
            self.err(path, f"expected an array, got {kind_of(v)}")
            return
        for i, item in enumerate(v):
            ipath = (*path, i)
            p = self.obj(item, ipath, ("text", "kind", "form", "params", "value"), ("text", "kind"))
            if p is None:
                continue
            self.val(p, "text", ipath, is_text, "a non-empty string")
            self.val(p, "kind", ipath, one_of(("relational", "state")), "'relational' or 'state'")
            if p.get("kind") == "relational":
                for key in ("form", "params"):
                    if key not in p:
                        self.err(ipath, f"missing key {key!r}")
                self.val(p, "form", ipath, one_of(PRECONDITION_FORMS), "a relational form")
                self.val(p, "params", ipath,
                         lambda x: isinstance(x, list) and x != [] and all(
                             isinstance(n, str) and PARAM_NAME_RE.fullmatch(n) for n in x),
                         "a non-empty array of parameter names")
                self.val(p, "value", ipath, lambda x: isinstance(x, (str, bool)) or is_number(x),
                         "a string, number or boolean")
            else:
                for key in ("form", "params", "value"):
                    if key in p:
                        self.err((*ipath, key), "only relational preconditions have this key")

    def sources(self, v: Any, path: Path) -> None:
        if not isinstance(v, list) or not v:
            self.err(path, f"expected a non-empty array, got {short(v)}")
            return
        keys = ("file", "line", "column")
        order: list[tuple[Any, ...]] = []
        for i, item in enumerate(v):
            s = self.obj(item, (*path, i), keys, keys)
            if s is None:
                continue
            # a backslash is a legal character of a POSIX file name (Windows separators became "/" already)
            self.val(s, "file", (*path, i), lambda x: is_text(x) and not x.startswith("/"),
                     "a relative POSIX path")
            self.val(s, "line", (*path, i), is_pos_int, "an integer >= 1")
            self.val(s, "column", (*path, i), is_pos_int, "an integer >= 1")
            order.append(tuple(s.get(k) for k in keys))
        try:
            if self.ordered and order != sorted(order):
                self.err(path, "not sorted by file, line, column")
        except TypeError:
            pass  # already reported as a type error

def kind_of(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, str):
        return "a string"
    if is_number(v):
        return "a number"
    if isinstance(v, (list, tuple)):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def short(v: Any) -> str:
    try:
        text = json.dumps(v, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        text = kind_of(v)
    return text if len(text) <= 60 else text[:57] + "..."


def check_sources(sources: Any, index: int) -> list[str]:
    """`check_structure`'s problems of the sources of the tool at ``/tools/index`` of an mcp document."""
    c = Checker(True)
    c.sources(sources, ("tools", index, "_meta", "org.axag/action", "sources"))
    return c.errors


def check_names(names: list[str], target: str) -> list[str]:
    """`check_structure`'s problems of the order and uniqueness of the tool names of a document."""
    c = Checker(True)
    c.names_sorted(names, ("tools",), "tool names")
    return c.errors


def check_structure(doc: Any, target: str, *, ordered: bool = True) -> list[str]:
    """Problems of the document `doc` of `target` found without ``jsonschema`` (self-validation and shipped schemas); empty when valid.

    With `ordered` (compile output), key orders and the sorting of tools, actions, sources, paths and extension
    keys are checked too; ``ordered=False`` checks a document read back from a file (``axag guards`` input), where
    only the content matters.
    """
    from axag.compile.targets import get

    declared = get(target)  # ValueError for an unknown target
    c = Checker(ordered)
    declared.check(c, doc)
    return c.errors


# ---------------------------------------------------------------- full validation (jsonschema)

def emitted_schemas(doc: Any, target: str) -> Iterator[tuple[Path, Any]]:
    """``(path, schema)`` of every JSON Schema the document carries (tool input schemas; manifest fragments)."""
    from axag.compile.targets import get

    declared = get(target)
    if isinstance(doc, dict):
        yield from declared.schemas(doc)


def self_check(doc: Any, target: str) -> list[str]:
    """Full validation with ``jsonschema`` (self-validation and shipped schemas), offline: the emitted schemas against the 2020-12 metaschema,
    the document against its target's shipped schema. Problems sorted by path; empty when valid."""
    from jsonschema import Draft202012Validator, validators
    from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]
    from referencing import Resource

    from axag.compile.serialize import dumps
    from axag.compile.targets import declared, get
    from axag.files.shipped_schemas import load_schema

    shipped = get(target)  # ValueError for an unknown target
    try:
        data = json.loads(dumps(doc))  # validate exactly the JSON that is written
    except (TypeError, ValueError) as exc:
        return [f"/: not serialisable as JSON: {exc}"]
    problems: list[tuple[str, str]] = []
    metaschema = REGISTRY.contents(JSON_SCHEMA_2020_12)
    meta_validator = Draft202012Validator(metaschema, registry=REGISTRY)
    for path, schema in emitted_schemas(data, target):
        for error in meta_validator.iter_errors(schema):
            where = pointer((*path, *error.absolute_path))
            problems.append((where, f"not a valid JSON Schema 2020-12: {error.message}"))
    # a schema may refer to another one (webmcp to the definitions of tools.schema.json): every target's schema is
    # known by its $id; the schema's own $schema picks the draft (the manifest's is draft-07)
    registry = REGISTRY.with_resources(
        (t.schema_id, Resource.from_contents(load_schema(t.schema_file))) for t in declared())
    schema = load_schema(shipped.schema_file)
    validator = validators.validator_for(schema)(schema, registry=registry)
    for error in validator.iter_errors(data):
        problems.append((pointer(tuple(error.absolute_path)), error.message))
    return [f"{where or '/'}: {text}" for where, text in sorted(problems)]


def check_tools_file(doc: Any, path: object) -> dict[str, Any]:
    """``doc`` read from ``path`` when it is a valid MCP tools document (every command that reads a tools file
    checks it this way: guards, serve, catalogue); ``InputError`` naming the first problem otherwise."""
    from axag.outcome.errors import InputError

    try:
        problems = check_structure(doc, "mcp", ordered=False)  # key order is not part of the input contract
        if not problems:
            problems = self_check(doc, "mcp")
    except RecursionError as exc:
        raise InputError(f"{path} is nested too deeply") from exc
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InputError(f"{path} is not a valid MCP tools file: {problems[0]}{more}")
    assert isinstance(doc, dict)
    return doc
