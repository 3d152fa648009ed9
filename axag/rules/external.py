"""Rules that need an external input: 010 and 030 (``--manifest``), 037 (``--enforced-intents``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from axag import vocabulary as V
from axag.outcome.findings import Level, Severity
from axag.rules.base import RuleCtx
from axag.rules.declare import Rule

if TYPE_CHECKING:
    from axag.model.parameter import Parameter
    from axag.model.types import Action

_CACHE: list[tuple[Any, dict[str, dict[str, Any]]]] = []


def _manifest_actions(ctx: RuleCtx) -> dict[str, dict[str, Any]]:
    """intent -> manifest action (first one wins); computed once per manifest object."""
    manifest = ctx.manifest
    if _CACHE and _CACHE[0][0] is manifest:
        return _CACHE[0][1]
    out: dict[str, dict[str, Any]] = {}
    actions = manifest.get("actions") if isinstance(manifest, dict) else None
    if isinstance(actions, list):
        for a in actions:
            if isinstance(a, dict) and isinstance(a.get("intent"), str):
                out.setdefault(a["intent"], a)
    _CACHE[:] = [(manifest, out)]
    return out


INTENT_NOT_IN_MANIFEST = Rule(
    code=10,
    name="intent-not-in-manifest",
    severity=Severity.WARNING,
    level=Level.FULL,
    needs="manifest",
    trigger="needs manifest; intent absent from it",
    messages={
        "default": 'Intent "{intent}" not found in manifest {file}',
    },
    fails=(
        '<button axag-intent="cart.add_item" axag-action-type="write">Add</button>\n'
        '<button axag-intent="cart.remove_item" axag-action-type="delete">Remove</button>\n'
        '<button axag="read:cart.view">View</button>'
    ),
    passes=(
        '<button axag-intent="cart.add_item" axag-action-type="write" axag-risk-level="low">Add</button>\n'
        '<button axag-intent="cart.checkout" axag-action-type="write" axag-risk-level="low">Checkout</button>'
    ),
)


@INTENT_NOT_IN_MANIFEST.check()
def intent_not_in_manifest(ctx: RuleCtx, act: Action) -> None:
    """An action whose intent the manifest does not list."""
    if ctx.manifest is None or act.intent is None:
        return
    if act.intent in _manifest_actions(ctx):
        return
    INTENT_NOT_IN_MANIFEST.report(ctx, act.intent_value.value_span(), act.element, "axag-intent",
                                  intent=act.intent,
               file=ctx.manifest_name)


_SCHEMA_SOURCES = ("zod", "openapi")


def _num(t: str) -> str:
    return "number" if t in ("number", "integer") else t


def _enum_text(enum: Any) -> str:
    if not isinstance(enum, list):
        return "not an enum"
    return "one of " + json.dumps(enum, ensure_ascii=False, separators=(", ", ": "))


def _form_enum(p: Parameter) -> Any:
    if "enum" in p.schema:
        return p.schema["enum"]
    if "const" in p.schema:
        return [p.schema["const"]]
    return None


FORM_SCHEMA_DRIFT = Rule(
    code=30,
    name="form-schema-drift",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    needs="manifest",
    trigger=("needs manifest; harvested parameter differs in required-ness, type (number≈integer) or "
             "enum from a manifest parameter with source `zod`/`openapi`"),
    messages={
        "default": '"{p}" ({src}) is {x} in the schema but {y} in the form',
    },
    fails=(
        '<form axag-intent="signup.submit" axag-action-type="write">\n'
        '  <label>Email <input type="email" name="email"></label>\n'
        '  <label>Age <input type="number" name="age" required></label>\n'
        '  <label>Plan <select name="plan"><option>free</option><option>pro</option></select></label>\n'
        "  <button>Sign up</button>\n"
        "</form>"
    ),
    passes=(
        '<form axag-intent="signup.submit" axag-action-type="write" axag-risk-level="low">\n'
        '  <label>Email <input type="email" name="email" required></label>\n'
        '  <label>Age <input type="number" name="age"></label>\n'
        '  <label>Plan <select name="plan"><option>free</option><option>pro</option><option>team</option></select></label>\n'
        '  <label>Note <input name="note"></label>\n'
        "  <button>Sign up</button>\n"
        "</form>"
    ),
)


@FORM_SCHEMA_DRIFT.check()
def form_schema_drift(ctx: RuleCtx, act: Action) -> None:
    """A harvested parameter that differs in required-ness, type (number = integer) or enum from the
    manifest parameter with source zod/openapi; one finding per difference, at the control."""
    if ctx.manifest is None or act.intent is None:
        return
    entry = _manifest_actions(ctx).get(act.intent)
    if entry is None:
        return
    declared: dict[str, tuple[dict[str, Any], bool]] = {}
    for key, required in (("required_parameters", True), ("optional_parameters", False)):
        items = entry.get(key)
        if isinstance(items, list):
            for item in items:
                if isinstance(item, dict) and isinstance(item.get("name"), str):
                    declared.setdefault(item["name"], (item, required))
    for p in act.parameters:
        if not p.harvested or p.name not in declared:
            continue
        mp, m_required = declared[p.name]
        src = mp.get("source")
        if src not in _SCHEMA_SOURCES:
            continue
        span = p.control.tag_span if p.control is not None else (p.span or act.element.tag_span)
        diffs: list[tuple[str, str]] = []
        if m_required != p.required:
            diffs.append(("required" if m_required else "optional", "required" if p.required else "optional"))
        mtype = mp.get("type")
        if isinstance(mtype, str) and mtype in V.PARAMETER_TYPES and _num(mtype) != _num(p.type):
            diffs.append((mtype, p.type))
        m_enum = mp.get("enum")
        f_enum = _form_enum(p)
        if (m_enum is not None or f_enum is not None) and m_enum != f_enum:
            diffs.append((_enum_text(m_enum), _enum_text(f_enum)))
        for x, y in diffs:
            FORM_SCHEMA_DRIFT.report(ctx, span, act.element, p=p.name, src=src, x=x, y=y)


_HIGH = ("high", "critical")


UNENFORCED_HIGH_RISK = Rule(
    code=37,
    name="unenforced-high-risk",
    severity=Severity.WARNING,
    level=Level.FULL,
    needs="enforced-intents",
    trigger="needs enforced-intents file; risk ≥ `high`, intent not listed",
    messages={
        "default": '"{intent}" is {risk} risk but is not in the server\'s enforced intents',
    },
    fails=(
        '<button axag-intent="account.delete" axag-action-type="delete" axag-risk-level="critical">Delete</button>\n'
        '<button axag-intent="account.close" axag-action-type="delete" axag-risk-level="high">Close</button>'
    ),
    passes=(
        '<button axag-intent="account.delete" axag-action-type="delete" axag-risk-level="critical"\n'
        '        axag-confirmation-required="true">Delete</button>\n'
        '<button axag-intent="account.view" axag-action-type="read" axag-risk-level="medium">View</button>'
    ),
)


@UNENFORCED_HIGH_RISK.check()
def unenforced_high_risk(ctx: RuleCtx, act: Action) -> None:
    """Risk high or critical and the intent is not in the server's enforced intents."""
    if ctx.enforced_intents is None or act.intent is None or act.risk not in _HIGH:
        return
    if act.intent in ctx.enforced_intents:
        return
    UNENFORCED_HIGH_RISK.report(ctx, act.v("axag-risk-level").value_span(), act.element, "axag-risk-level",
                                intent=act.intent,
               risk=act.risk)
