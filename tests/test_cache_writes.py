"""The entries of a run's files are written on a thread of their own while the run goes on (issue 17: creating
the files took up to half a second of a first run), and are all there when the run returns, even when it fails."""

from __future__ import annotations

import shutil
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, run_axag


def _writer_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "axag-cache-writer"]


def test_entries_are_written_behind_the_run_and_finished_by_its_end(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from axag.cache import ResultCache

    threads: list[str] = []
    real = ResultCache._write

    def recording(self: Any, key: bytes, data: bytes) -> None:
        threads.append(threading.current_thread().name)
        real(self, key, data)

    monkeypatch.setattr(ResultCache, "_write", recording)
    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "site", site)
    interval = sys.getswitchinterval()
    args = ["lint", ".", "--isolated", "-j", "1", "--exit-zero", "--output-format", "json",
            "--cache-dir", str(tmp_path / "cache")]
    cold = run_axag(args, cwd=site)
    pages = sorted(site.rglob("*.html"))
    assert threads == ["axag-cache-writer"] * len(pages)
    assert len(list((tmp_path / "cache" / "entries").iterdir())) == len(pages)
    assert _writer_threads() == []
    assert sys.getswitchinterval() == interval
    threads.clear()
    assert run_axag(args, cwd=site).stdout == cold.stdout  # every entry is used
    assert threads == []


def test_a_failing_run_still_finishes_its_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from axag import api
    from axag.cache import ResultCache
    from axag.config import Resolver
    from axag.lint.engine import Request

    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "site", site)
    pages = sorted(site.rglob("*.html"))
    real = api.check_task
    done: list[Any] = []

    def failing(task: Any, *args: Any) -> Any:
        if len(done) == 2:
            raise KeyboardInterrupt
        done.append(task)
        return real(task, *args)

    monkeypatch.setattr(api, "check_task", failing)
    cache = ResultCache(tmp_path / "cache")
    with pytest.raises(KeyboardInterrupt):
        api.check_files(pages, Resolver(site, isolated=True), Request(mode="lint", want_contracts=True), cwd=site,
                        cache=cache)
    assert _writer_threads() == []
    assert len(list(cache.entries.iterdir())) == 2  # the two files checked before the interruption
