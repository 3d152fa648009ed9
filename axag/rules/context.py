"""An action's context and contract (SPEC §6, §7, §9.2): inherited scope and tenant boundary, the intent's
entity, `axag-params-from`, preconditions and their operands, and the placeholders of the confirmation
message. The model resolves them (`axag.model.actions`) and records what does not fit as facts; these rules
judge them."""

from __future__ import annotations

from axag.model.facts import Fact, Kind
from axag.rules.base import RuleCtx
from axag.rules.catalogue import format_message
from axag.rules.facts import emit, judge, judges

judge(124, Kind.PRECONDITION_UNKNOWN_PARAMETER)
judge(129, Kind.MALFORMED_PLACEHOLDER, index=1)
judge(130, Kind.TENANT_BOUNDARY_RELAXED)
judge(135, Kind.UNPARSED_RELATION)
judge(136, Kind.OPERAND_MISMATCH)
judge(139, Kind.ENTITY_NOT_INTENT_PREFIX)
judge(140, Kind.PARAMS_FROM_NOT_FOUND)
judge(147, Kind.SCOPE_WIDER_THAN_ANCESTOR)


@judges(129, Kind.UNKNOWN_PLACEHOLDER)
def unknown_placeholder(ctx: RuleCtx, fact: Fact) -> None:
    """A placeholder naming no parameter; when a control of that name is left out, the message says why."""
    why = fact.args.get("_why")
    message = None
    if why is not None:
        message = f"{format_message(129, 0, x=fact.args['x'], intent=fact.args['intent'])}; {why}"
    emit(ctx, 129, fact, message=message)
