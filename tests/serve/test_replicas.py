"""Two `axag serve --http` processes on one PostgreSQL database (a real server, tests/pg_server.py)
in front of one real loopback backend that counts what reaches it (tests/serve_backend.py). The SDK's MCP client
talks to both; approvers decide on the approval page over HTTP with their own tokens.

- 20 concurrent calls split across both replicas against a limit of 2 a minute: exactly 2 reach the backend;
- a confirmation (2026-07-28: the signed retry) and a call-scoped approval are used once across both;
- a request approved through replica A's page (its link made with --public-url) completes a call waiting on B;
- `kill -9` of a replica mid-call loses nothing the other needs: its rate-limit entry and its pending request."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import psycopg
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import run_axag
from tests.serve.test_approvals import NOTIFY, _env
from tests.serve_backend import Backend, free_port, running_backend

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "tests" / "data" / "serve" / "shared"
REFUND = {"order": "O1001", "total": 120}


@pytest.fixture(scope="module")
def backend() -> Iterator[Backend]:
    with running_backend(SITE) as b:
        yield b


class Replica:
    """`axag serve SITE --http 127.0.0.1:PORT --state URL …` as a subprocess."""

    def __init__(self, state: str, backend: Backend, tmp: Path, *extra: str) -> None:
        self.port = free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.url = self.origin + "/mcp"
        self.log = tmp / f"replica-{self.port}.log"
        args = [sys.executable, "-m", "axag", "serve", str(SITE), "--base-url", backend.url, "--state", state,
                "--http", f"127.0.0.1:{self.port}", *extra]
        with self.log.open("w") as log:
            self.proc = subprocess.Popen(args, env=_env(), cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"axag serve exited: {self.log.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                assert time.monotonic() < deadline, "axag serve did not start"
                time.sleep(0.05)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


@contextmanager
def replicas(state: str, backend: Backend, tmp: Path, *extra: str, count: int = 2) -> Iterator[list[Replica]]:
    started: list[Replica] = []
    try:
        for _ in range(count):
            started.append(Replica(state, backend, tmp, *extra))
        yield started
    finally:
        for r in started:
            r.kill()


@contextmanager
def page_and_waiter(state: str, backend: Backend, tmp: Path) -> Iterator[tuple[Replica, Replica, Path]]:
    """Replica A, and replica B whose approval links (--public-url) point at A and whose notifier writes to the
    file yielded third."""
    notified = tmp / "notified.jsonl"
    with replicas(state, backend, tmp, count=1) as (a,):
        extra = ("--public-url", a.origin, "--notify-command", f"{sys.executable} -c \"{NOTIFY}\" {notified}")
        with replicas(state, backend, tmp, *extra, count=1) as (b,):
            yield a, b, notified


@asynccontextmanager
async def client(url: str, token: str, mode: str = "legacy", elicit: Any = None) -> AsyncIterator[Client]:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as hc, Client(
            streamable_http_client(url, http_client=hc), mode=mode, elicitation_callback=elicit) as c:
        yield c


def add(kind: str, state: str, name: str, roles: str) -> str:
    res = run_axag(["serve", kind, "add", name, "--roles", roles, "--state", state])
    assert res.exit_code == 0, res.output
    with psycopg.connect(state) as db:  # in the PostgreSQL database, where every replica finds it
        table = "tokens" if kind == "token" else "approvers"
        assert db.execute(f"SELECT count(*) FROM {table} WHERE name = %s", (name,)).fetchone() == (1,)
    return res.stdout.strip()


def posts(backend: Backend, path: str) -> list[Any]:
    return [r for r in backend.calls(path) if r.method == "POST"]


def envelope(result: Any) -> dict[str, Any]:
    assert isinstance(result, types.CallToolResult), result
    assert result.structured_content is not None
    return dict(result.structured_content)


def approve_on_page(link: str, token: str, action: str = "approve_call") -> tuple[int, str]:
    """Open the link (code -> page session cookie), read the CSRF token, post the decision; (status, page)."""
    with httpx2.Client(follow_redirects=False, timeout=30) as web:
        opened = web.get(link)
        assert opened.status_code == 303, opened.text
        page_url = link.split("?")[0]
        page = web.get(page_url)
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert page.status_code == 200 and csrf is not None, page.text
        done = web.post(page_url, data={"csrf": csrf.group(1), "token": token, "action": action})
        return done.status_code, done.text


def test_rate_limit_is_exact_across_two_replicas(backend: Backend, pg_url: str, tmp_path: Path) -> None:
    token = add("token", pg_url, "ann", "")

    async def go(urls: list[str]) -> list[dict[str, Any]]:
        async with client(urls[0], token) as a, client(urls[1], token) as b:
            calls = [(a, b)[i % 2].call_tool("ping_send", {"n": str(i)}) for i in range(20)]
            return [envelope(r) for r in await asyncio.gather(*calls)]

    before = len(posts(backend, "/ping"))
    with replicas(pg_url, backend, tmp_path) as (a, b):
        answers = asyncio.run(go([a.url, b.url]))
    assert len(posts(backend, "/ping")) - before == 2
    assert sorted(e["permission"] for e in answers) == ["not_required"] * 2 + ["rate_limited"] * 18
    with psycopg.connect(pg_url) as db:  # the state is in PostgreSQL: the two admitted calls, the 20 audited
        assert db.execute("SELECT count(*) FROM calls WHERE intent = 'ping.send'").fetchone() == (2,)
        assert db.execute("SELECT permission, count(*) FROM audit GROUP BY permission ORDER BY 1").fetchall() == [
            ("not_required", 2), ("rate_limited", 18)]


def test_a_confirmation_is_used_once_across_two_replicas(backend: Backend, pg_url: str, tmp_path: Path) -> None:
    """2026-07-28: the retry carries the user's answer and the signed request_state (signed with the secret both
    replicas share); sent to both replicas at once, ten times each, it runs once."""
    token = add("token", pg_url, "ann", "")
    yes = {"confirm": types.ElicitResult(action="accept", content={"confirm": True})}

    async def accept(ctx: Any, params: Any) -> types.ElicitResult:  # declares elicitation; never asked mid-call
        return types.ElicitResult(action="accept", content={"confirm": True})

    async def go(urls: list[str]) -> list[Any]:
        async with client(urls[0], token, "auto", accept) as a, client(urls[1], token, "auto", accept) as b:
            asked = await a.session.call_tool("transfer_make", {"amount": 5}, allow_input_required=True)
            assert isinstance(asked, types.InputRequiredResult), asked
            assert asked.input_requests["confirm"].params.message == "Transfer 5 EUR?"
            retries = [(a, b)[i % 2].session.call_tool("transfer_make", {"amount": 5}, input_responses=yes,
                                                       request_state=asked.request_state,
                                                       allow_input_required=True) for i in range(20)]
            return list(await asyncio.gather(*retries))

    before = len(posts(backend, "/transfers"))
    with replicas(pg_url, backend, tmp_path) as (a, b):
        answers = asyncio.run(go([a.url, b.url]))
    assert len(posts(backend, "/transfers")) - before == 1
    ran = [r for r in answers if isinstance(r, types.CallToolResult) and not r.is_error]
    assert len(ran) == 1
    assert all(envelope(r)["permission"] == "confirmation_required" for r in answers if r not in ran)


def test_approved_on_replica_a_completes_the_call_waiting_on_b_once(backend: Backend, pg_url: str,
                                                                    tmp_path: Path) -> None:
    """B waits for the approval (wait mode); the link the notifier gets is on A (--public-url: the load
    balancer's address, here A's); carol approves this call on A's page; B's waiting call runs. The call-scoped
    approval is then used: the same call on A, or on B, is refused and reaches nothing."""
    token = add("token", pg_url, "bob", "")
    carol = add("approver", pg_url, "carol", "finance")
    with page_and_waiter(pg_url, backend, tmp_path) as (a, b, notified):

        async def go() -> tuple[dict[str, Any], float, list[dict[str, Any]]]:
            async with client(b.url, token) as on_b, client(a.url, token) as on_a:
                waiting = asyncio.ensure_future(on_b.call_tool("request_permission", {
                    "tool": "refund_issue", "arguments": json.dumps(REFUND), "reason": "Broken on arrival."}))
                deadline = time.monotonic() + 30
                while not notified.exists() or not notified.read_text().strip():
                    assert time.monotonic() < deadline and not waiting.done(), "nobody was notified"
                    await asyncio.sleep(0.05)
                link = json.loads(notified.read_text().splitlines()[0])["link"]
                assert link.startswith(f"{a.origin}/approvals/r")
                status, page = await asyncio.to_thread(approve_on_page, link, carol)
                assert status == 200 and "Recorded: carol approved this call" in page, page
                approved_at = time.monotonic()
                done = envelope(await waiting)
                waited = time.monotonic() - approved_at
                again = [envelope(await c.call_tool("refund_issue", REFUND)) for c in (on_a, on_b)]
                return done, waited, again

        before = len(posts(backend, "/refunds"))
        done, waited, again = asyncio.run(go())
    assert done["permission"] == "approved" and done["result"]["status"] == 200, done
    assert waited < 5.0  # the waiting call polls every 0.2 s (--approval-ttl aside, never longer)
    assert [e["permission"] for e in again] == ["approval_required", "approval_required"]
    assert len(posts(backend, "/refunds")) - before == 1


def test_call_scoped_approval_is_used_once_across_two_replicas(backend: Backend, pg_url: str,
                                                               tmp_path: Path) -> None:
    """Tell mode: the request is approved (this call) with `axag approvals approve`; then ten direct calls to each
    replica at once: one runs."""
    token = add("token", pg_url, "bob", "")
    carol = add("approver", pg_url, "carol", "finance")

    async def ask(url: str) -> str:
        async with client(url, token) as c:
            told = envelope(await c.call_tool("request_permission", {
                "tool": "refund_issue", "arguments": json.dumps(REFUND), "reason": "Broken on arrival."}))
            assert told["permission"] == "approval_required", told
            return str(re.search(r"Approval request (r[0-9a-f]+)", told["guidance"]).group(1))  # type: ignore[union-attr]

    async def race(urls: list[str]) -> list[dict[str, Any]]:
        async with client(urls[0], token) as a, client(urls[1], token) as b:
            calls = [(a, b)[i % 2].call_tool("refund_issue", REFUND) for i in range(20)]
            return [envelope(r) for r in await asyncio.gather(*calls)]

    before = len(posts(backend, "/refunds"))
    with replicas(pg_url, backend, tmp_path, "--approval-mode", "tell") as (a, b):
        rid = asyncio.run(ask(b.url))
        res = subprocess.run([sys.executable, "-m", "axag", "approvals", "approve", rid, "--scope", "call",
                              "--state", pg_url], env={**_env(), "AXAG_APPROVER_TOKEN": carol}, cwd=str(ROOT),
                             capture_output=True, text=True, check=False)
        assert res.returncode == 0, res.stderr
        answers = asyncio.run(race([a.url, b.url]))
    assert len(posts(backend, "/refunds")) - before == 1
    assert sorted(e["permission"] for e in answers) == ["approval_required"] * 19 + ["approved"]


def test_kill_9_of_a_replica_mid_call_loses_nothing_the_other_needs(backend: Backend, pg_url: str,
                                                                    tmp_path: Path) -> None:
    """B is killed while its ping is at the backend and while its request_permission waits: A counts B's ping
    against the limit (one more, then rate_limited), and A's page and the CLI find B's pending request; once
    approved, the call asked again on A runs (once)."""
    token = add("token", pg_url, "bob", "")
    carol = add("approver", pg_url, "carol", "finance")
    with page_and_waiter(pg_url, backend, tmp_path) as (a, b, notified):

        async def on_b() -> None:
            async with client(b.url, token) as c:
                asked = asyncio.ensure_future(c.call_tool("request_permission", {
                    "tool": "refund_issue", "arguments": json.dumps(REFUND), "reason": "Broken on arrival."}))
                pinged = len(backend.calls("/ping"))
                backend.mode = "slow"  # the ping stays at the backend for a second
                ping = asyncio.ensure_future(c.call_tool("ping_send", {"n": "1"}))
                deadline = time.monotonic() + 30
                while len(backend.calls("/ping")) == pinged or not notified.exists():
                    assert time.monotonic() < deadline
                    await asyncio.sleep(0.02)
                assert not asked.done() and not ping.done()
                b.kill()  # mid-call: the ping is in flight, request_permission is waiting
                for task in (asked, ping):
                    task.cancel()

        try:
            asyncio.run(on_b())
        except Exception as exc:  # noqa: BLE001 - the killed server's session may end with an error
            assert "AssertionError" not in repr(exc), exc
        finally:
            backend.mode = "ok"
        assert b.proc.returncode == -signal.SIGKILL

        listed = subprocess.run([sys.executable, "-m", "axag", "approvals", "list", "--status", "pending", "--json",
                                 "--state", pg_url], env=_env(), cwd=str(ROOT), capture_output=True, text=True,
                                check=True)
        [pending] = [json.loads(line) for line in listed.stdout.splitlines()]
        assert (pending["tool"], pending["actor"], pending["arguments"]) == ("refund_issue", "bob", REFUND)
        link = json.loads(notified.read_text().splitlines()[0])["link"]
        status, page = approve_on_page(link, carol)  # B made the link; A serves its page
        assert status == 200 and "the request is approved" in page, page

        async def on_a() -> tuple[list[str], dict[str, Any]]:
            async with client(a.url, token) as c:
                pings = [envelope(await c.call_tool("ping_send", {"n": str(n)}))["permission"] for n in (2, 3)]
                refund = envelope(await c.call_tool("refund_issue", REFUND))
                return pings, refund

        refunds = len(posts(backend, "/refunds"))
        pings, refund = asyncio.run(on_a())
    assert pings == ["not_required", "rate_limited"]  # B's ping, killed mid-call, still counts
    assert refund["permission"] == "approved", refund
    assert len(posts(backend, "/refunds")) - refunds == 1
