"""Calls per second through `axag serve` over streamable HTTP to a loopback backend, with the guard on and off.

    python tests/benchmarks/serve_bench.py [--calls N] [--concurrency C]

"Guard off" runs the same server with every tool's guard replaced by a pass-through (in the benchmark's own
bootstrap, not a server option), so the difference is what the guard costs per call. Prints one line per mode
and the guard's share of a call.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
from axag.cli import main
sys.exit(main(sys.argv[1:]))
"""


async def _measure(url: str, token: str, calls: int, concurrency: int) -> float:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as hc, Client(
            streamable_http_client(url, http_client=hc), mode="legacy") as client:
        for _ in range(20):  # warm up
            await client.call_tool("site_search", {"q": "warm up", "page": 1})
        sem = asyncio.Semaphore(concurrency)

        async def one(i: int) -> None:
            async with sem:
                res = await client.call_tool("site_search", {"q": f"room {i % 7}", "page": 1 + i % 5})
                assert not res.is_error, res.structured_content

        start = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(calls)))
        return calls / (time.perf_counter() - start)


def _run(site: Path, state: Path, base_url: str, guarded: bool, calls: int, concurrency: int) -> float:
    port = free_port()
    token = subprocess.run([sys.executable, "-m", "axag", "serve", "token", "add", "bench", "--state", str(state)],
                           capture_output=True, text=True, check=True, cwd=ROOT).stdout.strip()
    args = ["serve", str(site), "--base-url", base_url, "--state", str(state), "--http", f"127.0.0.1:{port}"]
    cmd = [sys.executable, "-m", "axag", *args] if guarded else [sys.executable, "-c", UNGUARDED, *args]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    try:
        import socket

        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("axag serve did not start") from None
                time.sleep(0.05)
        return asyncio.run(_measure(f"http://127.0.0.1:{port}/mcp", token, calls, concurrency))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per mode; the best is kept")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="axag-serve-bench-") as tmp:
        site = Path(tmp) / "site"
        site.mkdir()
        (site / "index.html").write_text(PAGE, encoding="utf-8")
        best = {True: 0.0, False: 0.0}
        with running_backend(site) as backend:
            for r in range(opts.rounds):
                for guarded in (True, False):
                    state = Path(tmp) / f"state-{r}-{guarded}.sqlite"
                    rate = _run(site, state, backend.url, guarded, opts.calls, opts.concurrency)
                    best[guarded] = max(best[guarded], rate)
        alone = _guard_alone(site, Path(tmp) / "alone.sqlite", 2000)
    on, off = best[True], best[False]
    print(f"guard on:  {on:8.1f} calls/s ({opts.calls} calls, concurrency {opts.concurrency}, best of {opts.rounds})")
    print(f"guard off: {off:8.1f} calls/s")
    cost = (1 / on - 1 / off) / (1 / on) * 100 if on and off else float("nan")
    print(f"guard cost: {cost:.1f} % of a call ({(1 / on - 1 / off) * 1000:.2f} ms per call, end to end)")
    print(f"guard alone: {alone * 1000:.3f} ms per call in process = {alone * on * 100:.1f} % of a guarded call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
