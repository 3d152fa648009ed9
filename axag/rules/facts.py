"""Rules that judge what building the model observed (`axag.model.facts`).

A rule judges facts next to its declaration: ``@judges(RULE, Kind.X, …)`` on a function ``fn(ctx, fact)``, or
``judge(RULE, Kind.X, msg=…)`` for a rule that reports each fact of that kind as it is (with its message
``msg``; the fact's details are the message's arguments, under the placeholders of `PLACEHOLDERS`). `judge_facts` (run first by `axag.rules.base.run_rules`) walks the file's
facts once, in the order they were recorded, and calls the judges of the enabled rules only: a rule that is
not selected is not run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar

from axag.model.facts import Fact, Kind

if TYPE_CHECKING:
    from axag.files.spans import Span
    from axag.outcome.findings import Fix, Severity
    from axag.parse.document import Element


# The model names a fact's details in words (`axag.model.facts`); the rule messages name them with the short
# placeholders their templates show (`axag rule`, docs/rules.md), e.g. `{v}` for the value as written. Each detail
# whose placeholder is not its own name, by name; a detail not listed (``attr``, ``detail``, ``problem`` …) is
# passed under its own name.
PLACEHOLDERS: Final[dict[str, str]] = {
    "written": "v", "suggestion": "s", "parameter": "p", "parameter_key": "k", "parameter_name": "n",
    "position": "i", "intent_value": "i", "entity": "e", "prefix": "p", "column": "c",
    "shorthand": "m", "longhand": "l", "scope": "s", "ancestor_scope": "a", "ancestor_line": "n",
    "unknown_name": "x", "left": "a", "left_type": "ta", "right": "b", "right_type": "tb", "variant": "q",
    "declared_type": "t1", "harvested_type": "t2", "control": "ctl", "other_control": "ctl2", "other_line": "n",
}


def message_args(fact: Fact) -> dict[str, Any]:
    """The details of ``fact`` under the placeholders of the rule messages."""
    return {PLACEHOLDERS.get(name, name): value for name, value in fact.args.items()}


# The runner sees a rule and its context through these two small interfaces (`axag.rules.declare.Rule` and
# `axag.rules.base.RuleCtx` fit them), so that this module depends on neither.
class _Facts(Protocol):
    @property
    def facts(self) -> list[Fact]: ...


class JudgeCtx(Protocol):
    """What judging reads of the rule context: the enabled codes and the model's facts."""

    @property
    def enabled(self) -> frozenset[int]: ...

    @property
    def model(self) -> _Facts: ...


class Judged(Protocol):
    """A rule as the fact judges see it: its code, and how it reports a finding."""

    @property
    def code(self) -> int: ...

    def report(self, ctx: Any, span: Span, element: Element | None, attribute: str | None = None, /, *,
               msg: str = "", fix: Fix | None = None, help: str | None = None,
               severity: Severity | None = None, pair: str | None = None, **args: Any) -> None: ...


Judge = Callable[[Any, Fact], None]  # fn(ctx, fact), ctx the `RuleCtx` of the file
J = TypeVar("J", bound=Judge)

# rule code -> (kind, judge) in registration order
FACT_RULES: dict[int, list[tuple[Kind, Judge]]] = {}
# enabled codes -> kind -> the judges that run for it (the files of a run share one selection)
_TABLES: dict[frozenset[int], dict[Kind, tuple[Judge, ...]]] = {}


def judges(rule: Judged, *kinds: Kind) -> Callable[[J], J]:
    """Register ``fn`` as (part of) the check of ``rule``, over the facts of ``kinds``."""

    def register(fn: J) -> J:
        entries = FACT_RULES.setdefault(rule.code, [])
        for kind in kinds:
            if any(k is kind for k, _ in entries):
                raise RuntimeError(f"rule {rule.code} judges {kind.name} twice")
            entries.append((kind, fn))
        _TABLES.clear()
        return fn

    return register


def judge(rule: Judged, kind: Kind, *, msg: str = "", severity: Severity | None = None) -> None:
    """``rule`` reports every fact of ``kind`` with its message ``msg`` (the first by default)."""

    def report(ctx: JudgeCtx, fact: Fact) -> None:
        emit(ctx, rule, fact, msg=msg, severity=severity)

    judges(rule, kind)(report)


def emit(ctx: JudgeCtx, rule: Judged, fact: Fact, *, msg: str = "", severity: Severity | None = None,
         **more: Any) -> None:
    """Report ``fact`` as a finding of ``rule``: its details (and ``more``) are the message's arguments."""
    rule.report(ctx, fact.span, fact.element, fact.attribute, msg=msg, fix=fact.fix, help=fact.help,
                severity=severity, **message_args(fact), **more)


def _table(enabled: frozenset[int]) -> dict[Kind, tuple[Judge, ...]]:
    table = _TABLES.get(enabled)
    if table is None:
        grouped: dict[Kind, list[Judge]] = {}
        for code in sorted(FACT_RULES):
            if code in enabled:
                for kind, fn in FACT_RULES[code]:
                    grouped.setdefault(kind, []).append(fn)
        table = {kind: tuple(fns) for kind, fns in grouped.items()}
        if len(_TABLES) > 64:
            _TABLES.clear()
        _TABLES[enabled] = table
    return table


def judge_facts(ctx: JudgeCtx, facts: list[Fact] | None = None) -> None:
    """Run the judges of the enabled fact rules over ``facts`` (default: the model's), in the order they were
    recorded."""
    if facts is None:
        facts = ctx.model.facts
    if not facts:
        return
    table = _table(ctx.enabled)
    for fact in facts:
        fns = table.get(fact.kind)
        if fns is not None:
            for fn in fns:
                fn(ctx, fact)
