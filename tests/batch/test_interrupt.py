"""Ctrl-C: exit 130 like other tools, one line on stderr, no traceback (also from worker
processes, which get the SIGINT of the terminal's process group too), and an existing output file survives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")

OLD = '{"old": true}\n'
ROW = ('<button axag-intent="cart.item{0}" axag-action-type="write" axag-risk-level="low" '
       'axag-description="Add item {0}">Add</button>\n')


def _wait_for(predicate: object, proc: subprocess.Popen[str], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "axag ended before it was interrupted"
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    pytest.fail("axag never reached the state to interrupt")


def _children(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []


def _interrupt(proc: subprocess.Popen[str]) -> tuple[str, str]:
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole foreground group
    try:
        return proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("axag did not stop on SIGINT")


def _start(args: list[str], cwd: Path, **kwargs: object) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "axag", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, **kwargs)  # type: ignore[call-overload]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_ctrl_c_with_worker_processes(tmp_path: Path) -> None:
    names = []
    for i in range(4):
        (tmp_path / f"p{i}.html").write_text("<body>\n" + "".join(ROW.format(i * 100000 + j) for j in range(20000))
                                             + "</body>\n")
        names.append(f"p{i}.html")
    (tmp_path / "report.json").write_text(OLD)
    proc = _start(["lint", "--isolated", "--jobs", "2", "--output-format", "json:report.json", *names], tmp_path)
    _wait_for(lambda: len(_children(proc.pid)) >= 2, proc)  # the workers are checking the pages
    time.sleep(0.3)
    out, err = _interrupt(proc)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err == "axag: interrupted\n"
    assert out == ""
    assert (tmp_path / "report.json").read_text() == OLD
    assert sorted(p.name for p in tmp_path.iterdir()) == [*names, "report.json"]  # no temporary file left


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="needs /proc")
def test_ctrl_c_while_reading_stdin(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text(OLD)
    proc = _start(["lint", "--isolated", "-", "--output-format", "json:tools.json"], tmp_path,
                  stdin=subprocess.PIPE)

    def reading() -> bool:
        try:
            return "pipe_read" in Path(f"/proc/{proc.pid}/wchan").read_text()
        except OSError:
            return False

    _wait_for(reading, proc)
    out, err = _interrupt(proc)
    assert out == ""
    assert proc.returncode == 130, err
    assert err == "axag: interrupted\n"
    assert (tmp_path / "tools.json").read_text() == OLD
