"""Calls per second through `axag serve` over streamable HTTP to a loopback backend, beside a bare MCP SDK server
whose tool makes the same httpx call to the same backend, and with the guard off.

    python tests/benchmarks/serve_bench.py [--calls N] [--concurrency C] [--rounds R] [--state URL]
                                           [--postgresql URL | --no-postgresql]

"bare MCP SDK" is the SDK's low-level `Server` with one tool that sends the GET the page's form sends
(`/search?q=…&page=…`) with one shared `httpx.AsyncClient` and answers the JSON body, on the same streamable
HTTP transport under uvicorn (without bearer tokens: it is the floor). The target is axag ≥ 0.85 × bare at
concurrency 8.

"Guard off" runs axag serve with every tool's guard replaced by a pass-through (in the benchmark's own
bootstrap, not a server option), so the difference is what the guard costs per call.

The SQLite runs use ``--state`` (anything `axag serve --state` accepts) or, without it, a fresh SQLite file per
run. The PostgreSQL runs use ``--postgresql URL`` (one database for every run), or a throwaway server the
benchmark starts as the tests do (tests/pg_server.py; Debian's postgresql), with a fresh database per run as the
SQLite runs have a fresh file. The rate limit of the benchmark's tool (1000000/minute) never trips, but every
call in the last minute is a row of the exact limit; both stores keep each bucket's count of them, so a call's
check does not cost more the more calls the window holds, and the runs start alike.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from serve_backend import free_port, running_backend

PAGE = """<!DOCTYPE html><html lang="en"><body axag-scope="public">
<form action="/search" method="get" axag-intent="site.search" axag-action-type="read" axag-risk-level="none"
      axag-side-effects='[]' axag-rate-limit="1000000/minute" axag-description="Search the site">
  <label>Query <input name="q" required maxlength="120" pattern="[a-z0-9 ]+"></label>
  <label>Page <input name="page" type="number" min="1" max="50"></label>
</form></body></html>
"""

UNGUARDED = """
import sys
import axag.serve.app as app

class PassThrough:
    def __init__(self, guard, module):
        self.guard, self.module = guard, module
        self.tool, self.confirmation_required = guard.tool, False
        self.active_constraints = guard.active_constraints
    async def arun(self, handler, arguments, context=None):
        value = await handler(arguments)
        return self.module.GuardResult(success=True, permission="not_required", violations=(),
                                       guidance="The call succeeded.", tool=self.tool, active_constraints={},
                                       result=value, has_result=True)

init = app.ToolServer.__init__
def patched(self, *a, **k):
    init(self, *a, **k)
    self.guards = {n: PassThrough(g, self.guard_module) for n, g in self.guards.items()}
app.ToolServer.__init__ = patched
from axag.cli.group import main
sys.exit(main(sys.argv[1:]))
"""

BARE = """
import sys

import httpx
import mcp_types as types
import uvicorn
from mcp.server.lowlevel import Server

base_url, port = sys.argv[1], int(sys.argv[2])
client = httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=100, max_keepalive_connections=20),
                           transport=httpx.AsyncHTTPTransport(retries=0))
TOOL = types.Tool(name="site_search", description="Search the site", input_schema={
    "type": "object", "properties": {"q": {"type": "string", "maxLength": 120}, "page": {"type": "integer"}},
    "required": ["q"]})


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[TOOL])


async def call_tool(ctx, params):
    args = params.arguments or {}
    resp = await client.get(base_url + "/search", params={"q": args["q"], "page": args.get("page", 1)})
    body = {"status": resp.status_code, "body": resp.json()}
    return types.CallToolResult(content=[types.TextContent(type="text", text=resp.text)], structured_content=body)


server = Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)
uvicorn.run(server.streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=port, log_level="warning")
"""


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children_cpu(parent: int) -> dict[int, float]:
    """{pid: CPU seconds so far} of the processes whose parent is ``parent`` (a PostgreSQL server's backends)."""
    out: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == parent:
                    out[int(entry.name)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


DB_PARENT: list[int] = []  # the throwaway PostgreSQL server's postmaster, while the PostgreSQL runs use it
DB_CPU: list[float] = []  # its backends' CPU seconds per call, one entry per PostgreSQL run


async def call_many(client: Any, calls: int, concurrency: int) -> None:
    """``calls`` calls of the benchmark's tool through the MCP ``client``, ``concurrency`` at a time; each must
    succeed."""
    sem = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with sem:
            res = await client.call_tool("site_search", {"q": f"room {i % 7}", "page": 1 + i % 5})
            assert not res.is_error, res.structured_content

    await asyncio.gather(*(one(i) for i in range(calls)))


def wait_listening(proc: subprocess.Popen[bytes], port: int, what: str) -> None:
    """Return once something accepts connections on loopback ``port``; `RuntimeError` ("``what`` did not
    start") when ``proc`` exits first or 30 s pass."""
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError(f"{what} did not start") from None
            time.sleep(0.05)


async def _measure(url: str, token: str | None, calls: int, concurrency: int, pid: int,
                   db_parent: int | None = None) -> tuple[float, float]:
    """(calls per second, the server's CPU seconds per call) of ``calls`` calls; with ``db_parent``, the CPU
    seconds per call of that PostgreSQL server's backends are appended to `DB_CPU`."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as hc, Client(
            streamable_http_client(url, http_client=hc), mode="legacy") as client:
        for _ in range(20):  # warm up
            await client.call_tool("site_search", {"q": "warm up", "page": 1})
        cpu = _cpu_seconds(pid)
        db = _children_cpu(db_parent) if db_parent is not None else {}
        start = time.perf_counter()
        await call_many(client, calls, concurrency)
        rate, per_call = calls / (time.perf_counter() - start), (_cpu_seconds(pid) - cpu) / calls
        if db_parent is not None:  # a backend that started meanwhile counts from 0
            DB_CPU.append(sum(t - db.get(p, 0.0) for p, t in _children_cpu(db_parent).items()) / calls)
        return rate, per_call


def _serving(cmd: list[str], port: int, token: str | None, calls: int, concurrency: int,
             db_parent: int | None = None) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    try:
        wait_listening(proc, port, str(cmd[:4]))
        return asyncio.run(_measure(f"http://127.0.0.1:{port}/mcp", token, calls, concurrency, proc.pid,
                                    db_parent))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def _run(site: Path, state: str, base_url: str, guarded: bool, calls: int, concurrency: int) -> tuple[float, float]:
    port = free_port()
    token = subprocess.run([sys.executable, "-m", "axag", "serve", "token", "add", "bench", "--state", state],
                           capture_output=True, text=True, check=True, cwd=ROOT).stdout.strip()
    args = ["serve", str(site), "--base-url", base_url, "--state", state, "--http", f"127.0.0.1:{port}"]
    cmd = [sys.executable, "-m", "axag", *args] if guarded else [sys.executable, "-c", UNGUARDED, *args]
    db_parent = DB_PARENT[0] if DB_PARENT and "://" in state else None
    return _serving(cmd, port, token, calls, concurrency, db_parent)


def _bare(base_url: str, calls: int, concurrency: int) -> tuple[float, float]:
    port = free_port()
    return _serving([sys.executable, "-c", BARE, base_url, str(port)], port, None, calls, concurrency)


def _guard_alone(site: Path, state: Path, calls: int) -> float:
    """Seconds per call of the guard itself (in process, with the SQLite store and its rate limit)."""
    from axag.api import compile_paths
    from axag.serve.guards import load_guards
    from axag.serve.state import SqliteStore

    doc, _ = compile_paths([site], root=str(site))
    module, guards = load_guards(doc, None, SqliteStore(state))
    guard = guards["site_search"]

    async def handler(arguments: object) -> int:
        return 1

    async def run() -> float:
        start = time.perf_counter()
        for i in range(calls):
            await guard.arun(handler, {"q": f"room {i % 7}", "page": 1 + i % 5}, module.GuardContext(actor="b"))
        return (time.perf_counter() - start) / calls

    return asyncio.run(run())


def _sweep(site: Path, tmp: str, backend_url: str, opts: argparse.Namespace,
           pg_url: Callable[[], str] | None) -> tuple[dict[str, float], dict[str, float]]:
    """Best calls/s and least server CPU per call of each mode, over alternating rounds (a slow spell of the
    machine hits every mode)."""
    modes = ("axag", "off", "bare") + (("postgresql",) if pg_url is not None else ())
    best = dict.fromkeys(modes, 0.0)
    cpu = dict.fromkeys(modes, float("inf"))
    for r in range(opts.rounds):
        for mode in modes:
            if mode == "bare":
                rate, per_call = _bare(backend_url, opts.calls, opts.concurrency)
            else:
                if mode == "postgresql":
                    assert pg_url is not None
                    state = pg_url()
                else:
                    state = opts.state or str(Path(tmp) / f"state-{r}-{mode}.sqlite")
                rate, per_call = _run(site, state, backend_url, mode != "off", opts.calls, opts.concurrency)
            best[mode] = max(best[mode], rate)
            cpu[mode] = min(cpu[mode], per_call)
    return best, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per mode; the best is kept")
    parser.add_argument("--state", default=None, metavar="URL",
                        help="state store of the SQLite runs (default: a fresh SQLite file per run)")
    parser.add_argument("--postgresql", default=None, metavar="URL",
                        help="database of the PostgreSQL runs (default: a throwaway server started for the run, "
                             "as the tests start one: tests/pg_server.py)")
    parser.add_argument("--no-postgresql", action="store_true", help="leave out the PostgreSQL runs")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="axag-serve-bench-") as tmp, contextlib.ExitStack() as stack:
        site = Path(tmp) / "site"
        site.mkdir()
        (site / "index.html").write_text(PAGE, encoding="utf-8")
        given: str | None = opts.postgresql
        pg_url: Callable[[], str] | None = None if given is None else lambda: given
        pg_kind = "the server given, one database"
        if pg_url is None and not opts.no_postgresql:
            from pg_server import PgServer

            pg = stack.enter_context(PgServer())
            pg_url = pg.create_database
            DB_PARENT.append(int((pg.data / "postmaster.pid").read_text().split()[0]))
            pg_kind = "a throwaway local server on a unix socket, fsync off, a fresh database per run"
        with running_backend(site) as backend:
            best, cpu = _sweep(site, tmp, backend.url, opts, pg_url)
        alone = _guard_alone(site, Path(tmp) / "alone.sqlite", 2000)
    on, off, bare = best["axag"], best["off"], best["bare"]
    kind = "SQLite, a fresh file per run" if opts.state is None else opts.state.split(":", 1)[0] if "://" in \
        opts.state else "SQLite " + opts.state
    print(f"({opts.calls} calls per run, concurrency {opts.concurrency}, best of {opts.rounds} alternating rounds)")
    print(f"bare MCP SDK:             {bare:8.1f} calls/s (the same httpx call to the same backend)")
    for label, mode, state in (("axag serve, SQLite:", "axag", kind), ("axag serve, PostgreSQL:", "postgresql",
                                                                        pg_kind)):
        if mode not in best:
            continue
        ratio = best[mode] / bare if bare else float("nan")
        print(f"{label:25} {best[mode]:8.1f} calls/s = {ratio:.3f} x bare (target >= 0.85: "
              f"{'met' if ratio >= 0.85 else 'NOT met'}); state: {state}")
    print(f"guard off (SQLite):       {off:8.1f} calls/s")
    # the server process's own CPU time per call: what a call costs, however busy the rest of the machine is
    pg_cpu = f", PostgreSQL {cpu['postgresql'] * 1000:.2f} ms" if "postgresql" in cpu else ""
    print(f"server CPU per call: axag {cpu['axag'] * 1000:.2f} ms{pg_cpu}, bare {cpu['bare'] * 1000:.2f} ms, guard "
          f"off {cpu['off'] * 1000:.2f} ms; bare / axag = {cpu['bare'] / cpu['axag']:.2f} x "
          f"(= calls/s per server core: axag {1 / cpu['axag']:.0f}, bare {1 / cpu['bare']:.0f})")
    if DB_CPU:  # the database server competes for the same cores
        print(f"PostgreSQL server CPU per call (its backends): {min(DB_CPU) * 1000:.2f} ms (least of the runs)")
    cost = (1 / on - 1 / off) / (1 / on) * 100 if on and off else float("nan")
    print(f"guard cost: {cost:.1f} % of a call ({(1 / on - 1 / off) * 1000:.2f} ms per call, end to end)")
    print(f"guard alone: {alone * 1000:.3f} ms per call in process = {alone * on * 100:.1f} % of a guarded call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
