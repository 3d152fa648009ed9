"""Safety rules: 006, 007, 012, 013, 014, 015, 017, 023, 024, 025, 026, 128 (SPEC §12.3, §12.4).

Declared-but-invalid values (status INVALID) count as declared and unknown: rules reading them stay silent
(§12.6). Findings point at the value whose content triggers the rule (§12.7).

006 — fails: ``axag-risk-level="high"`` without ``axag-confirmation-required="true"``.
007 — fails: ``axag-action-type="write"`` without ``axag-idempotent``.
012 — fails: ``axag-approval-required="true"`` without ``axag-approval-roles``.
013 — fails: ``axag-action-type="read" axag-risk-level="critical"``.
014 — fails: ``user.create`` with precondition ``"user must exist"``.
015 — fails: ``navigate`` with ``axag-side-effects='["email"]'``.
017 — fails: ``axag-idempotent="false"`` on write/delete without side effects.
023 — fails: write/delete without ``axag-risk-level``.
024 — fails: ``delete`` with risk ``low``.
025 — fails: ``read`` with risk ``medium``.
026 — fails: ``medium`` risk without ``axag-idempotent``.
128 — fails: ``axag-approval-count="2"`` without ``axag-approval-required="true"``.
"""

from __future__ import annotations

import re

from axag import vocabulary as V
from axag.edits import fix, insert_attribute_after
from axag.model.actions import Action
from axag.model.values import Value
from axag.rules.base import RuleCtx, rule

_RISK_ORDER = {r: i for i, r in enumerate(V.RISK_LEVELS)}


def _declared_false(v: Value) -> bool:
    return v.ok and v.value is False


_BREAK = re.compile(r"\r\n|\r|\n")


def _line_ending(text: str, pos: int) -> str:
    """The line break used from ``pos`` on (the element's own lines), "\n" when there is none."""
    m = _BREAK.search(text, pos)
    return m.group(0) if m else "\n"


@rule(6)
def high_risk_without_confirmation(ctx: RuleCtx, act: Action) -> None:
    """Risk high/critical with ``axag-confirmation-required`` absent or ``false``; the fix adds it when
    absent."""
    risk = act.risk
    if risk not in ("high", "critical"):
        return
    cv = act.v("axag-confirmation-required")
    if cv.declared and not _declared_false(cv):
        return
    rv = act.v("axag-risk-level")
    fx = None
    if not cv.declared:
        after = act.ann.macro_attr if rv.from_macro else rv.attr
        text = ctx.model.pf.src.text  # the original text: template constructs are not whitespace
        edit = insert_attribute_after(act.element, after, "axag-confirmation-required", "true", text,
                                      _line_ending(text, act.element.start))
        fx = fix('Add axag-confirmation-required="true"', edit)
    ctx.report(6, rv.value_span(), act.element, "axag-risk-level", fix=fx, key="confirmation-required", r=risk)


@rule(7)
def mutation_without_idempotent(ctx: RuleCtx, act: Action) -> None:
    """write/delete with ``axag-idempotent`` absent."""
    t = act.action_type
    if t not in ("write", "delete") or act.v("axag-idempotent").declared:
        return
    ctx.report(7, act.v("axag-action-type").value_span(), act.element, "axag-action-type", key="idempotent", t=t)


@rule(12)
def approval_without_roles(ctx: RuleCtx, act: Action) -> None:
    """``axag-approval-required="true"`` with roles absent or ``[]``."""
    if act.flag("axag-approval-required") is not True:
        return
    roles = act.v("axag-approval-roles")
    if roles.declared and not (roles.ok and not roles.value):
        return
    av = act.v("axag-approval-required")
    ctx.report(12, av.value_span(), act.element, "axag-approval-required", key="approval-roles")


@rule(13)
def critical_read(ctx: RuleCtx, act: Action) -> None:
    """A read action with critical risk."""
    if act.action_type == "read" and act.risk == "critical":
        ctx.report(13, act.v("axag-risk-level").value_span(), act.element, "axag-risk-level")


_CREATE_VERB = re.compile(r"(create|add|new|register|insert|sign_?up)")
_EXISTS = re.compile(r"\b(must (already )?exists?|already exists?)\b")


def _mentions(text: str, entity: str) -> bool:
    """The entity as a whole word, its parts joined by "_" or a space ("purchase_order", "Purchase order")."""
    words = "[_ ]".join(re.escape(w) for w in entity.split("_"))
    return re.search(r"(?<![a-z0-9_])" + words + r"(?![a-z0-9_])", text.lower()) is not None


@rule(14)
def create_precondition_contradiction(ctx: RuleCtx, act: Action) -> None:
    """A creating write (verb create/add/new/register/insert/sign_up) whose precondition requires the
    created entity to exist already."""
    if act.action_type != "write" or act.intent is None:
        return
    verb = act.intent.split(".", 1)[1]
    if not _CREATE_VERB.match(verb):
        return
    entity = act.effective_entity
    pv = act.v("axag-preconditions")
    if entity is None or not pv.ok:
        return
    for i, item in enumerate(pv.value):
        text = V.collapse_ws(str(item))
        if _EXISTS.search(text.lower()) and _mentions(text, entity):
            ctx.report(14, pv.json_span((i,)), act.element, "axag-preconditions", index=0, p=text, entity=entity,
                       intent=act.intent)


@rule(15)
def navigate_with_side_effects(ctx: RuleCtx, act: Action) -> None:
    """A navigate action with non-empty side effects."""
    sv = act.v("axag-side-effects")
    if act.action_type == "navigate" and sv.ok and sv.value:
        ctx.report(15, sv.value_span(), act.element, "axag-side-effects")


@rule(17)
def non_idempotent_without_side_effects(ctx: RuleCtx, act: Action) -> None:
    """write/delete declared ``axag-idempotent="false"`` with side effects absent or empty."""
    t = act.action_type
    iv = act.v("axag-idempotent")
    if t not in ("write", "delete") or not _declared_false(iv):
        return
    sv = act.v("axag-side-effects")
    if sv.declared and not (sv.ok and not sv.value):
        return
    ctx.report(17, iv.value_span(), act.element, "axag-idempotent", t=t)


@rule(23)
def mutation_without_risk(ctx: RuleCtx, act: Action) -> None:
    """write/delete without ``axag-risk-level``."""
    t = act.action_type
    if t in ("write", "delete") and not act.v("axag-risk-level").declared:
        ctx.report(23, act.v("axag-action-type").value_span(), act.element, "axag-action-type", t=t)


@rule(24)
def low_risk_delete(ctx: RuleCtx, act: Action) -> None:
    """delete with a valid risk below high."""
    r = act.risk
    if act.action_type == "delete" and r is not None and _RISK_ORDER[r] < _RISK_ORDER["high"]:
        ctx.report(24, act.v("axag-risk-level").value_span(), act.element, "axag-risk-level", r=r)


@rule(25)
def elevated_risk_read(ctx: RuleCtx, act: Action) -> None:
    """read with risk medium or high."""
    r = act.risk
    if act.action_type == "read" and r in ("medium", "high"):
        ctx.report(25, act.v("axag-risk-level").value_span(), act.element, "axag-risk-level", r=r)


_EXPECTED: dict[str, tuple[str, ...]] = {
    "medium": ("confirmation-required", "idempotent"),
    "high": ("idempotent", "preconditions"),
    "critical": ("approval-required", "approval-roles", "idempotent", "preconditions"),
}


@rule(26)
def safety_metadata_incomplete(ctx: RuleCtx, act: Action) -> None:
    """One finding per safety attribute the risk level calls for that is absent (primaries 006, 007, 012
    silence the same attribute, by key)."""
    r = act.risk
    if r not in _EXPECTED:
        return
    rv = act.v("axag-risk-level")
    for attr in _EXPECTED[r]:
        if act.v("axag-" + attr).declared:
            continue
        ctx.report(26, rv.value_span(), act.element, "axag-risk-level", key=attr, risk=r.capitalize(), attr=attr)


_DEPENDENT = (
    ("axag-approval-count", "axag-approval-required"),
    ("axag-approval-roles", "axag-approval-required"),
    ("axag-confirmation-message", "axag-confirmation-required"),
)


@rule(128)
def dependent_attribute_without_flag(ctx: RuleCtx, act: Action) -> None:
    """approval count/roles or confirmation message without their flag set to true."""
    for attr, flag in _DEPENDENT:
        dv = act.v(attr)
        if not dv.declared:
            continue
        fv = act.v(flag)
        if fv.declared and not fv.ok:
            continue  # the flag is declared but invalid (§12.6)
        if fv.ok and fv.value is True:
            continue
        ctx.report(128, dv.name_span(), act.element, attr, attr=attr, flag=flag)
