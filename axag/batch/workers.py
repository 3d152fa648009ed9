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
_CACHE: Any = None  # cache.ResultCache: workers store the outcomes they make
_SENT: set[tuple[str, str, str | None]] = set()  # (intent, contract key, page) this worker has sent in full


def _init(resolver: Any, request: Request, cache: Any = None) -> None:
    global _RESOLVER, _REQUEST, _CACHE
    import signal

    # Ctrl-C reaches the whole process group: the main process alone stops the run (exit 130, no traceback)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _RESOLVER = resolver
    _REQUEST = request
    _CACHE = cache
    _SENT.clear()
    if cache is not None and cache.bundling:
        from multiprocessing.util import Finalize

        # the worker's bundle of cache entries is completed when the pool ends it (not when it is killed)
        Finalize(cache, cache.finish_bundle, exitpriority=10)


def _work(task: tuple[Any, ...]) -> FileOutcome:
    from axag.batch.memory import file_done
    from axag.batch.one_file import check_task

    assert _REQUEST is not None
    outcome = check_task(task, _RESOLVER.resolve(task[0]), _REQUEST, _CACHE, check_file)
    if outcome.contracts:
        from axag.compile.merge import shrink_repeats

        assert _REQUEST is not None
        shrink_repeats(outcome, _SENT, fragments=_REQUEST.mode == "compile")
    file_done(outcome.size)
    return outcome


def preload(request: Request) -> None:
    """Import what checking a file needs before the workers are forked: imported once instead of once per
    worker, and shared by them (copy-on-write pages, frozen out of their garbage collections)."""
    import gc

    import axag.model.actions
    import axag.parse.document
    from axag.rules import load_rules

    load_rules()
    if request.want_contracts:
        import axag.compile.build
        import axag.compile.merge  # noqa: F401
    if not gc.isenabled():  # under `memory.bulk_gc`, which unfreezes everything at its end
        gc.freeze()


def file_sizes(paths: Sequence[Path]) -> list[int]:
    """The size of each file (0 when it cannot be read now: the worker reports why)."""
    import os

    def size(path: Path) -> int:
        try:
            return os.stat(path).st_size
        except OSError:
            return 0

    return [size(p) for p in paths]


def biggest_first(sizes: Sequence[int]) -> list[int]:
    """Task indexes, the biggest files first (ties in file order): the pages that take longest start at once
    instead of holding up the end of the run, and the moment two workers hold the biggest parse trees at the
    same time comes at the start of every run, not by chance somewhere in it (memory as predictable as time)."""
    return sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))


def map_files(tasks: Sequence[tuple[Any, ...]], resolver: Any, request: Request,
              jobs: int, cache: Any = None) -> Iterator[FileOutcome]:
    """Outcomes in task order, streamed as workers finish them (``cache``: where workers store them)."""
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool

    preload(request)
    ctx = multiprocessing.get_context("fork")
    # small chunks: workers finish together; with the biggest files first, the first chunk holds the few
    # biggest pages, so two workers do not hold the two biggest parse trees at once
    chunk = max(1, min(4, len(tasks) // (jobs * 8)))
    done = 0
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init,
                                 initargs=(resolver, request, cache)) as pool:
            try:
                for outcome in pool.map(_work, tasks, chunksize=chunk):
                    yield outcome
                    done += 1
            except BaseException:  # Ctrl-C here or in the caller (GeneratorExit): leaving must not wait for the run
                _stop(pool)
                raise
    except BrokenProcessPool:
        # a worker died (a crash in a C extension, the OOM killer, ...): no single file stops the run (parsing robustness).
        # The files not yet done are checked one per child process, so the culprit gets 199 and the rest run.
        for task in tasks[done:]:
            yield _isolated(ctx, task, resolver, request, cache)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Ctrl-C: drop the files not started and end the workers now (they ignore SIGINT), so that leaving the
    pool does not wait for the rest of the run."""
    pool.shutdown(wait=False, cancel_futures=True)
    processes: dict[int, Any] = getattr(pool, "_processes", None) or {}
    for proc in list(processes.values()):
        proc.terminate()


def _child(task: tuple[Any, ...], resolver: Any, request: Request, cache: Any, conn: Any) -> None:
    _init(resolver, request, cache)
    conn.send(_work(task))
    conn.close()


def _isolated(ctx: Any, task: tuple[Any, ...], resolver: Any, request: Request, cache: Any) -> FileOutcome:
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(task, resolver, request, cache, sender))
    proc.start()
    sender.close()
    try:
        outcome: FileOutcome | None = receiver.recv()
    except (EOFError, OSError):
        outcome = None
    finally:
        receiver.close()
    proc.join()
    if outcome is not None:
        return outcome
    from axag.rules.run_level import internal_error

    path, disp, rel = task[:3]
    out = FileOutcome(path=path, display=disp, repo_path=rel, internal_error=True)
    out.findings.append(internal_error(f"the worker process checking this file died (exit code {proc.exitcode})",
                                       disp, rel))
    return out
