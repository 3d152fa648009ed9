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
    """The kinds of observation. The comment of each names its details (``Fact.args``), in words: ``written`` is a
    value as written, ``parameter`` the name of the parameter it is about, ``suggestion`` the closest allowed value,
    ``position`` a 1-based place in a list, ``*_line`` the line of the other element involved. The rules word them
    with the placeholders of their messages (`axag.rules.facts.PLACEHOLDERS`)."""

    # attribute names and the annotation as written (model.actions)
    REPEATED_ATTRIBUTE = auto()  # attr, written: the first value
    ATTRIBUTE_CASE = auto()  # lower
    UNKNOWN_ATTRIBUTE = auto()  # name, suggestion: the closest attribute name
    REMOVED_ATTRIBUTE = auto()  # attr
    SKIP_ATTRIBUTE = auto()
    LEGACY_CONSTRAINTS = auto()  # entries: the worded count (rule 101's fix provider, lint.migrate, sets the
    # finding's counts)
    DAMAGED_JSON = auto()  # attr: a JSON value cut at a quote or space
    MACRO_SYNTAX = auto()  # column, detail
    MACRO_CONFLICT = auto()  # attr, shorthand, longhand: the shorthand and the longhand differ
    # attribute values (model.values)
    LEGACY_ACTION_TYPE = auto()  # written
    NOT_IN_VOCABULARY = auto()  # written (+ parameter, suggestion); ``Fact.vocabulary`` names the enum
    NOT_BOOLEAN = auto()  # attr, written
    UNEXPECTED_VALUE = auto()  # attr, written, expectation
    BAD_INTENT = auto()  # intent_value: the axag-intent as written
    BAD_ENTITY = auto()  # entity
    BAD_TOOL_NAME = auto()  # name
    BAD_CONTROL_PARAMETER_NAME = auto()  # parameter_name, control, problem
    PARAMETER_LIST_SYNTAX = auto()  # attr, detail
    PARAMETER_LIST_NOT_ARRAY = auto()  # attr
    PARAMETER_LIST_ITEM = auto()  # attr, position
    JSON_SYNTAX = auto()  # attr, detail
    JSON_SHAPE = auto()  # attr, shape
    REPEATED_ITEM = auto()  # attr, item
    BAD_KEY_VALUE = auto()  # parameter, parameter_key, expectation
    BAD_APPROVAL_COUNT = auto()  # written
    BAD_PATTERN = auto()  # parameter, problem
    BAD_RATE = auto()  # written
    BAD_DURATION = auto()  # written
    BAD_SCHEMA_REF = auto()  # written
    # context and actions (model.actions)
    SCOPE_WIDER_THAN_ANCESTOR = auto()  # scope, ancestor_scope, ancestor_line
    TENANT_BOUNDARY_RELAXED = auto()  # ancestor_line
    ENTITY_NOT_INTENT_PREFIX = auto()  # entity, prefix
    PARAMS_FROM_NOT_FOUND = auto()  # written
    PRECONDITION_UNKNOWN_PARAMETER = auto()  # text, unknown_name, intent
    UNPARSED_RELATION = auto()  # text
    OPERAND_MISMATCH = auto()  # text, left, left_type, right, right_type: the operands and their types
    UNKNOWN_PLACEHOLDER = auto()  # unknown_name, intent, _why: why the control of that name is no parameter
    MALFORMED_PLACEHOLDER = auto()  # column
    # parameters (model.param_spec, model.declared, model.harvest)
    IN_BOTH_LISTS = auto()  # parameter
    REPEATED_PARAMETER = auto()  # parameter, variant: the same name in another case or form
    BAD_LIST_ITEM_NAME = auto()  # position, attr, problem
    BAD_PARAMETER_KEY = auto()  # parameter, parameter_key, suggestion
    UNKNOWN_TYPE = auto()  # parameter, written
    UNKNOWN_FORMAT = auto()  # parameter, written, suggestion
    INCOHERENT = auto()  # parameter, problem
    VALUE_OUTSIDE_SCHEMA = auto()  # parameter, key, value, keyword, limit
    TYPE_CONFLICT = auto()  # parameter, declared_type, harvested_type
    UNUSED_CONTROL_ATTRIBUTE = auto()  # attr, reason
    CONTROL_NAMED_BY_ID = auto()  # control
    CONTROL_WITHOUT_NAME = auto()  # control, intent
    CONTROL_NAME_CONFLICT = auto()  # control, parameter, other_control, other_line
    HARVESTED_WITHOUT_DESCRIPTION = auto()  # parameter
    HARVESTED_BAD_PATTERN = auto()  # parameter, problem
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
