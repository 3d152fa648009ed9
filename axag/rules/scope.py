"""Scope and context rules: 011, 016, 018, 019, 020, 021, 022, 036, 137, 138 (context inheritance, the reference rules, axag's own rules); and,
from the facts the model records while it resolves the inherited context, 130, 147 (tenant boundary, scope).

Rules use the effective (inherited) scope and roles. A scope declared on the action itself but invalid
counts as declared and unknown, so the rules that read the scope stay silent (one finding per problem); an invalid inherited
value acts as absent (context inheritance).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from axag import vocabulary as V
from axag.model.facts import Kind
from axag.outcome.findings import Level, Severity
from axag.rules.base import RuleCtx
from axag.rules.declare import Rule, or_list
from axag.rules.facts import judge

if TYPE_CHECKING:
    from axag.files.spans import Span
    from axag.model.types import Action, Annotated
    from axag.parse.document import Element


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


ROLES_WITHOUT_SCOPE = Rule(
    code=11,
    name="roles-without-scope",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    trigger="approval required, or approval/required roles non-empty, and no effective scope",
    messages={
        "default": '"{intent}" has role requirements but no axag-scope',
    },
    fails=(
        '<button axag-intent="report.publish" axag-action-type="write" axag-approval-required="true">Publish</button>\n'
        '<button axag-intent="report.export" axag-action-type="read" axag-required-roles=\'["analyst"]\'>Export</button>\n'
        '<div axag-required-roles=\'["editor"]\'>\n'
        '  <button axag-intent="report.edit" axag-action-type="write">Edit</button>\n'
        "</div>"
    ),
    passes=(
        '<button axag-intent="report.publish" axag-action-type="write" axag-risk-level="low" axag-approval-required="true"\n'
        '        axag-approval-roles=\'["editor"]\' axag-scope="tenant">Publish</button>\n'
        '<div axag-scope="user">\n'
        '  <button axag-intent="report.export" axag-action-type="read" axag-required-roles=\'["analyst"]\'>Export</button>\n'
        "</div>\n"
        '<button axag-intent="report.view" axag-action-type="read" axag-approval-roles=\'[]\'>View</button>'
    ),
)


@ROLES_WITHOUT_SCOPE.check()
def roles_without_scope(ctx: RuleCtx, act: Action) -> None:
    """Approval required, or approval/required roles non-empty, with no effective scope."""
    if act.scope is not None or _scope_unknown(act):
        return
    roles = act.v("axag-approval-roles")
    if act.flag("axag-approval-required") is True or (roles.ok and roles.value) or act.required_roles:
        ROLES_WITHOUT_SCOPE.report(ctx, act.element.tag_span, act.element, intent=_intent(act))


_TENANT_ROLE = re.compile(r"tenant_", re.IGNORECASE)


TENANT_ROLE_OUTSIDE_TENANT_SCOPE = Rule(
    code=16,
    name="tenant-role-outside-tenant-scope",
    severity=Severity.WARNING,
    level=Level.FULL,
    trigger="effective scope ≠ `tenant`; an approval or required role matches `^tenant_` (any case)",
    messages={
        "default": 'Role "{role}" suggests tenant scope but scope is {scope}',
    },
    fails=(
        '<button axag-intent="member.invite" axag-action-type="write" axag-scope="user"\n'
        '        axag-approval-required="true" axag-approval-roles=\'["owner", "tenant_admin"]\'>Invite</button>\n'
        '<button axag-intent="member.remove" axag-action-type="delete"\n'
        '        axag-required-roles=\'["Tenant_Owner"]\'>Remove</button>'
    ),
    passes=(
        '<button axag-intent="member.invite" axag-action-type="write" axag-risk-level="low" axag-scope="tenant"\n'
        '        axag-approval-required="true" axag-approval-roles=\'["tenant_admin"]\'>Invite</button>\n'
        '<button axag-intent="member.list" axag-action-type="read" axag-scope="user"\n'
        '        axag-required-roles=\'["admin_tenant"]\'>List</button>'
    ),
)


@TENANT_ROLE_OUTSIDE_TENANT_SCOPE.check()
def tenant_role_outside_tenant_scope(ctx: RuleCtx, act: Action) -> None:
    """Effective scope other than tenant, with a role matching ``^tenant_`` (any case)."""
    if act.scope == "tenant" or _scope_unknown(act):
        return
    shown = f'"{act.scope}"' if act.scope is not None else "not declared"
    for role, span in _roles(act):
        if _TENANT_ROLE.match(role):
            TENANT_ROLE_OUTSIDE_TENANT_SCOPE.report(ctx, span, act.element, role=role, scope=shown)


def _destructive(act: Action) -> bool:
    t = V.action_type(act.action_type)
    return t is not None and t.destructive


def _changes_data(act: Action) -> bool:
    t = V.action_type(act.action_type)
    return t is not None and t.changes_data


_PERSONAL = frozenset({"profile", "preference", "user_settings", "user_preference", "my_account"})
_TENANT_ENTITIES = frozenset({"organization", "company", "department", "team", "tenant", "workspace", "billing",
                              "subscription", "plan", "invoice"})
_SUPERADMIN = frozenset({"superadmin", "super_admin", "super-admin"})


PERSONAL_ENTITY_GLOBAL_SCOPE = Rule(
    code=18,
    name="personal-entity-global-scope",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    trigger=("effective scope `global`, entity ∈ {profile, preference, user_settings, user_preference, "
             "my_account}"),
    messages={
        "default": 'Scope "global" but entity "{e}" is personal; consider "user"',
    },
    fails=(
        '<button axag-intent="profile.update" axag-action-type="write" axag-scope="global">Save</button>\n'
        '<div axag-scope="global">\n'
        '  <button axag-intent="my_account.close" axag-action-type="delete">Close</button>\n'
        "</div>"
    ),
    passes=(
        '<button axag-intent="profile.update" axag-action-type="write" axag-risk-level="low" axag-scope="user">Save</button>\n'
        '<button axag-intent="settings.update" axag-action-type="write" axag-risk-level="low" axag-scope="global">Settings</button>'
    ),
)


@PERSONAL_ENTITY_GLOBAL_SCOPE.check()
def personal_entity_global_scope(ctx: RuleCtx, act: Action) -> None:
    """Effective scope global on a personal entity."""
    e = act.effective_entity
    if act.scope == "global" and e in _PERSONAL:
        PERSONAL_ENTITY_GLOBAL_SCOPE.report(ctx, _scope_span(act), act.element, "axag-scope", e=e)


SUPERADMIN_IN_TENANT_SCOPE = Rule(
    code=19,
    name="superadmin-in-tenant-scope",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    trigger=("effective scope `tenant`, a role equal (any case) to `superadmin`, `super_admin` or "
             "`super-admin`"),
    messages={
        "default": 'Role "{role}" usually needs "global" scope, but scope is "tenant"',
    },
    fails=(
        '<button axag-intent="tenant.reset" axag-action-type="write" axag-scope="tenant"\n'
        '        axag-required-roles=\'["SuperAdmin"]\'>Reset</button>\n'
        '<div axag-scope="tenant" axag-required-roles=\'["super-admin"]\'>\n'
        '  <button axag-intent="tenant.purge" axag-action-type="delete">Purge</button>\n'
        "</div>"
    ),
    passes=(
        '<button axag-intent="tenant.reset" axag-action-type="write" axag-risk-level="low" axag-scope="global"\n'
        '        axag-required-roles=\'["superadmin"]\'>Reset</button>\n'
        '<button axag-intent="tenant.view" axag-action-type="read" axag-scope="tenant"\n'
        '        axag-required-roles=\'["superadmins"]\'>View</button>'
    ),
)


@SUPERADMIN_IN_TENANT_SCOPE.check()
def superadmin_in_tenant_scope(ctx: RuleCtx, act: Action) -> None:
    """Effective scope tenant with a superadmin role."""
    if act.scope != "tenant":
        return
    for role, span in _roles(act):
        if role.lower() in _SUPERADMIN:
            SUPERADMIN_IN_TENANT_SCOPE.report(ctx, span, act.element, role=role)


ENTITY_SCOPE_CONFLICT = Rule(
    code=20,
    name="entity-scope-conflict",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    trigger="same file, same entity, different effective scopes; once per pair, at the later element",
    messages={
        "default": 'Entity "{e}" has scope "{s}" here but "{s2}" at line {n}',
    },
    fails=(
        '<button axag-intent="order.view" axag-action-type="read" axag-scope="user">View</button>\n'
        '<button axag-intent="order.cancel" axag-action-type="write" axag-scope="tenant">Cancel</button>\n'
        '<button axag-intent="order.refund" axag-action-type="write" axag-scope="tenant">Refund</button>\n'
        '<div axag-scope="global">\n'
        '  <button axag-intent="order.purge" axag-action-type="delete">Purge</button>\n'
        "</div>"
    ),
    passes=(
        '<button axag-intent="order.view" axag-action-type="read" axag-scope="user">View</button>\n'
        '<button axag-intent="order.cancel" axag-action-type="write" axag-risk-level="low" axag-scope="user">Cancel</button>\n'
        '<button axag-intent="invoice.view" axag-action-type="read" axag-scope="tenant">Invoice</button>\n'
        '<button axag-intent="order.note" axag-action-type="write" axag-risk-level="low">No scope</button>'
    ),
)


@ENTITY_SCOPE_CONFLICT.check("file")
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
            ENTITY_SCOPE_CONFLICT.report(ctx, _scope_span(act), act.element, "axag-scope", e=e, s=s, s2=s2,
                                         n=n)
        seen.setdefault(s, act)


DELETE_WITHOUT_SCOPE = Rule(
    code=21,
    name="delete-without-scope",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    trigger="`delete` without effective scope",
    messages={
        "default": "Delete action should declare axag-scope to show its blast radius",
    },
    fails='<button axag-intent="file.remove" axag-action-type="delete">Remove</button>',
    passes=(
        '<button axag-intent="file.remove" axag-action-type="delete" axag-risk-level="low" axag-scope="user">Remove</button>\n'
        '<div axag-scope="tenant"><button axag-intent="file.purge" axag-action-type="delete" axag-risk-level="low">Purge</button></div>'
    ),
)


@DELETE_WITHOUT_SCOPE.check()
def delete_without_scope(ctx: RuleCtx, act: Action) -> None:
    """A delete action without effective scope."""
    if _destructive(act) and act.scope is None and not _scope_unknown(act):
        DELETE_WITHOUT_SCOPE.report(ctx, act.v("axag-action-type").value_span(), act.element,
                                    "axag-action-type")


TENANT_ENTITY_USER_SCOPE = Rule(
    code=22,
    name="tenant-entity-user-scope",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    trigger=("`write`, effective scope `user`, entity ∈ {organization, company, department, team, "
             "tenant, workspace, billing, subscription, plan, invoice}"),
    messages={
        "default": 'Entity "{e}" suggests tenant level but scope is "user"',
    },
    fails=(
        '<button axag-intent="team.rename" axag-action-type="write" axag-scope="user">Rename</button>\n'
        '<div axag-scope="user"><button axag-intent="billing.update" axag-action-type="write">Update</button></div>'
    ),
    passes=(
        '<button axag-intent="team.rename" axag-action-type="write" axag-risk-level="low" axag-scope="tenant">Rename</button>\n'
        '<button axag-intent="team.view" axag-action-type="read" axag-scope="user">View</button>\n'
        '<button axag-intent="profile.rename" axag-action-type="write" axag-risk-level="low" axag-scope="user">Profile</button>'
    ),
)


@TENANT_ENTITY_USER_SCOPE.check()
def tenant_entity_user_scope(ctx: RuleCtx, act: Action) -> None:
    """A write with effective scope user on an organisation-level entity."""
    e = act.effective_entity
    if _changes_data(act) and act.scope == "user" and e in _TENANT_ENTITIES:
        TENANT_ENTITY_USER_SCOPE.report(ctx, _scope_span(act), act.element, "axag-scope", e=e)


_TENANT_PARAMS = frozenset({"tenant_id", "tenant", "org_id", "organization_id", "account_id", "workspace_id"})


TENANT_PARAMETER_EXPOSED = Rule(
    code=36,
    name="tenant-parameter-exposed",
    severity=Severity.ERROR,
    level=Level.FULL,
    trigger=("effective scope `tenant`, a parameter whose snake_case name ∈ {tenant_id, tenant, org_id, "
             "organization_id, account_id, workspace_id}; one per name"),
    messages={
        "default": '"{intent}" is tenant-scoped but takes "{p}"; take the tenant from the session',
    },
    fails=(
        '<button axag-intent="project.create" axag-action-type="write" axag-scope="tenant"\n'
        '        axag-required-parameters=\'["name", "tenantId"]\' axag-optional-parameters=\'[{"name": "org_id"}]\'>Create</button>\n'
        '<form axag-tenant-boundary="strict" axag-scope="tenant" axag-intent="project.move" axag-action-type="write">\n'
        '  <label>Workspace <input name="workspace-id"></label>\n'
        "  <button>Move</button>\n"
        "</form>"
    ),
    passes=(
        '<button axag-intent="project.create" axag-action-type="write" axag-risk-level="low" axag-scope="user"\n'
        '        axag-required-parameters=\'["name", "tenant_id"]\'>Create</button>\n'
        '<button axag-intent="project.rename" axag-action-type="write" axag-risk-level="low" axag-scope="tenant"\n'
        '        axag-required-parameters=\'["name", "tenant_name"]\'>Rename</button>'
    ),
)


@TENANT_PARAMETER_EXPOSED.check()
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
            TENANT_PARAMETER_EXPOSED.report(ctx, span, act.element, intent=_intent(act), p=p.name)


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


UNUSED_CONTEXT = Rule(
    code=137,
    name="unused-context",
    severity=Severity.WARNING,
    level=Level.FULL,
    trigger="§6",
    plain=or_list(V.CONTEXT_ATTRIBUTES) + " on an element that contains no action",
    messages={
        "default": "{attr} on <{tag}> applies to no action",
    },
    fails=(
        '<div axag-scope="user" axag-required-roles=\'["member"]\'><p>No action here</p></div>\n'
        '<button axag-intent="cart.add" axag-action-type="write">Add</button>'
    ),
    passes=(
        '<div axag-scope="user" axag-required-roles=\'["member"]\'><p><button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">Add</button></p></div>'
    ),
)


@UNUSED_CONTEXT.check("file")
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
    UNUSED_CONTEXT.report(ctx, span, element, name, attr=name, tag=element.tag)


MISSING_DESCRIPTION = Rule(
    code=138,
    name="missing-description",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    compile=True,
    trigger="no `axag-description`",
    messages={
        "default": '"{intent}" has no axag-description; the tool will say "{humanised}."',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write">Add</button>\n'
        '<button axag="read:cart.view">View</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-description="Add the item to the cart">Add</button>'
    ),
)


@MISSING_DESCRIPTION.check()
def missing_description(ctx: RuleCtx, act: Action) -> None:
    """An action without ``axag-description``."""
    if act.intent is None or act.v("axag-description").declared:
        return
    MISSING_DESCRIPTION.report(ctx, act.element.tag_span, act.element, intent=act.intent,
                               humanised=V.humanise_intent(act.intent))


# ------------------------------------------------------------------------------------------------
# The model records what it observes as facts (`axag.model.facts`); the checks below judge them.

INHERITANCE_VIOLATION = Rule(
    code=130,
    name="inheritance-violation",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="§6: `relaxed` under `strict`",
    plain=('axag-tenant-boundary="relaxed" inside an element that declares "strict": an inner element '
           "cannot loosen its container's boundary"),
    messages={
        "default": 'axag-tenant-boundary="relaxed" cannot relax "strict" from line {n}',
    },
    fails=(
        '<section axag-tenant-boundary="strict">\n'
        '  <div axag-tenant-boundary="relaxed"><button axag-intent="cart.add" axag-action-type="write">Add</button></div>\n'
        "</section>"
    ),
    passes=(
        '<section axag-tenant-boundary="relaxed">\n'
        '  <div axag-tenant-boundary="strict"><button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">Add</button></div>\n'
        "</section>"
    ),
)


SCOPE_NARROWER_THAN_CONTEXT = Rule(
    code=147,
    name="scope-narrower-than-context",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    trigger="§6: scope lower than the inherited one; the element's own value is used",
    plain="an axag-scope lower than the scope inherited from a container; the element's own value is used",
    messages={
        "default": ('axag-scope="{s}" is less privileged than "{a}" inherited from line {n}; "{s}" '
                    "applies here"),
    },
    fails=(
        '<section axag-scope="tenant">\n'
        '  <button axag-intent="cart.add" axag-action-type="write" axag-scope="user">Add</button>\n'
        "</section>"
    ),
    passes=(
        '<section axag-scope="user">\n'
        '  <button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-scope="tenant">Add</button>\n'
        "</section>"
    ),
)


# the facts the model records while it resolves the inherited context (`axag.model.actions`)
judge(INHERITANCE_VIOLATION, Kind.TENANT_BOUNDARY_RELAXED)
judge(SCOPE_NARROWER_THAN_CONTEXT, Kind.SCOPE_WIDER_THAN_ANCESTOR)
