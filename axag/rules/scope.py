"""Scope and context rules: 011, 016, 018, 019, 020, 021, 022, 036, 137, 138 (SPEC §6, §12.3, §12.4).

Rules use the effective (inherited) scope and roles. A scope declared on the action itself but invalid
counts as declared and unknown, so the rules that read the scope stay silent (§12.6); an invalid inherited
value acts as absent (§6).

011 — fails: ``axag-approval-required="true"`` with no effective scope.
016 — fails: role ``tenant_admin`` with scope ``user``.
018 — fails: scope ``global`` on entity ``profile``.
019 — fails: role ``superadmin`` with scope ``tenant``.
020 — fails: ``order.view`` scope ``user`` and ``order.cancel`` scope ``tenant`` in one file.
021 — fails: ``delete`` without effective scope.
022 — fails: ``write`` on entity ``team`` with scope ``user``.
036 — fails: tenant scope with a ``tenant_id`` parameter.
137 — fails: ``<div axag-scope="user">`` without any action inside.
138 — fails: an action without ``axag-description``.
"""

from __future__ import annotations

import re
from typing import Any

from axag import vocabulary as V
from axag.model.actions import Action, Annotated
from axag.parse.document import Element
from axag.rules.base import RuleCtx, rule
from axag.spans import Span


def _scope_unknown(act: Action) -> bool:
    """The action declares a scope that is invalid: rules reading the scope stay silent."""
    sv = act.v("axag-scope")
    return sv.declared and not sv.ok


def _scope_span(act: Action) -> Span:
    """The action's own scope value, else its tag (an inherited or missing scope)."""
    sv = act.v("axag-scope")
    if sv.ok and act.scope_source is act.ann:
        return sv.value_span()
    return act.element.tag_span


def _roles(act: Action) -> list[tuple[str, Span]]:
    """Approval roles and effective required roles with their spans: the item on the action itself, the
    action's tag for inherited roles."""
    out: list[tuple[str, Span]] = []
    seen: set[str] = set()
    for attr in ("axag-approval-roles", "axag-required-roles"):
        v = act.v(attr)
        if v.ok:
            for i, role in enumerate(v.value):
                if role not in seen:
                    seen.add(role)
                    out.append((role, v.json_span((i,))))
    for role in act.required_roles:
        if role not in seen:
            seen.add(role)
            out.append((role, act.element.tag_span))
    return out


def _intent(act: Action) -> str:
    return act.intent or (act.intent_value.raw if act.intent_value.declared else "")


@rule(11)
def roles_without_scope(ctx: RuleCtx, act: Action) -> None:
    """Approval required, or approval/required roles non-empty, with no effective scope."""
    if act.scope is not None or _scope_unknown(act):
        return
    roles = act.v("axag-approval-roles")
    if act.flag("axag-approval-required") is True or (roles.ok and roles.value) or act.required_roles:
        ctx.report(11, act.element.tag_span, act.element, intent=_intent(act))


_TENANT_ROLE = re.compile(r"tenant_", re.IGNORECASE)


@rule(16)
def tenant_role_outside_tenant_scope(ctx: RuleCtx, act: Action) -> None:
    """Effective scope other than tenant, with a role matching ``^tenant_`` (any case)."""
    if act.scope == "tenant" or _scope_unknown(act):
        return
    shown = f'"{act.scope}"' if act.scope is not None else "not declared"
    for role, span in _roles(act):
        if _TENANT_ROLE.match(role):
            ctx.report(16, span, act.element, role=role, scope=shown)


_PERSONAL = frozenset({"profile", "preference", "user_settings", "user_preference", "my_account"})
_TENANT_ENTITIES = frozenset({"organization", "company", "department", "team", "tenant", "workspace", "billing",
                              "subscription", "plan", "invoice"})
_SUPERADMIN = frozenset({"superadmin", "super_admin", "super-admin"})


@rule(18)
def personal_entity_global_scope(ctx: RuleCtx, act: Action) -> None:
    """Effective scope global on a personal entity."""
    e = act.effective_entity
    if act.scope == "global" and e in _PERSONAL:
        ctx.report(18, _scope_span(act), act.element, "axag-scope", e=e)


@rule(19)
def superadmin_in_tenant_scope(ctx: RuleCtx, act: Action) -> None:
    """Effective scope tenant with a superadmin role."""
    if act.scope != "tenant":
        return
    for role, span in _roles(act):
        if role.lower() in _SUPERADMIN:
            ctx.report(19, span, act.element, role=role)


@rule(20, "file")
def entity_scope_conflict(ctx: RuleCtx) -> None:
    """Actions of one entity with different effective scopes in one file: once per pair of scopes (per
    entity), at the later element, naming the first element with the other scope."""
    first: dict[str, dict[str, Action]] = {}  # entity -> scope -> first action with it
    done: set[tuple[str, frozenset[str]]] = set()
    lines = ctx.model.pf.lines
    for act in ctx.model.actions:
        e, s = act.effective_entity, act.scope
        if e is None or s is None or act.dynamic:
            continue
        seen = first.setdefault(e, {})
        for s2, other in seen.items():
            pair = (e, frozenset((s, s2)))
            if s2 == s or pair in done:
                continue
            done.add(pair)
            n = lines.position(other.element.tag_span.start)[0]
            ctx.report(20, _scope_span(act), act.element, "axag-scope", e=e, s=s, s2=s2, n=n)
        seen.setdefault(s, act)


@rule(21)
def delete_without_scope(ctx: RuleCtx, act: Action) -> None:
    """A delete action without effective scope."""
    if act.action_type == "delete" and act.scope is None and not _scope_unknown(act):
        ctx.report(21, act.v("axag-action-type").value_span(), act.element, "axag-action-type")


@rule(22)
def tenant_entity_user_scope(ctx: RuleCtx, act: Action) -> None:
    """A write with effective scope user on an organisation-level entity."""
    e = act.effective_entity
    if act.action_type == "write" and act.scope == "user" and e in _TENANT_ENTITIES:
        ctx.report(22, _scope_span(act), act.element, "axag-scope", e=e)


_TENANT_PARAMS = frozenset({"tenant_id", "tenant", "org_id", "organization_id", "account_id", "workspace_id"})


@rule(36)
def tenant_parameter_exposed(ctx: RuleCtx, act: Action) -> None:
    """Tenant-scoped action taking the tenant as a parameter; one finding per name."""
    if act.scope != "tenant":
        return
    seen: set[str] = set()
    for p in act.parameters:
        norm = V.snake_case(p.name)
        if norm in _TENANT_PARAMS and norm not in seen:
            seen.add(norm)
            span = p.span if p.span is not None else act.element.tag_span
            ctx.report(36, span, act.element, intent=_intent(act), p=p.name)


# ---------------------------------------------------------------- 137
_TEMPLATE_HOLE = re.compile(r"\{%-?\s*(block|include)\b|\{\{>")


def _has_hole(el: Any) -> bool:
    if any(True for _ in el.iter("slot")):
        return True
    try:
        text = "".join(str(t) for t in el.itertext())
    except (ValueError, TypeError):
        return False
    return _TEMPLATE_HOLE.search(text) is not None


@rule(137, "file")
def unused_context(ctx: RuleCtx) -> None:
    """A context attribute on an element that is not an action and has no action among its descendants
    (template files: unless the element contains a block/include construct or a ``<slot>``)."""
    model = ctx.model
    holders: list[Annotated] = [a for a in model.annotated if a.action is None
                                and any(a.v(n).declared for n in V.CONTEXT_ATTRIBUTES)]
    if not holders:
        return
    action_els = {a.element.el for a in model.actions if a.element.el is not None}
    with_action: set[Any] = set()
    for el in action_els:
        for anc in el.iterancestors():
            if anc in with_action:
                break
            with_action.add(anc)
    template = model.pf.src.kind != "html"
    for ann in holders:
        el = ann.element.el
        if el is not None and el in with_action:
            continue
        if template and el is not None and _has_hole(el):
            continue
        for name in V.CONTEXT_ATTRIBUTES:
            v = ann.v(name)
            if v.declared and v.attr is not None:
                _report137(ctx, ann.element, name, v.name_span())


def _report137(ctx: RuleCtx, element: Element, name: str, span: Span) -> None:
    ctx.report(137, span, element, name, attr=name, tag=element.tag)


@rule(138)
def missing_description(ctx: RuleCtx, act: Action) -> None:
    """An action without ``axag-description``."""
    if act.intent is None or act.v("axag-description").declared:
        return
    ctx.report(138, act.element.tag_span, act.element, intent=act.intent, humanised=V.humanise_intent(act.intent))
