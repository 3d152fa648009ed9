"""Target ``manifest`` (the manifest target): the AXAG 1.1 semantic manifest.

Lossy mappings (`AXAG-LINT-145`) are returned as data, ``(intent, what)``, in action order, then parameter
order, then the property schema key order; the caller turns them into warnings.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final, NamedTuple

from axag.compile.contract import ToolContract
from axag.compile.targets import Options, Rendered, Target
from axag.compile.validate import (
    Checker,
    Path,
    is_bool,
    is_json,
    is_nonneg_int,
    is_number,
    is_pos_int,
    is_text,
    is_text_list,
    kind_of,
    matches,
    one_of,
)
from axag.model.facts import Kind
from axag.vocabulary import (
    ACTION_TYPES,
    ENTITY_RE,
    INTENT_RE,
    LINT_LEVELS,
    PARAM_NAME_RE,
    PARAMETER_TYPES,
    RISK_LEVELS,
    SCHEMA_KEY_ORDER,
    SCOPES,
    TENANT_BOUNDARIES,
    TOOL_NAME_RE,
    is_mutating,
    risk_level,
)

__all__ = [
    "EPOCH_ZERO",
    "MANIFEST_FORMATS",
    "MANIFEST_VERSION",
    "SCHEMA_ID",
    "TARGETS",
    "DynamicAction",
    "LossyDrop",
    "action",
    "check",
    "conformance",
    "generated_at",
    "render",
]

MANIFEST_VERSION: Final = "1.1.0"
EPOCH_ZERO: Final = "1970-01-01T00:00:00Z"
MANIFEST_KEYS: Final = ("version", "generated_at", "source", "conformance", "actions", "dynamic_actions")
MANIFEST_ACTION_KEYS: Final = (
    "intent", "entity", "action_type", "operation_id", "description", "required_parameters",
    "optional_parameters", "risk_level", "confirmation_required", "approval_required", "approval_roles",
    "idempotent", "async", "scope", "tenant_boundary", "required_roles", "side_effects", "preconditions",
    "postconditions", "source_file", "source_line",
)
MANIFEST_PARAM_KEYS: Final = (
    "name", "type", "description", "enum", "min", "max", "maxLength", "minLength", "pattern", "format", "default",
    "items", "properties", "source",
)
_GENERATED_AT_RE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
SCHEMA_ID: Final = "https://axag.org/schema/v1.1/axag-manifest.schema.json"  # the manifest itself has no $schema
MANIFEST_FORMATS: Final = ("email", "url", "date", "datetime", "uuid")  # the formats a manifest parameter has (self-validation and shipped schemas)

LossyDrop = tuple[str, str]  # (intent, what) for AXAG-LINT-145

# compiled keyword -> manifest key, for the keys the manifest holds (the manifest target); the order is the manifest's
_KEPT: Final = (
    ("description", "description"),
    ("enum", "enum"),
    ("minimum", "min"),
    ("maximum", "max"),
    ("maxLength", "maxLength"),
    ("minLength", "minLength"),
    ("pattern", "pattern"),
    ("format", "format"),
    ("default", "default"),
    ("items", "items"),
    ("properties", "properties"),
)
# compiled keyword -> the annotation key the author wrote, for the keys the manifest cannot hold
_DROPPED: Final = {
    "examples": "examples",
    "exclusiveMinimum": "exclusiveMin",
    "exclusiveMaximum": "exclusiveMax",
    "multipleOf": "multipleOf",
    "minItems": "minItems",
    "maxItems": "maxItems",
    "uniqueItems": "uniqueItems",
}
_FORMATS: Final = {"email": "email", "uri": "url", "date": "date", "date-time": "datetime", "uuid": "uuid"}
# action keys copied from _meta["org.axag/action"] when present (declared, or inherited for context attributes)
_DECLARED_KEYS: Final = (
    "risk_level", "confirmation_required", "approval_required", "approval_roles", "idempotent", "async", "scope",
    "tenant_boundary", "required_roles", "side_effects",
)
_EPOCH_RE: Final = re.compile(r"[0-9]+")


class DynamicAction(NamedTuple):
    """An action left out of compile output because of dynamic values (dynamic values), listed in ``dynamic_actions``."""

    source_file: str  # relative to the compile root, ``/`` separators
    source_line: int
    reason: str


def generated_at(environ: Mapping[str, str] | None = None) -> str:
    """RFC 3339 UTC time of ``SOURCE_DATE_EPOCH`` (seconds since the epoch), else ``1970-01-01T00:00:00Z``.

    A value that is not a non-negative decimal integer (or is out of range) counts as unset.
    """
    env = os.environ if environ is None else environ
    raw = env.get("SOURCE_DATE_EPOCH", "").strip()
    if not _EPOCH_RE.fullmatch(raw):
        return EPOCH_ZERO
    try:
        moment = datetime.fromtimestamp(int(raw), tz=UTC)
    except (OverflowError, OSError, ValueError):
        return EPOCH_ZERO
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _declares(contract: ToolContract, attribute: str, meta_key: str) -> bool:
    return attribute in contract.declared or meta_key in contract.meta


def conformance(contracts: Sequence[ToolContract]) -> str:
    """``basic``, ``intermediate`` or ``full`` (the manifest target)."""
    if not contracts:
        return "basic"
    for c in contracts:
        meta = c.meta
        harvested = any(p.harvested or p.harvested_only for p in c.params)
        declared_required = c.declared_required_parameters or "axag-required-parameters" in c.declared
        if not (
            c.declared_description is not None
            and "scope" in meta
            and "risk_level" in meta
            and (declared_required or harvested)
        ):
            return "basic"
    for c in contracts:
        meta = c.meta
        if is_mutating(meta["action_type"]) and not (
            _declares(c, "axag-idempotent", "idempotent") and _declares(c, "axag-side-effects", "side_effects")
        ):
            return "intermediate"
        risk = risk_level(meta.get("risk_level"))
        if risk is not None and risk.confirm and not (
            _declares(c, "axag-confirmation-required", "confirmation_required")
            and _declares(c, "axag-preconditions", "preconditions")
        ):
            return "intermediate"
        if risk is not None and risk.approve and not (
            _declares(c, "axag-approval-required", "approval_required")
            and _declares(c, "axag-approval-roles", "approval_roles")
        ):
            return "intermediate"
    return "full"


def _parameter(name: str, schema: dict[str, Any], harvested_only: bool, intent: str, drops: list[LossyDrop]) -> (
    dict[str, Any]
):
    out: dict[str, Any] = {"name": name, "type": schema["type"]}
    for key in SCHEMA_KEY_ORDER:
        if key not in schema:
            continue
        if key in _DROPPED:
            drops.append((intent, f'the {_DROPPED[key]} of parameter "{name}"'))
        elif key == "format" and schema[key] not in _FORMATS:
            drops.append((intent, f'the format "{schema[key]}" of parameter "{name}"'))
        elif key == "required":
            drops.append((intent, f'the required list of parameter "{name}"'))
    for key, target in _KEPT:
        if key == "enum" and "const" in schema:
            out["enum"] = [copy.deepcopy(schema["const"])]
        elif key == "format":
            if schema.get("format") in _FORMATS:
                out["format"] = _FORMATS[schema["format"]]
        elif key in schema:
            out[target] = copy.deepcopy(schema[key])
    if harvested_only:
        out["source"] = "harvested:html"
    return out


def action(contract: ToolContract, drops: list[LossyDrop] | None = None) -> dict[str, Any]:
    """The manifest action of one contract; lossy drops are appended to `drops`."""
    tool = contract.tool
    meta = contract.meta
    intent = str(meta["intent"])
    sink: list[LossyDrop] = [] if drops is None else drops
    schema = tool["inputSchema"]
    required = set(schema.get("required", ()))
    harvested_only = {p.name for p in contract.params if p.harvested_only}
    out: dict[str, Any] = {
        "intent": intent,
        "entity": meta["entity"],
        "action_type": meta["action_type"],
        "operation_id": meta.get("operation_id", tool["name"]),
        "description": contract.declared_description if contract.declared_description is not None else tool["title"],
        "required_parameters": [],
        "optional_parameters": [],
    }
    for name, sub in schema["properties"].items():
        key = "required_parameters" if name in required else "optional_parameters"
        out[key].append(_parameter(name, sub, name in harvested_only, intent, sink))
    for key in _DECLARED_KEYS:
        if key in meta:
            out[key] = copy.deepcopy(meta[key])
    if "preconditions" in meta:
        out["preconditions"] = [p["text"] for p in meta["preconditions"]]
    if "postconditions" in meta:
        out["postconditions"] = list(meta["postconditions"])
    sources = meta.get("sources") or []
    if sources:
        out["source_file"] = sources[0]["file"]
        out["source_line"] = sources[0]["line"]
    return out


def render(
    contracts: Sequence[ToolContract],
    version: str,
    *,
    paths: Sequence[str] = (),
    dynamic_actions: Sequence[DynamicAction] = (),
    environ: Mapping[str, str] | None = None,
) -> tuple[dict[str, Any], list[LossyDrop]]:
    """The manifest document and its `AXAG-LINT-145` drops.

    `paths` are the inputs relative to the compile root; `environ` supplies ``SOURCE_DATE_EPOCH`` (``None``:
    ``os.environ``).
    """
    drops: list[LossyDrop] = []
    ordered = sorted(contracts, key=lambda c: str(c.meta["intent"]))
    doc: dict[str, Any] = {
        "version": MANIFEST_VERSION,
        "generated_at": generated_at(environ),
        "source": {"paths": sorted(paths), "tool": "axag", "tool_version": version},
        "conformance": conformance(ordered),
        "actions": [action(c, drops) for c in ordered],
    }
    if dynamic_actions:
        doc["dynamic_actions"] = [
            {"source_file": d.source_file, "source_line": d.source_line, "reason": d.reason}
            for d in sorted(dynamic_actions)
        ]
    return doc, drops


def check(c: Checker, doc: Any) -> None:
    d = c.obj(doc, (), MANIFEST_KEYS, MANIFEST_KEYS[:5])
    if d is None:
        return
    c.fields(d, (), {
        "version": (lambda x: x == "1.1.0", "'1.1.0'"),
        "generated_at": (matches(_GENERATED_AT_RE), "an RFC 3339 UTC timestamp"),
        "conformance": (one_of(LINT_LEVELS), "a conformance level"),
    })
    keys = ("paths", "tool", "tool_version")
    src = c.obj(d.get("source"), ("source",), keys, keys)
    if src is not None:
        c.fields(src, ("source",), {
            "paths": (lambda x: isinstance(x, list) and all(is_text(p) for p in x)
                      and (not c.ordered or x == sorted(x)), "a sorted array of paths"),
            "tool": (lambda x: x == "axag", "'axag'"),
            "tool_version": (is_text, "a non-empty string"),
        })
    actions = d.get("actions")
    if not isinstance(actions, list):
        c.err(("actions",), f"expected an array, got {kind_of(actions)}")
    else:
        intents = [_check_action(c, a, ("actions", i)) for i, a in enumerate(actions)]
        c.names_sorted([n for n in intents if n is not None], ("actions",), "intents")
    if "dynamic_actions" in d:
        dyn = d["dynamic_actions"]
        if not isinstance(dyn, list) or not dyn:
            c.err(("dynamic_actions",), "expected a non-empty array")
        else:
            keys = ("source_file", "source_line", "reason")
            for i, item in enumerate(dyn):
                x = c.obj(item, ("dynamic_actions", i), keys, keys)
                if x is not None:
                    c.fields(x, ("dynamic_actions", i), {
                        "source_file": (is_text, "a non-empty string"),
                        "source_line": (is_pos_int, "an integer >= 1"),
                        "reason": (is_text, "a non-empty string"),
                    })


def _check_action(c: Checker, v: Any, path: Path) -> str | None:
    a = c.obj(v, path, MANIFEST_ACTION_KEYS, MANIFEST_ACTION_KEYS[:7])
    if a is None:
        return None
    c.fields(a, path, {
        "intent": (matches(INTENT_RE), "an intent"),
        "entity": (matches(ENTITY_RE), "an entity"),
        "action_type": (one_of(ACTION_TYPES), "an action type"),
        "operation_id": (matches(TOOL_NAME_RE), "a tool name"),
        "description": (is_text, "a non-empty string"),
        "risk_level": (one_of(RISK_LEVELS), "a risk level"),
        "confirmation_required": (is_bool, "a boolean"),
        "approval_required": (is_bool, "a boolean"),
        "approval_roles": (is_text_list, "an array of strings"),
        "idempotent": (is_bool, "a boolean"),
        "async": (is_bool, "a boolean"),
        "scope": (one_of(SCOPES), "a scope"),
        "tenant_boundary": (one_of(TENANT_BOUNDARIES), "a tenant boundary"),
        "required_roles": (is_text_list, "an array of strings"),
        "side_effects": (is_text_list, "an array of strings"),
        "preconditions": (is_text_list, "an array of strings"),
        "postconditions": (is_text_list, "an array of strings"),
        "source_file": (is_text, "a non-empty string"),
        "source_line": (is_pos_int, "an integer >= 1"),
    })
    for key in ("required_parameters", "optional_parameters"):
        params = a.get(key)
        if not isinstance(params, list):
            if key in a:
                c.err((*path, key), f"expected an array, got {kind_of(params)}")
            continue
        for i, p in enumerate(params):
            _check_param(c, p, (*path, key, i))
    intent = a.get("intent")
    return intent if isinstance(intent, str) else None


def _check_param(c: Checker, v: Any, path: Path) -> None:
    p = c.obj(v, path, MANIFEST_PARAM_KEYS, ("name", "type"))
    if p is None:
        return
    c.fields(p, path, {
        "name": (matches(PARAM_NAME_RE), "a parameter name"),
        "type": (one_of(PARAMETER_TYPES), "a parameter type"),
        "description": (is_text, "a non-empty string"),
        "enum": (lambda x: isinstance(x, list) and x != [] and is_json(x), "a non-empty array"),
        "min": (is_number, "a number"),
        "max": (is_number, "a number"),
        "maxLength": (is_nonneg_int, "an integer >= 0"),
        "minLength": (is_nonneg_int, "an integer >= 0"),
        "pattern": (lambda x: isinstance(x, str), "a string"),
        "format": (one_of(MANIFEST_FORMATS), "a manifest format"),
        "default": (is_json, "a JSON value"),
        "source": (one_of(("harvested:html", "zod", "openapi")), "a parameter source"),
    })
    if "items" in p:
        c.schema(p["items"], (*path, "items"), 1, False)
    if "properties" in p:
        props = p["properties"]
        if not isinstance(props, dict):
            c.err((*path, "properties"), f"expected an object, got {kind_of(props)}")
        else:
            for name, sub in props.items():
                c.schema(sub, (*path, "properties", name), 1, False)


def _schemas(doc: Any) -> Iterator[tuple[Path, Any]]:
    """The fragments of the manifest's parameters (``items``, ``properties``)."""
    for i, act in enumerate(doc.get("actions") or ()):
        if not isinstance(act, dict):
            continue
        for key in ("required_parameters", "optional_parameters"):
            for j, param in enumerate(act.get(key) or ()):
                if not isinstance(param, dict):
                    continue
                if "items" in param:
                    yield ("actions", i, key, j, "items"), param["items"]
                for name, sub in (param.get("properties") or {}).items():
                    yield ("actions", i, key, j, "properties", name), sub


def _rendered(contracts: Sequence[ToolContract], o: Options) -> Rendered:
    doc, drops = render(contracts, o.version, paths=o.paths, dynamic_actions=o.dynamic_actions, environ=o.environ)
    return Rendered(doc, Kind.LOSSY_MAPPING, drops)


TARGETS: Final[tuple[Target, ...]] = (
    Target(
        name="manifest",
        summary="the AXAG 1.1 manifest",
        schema_file="axag-manifest-1.1.schema.json",
        schema_id=SCHEMA_ID,
        render=_rendered,
        check=check,
        schemas=_schemas,
        recognise=lambda doc: "conformance" in doc and isinstance(doc.get("actions"), list),
    ),
)
