"""Crash-safe writes (SPEC §9.12, §13.5, §10.1): outputs are replaced atomically. SIGKILL at random moments (and
right when a temporary file appears) leaves the old file or the complete new one; write failures (read-only
directory, full disk) give a clear message and exit 2, never a traceback, and the old output survives."""

from __future__ import annotations

import errno
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from axag.cli import main

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
KILLS = 20


def _site(root: Path, n: int, variant: str) -> Path:
    site = root / "site"
    site.mkdir(exist_ok=True)
    for i in range(n):
        (site / f"p{i:04d}.html").write_text(
            f'<form axag-intent="e{i}.go" axag-action-type="read" axag-risk-level="none" '
            f'axag-description="Go {variant} {i}"><label>Query <input name="q" required maxlength="20"></label>'
            f"</form>\n", encoding="utf-8")
    return site


def _kill_loop(cmd: list[str], cwd: Path, watch: Path, reset: Callable[[], None], check: Callable[[int], None],
               kills: int, seed: int) -> dict[str, int]:
    """Run ``cmd`` ``kills`` times, each killed with SIGKILL: odd runs at a random moment, even runs as soon as a
    temporary file appears in ``watch`` (the write phase). ``check`` inspects the outputs after every kill."""
    rng = random.Random(seed)
    t0 = time.perf_counter()
    reset()
    proc = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, check=False)
    full = time.perf_counter() - t0
    assert proc.returncode in (0, 1), proc.stderr.decode(errors="replace")
    stats = {"in_write": 0, "random": 0, "finished": 0}
    for k in range(kills):
        reset()
        p = subprocess.Popen(cmd, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        start = time.perf_counter()
        if k % 2 == 0:
            deadline = start + 3 * full + 5
            while time.perf_counter() < deadline and p.poll() is None:
                try:
                    names = os.listdir(watch)
                except OSError:
                    names = []
                if any(n.endswith(".tmp") for n in names):
                    stats["in_write"] += 1
                    break
            p.send_signal(signal.SIGKILL)
        else:
            time.sleep(rng.uniform(0.2 * full, 1.1 * full))
            p.send_signal(signal.SIGKILL)
            stats["random"] += 1
        rc = p.wait()
        if rc >= 0:
            stats["finished"] += 1
        check(k)
    return stats


@pytest.fixture(scope="module")
def big_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes, bytes]:
    root = tmp_path_factory.mktemp("big")
    _site(root, 300, "new")
    cmd = [sys.executable, "-m", "axag", "compile", "--isolated", "--jobs", "1", "--quiet", "site", "-o", "new.json"]
    subprocess.run(cmd, cwd=root, env=ENV, check=True, capture_output=True)
    new = (root / "new.json").read_bytes()
    (root / "new.json").unlink()
    old = json.dumps({"tools": [], "note": "old output"}).encode()
    return root, old, new


def test_compile_sigkill_leaves_old_or_new(big_site: tuple[Path, bytes, bytes]) -> None:
    root, old, new = big_site
    out = root / "tools.json"

    def reset() -> None:
        out.write_bytes(old)
        for n in os.listdir(root):
            if n.endswith(".tmp"):
                os.unlink(root / n)

    seen = set()

    def check(k: int) -> None:
        data = out.read_bytes()
        assert data in (old, new), f"kill {k}: partial tools.json ({len(data)} bytes)"
        seen.add(data == new)
        assert sorted(n for n in os.listdir(root) if not n.startswith(".")) == ["site", "tools.json"]

    cmd = [sys.executable, "-m", "axag", "compile", "--isolated", "--jobs", "1", "--quiet", "site", "-o",
           "tools.json"]
    t0 = time.perf_counter()
    stats = _kill_loop(cmd, root, root, reset, check, KILLS, seed=7)
    print(f"compile kills: {stats}, {time.perf_counter() - t0:.1f}s")
    assert stats["in_write"] >= 1  # at least one kill landed between temp file creation and rename


def test_guards_sigkill_leaves_old_or_new(tmp_path: Path) -> None:
    tools = REPO / "tests" / "data" / "guards" / "booking.tools.json"
    gdir = tmp_path / "g"
    cmd = [sys.executable, "-m", "axag", "guards", str(tools), "-o", str(gdir)]
    subprocess.run(cmd, env=ENV, check=True, capture_output=True)
    new = {n: (gdir / n).read_bytes() for n in os.listdir(gdir)}
    old = {n: b"# old " + n.encode() + b"\n" for n in new if n != "preconditions.py"}

    def reset() -> None:
        for n in os.listdir(gdir):
            os.unlink(gdir / n)
        for n, data in old.items():
            (gdir / n).write_bytes(data)

    def check(k: int) -> None:
        for n, before in old.items():
            assert (gdir / n).read_bytes() in (before, new[n]), f"kill {k}: partial {n}"
        if (gdir / "preconditions.py").exists():
            assert (gdir / "preconditions.py").read_bytes() == new["preconditions.py"]

    stats = _kill_loop(cmd, tmp_path, gdir, reset, check, 6, seed=3)
    print(f"guards kills: {stats}")


FIXABLE = ('<form axag-intent="e{i}.go" axag-action-type="read" axag-risk-level="none" AXAG-DESCRIPTION="Go {i}">'
           '<label>Q <input name="q" required></label></form>\n')


def test_lint_fix_sigkill_leaves_old_or_fixed(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(60):
        (src / f"f{i:03d}.html").write_text(FIXABLE.format(i=i), encoding="utf-8")
    fixed_dir = tmp_path / "fixed"
    shutil.copytree(src, fixed_dir)
    cmd = [sys.executable, "-m", "axag", "lint", "--isolated", "--jobs", "1", "--quiet", "--fix", "--exit-zero"]
    subprocess.run([*cmd, "."], cwd=fixed_dir, env=ENV, check=True, capture_output=True)
    olds = {n: (src / n).read_bytes() for n in os.listdir(src)}
    news = {n: (fixed_dir / n).read_bytes() for n in os.listdir(fixed_dir)}
    assert olds != news  # the fix changes something (131: lower-case the attribute name)
    work = tmp_path / "work"

    def reset() -> None:
        if work.exists():
            shutil.rmtree(work)
        shutil.copytree(src, work)

    def check(k: int) -> None:
        names = sorted(os.listdir(work))
        visible = [n for n in names if not n.startswith(".")]
        assert visible == sorted(olds), f"kill {k}: files missing or extra"
        for n in visible:
            assert (work / n).read_bytes() in (olds[n], news[n]), f"kill {k}: partial {n}"

    stats = _kill_loop([*cmd, "work"], tmp_path, work, reset, check, 6, seed=5)
    print(f"lint --fix kills: {stats}")


# ---------------------------------------------------------------- write failures (in-process)

def _invoke(args: list[str], cwd: Path) -> tuple[int, str, BaseException | None]:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        res = CliRunner().invoke(main, args)
    finally:
        os.chdir(old)
    return res.exit_code, res.output, res.exception


def _raiser(code: int) -> Callable[..., object]:
    def fail(*args: object, **kwargs: object) -> object:
        raise OSError(code, os.strerror(code))

    return fail


@pytest.mark.parametrize("target", ["os.fsync", "os.replace", "tempfile.mkstemp"])
@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EIO])
def test_compile_write_failure_is_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str,
                                         code: int) -> None:
    _site(tmp_path, 3, "x")
    out = tmp_path / "tools.json"
    out.write_bytes(b"OLD")
    module, name = target.split(".")
    monkeypatch.setattr(f"{module}.{name}", _raiser(code))
    rc, output, exc = _invoke(["compile", "--isolated", "--jobs", "1", "site", "-o", "tools.json"], tmp_path)
    monkeypatch.undo()
    assert rc == 2, output
    assert exc is None or isinstance(exc, SystemExit), repr(exc)
    assert "Traceback" not in output
    assert "cannot write" in output and os.strerror(code) in output, output
    assert out.read_bytes() == b"OLD"
    assert sorted(os.listdir(tmp_path)) == ["site", "tools.json"]  # no temp file left behind


def test_compile_diagnostics_file_write_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _site(tmp_path, 3, "x")
    monkeypatch.setattr("os.replace", _raiser(errno.ENOSPC))
    rc, output, exc = _invoke(["compile", "--isolated", "--jobs", "1", "site", "-o", "-", "--output-format",
                               "json:diag.json"], tmp_path)
    monkeypatch.undo()
    assert rc == 2, output
    assert exc is None or isinstance(exc, SystemExit), repr(exc)
    assert "cannot write" in output


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_guards_write_failure_is_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    tools = REPO / "tests" / "data" / "guards" / "booking.tools.json"
    gdir = tmp_path / "g"
    gdir.mkdir()
    (gdir / "_guards.py").write_text("OLD", encoding="utf-8")
    monkeypatch.setattr("os.fsync", _raiser(code))
    rc, output, exc = _invoke(["guards", str(tools), "-o", str(gdir)], tmp_path)
    monkeypatch.undo()
    assert rc == 2, output
    assert exc is None or isinstance(exc, SystemExit), repr(exc)
    assert "Traceback" not in output and os.strerror(code) in output
    assert (gdir / "_guards.py").read_text(encoding="utf-8") == "OLD"
    assert not [n for n in os.listdir(gdir) if n.endswith(".tmp")]


def test_guards_output_is_a_file(tmp_path: Path) -> None:
    tools = REPO / "tests" / "data" / "guards" / "booking.tools.json"
    (tmp_path / "g").write_text("x", encoding="utf-8")
    rc, output, exc = _invoke(["guards", str(tools), "-o", str(tmp_path / "g" / "sub")], tmp_path)
    assert rc == 2, output
    assert exc is None or isinstance(exc, SystemExit), repr(exc)


def test_lint_fix_write_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.html").write_text(FIXABLE.format(i=1), encoding="utf-8")
    before = (tmp_path / "a.html").read_bytes()
    monkeypatch.setattr("os.fsync", _raiser(errno.ENOSPC))
    rc, output, exc = _invoke(["lint", "--isolated", "--jobs", "1", "--fix", "--output-format", "concise", "a.html"],
                              tmp_path)
    monkeypatch.undo()
    assert exc is None or isinstance(exc, SystemExit), repr(exc)
    assert rc == 2, output
    assert "Traceback" not in output and os.strerror(errno.ENOSPC) in output
    assert (tmp_path / "a.html").read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["a.html"]


def test_full_tmpfs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A really full file system (a 64 KiB tmpfs) when mounting works (root); else a patched fsync."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    mounted = os.geteuid() == 0 and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True, check=False).returncode == 0
    try:
        _site(tmp_path, 200, "x")
        (mnt / "tools.json").write_bytes(b"OLD")
        if mounted:
            (mnt / "filler").write_bytes(b"\0" * 40_000)
        else:
            (mnt / "filler").write_bytes(b"")
            monkeypatch.setattr("os.fsync", _raiser(errno.ENOSPC))
        rc, output, exc = _invoke(["compile", "--isolated", "--jobs", "1", "site", "-o", str(mnt / "tools.json")],
                                  tmp_path)
        monkeypatch.undo()
        assert rc == 2, output
        assert exc is None or isinstance(exc, SystemExit), repr(exc)
        assert "Traceback" not in output and "cannot write" in output
        assert (mnt / "tools.json").read_bytes() == b"OLD"
        assert sorted(os.listdir(mnt)) == ["filler", "tools.json"]
        if mounted:
            _read_only_mount(tmp_path, mnt)
    finally:
        if mounted:
            subprocess.run(["umount", str(mnt)], capture_output=True, check=False)


def _read_only_mount(tmp_path: Path, mnt: Path) -> None:
    """The same tmpfs remounted read-only: compile, guards and lint --fix exit 2 with the OS message."""
    (mnt / "filler").unlink()
    (mnt / "a.html").write_text(FIXABLE.format(i=1), encoding="utf-8")
    before = (mnt / "a.html").read_bytes()
    (mnt / "g").mkdir()
    (mnt / "g" / "_guards.py").write_text("OLD", encoding="utf-8")
    r = subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True, check=False)
    assert r.returncode == 0, r.stderr
    tools = REPO / "tests" / "data" / "guards" / "booking.tools.json"
    for args in (["compile", "--isolated", "--jobs", "1", "site", "-o", str(mnt / "tools.json")],
                 ["guards", str(tools), "-o", str(mnt / "g")],
                 ["lint", "--isolated", "--jobs", "1", "--fix", "--output-format", "concise", str(mnt / "a.html")]):
        rc, output, exc = _invoke(args, tmp_path)
        assert rc == 2, (args, output)
        assert exc is None or isinstance(exc, SystemExit), repr(exc)
        assert "Read-only file system" in output, output
    assert (mnt / "tools.json").read_bytes() == b"OLD"
    assert (mnt / "g" / "_guards.py").read_text(encoding="utf-8") == "OLD"
    assert (mnt / "a.html").read_bytes() == before


def test_output_to_a_pipe_a_device_or_a_symlink(tmp_path: Path) -> None:
    """-o naming a FIFO, a character device or a symlink: written through, never replaced by a regular file."""
    import stat
    import threading

    _site(tmp_path, 2, "x")
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    rc, output, _ = _invoke(["compile", "--isolated", "--jobs", "1", "site", "-o", str(fifo)], tmp_path)
    reader.join(timeout=30)
    assert rc == 0, output
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert json.loads(got[0])["tools"]
    if os.geteuid() == 0:  # a private copy of /dev/null (c 1 3) and /dev/full (c 1 7)
        null, full = tmp_path / "null", tmp_path / "full"
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        rc, output, _ = _invoke(["compile", "--isolated", "--jobs", "1", "site", "-o", str(null)], tmp_path)
        assert rc == 0, output
        assert stat.S_ISCHR(os.lstat(null).st_mode)
        rc, output, _ = _invoke(["lint", "--isolated", "--jobs", "1", "--output-format", f"sarif:{full}", "site"],
                                  tmp_path)
        assert rc == 2 and "No space left on device" in output, output
        assert stat.S_ISCHR(os.lstat(full).st_mode)
    (tmp_path / "real.json").write_text("old", encoding="utf-8")
    (tmp_path / "link.json").symlink_to("real.json")
    rc, output, _ = _invoke(["compile", "--isolated", "--jobs", "1", "site", "-o", "link.json"], tmp_path)
    assert rc == 0, output
    assert (tmp_path / "link.json").is_symlink()
    assert json.loads((tmp_path / "real.json").read_text("utf-8"))["tools"]
