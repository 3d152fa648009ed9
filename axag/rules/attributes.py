"""Attribute-vocabulary rules: unknown, legacy, removed and skip attributes (100-104), attribute-name case and
repetition (131, 132).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from axag import vocabulary as V
from axag.facts import Fact, Kind
from axag.findings import Fixable, Level, Severity
from axag.rules.base import RuleCtx
from axag.rules.declare import Rule
from axag.rules.facts import emit, judge, judges
from axag.rules.problem import Problem

if TYPE_CHECKING:
    from axag.parse.document import Element
    from axag.spans import Span

# ------------------------------------------------------------------------------------------------
# The model records what it observes as facts (`axag.facts`); the checks below judge them.


UNKNOWN_ATTRIBUTE = Rule(
    code=100,
    name="unknown-attribute",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="§2.1, §2.5",
    plain=("an axag-* attribute that is not in the AXAG 1.1 vocabulary (docs/vocabulary.md lists it); a "
           "close name is suggested"),
    messages={
        "default": 'Unknown attribute "{name}"[; did you mean "{s}"?]',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk="high">Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-foo-bar="1" axag-x-acme-team="cart">Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="high" axag-x-acme-team="cart">Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-constraints=\'{}\'>Legacy (101)</button>'
    ),
)


LEGACY_CONSTRAINTS = Rule(
    code=101,
    name="legacy-constraints",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.SOMETIMES,
    fix_note="partial §8",
    fix_plain="the entries with an AXAG 1.1 equivalent move to parameters and preconditions",
    trigger="`axag-constraints` present",
    messages={
        "default": "axag-constraints is not part of AXAG 1.1; {n} of {entries} can be migrated with --fix",
    },
    primary_to={100: "attr"},
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "integer"}]\' axag-constraints=\'{"qty": {"min": 1}}\'>Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-constraints=\'{"rule": "be nice"}\'>Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-required-parameters=\'[{"name": "qty", "type": "integer", "min": 1}]\'>Add</button>'
    ),
)


REMOVED_ATTRIBUTE = Rule(
    code=102,
    name="removed-attribute",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="`axag-tenant-context`, `axag-cross-tenant`",
    messages={
        "default": "{attr} was removed in AXAG 1.1; use axag-tenant-boundary",
    },
    primary_to={100: "attr"},
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-tenant-context="org">Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" AXAG-CROSS-TENANT="true">Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-tenant-boundary="strict">Add</button>'
    ),
)


SKIP_ATTRIBUTE = Rule(
    code=104,
    name="skip-attribute",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="`axag-skip`",
    messages={
        "default": "axag-skip has no effect; use <!-- axag-disable-next-line CODE -- reason -->",
    },
    primary_to={100: "attr"},
    fails='<button axag-intent="cart.add" axag-action-type="write" axag-skip="true">Add</button>',
    passes=(
        "<!-- axag-disable-next-line AXAG-LINT-007 -- reviewed -->\n"
        '<button axag-intent="cart.add" axag-action-type="write">Add</button>'
    ),
)


NON_LOWERCASE_ATTRIBUTE = Rule(
    code=131,
    name="non-lowercase-attribute",
    severity=Severity.WARNING,
    level=Level.BASIC,
    fix=Fixable.ALWAYS,
    trigger="§2.1",
    plain="an axag attribute name written with capital letters",
    messages={
        "default": 'Write "{lower}" in lower case',
    },
    fails='<button AXAG-INTENT="cart.add" axag-Action-Type="write">Add</button>',
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write">Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" AXAG-RISK-LEVEL="low">Repeat (132)</button>'
    ),
)


DUPLICATE_ATTRIBUTE = Rule(
    code=132,
    name="duplicate-attribute",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    fix=Fixable.SOMETIMES,
    fix_note="identical values",
    trigger="§2.1",
    plain="the same axag attribute twice on one element; the first value is used",
    messages={
        "default": '{attr} is repeated; the first value ("{v}") is used',
    },
    primary_to={131: "span"},
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-risk-level="high">Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-idempotent="true" AXAG-IDEMPOTENT="true">Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">Add</button>'
    ),
)


# ---------------------------------------------------------------------------------------------- checks
# the facts the model records while it reads each element's attributes (`axag.model.actions`), judged here
judge(UNKNOWN_ATTRIBUTE, Kind.UNKNOWN_ATTRIBUTE)
judge(REMOVED_ATTRIBUTE, Kind.REMOVED_ATTRIBUTE)
judge(SKIP_ATTRIBUTE, Kind.SKIP_ATTRIBUTE)
judge(NON_LOWERCASE_ATTRIBUTE, Kind.ATTRIBUTE_CASE)
judge(DUPLICATE_ATTRIBUTE, Kind.REPEATED_ATTRIBUTE)


@judges(LEGACY_CONSTRAINTS, Kind.LEGACY_CONSTRAINTS)
def legacy_constraints(ctx: RuleCtx, fact: Fact) -> None:
    """The attribute and its M entries: N is 0 until its fix provider (`axag.lint.migrate.provide`, run by the
    engine after the rules) sets the number of entries its verified fix migrates."""
    emit(ctx, LEGACY_CONSTRAINTS, fact, n=0)


def manual_migration(span: Span, element: Element, entry: str, reason: str) -> Problem:
    """Rule 101's problem for an `axag-constraints` entry its fix provider (`axag.lint.migrate`) leaves for a
    person, at the entry's key, saying why."""
    return Problem(LEGACY_CONSTRAINTS.code, span, {"entry": entry}, element, V.LEGACY_CONSTRAINTS,
                   message=f'axag-constraints entry "{entry}": manual migration needed: {reason}')
