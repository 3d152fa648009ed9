"""Leave the run record of a lint invocation that the entry point could not serve (`cli.entry`): the run's
stdout and stderr text (as it reaches the streams), its report files and its exit code, written atomically to
``runs/`` of the result cache. A run that fails (exit 2, an error), draws a progress bar, writes bytes past the
text streams or more than ``MAX_TEXT`` characters leaves no record; the folder keeps the records used last
(``MAX_RECORDS``)."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from axag.cli import common
from axag.cli.progress import Progress
from axag.cli.records import FILE, RUNS, STDERR, STDOUT, encode_record, state_of

MAX_RECORDS = 64  # records kept in runs/ (pruned to 3/4 when over)
MAX_TEXT = 32 << 20  # characters of output above which a run leaves no record
_TMP_AGE = 3600.0  # seconds after which a temporary file left by a killed run is removed


class _Log:
    """What a recorded run writes: stream text (consecutive writes to one stream joined) and report files, in
    order; ``dirty`` once the run did something a record cannot replay (or wrote more than ``MAX_TEXT``)."""

    def __init__(self) -> None:
        self.ops: list[tuple[int, list[str], str]] = []
        self.files: list[tuple[str, list[str]]] = []
        self.size = 0
        self.dirty = False

    def add(self, kind: int, text: str) -> None:
        if self._count(text):
            if self.ops and self.ops[-1][0] == kind:
                self.ops[-1][1].append(text)
            else:
                self.ops.append((kind, [text], ""))

    def keep(self, path: str, text: str | Iterable[str]) -> Iterator[str]:
        """``text`` (a report file's pieces) passed on to the writer and kept."""
        pieces: list[str] = []
        self.files.append((path, pieces))
        for piece in [text] if isinstance(text, str) else text:
            if self._count(piece):
                pieces.append(piece)
            yield piece

    def _count(self, text: str) -> bool:
        self.size += len(text)
        if self.size > MAX_TEXT and not self.dirty:
            self.dirty = True  # too big to keep: what was kept is let go
            self.ops.clear()
            self.files.clear()
        return not self.dirty

    def operations(self) -> list[tuple[int, str, str]]:
        return [*((kind, "".join(pieces), "") for kind, pieces, _ in self.ops),
                *((FILE, "".join(pieces), path) for path, pieces in self.files)]


class _Tee:
    """A text stream that writes through and logs what it is given."""

    def __init__(self, stream: Any, kind: int, log: _Log) -> None:
        self._stream, self._kind, self._log = stream, kind, log

    def write(self, text: Any) -> int:
        n: int = self._stream.write(text)  # bytes raise TypeError here, as on the real stream
        if not isinstance(text, str):
            self._log.dirty = True  # a stream that took bytes: not replayed as text
        elif text:
            self._log.add(self._kind, text)
        return n

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    @property
    def buffer(self) -> Any:
        self._log.dirty = True  # bytes written past the text layer are not logged
        return self._stream.buffer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def record_run(key: bytes, opts: dict[str, Any], run: Callable[[dict[str, Any]], int]) -> int:
    """``run(opts)`` with its output logged, then the record written under ``key``; returns the exit code. The
    record lists every file the run read beside the named ones (`axag.files.depends`) with its digest."""
    from axag.batch.cache import secret as cache_secret
    from axag.files import depends

    secret = cache_secret.secret()
    with depends.Collector() as read:
        try:
            folder, inputs = _where_and_inputs(opts)
        except Exception:  # noqa: BLE001 - the run itself reports any configuration problem
            folder = None
        if folder is None or secret is None:
            return run(opts)
        log = _Log()
        drawn = Progress.drawn
        said = cache_secret.said()
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = _Tee(saved[0], STDOUT, log), _Tee(saved[1], STDERR, log)
        common.recording = log
        try:
            code = run(opts)
        finally:
            sys.stdout, sys.stderr = saved
            common.recording = None
    # a run that said the cache was another secret's says what its next run will not: not recorded
    if code in (0, 1) and not log.dirty and Progress.drawn == drawn and cache_secret.said() == said:
        states = dict(inputs)
        for path, made in read.items():
            states.setdefault(path, "-" if made is None else made.hex())
        write_record(folder, key, encode_record(key, secret, sorted(states.items()), log.operations(), code))
    return code


def _where_and_inputs(opts: dict[str, Any]) -> tuple[Path | None, list[tuple[str, str]]]:
    """The cache folder of the run (None with --no-cache) and the state of the files the configuration and
    the options name (beside the named files and the configuration files, which are in the key)."""
    from axag.batch.cache.store import cache_dir
    from axag.config.resolve import Resolver

    cwd = Path.cwd()
    resolver = Resolver(cwd, config=opts["config"], isolated=opts["isolated"])
    settings = resolver.run_settings()
    folder = cache_dir(opts["cache_dir"], opts["no_cache"], Path(resolver.project_root), cwd)
    config = None if opts["isolated"] or not opts["config"] else os.path.expanduser(opts["config"])  # as Resolver
    named = [config, opts["baseline"] or settings.baseline, opts["manifest"] or settings.manifest,
             opts["enforced_intents"] or settings.enforced_intents, opts["openapi"]]
    paths = sorted({os.path.join(cwd, os.fspath(p)) for p in named if p})  # as the run opens them
    return folder, [(p, state_of(p)) for p in paths]


def write_record(folder: Path, key: bytes, blob: bytes) -> None:
    """Write a record atomically (never raises: a read-only tree goes without); prune the folder."""
    if not folder.is_dir():  # the result cache made no folder (nothing stored): no folder of our own either
        return
    runs = folder / RUNS
    target = runs / key.hex()
    tmp = runs / f".{key.hex()}.{os.getpid()}.tmp"
    try:
        runs.mkdir(exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(blob)
        os.replace(tmp, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return
    prune(runs)


def prune(runs: Path, keep: int = MAX_RECORDS) -> None:
    """Remove the records used least recently when more than ``keep`` (down to 3/4 of it), and old temporary
    files."""
    now = time.time()
    items: list[tuple[float, str]] = []
    try:
        with os.scandir(runs) as it:
            for e in it:
                try:
                    mtime = e.stat().st_mtime
                except OSError:
                    continue
                if e.name.startswith("."):
                    if now - mtime > _TMP_AGE:
                        with contextlib.suppress(OSError):
                            os.unlink(e.path)
                else:
                    items.append((mtime, e.path))
    except OSError:
        return
    if len(items) <= keep:
        return
    for _, path in sorted(items)[:len(items) - keep * 3 // 4]:
        with contextlib.suppress(OSError):
            os.unlink(path)
