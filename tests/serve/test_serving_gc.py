"""`axag serve` sets the garbage collector for a long-running server before it answers (`memory.serving_gc`): the
objects of start-up frozen out of the collector's scans, young objects collected every `SERVING_YOUNG` allocations;
over stdio and over HTTP, and the calls are answered as before. What the process reports at its exit is read by a
bootstrap that runs the real command line."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from axag.batch.memory import SERVING_YOUNG
from tests.serve.test_serve import ROOT, SITE, _env, _wait_port, add_token, http_client, stdio_client
from tests.serve_backend import free_port, running_backend

# `axag serve ARGS`, writing the collector's setting at exit to the file $AXAG_GC_REPORT
BOOTSTRAP = """
import atexit, gc, json, os, sys

def report():
    with open(os.environ["AXAG_GC_REPORT"], "w") as out:
        json.dump({"frozen": gc.get_freeze_count(), "threshold": list(gc.get_threshold())}, out)

atexit.register(report)
from axag.cli.group import main
sys.exit(main(sys.argv[1:]))
"""


def _args(state: Path, base_url: str) -> list[str]:
    return ["-c", BOOTSTRAP, "serve", str(SITE), "--base-url", base_url, "--allow-unbound", "--state", str(state)]


def _assert_serving_setting(report: Path) -> None:
    got = json.loads(report.read_text(encoding="utf-8"))
    defaults = [700, 10, 10]  # Python's, which serve keeps for the older generations
    assert got["threshold"] == [SERVING_YOUNG, *defaults[1:]] and defaults[0] < SERVING_YOUNG
    assert got["frozen"] > 30_000  # the modules, the SDK's models, the compiled tools and guards of start-up


def test_stdio_server_freezes_its_start_up_and_collects_young_objects_less_often(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = tmp_path / "gc.json"
    monkeypatch.setenv("AXAG_GC_REPORT", str(report))
    with running_backend(SITE) as backend:
        async def go() -> None:
            async with stdio_client(_args(tmp_path / "s.sqlite", backend.url), "legacy") as client:
                for i in range(30):
                    res = await client.call_tool("site_search", {"q": f"room {i}"})
                    assert not res.is_error, res.structured_content

        asyncio.run(go())
    _assert_serving_setting(report)


def test_http_server_freezes_its_start_up_and_collects_young_objects_less_often(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = tmp_path / "gc.json"
    monkeypatch.setenv("AXAG_GC_REPORT", str(report))
    state = tmp_path / "s.sqlite"
    token = add_token(state, "ops", "guest")
    port = free_port()
    with running_backend(SITE) as backend:
        proc = subprocess.Popen([sys.executable, *_args(state, backend.url), "--http", f"127.0.0.1:{port}"],
                                env=_env(), cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            _wait_port(port, proc)

            async def go() -> None:
                async with http_client(f"http://127.0.0.1:{port}/mcp", token, "legacy") as client:
                    for i in range(30):
                        res = await client.call_tool("site_search", {"q": f"room {i}"})
                        assert not res.is_error, res.structured_content

            asyncio.run(go())
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=30)
            assert proc.returncode == 0, err
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate(timeout=10)
    _assert_serving_setting(report)
