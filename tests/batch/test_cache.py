"""The per-file result cache (`axag.batch.cache.store`): warm runs give exactly what cold runs give, entries are safe
against damage and concurrent runs, and the cache stays bounded."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, REPO, run_axag, shared_or_skip

SECRET = bytes(range(32))  # authenticates the entries (`axag.batch.cache.secret`)

# in fixtures/site/admin.html: a second declaration of an intent of index.html that differs (121), and a tool
# name that collides with one of booking.html (122): run-wide findings that a warm run must rebuild
CHANGE = (b'\n<button axag-intent="room.compare" axag-entity="room" axag-action-type="read" '
          b'axag-description="Something else">x</button>\n'
          b'<button axag-intent="session_sign.out" axag-entity="session_sign" axag-action-type="write" '
          b'axag-risk-level="low">y</button>\n')


def _outputs(site: Path, cache: list[str]) -> tuple[str, bytes, int]:
    """(lint json, tools.json bytes, compile exit code) of one lint run and one compile run over ``site``."""
    lint = run_axag(["lint", ".", "--isolated", "-j", "1", "--output-format", "json", "--exit-zero", *cache],
                    cwd=site)
    assert lint.exit_code == 0, lint.output
    out = site.parent / "tools.json"
    out.unlink(missing_ok=True)
    comp = run_axag(["compile", ".", "--isolated", "-j", "1", "--keep-going", "-o", str(out), *cache], cwd=site)
    assert comp.exit_code in (0, 1), comp.output
    return lint.stdout, out.read_bytes(), comp.exit_code


@pytest.mark.parametrize("source", ["fixtures/site", "corpus"])
def test_warm_runs_equal_cold_runs_byte_for_byte(source: str, tmp_path: Path, parses: list[str]) -> None:
    src = FIXTURES / "site" if source == "fixtures/site" else shared_or_skip("corpus")
    site = tmp_path / "site"
    shutil.copytree(src, site)
    shutil.copytree(FIXTURES / "site", site / "fx")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    cold = _outputs(site, ["--no-cache"])
    files = len(parses)
    assert files >= 6  # lint and compile parsed every file
    assert not (tmp_path / "cache").exists() and not (site / ".axag_cache").exists()
    assert _outputs(site, cache) == cold  # writes the cache
    parses.clear()
    assert _outputs(site, cache) == cold  # reads it
    assert parses == []
    with open(site / "fx" / "admin.html", "ab") as fh:  # one file changed
        fh.write(CHANGE)
    cold2 = _outputs(site, ["--no-cache"])
    assert cold2 != cold
    assert "AXAG-LINT-121" in cold2[0] and "AXAG-LINT-122" in cold2[0]
    parses.clear()
    assert _outputs(site, cache) == cold2
    assert parses == ["admin.html", "admin.html"]  # only the changed file, once per command


def test_parallel_runs_use_and_fill_the_cache(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(shared_or_skip("corpus"), site)
    cold = run_axag(["lint", ".", "--isolated", "-j", "1", "--output-format", "json", "--exit-zero",
                     "--no-cache"], cwd=site).stdout
    cache = ["--cache-dir", str(tmp_path / "cache")]
    for _ in range(2):  # the workers write the entries; then the main process reads them
        res = run_axag(["lint", ".", "--isolated", "-j", "2", "--output-format", "json", "--exit-zero", *cache],
                       cwd=site)
        assert res.stdout == cold
    import json

    from axag.batch.cache.bundle import PREFIX, read_table

    entries = list((tmp_path / "cache" / "entries").iterdir())
    # one entry per file: in the bundles of the two workers (a run of many files), or in files of their own
    rows = [row for p in entries if p.name.startswith(PREFIX) for row in read_table(str(p)) or ()]
    assert len(rows) + len([p for p in entries if not p.name.startswith(PREFIX)]) == json.loads(cold)["summary"]["files"]


def test_damaged_and_foreign_entries_are_ignored_and_rewritten(tmp_path: Path, parses: list[str]) -> None:
    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "site", site)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    cold = run_axag(["lint", ".", "--isolated", "--output-format", "json", "--no-cache"], cwd=site).stdout
    run_axag(["lint", ".", "--isolated", "--output-format", "json", *cache], cwd=site)
    entries = sorted((tmp_path / "cache" / "entries").iterdir())
    assert len(entries) == 3
    good = entries[0].read_bytes()
    entries[0].write_bytes(good[: len(good) // 2])  # truncated
    entries[1].write_bytes(b"not an axag cache entry at all")  # foreign
    damaged = bytearray(entries[2].read_bytes())
    damaged[-20] ^= 0xFF  # one flipped byte inside the payload
    entries[2].write_bytes(bytes(damaged))
    parses.clear()
    res = run_axag(["lint", ".", "--isolated", "--output-format", "json", *cache], cwd=site)
    assert res.stdout == cold
    assert sorted(parses) == ["admin.html", "booking.html", "index.html"]
    assert entries[0].read_bytes() == good  # rewritten
    parses.clear()
    assert run_axag(["lint", ".", "--isolated", "--output-format", "json", *cache], cwd=site).stdout == cold
    assert parses == []


def test_an_entry_of_other_settings_or_rules_is_not_used(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(shared_or_skip("corpus"), site)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    for extra in ([], ["--select", "001,121"], ["--ignore", "138"], ["--level", "basic"], []):
        args = ["lint", ".", "--isolated", "--output-format", "json", "--exit-zero", *extra]
        assert run_axag([*args, *cache], cwd=site).stdout == run_axag([*args, "--no-cache"], cwd=site).stdout
    (site / "axag.toml").write_text('[lint]\nignore = ["026"]\nseverity = { "138" = "error" }\n')
    args = ["lint", ".", "--output-format", "json", "--exit-zero"]
    assert run_axag([*args, *cache], cwd=site).stdout == run_axag([*args, "--no-cache"], cwd=site).stdout


def _lint_proc(site: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "axag", "lint", ".", "--isolated", "-j", "1", "--output-format",
                             "json", "--exit-zero"], cwd=site, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def test_two_runs_at_once_never_corrupt_the_cache(tmp_path: Path, parses: list[str]) -> None:
    site = tmp_path / "site"
    shutil.copytree(shared_or_skip("corpus"), site)
    cold = run_axag(["lint", ".", "--isolated", "--output-format", "json", "--exit-zero", "--no-cache"],
                    cwd=site).stdout
    env = {**os.environ, "AXAG_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}
    for _ in range(2):  # both start with an empty cache, then both with the entries of two writers
        procs = [_lint_proc(site, env), _lint_proc(site, env)]
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err.decode()
            assert out.decode() == cold
    assert not [p for p in (tmp_path / "cache" / "entries").iterdir() if p.name.startswith(".")]  # no temp files
    parses.clear()
    res = run_axag(["lint", ".", "--isolated", "--output-format", "json", "--exit-zero"], cwd=site)
    assert res.stdout == cold and parses == []


def test_cache_location_options_and_gitignore(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "site", site)
    monkeypatch.delenv("AXAG_CACHE_DIR")
    assert run_axag(["lint", "."], cwd=site).exit_code == 0
    default = site / ".axag_cache"
    assert (default / ".gitignore").read_text() == "# created by axag\n*\n"
    assert len(list((default / "entries").iterdir())) == 3
    shutil.rmtree(default)
    assert run_axag(["lint", ".", "--no-cache"], cwd=site).exit_code == 0
    assert run_axag(["compile", ".", "--no-cache", "-o", "-"], cwd=site).exit_code == 0
    assert not default.exists()
    monkeypatch.setenv("AXAG_CACHE_DIR", "env-cache")
    assert run_axag(["compile", ".", "-o", "-"], cwd=site).exit_code == 0
    assert len(list((site / "env-cache" / "entries").iterdir())) == 3
    assert run_axag(["lint", ".", "--cache-dir", str(tmp_path / "opt")], cwd=site).exit_code == 0
    assert len(list((tmp_path / "opt" / "entries").iterdir())) == 3  # the option beats the variable
    assert not default.exists()


def test_the_project_root_is_where_the_configuration_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AXAG_CACHE_DIR")
    (tmp_path / "axag.toml").write_text("[lint]\n")
    sub = tmp_path / "pages"
    shutil.copytree(FIXTURES / "site", sub)
    assert run_axag(["lint", "."], cwd=sub).exit_code == 0
    assert (tmp_path / ".axag_cache" / ".gitignore").is_file() and not (sub / ".axag_cache").exists()


def test_an_unwritable_cache_file_does_not_stop_the_run(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "site", site)
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder would be")
    res = run_axag(["lint", ".", "--isolated", "--cache-dir", str(blocker)], cwd=site)
    assert res.exit_code == 0 and "Found 0 errors, 0 warnings, 4 infos" in res.stdout  # 4 x 151


def test_fix_and_stdin_do_not_use_the_cache(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "a.html").write_text('<button axag-intent="a.b" axag-entity="a" axag-action-type="delete" '
                                 'axag-risk-level="critical">x</button>\n')
    cache = ["--cache-dir", str(tmp_path / "cache")]
    run_axag(["lint", ".", "--isolated", "--exit-zero", *cache], cwd=site)
    res = run_axag(["lint", ".", "--isolated", "--fix", "--exit-zero", *cache], cwd=site)
    assert "axag-confirmation-required" in (site / "a.html").read_text(), res.output
    res = run_axag(["lint", "-", "--isolated", "--exit-zero", *cache], cwd=site, input="<p>hi</p>")
    assert res.exit_code == 0


def _store(cache: Any, name: str, size: int, age: float) -> Path:
    from axag.lint.engine import FileOutcome

    out = FileOutcome(path=Path(name), display=name, repo_path=name)
    out.findings = []
    out.size = size
    key = bytes.fromhex(f"{abs(hash(name)):032x}"[-32:])
    cache.store(key, b"\0" * 16, out)
    entry = cache.entries / key.hex()
    with open(entry, "ab") as fh:  # make it big (a damaged tail: pruning does not read entries)
        fh.write(b"\0" * size)
    if age:
        os.utime(entry, (time.time() - age, time.time() - age))
    return entry


def test_pruning_removes_the_entries_used_least_recently(tmp_path: Path) -> None:
    from axag.batch.cache.store import ResultCache

    old = ResultCache(tmp_path / "c", SECRET, max_bytes=10_000)
    oldest = [_store(old, f"old{i}", 1_000, 3600 + i) for i in range(8)]
    cache = ResultCache(tmp_path / "c", SECRET, max_bytes=10_000)
    fresh = [_store(cache, f"new{i}", 1_000, 0) for i in range(4)]
    stale_tmp = cache.entries / ".left-over.123.tmp"
    stale_tmp.write_bytes(b"x")
    os.utime(stale_tmp, (time.time() - 7200, time.time() - 7200))
    cache.close()
    left = set(cache.entries.iterdir())
    assert all(p in left for p in fresh)  # the current run's entries stay
    assert not stale_tmp.exists()
    total = sum(p.stat().st_size for p in left)
    assert total <= 7_500 + 4 * 200
    # the oldest went first: whatever is left of the old entries are the most recently used ones
    kept_old = [p for p in oldest if p in left]
    assert kept_old == oldest[: len(kept_old)]


def test_no_pruning_scan_when_nothing_was_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from axag.batch.cache.store import ResultCache

    cache = ResultCache(tmp_path / "c", SECRET, max_bytes=1)
    called: list[int] = []
    monkeypatch.setattr(ResultCache, "prune", lambda self: called.append(1))
    cache.close()
    assert called == []
    _store(cache, "x", 10, 0)
    cache.close()
    assert called == [1]


def test_the_key_covers_paths_settings_and_request(tmp_path: Path) -> None:
    from axag.batch.cache.store import ResultCache
    from axag.config.settings import Settings
    from axag.lint.engine import Request

    cache = ResultCache(tmp_path / "c", SECRET)
    s = Settings(base=tmp_path)
    r = Request(mode="lint")
    p = tmp_path / "a.html"
    base = cache.key(p, "a.html", "a.html", s, r)
    variants: list[Callable[[], bytes]] = [
        lambda: cache.key(tmp_path / "b.html", "a.html", "a.html", s, r),
        lambda: cache.key(p, "x/a.html", "a.html", s, r),
        lambda: cache.key(p, "a.html", "b/a.html", s, r),
        lambda: cache.key(p, "a.html", "a.html", Settings(base=tmp_path, harvest=False), r),
        lambda: cache.key(p, "a.html", "a.html", Settings(base=tmp_path, ignore=frozenset({1})), r),
        lambda: cache.key(p, "a.html", "a.html", s, Request(mode="compile")),
        lambda: cache.key(p, "a.html", "a.html", s, Request(mode="lint", cli_select="001")),
        lambda: cache.key(p, "a.html", "a.html", s, Request(mode="lint", manifest={"a": 1})),
        lambda: cache.key(p, "a.html", "a.html", s, Request(mode="lint", want_contracts=True)),
    ]
    keys = [v() for v in variants]
    assert base not in keys and len(set(keys)) == len(keys)
    assert cache.key(p, "a.html", "a.html", s, r) == base


class _Forged:
    """What a hostile checkout could plant as an entry: unpickling it would create a folder."""

    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self) -> tuple[Any, ...]:
        return os.mkdir, (str(self.target),)


def test_an_entry_that_would_call_anything_is_not_unpickled(tmp_path: Path, parses: list[str]) -> None:
    import pickle

    import xxhash

    from axag.batch.cache.store import _HEAD

    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "site", site)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    cold = run_axag(["lint", ".", "--isolated", "--output-format", "json", *cache], cwd=site).stdout
    marker = tmp_path / "pwned"
    for entry in (tmp_path / "cache" / "entries").iterdir():
        payload = pickle.dumps(_Forged(marker))
        entry.write_bytes(entry.read_bytes()[:_HEAD] + payload + xxhash.xxh3_64_digest(payload))
    parses.clear()
    assert run_axag(["lint", ".", "--isolated", "--output-format", "json", *cache], cwd=site).stdout == cold
    assert not marker.exists()
    assert sorted(parses) == ["admin.html", "booking.html", "index.html"]  # missed, checked and rewritten


def test_a_packed_contract_unpacks_contract_classes_only(tmp_path: Path) -> None:
    import pickle

    from axag.compile.merge import PackedContract, squeeze

    marker = tmp_path / "pwned"
    forged = PackedContract("a.b", "k", "a_b", ("a.html", 1, 1), squeeze(pickle.dumps(_Forged(marker))))
    with pytest.raises(pickle.UnpicklingError):
        forged.unpack()
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError):  # not even compressed
        PackedContract("a.b", "k", "a_b", ("a.html", 1, 1), pickle.dumps(_Forged(marker))).unpack()
    assert not marker.exists()


def test_runs_in_one_process_with_other_roots_equal_uncached_runs(tmp_path: Path) -> None:
    """Contracts packed by an earlier run of the same process are not reused: the page of a tool's HTTP binding
    is relative to each run's compile root (a library user or a test runner compiles several times)."""
    shutil.copytree(FIXTURES / "site", tmp_path / "site")
    for root in ("site", "."):
        args = ["compile", "site", "--isolated", "--root", root, "-o", "-"]
        cached = run_axag([*args, "--cache-dir", str(tmp_path / f"cache-{len(root)}")], cwd=tmp_path)
        assert cached.stdout == run_axag([*args, "--no-cache"], cwd=tmp_path).stdout
        assert ('"page": "site/booking.html"' in cached.stdout) is (root == ".")
