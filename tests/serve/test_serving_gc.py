"""`axag serve` sets the garbage collector for a long-running server before it answers (`memory.serving_gc`): the
objects of start-up frozen out of the collector's scans, young objects collected every `SERVING_YOUNG` allocations;
over stdio and over HTTP, and the calls are answered as before. What the process reports at its exit is read by a
bootstrap that runs the real command line."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from axag.batch.memory import SERVING_YOUNG
from tests.serve.test_logs import _serve
from tests.serve.test_serve import SITE, add_token, http_client, stdio_client
from tests.serve_backend import running_backend

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


async def _thirty_calls(client: Any) -> None:
    for i in range(30):
        res = await client.call_tool("site_search", {"q": f"room {i}"})
        assert not res.is_error, res.structured_content


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
                await _thirty_calls(client)

        asyncio.run(go())
    _assert_serving_setting(report)


def test_http_server_freezes_its_start_up_and_collects_young_objects_less_often(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = tmp_path / "gc.json"
    monkeypatch.setenv("AXAG_GC_REPORT", str(report))
    state = tmp_path / "s.sqlite"
    token = add_token(state, "ops", "guest")

    def work(url: str) -> None:
        async def go() -> None:
            async with http_client(url, token, "legacy") as client:
                await _thirty_calls(client)

        asyncio.run(go())

    with running_backend(SITE) as backend:
        _serve(_args(state, backend.url), work)  # stopped with SIGTERM, exit status 0
    _assert_serving_setting(report)
