"""The AXAG 1.1 vocabulary (the vocabulary, value syntax): attribute table, enumerations, patterns, did-you-mean.

This module is the single definition of the vocabulary; every other module reads it from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Final


# ---------------------------------------------------------------- enumerations (enumerations)
@dataclass(frozen=True, slots=True)
class ActionType:
    """A value of ``axag-action-type`` and what it means. Every consumer reads these properties, never the value:
    the safety rules, the compiled ``readOnlyHint``/``destructiveHint``, the manifest's conformance level, the
    served links, and (through scripts/generate-schemas.py) the enums of the shipped schemas."""

    name: str
    meaning: str
    mutating: bool = False  # a call changes data: risk level, idempotence and side effects are asked for
    destructive: bool = False  # a call removes data (destructiveHint always; a delete wants high risk, a scope)
    navigation: bool = False  # a call goes to another page or view (a link)

    @property
    def read_only(self) -> bool:
        """A call changes nothing (``readOnlyHint``)."""
        return not self.mutating

    @property
    def reads_data(self) -> bool:
        """A call reads data and changes nothing (a read-only action that is not a navigation)."""
        return not self.mutating and not self.navigation

    @property
    def changes_data(self) -> bool:
        """A call creates or changes data without removing it."""
        return self.mutating and not self.destructive


@dataclass(frozen=True, slots=True)
class RiskLevel:
    """A value of ``axag-risk-level`` and what it means; its order is its place in `RISK_LEVEL_VALUES`."""

    name: str
    meaning: str
    elevated: bool = False  # medium or above: WebMCP may not submit it for an agent; a read is rarely this risky
    confirm: bool = False  # a wrong call does serious harm: confirmation is expected, a mutation is destructive
    approve: bool = False  # a wrong call cannot be undone: a gate (confirmation or approval) is required
    calls_for: tuple[str, ...] = ()  # the safety attributes (without ``axag-``) a complete declaration has


ACTION_TYPE_VALUES: Final = (
    ActionType("read", "reads data; changes nothing"),
    ActionType("write", "creates or changes data", mutating=True),
    ActionType("delete", "removes data", mutating=True, destructive=True),
    ActionType("navigate", "goes to another page or view; changes nothing", navigation=True),
)
RISK_LEVEL_VALUES: Final = (
    RiskLevel("none", "a wrong call does no harm"),
    RiskLevel("low", "a wrong call is a small, easily undone nuisance"),
    RiskLevel("medium", "a wrong call costs time or money to undo", elevated=True,
              calls_for=("confirmation-required", "idempotent")),
    RiskLevel("high", "a wrong call does serious harm; confirm each call", elevated=True, confirm=True,
              calls_for=("idempotent", "preconditions")),
    RiskLevel("critical", "a wrong call does harm that cannot be undone; needs approval", elevated=True,
              confirm=True, approve=True,
              calls_for=("approval-required", "approval-roles", "idempotent", "preconditions")),
)
ACTION_TYPE: Final = {t.name: t for t in ACTION_TYPE_VALUES}
RISK_LEVEL: Final = {r.name: r for r in RISK_LEVEL_VALUES}
ACTION_TYPES: Final = tuple(ACTION_TYPE)
RISK_LEVELS: Final = tuple(RISK_LEVEL)
MUTATING_ACTION_TYPES: Final = tuple(t.name for t in ACTION_TYPE_VALUES if t.mutating)


def action_type(name: object) -> ActionType | None:
    """The declaration of an action type (None: not one)."""
    return ACTION_TYPE.get(name) if isinstance(name, str) else None


def risk_level(name: object) -> RiskLevel | None:
    """The declaration of a risk level (None: not one)."""
    return RISK_LEVEL.get(name) if isinstance(name, str) else None


def risk_rank(name: str) -> int:
    """The order of a risk level (``none`` is 0); -1 for a value that is not one."""
    return RISK_LEVELS.index(name) if name in RISK_LEVEL else -1


def is_mutating(name: object) -> bool:
    """A call of an action of this type changes data (False for a value that is not an action type)."""
    t = action_type(name)
    return t is not None and t.mutating


SCOPES: Final = ("public", "user", "tenant", "global")
TENANT_BOUNDARIES: Final = ("strict", "relaxed")
PARAMETER_TYPES: Final = ("string", "number", "integer", "boolean", "array", "object")
FORMATS: Final = ("email", "uri", "url", "date", "date-time", "datetime", "time", "uuid", "ipv4", "ipv6", "hostname")
FORMAT_ALIASES: Final = {"url": "uri", "datetime": "date-time"}
# words for a phone number written as a format: there is none (a "pattern" describes them)
PHONE_WORDS: Final = ("phone", "tel", "telephone")
LINT_LEVELS: Final = ("basic", "intermediate", "full")
LEGACY_ACTION_TYPES: Final = ("create", "mutate")
LEGACY_ACTION_TYPE_REPLACEMENT: Final = "write"  # what a legacy action type becomes (AXAG 1.1)

ENUMS: Final[dict[str, tuple[str, ...]]] = {
    "action_type": ACTION_TYPES,
    "risk_level": RISK_LEVELS,
    "scope": SCOPES,
    "tenant_boundary": TENANT_BOUNDARIES,
    "parameter_type": PARAMETER_TYPES,
    "parameter_format": FORMATS,
}

# ---------------------------------------------------------------- identifiers (identifiers)
INTENT_RE: Final = re.compile(r"[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*")
ENTITY_RE: Final = re.compile(r"[a-z][a-z0-9_]*")
TOOL_NAME_RE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
PARAM_NAME_RE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
WORKFLOW_ID_RE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")
POSITIVE_INT_RE: Final = re.compile(r"[1-9][0-9]*")
NONNEG_INT_RE: Final = re.compile(r"[0-9]+")
VERSION_RE: Final = re.compile(r"[0-9]+\.[0-9]+(\.[0-9]+)?")
RATE_RE: Final = re.compile(r"(?P<count>[1-9][0-9]*)/(?P<period>[a-z]+)")
COOLDOWN_RE: Final = re.compile(r"(?P<n>[0-9]+)(?P<unit>ms|s|m|h|d)")
PLACEHOLDER_RE: Final = re.compile(r"\{\{ *([A-Za-z_][A-Za-z0-9_]{0,63}) *\}\}")

RATE_PERIODS: Final = {
    "second": "second", "seconds": "second", "s": "second",
    "minute": "minute", "minutes": "minute", "m": "minute",
    "hour": "hour", "hours": "hour", "h": "hour",
    "day": "day", "days": "day", "d": "day",
}
PERIOD_SECONDS: Final = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
COOLDOWN_MS: Final = {"ms": 1, "s": 1000, "m": 60000, "h": 3600000, "d": 86400000}


def is_param_name(name: str) -> bool:
    return bool(PARAM_NAME_RE.fullmatch(name)) and not name.startswith("_axag")


# ---------------------------------------------------------------- attribute table (the attribute table)
# kind: how the value is read (value syntax); category: action | context | control | macro
@dataclass(frozen=True, slots=True)
class AttrSpec:
    name: str
    kind: str
    category: str = "action"
    enum: str | None = None  # key of ENUMS for kind "enum"


def _a(name: str, kind: str, category: str = "action", enum: str | None = None) -> AttrSpec:
    return AttrSpec(name, kind, category, enum)


ATTRIBUTES: Final[dict[str, AttrSpec]] = {
    s.name: s
    for s in (
        _a("axag", "macro", "macro"),
        _a("axag-intent", "intent"),
        _a("axag-entity", "entity"),
        _a("axag-action-type", "enum", enum="action_type"),
        _a("axag-description", "text"),
        _a("axag-operation-id", "tool_name"),
        _a("axag-required-parameters", "param_list"),
        _a("axag-optional-parameters", "param_list"),
        _a("axag-params-from", "params_from"),
        _a("axag-schema", "schema_ref"),
        _a("axag-parameter", "param_name", "control"),
        _a("axag-parameter-type", "enum", "control", enum="parameter_type"),
        _a("axag-parameter-required", "boolean", "control"),
        _a("axag-parameter-description", "text", "control"),
        _a("axag-parameter-format", "enum", "control", enum="parameter_format"),
        _a("axag-parameter-enum", "json_array", "control"),
        _a("axag-parameter-const", "json_or_text", "control"),
        _a("axag-parameter-default", "json_or_text", "control"),
        _a("axag-parameter-examples", "json_array", "control"),
        _a("axag-parameter-min", "number", "control"),
        _a("axag-parameter-max", "number", "control"),
        _a("axag-parameter-exclusive-min", "number", "control"),
        _a("axag-parameter-exclusive-max", "number", "control"),
        _a("axag-parameter-multiple-of", "number", "control"),
        _a("axag-parameter-min-length", "nonneg_int", "control"),
        _a("axag-parameter-max-length", "nonneg_int", "control"),
        _a("axag-parameter-min-items", "nonneg_int", "control"),
        _a("axag-parameter-max-items", "nonneg_int", "control"),
        _a("axag-parameter-unique-items", "boolean", "control"),
        _a("axag-parameter-pattern", "regex", "control"),
        _a("axag-parameter-items", "json_object", "control"),
        _a("axag-preconditions", "string_array"),
        _a("axag-postconditions", "string_array"),
        _a("axag-side-effects", "string_array"),
        _a("axag-risk-level", "enum", enum="risk_level"),
        _a("axag-confirmation-required", "boolean"),
        _a("axag-confirmation-message", "text"),
        _a("axag-approval-required", "boolean"),
        _a("axag-approval-roles", "string_array"),
        _a("axag-approval-count", "positive_int"),
        _a("axag-idempotent", "boolean"),
        _a("axag-async", "boolean"),
        _a("axag-rate-limit", "rate"),
        _a("axag-cooldown", "duration"),
        _a("axag-scope", "enum", "context", enum="scope"),
        _a("axag-tenant-boundary", "enum", "context", enum="tenant_boundary"),
        _a("axag-required-roles", "string_array", "context"),
        _a("axag-role-escalation", "boolean"),
        _a("axag-visible", "boolean"),
        _a("axag-operable", "boolean"),
        _a("axag-operability-reason", "text"),
        _a("axag-workflow-id", "workflow_id"),
        _a("axag-workflow-step", "positive_int"),
        _a("axag-workflow-total-steps", "positive_int"),
        _a("axag-workflow-next", "intent_ref"),
        _a("axag-workflow-previous", "intent_ref"),
        _a("axag-version", "version"),
        _a("axag-since", "version"),
        _a("axag-deprecated", "boolean"),
        _a("axag-deprecated-replacement", "intent_ref"),
    )
}

# ---------------------------------------------------------------- documentation (docs/vocabulary.md, the
# editor data of `axag vocabulary`, the language server's hover and completion): Markdown, one line each
# value kind -> the form its values take
VALUE_FORMS: Final[dict[str, str]] = {
    "macro": "macro (see below)",
    "intent": "intent: `entity.action` in lower case letters, digits and `_` (`cart.add_item`)",
    "entity": "entity: lower case letters, digits and `_`",
    "enum": "one of the values below",
    "text": "text (not empty)",
    "tool_name": "tool name: a letter or `_`, then up to 63 letters, digits, `_` or `-`",
    "param_list": "JSON array of parameter names or parameter objects",
    "params_from": "`#` and the id of an element in the same file",
    "schema_ref": "`zod:PATH[#EXPORT]`, `openapi:PATH#OPERATION_ID` or `openapi:OPERATION_ID`",
    "param_name": "parameter name: a letter or `_`, then up to 63 letters, digits or `_`",
    "boolean": "`true` or `false`",
    "json_array": "JSON array",
    "json_or_text": "text for a `string` parameter, else a JSON value",
    "number": "JSON number",
    "nonneg_int": "whole number ≥ 0",
    "positive_int": "whole number ≥ 1",
    "regex": "regular expression (the subset Python and JavaScript read alike)",
    "json_object": "JSON object (a parameter fragment)",
    "string_array": "JSON array of non-empty strings",
    "rate": "`COUNT/PERIOD`, e.g. `100/minute`",
    "duration": "number and unit `ms`, `s`, `m`, `h` or `d`, e.g. `30s`",
    "workflow_id": "a letter or digit, then letters, digits, `_`, `.`, `:` or `-`",
    "intent_ref": "an intent",
    "version": "`MAJOR.MINOR` or `MAJOR.MINOR.PATCH`",
}

# attribute -> what it means
MEANINGS: Final[dict[str, str]] = {
    "axag": "shorthand for several attributes at once",
    "axag-intent": "what the action does; names the tool (`.` becomes `_`)",
    "axag-entity": "the thing acted on; defaults to the part of the intent before the `.`",
    "axag-action-type": "kind of action; always required",
    "axag-description": "first line of the tool description",
    "axag-operation-id": "tool name instead of the one made from the intent",
    "axag-required-parameters": "parameters the caller must give",
    "axag-optional-parameters": "parameters the caller may give",
    "axag-params-from": "the form or container whose controls become parameters",
    "axag-schema": "reference to a Zod or OpenAPI definition (copied to the tool metadata)",
    "axag-parameter": "parameter name of a form control (instead of `name` or `id`)",
    "axag-parameter-type": "parameter type of a form control",
    "axag-parameter-required": "whether the control's parameter is required",
    "axag-parameter-description": "description of the control's parameter",
    "axag-parameter-format": "string format of the control's parameter",
    "axag-parameter-enum": "allowed values",
    "axag-parameter-const": "the only allowed value",
    "axag-parameter-default": "default value",
    "axag-parameter-examples": "example values",
    "axag-parameter-min": "smallest allowed number",
    "axag-parameter-max": "largest allowed number",
    "axag-parameter-exclusive-min": "the number must be greater than this",
    "axag-parameter-exclusive-max": "the number must be less than this",
    "axag-parameter-multiple-of": "the number must be a multiple of this",
    "axag-parameter-min-length": "shortest allowed text",
    "axag-parameter-max-length": "longest allowed text",
    "axag-parameter-min-items": "fewest list items",
    "axag-parameter-max-items": "most list items",
    "axag-parameter-unique-items": "list items must differ",
    "axag-parameter-pattern": "regular expression the text must match (not anchored)",
    "axag-parameter-items": "schema of each list item",
    "axag-preconditions": "what must hold before the call; relations between parameters are checked "
                          "(see [preconditions](preconditions.md))",
    "axag-postconditions": "what holds after the call",
    "axag-side-effects": "effects outside the application (emails, payments, …)",
    "axag-risk-level": "how much harm a wrong call can do",
    "axag-confirmation-required": "the user must confirm each call",
    "axag-confirmation-message": "question shown to the user; `{{param}}` inserts a parameter",
    "axag-approval-required": "another person must approve each call",
    "axag-approval-roles": "roles that can approve (any one of them)",
    "axag-approval-count": "number of approvers needed (default 1)",
    "axag-idempotent": "calling twice has the same effect as calling once",
    "axag-async": "a successful call means the work was accepted, not finished",
    "axag-rate-limit": "most calls per period",
    "axag-cooldown": "least time between calls",
    "axag-scope": "whose data the action touches; inherited by contained actions",
    "axag-tenant-boundary": "whether the action may cross tenants; inherited",
    "axag-required-roles": "roles the caller must hold (all of them); inherited",
    "axag-role-escalation": "the action grants roles",
    "axag-visible": "whether the control is visible",
    "axag-operable": "whether the control can be used now",
    "axag-operability-reason": "why it cannot be used",
    "axag-workflow-id": "workflow the action belongs to",
    "axag-workflow-step": "its step in the workflow",
    "axag-workflow-total-steps": "number of steps of the workflow",
    "axag-workflow-next": "intent of the next step",
    "axag-workflow-previous": "intent of the previous step",
    "axag-version": "version of the action",
    "axag-since": "version that introduced it",
    "axag-deprecated": "the action is deprecated",
    "axag-deprecated-replacement": "intent to use instead",
}

# enumeration -> value -> what it means (enumerations)
VALUE_MEANINGS: Final[dict[str, dict[str, str]]] = {
    "action_type": {t.name: t.meaning for t in ACTION_TYPE_VALUES},
    "risk_level": {r.name: r.meaning for r in RISK_LEVEL_VALUES},
    "scope": {
        "public": "data anyone may see",
        "user": "the calling user's own data",
        "tenant": "the data of the user's organisation (tenant)",
        "global": "data across every tenant (administrators)",
    },
    "tenant_boundary": {
        "strict": "the action never crosses tenants",
        "relaxed": "the action may reach other tenants",
    },
    "parameter_type": {
        "string": "text", "number": "any JSON number", "integer": "a whole number", "boolean": "true or false",
        "array": "a list", "object": "a JSON object",
    },
    "parameter_format": {
        "email": "an e-mail address", "uri": "an absolute URI", "url": "an absolute URI (alias of uri)",
        "date": "a date (2026-12-01)", "date-time": "a date and time (RFC 3339)",
        "datetime": "a date and time (alias of date-time)", "time": "a time of day",
        "uuid": "a UUID", "ipv4": "an IPv4 address", "ipv6": "an IPv6 address", "hostname": "a host name",
    },
    "boolean": {"true": "yes", "false": "no"},
}


def attribute_values(spec: AttrSpec) -> tuple[str, ...]:
    """The values an attribute takes when they can be listed: its enumeration, or ``true``/``false``."""
    if spec.kind == "enum" and spec.enum is not None:
        return ENUMS[spec.enum]
    if spec.kind == "boolean":
        return ("true", "false")
    return ()


def value_meaning(spec: AttrSpec, value: str) -> str | None:
    """What ``value`` means for an attribute of an enumerated or boolean kind (None: not one of its values)."""
    table = VALUE_MEANINGS.get((spec.enum or "") if spec.kind == "enum" else spec.kind, {})
    return table.get(value)


def spec_key(name: str) -> str:
    """The camelCase key of ``axag={…}`` spec objects for an attribute: ``axag-risk-level`` -> ``riskLevel``."""
    head, *rest = name.removeprefix("axag-").split("-")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


CONTEXT_ATTRIBUTES: Final = ("axag-scope", "axag-tenant-boundary", "axag-required-roles")
ACTION_ATTRIBUTES: Final = tuple(n for n, s in ATTRIBUTES.items() if s.category == "action")
CONTROL_ATTRIBUTES: Final = tuple(n for n, s in ATTRIBUTES.items() if s.category == "control")
TEXT_ATTRIBUTES: Final = tuple(n for n, s in ATTRIBUTES.items() if s.kind == "text")
BOOLEAN_ATTRIBUTES: Final = tuple(n for n, s in ATTRIBUTES.items() if s.kind == "boolean")

# legacy and removed attributes
LEGACY_CONSTRAINTS: Final = "axag-constraints"
REMOVED_ATTRIBUTES: Final = ("axag-tenant-context", "axag-cross-tenant")
SKIP_ATTRIBUTE: Final = "axag-skip"
EXTENSION_PREFIX: Final = "axag-x-"
NON_VOCABULARY: Final = (LEGACY_CONSTRAINTS, *REMOVED_ATTRIBUTES, SKIP_ATTRIBUTE)


def is_annotation_name(lower_name: str) -> bool:
    return lower_name == "axag" or lower_name.startswith("axag-")


# ---------------------------------------------------------------- parameter object keys (parameter keys and their JSON Schema mapping)
PARAMETER_KEYS: Final = (
    "name", "type", "description", "format", "enum", "const", "default", "examples",
    "min", "max", "exclusiveMin", "exclusiveMax", "multipleOf", "minLength", "maxLength",
    "pattern", "items", "minItems", "maxItems", "uniqueItems", "properties", "required",
)
KEY_TO_KEYWORD: Final = {
    "min": "minimum", "max": "maximum", "exclusiveMin": "exclusiveMinimum",
    "exclusiveMax": "exclusiveMaximum",
}
# the property schema: property schema key order
SCHEMA_KEY_ORDER: Final = (
    "type", "description", "format", "enum", "const", "default", "examples", "minimum",
    "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
    "pattern", "items", "minItems", "maxItems", "uniqueItems", "properties", "required",
    "additionalProperties",
)

# ---------------------------------------------------------------- did-you-mean (did-you-mean suggestions)
ATTRIBUTE_ALIASES: Final = {
    "axag-risk": "axag-risk-level",
    "axag-action": "axag-action-type",
    "axag-type": "axag-action-type",
    "axag-confirm": "axag-confirmation-required",
    "axag-roles": "axag-approval-roles",
    "axag-tenant": "axag-tenant-boundary",
    "axag-params": "axag-required-parameters",
    "axag-rate": "axag-rate-limit",
}
PARAMETER_KEY_ALIASES: Final = {
    "minimum": "min", "maximum": "max", "exclusiveMinimum": "exclusiveMin",
    "exclusiveMaximum": "exclusiveMax", "min_length": "minLength", "max_length": "maxLength",
    "min_items": "minItems", "max_items": "maxItems", "multiple_of": "multipleOf",
    "unique_items": "uniqueItems",
}


def levenshtein(a: str, b: str, limit: int | None = None) -> int:
    """Edit distance; with ``limit``, any distance >= limit may be reported as ``limit`` (early exit)."""
    if a == b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    if limit is not None:
        return _bounded_levenshtein(a, b, limit)
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _bounded_levenshtein(a: str, b: str, limit: int) -> int:
    """min(distance, limit), computing only the band |i - j| < limit (cells outside it are >= limit)."""
    la, lb = len(a), len(b)
    if la - lb >= limit:
        return limit
    prev = [min(j, limit) for j in range(lb + 1)]
    for i in range(1, la + 1):
        lo, hi = max(1, i - limit + 1), min(lb, i + limit - 1)
        cur = [limit] * (lb + 1)
        cur[0] = min(i, limit)
        ca = a[i - 1]
        for j in range(lo, hi + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != b[j - 1]), limit)
        if min(cur[lo - 1:hi + 1]) >= limit:
            return limit
        prev = cur
    return min(prev[lb], limit)


def did_you_mean(name: str, candidates: tuple[str, ...] | list[str], aliases: dict[str, str] | None = None) -> str | None:
    """did-you-mean suggestions: alias table, then the only proper-prefix candidate, then the nearest within
    ``max(2, len(name)//5)`` edits (ties: first listed)."""
    if aliases and name in aliases:
        return aliases[name]
    prefixed = [c for c in candidates if c.startswith(name) and c != name]
    if len(prefixed) == 1:
        return prefixed[0]
    best: str | None = None
    best_d = max(2, len(name) // 5) + 1
    for c in candidates:
        d = levenshtein(name, c, best_d)
        if d < best_d:
            best, best_d = c, d
    return best


def attribute_suggestion(lower_name: str) -> str | None:
    return did_you_mean(lower_name, tuple(ATTRIBUTES), ATTRIBUTE_ALIASES)


# ---------------------------------------------------------------- misc helpers (value syntax, identifiers)
_WS_RUN: Final = re.compile(r"[ \t\n\r\f]+")


def collapse_ws(text: str) -> str:
    return _WS_RUN.sub(" ", text).strip(" ")


@lru_cache(maxsize=4096)
def snake_case(name: str) -> str:
    """identifiers snake_case normalisation; "" means no name."""
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    s = re.sub(r"([A-Z])(?=[A-Z][a-z])", r"\1_", s)
    s = re.sub(r"[^A-Za-z0-9]+", "_", s).strip("_").lower()
    if s and s[0].isdigit():
        s = "_" + s
    return s


def humanise_intent(intent: str) -> str:
    """``cart.add_item`` -> ``Cart Add Item``."""
    words: list[str] = []
    for part in intent.split(".", 1):
        words.extend(w[:1].upper() + w[1:] for w in part.replace("_", " ").split())
    return " ".join(words)


# string-array attributes whose items are names (roles, side effects): plain text is read as a comma-separated list
NAME_LIST_ATTRIBUTES: Final = frozenset({"axag-approval-roles", "axag-required-roles", "axag-side-effects"})
