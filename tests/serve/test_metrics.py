"""`axag serve --metrics`: Prometheus text at /metrics behind the MCP port's authentication, or
on a listener of its own (`--metrics-listen`), scraped with httpx and read with prometheus_client's own parser after
known calls through the SDK's MCP client; exact counts."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.serve.test_serve import (
    BOOK,
    SITE,
    add_token,
    http_client,
    http_server,
    serve_args,
    stdio_client,
)
from tests.serve.test_serve import guards_dir as site_guards  # noqa: F401 - a fixture (test_serve.guards_dir)
from tests.serve_backend import Backend, free_port, running_backend

ASK = {"tool": "rate_update", "arguments": '{"category": "suite", "rate": 90, "valid_from": "2026-05-01", '
       '"valid_until": "2026-05-02"}', "reason": "the summer rates"}


@pytest.fixture(scope="module")
def backend() -> Iterator[Backend]:
    with running_backend(SITE) as b:
        yield b


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """(sample name, sorted labels) -> value, of every sample of the exposition ``text``."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def calls(tool: str, permission: str, status: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    return ("axag_serve_calls_total", (("backend_status", status), ("permission", permission), ("tool", tool)))


async def _known_calls(client: Any) -> None:
    """2 good searches (HTTP 200), 1 refused search, 1 unknown tool, 1 confirmation this client cannot give, 1
    approval request left pending (tell mode), 1 call of the tool that needs that approval."""
    for q in ("sea view", "garden"):
        assert not (await client.call_tool("site_search", {"q": q})).is_error
    assert (await client.call_tool("site_search", {"q": "x" * 500})).structured_content["permission"] == \
        "constraint_violated"
    assert (await client.call_tool("no_such_tool", {})).is_error
    assert (await client.call_tool("booking_create", BOOK)).structured_content["permission"] == \
        "confirmation_required"
    assert (await client.call_tool("request_permission", ASK)).structured_content["permission"] == \
        "approval_required"
    rate = {"category": "suite", "rate": 90, "valid_from": "2026-05-01", "valid_until": "2026-05-02"}
    assert (await client.call_tool("rate_update", rate)).structured_content["permission"] == \
        "confirmation_required"  # confirmation comes first, and this client cannot give it


EXPECTED = {
    calls("site_search", "not_required", "200"): 2.0,
    calls("site_search", "constraint_violated", "none"): 1.0,
    calls("booking_create", "confirmation_required", "none"): 1.0,
    calls("request_permission", "approval_required", "none"): 1.0,
    calls("rate_update", "confirmation_required", "none"): 1.0,
    ("axag_serve_unknown_tool_calls_total", ()): 1.0,
    ("axag_serve_call_duration_seconds_count", (("tool", "site_search"),)): 3.0,
    ("axag_serve_call_duration_seconds_count", (("tool", "rate_update"),)): 1.0,
    ("axag_serve_pending_approvals", ()): 1.0,
    ("axag_serve_calls_in_flight", ()): 0.0,
}


def _check(text: str) -> None:
    got = samples(text)
    for key, value in EXPECTED.items():
        assert got.get(key) == value, (key, got.get(key))
    assert sum(v for (name, _), v in got.items() if name == "axag_serve_calls_total") == 6.0  # no other call
    # every call took time, and a histogram's buckets are cumulative up to +Inf
    assert got[("axag_serve_call_duration_seconds_sum", (("tool", "site_search"),))] > 0
    assert got[("axag_serve_call_duration_seconds_bucket", (("le", "+Inf"), ("tool", "site_search")))] == 3.0


def test_metrics_on_the_mcp_port_need_its_token(backend: Backend, site_guards: Path,  # noqa: F811 - the fixture
         tmp_path: Path) -> None:
    state = tmp_path / "s.sqlite"
    token = add_token(state, "ops", "staff")
    args = serve_args(state, str(SITE), "--base-url", backend.url, "--allow-unbound", "--guards", str(site_guards),
                      "--approval-mode", "tell", "--metrics")
    with http_server(args) as url:
        metrics_url = url.removesuffix("/mcp") + "/metrics"

        async def go() -> None:
            async with http_client(url, token, "legacy") as client:
                await _known_calls(client)

        asyncio.run(go())
        assert httpx.get(metrics_url).status_code == 401
        assert httpx.get(metrics_url, headers={"Authorization": "Bearer axag_not-a-token"}).status_code == 401
        got = httpx.get(metrics_url, headers={"Authorization": f"Bearer {token}"})
        assert got.status_code == 200 and got.headers["content-type"].startswith("text/plain; version=0.0.4")
        _check(got.text)
        assert token not in got.text
        assert httpx.post(metrics_url, headers={"Authorization": f"Bearer {token}"}).status_code == 405


def test_metrics_listen_stdio_mode(backend: Backend, site_guards: Path,  # noqa: F811 - the fixture
         tmp_path: Path) -> None:
    port = free_port()
    args = serve_args(tmp_path / "s.sqlite", str(SITE), "--base-url", backend.url, "--allow-unbound", "--guards",
                      str(site_guards), "--approval-mode", "tell", "--roles", "staff", "--metrics-listen",
                      f"127.0.0.1:{port}")

    async def go() -> None:
        async with stdio_client(args, "legacy") as client:
            await _known_calls(client)
            async with httpx.AsyncClient() as hc:
                got = await hc.get(f"http://127.0.0.1:{port}/metrics")  # a listener of its own: no token
                assert got.status_code == 200
                _check(got.text)
                assert (await hc.get(f"http://127.0.0.1:{port}/mcp")).status_code == 404

    asyncio.run(go())


def test_metrics_listen_beside_http_leaves_the_mcp_port_alone(backend: Backend, tmp_path: Path) -> None:
    state = tmp_path / "s.sqlite"
    token = add_token(state, "ops", "guest")
    port = free_port()
    with http_server(serve_args(state, str(SITE), "--base-url", backend.url, "--allow-unbound", "--metrics-listen",
                                f"127.0.0.1:{port}")) as url:

        async def go() -> None:
            async with http_client(url, token, "legacy") as client:
                assert not (await client.call_tool("site_search", {"q": "sea view"})).is_error

        asyncio.run(go())
        got = samples(httpx.get(f"http://127.0.0.1:{port}/metrics").text)
        assert got[calls("site_search", "not_required", "200")] == 1.0
        assert got[("axag_serve_pending_approvals", ())] == 0.0
        mcp_port = url.removesuffix("/mcp") + "/metrics"
        assert httpx.get(mcp_port, headers={"Authorization": f"Bearer {token}"}).status_code == 404


def test_metrics_need_a_port(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.serve.test_serve import ROOT, _env

    done = subprocess.run([sys.executable, *serve_args(tmp_path / "s.sqlite", str(SITE), "--base-url",
                                                       "http://127.0.0.1:9", "--allow-unbound", "--metrics")],
                          env=_env(), cwd=str(ROOT), capture_output=True, text=True, timeout=60, check=False,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "--metrics needs --http" in done.stderr and "--metrics-listen HOST:PORT" in done.stderr


def test_two_servers_in_one_process_count_apart() -> None:
    from axag.serve.metrics import ServeMetrics

    one, two = ServeMetrics(lambda: 0, lambda: 3), ServeMetrics(lambda: 1, lambda: 0)
    one.observe("t", "not_required", 200, 0.01)
    one.observe("t", "not_required", 200, 0.02)
    two.observe("t", "denied", None, 0.5)
    a, b = samples(one.text().decode()), samples(two.text().decode())
    assert a[calls("t", "not_required", "200")] == 2.0 and calls("t", "denied", "none") not in a
    assert b[calls("t", "denied", "none")] == 1.0 and calls("t", "not_required", "200") not in b
    assert (a[("axag_serve_pending_approvals", ())], b[("axag_serve_pending_approvals", ())]) == (3.0, 0.0)
    from prometheus_client import REGISTRY

    assert REGISTRY.get_sample_value("axag_serve_calls_total", {"tool": "t", "permission": "not_required",
                                                                "backend_status": "200"}) is None
