"""Safety rules: 006, 150, 007, 012, 013, 014, 015, 017, 023, 024, 025, 026, 128 (the reference rules, axag's own rules); and, from
the facts the model records, 129 (confirmation-message placeholders).

Declared-but-invalid values (status INVALID) count as declared and unknown: rules reading them stay silent
(one finding per problem). Findings point at the value whose content triggers the rule (finding positions).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from axag import vocabulary as V
from axag.model.facts import Fact, Kind
from axag.outcome.findings import Fix, Fixable, Level, Severity
from axag.rules.base import RuleCtx
from axag.rules.declare import Rule
from axag.rules.facts import emit, judge, judges

if TYPE_CHECKING:
    from axag.model.types import Action
    from axag.model.values import Value



def _type(act: Action) -> V.ActionType | None:
    return V.action_type(act.action_type)


def _risk(act: Action) -> V.RiskLevel | None:
    return V.risk_level(act.risk)


_MUTATING = "/".join(f"`{t}`" for t in V.MUTATING_ACTION_TYPES)  # "`write`/`delete`" in the rule texts


def _declared_false(v: Value) -> bool:
    return v.ok and v.value is False


_BREAK = re.compile(r"\r\n|\r|\n")


def _line_ending(text: str, pos: int) -> str:
    """The line break used from ``pos`` on (the element's own lines), "\n" when there is none."""
    m = _BREAK.search(text, pos)
    return m.group(0) if m else "\n"


HIGH_RISK_WITHOUT_CONFIRMATION = Rule(
    code=6,
    name="high-risk-without-confirmation",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    fix=Fixable.SOMETIMES,
    fix_note="adds attribute when absent",
    trigger="risk `high`/`critical`, confirmation absent or `false`",
    messages={
        "default": 'axag-risk-level="{r}" should have axag-confirmation-required="true"',
    },
    primary_to={26: "key"},
    fails=(
        '<button axag-intent="account.close" axag-action-type="delete" axag-risk-level="high">Close</button>\n'
        '<button axag-intent="account.wipe" axag-action-type="delete" axag-risk-level="critical"\n'
        '        axag-confirmation-required="false">Wipe</button>\n'
        '<button axag="delete:account.purge!critical">Purge</button>'
    ),
    passes=(
        '<button axag-intent="account.close" axag-action-type="delete" axag-risk-level="high"\n'
        '        axag-confirmation-required="true">Close</button>\n'
        '<button axag-intent="account.edit" axag-action-type="write" axag-risk-level="medium">Edit</button>\n'
        '<button axag="delete:account.purge!critical?confirm">Purge</button>'
    ),
)


@HIGH_RISK_WITHOUT_CONFIRMATION.check()
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
    fx = _add_confirmation(ctx, act)
    HIGH_RISK_WITHOUT_CONFIRMATION.report(ctx, rv.value_span(), act.element, "axag-risk-level", fix=fx,
                                          pair="confirmation-required", r=risk)


CRITICAL_WITHOUT_GATE = Rule(
    code=150,
    name="critical-without-gate",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    reasoned=True,
    fix=Fixable.SOMETIMES,
    fix_note="adds axag-confirmation-required when absent",
    trigger=("risk `critical`, neither `axag-confirmation-required` nor `axag-approval-required` `true`; "
             "compile writes no output until the action is gated or the finding is suppressed with a reason"),
    plain=("an action of risk critical that neither asks the user to confirm (axag-confirmation-required="
           '"true") nor waits for a person\'s approval (axag-approval-required="true"): an agent would run it '
           "with no one asked. axag compile refuses to write it; gate it, or suppress the finding with a reason "
           "(<!-- axag-disable-next-line AXAG-LINT-150 -- why no gate is needed -->)"),
    messages={
        "default": ('"{intent}" is critical risk but has no gate: add axag-confirmation-required="true" or '
                    'axag-approval-required="true"'),
    },
    primary_to={6: "element", 26: "key"},
    fails=(
        '<button axag-intent="account.wipe" axag-action-type="delete" axag-risk-level="critical">Wipe</button>\n'
        '<button axag-intent="account.purge" axag-action-type="delete" axag-risk-level="critical"\n'
        '        axag-confirmation-required="false" axag-approval-required="false">Purge</button>\n'
        '<button axag="write:payout.send_all!critical">Send all</button>'
    ),
    passes=(
        '<button axag-intent="account.wipe" axag-action-type="delete" axag-risk-level="critical"\n'
        '        axag-confirmation-required="true">Wipe</button>\n'
        '<button axag-intent="account.purge" axag-action-type="delete" axag-risk-level="critical"\n'
        '        axag-approval-required="true" axag-approval-roles=\'["admin"]\'>Purge</button>\n'
        '<button axag="write:payout.send_all!critical?confirm">Send all</button>\n'
        '<button axag-intent="account.close" axag-action-type="delete" axag-risk-level="high">Close (006, a warning)</button>'
    ),
)


@CRITICAL_WITHOUT_GATE.check()
def critical_without_gate(ctx: RuleCtx, act: Action) -> None:
    """Risk critical with neither confirmation nor approval set to true (a flag declared but invalid counts as
    unknown: 105 reports it, one finding per problem); the fix adds the confirmation when it is absent."""
    risk = _risk(act)
    if risk is None or not risk.approve or act.intent is None:
        return
    flags = [act.v("axag-confirmation-required"), act.v("axag-approval-required")]
    if any(v.declared and not v.ok for v in flags) or any(v.ok and v.value is True for v in flags):
        return
    rv = act.v("axag-risk-level")
    CRITICAL_WITHOUT_GATE.report(ctx, rv.value_span(), act.element, "axag-risk-level",
                                 fix=_add_confirmation(ctx, act), pair="approval-required", intent=act.intent)


def _add_confirmation(ctx: RuleCtx, act: Action) -> Fix | None:
    """The fix of 006 and 150: add axag-confirmation-required="true" after the risk level, when it is absent."""
    if act.v("axag-confirmation-required").declared:
        return None
    from axag.parse.edits import fix, insert_attribute_after  # (the rules are declared without the parser)

    rv = act.v("axag-risk-level")
    after = act.ann.macro_attr if rv.from_macro else rv.attr
    text = ctx.model.pf.src.text  # the original text: template constructs are not whitespace
    edit = insert_attribute_after(act.element, after, "axag-confirmation-required", "true", text,
                                  _line_ending(text, act.element.start))
    return fix('Add axag-confirmation-required="true"', edit)


MUTATION_WITHOUT_IDEMPOTENT = Rule(
    code=7,
    name="mutation-without-idempotent",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    trigger=f"{_MUTATING}, `axag-idempotent` absent",
    messages={
        "default": 'axag-action-type="{t}" should declare axag-idempotent',
    },
    primary_to={26: "key"},
    fails=(
        '<button axag-intent="cart.add_item" axag-action-type="write">Add</button>\n'
        '<button axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="high">Clear</button>'
    ),
    passes=(
        '<button axag-intent="cart.add_item" axag-action-type="write" axag-risk-level="low" axag-idempotent="false">Add</button>\n'
        '<button axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="low" axag-idempotent="true">Clear</button>\n'
        '<button axag-intent="cart.view" axag-action-type="read">View</button>'
    ),
)


@MUTATION_WITHOUT_IDEMPOTENT.check()
def mutation_without_idempotent(ctx: RuleCtx, act: Action) -> None:
    """write/delete with ``axag-idempotent`` absent."""
    t = act.action_type
    if not V.is_mutating(t) or act.v("axag-idempotent").declared:
        return
    MUTATION_WITHOUT_IDEMPOTENT.report(ctx, act.v("axag-action-type").value_span(), act.element,
                                       "axag-action-type", pair="idempotent", t=t)


APPROVAL_WITHOUT_ROLES = Rule(
    code=12,
    name="approval-without-roles",
    severity=Severity.ERROR,
    level=Level.FULL,
    compile=True,
    trigger="approval `true`, roles absent or `[]`",
    messages={
        "default": 'axag-approval-required="true" but no axag-approval-roles declared',
    },
    primary_to={26: "key"},
    fails=(
        '<button axag-intent="payout.send" axag-action-type="write" axag-approval-required="true">Send</button>\n'
        '<button axag-intent="payout.undo" axag-action-type="write" axag-approval-required="true"\n'
        "        axag-approval-roles='[]'>Undo</button>"
    ),
    passes=(
        '<button axag-intent="payout.send" axag-action-type="write" axag-risk-level="low" axag-approval-required="true"\n'
        '        axag-approval-roles=\'["finance"]\'>Send</button>\n'
        '<button axag-intent="payout.view" axag-action-type="read" axag-approval-required="false">View</button>'
    ),
)


@APPROVAL_WITHOUT_ROLES.check()
def approval_without_roles(ctx: RuleCtx, act: Action) -> None:
    """``axag-approval-required="true"`` with roles absent or ``[]``."""
    if act.flag("axag-approval-required") is not True:
        return
    roles = act.v("axag-approval-roles")
    if roles.declared and not (roles.ok and not roles.value):
        return
    av = act.v("axag-approval-required")
    APPROVAL_WITHOUT_ROLES.report(ctx, av.value_span(), act.element, "axag-approval-required",
                                  pair="approval-roles")


CRITICAL_READ = Rule(
    code=13,
    name="critical-read",
    severity=Severity.ERROR,
    level=Level.FULL,
    trigger="`read` with risk `critical`",
    messages={
        "default": "A read action cannot be critical risk",
    },
    primary_to={25: "element", 150: "element"},
    fails=(
        '<button axag-intent="secret.view" axag-action-type="read" axag-risk-level="critical">View</button>'
    ),
    passes=(
        '<button axag-intent="secret.view" axag-action-type="read" axag-risk-level="high">View</button>\n'
        '<button axag-intent="secret.rotate" axag-action-type="write" axag-risk-level="critical"\n'
        '        axag-approval-required="true" axag-approval-roles=\'["security"]\'>Rotate</button>'
    ),
)


@CRITICAL_READ.check()
def critical_read(ctx: RuleCtx, act: Action) -> None:
    """A read action with critical risk."""
    t, risk = _type(act), _risk(act)
    if t is not None and t.reads_data and risk is not None and risk.approve:
        CRITICAL_READ.report(ctx, act.v("axag-risk-level").value_span(), act.element, "axag-risk-level")


_CREATE_VERB = re.compile(r"(create|add|new|register|insert|sign_?up)")
_EXISTS = re.compile(r"\b(must (already )?exists?|already exists?)\b")


def _mentions(text: str, entity: str) -> bool:
    """The entity as a whole word, its parts joined by "_" or a space ("purchase_order", "Purchase order")."""
    words = "[_ ]".join(re.escape(w) for w in entity.split("_"))
    return re.search(r"(?<![a-z0-9_])" + words + r"(?![a-z0-9_])", text.lower()) is not None


CREATE_PRECONDITION_CONTRADICTION = Rule(
    code=14,
    name="create-precondition-contradiction",
    severity=Severity.WARNING,
    level=Level.FULL,
    trigger=("`write` whose verb starts with `create`, `add`, `new`, `register`, `insert` or "
             "`sign_up`/`signup`, with a precondition saying the entity itself `must exist` or `already "
             "exists`"),
    messages={
        "default": 'Precondition "{p}" requires the {entity} that "{intent}" creates to exist already',
    },
    fails=(
        '<button axag-intent="user.create" axag-action-type="write"\n'
        '        axag-preconditions=\'["email is verified", "user must exist"]\'>Create</button>\n'
        '<button axag-intent="purchase_order.add" axag-action-type="write"\n'
        '        axag-preconditions=\'["Purchase order already exists."]\'>Add</button>\n'
        '<button axag-intent="account.signup" axag-action-type="write" axag-entity="account"\n'
        '        axag-preconditions=\'["account must already exist"]\'>Sign up</button>'
    ),
    passes=(
        '<button axag-intent="user.create" axag-action-type="write" axag-risk-level="low"\n'
        '        axag-preconditions=\'["team must exist", "user must not exist"]\'>Create</button>\n'
        '<button axag-intent="user.update" axag-action-type="write" axag-risk-level="low" axag-preconditions=\'["user must exist"]\'>Update</button>\n'
        '<button axag-intent="user.create_copy" axag-action-type="read" axag-preconditions=\'["user must exist"]\'>Copy</button>'
    ),
)


@CREATE_PRECONDITION_CONTRADICTION.check()
def create_precondition_contradiction(ctx: RuleCtx, act: Action) -> None:
    """A creating write (verb create/add/new/register/insert/sign_up) whose precondition requires the
    created entity to exist already."""
    t = _type(act)
    if t is None or not t.changes_data or act.intent is None:
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
            CREATE_PRECONDITION_CONTRADICTION.report(ctx, pv.json_span((i,)), act.element,
                                                     "axag-preconditions", p=text, entity=entity,
                       intent=act.intent)


NAVIGATE_WITH_SIDE_EFFECTS = Rule(
    code=15,
    name="navigate-with-side-effects",
    severity=Severity.WARNING,
    level=Level.FULL,
    trigger="`navigate` with non-empty side effects",
    messages={
        "default": "A navigate action should not declare side effects",
    },
    fails=(
        '<a href="/next" axag-intent="wizard.next" axag-action-type="navigate" axag-side-effects=\'["saves draft"]\'>Next</a>'
    ),
    passes=(
        '<a href="/next" axag-intent="wizard.next" axag-action-type="navigate" axag-side-effects=\'[]\'>Next</a>\n'
        '<a href="/back" axag-intent="wizard.back" axag-action-type="navigate">Back</a>\n'
        '<button axag-intent="wizard.save" axag-action-type="write" axag-risk-level="low" axag-side-effects=\'["saves draft"]\'>Save</button>'
    ),
)


@NAVIGATE_WITH_SIDE_EFFECTS.check()
def navigate_with_side_effects(ctx: RuleCtx, act: Action) -> None:
    """A navigate action with non-empty side effects."""
    sv = act.v("axag-side-effects")
    t = _type(act)
    if t is not None and t.navigation and sv.ok and sv.value:
        NAVIGATE_WITH_SIDE_EFFECTS.report(ctx, sv.value_span(), act.element, "axag-side-effects")


NON_IDEMPOTENT_WITHOUT_SIDE_EFFECTS = Rule(
    code=17,
    name="non-idempotent-without-side-effects",
    severity=Severity.WARNING,
    level=Level.FULL,
    trigger=f'{_MUTATING} declared `axag-idempotent="false"`, side effects absent or empty',
    messages={
        "default": "Non-idempotent {t} action should declare axag-side-effects",
    },
    fails=(
        '<button axag-intent="mail.send" axag-action-type="write" axag-idempotent="false">Send</button>\n'
        '<button axag-intent="mail.drop" axag-action-type="delete" axag-idempotent="false" axag-side-effects=\'[]\'>Drop</button>'
    ),
    passes=(
        '<button axag-intent="mail.send" axag-action-type="write" axag-risk-level="low" axag-idempotent="false"\n'
        '        axag-side-effects=\'["sends an email"]\'>Send</button>\n'
        '<button axag-intent="mail.save" axag-action-type="write" axag-risk-level="low" axag-idempotent="true">Save</button>\n'
        '<button axag-intent="mail.post" axag-action-type="write" axag-risk-level="low">Post (007 only)</button>'
    ),
)


@NON_IDEMPOTENT_WITHOUT_SIDE_EFFECTS.check()
def non_idempotent_without_side_effects(ctx: RuleCtx, act: Action) -> None:
    """write/delete declared ``axag-idempotent="false"`` with side effects absent or empty."""
    t = act.action_type
    iv = act.v("axag-idempotent")
    if not V.is_mutating(t) or not _declared_false(iv):
        return
    sv = act.v("axag-side-effects")
    if sv.declared and not (sv.ok and not sv.value):
        return
    NON_IDEMPOTENT_WITHOUT_SIDE_EFFECTS.report(ctx, iv.value_span(), act.element, "axag-idempotent", t=t)


MUTATION_WITHOUT_RISK = Rule(
    code=23,
    name="mutation-without-risk",
    severity=Severity.ERROR,
    level=Level.INTERMEDIATE,
    trigger=f"{_MUTATING} without `axag-risk-level`",
    messages={
        "default": 'axag-action-type="{t}" must declare axag-risk-level',
    },
    fails=(
        '<button axag-intent="cart.add_item" axag-action-type="write">Add</button>\n'
        '<button axag-intent="cart.clear" axag-action-type="delete">Clear</button>'
    ),
    passes=(
        '<button axag-intent="cart.add_item" axag-action-type="write" axag-risk-level="low">Add</button>\n'
        '<button axag-intent="cart.view" axag-action-type="read">View</button>'
    ),
)


@MUTATION_WITHOUT_RISK.check()
def mutation_without_risk(ctx: RuleCtx, act: Action) -> None:
    """write/delete without ``axag-risk-level``."""
    t = act.action_type
    if V.is_mutating(t) and not act.v("axag-risk-level").declared:
        MUTATION_WITHOUT_RISK.report(ctx, act.v("axag-action-type").value_span(), act.element,
                                     "axag-action-type", t=t)


LOW_RISK_DELETE = Rule(
    code=24,
    name="low-risk-delete",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    trigger="`delete` with a valid risk below `high`",
    messages={
        "default": 'Delete action has risk "{r}"; deletes are usually "high" or "critical"',
    },
    fails=(
        '<button axag-intent="note.delete" axag-action-type="delete" axag-risk-level="low">Delete</button>\n'
        '<button axag-intent="note.purge" axag-action-type="delete" axag-risk-level="medium">Purge</button>'
    ),
    passes=(
        '<button axag-intent="note.delete" axag-action-type="delete" axag-risk-level="high">Delete</button>\n'
        '<button axag-intent="note.edit" axag-action-type="write" axag-risk-level="low">Edit</button>'
    ),
)


@LOW_RISK_DELETE.check()
def low_risk_delete(ctx: RuleCtx, act: Action) -> None:
    """delete with a valid risk below high."""
    t = _type(act)
    if t is None or not t.destructive:
        return  # (most actions: the risk is not looked at)
    risk = _risk(act)
    if risk is not None and not risk.confirm:
        LOW_RISK_DELETE.report(ctx, act.v("axag-risk-level").value_span(), act.element, "axag-risk-level",
                               r=act.risk)


ELEVATED_RISK_READ = Rule(
    code=25,
    name="elevated-risk-read",
    severity=Severity.INFO,
    level=Level.INTERMEDIATE,
    trigger="`read` with risk `medium` or `high`",
    messages={
        "default": 'Read action has risk "{r}"; reads are usually "none" or "low"',
    },
    fails=(
        '<button axag-intent="log.view" axag-action-type="read" axag-risk-level="medium">View</button>\n'
        '<button axag="read:log.export!high">Export</button>'
    ),
    passes=(
        '<button axag-intent="log.view" axag-action-type="read" axag-risk-level="low">View</button>\n'
        '<button axag-intent="log.list" axag-action-type="read" axag-risk-level="none">List</button>'
    ),
)


@ELEVATED_RISK_READ.check()
def elevated_risk_read(ctx: RuleCtx, act: Action) -> None:
    """read with risk medium or high."""
    t = _type(act)
    if t is None or not t.reads_data:
        return  # (most actions: the risk is not looked at)
    risk = _risk(act)
    if risk is not None and risk.elevated and not risk.approve:
        ELEVATED_RISK_READ.report(ctx, act.v("axag-risk-level").value_span(), act.element, "axag-risk-level",
                                  r=act.risk)




SAFETY_METADATA_INCOMPLETE = Rule(
    code=26,
    name="safety-metadata-incomplete",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    trigger=("valid risk; one finding per attribute missing from: medium → confirmation-required, "
             "idempotent; high → idempotent, preconditions; critical → approval-required, "
             "approval-roles, idempotent, preconditions (minus the primaries of §12.6)"),
    plain=("a valid axag-risk-level without the attributes that risk calls for: medium needs "
           "axag-confirmation-required and axag-idempotent; high needs axag-idempotent and "
           "axag-preconditions; critical needs axag-approval-required, axag-approval-roles, "
           "axag-idempotent and axag-preconditions (one finding per missing attribute, except where a "
           "more specific rule such as 006 already reports it)"),
    messages={
        "default": "{risk} risk should declare axag-{attr}",
    },
    fails=(
        '<button axag-intent="plan.change" axag-action-type="read" axag-risk-level="medium">Change</button>\n'
        '<button axag-intent="plan.cancel" axag-action-type="delete" axag-risk-level="high"\n'
        '        axag-confirmation-required="true" axag-idempotent="true">Cancel</button>\n'
        '<button axag-intent="plan.wipe" axag-action-type="delete" axag-risk-level="critical"\n'
        '        axag-confirmation-required="true" axag-idempotent="true">Wipe</button>\n'
        '<button axag-intent="plan.send" axag-action-type="write" axag-risk-level="critical"\n'
        '        axag-confirmation-required="true" axag-approval-required="true" axag-preconditions=\'["ready"]\'>Send</button>'
    ),
    passes=(
        '<button axag-intent="plan.change" axag-action-type="read" axag-risk-level="medium"\n'
        '        axag-confirmation-required="true" axag-idempotent="true">Change</button>\n'
        '<button axag-intent="plan.cancel" axag-action-type="delete" axag-risk-level="high"\n'
        '        axag-confirmation-required="true" axag-idempotent="true" axag-preconditions=\'["active"]\'>Cancel</button>\n'
        '<button axag-intent="plan.add" axag-action-type="write" axag-risk-level="medium"\n'
        '        axag-confirmation-required="true">Add (007, not 026)</button>\n'
        '<button axag-intent="plan.view" axag-action-type="read" axag-risk-level="low">View</button>'
    ),
)


@SAFETY_METADATA_INCOMPLETE.check()
def safety_metadata_incomplete(ctx: RuleCtx, act: Action) -> None:
    """One finding per safety attribute the risk level calls for that is absent (primaries 006, 007, 012
    silence the same attribute, by key)."""
    r, risk = act.risk, _risk(act)
    if r is None or risk is None:
        return
    rv = act.v("axag-risk-level")
    for attr in risk.calls_for:
        if act.v("axag-" + attr).declared:
            continue
        SAFETY_METADATA_INCOMPLETE.report(ctx, rv.value_span(), act.element, "axag-risk-level", pair=attr,
                                          risk=r.capitalize(), attr=attr)


_DEPENDENT = (
    ("axag-approval-count", "axag-approval-required"),
    ("axag-approval-roles", "axag-approval-required"),
    ("axag-confirmation-message", "axag-confirmation-required"),
)


DEPENDENT_ATTRIBUTE_WITHOUT_FLAG = Rule(
    code=128,
    name="dependent-attribute-without-flag",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    trigger="§3.7",
    plain=("axag-approval-count, axag-approval-roles or axag-confirmation-message without the flag that "
           "enables it (axag-approval-required or axag-confirmation-required set to true)"),
    messages={
        "default": '{attr} has no effect without {flag}="true"',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-approval-count="2" axag-approval-roles=\'["a"]\'>Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-confirmation-required="false" axag-confirmation-message="Sure?">Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-approval-required="true" axag-approval-count="2" axag-approval-roles=\'["a"]\'>Add</button>\n'
        '<button axag-intent="cart.keep" axag-action-type="write" axag-risk-level="low" axag-confirmation-required="true" axag-confirmation-message="Sure?">Keep</button>'
    ),
)


@DEPENDENT_ATTRIBUTE_WITHOUT_FLAG.check()
def dependent_attribute_without_flag(ctx: RuleCtx, act: Action) -> None:
    """approval count/roles or confirmation message without their flag set to true."""
    for attr, flag in _DEPENDENT:
        dv = act.v(attr)
        if not dv.declared:
            continue
        fv = act.v(flag)
        if fv.declared and not fv.ok:
            continue  # the flag is declared but invalid (one finding per problem)
        if fv.ok and fv.value is True:
            continue
        DEPENDENT_ATTRIBUTE_WITHOUT_FLAG.report(ctx, dv.name_span(), act.element, attr, attr=attr, flag=flag)


# ------------------------------------------------------------------------------------------------
# The model records what it observes as facts (`axag.model.facts`); the checks below judge them.

UNKNOWN_CONFIRMATION_PLACEHOLDER = Rule(
    code=129,
    name="unknown-confirmation-placeholder",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="§3.7",
    plain=("a {{placeholder}} in axag-confirmation-message that names no parameter of the action, or a "
           "{{ that does not start a well-formed placeholder"),
    messages={
        "default": 'Placeholder "{x}" does not name a parameter of "{intent}"',
        "malformed": "Malformed placeholder at column {c}",
        "unharvested": 'Placeholder "{x}" does not name a parameter of "{intent}"; {why}',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["qty"]\' axag-confirmation-required="true"\n'
        '        axag-confirmation-message="Add {{ count }} items?">Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["qty"]\' axag-confirmation-required="true"\n'
        '        axag-confirmation-message="Add {{{qty}}} items?">Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-required-parameters=\'["qty"]\' axag-confirmation-required="true"\n'
        '        axag-confirmation-message="Add {{qty}} items?">Add</button>'
    ),
)


# the facts the model records about the confirmation message's placeholders (`axag.model.actions`)
judge(UNKNOWN_CONFIRMATION_PLACEHOLDER, Kind.MALFORMED_PLACEHOLDER, msg="malformed")


@judges(UNKNOWN_CONFIRMATION_PLACEHOLDER, Kind.UNKNOWN_PLACEHOLDER)
def unknown_placeholder(ctx: RuleCtx, fact: Fact) -> None:
    """A placeholder naming no parameter; when a control of that name is left out, the message says why."""
    why = fact.args.get("_why")
    if why is None:
        emit(ctx, UNKNOWN_CONFIRMATION_PLACEHOLDER, fact)
    else:
        emit(ctx, UNKNOWN_CONFIRMATION_PLACEHOLDER, fact, msg="unharvested", why=why)
