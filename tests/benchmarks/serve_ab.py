"""Which of two axag source trees serves a call for less: an interleaved A/B of `axag serve`.

    python tests/benchmarks/serve_ab.py --a DIR [--b DIR] [--state sqlite|postgresql] [--chunks N] [--calls N]
                                        [--concurrency C]

Two `axag serve --http` processes run at once, one per source tree (``--a``, ``--b``: a checkout or a git
worktree; ``--b`` defaults to this one), on one loopback backend, each with a state store of its own of the same
kind (a fresh SQLite file each, or a fresh database each on one throwaway PostgreSQL server, as serve_bench.py
starts it). One client drives them in chunks of ``--calls`` calls at ``--concurrency``, A then B, then B then A,
and adds up each server's CPU time and wall time over its chunks; this is done twice, with fresh servers, A's
started first, then B's (the order of starting alone moved the figures by a few percent), for ``--chunks``
chunks per server in all.

serve_bench.py compares whole runs made minutes apart; on a shared two-core machine a whole run's CPU per call
moves by 0.05–0.5 ms with what else the host does, more than most changes to serve's call path are worth.
Interleaving short chunks puts both trees under the same conditions, so the difference it prints is the
change's (a change that only removes work measured in isolation can show none here: what a call costs in a
loaded server is what counts for serve_bench's ratio).

The tree of each server comes first on its ``PYTHONPATH``; both use this interpreter and its packages.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "benchmarks"))

from serve_backend import free_port, running_backend
from serve_bench import PAGE, _cpu_seconds, call_many, wait_listening


@dataclass
class Server:
    label: str
    tree: Path
    port: int
    token: str
    proc: subprocess.Popen[bytes]


def _start(label: str, tree: Path, site: Path, state: str, backend_url: str) -> Server:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    token = subprocess.run([sys.executable, "-m", "axag", "serve", "token", "add", "bench", "--state", state],
                           env=env, cwd=tree, capture_output=True, text=True, check=True).stdout.strip()
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "axag", "serve", str(site), "--base-url", backend_url, "--state",
                             state, "--http", f"127.0.0.1:{port}"], env=env, cwd=tree, stderr=subprocess.DEVNULL)
    try:
        wait_listening(proc, port, f"axag serve from {tree}")
    except RuntimeError:
        proc.kill()
        raise
    return Server(label, tree, port, token, proc)


async def _drive(servers: list[Server], chunks: int, calls: int, concurrency: int,
                 totals: dict[str, list[float]]) -> None:
    """``chunks`` chunks of ``calls`` calls per server, alternating; each server's wall and CPU seconds over its
    chunks are added to ``totals[label]``."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with contextlib.AsyncExitStack() as stack:
        clients: dict[str, Any] = {}
        for s in servers:
            hc = await stack.enter_async_context(httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {s.token}"}, timeout=60))
            client = await stack.enter_async_context(Client(streamable_http_client(
                f"http://127.0.0.1:{s.port}/mcp", http_client=hc), mode="legacy"))
            for _ in range(50):  # warm up
                await client.call_tool("site_search", {"q": "warm up", "page": 1})
            clients[s.label] = client
        for k in range(chunks):
            for s in servers if k % 2 == 0 else servers[::-1]:
                cpu, start = _cpu_seconds(s.proc.pid), time.perf_counter()
                await call_many(clients[s.label], calls, concurrency)
                totals[s.label][0] += time.perf_counter() - start
                totals[s.label][1] += _cpu_seconds(s.proc.pid) - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", type=Path, required=True, metavar="DIR", help="source tree of server A")
    parser.add_argument("--b", type=Path, default=ROOT, metavar="DIR", help="source tree of server B (this one)")
    parser.add_argument("--state", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--chunks", type=int, default=8, help="chunks per server, alternating")
    parser.add_argument("--calls", type=int, default=600, help="calls per chunk")
    parser.add_argument("--concurrency", type=int, default=8)
    opts = parser.parse_args()
    trees = [opts.a.resolve(), opts.b.resolve()]
    for tree in trees:
        if not (tree / "axag" / "__init__.py").is_file():
            parser.error(f"{tree} is not an axag source tree (no axag/__init__.py)")
    with tempfile.TemporaryDirectory(prefix="axag-serve-ab-") as tmp, contextlib.ExitStack() as stack:
        site = Path(tmp) / "site"
        site.mkdir()
        (site / "index.html").write_text(PAGE, encoding="utf-8")
        if opts.state == "postgresql":
            from pg_server import PgServer

            pg = stack.enter_context(PgServer())
            states = [pg.create_database(), pg.create_database()]
        else:
            states = [str(Path(tmp) / "a.sqlite"), str(Path(tmp) / "b.sqlite")]
        backend = stack.enter_context(running_backend(site))
        totals = {label: [0.0, 0.0] for label in "AB"}  # seconds, CPU seconds
        for first in "AB":  # two passes, each tree's server started first in one of them
            servers: list[Server] = []
            try:
                for label, tree, state in sorted(zip("AB", trees, states, strict=True), key=lambda t: t[0] != first):
                    servers.append(_start(label, tree, site, state, backend.url))
                asyncio.run(_drive(servers, (opts.chunks + 1) // 2, opts.calls, opts.concurrency, totals))
            finally:
                for s in servers:
                    s.proc.send_signal(signal.SIGTERM)
                    s.proc.wait(30)
    n = 2 * ((opts.chunks + 1) // 2) * opts.calls
    print(f"({n // opts.calls} alternating chunks of {opts.calls} calls per server in two passes, concurrency "
          f"{opts.concurrency}, {opts.state} state)")
    for label, tree in zip("AB", trees, strict=True):
        seconds, cpu = totals[label]
        print(f"{label}: {n / seconds:8.1f} calls/s, server CPU per call {cpu / n * 1000:.3f} ms  ({tree})")
    (a_seconds, a_cpu), (b_seconds, b_cpu) = totals["A"], totals["B"]
    print(f"A - B: {(a_cpu - b_cpu) / n * 1000:+.3f} ms of server CPU per call; A / B calls/s = "
          f"{b_seconds / a_seconds:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
