"""How often a run scans the result cache for pruning: a run that wrote a little (one page changed)
scans at most hourly, one that wrote much (or whose worker processes wrote) at once."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from axag.batch.cache.store import ResultCache

SECRET = bytes(range(32))  # authenticates the entries (`axag.batch.cache.secret`)


def _run(directory: Path, monkeypatch: pytest.MonkeyPatch, size: int, *, workers: bool = False) -> list[int]:
    """A run that writes ``size`` bytes of entries (its workers wrote them, with ``workers``); the scans it made."""
    scans: list[int] = []
    real = ResultCache._prune

    def counting(self: Any) -> None:
        scans.append(1)
        real(self)

    monkeypatch.setattr(ResultCache, "_prune", counting)
    cache = ResultCache(directory, SECRET, max_bytes=1 << 30)
    if workers:
        cache.wrote = True
    else:
        cache._write(os.urandom(16), b"x" * size)
    cache.close()
    monkeypatch.undo()
    return scans


def test_small_runs_scan_at_most_hourly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "c"
    assert _run(cache, monkeypatch, 100) == [1]  # never scanned yet
    assert (cache / "pruned").exists()
    assert _run(cache, monkeypatch, 100) == []  # scanned a moment ago
    assert _run(cache, monkeypatch, 2 << 20) == [1]  # wrote much
    assert _run(cache, monkeypatch, 0, workers=True) == [1]  # the workers wrote: how much is unknown here
    old = time.time() - 7200
    os.utime(cache / "pruned", (old, old))
    assert _run(cache, monkeypatch, 100) == [1]  # the last scan is over an hour old
    assert _run(cache, monkeypatch, 100) == []
