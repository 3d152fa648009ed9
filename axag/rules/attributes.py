"""Attribute-vocabulary rules: unknown, legacy, removed and skip attributes (100-104), attribute-name case and
repetition (131, 132), a comment inside a start tag that cuts the annotations off (153).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from axag import vocabulary as V
from axag.model.facts import Fact, Kind
from axag.outcome.findings import Fixable, Level, Severity
from axag.rules.base import RuleCtx
from axag.rules.declare import Rule
from axag.rules.facts import emit, judge, judges
from axag.rules.problem import Problem

if TYPE_CHECKING:
    from axag.files.spans import Span
    from axag.parse.document import Element

# ------------------------------------------------------------------------------------------------
# The model records what it observes as facts (`axag.model.facts`); the checks below judge them.


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
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="high" axag-x-acme-team="cart">Add</button>'
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
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-required-parameters=\'[{"name": "qty", "type": "integer", "min": 1}]\'>Add</button>'
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
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-tenant-boundary="strict">Add</button>'
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
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">Add</button>'
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
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">Add</button>'
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


# a start tag with "<!--" among its attributes (a candidate: the tokenizer decides)
_COMMENT_IN_TAG = re.compile(r"<[A-Za-z][^\s/>]*\s[^<>]*<!--")

COMMENT_IN_START_TAG = Rule(
    code=153,
    name="comment-in-start-tag",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="an HTML comment inside a start tag, followed by annotation attributes",
    plain=("<button <!-- note --> axag-intent=…>: a comment cannot stand inside a start tag; HTML reads "
           "\"<!--\" as an attribute name and ends the tag at the \">\" of \"-->\", so the annotations after it are "
           "text on the page and the element has none; move the comment before the tag"),
    messages={
        "default": ('The comment inside <{tag}> ends its start tag at "-->": {attrs} after it are text, not '
                    "attributes; move the comment out of the tag"),
    },
    primary_to={1: "element"},
    fails=(
        '<button <!-- primary --> axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="high">Clear</button>\n'
        '<a href="/x" <!-- nav --> axag="navigate:cart.open">Open</a>'
    ),
    passes=(
        "<!-- primary -->\n"
        '<button axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="high">Clear</button>\n'
        '<span <!-- a note --> class="plain">No annotation after the comment</span>'
    ),
)


@COMMENT_IN_START_TAG.check("file")
def comment_in_start_tag(ctx: RuleCtx) -> None:
    """A start tag whose attributes hold ``<!--`` and whose text after the comment's ``-->`` up to the next ``>``
    holds annotation attributes; reported at the comment."""
    from axag.parse.tokenizer import scan_tag  # (the rules are declared without the parser)

    pf = ctx.model.pf
    text = pf.text
    if "<!--" not in text:
        return
    for m in _COMMENT_IN_TAG.finditer(text):
        tag = scan_tag(text, m.start())
        opener = next((a for a in tag.attrs if a.written.startswith("<!--")), None) if tag is not None else None
        if tag is None or opener is None:
            continue
        close = text.find("-->", opener.name_start, tag.end)
        if close < 0:
            continue
        rest = text[close + 3:text.find(">", close + 3) if text.find(">", close + 3) >= 0 else len(text)]
        lost = list(dict.fromkeys(re.findall(r"(?<![\w-])(axag(?:-[a-z0-9-]+)?)\s*=", rest.lower())))
        if not lost:
            continue
        element = next((e for e in _elements_at(pf, tag.start)), None)
        from axag.files.spans import Span

        COMMENT_IN_START_TAG.report(ctx, Span(opener.name_start, close + 3), element, None, tag=tag.tag,
                                    attrs=", ".join(lost))


def _elements_at(pf: object, start: int) -> list[Element]:
    """The element whose start tag begins at ``start`` (located through lxml), if any."""
    root = getattr(pf, "root", None)
    if root is None:
        return []
    for el in root.iter():
        if not isinstance(el.tag, str) or el.get("<!--") is None:
            continue
        element = pf.element_of(el)  # type: ignore[attr-defined]
        if element.start == start:
            return [element]
    return []
