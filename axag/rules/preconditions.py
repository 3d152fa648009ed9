"""Relational-precondition rules (124, 135, 136).
"""

from __future__ import annotations

from axag.model.facts import Kind
from axag.outcome.findings import Fixable, Level, Severity
from axag.rules.declare import Rule
from axag.rules.facts import judge

# ------------------------------------------------------------------------------------------------
# The model records what it observes as facts (`axag.model.facts`); the checks below judge them.


UNKNOWN_PRECONDITION_PARAMETER = Rule(
    code=124,
    name="unknown-precondition-parameter",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="§7.3",
    plain=("a relational precondition (docs/preconditions.md) that names something that is not a "
           "parameter of the action, beside one that is"),
    messages={
        "default": 'Precondition "{text}" names "{x}", which is not a parameter of "{intent}"',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["check_in"]\'\n'
        '        axag-preconditions=\'["check_out is after check_in"]\'>Book</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low"\n'
        '        axag-required-parameters=\'[{"name": "check_in", "type": "string", "format": "date"}, {"name": "check_out", "type": "string", "format": "date"}]\'\n'
        '        axag-preconditions=\'["check_out is after check_in", "balance > 0"]\'>Book</button>'
    ),
)


UNPARSED_RELATIONAL_PRECONDITION = Rule(
    code=135,
    name="unparsed-relational-precondition",
    severity=Severity.WARNING,
    level=Level.FULL,
    fix=Fixable.SOMETIMES,
    fix_note="when a grammatical item says the same",
    trigger="§7.3",
    plain=("a precondition that mentions a parameter with a comparison word but does not follow the "
           "relational grammar (docs/preconditions.md): it is kept as a state precondition and nothing "
           "checks it"),
    messages={
        "default": ('Precondition "{text}" mentions parameters but is not in the relational grammar; it '
                    "is treated as a state precondition"),
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'["qty", "stock"]\'\n'
        '        axag-preconditions=\'["qty must be <= stock + 1"]\'>Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low"\n'
        '        axag-required-parameters=\'[{"name": "qty", "type": "integer"}, {"name": "stock", "type": "integer"}]\'\n'
        '        axag-preconditions=\'["qty <= stock", "cart must be open"]\'>Add</button>'
    ),
)


INCOMPATIBLE_RELATION_OPERANDS = Rule(
    code=136,
    name="incompatible-relation-operands",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="§7.3",
    plain=("a relational precondition that compares values that cannot be compared: a number with a "
           "date, a date with text, a literal of the wrong type"),
    messages={
        "default": 'Precondition "{text}": {a} ({ta}) and {b} ({tb}) cannot be compared',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "integer"}, {"name": "note"}]\'\n'
        '        axag-preconditions=\'["qty > note"]\'>Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-required-parameters=\'[{"name": "qty", "type": "integer"}, {"name": "max", "type": "number"}]\'\n'
        '        axag-preconditions=\'["qty <= max"]\'>Add</button>'
    ),
)


# ---------------------------------------------------------------------------------------------- checks
# the facts the model records while it reads the preconditions (`axag.model.actions`), judged here
judge(UNKNOWN_PRECONDITION_PARAMETER, Kind.PRECONDITION_UNKNOWN_PARAMETER)
judge(UNPARSED_RELATIONAL_PRECONDITION, Kind.UNPARSED_RELATION)
judge(INCOMPATIBLE_RELATION_OPERANDS, Kind.OPERAND_MISMATCH)
