"""The serve example, end to end as written (the site's serve page
docs/serve/index.md): its shell block is read from the page and run in a fresh folder holding the project's `fixtures/` and `tests/serve_backend.py`: the backend
starts (on a free port instead of 8000), the guards are written with the shipped `fixtures/preconditions.py`,
and `axag serve` with the README's arguments is driven by the MCP SDK's client: `booking_create`, the example's
main tool, reaches the backend after the user confirms; a stay over Christmas is refused by `room_available`;
and the README explains preconditions next to the example. The README names no `../shared` path."""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

try:
    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
except ImportError:  # pragma: no cover - CI installs the serve extra (.[test])
    if os.environ.get("CI"):
        raise
    pytest.skip("axag[serve] is needed", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGE = (ROOT / "docs" / "serve" / "index.md").read_text(encoding="utf-8")
BOOK = {"check_in": "2026-05-01", "check_out": "2026-05-03", "guests": 2, "email": "ann@example.org",
        "board": "breakfast"}


def serve_block() -> list[str]:
    section = PAGE
    m = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert m is not None
    return m.group(1).strip().splitlines()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the backend exited"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the backend did not start")


def test_readme_names_no_shared_folder() -> None:
    assert "../shared" not in README
    assert [p.name for p in (ROOT / "docs").rglob("*.md") if "../shared" in p.read_text(encoding="utf-8")] == []


def test_readme_explains_preconditions_beside_the_example() -> None:
    section = PAGE[:PAGE.index("An MCP client starts it over stdio")]
    assert "room_available" in section and "fixtures/preconditions.py" in section
    assert "precondition_failed" in section


def test_readme_serve_example_works_as_written(tmp_path: Path) -> None:
    backend_line, guards_line, serve_line = serve_block()
    install, sep, backend_cmd = backend_line.partition(" && ")
    assert install == "pip install '.[serve]'" and sep and backend_cmd.endswith(" &")
    work = tmp_path / "work"
    (work / "tests").mkdir(parents=True)
    shutil.copytree(ROOT / "fixtures", work / "fixtures")
    shutil.copy(ROOT / "tests" / "serve_backend.py", work / "tests" / "serve_backend.py")
    port = _free_port()
    env = dict(os.environ, HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"),
               AXAG_CACHE_DIR=str(tmp_path / "axag-cache"),
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    words = shlex.split(backend_cmd.removesuffix("&"))
    assert words[0] == "python" and words[-2:] == ["--port", "8000"]
    backend = subprocess.Popen([sys.executable, *words[1:-1], str(port)], cwd=work, env=env)
    try:
        _wait(port, backend)
        done = subprocess.run(["sh", "-c", guards_line], check=False, cwd=work, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        assert (work / "guards" / "preconditions.py").read_bytes() == (ROOT / "fixtures" / "preconditions.py"
                                                                       ).read_bytes()
        words = shlex.split(serve_line.replace("127.0.0.1:8000", f"127.0.0.1:{port}"))
        assert words[:2] == ["axag", "serve"] and f"http://127.0.0.1:{port}" in words
        asyncio.run(_session(words, work, env))
    finally:
        backend.terminate()
        backend.wait(timeout=30)


async def _session(words: list[str], work: Path, env: dict[str, str]) -> None:
    asked: list[str] = []

    async def confirm(ctx: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})

    args = ["-m", "axag", *words[1:], "--state", str(work / "state.sqlite")]
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(work))
    async with Client(params, mode="legacy", elicitation_callback=confirm) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        assert "booking_create" in listed
        booked = await client.call_tool("booking_create", BOOK)
        envelope = dict(booked.structured_content or {})
        assert envelope["success"] is True, envelope
        assert envelope["permission"] == "not_required" and envelope["confirmed"] is True
        assert asked == ["Book 2 guests from 2026-05-01 to 2026-05-03?"]
        full = await client.call_tool("booking_create", {**BOOK, "check_in": "2026-12-24", "check_out": "2026-12-26"})
        refused = dict(full.structured_content or {})
        assert refused["success"] is False and refused["permission"] == "precondition_failed"
        assert "room_available" in str(refused["violations"])
        assert len(asked) == 1  # a refused call never asks the user
