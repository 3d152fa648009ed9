"""What `axag serve` exposes: `--read-only`, `--max-risk`, `--tools`, `--exclude-tools` and
their [tool.axag.serve] keys, through the SDK's own MCP client against `axag serve` (a subprocess) and a real
loopback backend. A tool a filter leaves out is unknown to every part of the server: `tools/list`, `tools/call`
and `request_permission`."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from hypothesis import given, settings
from hypothesis import strategies as st

from axag.api import compile_paths
from axag.serve.filters import ToolFilter, read_only_action, risk_rank
from axag.vocabulary import ACTION_TYPES, RISK_LEVELS
from tests.serve.test_serve import (
    ROOT,
    SITE,
    _env,
    add_token,
    http_client,
    http_server,
    serve_args,
    stdio_client,
)
from tests.serve.test_serve import guards_dir as site_guards  # noqa: F401 - a fixture (test_serve.guards_dir)
from tests.serve_backend import Backend, running_backend

# the fixture site's tools: name -> (action type, risk level)
SITE_TOOLS = {"booking_cancel": ("delete", "high"), "booking_create": ("write", "medium"),
              "rate_update": ("write", "critical"), "room_compare": ("read", "none"),
              "session_sign_out": ("write", "low"), "site_search": ("read", "none")}
RATE = {"category": "suite", "rate": 90, "valid_from": "2026-05-01", "valid_until": "2026-05-02"}


@pytest.fixture(scope="module")
def backend() -> Iterator[Backend]:
    with running_backend(SITE) as b:
        yield b


def test_the_fixture_site_is_what_these_tests_assume() -> None:
    doc, _ = compile_paths([SITE], root=str(SITE))
    got = {t["name"]: (t["_meta"]["org.axag/action"]["action_type"], t["_meta"]["org.axag/action"]["risk_level"])
           for t in doc["tools"]}
    assert list(got.items()) == list(SITE_TOOLS.items())  # in this order


def _session(args: list[str], *calls: tuple[str, dict[str, Any]]) -> tuple[list[str], list[Any]]:
    """The listed tool names and the results of ``calls`` in one stdio session."""

    async def go() -> tuple[list[str], list[Any]]:
        async with stdio_client(args, "legacy") as client:
            names = [t.name for t in (await client.list_tools()).tools]
            return names, [await client.call_tool(name, arguments) for name, arguments in calls]

    return asyncio.run(go())


def _unknown(result: Any, name: str) -> bool:
    return bool(result.is_error and result.structured_content is None
                and [c.text for c in result.content] == [f"unknown tool {name!r}"])


def test_read_only_serves_only_reads_and_a_filtered_tool_is_unknown(backend: Backend, tmp_path: Path) -> None:
    args = serve_args(tmp_path / "s.sqlite", str(SITE), "--base-url", backend.url, "--allow-unbound", "--read-only")
    before = len(backend.requests)
    names, (search, book, cancel, never) = _session(
        args, ("site_search", {"q": "sea view"}), ("booking_create", {"check_in": "2026-05-01"}),
        ("booking_cancel", {"booking_id": "B000001"}), ("no_such_tool", {}))
    assert names == ["room_compare", "site_search"]  # no request_permission: rate_update is not served
    assert search.structured_content["success"] is True
    assert search.structured_content["result"]["body"] == {"results": ["sea view"]}
    # the same answer as a name that was never compiled: the caller learns nothing about what is hidden
    assert _unknown(book, "booking_create") and _unknown(cancel, "booking_cancel") and _unknown(never, "no_such_tool")
    assert [(r.method, r.path) for r in backend.requests[before:]] == [("GET", "/search")]


def _pyproject(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text(f"[tool.axag.serve]\n{body}\n", encoding="utf-8")
    return path


def test_config_keys_and_flags_winning(backend: Backend, tmp_path: Path) -> None:
    config = _pyproject(tmp_path, 'max-risk = "medium"\nexclude-tools = ["room_*"]\nread-only = false')
    base = [str(SITE), "--base-url", backend.url, "--allow-unbound", "--config", str(config)]
    names, _ = _session(serve_args(tmp_path / "a.sqlite", *base))
    assert names == ["booking_create", "session_sign_out", "site_search"]
    # a flag beats its key: --max-risk low drops booking_create (medium); --exclude-tools replaces the list
    names, _ = _session(serve_args(tmp_path / "b.sqlite", *base, "--max-risk", "low", "--exclude-tools", "site_*"))
    assert names == ["room_compare", "session_sign_out"]
    # --tools (repeatable) with an exclusion: the exclusion wins over the inclusion
    names, (cancel,) = _session(serve_args(tmp_path / "c.sqlite", *base, "--max-risk", "critical", "--tools",
                                           "booking_*", "--tools", "site_search", "--exclude-tools", "booking_cancel"),
                                ("booking_cancel", {"booking_id": "B000001"}))
    assert names == ["booking_create", "site_search"]
    assert _unknown(cancel, "booking_cancel")
    config = _pyproject(tmp_path, 'read-only = true\ntools = ["site_*", "booking_*"]')
    names, _ = _session(serve_args(tmp_path / "d.sqlite", str(SITE), "--base-url", backend.url, "--allow-unbound",
                                   "--config", str(config)))
    assert names == ["site_search"]
    names, _ = _session(serve_args(tmp_path / "e.sqlite", str(SITE), "--base-url", backend.url, "--allow-unbound",
                                   "--config", str(config), "--no-read-only"))
    assert names == ["booking_cancel", "booking_create", "site_search"]


def test_request_permission_accepts_only_served_tools(backend: Backend, site_guards: Path,  # noqa: F811 - the fixture
         tmp_path: Path) -> None:
    """rate_update needs approval: left out, request_permission refuses it as it refuses any unknown name, and no
    approval request is made; served, request_permission offers it."""
    state = tmp_path / "s.sqlite"
    args = serve_args(state, str(SITE), "--base-url", backend.url, "--allow-unbound", "--roles", "staff",
                      "--guards", str(site_guards), "--approval-mode", "tell", "--desk", "--exclude-tools",
                      "rate_update")
    ask = {"tool": "rate_update", "arguments": '{"category": "suite", "rate": 90, "valid_from": "2026-05-01", '
           '"valid_until": "2026-05-02"}', "reason": "the summer rates"}
    names, (asked, called) = _session(args, ("request_permission", ask), ("rate_update", RATE))
    assert "rate_update" not in names and names[-1] == "request_permission"
    assert asked.is_error and asked.structured_content["permission"] == "constraint_violated"
    assert asked.structured_content["guidance"] == "request_permission: tool must name a served tool."
    assert _unknown(called, "rate_update")
    listed = subprocess.run([sys.executable, "-m", "axag", "approvals", "list", "--json", "--state", str(state)],
                            env=_env(), cwd=str(ROOT), capture_output=True, text=True, check=True)
    assert listed.stdout == ""  # nothing was requested

    args = serve_args(tmp_path / "t.sqlite", str(SITE), "--base-url", backend.url, "--allow-unbound", "--roles",
                      "staff", "--guards", str(site_guards), "--approval-mode", "tell", "--tools", "rate_*", "--tools",
                      "site_search")

    async def go() -> None:
        async with stdio_client(args, "legacy") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert list(tools) == ["rate_update", "site_search", "request_permission"]
            assert tools["request_permission"].input_schema["properties"]["tool"]["enum"] == ["rate_update"]
            res = await client.call_tool("request_permission", ask)
            assert res.structured_content["permission"] == "approval_required"

    asyncio.run(go())


def test_http_mode_honours_the_filter(backend: Backend, tmp_path: Path) -> None:
    state = tmp_path / "s.sqlite"
    token = add_token(state, "ops", "guest")
    with http_server(serve_args(state, str(SITE), "--base-url", backend.url, "--allow-unbound", "--max-risk",
                                "none")) as url:

        async def go() -> None:
            async with http_client(url, token, "legacy") as client:
                assert [t.name for t in (await client.list_tools()).tools] == ["room_compare", "site_search"]
                assert _unknown(await client.call_tool("session_sign_out", {}), "session_sign_out")

        asyncio.run(go())


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *serve_args(tmp_path / "s.sqlite", str(SITE), "--base-url",
                                                       "http://127.0.0.1:9", "--allow-unbound", *args)],
                          env=_env(), cwd=str(ROOT), capture_output=True, text=True, timeout=60, check=False,
                          stdin=subprocess.DEVNULL)


def test_bad_filter_settings_are_refused_at_start(tmp_path: Path) -> None:
    config = _pyproject(tmp_path, 'max-risk = "hgh"')
    done = _run(tmp_path, "--config", str(config))
    assert done.returncode == 2
    assert (f'{config}: unknown value "hgh" for "serve.max-risk" (expected none, low, medium, high, critical); '
            'did you mean "high"?') in done.stderr
    config = _pyproject(tmp_path, 'read-only = "yes"')
    done = _run(tmp_path, "--config", str(config))
    assert done.returncode == 2 and '"serve.read-only"' in done.stderr and "boolean" in done.stderr
    config = _pyproject(tmp_path, 'tools = "site_*"')
    done = _run(tmp_path, "--config", str(config))
    assert done.returncode == 2 and '"serve.tools"' in done.stderr and "an array of strings" in done.stderr
    done = _run(tmp_path, "--max-risk", "severe")
    assert done.returncode == 2 and "'severe' is not one of 'none', 'low', 'medium', 'high', 'critical'" in done.stderr
    done = _run(tmp_path, "--tools", "nothing_*", "--tools", "booking_*", "--exclude-tools", "booking_*")
    assert done.returncode == 2
    assert "axag serve: warning: --tools nothing_* matches no tool" in done.stderr
    assert ("no tool is left to serve: --tools nothing_* --tools booking_* --exclude-tools booking_* leave(s) out "
            "all 6 tools") in done.stderr


# ------------------------------------------------------------------------------------- the filter as a property
_tool = st.builds(lambda name, at, risk: {"name": name, "_meta": {"org.axag/action": {
    "action_type": at, **({} if risk is None else {"risk_level": risk})}}},
    st.from_regex(r"[a-c][a-c_]{0,4}", fullmatch=True), st.sampled_from(ACTION_TYPES),
    st.none() | st.sampled_from(RISK_LEVELS))
_glob = st.from_regex(r"[a-c_*?]{1,4}", fullmatch=True)


@settings(max_examples=300, deadline=None)
@given(tools=st.lists(_tool, max_size=8), read_only=st.booleans(), max_risk=st.none() | st.sampled_from(RISK_LEVELS),
       include=st.lists(_glob, max_size=3), exclude=st.lists(_glob, max_size=3))
def test_a_served_tool_passes_every_filter_and_a_left_out_one_fails_one(
        tools: list[dict[str, Any]], read_only: bool, max_risk: str | None, include: list[str],
        exclude: list[str]) -> None:
    f = ToolFilter(read_only=read_only, max_risk=max_risk, tools=tuple(include), exclude_tools=tuple(exclude))
    kept = f.apply({"tools": tools})["tools"]
    assert [t for t in tools if t in kept] == kept  # a subset, in the document's order
    for t in tools:
        action = t["_meta"]["org.axag/action"]
        risk = action.get("risk_level", "critical")  # an undeclared risk counts as the highest
        reasons = [include and not any(fnmatchcase(t["name"], g) for g in include),
                   any(fnmatchcase(t["name"], g) for g in exclude),
                   read_only and action["action_type"] not in ("read", "navigate"),
                   max_risk is not None and RISK_LEVELS.index(risk) > RISK_LEVELS.index(max_risk)]
        assert (t in kept) == (not any(reasons))


def test_read_only_and_risk_order_come_from_the_vocabulary() -> None:
    assert [a for a in ACTION_TYPES if read_only_action(a)] == ["read", "navigate"]
    assert [risk_rank(r) for r in RISK_LEVELS] == list(range(len(RISK_LEVELS)))
    assert risk_rank(None) == risk_rank("critical") == risk_rank("unheard-of")
