"""Run-wide checks over the contracts of every file: duplicate intents (121) and tool names (122)."""

from __future__ import annotations

from axag.lint.engine import Request, RunOutcomes
from axag.outcome.findings import Finding


def sitewide_findings(run: RunOutcomes, request: Request) -> list[Finding]:
    from axag.compile.merge import merge_contracts

    findings, _tools = merge_contracts(run, request, want_tools=False)
    # a run-wide finding is reported when its rule is selected for the file it is located in
    ran = {o.display: o.ran for o in run.outcomes}
    return [f for f in findings if f.code in ran.get(f.path, frozenset({f.code}))]
