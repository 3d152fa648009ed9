"""The TypeScript side of the MCP ecosystem as clients of `axag serve`: the official
TypeScript SDK (`@modelcontextprotocol/sdk`, pinned in package.json; tests/mcp_ts_client.mjs) and the MCP
Inspector's CLI, over stdio and over streamable HTTP with a bearer token, against a real loopback backend.
Every answer passes the SDK's own ListToolsResultSchema and CallToolResultSchema (and callTool's check of
structuredContent against the tool's outputSchema)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from axag.api import compile_paths
from axag.compile.serialize import dumps
from tests.serve.test_serve import BOOK, SHOP, SITE, _env, add_token, guards_dir, http_server, serve_args  # noqa: F401
from tests.serve_backend import Backend, running_backend

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "tests" / "mcp_ts_client.mjs"
INSPECTOR = ROOT / "node_modules" / ".bin" / "mcp-inspector"
NODE_TIMEOUT = 180


@pytest.fixture(scope="module")
def backend() -> Iterator[Backend]:
    with running_backend(SITE, SHOP) as b:
        yield b


@pytest.fixture(scope="module")
def site_doc() -> dict[str, Any]:
    doc, _ = compile_paths([SITE], root=str(SITE))
    return doc


def node_env(tmp: Path) -> dict[str, str]:
    env = _env()
    env["AXAG_CACHE_DIR"] = str(tmp / "cache")
    return env


def ts_client(plan: dict[str, Any], tmp: Path) -> dict[str, Any]:
    proc = subprocess.run(["node", str(CLIENT), "-"], input=json.dumps(plan), capture_output=True, text=True,
                          cwd=str(ROOT), env=node_env(tmp), timeout=NODE_TIMEOUT, check=False)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def stdio_plan(args: list[str], tmp: Path, calls: list[dict[str, Any]], elicit: str | None) -> dict[str, Any]:
    return {"transport": "stdio", "command": sys.executable, "args": args, "env": node_env(tmp), "cwd": str(ROOT),
            "calls": calls, "elicit": elicit}


def inspector(target: list[str], *method: str, tmp: Path) -> tuple[int, str, str]:
    proc = subprocess.run([str(INSPECTOR), "--cli", *target, *method], capture_output=True, text=True,
                          cwd=str(ROOT), env=node_env(tmp), timeout=NODE_TIMEOUT, check=False)
    return proc.returncode, proc.stdout, proc.stderr


@contextmanager
def token_server(backend: Backend, guards_dir: Path, tmp: Path) -> Iterator[tuple[str, str]]:  # noqa: F811
    """`axag serve --http` of the example site; (its MCP endpoint, a token of ann with the role guest)."""
    state = tmp / "state.sqlite"
    token = add_token(state, "ann", "guest")
    args = serve_args(state, str(SITE), "--base-url", backend.url, "--allow-unbound", "--guards", str(guards_dir))
    with http_server(args) as url:
        yield url, token


def permission_listed(gated: list[str]) -> dict[str, Any]:
    from axag.serve.approval_loop import permission_tool

    return permission_tool(gated)


CALLS = [
    {"name": "booking_create", "arguments": BOOK},
    {"name": "booking_create", "arguments": {**BOOK, "guests": 12}},
    {"name": "site_search", "arguments": {"q": "sea view"}},
    {"name": "booking_cancel", "arguments": {"booking_id": "B000001"}},
]


def check_calls(calls: list[dict[str, Any]], doc: dict[str, Any]) -> None:
    """The answers of CALLS, exactly."""
    tools = {t["name"]: t for t in doc["tools"]}
    for call in calls:
        assert json.loads(call["text"]) == call["structuredContent"]
    made, refused, search, unbound = (c["structuredContent"] for c in calls)
    assert [c["isError"] for c in calls] == [False, True, False, True]
    assert made["success"] is True and made["permission"] == "not_required" and made["tool"] == "booking_create"
    assert made["result"] == {"status": 201, "content_type": "application/json",
                              "body": {"booking": "B000123", "guests": "2"}}
    assert refused["permission"] == "constraint_violated"
    assert [(v["field"], v["constraint"], v["expected"], v["actual"]) for v in refused["violations"]] == [
        ("guests", "maximum", 10, 12)]
    assert search == {"success": True, "result": {"status": 200, "content_type": "application/json",
                                                  "body": {"results": ["sea view"]}},
                      "permission": "not_required", "violations": [],
                      "guidance": "The call succeeded.", "tool": "site_search"}
    assert unbound == {"success": False, "permission": "denied", "violations": [],
                       "guidance": "booking_cancel is not connected to anything on this server (no HTTP binding and "
                                   "no handler), so it cannot run here. Do not retry; tell the user.",
                       "tool": "booking_cancel",
                       "active_constraints": {"required": ["booking_id"], "parameters": {
                           "booking_id": {"type": "string", "pattern": "^B[0-9]{6}$"},
                           "reason": {"type": "string", "enum": ["change_of_plans", "found_elsewhere", "other"]}},
                           "preconditions": ["booking_is_not_checked_in"], "confirmation_required": True}}
    assert tools["booking_cancel"]["inputSchema"]["properties"]["reason"]["enum"] == unbound["active_constraints"][
        "parameters"]["reason"]["enum"]


# ---------------------------------------------------------------------------------------------- the TypeScript SDK
def test_typescript_sdk_over_stdio(backend: Backend, guards_dir: Path, site_doc: dict[str, Any],  # noqa: F811
                                   tmp_path: Path) -> None:
    args = serve_args(tmp_path / "state.sqlite", str(SITE), "--base-url", backend.url, "--allow-unbound",
                      "--guards", str(guards_dir), "--actor", "ann", "--roles", "guest")
    before = len(backend.calls("/bookings"))
    out = ts_client(stdio_plan(args, tmp_path, CALLS, "accept"), tmp_path)
    assert out["server"] == {"name": "axag", "version": site_doc["generator"]["version"]}
    assert out["tools"] == [*site_doc["tools"], permission_listed(["rate_update"])]  # the SDK's parse keeps all
    check_calls(out["calls"], site_doc)
    assert out["asked"] == ["Book 2 guests from 2026-05-01 to 2026-05-03?"]  # the valid booking only
    assert len(backend.calls("/bookings")) == before + 1


def test_typescript_sdk_over_streamable_http_with_a_token(backend: Backend, guards_dir: Path,  # noqa: F811
                                                          site_doc: dict[str, Any], tmp_path: Path) -> None:
    with token_server(backend, guards_dir, tmp_path) as (url, token):
        out = ts_client({"transport": "http", "url": url, "token": token, "calls": CALLS, "elicit": "accept"},
                        tmp_path)
        assert out["tools"] == [*site_doc["tools"], permission_listed(["rate_update"])]
        check_calls(out["calls"], site_doc)
        assert out["asked"] == ["Book 2 guests from 2026-05-01 to 2026-05-03?"]
        proc = subprocess.run(["node", str(CLIENT), "-"], input=json.dumps(
            {"transport": "http", "url": url, "token": "not-a-token", "calls": []}), capture_output=True, text=True,
            cwd=str(ROOT), timeout=NODE_TIMEOUT, check=False)
        assert proc.returncode == 1 and proc.stdout == ""
        assert "401" in proc.stderr or "nauthorized" in proc.stderr, proc.stderr


def test_typescript_sdk_reads_a_tools_file_compiled_before_issue_26(site_doc: dict[str, Any],
                                                                     tmp_path: Path) -> None:
    """A committed tools file not yet recompiled (booleans in outputSchema) is listed as the SDK needs it."""
    old = copy.deepcopy(site_doc)
    for tool in old["tools"]:
        props = tool["outputSchema"]["properties"]
        props["result"] = True
        props["violations"]["items"]["properties"].update(expected=True, actual=True)
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(dumps(old), encoding="utf-8")
    args = serve_args(tmp_path / "state.sqlite", str(tools_file), "--base-url", "http://127.0.0.1:9", "--allow-unbound")
    out = ts_client(stdio_plan(args, tmp_path, [{"name": "booking_cancel", "arguments": {"booking_id": "B000001"}}],
                               None), tmp_path)
    assert out["tools"] == [*site_doc["tools"], permission_listed(["rate_update"])]
    assert out["calls"][0]["structuredContent"]["permission"] == "denied"


# ---------------------------------------------------------------------------------------------- the MCP Inspector
def _inspector_json(code: int, out: str, err: str) -> Any:
    assert code == 0, err + out
    return json.loads(out)


def test_inspector_cli_over_stdio(backend: Backend, guards_dir: Path, site_doc: dict[str, Any],  # noqa: F811
                                  tmp_path: Path) -> None:
    env = node_env(tmp_path)
    target = ["-e", f"AXAG_CACHE_DIR={env['AXAG_CACHE_DIR']}", "-e", f"PYTHONPATH={env['PYTHONPATH']}",
              sys.executable, *serve_args(tmp_path / "state.sqlite", str(SITE), "--base-url", backend.url,
                                          "--allow-unbound", "--guards", str(guards_dir), "--actor", "ann",
                                          "--roles", "guest")]
    listed = _inspector_json(*inspector(target, "--method", "tools/list", tmp=tmp_path))
    assert listed == {"tools": [*site_doc["tools"], permission_listed(["rate_update"])]}
    called = _inspector_json(*inspector(target, "--method", "tools/call", "--tool-name", "site_search",
                                        "--tool-arg", "q=sea view", tmp=tmp_path))
    envelope = {"success": True, "result": {"status": 200, "content_type": "application/json",
                                            "body": {"results": ["sea view"]}},
                "permission": "not_required", "violations": [],
                "guidance": "The call succeeded.", "tool": "site_search"}
    assert called == {"content": [{"type": "text", "text": json.dumps(envelope, ensure_ascii=False)}],
                      "structuredContent": envelope, "isError": False}
    # the Inspector declares no elicitation: a tool that needs confirmation says it cannot proceed, untouched
    before = len(backend.calls("/bookings"))
    called = _inspector_json(*inspector(target, "--method", "tools/call", "--tool-name", "booking_create",
                                        *[a for k, v in BOOK.items() for a in ("--tool-arg", f"{k}={v}")],
                                        tmp=tmp_path))
    assert called["isError"] is True
    assert called["structuredContent"]["permission"] == "confirmation_required"
    assert "this client cannot ask the user" in called["structuredContent"]["guidance"]
    assert len(backend.calls("/bookings")) == before


def test_inspector_cli_over_streamable_http_with_a_token(backend: Backend, guards_dir: Path,  # noqa: F811
                                                         site_doc: dict[str, Any], tmp_path: Path) -> None:
    with token_server(backend, guards_dir, tmp_path) as (url, token):
        target = [url, "--transport", "http", "--header", f"Authorization: Bearer {token}"]
        listed = _inspector_json(*inspector(target, "--method", "tools/list", tmp=tmp_path))
        assert listed == {"tools": [*site_doc["tools"], permission_listed(["rate_update"])]}
        called = _inspector_json(*inspector(target, "--method", "tools/call", "--tool-name", "booking_cancel",
                                            "--tool-arg", "booking_id=B000001", tmp=tmp_path))
        assert called["isError"] is True and called["structuredContent"]["permission"] == "denied"
        assert called["structuredContent"]["tool"] == "booking_cancel"
        code, out, err = inspector([url, "--transport", "http", "--header", "Authorization: Bearer wrong"],
                                   "--method", "tools/list", tmp=tmp_path)
        assert (code, out) == (1, "")
        assert 'Error POSTing to endpoint: {"error": "invalid_token", "error_description": "Authentication required"}' \
            in err, err


def test_node_tools_are_pinned_exactly() -> None:
    package = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["devDependencies"]
    assert package["@modelcontextprotocol/sdk"] == "1.32.2"
    assert package["@modelcontextprotocol/inspector"] == "0.22.0"
    installed = json.loads((ROOT / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json").read_text(
        encoding="utf-8"))
    assert installed["version"] == "1.32.2"
    assert os.access(INSPECTOR, os.X_OK)
