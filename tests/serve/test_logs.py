"""`axag serve --log-format json`: one JSON object per line on stderr, a `call` event per call
with its outcome and never its argument values, and no token or `--base-url` secret in any line; text stays the
default."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from tests.serve.test_serve import ROOT, SITE, _env, _wait_port, add_token, http_client, serve_args
from tests.serve_backend import Backend, free_port, running_backend

SECRET_ARG = "zebra quartz"  # an argument value (site_search's q)


@pytest.fixture(scope="module")
def backend() -> Iterator[Backend]:
    with running_backend(SITE) as b:
        yield b


def _serve(args: list[str], work: Any) -> str:
    """Run `axag serve ARGS --http`, do ``work(url)``, stop it with SIGTERM; its stderr."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, *args, "--http", f"127.0.0.1:{port}"], env=_env(), cwd=str(ROOT),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_port(port, proc)
        work(f"http://127.0.0.1:{port}/mcp")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        return err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)


def _calls(token: str) -> Any:
    def work(url: str) -> None:
        async def go() -> None:
            async with http_client(url, token, "legacy") as client:
                assert not (await client.call_tool("site_search", {"q": SECRET_ARG})).is_error
                assert (await client.call_tool("site_search", {"q": SECRET_ARG * 40})).is_error
                assert (await client.call_tool("nope", {"q": SECRET_ARG})).is_error

        asyncio.run(go())

    return work


def test_json_logs_one_object_a_line_and_no_secret(backend: Backend, tmp_path: Path) -> None:
    state = tmp_path / "s.sqlite"
    token = add_token(state, "ops", "guest")
    host = backend.url.removeprefix("http://")
    base = f"http://svc:pa55word-xyz@{host}/?api_key=k3y-value-123"
    err = _serve(serve_args(state, str(SITE), "--base-url", base, "--allow-unbound", "--log-format", "json"),
                 _calls(token))
    lines = [json.loads(line) for line in err.splitlines()]  # every line is one JSON object
    assert all(isinstance(line, dict) and {"time", "level", "logger", "message"} <= set(line) for line in lines)
    assert all(line["time"].endswith("Z") and len(line["time"]) == 24 for line in lines)
    start = [line for line in lines if line["message"].startswith("axag serve: MCP endpoint http://127.0.0.1:")]
    assert len(start) == 1 and start[0]["level"] == "INFO" and start[0]["logger"] == "axag.serve"
    events = [{k: v for k, v in line.items() if k not in ("time", "message", "duration_ms")}
              for line in lines if line.get("event") == "call"]
    assert events == [
        {"level": "INFO", "logger": "axag.serve", "event": "call", "tool": "site_search", "actor": "ops",
         "permission": "not_required", "backend_status": 200},
        {"level": "INFO", "logger": "axag.serve", "event": "call", "tool": "site_search", "actor": "ops",
         "permission": "constraint_violated", "backend_status": None},
        {"level": "INFO", "logger": "axag.serve", "event": "call", "tool": "nope", "actor": "ops",
         "permission": "unknown_tool", "backend_status": None}]
    assert all(isinstance(line["duration_ms"], float) for line in lines if line.get("event") == "call")
    for secret in (token, "pa55word-xyz", "k3y-value-123", SECRET_ARG, SECRET_ARG.upper()):
        assert secret not in err


def test_text_stays_the_default(backend: Backend, tmp_path: Path) -> None:
    state = tmp_path / "s.sqlite"
    token = add_token(state, "ops", "guest")
    err = _serve(serve_args(state, str(SITE), "--base-url", backend.url, "--allow-unbound"), _calls(token))
    assert err.splitlines()[0].startswith("axag serve: MCP endpoint http://127.0.0.1:")
    assert "{" not in err and token not in err and SECRET_ARG not in err


def test_config_key_and_bad_value(tmp_path: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.axag.serve]\nlog-format = "yaml"\n', encoding="utf-8")
    done = subprocess.run([sys.executable, *serve_args(tmp_path / "s.sqlite", str(SITE), "--base-url",
                                                       "http://127.0.0.1:9", "--allow-unbound", "--config", str(config))],
                          env=_env(), cwd=str(ROOT), capture_output=True, text=True, timeout=60, check=False,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert f'{config}: unknown value "yaml" for "serve.log-format" (expected text, json)' in done.stderr


def test_the_redactor_masks_json_records_and_their_tracebacks() -> None:
    from axag.serve.logs import JsonFormatter
    from axag.serve.redact import Redactor

    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("axag.serve.test-redact")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        Redactor("https://svc:pa55word-xyz@backend.example/?token=t0ken-abc").install(logger)
        try:
            raise RuntimeError("https://svc:pa55word-xyz@backend.example/x failed, token=t0ken-abc")
        except RuntimeError:
            logger.exception("calling %s", "https://svc:pa55word-xyz@backend.example/?token=t0ken-abc")
    finally:
        logger.removeHandler(handler)
    record = json.loads(out.getvalue())
    assert record["message"] == "calling https://***@backend.example/?token=***"
    assert "RuntimeError: https://***@backend.example/x failed, token=***" in record["exception"]
    assert "pa55word" not in out.getvalue() and "t0ken-abc" not in out.getvalue()
