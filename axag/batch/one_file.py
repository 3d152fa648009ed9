"""One file of a run, checked in-process or in a worker: from the result cache when an entry matches, else by
the engine (and then stored). Shared by `axag.api` and `axag.batch.workers`."""

from __future__ import annotations

from typing import Any

from axag.lint.engine import FileOutcome, Request, check_file

__all__ = ["check_task"]


def check_task(task: tuple[Any, ...], settings: Any, request: Request, cache: Any,
               check: Any = check_file) -> FileOutcome:
    """One file of a run: ``task`` is (path, display, repo path) and, with a cache, the key of its entry;
    ``check`` checks the file (`engine.check_file`)."""
    path, disp, rel = task[:3]
    if cache is None or len(task) < 4:
        result: FileOutcome = check(path, disp, rel, settings, request)
        return result
    from axag.batch.cache.store import check_and_store

    return check_and_store(path, disp, rel, settings, request, cache, task[3], check)
