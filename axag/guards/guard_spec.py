"""Names, literals and the per-tool guard spec shared by the Python and TypeScript guard renderers.

They serve the relational checks, opaque preconditions, confirmation, rate limits and the result envelope of the
guards, and keep the code-generation guarantees. Everything annotation-derived that reaches generated code goes through
:func:`py_literal` (Python), or the TypeScript encoder, and :func:`identifier`. Both languages render from
the same :class:`GuardSpec` list built by :func:`extract_specs`.
"""

from __future__ import annotations

import hashlib
import keyword
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "DATE_LIKE_KINDS",
    "ECMASCRIPT_RESERVED",
    "IDENT_RE",
    "ORDERING_FORMS",
    "PRESENCE_FORMS",
    "Bound",
    "GuardSpec",
    "GuardSpecError",
    "Opaque",
    "Relation",
    "Stub",
    "collect_stubs",
    "extract_specs",
    "guard_identifier",
    "identifier",
    "number_text",
    "operand_kind",
    "py_literal",
    "py_str",
    "stub_names",
]

IDENT_RE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# ECMAScript reserved words (ES2022 keywords, literals, strict-mode future reserved words), plus `eval`,
# `arguments` and `await`; a stub name equal to one of these gets the `pre_` prefix (opaque preconditions).
ECMASCRIPT_RESERVED: Final = frozenset(
    {
        "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do",
        "else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in",
        "instanceof", "new", "null", "return", "super", "switch", "this", "throw", "true", "try",
        "typeof", "var", "void", "while", "with", "yield", "let", "static", "implements", "interface",
        "package", "private", "protected", "public", "await", "eval", "arguments",
    }
)

# harvesting: control-to-schema mapping harvested patterns -> operand kind (relational classification and validation)
HARVESTED_KINDS: Final = {
    r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]"
    r"(:[0-5][0-9](\.[0-9]{1,3})?)?$": "local-date-time",
    r"^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,3})?)?$": "time-of-day",
    r"^[0-9]{4}-(0[1-9]|1[0-2])$": "month",
    r"^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$": "week",
}
DATE_LIKE_KINDS: Final = ("date", "date-time", "time", "local-date-time", "time-of-day", "month", "week")
ORDERING_FORMS: Final = ("greater_than", "greater_than_or_equal", "less_than", "less_than_or_equal")
COMPARISON_FORMS: Final = (*ORDERING_FORMS, "equal", "not_equal")
PRESENCE_FORMS: Final = (
    "requires", "mutually_exclusive", "exactly_one_of", "at_least_one_of", "required_when_equal",
    "required_when_present",
)
_STRIP_KEYS: Final = ("description", "default", "examples")


class GuardSpecError(ValueError):
    """The tools document cannot be turned into guards (bad identifier, name collision, bad shape)."""


# ---------------------------------------------------------------- identifiers (code-generation guarantees)
def identifier(name: str) -> str:
    """Return ``name`` when it is a safe identifier (``^[A-Za-z_][A-Za-z0-9_]*$``); raise otherwise."""
    if not isinstance(name, str) or not IDENT_RE.fullmatch(name):
        raise GuardSpecError(f"not a safe identifier: {name!r}")
    return name


def guard_identifier(tool_name: str) -> str:
    """Tool name -> guard identifier: ``-`` -> ``_``, prefixed ``guard_`` (code-generation guarantees)."""
    if not isinstance(tool_name, str):
        raise GuardSpecError(f"tool name is not a string: {tool_name!r}")
    return identifier("guard_" + tool_name.replace("-", "_"))


# ---------------------------------------------------------------- stub names (opaque preconditions)
def _base_stub_name(text: str) -> str:
    name = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:40]
    if (
        not name
        or name[0].isdigit()
        or keyword.iskeyword(name)
        or name in ECMASCRIPT_RESERVED
    ):
        name = "pre_" + name
    return name


def stub_names(texts: Sequence[str]) -> dict[str, str]:
    """Distinct precondition texts -> stub function names (opaque preconditions), collisions suffixed with SHA-256."""
    distinct = list(dict.fromkeys(texts))
    base = {t: _base_stub_name(t) for t in distinct}
    counts: dict[str, int] = {}
    for name in base.values():
        counts[name] = counts.get(name, 0) + 1
    out: dict[str, str] = {}
    for t in distinct:
        name = base[t]
        if counts[name] > 1:
            name = f"{name}_{hashlib.sha256(t.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
        out[t] = identifier(name)
    if len(set(out.values())) != len(out):  # pragma: no cover - needs a SHA-256 prefix clash
        raise GuardSpecError("precondition stub names collide")
    return out


# ---------------------------------------------------------------- literals (canonical numbers, code-generation guarantees)
def number_text(value: float) -> str:
    """canonical numbers: integral values below 2^53 without fraction or exponent, big ints exactly, else repr."""
    if isinstance(value, bool):
        raise GuardSpecError("a boolean is not a number")
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        raise GuardSpecError(f"non-finite number: {value!r}")
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


def py_str(text: str) -> str:
    """A Python string literal in double quotes; everything outside printable ASCII escaped by code point."""
    parts = ['"']
    for ch in text:
        cp = ord(ch)
        if ch == "\\":
            parts.append("\\\\")
        elif ch == '"':
            parts.append('\\"')
        elif 0x20 <= cp <= 0x7E:
            parts.append(ch)
        elif cp <= 0xFF:
            parts.append(f"\\x{cp:02x}")
        elif cp <= 0xFFFF:
            parts.append(f"\\u{cp:04x}")
        else:
            parts.append(f"\\U{cp:08x}")
    parts.append('"')
    return "".join(parts)


def py_literal(value: object) -> str:
    """The Python literal encoder (code-generation guarantees): str, canonical numbers, bool, None, lists and dicts recursively."""
    if value is None:
        return "None"
    if value is True:
        return "True"
    if value is False:
        return "False"
    if isinstance(value, str):
        return py_str(value)
    if isinstance(value, (int, float)):
        return number_text(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(py_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            if not isinstance(k, str):
                raise GuardSpecError(f"object key is not a string: {k!r}")
            items.append(f"{py_str(k)}: {py_literal(v)}")
        return "{" + ", ".join(items) + "}"
    raise GuardSpecError(f"cannot encode {type(value).__name__} as a literal")


# ---------------------------------------------------------------- operand kinds (relational classification and validation, relational semantics)
def operand_kind(schema: Mapping[str, Any] | None) -> str:
    """Operand kind of a property schema: a date-like kind, ``number`` or ``other``."""
    if not isinstance(schema, Mapping):
        return "other"
    fmt = schema.get("format")
    if schema.get("type") == "string":
        if fmt in ("date", "date-time", "time"):
            return str(fmt)
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and pattern in HARVESTED_KINDS:
            return HARVESTED_KINDS[pattern]
        return "other"
    if schema.get("type") in ("integer", "number"):
        return "number"
    return "other"


# ---------------------------------------------------------------- the guard spec
@dataclass(frozen=True)
class Relation:
    """A relational precondition (relational output): form, parameter names in order, optional literal, operand kind."""

    text: str
    form: str
    params: tuple[str, ...]
    has_value: bool = False
    value: Any = None
    kind: str = "other"  # operand kind of params[0] (ordering/comparison forms)


@dataclass(frozen=True)
class Opaque:
    """An opaque (state) precondition and the name of its stub."""

    text: str
    stub: str


@dataclass(frozen=True)
class Bound:
    """Date-like bounds of one parameter (harvesting: date-like bounds); values as written in ``format_bounds``."""

    param: str
    kind: str  # date | local-date-time | time-of-day | month | week (else compared as written)
    minimum: str | None = None
    maximum: str | None = None


@dataclass(frozen=True)
class Stub:
    """One user-owned precondition function (opaque preconditions)."""

    name: str
    text: str
    tools: tuple[str, ...]


@dataclass
class GuardSpec:
    """Everything a renderer needs about one tool; both languages render from this."""

    tool: str
    ident: str  # guard_<tool with - -> _>
    intent: str
    title: str
    input_schema: dict[str, Any]  # the inputSchema without "$schema"
    required: tuple[str, ...]
    properties: dict[str, Any]
    relations: tuple[Relation, ...] = ()
    preconditions: tuple[Opaque, ...] = ()
    required_roles: tuple[str, ...] = ()
    confirmation_required: bool = False
    confirmation_message: str | None = None
    approval_required: bool = False
    approval_roles: tuple[str, ...] = ()
    approval_count: int = 1
    rate_limit: str | None = None  # canonical text, e.g. "10/minute"
    rate_count: int | None = None
    rate_window_seconds: float | None = None
    cooldown: str | None = None  # canonical text, e.g. "30s"
    cooldown_seconds: float | None = None
    bounds: tuple[Bound, ...] = ()
    format_bounds: dict[str, Any] = field(default_factory=dict)
    active_constraints: dict[str, Any] = field(default_factory=dict)
    # extra metadata for the context block (the constraint context block)
    meta: dict[str, Any] = field(default_factory=dict)


def _strip_annotations(schema: Any) -> Any:
    """Property schema without description/default/examples, recursively in items and properties."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _STRIP_KEYS:
            continue
        if key == "items":
            out[key] = _strip_annotations(value)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {k: _strip_annotations(v) for k, v in value.items()}
        else:
            out[key] = value
    return out


def _check_patterns(schema: Any, where: str) -> None:
    """Every ``pattern`` must be in the pattern subset: both runtimes read it as ECMA-262 (Python through
    ``ecma_to_python``, TypeScript with ``new RegExp(p, "gu")`` tried at code-point boundaries only), and neither
    may hang on adversarial input."""
    if not isinstance(schema, dict):
        return
    pattern = schema.get("pattern")
    if pattern is not None:
        if not isinstance(pattern, str):
            raise GuardSpecError(f"{where}: pattern {pattern!r} is not a string")
        from axag.values.pattern import check_pattern, cost_problem

        problem = check_pattern(pattern) or cost_problem(pattern, schema.get("maxLength"))
        if problem is not None:
            raise GuardSpecError(f"{where}: pattern {pattern!r} {problem} (a pattern must mean the same in Python "
                                 "and JavaScript, and must not hang a guard)")
    _check_patterns(schema.get("items"), where)
    members = schema.get("properties")
    if isinstance(members, dict):
        for name, sub in members.items():
            _check_patterns(sub, f"{where}.{name}")


def _str_tuple(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise GuardSpecError(f"{what} must be an array of strings")
    return tuple(value)


def _tool_list(doc: Any) -> list[dict[str, Any]]:
    if not isinstance(doc, dict) or not isinstance(doc.get("tools"), list):
        raise GuardSpecError("not an MCP tools document: no \"tools\" array")
    tools: list[dict[str, Any]] = doc["tools"]
    for t in tools:
        if not isinstance(t, dict) or not isinstance(t.get("name"), str):
            raise GuardSpecError("every tool must be an object with a string \"name\"")
    return tools


def collect_stubs(doc: Mapping[str, Any]) -> list[Stub]:
    """All distinct opaque precondition texts across the document, in first-use order (tools by name)."""
    users: dict[str, list[str]] = {}
    for tool in sorted(_tool_list(doc), key=lambda t: str(t["name"])):
        meta = _action_meta(tool)
        for item in meta.get("preconditions") or []:
            if isinstance(item, dict) and item.get("kind") == "state" and isinstance(item.get("text"), str):
                names = users.setdefault(item["text"], [])
                if tool["name"] not in names:
                    names.append(tool["name"])
    names_by_text = stub_names(list(users))
    return [Stub(names_by_text[t], t, tuple(tools)) for t, tools in users.items()]


def _action_meta(tool: Mapping[str, Any]) -> dict[str, Any]:
    meta = tool.get("_meta")
    action = meta.get("org.axag/action") if isinstance(meta, dict) else None
    if not isinstance(action, dict):
        raise GuardSpecError(f"tool {tool.get('name')!r} has no _meta[\"org.axag/action\"] object")
    return action


def extract_specs(doc: Mapping[str, Any]) -> list[GuardSpec]:
    """Per-tool guard specs of an MCP tools document (the tools.json output and its tool objects), sorted by tool name."""
    tools = sorted(_tool_list(doc), key=lambda t: str(t["name"]))
    stub_by_text = {s.text: s.name for s in collect_stubs(doc)}
    specs: list[GuardSpec] = []
    idents: dict[str, str] = {}
    for tool in tools:
        name = str(tool["name"])
        ident = guard_identifier(name)
        if ident in idents:
            raise GuardSpecError(f"tools {idents[ident]!r} and {name!r} give the same guard name {ident}")
        idents[ident] = name
        try:
            specs.append(_spec(tool, ident, stub_by_text))
        except GuardSpecError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise GuardSpecError(f"tool {name!r} has malformed metadata: {exc!r}") from exc
    return specs


def _spec(tool: dict[str, Any], ident: str, stub_by_text: Mapping[str, str]) -> GuardSpec:
    name = str(tool["name"])
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict) or not isinstance(schema.get("properties", {}), dict):
        raise GuardSpecError(f"tool {name!r} has no valid inputSchema")
    input_schema = {k: v for k, v in schema.items() if k != "$schema"}
    properties: dict[str, Any] = dict(schema.get("properties") or {})
    for pname, psub in properties.items():
        _check_patterns(psub, f"tool {name!r}: parameter {pname}")
    required = _str_tuple(schema.get("required"), f"{name}: inputSchema.required")
    meta = _action_meta(tool)
    intent = meta.get("intent")
    if not isinstance(intent, str):
        raise GuardSpecError(f"tool {name!r} has no intent")
    title = tool.get("title") if isinstance(tool.get("title"), str) else name
    relations, opaque = _preconditions(name, meta, properties, stub_by_text)
    rate_text, rate_count, rate_window = _rate_limit(meta)
    cool_text, cool_seconds = _cooldown(meta)
    format_bounds, bounds = _format_bounds(name, meta, properties)
    required_roles = _str_tuple(meta.get("required_roles"), f"{name}: required_roles")
    approval_required = meta.get("approval_required") is True
    approval_roles = _str_tuple(meta.get("approval_roles"), f"{name}: approval_roles")
    approval_count = meta.get("approval_count", 1)
    if not isinstance(approval_count, int) or isinstance(approval_count, bool) or approval_count < 1:
        raise GuardSpecError(f"tool {name!r}: approval_count must be a positive integer")
    confirmation_required = meta.get("confirmation_required") is True
    message = meta.get("confirmation_message")
    message = message if isinstance(message, str) else None

    # the constraints in effect, as the guard reports them (only those declared)
    active: dict[str, Any] = {}
    if required:
        active["required"] = list(required)
    if properties:
        active["parameters"] = {k: _strip_annotations(v) for k, v in properties.items()}
    if format_bounds:
        active["format_bounds"] = format_bounds
    if relations:
        active["relations"] = [r.text for r in relations]
    if opaque:
        active["preconditions"] = [o.text for o in opaque]
    if required_roles:
        active["required_roles"] = list(required_roles)
    if confirmation_required:
        active["confirmation_required"] = True
    if approval_required:
        active["approval"] = {"roles": list(approval_roles), "count": approval_count}
    if rate_text is not None:
        active["rate_limit"] = rate_text
    if cool_text is not None:
        active["cooldown"] = cool_text

    return GuardSpec(
        tool=name,
        ident=ident,
        intent=intent,
        title=str(title),
        input_schema=input_schema,
        required=required,
        properties=properties,
        relations=tuple(relations),
        preconditions=tuple(opaque),
        required_roles=required_roles,
        confirmation_required=confirmation_required,
        confirmation_message=message if confirmation_required else None,
        approval_required=approval_required,
        approval_roles=approval_roles,
        approval_count=approval_count,
        rate_limit=rate_text,
        rate_count=rate_count,
        rate_window_seconds=rate_window,
        cooldown=cool_text,
        cooldown_seconds=cool_seconds,
        bounds=tuple(bounds),
        format_bounds=format_bounds,
        active_constraints=active,
        meta=meta,
    )


def _preconditions(name: str, meta: Mapping[str, Any], properties: Mapping[str, Any],
                   stub_by_text: Mapping[str, str]) -> tuple[list[Relation], list[Opaque]]:
    """The tool's relational preconditions (checked by the guard) and opaque ones (the user's stubs)."""
    relations: list[Relation] = []
    opaque: list[Opaque] = []
    for item in meta.get("preconditions") or []:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise GuardSpecError(f"tool {name!r}: a precondition is not an object with a text")
        text = item["text"]
        if item.get("kind") == "relational":
            relations.append(_relation(name, item, text, properties))
        else:
            opaque.append(Opaque(text, stub_by_text[text]))
    return relations, opaque


def _relation(name: str, item: Mapping[str, Any], text: str, properties: Mapping[str, Any]) -> Relation:
    form = item.get("form")
    params = _str_tuple(item.get("params"), f"{name}: precondition params")
    if form not in COMPARISON_FORMS and form not in PRESENCE_FORMS:
        raise GuardSpecError(f"tool {name!r}: unknown relational form {form!r}")
    if not params:
        raise GuardSpecError(f"tool {name!r}: relational precondition without params")
    for p in params:
        if p not in properties:
            raise GuardSpecError(f"tool {name!r}: precondition names unknown parameter {p!r}")
    return Relation(text=text, form=str(form), params=params, has_value="value" in item, value=item.get("value"),
                    kind=operand_kind(properties.get(params[0])))


def _rate_limit(meta: Mapping[str, Any]) -> tuple[str | None, int | None, float | None]:
    """(text such as "5/minute", count, window in seconds), or Nones when the tool has no rate limit."""
    rate = meta.get("rate_limit")
    if not isinstance(rate, dict):
        return None, None, None
    count = int(rate["count"])
    window = float(rate["window_seconds"])
    return f"{count}/{rate['period']}", count, window


def _cooldown(meta: Mapping[str, Any]) -> tuple[str | None, float | None]:
    """(duration as written, seconds), or Nones when the tool has no cooldown."""
    cool = meta.get("cooldown")
    if not isinstance(cool, dict):
        return None, None
    return str(cool["duration"]), float(cool["milliseconds"]) / 1000.0


def _format_bounds(name: str, meta: Mapping[str, Any], properties: Mapping[str, Any]
                   ) -> tuple[dict[str, Any], list[Bound]]:
    format_bounds: dict[str, Any] = dict(meta.get("format_bounds") or {})
    bounds: list[Bound] = []
    for param, b in format_bounds.items():
        if param not in properties or not isinstance(b, dict):
            raise GuardSpecError(f"tool {name!r}: format_bounds names unknown parameter {param!r}")
        lo, hi = b.get("formatMinimum"), b.get("formatMaximum")
        if (lo is not None and not isinstance(lo, str)) or (hi is not None and not isinstance(hi, str)):
            raise GuardSpecError(f"tool {name!r}: format bounds must be strings")
        bounds.append(Bound(param, operand_kind(properties[param]), lo, hi))
    return format_bounds, bounds
