"""Parameter rules: the declared parameter lists and parameter specs (008, 009, 110-118, 120, 142).
"""

from __future__ import annotations

from axag import vocabulary as V
from axag.model.facts import Fact, Kind
from axag.outcome.findings import Fixable, Level, Severity
from axag.rules.base import RuleCtx
from axag.rules.declare import Rule
from axag.rules.facts import emit, judge, judges

# ------------------------------------------------------------------------------------------------
# The model records what it observes as facts (`axag.model.facts`); the checks below judge them.


PARAMETER_IN_BOTH_LISTS = Rule(
    code=8,
    name="parameter-in-both-lists",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="same name in both lists",
    messages={
        "default": 'Parameter "{p}" is both required and optional',
    },
    primary_to={118: "key"},
    fails=(
        '<button axag-intent="room.book" axag-action-type="write"\n'
        '        axag-required-parameters=\'["room_id", "nights"]\'\n'
        '        axag-optional-parameters=\'["nights", {"name": "note"}]\'>Book</button>\n'
        '<button axag-intent="room.hold" axag-action-type="write"\n'
        '        axag-required-parameters=\'[{"name": "room_id"}]\'\n'
        '        axag-optional-parameters=\'[{"name": "room_id"}]\'>Hold</button>'
    ),
    passes=(
        '<button axag-intent="room.book" axag-action-type="write" axag-risk-level="low"\n'
        '        axag-required-parameters=\'["room_id"]\' axag-optional-parameters=\'["nights"]\'>Book</button>'
    ),
)


INVALID_PARAMETER_LIST = Rule(
    code=9,
    name="invalid-parameter-list",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="parameter list not valid JSON, not an array, or an item neither string nor object",
    messages={
        "default": "{attr} contains invalid JSON: {detail}",
        "not_array": "{attr} must be a JSON array",
        "bad_item": "{attr} item {i} must be a name or an object",
    },
    fails=(
        '<button axag-intent="room.book" axag-action-type="write"\n'
        '        axag-required-parameters=\'["room_id",]\'>Book</button>\n'
        '<button axag-intent="room.hold" axag-action-type="write" axag-optional-parameters=\'{"name": "x"}\'>Hold</button>\n'
        '<button axag-intent="room.free" axag-action-type="write" axag-required-parameters=\'["a", 42]\'>Free</button>'
    ),
    passes=(
        '<button axag-intent="room.book" axag-action-type="write" axag-risk-level="low"\n'
        '        axag-required-parameters=\'["room_id", {"name": "nights", "type": "integer"}]\'>Book</button>\n'
        '<button axag-intent="room.list" axag-action-type="read" axag-optional-parameters=\'[]\'>List</button>'
    ),
)


UNKNOWN_PARAMETER_KEY = Rule(
    code=110,
    name="unknown-parameter-key",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.SOMETIMES,
    fix_note="§4.4",
    fix_plain=("minimum, maximum, min_length … are renamed to min, max, minLength …; a required key "
               "moves the parameter to the right list"),
    trigger="unknown key in a parameter or fragment",
    messages={
        "default": 'Parameter "{p}": unknown key "{k}"[; did you mean "{s}"?]',
    },
    primary_to={114: "key", 115: "key", 116: "key", 117: "key"},
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "minimum": 1}]\'>Add</button>\n'
        '<form axag-intent="cart.add" axag-action-type="write">\n'
        '  <input name="qty" axag-parameter-items=\'{"kind": "string"}\'>\n'
        "</form>"
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-required-parameters=\'[{"name": "qty", "type": "integer", "min": 1}]\'>Add</button>'
    ),
)


INVALID_PARAMETER_TYPE = Rule(
    code=111,
    name="invalid-parameter-type",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.SOMETIMES,
    fix_note="§4.5",
    fix_plain="date, datetime, int, float, bool, str and case variants become the AXAG type (and format)",
    trigger="type not in enum",
    messages={
        "default": 'Parameter "{p}": type "{v}" must be one of ' + ", ".join(V.PARAMETER_TYPES),
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "int"}]\'>Add</button>\n'
        '<form axag-intent="cart.add" axag-action-type="write"><input name="qty" axag-parameter-type="float"></form>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-required-parameters=\'[{"name": "qty", "type": "integer"}]\'>Add</button>'
    ),
)


INVALID_PARAMETER_FORMAT = Rule(
    code=112,
    name="invalid-parameter-format",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.SOMETIMES,
    fix_note="§4.5",
    fix_plain="case and _ variants of a known format",
    trigger="format not in enum",
    messages={
        "default": 'Parameter "{p}": unknown format "{v}"[; did you mean "{s}"?]',
        "phone": 'Parameter "{p}": unknown format "{v}"; phone numbers have no format, use a "pattern"',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "mail", "format": "e-mail"}]\'>Add</button>\n'
        '<form axag-intent="cart.add" axag-action-type="write"><input name="phone" axag-parameter-format="phone"></form>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-required-parameters=\'[{"name": "mail", "format": "email"}, {"name": "u", "format": "url"}]\'>Add</button>'
    ),
)


INVALID_PARAMETER_NAME = Rule(
    code=113,
    name="invalid-parameter-name",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger=("parameter-list name or `axag-parameter` value missing, not a string, not a PARAM_NAME, or "
             "reserved; a harvested name longer than 64 characters (§5.3)"),
    plain=("a parameter name that is missing, not a string, not a valid name (a letter or _, then "
           "letters, digits or _, at most 64 characters) or reserved (_axag…); or a harvested "
           "form-control name longer than 64 characters after conversion to snake_case"),
    messages={
        "default": "Parameter {i} of {attr}: name {problem}",
        "control": 'Parameter name "{n}" of <{ctl}> {problem}',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["2fa", {"type": "string"}, "_axag_x"]\'>Add</button>\n'
        '<form axag-intent="cart.add" axag-action-type="write"><input name="aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"></form>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-required-parameters=\'["qty", {"name": "note"}]\'>Add</button>\n'
        '<form axag-intent="cart.rename" axag-action-type="write" axag-risk-level="low"><input name="display-name"></form>'
    ),
)


INVALID_PARAMETER_KEY_VALUE = Rule(
    code=114,
    name="invalid-parameter-key-value",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.SOMETIMES,
    fix_note="numeric strings",
    trigger="key value of the wrong JSON type",
    messages={
        "default": 'Parameter "{p}": "{k}" must be {expectation}',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "min": "one"}]\'>Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-required-parameters=\'[{"name": "qty", "type": "integer", "min": 1, "description": "How many"}]\'>Add</button>'
    ),
)


INCOHERENT_PARAMETER = Rule(
    code=115,
    name="incoherent-parameter",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="§4.6",
    plain=("a parameter whose keys contradict each other or its type: a keyword for another type "
           "(minLength on a number), min above max, an empty range, enum or const values of the wrong "
           "type, repeated enum values, a nested required name without a property, nesting deeper than "
           "10 levels"),
    messages={
        "default": 'Parameter "{p}": {problem}',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "string", "min": 1}]\'>Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-required-parameters=\'[{"name": "qty", "type": "integer", "min": 1}]\'>Add</button>'
    ),
)


PARAMETER_VALUE_VIOLATES_CONSTRAINTS = Rule(
    code=116,
    name="parameter-value-violates-constraints",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="§4.6",
    plain="a default, const or example value of a parameter that breaks the parameter's own constraints",
    messages={
        "default": 'Parameter "{p}": {key} {value} violates {keyword} {limit}',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "integer", "min": 5, "default": 2}]\'>Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-required-parameters=\'[{"name": "qty", "type": "integer", "min": 5, "default": 6}]\'>Add</button>'
    ),
)


INVALID_PATTERN = Rule(
    code=117,
    name="invalid-pattern",
    severity=Severity.ERROR,
    level=Level.BASIC,
    alt_severity=Severity.WARNING,
    compile=True,
    trigger="§4.7; W for a harvested HTML `pattern`, which is then ignored",
    plain=("a pattern that is not a valid regular expression, or one that Python and JavaScript would "
           "read differently; a warning for the HTML pattern attribute of a form control, which is then "
           "ignored"),
    messages={
        "default": 'Parameter "{p}": pattern {problem}',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "code", "pattern": "(?<=a)b"}]\'>Add</button>\n'
        '<form axag-intent="cart.add" axag-action-type="write"><input name="zip" pattern="(a+)+$"></form>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-required-parameters=\'[{"name": "code", "pattern": "^[A-Z]{3}$"}]\'>Add</button>'
    ),
)


DUPLICATE_PARAMETER = Rule(
    code=118,
    name="duplicate-parameter",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="§4.8",
    plain=("a parameter declared twice: the same name twice in one list, or two names that are equal in "
           "snake_case (userId and user_id)"),
    messages={
        "default": 'Parameter "{p}" is declared twice[ (as "{q}")]',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["qty", "qty"]\'>Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["userName"]\' axag-optional-parameters=\'["user_name"]\'>Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-required-parameters=\'["qty"]\' axag-optional-parameters=\'["note"]\'>Add</button>'
    ),
)


ORPHAN_PARAMETER_ATTRIBUTE = Rule(
    code=120,
    name="orphan-parameter-attribute",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    trigger=("`axag-parameter*` on an excluded control, outside every scope, or overriding differently "
             "within a group"),
    messages={
        "default": "{attr} has no effect here: {reason}",
    },
    fails=(
        '<form axag-intent="cart.add" axag-action-type="write">\n'
        '  <input type="hidden" name="csrf" axag-parameter-description="token">\n'
        "</form>\n"
        '<input name="stray" axag-parameter-type="string">'
    ),
    passes=(
        '<form axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">\n'
        '  <input name="qty" axag-parameter-type="integer" axag-parameter-description="How many">\n'
        "</form>"
    ),
)


DECLARED_HARVESTED_TYPE_MISMATCH = Rule(
    code=142,
    name="declared-harvested-type-mismatch",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    compile=True,
    trigger="§5.8",
    plain=("a declared parameter type that differs from the type the form control gives (declared "
           'integer, <input type="email">); the declared type is kept'),
    messages={
        "default": 'Parameter "{p}" is declared as {t1} but the form control gives {t2}',
    },
    fails=(
        '<form axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "string"}]\'>\n'
        '  <input name="qty" type="number">\n'
        "</form>"
    ),
    passes=(
        '<form axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-required-parameters=\'[{"name": "qty", "type": "number"}]\'>\n'
        '  <input name="qty" type="number">\n'
        "</form>"
    ),
)


# ---------------------------------------------------------------------------------------------- checks
# the facts the model records while it reads and merges the parameters (`axag.model.declared`, `spec_read`,
# `spec_checks`, `harvest`), judged here
judge(PARAMETER_IN_BOTH_LISTS, Kind.IN_BOTH_LISTS)
judge(INVALID_PARAMETER_LIST, Kind.PARAMETER_LIST_SYNTAX)
judge(INVALID_PARAMETER_LIST, Kind.PARAMETER_LIST_NOT_ARRAY, msg="not_array")
judge(INVALID_PARAMETER_LIST, Kind.PARAMETER_LIST_ITEM, msg="bad_item")
judge(UNKNOWN_PARAMETER_KEY, Kind.BAD_PARAMETER_KEY)
judge(INVALID_PARAMETER_TYPE, Kind.UNKNOWN_TYPE)
judge(INVALID_PARAMETER_NAME, Kind.BAD_LIST_ITEM_NAME)
judge(INVALID_PARAMETER_NAME, Kind.BAD_CONTROL_PARAMETER_NAME, msg="control")
judge(INVALID_PARAMETER_KEY_VALUE, Kind.BAD_KEY_VALUE)
judge(INCOHERENT_PARAMETER, Kind.INCOHERENT)
judge(PARAMETER_VALUE_VIOLATES_CONSTRAINTS, Kind.VALUE_OUTSIDE_SCHEMA)
judge(INVALID_PATTERN, Kind.BAD_PATTERN)
# a control's pattern outside the pattern subset is left out of the schema: a warning, not an error
judge(INVALID_PATTERN, Kind.HARVESTED_BAD_PATTERN, severity=Severity.WARNING)
judge(DUPLICATE_PARAMETER, Kind.REPEATED_PARAMETER)
judge(ORPHAN_PARAMETER_ATTRIBUTE, Kind.UNUSED_CONTROL_ATTRIBUTE)
judge(DECLARED_HARVESTED_TYPE_MISMATCH, Kind.TYPE_CONFLICT)


@judges(INVALID_PARAMETER_TYPE, Kind.NOT_IN_VOCABULARY)
def parameter_type_attribute(ctx: RuleCtx, fact: Fact) -> None:
    """axag-parameter-type outside the parameter types."""
    if fact.vocabulary == "parameter_type":
        emit(ctx, INVALID_PARAMETER_TYPE, fact)


@judges(INVALID_PARAMETER_FORMAT, Kind.NOT_IN_VOCABULARY, Kind.UNKNOWN_FORMAT)
def unknown_format(ctx: RuleCtx, fact: Fact) -> None:
    """A format outside the vocabulary (axag-parameter-format or a "format" key); a phone number is told to use a
    pattern."""
    if fact.kind is Kind.NOT_IN_VOCABULARY:
        if fact.vocabulary == "parameter_format":
            emit(ctx, INVALID_PARAMETER_FORMAT, fact)
        return
    phone = fact.args["written"].strip().lower() in V.PHONE_WORDS
    emit(ctx, INVALID_PARAMETER_FORMAT, fact, msg="phone" if phone else "")
