"""Value-syntax rules: enumerated values (004, 005, 107, 108), booleans (105), JSON (106), other attribute
values (109, 125-127), legacy action types (103), damaged and repeated values (134, 144), template values (033), JSX expressions in
a markup file (152).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from axag import vocabulary as V
from axag.model.facts import Fact, Kind
from axag.outcome.findings import Fixable, Level, Severity
from axag.rules.base import RuleCtx
from axag.rules.declare import Rule, or_list
from axag.rules.facts import emit, judge, judges

if TYPE_CHECKING:
    from axag.model.types import Annotated

# ------------------------------------------------------------------------------------------------
# The model records what it observes as facts (`axag.model.facts`) and the dynamic attributes of each element; the
# checks below judge them.


INVALID_ACTION_TYPE = Rule(
    code=4,
    name="invalid-action-type",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.SOMETIMES,
    fix_note="case/space",
    fix_plain="case and spaces; the closest allowed value with --unsafe-fixes",
    trigger="value not in enum (except `create`/`mutate` in any case)",
    messages={
        "default": 'Invalid axag-action-type="{v}". Must be one of: ' + ", ".join(V.ACTION_TYPES),
        "suggest": 'Invalid axag-action-type="{v}"; did you mean "{s}"? Must be one of: ' + ", ".join(V.ACTION_TYPES),
    },
    fails=(
        '<button axag-intent="cart.view" axag-action-type="update">View</button>\n'
        '<button axag-intent="cart.edit" axag-action-type=" Write">Edit</button>\n'
        '<button axag-intent="cart.list" axag-action-type="">List</button>'
    ),
    passes=(
        '<button axag-intent="cart.view" axag-action-type="read">View</button>\n'
        '<button axag-intent="cart.edit" axag-action-type="write" axag-risk-level="low">Edit</button>'
    ),
)


INVALID_RISK_LEVEL = Rule(
    code=5,
    name="invalid-risk-level",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.SOMETIMES,
    fix_note="case/space",
    fix_plain="case and spaces; the closest allowed value with --unsafe-fixes",
    trigger="value not in enum (empty included)",
    messages={
        "default": 'Invalid axag-risk-level="{v}". Must be one of: ' + ", ".join(V.RISK_LEVELS),
        "suggest": 'Invalid axag-risk-level="{v}"; did you mean "{s}"? Must be one of: ' + ", ".join(V.RISK_LEVELS),
    },
    fails=(
        '<button axag-intent="cart.view" axag-action-type="read" axag-risk-level="severe">View</button>\n'
        '<button axag-intent="cart.edit" axag-action-type="write" axag-risk-level="High">Edit</button>\n'
        '<button axag-intent="cart.list" axag-action-type="read" axag-risk-level="">List</button>'
    ),
    passes=(
        '<button axag-intent="cart.view" axag-action-type="read" axag-risk-level="none">View</button>\n'
        '<button axag-intent="cart.edit" axag-action-type="write" axag-risk-level="critical"\n'
        '        axag-confirmation-required="true">Edit</button>'
    ),
)


DYNAMIC_VALUE = Rule(
    code=33,
    name="dynamic-value",
    severity=Severity.INFO,
    level=Level.FULL,
    alt_severity=Severity.WARNING,
    compile=True,
    trigger=("element with dynamic annotation values (§3.9); W when the element is an action that "
             "compile leaves out, else I"),
    plain=("an annotation value written by the template engine ({{ … }}, {% … %}): it is only known when "
           "the page is rendered; a warning when compile has to leave the action out, else information"),
    messages={
        "default": ("<{tag}> has dynamic values in {attrs}; they cannot be checked or compiled at build "
                    "time[; compile leaves this action out]"),
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="{{ risk }}">Add</button>\n'
        '<div axag-scope="${scope}"><button axag-intent="cart.view" axag-action-type="read">View</button></div>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low"\n'
        '        axag-confirmation-required="true" axag-confirmation-message="Add {{ qty }} items?"\n'
        '        axag-required-parameters=\'["qty"]\'>Add</button>'
    ),
)


JSX_EXPRESSION_IN_MARKUP = Rule(
    code=152,
    name="jsx-expression-in-markup",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger=("an unquoted `{…}` annotation value in a file read as markup (.html, templates, .vue), where it is "
             "text, not a JSX expression"),
    plain=("axag-intent={intent} in a file that axag reads as HTML or a template: there the value is the text "
           "{intent}, not an expression; the element's values are treated as dynamic (one finding instead of "
           "one per value) and compile leaves the action out. A component belongs in a .jsx or .tsx file, "
           "which axag reads as one"),
    messages={
        "default": ('<{tag}> has JSX expressions in {attrs}, but this {ext} file is read as HTML, where "{v}" '
                    "is text; write the component in a .jsx or .tsx file to have it read as one"),
    },
    primary_to={33: "element"},
    fails=(
        "<button axag-intent={intent} axag-action-type={type} axag-risk-level={risk}>Go</button>\n"
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level={risk}>Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">Add</button>\n'
        '<button axag-intent="cart.view" axag-action-type="read" axag-risk-level="none" axag-description="{shown as written}">View</button>'
    ),
)


@JSX_EXPRESSION_IN_MARKUP.check("element")
def jsx_expression_in_markup(ctx: RuleCtx, ann: Annotated) -> None:
    """Unquoted ``{…}`` values in a markup file: one finding per element, at the first of them."""
    attrs = [a for a in ann.element.attrs if a.jsx]
    if not attrs:
        return
    ext = ctx.model.pf.src.path.suffix or "extension-less"
    JSX_EXPRESSION_IN_MARKUP.report(ctx, attrs[0].value_span, ann.element, attrs[0].name, tag=ann.element.tag,
                                    attrs=", ".join(dict.fromkeys(a.name for a in attrs)), ext=ext,
                                    v=attrs[0].value)


LEGACY_ACTION_TYPE = Rule(
    code=103,
    name="legacy-action-type",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.ALWAYS,
    trigger="action type `create`/`mutate` in any case (§3.4)",
    plain=("axag-action-type is " + or_list(V.LEGACY_ACTION_TYPES)
           + " (in any case), values of a 1.0 draft; AXAG 1.1 says write"),
    messages={
        "default": 'axag-action-type="{v}" is a 1.0 draft value; use "' + V.LEGACY_ACTION_TYPE_REPLACEMENT + '"',
    },
    primary_to={4: "attr"},
    fails=(
        '<button axag-intent="cart.add" axag-action-type="create">Add</button>\n'
        '<button axag-intent="cart.swap" axag-action-type="MUTATE">Swap</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">Add</button>\n'
        '<button axag="write:cart.make!low">Macro</button>'
    ),
)


INVALID_BOOLEAN = Rule(
    code=105,
    name="invalid-boolean",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.SOMETIMES,
    fix_note="§3.2",
    fix_plain="True, 1, yes, on and a valueless attribute become true; False, 0, no, off become false",
    trigger="boolean attribute not `true`/`false`",
    messages={
        "default": '{attr}="{v}" must be "true" or "false"',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-idempotent="yes">Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-async>Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-confirmation-required="">Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-idempotent="true" axag-async="false">Add</button>'
    ),
)


INVALID_JSON = Rule(
    code=106,
    name="invalid-json",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.SOMETIMES,
    fix_note="a string list written as plain text",
    trigger="JSON attribute (not a parameter list) invalid or wrong shape",
    messages={
        "default": "{attr} contains invalid JSON: {detail}",
        "shape": "{attr} must be {shape}",
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-side-effects=\'"emails"\'>Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-preconditions=\'["a", ""]\'>Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-approval-roles=\'["admin",]\'>Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-side-effects=\'["emails"]\' axag-preconditions=\'["cart is open"]\'>Add</button>'
    ),
)


INVALID_SCOPE = Rule(
    code=107,
    name="invalid-scope",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.SOMETIMES,
    fix_note="case/space",
    fix_plain="case and spaces; the closest allowed value with --unsafe-fixes",
    trigger="scope not in enum",
    messages={
        "default": 'Invalid axag-scope="{v}". Must be one of: ' + ", ".join(V.SCOPES),
        "suggest": 'Invalid axag-scope="{v}"; did you mean "{s}"? Must be one of: ' + ", ".join(V.SCOPES),
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-scope="team">Add</button>\n'
        '<div axag-scope="User"><button axag-intent="cart.add" axag-action-type="write">Add</button></div>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-scope="tenant">Add</button>'
    ),
)


INVALID_TENANT_BOUNDARY = Rule(
    code=108,
    name="invalid-tenant-boundary",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.SOMETIMES,
    fix_note="case/space",
    fix_plain="case and spaces; the closest allowed value with --unsafe-fixes",
    trigger="not `strict`/`relaxed`",
    messages={
        "default": 'Invalid axag-tenant-boundary="{v}". Must be ' + " or ".join(V.TENANT_BOUNDARIES),
        "suggest": 'Invalid axag-tenant-boundary="{v}"; did you mean "{s}"? Must be ' + " or ".join(V.TENANT_BOUNDARIES),
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-tenant-boundary="loose">Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-tenant-boundary="relaxed">Add</button>'
    ),
)


INVALID_ATTRIBUTE_VALUE = Rule(
    code=109,
    name="invalid-attribute-value",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="typed value without a dedicated rule (workflow, visibility, versioning, empty text)",
    messages={
        "default": '{attr}="{v}" must be {expectation}',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-description="  ">Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-workflow-id="-bad" axag-version="v1">Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-workflow-step="3" axag-workflow-total-steps="2">Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-description="Add to cart" axag-workflow-id="checkout" axag-workflow-step="1"\n'
        '        axag-workflow-total-steps="3" axag-version="1.2" axag-deprecated-replacement="cart.add_item">Add</button>'
    ),
)


INVALID_RATE_LIMIT = Rule(
    code=125,
    name="invalid-rate-limit",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.SOMETIMES,
    fix_note="§3.6",
    fix_plain="spaces, case, sec/min/hr and per (10 per minute -> 10/minute)",
    trigger="",
    plain=("an axag-rate-limit that is not COUNT/PERIOD (100/minute); the fix writes the usual spellings "
           "(100/h, 10 per minute) in that form"),
    messages={
        "default": 'axag-rate-limit="{v}" must be N/' + "|".join(V.PERIOD_SECONDS),
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-rate-limit="10 per minute">Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-rate-limit="0/hour">Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-rate-limit="100/h">Add</button>'
    ),
)


INVALID_COOLDOWN = Rule(
    code=126,
    name="invalid-cooldown",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.SOMETIMES,
    fix_note="§3.6",
    fix_plain="spaces, case and unit words (30 sec -> 30s)",
    trigger="",
    plain=("an axag-cooldown that is not a number with a unit " + or_list(V.COOLDOWN_MS)
           + " (30s); the fix writes the usual spellings (30 sec, 2 minutes) in that form"),
    messages={
        "default": 'axag-cooldown="{v}" must be a number followed by ' + or_list(V.COOLDOWN_MS),
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-cooldown="5 sec">Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-cooldown="0s">Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-cooldown="05s">Add</button>'
    ),
)


INVALID_APPROVAL_COUNT = Rule(
    code=127,
    name="invalid-approval-count",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="§3.7",
    plain="an axag-approval-count that is not a positive whole number",
    messages={
        "default": 'axag-approval-count="{v}" must be a positive integer',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-approval-required="true" axag-approval-roles=\'["a"]\' axag-approval-count="0">Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-approval-required="true" axag-approval-roles=\'["a"]\' axag-approval-count="2">Add</button>'
    ),
)


DAMAGED_ATTRIBUTE = Rule(
    code=134,
    name="damaged-attribute",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.ALWAYS,
    trigger="§14.4 (only when the rejoined value parses as JSON)",
    plain=("a JSON attribute value cut at a space or a quote (usually double quotes around JSON that "
           "contains double quotes), when the pieces joined back form valid JSON"),
    messages={
        "default": "{attr} was cut at a quote or space; write the JSON inside single quotes",
    },
    primary_to={9: "attr", 106: "attr"},
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters="["qty", "note"]">Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-required-parameters=\'["qty", "note"]\'>Add</button>'
    ),
)


DUPLICATE_LIST_ITEM = Rule(
    code=144,
    name="duplicate-list-item",
    severity=Severity.WARNING,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.ALWAYS,
    trigger="§3.3",
    plain=("the same item twice in a list attribute (side effects, roles, preconditions); the later copy "
           "is dropped"),
    messages={
        "default": '{attr} repeats "{item}"',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-side-effects=\'["email", "email"]\'>Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-approval-required="true" axag-approval-roles=\'["a", " a "]\'>Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-side-effects=\'["email", "sms"]\'>Add</button>'
    ),
)


# ---------------------------------------------------------------------------------------------- checks
# the facts the model records while it reads each value (`axag.model.values`), judged here
_VOCABULARY_RULES = {"action_type": INVALID_ACTION_TYPE, "risk_level": INVALID_RISK_LEVEL, "scope": INVALID_SCOPE,
                     "tenant_boundary": INVALID_TENANT_BOUNDARY}


def not_in_vocabulary(rule: Rule, vocabulary: str) -> None:
    """``rule`` reports the values that are not in the enum ``vocabulary`` of `axag.vocabulary`."""

    @judges(rule, Kind.NOT_IN_VOCABULARY)
    def check(ctx: RuleCtx, fact: Fact) -> None:
        if fact.vocabulary == vocabulary:
            emit(ctx, rule, fact, msg="suggest" if fact.args.get("suggestion") else "")


for _vocabulary, _rule in _VOCABULARY_RULES.items():
    not_in_vocabulary(_rule, _vocabulary)

judge(LEGACY_ACTION_TYPE, Kind.LEGACY_ACTION_TYPE)
judge(INVALID_BOOLEAN, Kind.NOT_BOOLEAN)
judge(INVALID_JSON, Kind.JSON_SYNTAX)
judge(INVALID_JSON, Kind.JSON_SHAPE, msg="shape")
judge(INVALID_ATTRIBUTE_VALUE, Kind.UNEXPECTED_VALUE)
judge(INVALID_RATE_LIMIT, Kind.BAD_RATE)
judge(INVALID_COOLDOWN, Kind.BAD_DURATION)
judge(INVALID_APPROVAL_COUNT, Kind.BAD_APPROVAL_COUNT)
judge(DAMAGED_ATTRIBUTE, Kind.DAMAGED_JSON)
judge(DUPLICATE_LIST_ITEM, Kind.REPEATED_ITEM)


@DYNAMIC_VALUE.check("file")
def dynamic_values(ctx: RuleCtx) -> None:
    """Attributes whose value a template computes: an info, or a warning when the action is left out (dynamic values)."""
    for ann in ctx.model.annotated:
        if not ann.dynamic_attrs:
            continue
        excluded = ann.action is not None and ann.action.dynamic
        attrs = ", ".join(dict.fromkeys(ann.dynamic_attrs))
        DYNAMIC_VALUE.report(ctx, ann.element.tag_span, ann.element, None, tag=ann.element.tag, attrs=attrs,
                             opt=excluded, severity=Severity.WARNING if excluded else Severity.INFO)
