"""An approval covers exactly what a person approved, and only a person can give it. Each test drives
`axag serve` through the SDK's MCP client (a subprocess over stdio), the approval page over HTTP, and the CLI
(`axag approvals`, `axag serve approver`), against a real loopback backend."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.browser import CHROMIUM, CHROMIUM_ARGS, need
from tests.conftest import run_axag
from tests.serve.test_approvals import (  # the serve extra is checked (and the module skipped) there
    ARGS,
    NOTIFY,
    SITE,
    TOOL,
    _decide,
    _wait_port,
    approvers,
    env_of,
    recorded_client,
)
from tests.serve_backend import Backend, free_port, running_backend

APPROVE = "AXAG_APPROVER_TOKEN"


@pytest.fixture(scope="module")
def backend() -> Iterator[Backend]:
    with running_backend(SITE) as b:
        yield b


def args_for(state: Path, backend: Backend, *extra: str, site: Path = SITE, actor: str = "alice") -> list[str]:
    return ["-m", "axag", "serve", str(site), "--base-url", backend.url, "--state", str(state), "--actor", actor,
            "--roles", "finance", "--approval-mode", "tell", *extra]


def decide(monkeypatch: pytest.MonkeyPatch, token: str, *args: str) -> Any:
    monkeypatch.setenv(APPROVE, token)
    try:
        return run_axag(["approvals", *args])
    finally:
        monkeypatch.delenv(APPROVE)


async def ask(client: Any, arguments: dict[str, Any], reason: str = "The parcel arrived broken.") -> dict[str, Any]:
    return env_of(await client.call_tool("request_permission", {"tool": TOOL, "arguments": arguments,
                                                                 "reason": reason}))


def request_id(envelope: dict[str, Any]) -> str:
    found = re.search(r"Approval request (r[0-9a-f]{12})", envelope["guidance"])
    assert found is not None, envelope
    return found.group(1)


def remembered(state: Path) -> list[dict[str, Any]]:
    res = run_axag(["approvals", "remembered", "--json", "--state", str(state)])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in res.stdout.splitlines()]


def tightened_site(tmp_path: Path) -> Path:
    """The refund page after the policy was tightened: 3 approvers holding the role security."""
    site = tmp_path / "tight"
    site.mkdir()
    page = (SITE / "refunds.html").read_text(encoding="utf-8")
    page = page.replace("axag-approval-roles='[\"finance\"]' axag-approval-count=\"2\"",
                        "axag-approval-roles='[\"security\"]' axag-approval-count=\"3\"")
    assert 'axag-approval-count="3"' in page
    (site / "refunds.html").write_text(page, encoding="utf-8")
    return site


def run(go: Any) -> None:
    asyncio.run(go())


def test_approved_values_belong_to_the_actor_who_asked_and_to_the_current_policy(
        backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 1: "approve these values" is remembered for alice only, with its approvers; another actor, a tightened
    policy, a revoked approver and a revoked remembered approval all need approval again."""
    state = tmp_path / "state.sqlite"
    tokens = approvers(state)
    errfile = (tmp_path / "stderr.txt").open("w+")
    before = len(backend.calls("/refunds"))
    rid: list[str] = []

    async def as_alice() -> None:
        async with recorded_client(args_for(state, backend), [], errfile) as client:
            rid.append(request_id(await ask(client, ARGS)))
            for name in ("bob", "carol"):
                res = decide(monkeypatch, tokens[name], "approve", rid[0], "--as", name, "--scope", "value",
                             "--state", str(state))
                assert res.exit_code == 0, res.output
            first = env_of(await client.call_tool(TOOL, ARGS))
            assert (first["permission"], first["success"]) == ("approved", True)
            again = env_of(await client.call_tool(TOOL, ARGS))  # remembered: no new request
            assert (again["permission"], again["success"]) == ("approved", True)

    run(as_alice)
    assert len(backend.calls("/refunds")) == before + 2

    async def as_zoe() -> None:  # another actor, never asked
        async with recorded_client(args_for(state, backend, actor="zoe"), [], errfile) as client:
            other = env_of(await client.call_tool(TOOL, ARGS))
            assert other["permission"] == "approval_required" and other["success"] is False

    run(as_zoe)

    async def tightened() -> None:  # 3 approvers holding security: bob and carol no longer suffice
        async with recorded_client(args_for(state, backend, site=tightened_site(tmp_path)), [], errfile) as client:
            tight = env_of(await client.call_tool(TOOL, ARGS))
            assert tight["permission"] == "approval_required"
            assert tight["guidance"].startswith("refund_issue needs approval by 3 approvers holding the role "
                                                "security.")

    run(tightened)
    assert len(backend.calls("/refunds")) == before + 2
    (row,) = remembered(state)
    assert (row["tool"], row["actor"], row["approvers"]) == (TOOL, "alice", {"bob": ["finance"],
                                                                           "carol": ["audit", "finance"]})
    expires = time.mktime(time.strptime(row["expires"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    assert abs(expires - (time.time() + 24 * 3600)) < 120  # --value-approval-ttl defaults to 24h

    res = run_axag(["serve", "approver", "revoke", "bob", "--state", str(state)])
    assert (res.exit_code, res.stdout) == (0, "revoked approver bob\n")

    async def after_revocations() -> None:
        async with recorded_client(args_for(state, backend), [], errfile) as client:
            alone = env_of(await client.call_tool(TOOL, ARGS))  # carol alone is 1 of 2
            assert alone["permission"] == "approval_required"
            res = run_axag(["approvals", "revoke", row["id"], "--state", str(state)])
            assert (res.exit_code, res.stdout) == (0, f"{row['id']}: revoked; those values need approval again\n")
            assert remembered(state) == []
            assert env_of(await client.call_tool(TOOL, ARGS))["permission"] == "approval_required"

    run(after_revocations)
    assert len(backend.calls("/refunds")) == before + 2
    res = run_axag(["approvals", "revoke", row["id"], "--state", str(state)])
    assert res.exit_code == 2 and f"no remembered approval {row['id']}" in res.output


def test_approved_values_end_after_the_value_approval_ttl(backend: Backend, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The value-approval TTL (here the `value-approval-ttl` key of [tool.axag.serve]) ends a remembered
    approval (and the request's own value decisions)."""
    state = tmp_path / "state.sqlite"
    tokens = approvers(state)
    errfile = (tmp_path / "stderr.txt").open("w+")
    config = tmp_path / "axag.toml"
    config.write_text('[serve]\nvalue-approval-ttl = "2s"\n', encoding="utf-8")

    async def go() -> None:
        async with recorded_client(args_for(state, backend, "--config", str(config)), [], errfile) as client:
            rid = request_id(await ask(client, ARGS))
            for name in ("bob", "carol"):
                res = decide(monkeypatch, tokens[name], "approve", rid, "--scope", "value", "--state", str(state))
                assert res.exit_code == 0, res.output
            assert env_of(await client.call_tool(TOOL, ARGS))["permission"] == "approved"
            await anyio.sleep(2.2)
            late = env_of(await client.call_tool(TOOL, ARGS))
            assert late["permission"] == "approval_required"

    run(go)
    assert remembered(state) == []


def test_approve_this_call_is_not_remembered(backend: Backend, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 1: only approvers who approved the values are remembered: bob's "this call" lets the call run once."""
    state = tmp_path / "state.sqlite"
    tokens = approvers(state)
    errfile = (tmp_path / "stderr.txt").open("w+")

    async def go() -> None:
        async with recorded_client(args_for(state, backend), [], errfile) as client:
            rid = request_id(await ask(client, ARGS))
            assert decide(monkeypatch, tokens["bob"], "approve", rid, "--as", "bob", "--state",
                          str(state)).exit_code == 0
            assert decide(monkeypatch, tokens["carol"], "approve", rid, "--as", "carol", "--scope", "value",
                          "--state", str(state)).exit_code == 0
            assert env_of(await client.call_tool(TOOL, ARGS))["permission"] == "approved"
            assert env_of(await client.call_tool(TOOL, ARGS))["permission"] == "approval_required"

    run(go)
    assert [r["approvers"] for r in remembered(state)] == [{"carol": ["audit", "finance"]}]


def test_the_terminal_needs_the_approvers_token(backend: Backend, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 3: `axag approvals approve ID --as bob` without bob's token is refused; --as must name the token's
    approver; the token comes from AXAG_APPROVER_TOKEN (or a prompt on a terminal, see the pty test)."""
    state = tmp_path / "state.sqlite"
    tokens = approvers(state)
    errfile = (tmp_path / "stderr.txt").open("w+")
    monkeypatch.delenv(APPROVE, raising=False)

    async def go() -> None:
        async with recorded_client(args_for(state, backend), [], errfile) as client:
            rid = request_id(await ask(client, ARGS))
            res = run_axag(["approvals", "approve", rid, "--as", "bob", "--state", str(state)])
            assert res.exit_code == 2
            assert "deciding needs your approver token" in res.output and APPROVE in res.output
            res = decide(monkeypatch, tokens["bob"], "approve", rid, "--as", "carol", "--state", str(state))
            assert res.exit_code == 2 and "--as carol: the token is bob's, not carol's" in res.output
            res = decide(monkeypatch, "axap_guessed", "deny", rid, "--state", str(state))
            assert res.exit_code == 2 and "that approver token is not known" in res.output
            res = decide(monkeypatch, tokens["bob"], "approve", rid, "--state", str(state))
            assert res.stdout == f"{rid}: bob approved this call (1 of 2 approvals; the request is pending)\n"
            still = env_of(await client.call_tool(TOOL, ARGS))
            assert still["permission"] == "approval_required" and "1 of 2 approvals given" in still["guidance"]

    run(go)


def test_the_terminal_prompts_for_the_token(tmp_path: Path) -> None:
    """Item 3: on a terminal, `axag approvals deny` asks for the token (hidden) and checks it."""
    import os
    import pty

    from axag.serve.approvals import ApprovalDesk
    from axag.serve.state import SqliteStore

    state = tmp_path / "state.sqlite"
    desk = ApprovalDesk(SqliteStore(state))
    token = desk.add_approver("bob", ["finance"])
    rid = desk.create(tool=TOOL, arguments=ARGS, fingerprint="f" * 64, reason="why", actor="alice", ttl=600,
                      count=2, roles=("finance",)).id
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    env.pop(APPROVE, None)
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execve(sys.executable, [sys.executable, "-m", "axag", "approvals", "deny", rid, "--state", str(state)],
                  env)
    seen = b""
    deadline = time.monotonic() + 60
    while b"token" not in seen and time.monotonic() < deadline:
        try:
            seen += os.read(fd, 1024)
        except OSError:  # the child is gone
            break
    with contextlib.suppress(OSError):
        os.write(fd, token.encode() + b"\n")
    while True:
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    _, status = os.waitpid(pid, 0)
    text = seen.decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 0, text
    assert "Your approver token:" in text and token not in text  # hidden input
    assert f"{rid}: bob denied the call (0 of 2 approvals; the request is denied)" in text


def test_opening_a_link_is_repeatable_and_link_reissues(backend: Backend, tmp_path: Path) -> None:
    """Item 4: an unfurler's GET does not burn the link; deciding needs the CSRF token and the approver's token;
    `axag approvals link ID` prints a fresh link and retires the old one. The page shows the value-approval TTL."""
    state = tmp_path / "state.sqlite"
    tokens = approvers(state)
    notified = tmp_path / "notified.jsonl"
    port = free_port()
    errfile = (tmp_path / "stderr.txt").open("w+")
    args = args_for(state, backend, "--desk-http", f"127.0.0.1:{port}", "--notify-command", f"{sys.executable} -c \"{NOTIFY}\" {notified}")

    async def go() -> None:
        async with recorded_client(args, [], errfile) as client:
            rid = request_id(await ask(client, ARGS))
            await _wait_port(port)
            link = json.loads(notified.read_text())["link"]
            async with httpx.AsyncClient() as unfurler:  # fetches first, keeps nothing
                assert (await unfurler.get(link)).status_code == 303
            async with httpx.AsyncClient() as web:
                opened = await web.get(link)
                assert opened.status_code == 303
                page = await web.get(f"http://127.0.0.1:{port}{opened.headers['location']}")
                assert page.status_code == 200 and "Approve refund_issue?" in page.text
                csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
                url = f"http://127.0.0.1:{port}/approvals/{rid}"
                forged = await web.post(url, data={"token": tokens["bob"], "action": "approve_call"})
                assert forged.status_code == 403  # no CSRF token
                nobody = await web.post(url, data={"csrf": csrf, "action": "approve_call"})
                assert nobody.status_code == 401  # no approver token
                res = run_axag(["approvals", "link", rid, "--state", str(state)])
                assert res.exit_code == 0, res.output
                fresh = res.stdout.strip()
                assert re.fullmatch(rf"http://127\.0\.0\.1:{port}/approvals/{rid}\?code=[A-Za-z0-9_-]+", fresh)
                assert (await web.get(link)).status_code == 403  # retired
                reopened = await web.get(fresh)  # a new page session (and CSRF token) for this browser
                assert reopened.status_code == 303
                page = await web.get(f"http://127.0.0.1:{port}{reopened.headers['location']}")
                assert "alice's later calls with exactly these values run without asking, for 24 h" in page.text
                csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
                done = await web.post(url, data={"csrf": csrf, "token": tokens["bob"], "action": "approve_call"})
                assert done.status_code == 200 and "Recorded: bob approved this call" in done.text
                res = decide_env(tokens["carol"], "deny", rid, "--state", str(state))
                assert res.exit_code == 0, res.output
                assert (await web.get(fresh)).status_code == 403  # decided: nothing left to open
            res = run_axag(["approvals", "link", rid, "--state", str(state)])
            assert res.exit_code == 2 and "already denied" in res.output

    run(go)


def decide_env(token: str, *args: str) -> Any:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(APPROVE, token)
        return run_axag(["approvals", *args])


def test_pending_requests_per_actor_are_bounded(backend: Backend, tmp_path: Path) -> None:
    """Item 5: more distinct requests than --max-pending (default 5) answer rate_limited and notify nobody; a
    repeat of the same call reuses its request. Item 10: [serve] max-pending."""
    state = tmp_path / "state.sqlite"
    approvers(state)
    notified = tmp_path / "notified.jsonl"
    errfile = (tmp_path / "stderr.txt").open("w+")
    notify = ("--notify-command", f"{sys.executable} -c \"{NOTIFY}\" {notified}")

    async def go() -> None:
        async with recorded_client(args_for(state, backend, *notify), [], errfile) as client:
            answers = [await ask(client, {**ARGS, "amount": n}) for n in range(1, 8)]
            assert [a["permission"] for a in answers] == ["approval_required"] * 5 + ["rate_limited"] * 2
            assert answers[5]["violations"] == [{
                "field": None, "constraint": "max_pending", "expected": 5, "actual": 5,
                "message": "request_permission allows at most 5 pending approval requests per caller; 5 are "
                           "pending."}]
            assert "Nothing was requested and nobody was notified" in answers[5]["guidance"]
            repeat = await ask(client, {**ARGS, "amount": 1})
            assert request_id(repeat) == request_id(answers[0])
        async with recorded_client(args_for(state, backend, *notify, actor="zoe"), [], errfile) as client:
            assert (await ask(client, ARGS))["permission"] == "approval_required"  # per actor

    run(go)
    assert len(notified.read_text().splitlines()) == 6
    pending = run_axag(["approvals", "list", "--status", "pending", "--state", str(state)]).stdout.splitlines()
    assert len(pending) == 6

    config = tmp_path / "axag.toml"
    config.write_text("[serve]\nmax-pending = 1\n", encoding="utf-8")
    other = tmp_path / "other.sqlite"

    async def configured() -> None:
        async with recorded_client(args_for(other, backend, "--config", str(config)), [], errfile) as client:
            assert (await ask(client, ARGS))["permission"] == "approval_required"
            assert (await ask(client, {**ARGS, "amount": 2}))["permission"] == "rate_limited"

    run(configured)


HOSTILE = "Refund.\x1b[2K\r\x1b[1Adenied by bob \u202egnp.exe\u2066 \x07\x9b"


def test_caller_text_is_shown_escaped(backend: Backend, tmp_path: Path) -> None:
    """Item 6: control and bidi characters of a caller's reason and arguments are escaped in `approvals list`,
    `list --json`, `show` and on the page."""
    state = tmp_path / "state.sqlite"
    approvers(state)
    notified = tmp_path / "notified.jsonl"
    port = free_port()
    errfile = (tmp_path / "stderr.txt").open("w+")
    args = args_for(state, backend, "--desk-http", f"127.0.0.1:{port}",
                    "--notify-command", f"{sys.executable} -c \"{NOTIFY}\" {notified}")
    hostile_args = {**ARGS, "note": "ok\x1b]8;;http://evil\x07click\u202e"}

    async def go() -> None:
        async with recorded_client(args, [], errfile) as client:
            rid = request_id(await ask(client, hostile_args, HOSTILE))
            await _wait_port(port)
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as web:
                opened = await web.get(json.loads(notified.read_text())["link"])
                page = (await web.get(opened.headers["location"])).text
            assert "Refund.\\x1b[2K\\x0d\\x1b[1Adenied by bob \\u202egnp.exe\\u2066 \\x07\\x9b" in page
            assert "ok\\x1b]8;;http://evil\\x07click\\u202e" in page
            assert not any(c in page for c in "\x1b\r\x07\x9b\u202e\u2066")
            listed = run_axag(["approvals", "list", "--state", str(state)]).stdout
            assert listed.endswith("Refund.\\x1b[2K\\x0d\\x1b[1Adenied by bob \\u202egnp.exe\\u2066 \\x07\\x9b\n")
            assert rid in listed
            for out in (run_axag(["approvals", "list", "--json", "--state", str(state)]).stdout,
                        run_axag(["approvals", "show", rid, "--state", str(state)]).stdout):
                assert not any(c in out for c in "\x1b\r\x07\x9b\u202e\u2066")
                assert "\\u001b[2K\\r\\u001b[1Adenied by bob \\u202egnp.exe\\u2066 \\u0007\\u009b" in out
                data = json.loads(out.splitlines()[0] if out.startswith('{"') else out)
                assert data["reason"] == HOSTILE and data["arguments"] == hostile_args  # the exact text, decoded

    run(go)


def test_request_permission_for_an_unimplemented_precondition_is_an_envelope(backend: Backend,
                                                                            tmp_path: Path) -> None:
    """Item 9: the caller gets the precondition_failed envelope, not a JSON-RPC error."""
    site = tmp_path / "pre"
    site.mkdir()
    page = (SITE / "refunds.html").read_text(encoding="utf-8").replace(
        'axag-side-effects=', "axag-preconditions='[\"order_is_delivered\"]' axag-side-effects=")
    (site / "refunds.html").write_text(page, encoding="utf-8")
    state = tmp_path / "state.sqlite"
    errfile = (tmp_path / "stderr.txt").open("w+")

    async def go() -> None:
        async with recorded_client(args_for(state, backend, site=site), [], errfile) as client:
            res = await client.call_tool("request_permission", {"tool": TOOL, "arguments": ARGS, "reason": "Why."})
            envelope = env_of(res)
            assert res.is_error and envelope["permission"] == "precondition_failed"
            assert envelope["success"] is False and envelope["tool"] == TOOL
            assert '"order_is_delivered" (used by refund_issue) is not implemented' in envelope["guidance"]

    run(go)
    assert run_axag(["approvals", "list", "--state", str(state)]).stdout == ""


def test_in_chromium_a_prefetched_link_still_opens_and_caller_text_is_inert(backend: Backend, tmp_path: Path) -> None:
    """Items 4 and 6 in a browser: a link an unfurler fetched first opens in Chromium; the hostile reason is shown
    as visible escapes (no bidi override reorders the page's text), and bob decides."""
    from playwright.async_api import async_playwright

    need(CHROMIUM, "Chromium (apt-get install -y chromium)")
    state = tmp_path / "state.sqlite"
    tokens = approvers(state)
    notified = tmp_path / "notified.jsonl"
    port = free_port()
    errfile = (tmp_path / "stderr.txt").open("w+")
    args = args_for(state, backend, "--desk-http", f"127.0.0.1:{port}",
                    "--notify-command", f"{sys.executable} -c \"{NOTIFY}\" {notified}")

    async def go() -> None:
        async with recorded_client(args, [], errfile) as client:
            rid = request_id(await ask(client, ARGS, HOSTILE))
            await _wait_port(port)
            link = json.loads(notified.read_text())["link"]
            async with httpx.AsyncClient() as unfurler:
                assert (await unfurler.get(link)).status_code == 303
            async with async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                try:
                    page = await (await browser.new_context()).new_page()
                    response = await page.goto(link)
                    assert response is not None and response.status == 200 and "code=" not in page.url
                    text = await page.inner_text("main")
                    assert "Refund.\\x1b[2K\\x0d\\x1b[1Adenied by bob \\u202egnp.exe\\u2066 \\x07\\x9b" in text
                    assert not any(c in text for c in "\x1b\r\x07\x9b\u202e\u2066")
                    assert await _decide(page, tokens["bob"], "approve_call") == (
                        200, "Recorded: bob approved this call (1 of 2 approvals; the request is pending).")
                finally:
                    await browser.close()
            shown = json.loads(run_axag(["approvals", "show", rid, "--state", str(state)]).stdout)
            assert shown["reason"] == HOSTILE and [d["approver"] for d in shown["decisions"]] == ["bob"]

    run(go)
