"""`axag lint --watch`: a subprocess that lints, is edited under, prints the new report like a fresh
run, and exits 130 on Ctrl-C; the re-run checks only the changed files plus the run-wide checks they affect."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

GOOD = '<button axag-intent="cart.add" axag-action-type="read" axag-risk-level="low">Add</button>\n'
BAD = GOOD.replace('"low"', '"hgih"')


class Reader:
    """The lines a process prints, collected by a thread (never a blocking read in the test)."""

    def __init__(self, stream: Any) -> None:
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self.lines.append(line)

    def wait_for(self, text: str, count: int = 1, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while sum(text in line for line in self.lines) < count:
            assert time.monotonic() < deadline, (text, self.lines)
            time.sleep(0.05)


def test_watch_relints_on_change_and_ctrl_c_exits_130(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.html").write_text(GOOD.replace("cart.add", "cart.remove"), encoding="utf-8")
    env = {**os.environ, "HOME": str(tmp_path), "AXAG_CACHE_DIR": str(tmp_path / "cache"), "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "axag", "lint", "--watch", "--output-format", "concise",
                             "--no-cache", "."], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out, err = Reader(proc.stdout), Reader(proc.stderr)
    try:
        err.wait_for("watching for changes")
        assert not any("AXAG-LINT-005" in line for line in out.lines)
        time.sleep(0.3)
        (tmp_path / "a.html").write_text(BAD, encoding="utf-8")
        err.wait_for("linting again")
        err.wait_for("watching for changes", 2)
        report = "".join(out.lines)
        assert 'a.html:1:73: AXAG-LINT-005 Invalid axag-risk-level="hgih"' in report, report
        # a.html mended, then the intent of b.html made a.html's with another contract: run-wide 121
        (tmp_path / "a.html").write_text(GOOD, encoding="utf-8")
        err.wait_for("watching for changes", 3)
        assert "Found 0 errors" in out.lines[-1], out.lines
        (tmp_path / "b.html").write_text(GOOD.replace('"low"', '"none"'), encoding="utf-8")
        err.wait_for("watching for changes", 4)
        assert any(line.startswith("b.html:1:2: AXAG-LINT-121") for line in out.lines), out.lines
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 130
        err.thread.join(5)
        assert err.lines[-1] == "axag: interrupted\n"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_only_changed_files_are_checked_again(tmp_path: Path, monkeypatch: Any) -> None:
    from axag.cli.lint_standalone import run_lint
    from axag.cli.lint_watch import Incremental

    files = {name: tmp_path / name for name in ("a.html", "b.html", "c.html")}
    for i, path in enumerate(files.values()):
        path.write_text(GOOD.replace("cart.add", f"cart.n{i}"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AXAG_CACHE_DIR", str(tmp_path / "cache"))
    state = Incremental()
    opts = dict(paths=(".",), config=None, isolated=False, select=None, ignore=None, extend_select=None,  # noqa: C408
                level=None, fail_on=None, fix=False, diff=False, statistics=False, exit_zero=False,
                output_format=("json:" + str(tmp_path / "out.json"),), output_file=None, stdin_filename=None,
                baseline=None, update_baseline=False, manifest=None, enforced_intents=None, openapi=None,
                force_exclude=False, no_respect_gitignore=False, color="never", quiet=True, jobs=1,
                no_cache=True, cache_dir=None, _check_files=state)
    assert run_lint(opts) == 0
    assert sorted(p.name for p in state.checked) == ["a.html", "b.html", "c.html"]
    # b.html takes a.html's intent with another contract: 121 in b.html, a.html not checked again
    files["b.html"].write_text(GOOD.replace("cart.add", "cart.n0").replace('"low"', '"none"'), encoding="utf-8")
    state.changed = {files["b.html"].absolute()}
    assert run_lint(opts) == 1
    assert [p.name for p in state.checked] == ["b.html"]
    report = (tmp_path / "out.json").read_text(encoding="utf-8")
    assert '"code": "AXAG-LINT-121"' in report and '"path": "b.html"' in report
