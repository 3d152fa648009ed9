"""Value syntax (SPEC §3): attribute values that are not of their kind — vocabularies, booleans, texts, JSON,
names, numbers, patterns, rates and durations. The model reads every value once (`axag.model.values`) and
records what is wrong as a fact; these rules judge those facts. Parameter keys read from the JSON of the
parameter lists (`axag.model.params`) are judged here too: they share the rules of the attributes."""

from __future__ import annotations

from axag import vocabulary as V
from axag.model.facts import Fact, Kind
from axag.rules.base import RuleCtx
from axag.rules.catalogue import format_message
from axag.rules.facts import emit, judge, judges

# the rule of a value that is not in its vocabulary (the enums of `axag.vocabulary`)
VOCABULARY_RULES = {
    "action_type": 4, "risk_level": 5, "scope": 107, "tenant_boundary": 108,
    "parameter_type": 111, "parameter_format": 112,
}


def _vocabulary_rule(vocabulary: str, code: int) -> None:
    @judges(code, Kind.NOT_IN_VOCABULARY)
    def not_in_vocabulary(ctx: RuleCtx, fact: Fact) -> None:
        if fact.vocabulary == vocabulary:
            emit(ctx, code, fact)


for _vocabulary, _code in VOCABULARY_RULES.items():
    _vocabulary_rule(_vocabulary, _code)

judge(9, Kind.PARAMETER_LIST_SYNTAX, index=0)
judge(9, Kind.PARAMETER_LIST_NOT_ARRAY, index=1)
judge(9, Kind.PARAMETER_LIST_ITEM, index=2)
judge(34, Kind.BAD_INTENT)
judge(35, Kind.BAD_ENTITY)
judge(103, Kind.LEGACY_ACTION_TYPE)
judge(105, Kind.NOT_BOOLEAN)
judge(106, Kind.JSON_SYNTAX, index=0)
judge(106, Kind.JSON_SHAPE, index=1)
judge(109, Kind.UNEXPECTED_VALUE)
judge(111, Kind.UNKNOWN_TYPE)
judge(113, Kind.BAD_LIST_ITEM_NAME, index=0)
judge(113, Kind.BAD_CONTROL_PARAMETER_NAME, index=1)
judge(114, Kind.BAD_KEY_VALUE)
judge(117, Kind.BAD_PATTERN)
judge(123, Kind.BAD_TOOL_NAME)
judge(125, Kind.BAD_RATE)
judge(126, Kind.BAD_DURATION)
judge(127, Kind.BAD_APPROVAL_COUNT)
judge(141, Kind.BAD_SCHEMA_REF)
judge(144, Kind.REPEATED_ITEM)


@judges(112, Kind.UNKNOWN_FORMAT)
def unknown_format(ctx: RuleCtx, fact: Fact) -> None:
    """A format keyword outside the vocabulary; a phone number is told to use a pattern."""
    value = fact.args["v"]
    message = None
    if value.strip().lower() in V.PHONE_WORDS:
        message = format_message(112, p=fact.args["p"], v=value) + '; phone numbers have no format, use a "pattern"'
    emit(ctx, 112, fact, message=message)


@judges(117, Kind.HARVESTED_BAD_PATTERN)
def harvested_pattern(ctx: RuleCtx, fact: Fact) -> None:
    """A control's pattern outside the §4.7 subset is left out of the schema: a warning, not an error."""
    from axag.findings import Severity

    emit(ctx, 117, fact, severity=Severity.WARNING)
