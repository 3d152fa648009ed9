"""Target ``manifest`` (SPEC §9.9): the AXAG 1.1 semantic manifest.

Lossy mappings (`AXAG-LINT-145`) are returned as data, ``(intent, what)``, in action order, then parameter
order, then §4.10 key order; the caller turns them into warnings.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final, NamedTuple

from axag.compile.contract import ToolContract
from axag.vocabulary import SCHEMA_KEY_ORDER, is_mutating, risk_level

__all__ = [
    "EPOCH_ZERO",
    "MANIFEST_FORMATS",
    "MANIFEST_VERSION",
    "DynamicAction",
    "LossyDrop",
    "action",
    "conformance",
    "generated_at",
    "render",
]

MANIFEST_VERSION: Final = "1.1.0"
EPOCH_ZERO: Final = "1970-01-01T00:00:00Z"
MANIFEST_FORMATS: Final = ("email", "url", "date", "datetime", "uuid")  # the formats a manifest parameter has (§9.10)

LossyDrop = tuple[str, str]  # (intent, what) for AXAG-LINT-145

# compiled keyword -> manifest key, for the keys the manifest holds (§9.9); the order is the manifest's
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
    """An action left out of compile output because of dynamic values (§3.9), listed in ``dynamic_actions``."""

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
    """``basic``, ``intermediate`` or ``full`` (§9.9)."""
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
