"""Macro rules: the `axag` macro attribute (027, 028).
"""

from __future__ import annotations

from axag.model.facts import Kind
from axag.outcome.findings import Level, Severity
from axag.rules.declare import Rule
from axag.rules.facts import judge

# ------------------------------------------------------------------------------------------------
# The model records what it observes as facts (`axag.model.facts`); the checks below judge them.


INVALID_MACRO = Rule(
    code=27,
    name="invalid-macro",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="macro syntax error (§3.8), one per error",
    plain="the axag macro attribute cannot be read (one finding per syntax error); see docs/vocabulary.md",
    messages={
        "default": "Invalid axag macro at column {c}: {detail}",
    },
    primary_to={34: "element"},
    fails=(
        '<button axag="read-cart.view">Missing colon</button>\n'
        '<button axag="write:Cart.add">Bad intent</button>\n'
        '<button axag="write:cart.add!huge?color=red">Bad risk and key</button>\n'
        '<button axag=" ">Empty</button>'
    ),
    passes=(
        '<button axag="write:cart.add!low?confirm&idempotent=false&roles=admin,owner">Add</button>\n'
        '<button axag="read:cart.view?scope=user">View</button>'
    ),
)


MACRO_CONFLICT = Rule(
    code=28,
    name="macro-conflict",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="longhand differs from the macro",
    messages={
        "default": 'axag macro sets {attr}="{m}" but the element also has {attr}="{l}"; remove one',
    },
    fails=(
        '<button axag="write:cart.add!low" axag-risk-level="high">Add</button>\n'
        '<button axag="write:cart.drop?roles=a,b" axag-approval-roles=\'["a"]\'>Drop</button>'
    ),
    passes=(
        '<button axag="write:cart.add!low" axag-risk-level="low">Add</button>\n'
        '<button axag="write:cart.drop!low?roles=a,b" axag-approval-roles=\'[ "a", "b" ]\'>Drop</button>\n'
        '<button axag="write:cart.keep" axag-risk-level="low">Keep</button>'
    ),
)


# ---------------------------------------------------------------------------------------------- checks
# the facts the model records while it expands the shorthand (`axag.model.actions`), judged here
judge(INVALID_MACRO, Kind.MACRO_SYNTAX)
judge(MACRO_CONFLICT, Kind.MACRO_CONFLICT)
