"""Remembered approvals in the generated guards: a remembered ("approve these values") approval belongs to the actor who
asked, holds only the approvers who approved the values, and ends after `remember_seconds` (24 hours by default),
identically in Python and TypeScript (the same scenarios through both runtimes)."""

from __future__ import annotations

from typing import Any

from tests.guards.test_typescript import ACC, ACC_ARGS, both, suite_build  # noqa: F401 - fixtures

DAY = 86400


def scenarios() -> list[dict[str, Any]]:
    def ctx(actor: str | None = "alice", **kw: Any) -> dict[str, Any]:
        return {"roles": ["admin"], **({"actor": actor} if actor is not None else {}), **kw}

    def appr(who: str, roles: list[str], **kw: Any) -> dict[str, Any]:
        return {"approver": who, "roles": roles, "fingerprint": "$fp", **kw}

    values = [appr("bob", ["security"], id="1", scope="value"), appr("carol", ["owner"], id="2", scope="value")]

    def run(context: dict[str, Any]) -> dict[str, Any]:
        return {"tool": ACC, "op": "run", "args": ACC_ARGS, "context": context}

    return [
        run(ctx(approvals=values, now=1000)),  # approved; bob and carol remembered for alice
        run(ctx(now=1100)),  # alice again: remembered
        run(ctx("zoe", now=1200)),  # another actor was never approved
        run(ctx(None, now=1300)),  # nor a caller without a name
        {"tool": ACC, "op": "check", "args": ACC_ARGS, "context": ctx(now=1000 + DAY - 1)},  # within 24 h
        {"tool": ACC, "op": "check", "args": ACC_ARGS, "context": ctx(now=1000 + DAY)},  # 24 h later: over
        {"op": "reset"},
        run(ctx(approvals=values, now=5000, remember_seconds=50)),
        {"tool": ACC, "op": "check", "args": ACC_ARGS, "context": ctx(now=5049)},
        {"tool": ACC, "op": "check", "args": ACC_ARGS, "context": ctx(now=5050)},
        {"op": "reset"},
        # bob approved this call only: carol's remembered approval alone is 1 of 2
        run(ctx(approvals=[appr("bob", ["security"], id="3"), appr("carol", ["owner"], id="4", scope="value")],
                now=9000)),
        run(ctx(now=9100)),
        # ... and with a fresh approval of this call by bob, carol's remembered one counts again
        run(ctx(approvals=[appr("bob", ["security"], id="5")], now=9200)),
        {"tool": ACC, "op": "run", "args": ACC_ARGS, "context": ctx(now=9300, remember_seconds=0)},
    ]


def test_remembered_approvals_are_the_actors_and_expire(both: Any) -> None:  # noqa: F811 - the fixture
    run_ts, run_py = both
    ts, py = run_ts(scenarios()), run_py(scenarios())
    assert ts == py
    assert [r.get("permission") for r in ts] == [
        "approved", "approved", "approval_required", "approval_required", "approved", "approval_required", None,
        "approved", "approved", "approval_required", None,
        "approved", "approval_required", "approved", "denied",
    ]
    assert ts[-1]["guidance"].startswith("account-delete was refused: the guard context is malformed (the time "
                                         "approved values are remembered must be a positive number when given)")
