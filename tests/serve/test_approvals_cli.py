"""`axag approvals` reading commands never create a state database and name the one they read; a call
repeated after its approval was used says so and how to ask again, through a real MCP client session against `axag serve` and a loopback backend."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_axag


@pytest.mark.parametrize("command", [["list"], ["list", "--json"], ["show", "r000000000000"]])
def test_reading_commands_never_create_a_database(tmp_path: Path, command: list[str]) -> None:
    site = tmp_path / "site"
    site.mkdir()
    res = run_axag(["approvals", *command], cwd=site)
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == ("Error: no state database at .axag/state.sqlite (axag serve creates it; give --state FILE, "
                          "or set state in [tool.axag.serve], to read another)\n")
    assert sorted(p.name for p in site.iterdir()) == []
    res = run_axag(["approvals", *command, "--state", str(tmp_path / "nope.sqlite")])
    assert res.exit_code == 2 and f"no state database at {tmp_path / 'nope.sqlite'} " in res.stderr
    assert not (tmp_path / "nope.sqlite").exists()


def test_list_names_the_database_and_says_when_it_is_empty(tmp_path: Path) -> None:
    state = tmp_path / "state.sqlite"
    assert run_axag(["serve", "approver", "add", "bob", "--roles", "finance", "--state", str(state)]).exit_code == 0
    res = run_axag(["approvals", "list", "--state", str(state)])
    assert (res.exit_code, res.stdout, res.stderr) == (0, "", f"axag: no approval requests in {state}\n")
    res = run_axag(["approvals", "list", "--state", str(state), "--status", "pending", "--json"])
    assert (res.exit_code, res.stdout, res.stderr) == (0, "", f"axag: no pending approval requests in {state}\n")
    res = run_axag(["approvals", "show", "r000000000000", "--state", str(state)])
    assert res.exit_code == 2 and res.stderr == f"Error: no approval request r000000000000 in {state}\n"


# ------------------------------------------------------------------------------ 13: a used-up approval
try:
    import mcp
except ImportError:  # pragma: no cover - CI installs it (.[test])
    mcp = None


@pytest.fixture(scope="module")
def backend() -> Iterator[object]:
    if mcp is None:
        pytest.skip("axag[serve] is needed")
    from tests.serve.test_approvals import SITE
    from tests.serve_backend import running_backend

    with running_backend(SITE) as b:
        yield b


def test_a_used_approval_says_so_and_how_to_ask_again(backend: object, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.serve.test_approvals import ARGS, TOOL, approvers, env_of, recorded_client, serve_args

    state = tmp_path / "state.sqlite"
    tokens = approvers(state)
    errfile = (tmp_path / "stderr.txt").open("w+")
    texts: list[str] = []

    async def go() -> None:
        args = serve_args(state, backend, "--approval-mode", "tell")  # type: ignore[arg-type]
        async with recorded_client(args, [], errfile) as client:
            told = env_of(await client.call_tool("request_permission", {"tool": TOOL, "arguments": ARGS,
                                                                        "reason": "Refund before the weekend."}))
            found = re.search(r"Approval request (r[0-9a-f]{12})", told["guidance"])
            assert found is not None
            rid = found.group(1)
            for name in ("bob", "carol"):
                monkeypatch.setenv("AXAG_APPROVER_TOKEN", tokens[name])
                assert run_axag(["approvals", "approve", rid, "--as", name, "--state", str(state)]).exit_code == 0
            ran = env_of(await client.call_tool(TOOL, ARGS))
            assert ran["permission"] == "approved" and ran["success"] is True
            again = env_of(await client.call_tool(TOOL, ARGS))
            assert again["permission"] == "approval_required" and again["success"] is False
            texts.extend([rid, again["guidance"]])
            asked = env_of(await client.call_tool("request_permission", {"tool": TOOL, "arguments": ARGS,
                                                                         "reason": "Second refund."}))
            assert asked["permission"] == "approval_required"
            assert re.search(r"Approval request (r[0-9a-f]{12}): 0 of 2 approvals given", asked["guidance"])
            assert rid not in asked["guidance"]

    asyncio.run(go())
    rid, text = texts
    shown = run_axag(["approvals", "show", rid, "--state", str(state)])
    assert shown.exit_code == 0 and shown.stderr == f"axag: approval request {rid} in {state}\n"
    listed = run_axag(["approvals", "list", "--state", str(state)])
    assert listed.stderr == f"axag: 2 approval requests in {state}\n" and rid in listed.stdout
    assert "A person is handling the request" not in text and "2 of 2 approvals given" not in text
    assert text.endswith(f"(Approval request {rid}: its 2 of 2 approvals were used by the call they approved; an "
                         "approval lets a call run once. To run it again, call request_permission with this tool, "
                         "the same arguments and a reason, and an approver decides again.)")
