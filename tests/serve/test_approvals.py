"""The human approval loop of `axag serve`, end to end: the SDK's MCP client talks to `axag serve` (a
subprocess over stdio, every message both ways recorded), Debian's Chromium (driven by Playwright) opens the
approval link, approvers decide on the page and with `axag approvals`, and the call reaches a real loopback
backend. axe-core checks the page's accessibility; a screenshot goes to tests/artifacts/."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sqlite3
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

try:
    import mcp  # noqa: F401 - the `serve` extra
    from playwright.async_api import async_playwright
except ImportError:  # pragma: no cover - CI installs both (.[test])
    if os.environ.get("CI"):
        raise
    pytest.skip("axag[serve] and playwright are needed", allow_module_level=True)

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.browser import ARTIFACTS, AXE, CHROMIUM, CHROMIUM_ARGS, need
from tests.conftest import run_axag
from tests.serve_backend import Backend, free_port, running_backend

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "tests" / "data" / "serve" / "approval"
ARGS = {"order": "O1001", "amount": 120, "note": "Damaged on arrival. " + "The customer sent photos. " * 12}
TOOL = "refund_issue"
NOTIFY = ("import json, sys, pathlib; d = json.load(sys.stdin); "
          "pathlib.Path(sys.argv[1]).open('a').write(json.dumps(d) + chr(10))")


@pytest.fixture(scope="module")
def backend() -> Iterator[Backend]:
    with running_backend(SITE) as b:
        yield b


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def approvers(state: Path) -> dict[str, str]:
    """Approver tokens: alice (who also asks), bob and carol (finance), dave (no finance role)."""
    tokens = {}
    for name, roles in (("alice", "finance"), ("bob", "finance"), ("carol", "finance,audit"), ("dave", "intern")):
        res = run_axag(["serve", "approver", "add", name, "--roles", roles, "--state", str(state)])
        assert res.exit_code == 0, res.output
        tokens[name] = res.stdout.strip()
        assert tokens[name].startswith("axap_")
    return tokens


def serve_args(state: Path, backend: Backend, *extra: str) -> list[str]:
    return ["-m", "axag", "serve", str(SITE), "--base-url", backend.url, "--state", str(state), "--actor", "alice",
            "--roles", "finance", *extra]


@asynccontextmanager
async def recorded_client(args: list[str], log: list[tuple[str, str]], errlog: Any,
                          elicit: Any = None, mode: str = "legacy") -> AsyncIterator[Client]:
    """The SDK's client over stdio, with every message both ways appended to ``log`` as JSON text."""
    params = StdioServerParameters(command=sys.executable, args=args, env=_env(), cwd=str(ROOT))

    @asynccontextmanager
    async def transport() -> AsyncIterator[Any]:
        async with stdio_client(params, errlog=errlog) as (read, write):
            in_send, in_recv = anyio.create_memory_object_stream[Any](100)
            out_send, out_recv = anyio.create_memory_object_stream[Any](100)

            async def inbound() -> None:
                async with in_send:
                    async for m in read:
                        log.append(("in", m.message.model_dump_json() if hasattr(m, "message") else repr(m)))
                        await in_send.send(m)

            async def outbound() -> None:
                async for m in out_recv:
                    log.append(("out", m.message.model_dump_json()))
                    await write.send(m)

            async with anyio.create_task_group() as tg:
                tg.start_soon(inbound)
                tg.start_soon(outbound)
                yield in_recv, out_send
                tg.cancel_scope.cancel()

    async with Client(transport(), mode=mode, elicitation_callback=elicit) as client:
        yield client


def env_of(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return dict(result.structured_content)


async def _wait_port(port: int) -> None:
    for _ in range(300):
        try:
            _, w = await asyncio.open_connection("127.0.0.1", port)
            w.close()
            return
        except OSError:
            await asyncio.sleep(0.05)
    raise RuntimeError("the approval page did not start")


async def _decide(page: Any, token: str, action: str) -> tuple[int, str]:
    """Fill the token and press a decision button; (HTTP status, the page's note)."""
    await page.fill("#token", token)
    async with page.expect_response(lambda r: r.request.method == "POST") as got:
        await page.click(f"button[value={action}]")
    response = await got.value
    await page.wait_for_load_state()
    return response.status, (await page.inner_text(".note")).strip()


def test_two_approvers_on_the_page_then_the_value_is_remembered(backend: Backend, tmp_path: Path) -> None:
    need(CHROMIUM, "Chromium (apt-get install -y chromium)")
    need(AXE, "axe-core (npm install)")
    state = tmp_path / "state.sqlite"
    tokens = approvers(state)
    notified = tmp_path / "notified.jsonl"
    port = free_port()
    args = serve_args(state, backend, "--desk-http", f"127.0.0.1:{port}",
                      "--notify-command", f"{sys.executable} -c \"{NOTIFY}\" {notified}")
    log: list[tuple[str, str]] = []
    links: list[str] = []
    errfile = (tmp_path / "stderr.txt").open("w+")
    before = len(backend.calls("/refunds"))

    async def elicit(ctx: Any, params: Any) -> types.ElicitResult:
        assert params.mode == "url"
        links.append(params.url)
        return types.ElicitResult(action="accept")

    async def go() -> None:
        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(p: float, total: float | None, message: str | None) -> None:
            progress.append((p, total, message))

        async with recorded_client(args, log, errfile, elicit) as client:
            listed = [t.name for t in (await client.list_tools()).tools]
            assert listed == [TOOL, "request_permission"]
            first = env_of(await client.call_tool(TOOL, ARGS))
            assert first["permission"] == "approval_required"
            assert "Nobody has been asked yet: call request_permission" in first["guidance"]
            bad = env_of(await client.call_tool("request_permission", {"tool": TOOL, "arguments": {
                **ARGS, "amount": 9000}, "reason": "too much"}))
            assert bad["permission"] == "constraint_violated"  # an approver cannot make invalid values valid
            assert run_axag(["approvals", "list", "--state", str(state)]).stdout == ""

            async with anyio.create_task_group() as tg:
                answer: list[types.CallToolResult] = []

                async def ask() -> None:
                    answer.append(await client.call_tool(
                        "request_permission", {"tool": TOOL, "arguments": ARGS, "reason": "The parcel arrived broken."},
                        progress_callback=on_progress))

                tg.start_soon(ask)
                with anyio.fail_after(20):
                    while not links:
                        await anyio.sleep(0.05)
                await _wait_port(port)
                await browse(links[0], tokens, tmp_path)
            result = env_of(answer[0])
            assert result["permission"] == "approved" and result["success"] is True
            assert result["result"]["status"] == 200
            assert result["result"]["body"]["form"] == [["order", "O1001"], ["amount", "120"], ["note", ARGS["note"]]]
            assert len(backend.calls("/refunds")) == before + 1
            assert progress and progress[0][:2] == (0, 2)
            # the same values again: remembered (scope value), no new request
            again = env_of(await client.call_tool(TOOL, ARGS))
            assert again["permission"] == "approved" and len(backend.calls("/refunds")) == before + 2
            other = env_of(await client.call_tool(TOOL, {**ARGS, "amount": 121}))
            assert other["permission"] == "approval_required"

    asyncio.run(go())
    listing = run_axag(["approvals", "list", "--state", str(state), "--json"]).stdout.splitlines()
    assert len(listing) == 1
    request = json.loads(listing[0])
    assert (request["status"], request["approvals"], request["actor"]) == ("approved", "2 of 2", "alice")
    assert [(d["approver"], d["scope"]) for d in request["decisions"]] == [("bob", "value"), ("carol", "value")]

    # leak scan: the codes appear only in the URL elicitation (and the notifier's own message)
    sent = [json.loads(line) for line in notified.read_text().splitlines()]
    assert len(sent) == 1 and sent[0]["request"]["id"] == request["id"]
    codes = [re.search(r"code=([^&]+)", link).group(1) for link in (links[0], sent[0]["link"])]  # type: ignore[union-attr]
    assert codes[0] != codes[1]
    carriers = [text for _, text in log if any(code in text for code in codes)]
    assert len(carriers) == 1 and '"method":"elicitation/create"' in carriers[0] and '"mode":"url"' in carriers[0]
    assert codes[1] not in carriers[0]
    errfile.seek(0)
    stderr = errfile.read()
    db = sqlite3.connect(state)
    stored = json.dumps([list(r) for t in ("audit", "approval_requests", "approval_decisions", "approval_codes",
                                          "desk_sessions") for r in db.execute(f"SELECT * FROM {t}")])
    for code in codes:
        assert code not in stderr and code not in stored
    for token in tokens.values():
        assert token not in stored and token not in json.dumps(log)


async def browse(link: str, tokens: dict[str, str], tmp_path: Path) -> None:
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = await browser.new_context(bypass_csp=True)  # only so that axe-core can be injected
            page = await context.new_page()
            response = await page.goto(link)
            assert response is not None and response.status == 200
            assert "code=" not in page.url  # the code was spent and left the address bar
            csp = (await response.all_headers())["content-security-policy"]
            assert csp.startswith("default-src 'none'; style-src 'sha256-")
            text = await page.inner_text("main")
            for expected in ("Approve refund_issue?", "Risk\nhigh", "money_sent", "The parcel arrived broken.",
                             "alice", "0 of 2 approvals", "O1001", "show all"):
                assert expected in text, expected
            ARTIFACTS.mkdir(exist_ok=True)
            await page.screenshot(path=str(ARTIFACTS / "approval-page.png"), full_page=True)
            await page.add_script_tag(path=str(AXE))
            axe = await page.evaluate("async () => (await axe.run(document)).violations"
                                      ".map(v => ({id: v.id, impact: v.impact}))")
            assert [v for v in axe if v["impact"] in ("serious", "critical")] == []
            # a POST without the CSRF token is refused (the session cookie alone is not enough)
            forged = await context.request.post(page.url, form={"token": tokens["bob"], "action": "approve_call"})
            assert forged.status == 403
            assert await _decide(page, tokens["bob"], "approve_value") == (
                200, "Recorded: bob approved these values (1 of 2 approvals; the request is pending).")
            status, note = await _decide(page, tokens["alice"], "approve_call")
            assert (status, note) == (403, ("Not recorded: alice asked for this call and cannot decide on it "
                                           "(no self-approval)."))
            status, note = await _decide(page, tokens["dave"], "approve_call")
            assert status == 403 and "lacks the roles" in note
            status, note = await _decide(page, "axap_not-a-token", "deny")
            assert (status, note) == (401, "That approver token is not known.")
            assert await _decide(page, tokens["carol"], "approve_value") == (
                200, "Recorded: carol approved these values (2 of 2 approvals; the request is approved).")
            assert await page.query_selector("form") is None  # decided: nothing left to press
            reused = await (await browser.new_context()).new_page()
            again = await reused.goto(link)
            assert again is not None and again.status == 403
            assert "not valid" in await reused.inner_text("main")
        finally:
            await browser.close()


def test_tell_mode_deny_and_cli(backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state.sqlite"
    tokens = approvers(state)
    log: list[tuple[str, str]] = []
    errfile = (tmp_path / "stderr.txt").open("w+")
    before = len(backend.calls("/refunds"))
    ids: list[str] = []

    async def go() -> None:
        async with recorded_client(serve_args(state, backend, "--approval-mode", "tell"), log, errfile) as client:
            told = env_of(await client.call_tool("request_permission", {"tool": TOOL, "arguments": ARGS,
                                                                        "reason": "Refund before the weekend."}))
            assert told["permission"] == "approval_required"
            # no page, no notifier and a client without elicitation: honest guidance
            assert "The request was recorded, but nobody could be notified" in told["guidance"]
            found = re.search(r"Approval request (r[0-9a-f]{12}): 0 of 2 approvals given", told["guidance"])
            assert found is not None
            ids.append(found.group(1))
            monkeypatch.setenv("AXAG_APPROVER_TOKEN", tokens["alice"])
            res = run_axag(["approvals", "approve", ids[0], "--as", "alice", "--state", str(state)])
            assert res.exit_code == 2 and "no self-approval" in res.output
            monkeypatch.setenv("AXAG_APPROVER_TOKEN", tokens["bob"])
            res = run_axag(["approvals", "approve", ids[0], "--as", "bob", "--state", str(state)])
            assert res.exit_code == 0, res.output
            assert res.stdout == f"{ids[0]}: bob approved this call (1 of 2 approvals; the request is pending)\n"
            still = env_of(await client.call_tool(TOOL, ARGS))
            assert still["permission"] == "approval_required" and "1 of 2 approvals given" in still["guidance"]
            monkeypatch.setenv("AXAG_APPROVER_TOKEN", tokens["carol"])
            res = run_axag(["approvals", "deny", ids[0], "--as", "carol", "--state", str(state)])
            assert res.exit_code == 0 and res.stdout.endswith("the request is denied)\n")
            denied = env_of(await client.call_tool(TOOL, ARGS))
            assert denied["permission"] == "denied" and "an approver refused the call" in denied["guidance"]
            monkeypatch.setenv("AXAG_APPROVER_TOKEN", tokens["bob"])
            res = run_axag(["approvals", "approve", ids[0], "--as", "bob", "--state", str(state)])
            assert res.exit_code == 2 and "already denied" in res.output
            none = env_of(await client.call_tool("request_permission", {"tool": TOOL, "arguments": ARGS,
                                                                        "reason": ""}))
            assert none["permission"] == "constraint_violated" and "1 to 500 characters" in none["guidance"]

    asyncio.run(go())
    assert len(backend.calls("/refunds")) == before
    shown = json.loads(run_axag(["approvals", "show", ids[0], "--state", str(state)]).stdout)
    assert shown["status"] == "denied" and shown["reason"] == "Refund before the weekend."
    assert shown["arguments"] == ARGS and "link" not in json.dumps(shown)


def test_wait_mode_expires(backend: Backend, tmp_path: Path) -> None:
    state = tmp_path / "state.sqlite"
    approvers(state)
    log: list[tuple[str, str]] = []
    errfile = (tmp_path / "stderr.txt").open("w+")

    async def go() -> None:
        async with recorded_client(serve_args(state, backend, "--approval-ttl", "1s"), log, errfile) as client:
            asked = env_of(await client.call_tool("request_permission", {"tool": TOOL, "arguments": ARGS,
                                                                         "reason": "Quick one."}))
            assert asked["permission"] == "expired" and asked["success"] is False
            assert asked["guidance"].startswith("refund_issue's request for approval expired before it was decided")
            later = env_of(await client.call_tool(TOOL, ARGS))
            assert later["permission"] == "expired"

    asyncio.run(go())
    (row,) = run_axag(["approvals", "list", "--state", str(state), "--status", "expired", "--json"]).stdout.splitlines()
    assert json.loads(row)["approvals"] == "0 of 2"


def test_webhook_retries_then_reaches_a_person(backend: Backend, tmp_path: Path) -> None:
    """A failing webhook is retried with backoff (4 attempts), logged without the link and never fatal; the
    guidance then says nobody could be notified. A working one gets the summary and the link."""
    state = tmp_path / "state.sqlite"
    log: list[tuple[str, str]] = []
    errfile = (tmp_path / "stderr.txt").open("w+")
    args = serve_args(state, backend, "--approval-mode", "tell", "--desk-http", f"127.0.0.1:{free_port()}",
                      "--notify-webhook", backend.url + "/hook")

    async def go() -> None:
        async with recorded_client(args, log, errfile) as client:
            backend.mode = "500"
            try:
                told = env_of(await client.call_tool("request_permission", {
                    "tool": TOOL, "arguments": ARGS, "reason": "First try."}))
            finally:
                backend.mode = "ok"
            assert "nobody could be notified" in told["guidance"]
            assert len(backend.calls("/hook")) == 4
            told = env_of(await client.call_tool("request_permission", {
                "tool": TOOL, "arguments": {**ARGS, "amount": 7}, "reason": "Second try."}))
            assert "A person is handling the request." in told["guidance"]

    asyncio.run(go())
    hooks = backend.calls("/hook")
    assert len(hooks) == 5
    body = json.loads(hooks[-1].body)
    assert body["summary"] == "alice asks to run refund_issue: Second try."
    assert body["request"]["arguments"] == {**ARGS, "amount": 7}
    assert re.fullmatch(r"http://127\.0\.0\.1:[0-9]+/approvals/r[0-9a-f]{12}\?code=[A-Za-z0-9_-]+", body["link"])
    errfile.seek(0)
    stderr = errfile.read()
    assert "the approval webhook failed for request r" in stderr and "(HTTP 500)" in stderr
    codes = [json.loads(h.body)["link"].split("code=")[1] for h in hooks]
    assert not any(code in stderr or code in json.dumps(log) for code in codes)


def test_http_mode_serves_the_page_on_its_own_port(backend: Backend, tmp_path: Path) -> None:
    import subprocess

    import httpx

    state = tmp_path / "state.sqlite"
    token = run_axag(["serve", "token", "add", "alice", "--roles", "finance", "--state", str(state)]).stdout.strip()
    notified = tmp_path / "notified.jsonl"
    port = free_port()
    args = [*serve_args(state, backend, "--approval-mode", "tell", "--notify-command",
                        f"{sys.executable} -c \"{NOTIFY}\" {notified}"), "--http", f"127.0.0.1:{port}"]
    proc = subprocess.Popen([sys.executable, *args], env=_env(), cwd=str(ROOT), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)

    async def go() -> None:
        from mcp.client.streamable_http import streamable_http_client

        await _wait_port(port)
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as hc, Client(
                streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=hc), mode="legacy") as client:
            told = env_of(await client.call_tool("request_permission", {"tool": TOOL, "arguments": ARGS,
                                                                        "reason": "Over HTTP."}))
            assert told["permission"] == "approval_required"

    try:
        asyncio.run(go())
        link = json.loads(notified.read_text())["link"]
        assert link.startswith(f"http://127.0.0.1:{port}/approvals/r")
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as web:
            assert web.get("/mcp").status_code == 401  # the MCP endpoint still wants a bearer token
            first = web.get(link)
            assert first.status_code == 303 and first.headers["location"].startswith("/approvals/r")
            assert "httponly" in first.headers["set-cookie"].lower()
            assert "samesite=strict" in first.headers["set-cookie"].lower()
            page = web.get(first.headers["location"])
            assert page.status_code == 200 and 'name="csrf"' in page.text
            assert web.get(link).status_code == 303  # opening is repeatable until the request is decided
    finally:
        proc.kill()
        _, err = proc.communicate(timeout=10)
    assert link.split("code=")[1] not in err


def test_desk_flag_lists_request_permission_and_ungated_tools_need_none(backend: Backend, tmp_path: Path) -> None:
    shop = ROOT / "tests" / "data" / "serve" / "site"
    state = tmp_path / "state.sqlite"
    args = ["-m", "axag", "serve", str(shop), "--base-url", backend.url, "--state", str(state), "--allow-unbound"]
    errfile = (tmp_path / "stderr.txt").open("w+")

    async def go() -> None:
        async with recorded_client(args, [], errfile) as client:
            assert "request_permission" not in [t.name for t in (await client.list_tools()).tools]
        async with recorded_client([*args, "--desk"], [], errfile) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert "enum" not in listed["request_permission"].input_schema["properties"]["tool"]
            answer = env_of(await client.call_tool("request_permission", {
                "tool": "order_place", "arguments": {}, "reason": "Why not."}))
            assert answer == {"success": True, "permission": "not_required", "violations": [],
                              "guidance": "order_place needs no approval: call it directly. Nothing was requested.",
                              "tool": "order_place"}

    asyncio.run(go())
    assert run_axag(["approvals", "list", "--state", str(state)]).stdout == ""


def test_2026_session_gets_the_link_as_an_input_required_url_elicitation(backend: Backend, tmp_path: Path) -> None:
    """2026-07-28 sessions take no mid-call requests: the URL elicitation travels in an `InputRequiredResult`, the
    client's retry (carrying the signed state) waits on the same request; two approvers decide with the CLI."""
    state = tmp_path / "state.sqlite"
    tokens = approvers(state)
    log: list[tuple[str, str]] = []
    errfile = (tmp_path / "stderr.txt").open("w+")
    links: list[str] = []
    before = len(backend.calls("/refunds"))
    args = serve_args(state, backend, "--desk-http", f"127.0.0.1:{free_port()}")

    async def elicit(ctx: Any, params: Any) -> types.ElicitResult:
        assert params.mode == "url"
        links.append(params.url)
        return types.ElicitResult(action="accept")

    async def approve_when_asked() -> None:
        with anyio.fail_after(20):
            while not links:
                await anyio.sleep(0.05)
        rid = re.search(r"/approvals/(r[0-9a-f]{12})", links[0]).group(1)  # type: ignore[union-attr]
        for name in ("bob", "carol"):
            done = await anyio.run_process([sys.executable, "-m", "axag", "approvals", "approve", rid, "--as", name,
                                            "--state", str(state)], env={**_env(), "AXAG_APPROVER_TOKEN": tokens[name]},
                                           cwd=str(ROOT), check=False)
            assert done.returncode == 0, done.stderr

    async def go() -> None:
        async with recorded_client(args, log, errfile, elicit, mode="auto") as client:
            assert client.protocol_version == "2026-07-28"
            async with anyio.create_task_group() as tg:
                tg.start_soon(approve_when_asked)
                result = env_of(await client.call_tool("request_permission", {
                    "tool": TOOL, "arguments": ARGS, "reason": "Modern client."}))
            assert result["permission"] == "approved" and result["result"]["status"] == 200

    asyncio.run(go())
    assert len(links) == 1 and len(backend.calls("/refunds")) == before + 1
    code = links[0].split("code=")[1]
    carriers = [text for _, text in log if code in text]
    assert len(carriers) == 1 and '"resultType":"input_required"' in carriers[0] and '"mode":"url"' in carriers[0]
    (row,) = run_axag(["approvals", "list", "--state", str(state), "--json"]).stdout.splitlines()
    assert json.loads(row)["status"] == "approved"
