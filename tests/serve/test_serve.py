"""`axag serve` end to end: the SDK's own MCP client talks to `axag serve` running as a subprocess, over
stdio and over streamable HTTP on a loopback port, and the served tools reach a real backend (tests/serve_backend.py,
uvicorn on loopback) that issues a fresh CSRF token per page load and records every request. Nothing is mocked."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

try:
    import mcp  # noqa: F401 - the `serve` extra
except ImportError:  # pragma: no cover - a clone without the serve extra; CI installs it (.[test])
    if os.environ.get("CI"):
        raise
    pytest.skip("axag[serve] is not installed", allow_module_level=True)

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from axag.api import compile_paths
from tests.conftest import run_axag
from tests.serve_backend import Backend, free_port, running_backend

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "fixtures" / "site"
SHOP = ROOT / "tests" / "data" / "serve" / "site"
DATA = ROOT / "tests" / "data" / "serve"
BOOK = {"check_in": "2026-05-01", "check_out": "2026-05-03", "guests": 2, "email": "ann@example.org",
        "board": "breakfast"}
PRECONDITIONS = '''from collections.abc import Mapping

from ._runtime import GuardContext


def booking_is_not_checked_in(arguments: Mapping[str, object], context: GuardContext, tool: str) -> bool:
    return True


def room_available(arguments: Mapping[str, object], context: GuardContext, tool: str) -> bool:
    return arguments.get("email") != "full@example.org"


def season_is_open(arguments: Mapping[str, object], context: GuardContext, tool: str) -> bool:
    return True
'''


# ---------------------------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def backend() -> Iterator[Backend]:
    with running_backend(SITE, SHOP) as b:
        yield b


@pytest.fixture(scope="module")
def guards_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site's guard package with implemented preconditions (the integrator's `axag guards` output)."""
    from axag.api import render_guards

    doc, _ = compile_paths([SITE], root=str(SITE))
    out = tmp_path_factory.mktemp("guards") / "site_guards"
    for rel, text in render_guards(doc).items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text, encoding="utf-8")
    (out / "preconditions.py").write_text(PRECONDITIONS, encoding="utf-8")
    return out


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(DATA), env.get("PYTHONPATH", "")])
    return env


def serve_args(state: Path, *extra: str) -> list[str]:
    return ["-m", "axag", "serve", *extra, "--state", str(state)]


def accept(answer: bool = True) -> Any:
    async def callback(ctx: Any, params: Any) -> types.ElicitResult:
        callback.asked.append(params.message)  # type: ignore[attr-defined]
        return types.ElicitResult(action="accept", content={"confirm": answer})

    callback.asked = []  # type: ignore[attr-defined]
    return callback


@asynccontextmanager
async def stdio_client(args: list[str], mode: str, elicit: Any = None) -> AsyncIterator[Client]:
    params = StdioServerParameters(command=sys.executable, args=args, env=_env(), cwd=str(ROOT))
    async with Client(params, mode=mode, elicitation_callback=elicit) as client:
        yield client


def _wait_port(port: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"axag serve exited: {proc.stderr.read() if proc.stderr else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("axag serve did not start")


@contextmanager
def http_server(args: list[str]) -> Iterator[str]:
    """`axag serve ... --http 127.0.0.1:PORT` as a subprocess; yields the MCP endpoint URL; always stopped."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, *args, "--http", f"127.0.0.1:{port}"], env=_env(), cwd=str(ROOT),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


@asynccontextmanager
async def http_client(url: str, token: str | None, mode: str, elicit: Any = None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as hc, Client(
            streamable_http_client(url, http_client=hc), mode=mode, elicitation_callback=elicit) as client:
        yield client


def add_token(state: Path, name: str, roles: str) -> str:
    out = subprocess.run([sys.executable, "-m", "axag", "serve", "token", "add", name, "--roles", roles,
                          "--state", str(state)], env=_env(), cwd=str(ROOT), capture_output=True, text=True,
                         check=True)
    return out.stdout.strip()


def posts(backend: Backend, path: str) -> list[Any]:
    return [r for r in backend.calls(path) if r.method == "POST"]


# ---------------------------------------------------------------------------------------------- stdio, both eras
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_stdio_session_lists_the_compiled_tools_and_guards_every_call(
        mode: str, backend: Backend, guards_dir: Path, tmp_path: Path) -> None:
    doc, _ = compile_paths([SITE], root=str(SITE))
    args = serve_args(tmp_path / "state.sqlite", str(SITE), "--base-url", backend.url, "--allow-unbound",
                      "--guards", str(guards_dir), "--actor", "ann", "--roles", "guest")

    async def go() -> None:
        elicit = accept()
        async with stdio_client(args, mode, elicit) as client:
            assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
            listed = await client.list_tools()
            listed_tools = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed.tools]
            assert listed_tools[:-1] == doc["tools"]  # then request_permission: rate_update needs approval
            assert listed_tools[-1]["name"] == "request_permission"

            # a good call: GET of the page (fresh token, cookie), then the browser's POST
            before = len(backend.requests)
            res = await client.call_tool("booking_create", BOOK)
            assert not res.is_error, res.structured_content
            assert elicit.asked == ["Book 2 guests from 2026-05-01 to 2026-05-03?"]
            env = res.structured_content
            assert env["success"] is True and env["permission"] == "not_required"
            assert env["result"] == {"status": 201, "content_type": "application/json",
                                     "body": {"booking": "B000123", "guests": "2"}}
            assert json.loads(res.content[0].text) == env
            page, post = backend.requests[before:]
            assert (page.method, page.path) == ("GET", "/booking.html")
            assert (post.method, post.path, post.content_type) == (
                "POST", "/bookings", "application/x-www-form-urlencoded")
            token = backend.tokens[post.cookies["sid"]]
            assert post.form == [("check_in", "2026-05-01"), ("check_out", "2026-05-03"), ("guests", "2"),
                                 ("email", "ann@example.org"), ("board", "breakfast"), ("csrf", token)]
            assert token != "token"

            # value, relational and role violations: isError, the backend untouched
            before = len(backend.requests)
            res = await client.call_tool("booking_create", {**BOOK, "guests": 12})
            assert res.is_error and res.structured_content["permission"] == "constraint_violated"
            assert res.structured_content["violations"][0]["field"] == "guests"
            res = await client.call_tool("booking_create", {**BOOK, "check_out": "2026-04-01"})
            assert res.is_error and res.structured_content["violations"][0]["constraint"] == "greater_than"
            res = await client.call_tool("rate_update", {"category": "suite", "rate": 90, "valid_from": "2026-05-01",
                                                         "valid_until": "2026-05-02"})
            assert res.is_error and res.structured_content["permission"] == "denied"
            assert "lacks the role staff" in res.structured_content["guidance"]
            res = await client.call_tool("booking_create", {**BOOK, "email": "full@example.org"})
            assert res.structured_content["permission"] == "precondition_failed"
            assert len(backend.requests) == before
            assert len(elicit.asked) == 1  # invalid calls never ask the user

            # a GET form: the query string
            res = await client.call_tool("site_search", {"q": "sea view"})
            assert res.structured_content["result"]["body"] == {"results": ["sea view"]}
            assert backend.requests[-1].query == [("q", "sea view")]

            # an unbound tool (--allow-unbound) refuses before any confirmation is asked
            res = await client.call_tool("booking_cancel", {"booking_id": "B000001"})
            assert res.is_error and res.structured_content["permission"] == "denied"
            assert "not connected" in res.structured_content["guidance"]
            assert len(elicit.asked) == 1

    asyncio.run(go())


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_confirmation_declined_and_unsupported(mode: str, backend: Backend, guards_dir: Path,
                                               tmp_path: Path) -> None:
    args = serve_args(tmp_path / "state.sqlite", str(SITE), "--base-url", backend.url, "--allow-unbound",
                      "--guards", str(guards_dir))

    async def go() -> None:
        before = len(posts(backend, "/bookings"))
        decline = accept(False)
        async with stdio_client(args, mode, decline) as client:
            res = await client.call_tool("booking_create", BOOK)
            assert res.is_error and res.structured_content["permission"] == "confirmation_required"
            assert "the user declined" in res.structured_content["guidance"]
            assert decline.asked == ["Book 2 guests from 2026-05-01 to 2026-05-03?"]
        async with stdio_client(args, mode, None) as client:
            res = await client.call_tool("booking_create", BOOK)
            guidance = res.structured_content["guidance"]
            assert res.is_error and res.structured_content["permission"] == "confirmation_required"
            assert "this client cannot ask the user" in guidance and "A person is being asked" not in guidance
            assert "caller_only" not in res.structured_content
        assert len(posts(backend, "/bookings")) == before

    asyncio.run(go())


# ---------------------------------------------------------------------------------------------- start-up
def test_unbound_tools_are_refused_at_start(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, *serve_args(tmp_path / "s.sqlite", str(SITE), "--base-url",
                                                      "http://127.0.0.1:9")],
                          check=False, env=_env(), cwd=str(ROOT), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert ("these tools have no HTTP binding and no handler: booking_cancel, room_compare, session_sign_out"
            in proc.stderr)


@pytest.mark.parametrize(("args", "message"), [
    (["nowhere"], "nowhere: no such file or folder"),
    ([str(SITE), "--allow-unbound"], "--base-url is required"),
    ([str(SITE), "--allow-unbound", "--base-url", "ftp://x"], "expected an http:// or https:// URL"),
    ([str(SITE), "--allow-unbound", "--base-url", "http://x", "--http", "nohost:port"], "expected HOST:PORT"),
    ([str(SHOP), "--base-url", "http://x", "--handlers", "json:dumps"], "json:dumps: dumps is not a mapping"),
    ([str(SHOP), "--base-url", "http://x", "--handlers", "no_such_module_x:H"], "cannot import no_such_module_x"),
    ([str(SHOP), "--base-url", "http://x", "--openapi", str(SHOP / "shop.html")], "is not valid JSON"),
])
def test_bad_inputs_and_flags_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    res = run_axag(["serve", *args, "--state", str(tmp_path / "s.sqlite")])
    assert res.exit_code == 2
    assert message in res.stderr


def test_bad_tools_file_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "tools.json"
    bad.write_text('{"tools": 1}', encoding="utf-8")
    res = run_axag(["serve", str(bad), "--state", str(tmp_path / "s.sqlite")])
    assert res.exit_code == 2
    assert "is not a valid MCP tools file" in res.stderr


# ---------------------------------------------------------------------------------------------- HTTP mode
@pytest.fixture(scope="module")
def shop_http(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, dict[str, str]]]:
    state = tmp_path_factory.mktemp("shop") / "state.sqlite"
    tokens = {"ann": add_token(state, "ann", "clerk"), "bob": add_token(state, "bob", "")}
    args = serve_args(state, str(SHOP), "--base-url", backend.url, "--openapi", str(DATA / "openapi.yaml"),
                      "--handlers", "shop_handlers:HANDLERS", "--timeout", "3")  # a deadline per call
    with http_server(args) as url:
        yield url, state, tokens


def test_http_needs_a_token(shop_http: tuple[str, Path, dict[str, str]]) -> None:
    url, _, _ = shop_http
    assert httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).status_code == 401
    wrong = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                        headers={"Authorization": "Bearer axag_wrong"})
    assert wrong.status_code == 401


def test_http_form_binding_multipart_checkbox_constants_and_per_actor_rate_limits(
        backend: Backend, shop_http: tuple[str, Path, dict[str, str]]) -> None:
    url, state, tokens = shop_http

    async def go() -> None:
        async with http_client(url, tokens["ann"], "legacy") as ann, http_client(url, tokens["bob"], "auto") as bob:
            res = await ann.call_tool("order_place", {"item_code": "A-1", "wrap": True})
            assert not res.is_error, res.structured_content
            post = posts(backend, "/orders")[-1]
            assert post.content_type.startswith("multipart/form-data; boundary=")
            assert post.form == [("itemCode", "A-1"), ("wrap", "yes"), ("nonce", backend.tokens[post.cookies["sid"]]),
                                 ("currency", "EUR"), ("op", "place")]
            res = await ann.call_tool("order_place", {"item_code": "A-2", "wrap": False})
            assert ("wrap", "yes") not in posts(backend, "/orders")[-1].form
            before = len(backend.requests)
            res = await ann.call_tool("order_place", {"item_code": "A-3"})
            assert res.is_error and res.structured_content["permission"] == "rate_limited"
            assert len(backend.requests) == before
            res = await bob.call_tool("order_place", {"item_code": "B-1"})  # another actor, another bucket
            assert not res.is_error, res.structured_content

            # formaction/formmethod of the submitter win
            res = await bob.call_tool("thing_find", {"x": "lamp"})
            assert (backend.requests[-1].method, backend.requests[-1].path, backend.requests[-1].query) == (
                "GET", "/find", [("x", "lamp")])
            # an OpenAPI-bound button: path and query per the operation
            res = await bob.call_tool("getStock", {"sku": "S 1", "warehouse": "north"})
            last = backend.requests[-1]
            assert (last.method, last.path, last.query) == ("GET", "/api/stock/S 1", [("warehouse", "north")])
            assert res.structured_content["result"]["status"] == 200
            # a handlers module
            res = await bob.call_tool("note_add", {"text": "hello"})
            assert res.structured_content["result"] == {"stored": "hello"}
            res = await bob.call_tool("note_add", {"text": "x" * 51})
            assert res.structured_content["permission"] == "constraint_violated"

    asyncio.run(go())
    from axag.serve.state import SqliteStore

    rows = SqliteStore(state).audit_rows()
    assert {r["actor"] for r in rows} >= {"ann", "bob"}
    assert all(r["arguments"] is None for r in rows)  # values only with --audit-arguments
    assert {"order_place", "note_add"} <= {r["tool"] for r in rows}


def test_http_backend_failures_are_errors_quoting_the_backend(backend: Backend,
                                                              shop_http: tuple[str, Path, dict[str, str]]) -> None:
    url, _, tokens = shop_http

    async def go() -> None:
        async with http_client(url, tokens["bob"], "legacy") as bob:
            backend.mode = "500"
            try:
                before = len(backend.calls("/find"))
                res = await bob.call_tool("thing_find", {"x": "a"})
                assert len(backend.calls("/find")) == before + 1  # never retried
            finally:
                backend.mode = "ok"
            env = res.structured_content
            assert res.is_error and env["success"] is False and env["result"]["status"] == 500
            assert 'HTTP 500: "Internal trouble: the database is down"' in env["guidance"]
            backend.mode = "hang"
            try:
                res = await bob.call_tool("thing_find", {"x": "b"})
            finally:
                backend.mode = "ok"
            assert res.is_error and res.structured_content["result"]["error"] == "timeout"

    asyncio.run(go())


def test_connection_refused_and_default_guards(tmp_path: Path) -> None:
    """Without --guards, serve runs the guards it renders itself; their opaque preconditions have no
    implementation, so tools that need one refuse (nothing is sent). The tools come from a tools.json here."""
    from axag.compile.serialize import dumps

    doc, _ = compile_paths([SITE], root=str(SITE))
    (tmp_path / "tools.json").write_text(dumps(doc), encoding="utf-8")
    args = serve_args(tmp_path / "s.sqlite", str(tmp_path / "tools.json"), "--base-url",
                      f"http://127.0.0.1:{free_port()}", "--allow-unbound")

    async def go() -> None:
        async with stdio_client(args, "legacy", accept()) as client:
            # the compiled tools, then request_permission: rate_update needs approval
            assert [t.name for t in (await client.list_tools()).tools] == [
                *(t["name"] for t in doc["tools"]), "request_permission"]
            res = await client.call_tool("site_search", {"q": "x"})
            assert res.is_error
            assert res.structured_content["result"]["error"] == "connection_failed"
            assert "connection_failed" in res.structured_content["guidance"]
            res = await client.call_tool("booking_create", BOOK)
            assert res.is_error and res.structured_content["permission"] == "precondition_failed"
            assert '"room_available" (used by booking_create) is not implemented' in (
                res.structured_content["guidance"])
            res = await client.call_tool("booking_cancel", {"booking_id": "B000001"})  # unbound: refused first
            assert res.is_error and res.structured_content["permission"] == "denied"

    asyncio.run(go())


def test_fifty_calls_in_flight(backend: Backend, shop_http: tuple[str, Path, dict[str, str]]) -> None:
    url, _, tokens = shop_http

    async def go() -> None:
        async with http_client(url, tokens["bob"], "auto") as bob:
            results = await asyncio.gather(*(bob.call_tool("thing_find", {"x": f"q{i}"}) for i in range(50)))
        assert all(not r.is_error for r in results)
        assert {r.structured_content["result"]["body"]["form"] == [] for r in results} == {True}

    before = len(backend.calls("/find"))
    asyncio.run(go())
    assert len(backend.calls("/find")) == before + 50


def test_roles_come_from_the_token(backend: Backend, guards_dir: Path, tmp_path: Path) -> None:
    state = tmp_path / "state.sqlite"
    staff = add_token(state, "sam", "staff")
    guest = add_token(state, "gus", "guest")
    args = serve_args(state, str(SITE), "--base-url", backend.url, "--allow-unbound", "--guards", str(guards_dir),
                      "--audit-arguments")
    call = {"category": "suite", "rate": 90, "valid_from": "2026-05-01", "valid_until": "2026-05-02"}

    async def go(url: str) -> None:
        async with http_client(url, guest, "legacy", accept()) as client:
            res = await client.call_tool("rate_update", call)
            assert res.structured_content["permission"] == "denied"
        async with http_client(url, staff, "legacy", accept()) as client:
            res = await client.call_tool("rate_update", call)
            # staff passes the role gate; the approval gate follows, and nobody is falsely said to be asked
            assert res.structured_content["permission"] == "approval_required"
            assert "Nobody has been asked yet: call request_permission" in res.structured_content["guidance"]

    with http_server(args) as url:
        asyncio.run(go(url))
    from axag.serve.state import SqliteStore

    rows = SqliteStore(state).audit_rows()
    assert [(r["actor"], r["tool"], r["permission"], r["backend_status"]) for r in rows] == [
        ("gus", "rate_update", "denied", None), ("sam", "rate_update", "approval_required", None)]
    assert [json.loads(r["arguments"]) for r in rows] == [call, call]  # --audit-arguments
    assert len({r["fingerprint"] for r in rows}) == 1 and all(r["duration_ms"] >= 0 for r in rows)


def test_kill_9_and_restart_keep_a_consumed_confirmation(backend: Backend, guards_dir: Path,
                                                         tmp_path: Path) -> None:
    """2026-07-28: the retried call carries the user's answer and the signed request_state; replaying that retry
    after the server was killed and restarted finds the confirmation consumed in the state database."""
    state = tmp_path / "state.sqlite"
    token = add_token(state, "ann", "")
    args = serve_args(state, str(SITE), "--base-url", backend.url, "--allow-unbound", "--guards", str(guards_dir))
    yes = {"confirm": types.ElicitResult(action="accept", content={"confirm": True})}

    async def first(url: str) -> str:
        async with http_client(url, token, "auto", accept()) as client:
            asked = await client.session.call_tool("booking_create", BOOK, allow_input_required=True)
            assert isinstance(asked, types.InputRequiredResult)
            assert asked.input_requests["confirm"].params.message == "Book 2 guests from 2026-05-01 to 2026-05-03?"
            done = await client.session.call_tool("booking_create", BOOK, input_responses=yes,
                                                  request_state=asked.request_state, allow_input_required=True)
            assert isinstance(done, types.CallToolResult) and not done.is_error, done
            assert asked.request_state is not None
            return asked.request_state

    async def replay(url: str, request_state: str) -> types.CallToolResult:
        async with http_client(url, token, "auto", accept()) as client:
            body, mac = request_state.split(".")
            forged = body[:-2] + ("AA" if body[-2:] != "AA" else "BB") + "." + mac
            for bad in (forged, "", "x.y"):  # a state not signed by this database: the user is asked again
                asked = await client.session.call_tool("booking_create", BOOK, input_responses=yes,
                                                       request_state=bad, allow_input_required=True)
                assert isinstance(asked, types.InputRequiredResult)
            again = await client.session.call_tool("booking_create", BOOK, input_responses=yes,
                                                   request_state=request_state, allow_input_required=True)
            assert isinstance(again, types.CallToolResult)
            return again

    port = free_port()
    cmd = [sys.executable, *args, "--http", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(cmd, env=_env(), cwd=str(ROOT), stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        _wait_port(port, proc)  # type: ignore[arg-type]
        request_state = asyncio.run(first(f"http://127.0.0.1:{port}/mcp"))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    before = len(posts(backend, "/bookings"))
    with http_server(args) as url:
        again = asyncio.run(replay(url, request_state))
    assert again.is_error and again.structured_content["permission"] == "confirmation_required"
    assert len(posts(backend, "/bookings")) == before


def test_sigterm_lets_the_call_in_flight_finish(backend: Backend, guards_dir: Path, tmp_path: Path) -> None:
    state = tmp_path / "state.sqlite"
    token = add_token(state, "ann", "")
    port = free_port()
    cmd = [sys.executable, *serve_args(state, str(SITE), "--base-url", backend.url, "--allow-unbound", "--guards",
                                       str(guards_dir), "--timeout", "5"), "--http", f"127.0.0.1:{port}"]
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(cmd, env=_env(), cwd=str(ROOT), stderr=log, stdout=subprocess.DEVNULL)

    async def go() -> types.CallToolResult:
        async with http_client(f"http://127.0.0.1:{port}/mcp", token, "legacy") as client:
            call = asyncio.ensure_future(client.call_tool("site_search", {"q": "slow"}))
            deadline = time.monotonic() + 5
            while not backend.calls("/search") or backend.calls("/search")[-1].query != [("q", "slow")]:
                assert time.monotonic() < deadline
                await asyncio.sleep(0.02)
            proc.send_signal(signal.SIGTERM)
            return await call

    backend.mode = "slow"
    try:
        _wait_port(port, proc)  # type: ignore[arg-type]
        result = asyncio.run(go())
    finally:
        backend.mode = "ok"
        if proc.poll() is None:
            proc.wait(15)
        log.close()
        print((tmp_path / "serve.log").read_text())
    assert not result.is_error, result.structured_content
    assert result.structured_content["result"]["body"] == {"results": ["slow"]}
    assert proc.returncode is not None


def test_sigterm_in_stdio_mode_lets_the_call_finish(backend: Backend, guards_dir: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    cmd = " ".join([f'echo $$ > "{pidfile}";', "exec", f'"{sys.executable}"', *(f'"{a}"' for a in serve_args(
        tmp_path / "s.sqlite", str(SITE), "--base-url", backend.url, "--allow-unbound", "--guards", str(guards_dir)))])
    params = StdioServerParameters(command="/bin/sh", args=["-c", cmd], env=_env(), cwd=str(ROOT))

    async def go() -> types.CallToolResult:
        async with Client(params, mode="legacy") as client:
            call = asyncio.ensure_future(client.call_tool("site_search", {"q": "stdio slow"}))
            deadline = time.monotonic() + 5
            while not backend.calls("/search") or backend.calls("/search")[-1].query != [("q", "stdio slow")]:
                assert time.monotonic() < deadline
                await asyncio.sleep(0.02)
            os.kill(int(pidfile.read_text()), signal.SIGTERM)
            return await call

    backend.mode = "slow"
    try:
        result = asyncio.run(go())
    finally:
        backend.mode = "ok"
    assert not result.is_error, result.structured_content
    assert result.structured_content["result"]["body"] == {"results": ["stdio slow"]}


def test_state_store_buckets_by_actor_and_is_shared_between_processes(tmp_path: Path) -> None:
    from axag.serve.state import SqliteStore

    db = tmp_path / "state.sqlite"
    store = SqliteStore(db)
    admit = [store.acquire("a.b", actor, 100.0, 1, 60.0, None, True) for actor in ("ann", "bob", None, "ann")]
    assert admit[:3] == [None, None, None] and admit[3] == pytest.approx(60.0)
    assert store.acquire("a.b", "ann", 100.0, 1, 60.0, None, False) == pytest.approx(60.0)
    assert store.acquire("a.b", "ann", 161.0, 1, 60.0, None, True) is None
    assert store.acquire("c.d", "ann", 10.0, None, None, 30.0, True) is None
    assert store.acquire("c.d", "ann", 20.0, None, None, 30.0, True) == pytest.approx(20.0)
    store.remember_approval("t", "fp", "ann", {"bob": ["x"]}, time.time() + 60)
    assert store.approved_before("t", "fp", "ann", time.time()) == {}  # bob is not (or no longer) an approver
    code = ("import sys\nfrom axag.serve.state import SqliteStore\n"
            "s = SqliteStore(sys.argv[1])\n"
            "print(sum(s.consume('t', 'fp', f'confirmation:{i}') for i in range(40)))")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(db)], env=_env(), stdout=subprocess.PIPE, text=True)
             for _ in range(3)]
    wins = sum(int(p.communicate(timeout=60)[0]) for p in procs)
    assert wins == 40  # each key consumed exactly once across the three processes
    assert not store.consume("t", "fp", "confirmation:0")
    assert SqliteStore(db).remembered()[0]["approvers"] == {"bob": ["x"]}


# ---------------------------------------------------------------------------------------------- light imports
def test_lint_never_imports_the_serve_dependencies() -> None:
    code = ("import sys\nfrom axag.cli.group import main\n"
            "try:\n    main(['lint', '--isolated', '--output-format', 'json', 'fixtures/site'])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in ('mcp', 'httpx', 'uvicorn', 'starlette', 'anyio') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), env=_env(), capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_serve_settings_come_from_the_configuration(tmp_path: Path) -> None:
    """[tool.axag.serve] of the configuration gives serve its base URL, actor, roles and state; a misspelt key
    is refused with the key it meant."""

    from axag.config.resolve import Resolver
    from axag.config.toml import load_raw
    from axag.outcome.errors import ConfigError

    (tmp_path / "pyproject.toml").write_text(
        '[tool.axag.serve]\nbase-url = "ftp://configured"\nactor = "ann"\nroles = ["staff", "guest"]\n'
        'state = "var/state.sqlite"\n', encoding="utf-8")
    settings = Resolver(tmp_path).run_settings()
    assert (settings.serve_actor, settings.serve_roles, settings.serve_state) == (
        "ann", ("staff", "guest"), tmp_path / "var" / "state.sqlite")
    res = run_axag(["serve", str(SITE), "--allow-unbound"], cwd=tmp_path)
    assert res.exit_code == 2 and "--base-url ftp://configured: expected an http" in res.stderr
    res = run_axag(["serve", "token", "add", "ann"], cwd=tmp_path)
    assert res.exit_code == 0 and res.stdout.startswith("axag_")
    assert (tmp_path / "var" / "state.sqlite").is_file()
    (tmp_path / "pyproject.toml").write_text('[tool.axag.serve]\nactr = "ann"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r'unknown key "serve.actr"; did you mean `\[tool.axag.serve\] actor`'):
        load_raw(tmp_path / "pyproject.toml")


def test_a_client_that_disconnects_mid_call_does_not_hurt_the_server(
        backend: Backend, shop_http: tuple[str, Path, dict[str, str]]) -> None:
    url, _, tokens = shop_http

    async def leave_early() -> None:
        async with http_client(url, tokens["bob"], "legacy") as bob:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(bob.call_tool("thing_find", {"x": "gone"}), 0.3)

    async def next_client() -> types.CallToolResult:
        async with http_client(url, tokens["bob"], "legacy") as bob:
            return await bob.call_tool("note_add", {"text": "still here"})

    backend.mode = "hang"
    try:
        asyncio.run(leave_early())
    finally:
        backend.mode = "ok"
    res = asyncio.run(next_client())
    assert not res.is_error and res.structured_content["result"] == {"stored": "still here"}


def test_long_answers_are_cut_at_max_result_bytes() -> None:
    import httpx

    from axag.serve.binding import _answer

    text = httpx.Response(200, content=b"a" * 100, headers={"content-type": "text/plain"})
    assert _answer(text, 10).result == {"status": 200, "content_type": "text/plain", "body": "a" * 10,
                                        "truncated": True}
    big_json = httpx.Response(200, content=b'{"k": "' + b"v" * 100 + b'"}', headers={"content-type": "application/json"})
    assert _answer(big_json, 20).result["body"] == '{"k": "vvvvvvvvvvvvv'
    small = httpx.Response(404, content=b'{"e": 1}', headers={"content-type": "application/json"})
    answer = _answer(small, 20)
    assert answer.result["body"] == {"e": 1} and not answer.ok
