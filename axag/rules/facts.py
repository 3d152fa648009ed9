"""Rules that judge what building the model observed (`axag.model.facts`).

A fact rule names the rule code it reports and the kinds of fact it judges: ``@judges(code, Kind.X, …)`` on a
function ``fn(ctx, fact)``, or ``judge(code, Kind.X, index=…)`` for a rule that reports each fact of that kind
as it is (message template ``index``). `judge_facts` (run first by `axag.rules.base.run_rules`) walks the file's
facts once, in the order they were recorded, and calls the judges of the enabled rules only: a rule that is
not selected is not run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from axag.findings import Severity
from axag.model.facts import Fact, Kind
from axag.rules.problem import Problem

if TYPE_CHECKING:
    from axag.rules.base import RuleCtx

Judge = Callable[["RuleCtx", Fact], None]

# rule code -> (kind, judge) in registration order
FACT_RULES: dict[int, list[tuple[Kind, Judge]]] = {}
# enabled codes -> kind -> the judges that run for it (the files of a run share one selection)
_TABLES: dict[frozenset[int], dict[Kind, tuple[Judge, ...]]] = {}


def judges(code: int, *kinds: Kind) -> Callable[[Judge], Judge]:
    """Register ``fn`` as (part of) the check of rule ``code``, over the facts of ``kinds``."""

    def register(fn: Judge) -> Judge:
        entries = FACT_RULES.setdefault(code, [])
        for kind in kinds:
            if any(k is kind for k, _ in entries):
                raise RuntimeError(f"rule {code} judges {kind.name} twice")
            entries.append((kind, fn))
        _TABLES.clear()
        return fn

    return register


def judge(code: int, kind: Kind, *, index: int = 0, severity: Severity | None = None) -> None:
    """Rule ``code`` reports every fact of ``kind`` with its message template ``index``."""

    def report(ctx: RuleCtx, fact: Fact) -> None:
        emit(ctx, code, fact, index, severity)

    judges(code, kind)(report)


def emit(ctx: RuleCtx, code: int, fact: Fact, index: int = 0, severity: Severity | None = None,
         message: str | None = None) -> None:
    """Report ``fact`` as a problem of rule ``code`` (its details are the message's arguments)."""
    ctx.problems.append(Problem(code, fact.span, fact.args, fact.element, fact.attribute, fact.fix, fact.help,
                                index, severity, message))


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


def judge_facts(ctx: RuleCtx, facts: list[Fact] | None = None) -> None:
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
