"""Worker processes over files; imported only for --jobs > 1 with enough files. Results never depend
on the number of workers: outcomes come back in task order."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from axag.lint.engine import FileOutcome, Request, check_file

_RESOLVER: Any = None
_REQUEST: Request | None = None


def _init(resolver: Any, request: Request) -> None:
    global _RESOLVER, _REQUEST
    _RESOLVER = resolver
    _REQUEST = request


def _work(task: tuple[Path, str, str]) -> FileOutcome:
    path, disp, rel = task
    assert _REQUEST is not None
    return check_file(path, disp, rel, _RESOLVER.resolve(path), _REQUEST)


def map_files(tasks: Sequence[tuple[Path, str, str]], resolver: Any, request: Request,
              jobs: int) -> Iterator[FileOutcome]:
    """Outcomes in task order, streamed as workers finish them."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    chunk = max(1, min(16, len(tasks) // (jobs * 8) or 1))
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init,
                             initargs=(resolver, request)) as pool:
        yield from pool.map(_work, tasks, chunksize=chunk)
