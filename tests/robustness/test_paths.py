"""Paths (file discovery, run diagnostics, parsing robustness): symlink loops, unreadable folders, files vanishing mid-run, names with
spaces, newlines and non-UTF-8 bytes are handled with a finding or a clear message, never a traceback."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from axag.cli.group import main

REPO = Path(__file__).resolve().parents[2]
GOOD = ('<form axag-intent="{i}.go" axag-action-type="read" axag-risk-level="none" axag-description="Go">'
        '<label>Q <input name="q"></label></form>\n')
BAD = '<a axag-intent="bad" axag-action-type="read">x</a>\n'


def _invoke(args: list[str], cwd: Path) -> Any:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        res = CliRunner().invoke(main, args)
    finally:
        os.chdir(old)
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert "Traceback" not in res.output
    return res


def _lint_json(cwd: Path, *paths: str) -> tuple[int, list[dict[str, Any]], str]:
    res = _invoke(["lint", "--isolated", "--jobs", "1", "--output-format", "json", *paths], cwd)
    return res.exit_code, json.loads(res.stdout)["findings"] if res.stdout.strip() else [], res.stderr


def _site(root: Path) -> Path:
    site = root / "site"
    site.mkdir()
    (site / "good.html").write_text(GOOD.format(i="good"), encoding="utf-8")
    (site / "bad.html").write_text(BAD, encoding="utf-8")
    return site


def test_symlink_loops_and_dangling_links(tmp_path: Path) -> None:
    site = _site(tmp_path)
    (site / "loop").symlink_to(site, target_is_directory=True)
    (site / "sub").mkdir()
    (site / "sub" / "up").symlink_to("..", target_is_directory=True)
    (site / "self.html").symlink_to("self.html")  # a link to itself
    (site / "a.html").symlink_to("b.html")
    (site / "b.html").symlink_to("a.html")  # a two-link loop
    (site / "dangling.html").symlink_to("nowhere.html")
    (site / "link.html").symlink_to("good.html")  # a link to a file is followed
    rc, findings, _ = _lint_json(tmp_path, "site")
    assert rc == 1
    paths = {f["path"] for f in findings}
    assert paths == {"site/bad.html"}, paths
    assert not any(str(f["code"]).endswith("199") for f in findings)
    # named on the command line: a loop is a clear problem, not a traceback
    res = _invoke(["lint", "--isolated", "--jobs", "1", "--output-format", "concise", "site/self.html"], tmp_path)
    assert res.exit_code in (0, 1, 2)
    assert "self.html" in res.output
    res = _invoke(["compile", "--isolated", "--jobs", "1", "-o", "t.json", "site"], tmp_path)
    assert res.exit_code == 1  # bad.html has an error
    res = _invoke(["compile", "--isolated", "--jobs", "1", "-o", "t.json", "site/good.html", "site/link.html"],
                  tmp_path)
    assert res.exit_code in (0, 1), res.output


def test_unreadable_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = _site(tmp_path)
    locked = site / "locked"
    locked.mkdir()
    (locked / "x.html").write_text(GOOD.format(i="locked"), encoding="utf-8")
    real_scandir = os.scandir

    def scandir(path: Any = ".") -> Any:
        if Path(path) == locked:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    res = _invoke(["lint", "--isolated", "--jobs", "1", "--output-format", "concise", "site"], tmp_path)
    assert res.exit_code == 1
    assert "bad.html" in res.output
    assert "locked" in res.output and "Permission denied" in res.output, res.output
    res = _invoke(["compile", "--isolated", "--jobs", "1", "-o", "t.json", "--keep-going", "site"], tmp_path)
    assert res.exit_code == 1
    assert "locked" in res.output and "Permission denied" in res.output


def test_unreadable_folder_for_real(tmp_path: Path) -> None:
    """A real chmod 000 directory (meaningful when not root; as root it is readable and simply linted)."""
    site = _site(tmp_path)
    locked = site / "locked"
    locked.mkdir()
    (locked / "x.html").write_text(BAD, encoding="utf-8")
    locked.chmod(0)
    try:
        res = _invoke(["lint", "--isolated", "--jobs", "1", "--output-format", "concise", "site"], tmp_path)
        assert res.exit_code == 1
        if os.geteuid() != 0:
            assert "Permission denied" in res.output
    finally:
        locked.chmod(0o755)


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = _site(tmp_path)
    target = site / "good.html"
    real_open = os.open

    def fake_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, (str, os.PathLike)) and Path(file) == target:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", fake_open)
    rc, findings, _ = _lint_json(tmp_path, "site")
    monkeypatch.undo()
    codes = {(f["path"], f["code"]) for f in findings}
    assert ("site/good.html", "AXAG-LINT-191") in codes, codes
    assert any(p == "site/bad.html" for p, _ in codes)
    assert rc == 1


def test_file_vanishes_mid_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discovery sees the file, then it is deleted before the engine reads it: 191 for it, the rest unaffected."""
    site = _site(tmp_path)
    for i in range(5):
        (site / f"v{i}.html").write_text(GOOD.format(i=f"v{i}"), encoding="utf-8")
    import axag.files.discover as disc

    real = disc.discover

    def discover_then_delete(*args: Any, **kwargs: Any) -> Any:
        found = real(*args, **kwargs)
        (site / "v2.html").unlink()
        (site / "v3.html").unlink()
        (site / "v3.html").mkdir()  # replaced by a directory
        return found

    monkeypatch.setattr(disc, "discover", discover_then_delete)
    rc, findings, _ = _lint_json(tmp_path, "site")
    by_path = {}
    for f in findings:
        by_path.setdefault(f["path"], set()).add(f["code"])
    assert by_path.get("site/v2.html") == {"AXAG-LINT-191"}, by_path
    assert by_path.get("site/v3.html") == {"AXAG-LINT-191"}, by_path
    assert "site/v1.html" not in by_path and "site/bad.html" in by_path
    assert rc == 1
    # compile: the vanished files are errors (nothing written without --keep-going) and messages are clear
    (site / "v2.html").write_text(GOOD.format(i="v2"), encoding="utf-8")
    (site / "v3.html").rmdir()
    (site / "v3.html").write_text(GOOD.format(i="v3"), encoding="utf-8")
    (site / "bad.html").unlink()
    res = _invoke(["compile", "--isolated", "--jobs", "1", "-o", "t.json", "site"], tmp_path)
    assert res.exit_code == 1, res.output
    assert "v2.html" in res.output and "191" in res.output
    assert not (tmp_path / "t.json").exists()


def test_file_vanishes_with_workers(tmp_path: Path) -> None:
    """The same with worker processes: a named file deleted before the run is a clear 191 / message."""
    site = _site(tmp_path)
    for i in range(8):
        (site / f"w{i}.html").write_text(GOOD.format(i=f"w{i}"), encoding="utf-8")
    res = _invoke(["lint", "--isolated", "--jobs", "2", "--output-format", "concise", "site", "site/missing.html"],
                  tmp_path)
    assert res.exit_code in (1, 2)
    assert "missing.html" in res.output


WEIRD = ["with space.html", "new\nline.html", "tab\tname.html", "quote\"'.html", "ünï©ødé.html", "-dash.html",
         "percent%0A.html", "colon:comma,.html", "back\\slash.html", "\u2028sep.html", "\x1b[31mred.html"]


@pytest.mark.parametrize("fmt", ["full", "concise", "json", "github", "sarif", "junit", "gitlab", "json-lines"])
def test_weird_names(tmp_path: Path, fmt: str) -> None:
    site = tmp_path / "site"
    site.mkdir()
    for name in WEIRD:
        (site / name).write_text(BAD, encoding="utf-8")
    raw = os.fsencode(str(site)) + b"/latin\xe9\xff.html"
    with open(raw, "wb") as fh:
        fh.write(BAD.encode())
    res = _invoke(["lint", "--isolated", "--jobs", "1", "--output-format", fmt, "site"], tmp_path)
    assert res.exit_code == 1, res.output
    out = res.stdout
    assert "\x1b" not in out
    if fmt in ("json", "sarif", "gitlab"):
        json.loads(out)
    if fmt == "json-lines":
        for ln in out.split("\n")[:-1]:
            json.loads(ln)
    if fmt == "github":
        lines = out.split("\n")[:-1]
        assert all(ln.startswith("::") for ln in lines), lines
    if fmt == "junit":
        import xml.etree.ElementTree as ET

        ET.fromstring(out.encode("utf-8"))
    if fmt == "concise":
        lines = [ln for ln in out.split("\n") if ln.strip()]
        assert len(lines) == len(WEIRD) + 1 + 1, lines  # one finding per file (newlines escaped) and the summary


def test_weird_names_compile_and_subprocess(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    for i, name in enumerate(WEIRD):
        (site / name).write_text(GOOD.format(i=f"w{i}"), encoding="utf-8")
    with open(os.fsencode(str(site)) + b"/latin\xe9\xff.html", "wb") as fh:
        fh.write(GOOD.format(i="latin").encode())
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = subprocess.run([sys.executable, "-m", "axag", "compile", "--isolated", "--jobs", "1", "site", "-o",
                        "tools.json"], cwd=tmp_path, env=env, capture_output=True, check=False)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    assert b"Traceback" not in r.stderr
    doc = json.loads((tmp_path / "tools.json").read_text("utf-8"))
    assert len(doc["tools"]) == len(WEIRD) + 1
    files = {s["file"] for t in doc["tools"] for s in t["_meta"]["org.axag/action"]["sources"]}
    assert "site/new\nline.html" in files
    r = subprocess.run([sys.executable, "-m", "axag", "lint", "--isolated", "--jobs", "2", "--output-format",
                        "concise", "site"], cwd=tmp_path, env=env, capture_output=True, check=False)
    assert r.returncode in (0, 1), r.stderr.decode(errors="replace")
    assert b"Traceback" not in r.stdout + r.stderr
    assert b"\x1b" not in r.stdout


def test_missing_and_odd_named_paths(tmp_path: Path) -> None:
    _site(tmp_path)
    (tmp_path / "fifo.html").parent.mkdir(exist_ok=True)
    os.mkfifo(tmp_path / "fifo.html")
    for args in (["lint", "nope.html"], ["lint", "site", "nope/"], ["compile", "-o", "t.json", "nope.html"],
                 ["lint", ""], ["compile", "-o", "t.json", "site", "--root", "site/sub"], ["lint", "/dev/null"]):
        res = _invoke([args[0], "--isolated", "--jobs", "1", *args[1:]], tmp_path)
        assert res.exit_code in (0, 1, 2), (args, res.output)
    # a FIFO or a device named on the command line must not block the run: 190, the rest is linted
    r = subprocess.run([sys.executable, "-m", "axag", "lint", "--isolated", "--jobs", "1", "--output-format",
                        "concise", "site", "fifo.html", "/dev/zero"], cwd=tmp_path,
                       env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, check=False, timeout=60)
    assert b"Traceback" not in r.stderr
    assert r.returncode == 1
    assert b"fifo.html:1:1: AXAG-LINT-190" in r.stdout and b"bad.html" in r.stdout
