"""What building the model observed, as data: a `Fact` says *what* was seen *where* (a kind, a span, the element
and attribute, the details, and the edit that would repair it). The model (and the engine, for suppression
comments) records facts and knows no rule codes: the rules under `axag/rules/` judge the facts and word the
findings (`axag.rules.facts`), and rule selection decides which of them run. This module imports nothing at run
time: the rule modules (loaded by every run, a cached one too) name the kinds they judge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, auto
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the rule modules import this one: a run served by the result cache needs no parser
    from axag.files.spans import Span
    from axag.outcome.findings import Fix
    from axag.parse.document import Element


class Kind(Enum):
    """The kinds of observation. Details (``Fact.args``) are named as the placeholders of the finding's message."""

    # attribute names and the annotation as written (model.actions)
    REPEATED_ATTRIBUTE = auto()  # attr, v: the first value
    ATTRIBUTE_CASE = auto()  # lower
    UNKNOWN_ATTRIBUTE = auto()  # name, s: a suggestion
    REMOVED_ATTRIBUTE = auto()  # attr
    SKIP_ATTRIBUTE = auto()
    LEGACY_CONSTRAINTS = auto()  # entries: the worded count M (N is set by rule 101's fix provider, lint.migrate)
    DAMAGED_JSON = auto()  # attr: a JSON value cut at a quote or space
    MACRO_SYNTAX = auto()  # c, detail
    MACRO_CONFLICT = auto()  # attr, m, l: the shorthand and the longhand differ
    # attribute values (model.values)
    LEGACY_ACTION_TYPE = auto()  # v
    NOT_IN_VOCABULARY = auto()  # v (+ p, s); ``Fact.vocabulary`` names the enum
    NOT_BOOLEAN = auto()  # attr, v
    UNEXPECTED_VALUE = auto()  # attr, v, expectation
    BAD_INTENT = auto()  # i
    BAD_ENTITY = auto()  # e
    BAD_TOOL_NAME = auto()  # name
    BAD_CONTROL_PARAMETER_NAME = auto()  # n, ctl, problem
    PARAMETER_LIST_SYNTAX = auto()  # attr, detail
    PARAMETER_LIST_NOT_ARRAY = auto()  # attr
    PARAMETER_LIST_ITEM = auto()  # attr, i
    JSON_SYNTAX = auto()  # attr, detail
    JSON_SHAPE = auto()  # attr, shape
    REPEATED_ITEM = auto()  # attr, item
    BAD_KEY_VALUE = auto()  # p, k, expectation
    BAD_APPROVAL_COUNT = auto()  # v
    BAD_PATTERN = auto()  # p, problem
    BAD_RATE = auto()  # v
    BAD_DURATION = auto()  # v
    BAD_SCHEMA_REF = auto()  # v
    # context and actions (model.actions)
    SCOPE_WIDER_THAN_ANCESTOR = auto()  # s, a, n
    TENANT_BOUNDARY_RELAXED = auto()  # n
    ENTITY_NOT_INTENT_PREFIX = auto()  # e, p
    PARAMS_FROM_NOT_FOUND = auto()  # v
    PRECONDITION_UNKNOWN_PARAMETER = auto()  # text, x, intent
    UNPARSED_RELATION = auto()  # text
    OPERAND_MISMATCH = auto()  # text, a, ta, b, tb
    UNKNOWN_PLACEHOLDER = auto()  # x, intent, _why: why the control of that name is no parameter
    MALFORMED_PLACEHOLDER = auto()  # c
    # parameters (model.params, model.declared, model.harvest)
    IN_BOTH_LISTS = auto()  # p
    REPEATED_PARAMETER = auto()  # p, q
    BAD_LIST_ITEM_NAME = auto()  # i, attr, problem
    BAD_PARAMETER_KEY = auto()  # p, k, s
    UNKNOWN_TYPE = auto()  # p, v
    UNKNOWN_FORMAT = auto()  # p, v, s
    INCOHERENT = auto()  # p, problem
    VALUE_OUTSIDE_SCHEMA = auto()  # p, key, value, keyword, limit
    TYPE_CONFLICT = auto()  # p, t1, t2
    UNUSED_CONTROL_ATTRIBUTE = auto()  # attr, reason
    CONTROL_NAMED_BY_ID = auto()  # ctl
    CONTROL_WITHOUT_NAME = auto()  # ctl, intent
    CONTROL_NAME_CONFLICT = auto()  # ctl, p, ctl2, n
    HARVESTED_WITHOUT_DESCRIPTION = auto()  # p
    HARVESTED_BAD_PATTERN = auto()  # p, problem
    # suppression comments (lint.suppress, read after the rules ran)
    BAD_DIRECTIVE = auto()  # problem
    UNUSED_SUPPRESSION = auto()  # code: the rule id it names
    # what a compile target cannot express (compile.targets: ``Rendered.kind`` of its problems)
    LOSSY_MAPPING = auto()  # intent, what: the manifest drops it
    STRICT_MODE_INCOMPATIBLE = auto()  # name, reason: OpenAI strict mode cannot take the tool


# Observations that leave the parameters usable (a note about a control, a harvested pattern left out, …): any
# other kind recorded for an action's parameters makes them unusable (`Action.params_ok`).
HARMLESS = frozenset({
    Kind.UNUSED_CONTROL_ATTRIBUTE, Kind.CONTROL_NAMED_BY_ID, Kind.CONTROL_WITHOUT_NAME,
    Kind.HARVESTED_WITHOUT_DESCRIPTION, Kind.HARVESTED_BAD_PATTERN, Kind.TYPE_CONFLICT,
})

# Observations about an `axag-parameter-*` value that make the control's parameter unusable.
VALUE_DEFECTS = frozenset({
    Kind.NOT_BOOLEAN, Kind.JSON_SYNTAX, Kind.JSON_SHAPE, Kind.UNEXPECTED_VALUE, Kind.NOT_IN_VOCABULARY,
    Kind.BAD_CONTROL_PARAMETER_NAME, Kind.BAD_LIST_ITEM_NAME, Kind.BAD_KEY_VALUE, Kind.INCOHERENT,
    Kind.VALUE_OUTSIDE_SCHEMA, Kind.BAD_PATTERN, Kind.HARVESTED_BAD_PATTERN, Kind.UNKNOWN_TYPE,
    Kind.UNKNOWN_FORMAT,
})


@dataclass(slots=True, eq=False)
class Fact:
    kind: Kind
    span: Span
    element: Element | None  # the element it is about (the action for parameter facts)
    attribute: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    fix: Fix | None = None  # the edit that repairs it, where one is certain
    help: str | None = None
    vocabulary: str | None = None  # NOT_IN_VOCABULARY: the enum of `axag.vocabulary` the value is not in
