"""Bundles of cache entries (`axag.batch.cache.bundle`): a run that checks many files writes its new entries
into one file per process (creating hundreds of files cost a first run up to half a second), read back by the
next runs exactly as entry files are; damaged or unfinished bundles are ignored."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, run_axag

SECRET = bytes(range(32))  # authenticates the entries (`axag.batch.cache.secret`)


def _site(tmp_path: Path) -> Path:
    """A site of 48 pages (copies of the fixture pages under other names), above `api.BUNDLE_FILES`."""
    from axag.api import BUNDLE_FILES

    site = tmp_path / "site"
    site.mkdir()
    pages = sorted((FIXTURES / "site").glob("*.html"))
    for i in range(48):
        shutil.copy(pages[i % len(pages)], site / f"p{i:02}-{pages[i % len(pages)].name}")
    assert BUNDLE_FILES <= 48
    return site


def _records(entries: Path) -> int:
    """Entries in entry files and in bundles."""
    from axag.batch.cache.bundle import PREFIX, read_table

    files = [p for p in entries.iterdir() if not p.name.startswith((".", PREFIX))]
    rows = [row for p in entries.iterdir() if p.name.startswith(PREFIX) for row in read_table(str(p)) or ()]
    return len(files) + len(rows)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_run_of_many_files_writes_a_bundle_per_process(jobs: str, tmp_path: Path, parses: list[str]) -> None:
    site = _site(tmp_path)
    entries = tmp_path / "cache" / "entries"
    args = ["lint", ".", "--isolated", "-j", jobs, "--output-format", "json", "--exit-zero"]
    cold = run_axag([*args, "--no-cache"], cwd=site).stdout
    assert run_axag([*args, "--cache-dir", str(tmp_path / "cache")], cwd=site).stdout == cold
    names = sorted(p.name for p in entries.iterdir())
    assert len(names) == int(jobs) and all(n.startswith("bundle-") for n in names)  # no entry files, no temp
    assert _records(entries) == 48
    parses.clear()
    assert run_axag([*args, "-j", "1", "--cache-dir", str(tmp_path / "cache")], cwd=site).stdout == cold
    assert parses == []  # every file from the bundles


def test_damaged_and_unfinished_bundles_are_ignored(tmp_path: Path, parses: list[str]) -> None:
    site = _site(tmp_path)
    entries = tmp_path / "cache" / "entries"
    args = ["lint", ".", "--isolated", "-j", "1", "--output-format", "json", "--exit-zero",
            "--cache-dir", str(tmp_path / "cache")]
    cold = run_axag(args, cwd=site).stdout
    (bundle,) = entries.iterdir()
    data = bytearray(bundle.read_bytes())
    data[100] ^= 0xFF  # inside the first entry: that entry is a miss, the others are used
    bundle.write_bytes(bytes(data))
    parses.clear()
    assert run_axag(args, cwd=site).stdout == cold
    assert len(parses) == 1
    bundle.write_bytes(bytes(data[:-30]))  # its table cut: the whole bundle is ignored
    unfinished = entries / ".bundle-1-000000000000.tmp"  # a run killed while writing
    unfinished.write_bytes(bytes(data[: len(data) // 2]))
    parses.clear()
    assert run_axag(args, cwd=site).stdout == cold
    assert len(parses) >= 47  # what the cut bundle held is checked again (and written anew)
    parses.clear()
    assert run_axag(args, cwd=site).stdout == cold
    assert parses == []
    old = time.time() - 7200
    os.utime(unfinished, (old, old))
    from axag.batch.cache.store import ResultCache

    ResultCache(tmp_path / "cache", SECRET).prune()
    assert not unfinished.exists()  # left-over temporary files go after an hour


def test_many_bundles_are_read_with_few_descriptors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run of many files writes a bundle: a cache of many of them is read a few at a time."""
    from axag.batch.cache import store as cache_mod
    from axag.batch.cache.bundle import BundleWriter
    from axag.batch.cache.store import ResultCache

    monkeypatch.setattr(cache_mod, "_OPEN_BUNDLES", 4)
    store = ResultCache(tmp_path / "c", SECRET)
    store._create()
    keys = []
    for i in range(12):  # twelve bundles of one entry each
        writer = BundleWriter(store._entries)
        key = bytes([i]) * 16
        writer.add(key, b"x" * 100)
        assert writer.finish()
        keys.append(key)
    reader = ResultCache(tmp_path / "c", SECRET)
    for key in keys:
        assert reader.lookup(key, b"\0" * 16) is None  # not entries of real files: misses, but each one read
        assert len(reader._open) <= 4
    assert len(reader._open) > 0
    reader.close()
    assert reader._open == {}
