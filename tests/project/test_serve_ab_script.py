"""tests/benchmarks/serve_ab.py (not collected) runs end to end: each server serves the calls with the code of
its own source tree, and the report names both trees with their figures."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "benchmarks" / "serve_ab.py"


def _run(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=tmp, capture_output=True, text=True,
                          timeout=240, check=False)


def test_both_trees_are_measured_in_alternating_chunks(tmp_path: Path) -> None:
    done = _run("--a", str(ROOT), "--chunks", "2", "--calls", "10", "--concurrency", "4", tmp=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "(2 alternating chunks of 10 calls per server in two passes, concurrency 4, sqlite state)"
    for label, line in zip("AB", lines[1:3], strict=True):
        m = re.fullmatch(rf"{label}: +(\d+\.\d) calls/s, server CPU per call (\d+\.\d{{3}}) ms  \((.*)\)", line)
        assert m is not None, line
        assert float(m.group(1)) > 0 and float(m.group(2)) > 0 and m.group(3) == str(ROOT)
    assert re.fullmatch(r"A - B: [+-]\d+\.\d{3} ms of server CPU per call; A / B calls/s = \d+\.\d{3}", lines[3])
    assert len(lines) == 4


def test_each_server_runs_the_code_of_its_own_tree(tmp_path: Path) -> None:
    """A tree whose serve answers every call as an error fails the run; B (this checkout) alone would not."""
    tree = tmp_path / "tree"
    for part in ("axag", "schemas"):  # a source tree: the package and the schemas it reads
        shutil.copytree(ROOT / part, tree / part, ignore=shutil.ignore_patterns("__pycache__"))
    app = tree / "axag" / "serve" / "app.py"
    text = app.read_text(encoding="utf-8")
    needle = "is_error=not envelope.get(\"success\", False))"
    assert needle in text
    app.write_text(text.replace(needle, "is_error=True)"), encoding="utf-8")
    done = _run("--a", str(tree), "--chunks", "1", "--calls", "5", tmp=tmp_path)
    assert done.returncode != 0
    assert "AssertionError" in done.stderr


def test_a_folder_that_is_not_an_axag_tree_is_refused(tmp_path: Path) -> None:
    done = _run("--a", str(tmp_path), tmp=tmp_path)
    assert done.returncode == 2
    assert f"{tmp_path} is not an axag source tree (no axag/__init__.py)" in done.stderr
