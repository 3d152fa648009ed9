"""The per-file result cache of `axag lint` and `axag compile` (as ruff and black keep one).

A file's outcome (findings, suppressed findings and the packed contracts that compile and the run-wide checks
121/122 need) is stored under ``.axag_cache/`` in the project root (or ``--cache-dir``, or ``AXAG_CACHE_DIR``),
one entry per file and run configuration. An entry is used only when everything the outcome depends on is
the same: the file's bytes (their XXH3-128 digest), its paths (absolute, displayed, repository-relative), the
effective settings (rule selection, severity overrides, harvesting, per-file ignores), the run's request
(mode, manifest, enforced intents, OpenAPI operations, compile root) and axag itself (version plus the size and
mtime of every module of the package, so that an edited checkout never reads results of older code); and every
other file the result was read from (`axag.files.depends`: the modules a component's spec objects are imported from,
found or looked for) is listed in the entry with its digest and compared when the entry is read.
Each entry carries a MAC made with the user's secret (`axag.batch.cache.secret`): the folder is in the project, which
a checkout may fill, so an entry this user did not write is a miss (one written with another secret is said
once).

Entries are written atomically (a temporary file renamed over the entry), so two runs at once never see a
half-written entry; a run that checks many files writes its new entries as one bundle per process instead
(`axag.batch.cache.bundle`, renamed once complete). A run that cannot write (read-only tree, full disk) goes on without
the cache. An entry
that is corrupt, truncated, of another format or for other key material is ignored and rewritten. Entries
used by a run get their mtime refreshed; when a run has written entries and the cache is over its size
bound, the entries used least recently are removed (never those of the current run).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import xxhash

from axag import __version__
from axag.batch.cache import secret as cache_secret
from axag.batch.cache.location import DIR_NAME, named_folder
from axag.batch.cache.secret import ID_SIZE, TAG_SIZE
from axag.files import depends, read_whole

if TYPE_CHECKING:
    from axag.lint.engine import FileOutcome

MAX_BYTES = 256 << 20  # the size bound of the entries together
_MAGIC = b"axag-cache/2\n"
_HEAD = len(_MAGIC) + ID_SIZE + 16 + 16  # magic, the secret's id, key digest, content digest
_TMP_AGE = 3600.0  # seconds after which a left-over temporary file (a killed run) is removed
_PRUNED = "pruned"  # its mtime: when the cache was last scanned for pruning
_PRUNE_EVERY = 3600.0  # seconds between the scans of runs that wrote little
_PRUNE_BYTES = 1 << 20  # a run that wrote this much scans at once
_OPEN_BUNDLES = 64  # bundles a run keeps open while it reads them
# the classes an entry may hold (`pickles.loads_only`); the contracts inside are checked when they are unpacked
ENTRY_CLASSES = frozenset({
    ("axag.lint.engine", "FileOutcome"), ("axag.outcome.findings", "Finding"), ("axag.outcome.findings", "Severity"),
    ("axag.outcome.findings", "Fix"), ("axag.outcome.findings", "Edit"), ("axag.compile.merge", "PackedContract"),
    ("pathlib", "PosixPath"), ("pathlib", "WindowsPath"),
})


def digest(data: bytes) -> bytes:
    """The fast 128-bit digest of a file's bytes (XXH3)."""
    return xxhash.xxh3_128_digest(data)


_STAMP: bytes | None = None


def code_stamp() -> bytes:
    """axag's version and the size and mtime of each of its modules."""
    global _STAMP
    if _STAMP is None:
        # the axag package: three folders up from axag/batch/cache/store.py
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        parts = [__version__]
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith(".py"):
                    full = os.path.join(dirpath, name)
                    try:
                        st = os.stat(full)
                    except OSError:
                        continue
                    parts.append(f"{os.path.relpath(full, root)}:{st.st_size}:{st.st_mtime_ns}")
        _STAMP = xxhash.xxh3_128_digest("\n".join(parts).encode("utf-8", "surrogatepass"))
    return _STAMP


def cache_dir(option: str | None, no_cache: bool, project_root: Path, cwd: Path) -> Path | None:
    """Where the cache lives: None with ``--no-cache``; else ``--cache-dir``, else ``AXAG_CACHE_DIR``, else
    ``.axag_cache`` in the project root (relative values are taken from the current directory)."""
    if no_cache:
        return None
    named = named_folder(option, str(cwd))
    return project_root / DIR_NAME if named is None else Path(named)


class ResultCache:
    """The cache of one run. ``lookup`` before checking a file, ``store`` after; ``close`` at the end of the run
    (pruning). Picklable: worker processes store the outcomes they make themselves."""

    def __init__(self, directory: Path, secret: bytes, *, max_bytes: int = MAX_BYTES) -> None:
        self.directory = directory
        self.secret = secret  # authenticates the entries (`axag.batch.cache.secret`)
        self._id = cache_secret.key_id(secret)
        self.entries = directory / "entries"
        self._entries = os.fspath(self.entries)
        self.max_bytes = max_bytes
        self.started = time.time()
        self.writable = True
        self.wrote = False
        self.written = 0  # bytes of entries this process wrote in this run
        self._run_keys: dict[tuple[int, int], tuple[Any, Any, bytes]] = {}  # ids -> (settings, request, digest)
        self._codes: dict[frozenset[int], str] = {}  # a rule selection as key text
        self.bundling = False  # new entries go into one bundle per process (`bundle_writes`)
        self._bundle: Any = None  # cache_bundle.BundleWriter of this process
        self._bundled: dict[bytes, list[tuple[str, int, int]]] | None = None  # key -> (bundle, offset, length)
        self._open: dict[str, int] = {}  # bundles read by this run -> descriptor

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_run_keys": {}, "_codes": {}, "_bundle": None, "_bundled": None, "_open": {}}

    def bundle_writes(self) -> None:
        """Write this run's new entries into one bundle per process (`axag.batch.cache.bundle`) instead of one file
        each: for runs that check many files. Worker processes inherit the setting and finish their bundle when
        they exit (`finish_bundle`)."""
        self.bundling = True

    # ---------------------------------------------------------------- keys
    def _run_key(self, settings: Any, request: Any) -> bytes:
        """The part of the key every file of one configuration shares (kept with the objects it was made
        from, so that an id reused by a later object never finds it)."""
        ident = (id(settings), id(request))
        got = self._run_keys.get(ident)
        if got is not None and got[0] is settings and got[1] is request:
            return got[2]
        import json

        harvest = (settings.harvest if settings is not None else True) if request.harvest is None else request.harvest
        severity = sorted((c, s.value if s is not None else None) for c, s in settings.severity) if (
            settings is not None and request.mode == "lint") else []
        manifest = json.dumps(request.manifest, sort_keys=True, ensure_ascii=False) if request.manifest else ""
        openapi = json.dumps(request.openapi, sort_keys=True, ensure_ascii=False) if request.openapi else ""
        components = sorted(settings.components) if settings is not None else []  # [tool.axag.jsx]
        material = repr((
            request.mode, harvest, severity, components, manifest, request.manifest_name,
            sorted(request.enforced_intents) if request.enforced_intents is not None else None,
            request.want_contracts, str(request.compile_root or Path.cwd()), openapi, request.openapi_name,
        ))
        digest_ = code_stamp() + xxhash.xxh3_128_digest(material.encode("utf-8", "surrogatepass"))
        self._run_keys[ident] = (settings, request, digest_)
        return digest_

    def key(self, path: Path, display: str, repo_path: str, settings: Any, request: Any) -> bytes:
        """The key digest of a file's entry (everything but its bytes)."""
        from axag.lint.engine import enabled_codes

        enabled = enabled_codes(settings, request, path)
        codes = self._codes.get(enabled)
        if codes is None:
            codes = self._codes[enabled] = ",".join(map(str, sorted(enabled)))
        ignored = ""
        if settings is not None and settings.per_file_ignores:
            from axag.lint.selection import per_file_ignored

            ignored = ",".join(map(str, sorted(per_file_ignored(settings, path))))
        text = "\x1f".join((os.fspath(path), display, repo_path, codes, ignored))
        return xxhash.xxh3_128_digest(self._run_key(settings, request) + text.encode("utf-8", "surrogatepass"))

    def _entry(self, key: bytes) -> Path:
        return self.entries / key.hex()

    # ---------------------------------------------------------------- entries
    def lookup(self, key: bytes, content: bytes | Callable[[], bytes | None]) -> Any:
        """The cached outcome for ``key`` and the file bytes' digest ``content``, or None. ``content`` may be a
        function giving the digest (None when the file cannot be read): it is called only when an entry
        exists, so that a file without one is not read here (a first run reads each file once, to check it)."""
        if self._bundled is None:
            self._bundled = self._bundle_index()
        if key in self._bundled:
            made = content() if callable(content) else content
            if made is None:
                return None
            content = made
            for path, offset, length in self._bundled[key]:
                outcome = self._from_bundle(path, offset, length, key, made)
                if outcome is not None:
                    return outcome
        entry = os.path.join(self._entries, key.hex())  # a plain string: this runs once per file of a run
        try:
            fd = os.open(entry, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except OSError:
            return None
        try:
            outcome = self._read_entry(fd, key, content)
            if outcome is not None:
                with contextlib.suppress(OSError):  # used by this run: kept by pruning
                    os.utime(fd if os.utime in os.supports_fd else entry)
        finally:
            os.close(fd)
        return outcome

    def _bundle_index(self) -> dict[bytes, list[tuple[str, int, int]]]:
        """Where each key's entries are in the bundles of the cache (read once per run: their tables)."""
        from axag.batch.cache.bundle import PREFIX, read_table

        index: dict[bytes, list[tuple[str, int, int]]] = {}
        try:
            with os.scandir(self._entries) as it:
                bundles = sorted(e.path for e in it if e.name.startswith(PREFIX))
        except OSError:
            return index
        for path in bundles:
            for key, offset, length in read_table(path) or ():
                index.setdefault(key, []).append((path, offset, length))
        return index

    def _from_bundle(self, path: str, offset: int, length: int, key: bytes, content: bytes) -> Any:
        from axag.batch.cache.bundle import read_entry

        fd = self._open.get(path)
        try:
            if fd is None:
                if len(self._open) >= _OPEN_BUNDLES:  # many small bundles: never run out of descriptors
                    self._close_bundles()
                fd = self._open[path] = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
            blob = read_entry(fd, offset, length)
        except OSError:
            return None
        return self._outcome_of(blob, key, content)

    def _close_bundles(self) -> None:
        """Close the bundles read so far, refreshing their mtime (used by this run: kept by pruning)."""
        for path, fd in self._open.items():
            with contextlib.suppress(OSError):
                os.utime(fd if os.utime in os.supports_fd else path)
            with contextlib.suppress(OSError):
                os.close(fd)
        self._open = {}

    def _read_entry(self, fd: int, key: bytes, content: bytes | Callable[[], bytes | None]) -> Any:
        try:
            blob = _read_all(fd)
        except OSError:
            return None
        return self._outcome_of(blob, key, content)

    def _outcome_of(self, blob: bytes, key: bytes, content: bytes | Callable[[], bytes | None]) -> Any:
        """The outcome an entry holds, when the entry is whole, is for ``key`` and the file's digest, was made
        with this user's secret (its MAC) and every other file it was made from is unchanged; else None."""
        made = content() if callable(content) else content
        start = len(_MAGIC) + ID_SIZE
        if made is None or len(blob) < _HEAD + TAG_SIZE or blob[:len(_MAGIC)] != _MAGIC:
            return None
        if blob[len(_MAGIC):start] != self._id:
            cache_secret.foreign(os.fspath(self.directory))
            return None
        if blob[start:_HEAD] != key + made \
                or not cache_secret.equal(cache_secret.tag(self.secret, blob[:-TAG_SIZE]), blob[-TAG_SIZE:]):
            return None  # another file's bytes; or damaged, or forged
        from axag.files.restricted_pickle import loads_only

        try:
            files, outcome = loads_only(blob[_HEAD:-TAG_SIZE], ENTRY_CLASSES)
            files = dict(files)
        except Exception:  # noqa: BLE001 - a damaged entry is a miss, whatever unpickling raises
            return None
        from axag.lint.engine import FileOutcome

        if not isinstance(outcome, FileOutcome) or (files and not depends.unchanged(files)):
            return None
        depends.note_all(files)
        return outcome

    def store(self, key: bytes, content: bytes, outcome: Any, files: depends.Digests | None = None) -> None:
        """Write the entry of an outcome whose contracts are packed (`pack_outcome`), with the other ``files``
        it was made from (`axag.files.depends`: path -> digest). Never raises."""
        if not self.writable or outcome.internal_error or outcome.read_error or outcome.text is not None:
            return
        payload = pickle.dumps((tuple(sorted((files or {}).items())), outcome), pickle.HIGHEST_PROTOCOL)
        data = b"".join((_MAGIC, self._id, key, content, payload))
        data += cache_secret.tag(self.secret, data)
        if self.bundling:
            self._bundle_entry(key, data)
        else:
            self._write(key, data)

    def _write(self, key: bytes, data: bytes) -> None:
        """The entry file of ``key`` (a temporary file renamed over it)."""
        from axag.batch.cache.bundle import write_all

        entry = self._entry(key)
        tmp = entry.with_name(f".{entry.name}.{os.getpid()}.tmp")
        try:
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            except FileNotFoundError:
                self._create()
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            try:
                write_all(fd, data)
            finally:
                os.close(fd)
            os.replace(tmp, entry)
            self.wrote = True
            self.written += len(data)
        except OSError:
            self.writable = False  # read-only tree, full disk, ...: the run goes on without writing
            with contextlib.suppress(OSError):
                os.unlink(tmp)

    def _bundle_entry(self, key: bytes, data: bytes) -> None:
        from axag.batch.cache.bundle import BundleWriter

        if self._bundle is None:
            self._bundle = BundleWriter(self._entries)
        try:
            try:
                self._bundle.add(key, data)
            except FileNotFoundError:
                self._create()
                self._bundle.add(key, data)
        except OSError:
            self.writable = False  # read-only tree, full disk, ...: the run goes on without writing
            self._bundle.abandon()
            self._bundle = None

    def finish_bundle(self) -> None:
        """Complete this process's bundle (at the end of the run; a worker process when it exits)."""
        if self._bundle is not None:
            if self._bundle.finish():
                self.wrote = True
                self.written += self._bundle.offset
            self._bundle = None

    def _create(self) -> None:
        """The cache folder with its `.gitignore` (and a CACHEDIR.TAG for backup tools)."""
        fresh = not self.directory.exists()
        self.entries.mkdir(parents=True, exist_ok=True)
        if fresh or not (self.directory / ".gitignore").exists():
            for name, text in ((".gitignore", "# created by axag\n*\n"),
                               ("CACHEDIR.TAG", ("Signature: 8a477f597d28d172789f06886806bc55\n"
                                                 "# This file is a cache directory tag created by axag.\n"))):
                path = self.directory / name
                tmp = path.with_name(f".{name}.{os.getpid()}.tmp")
                tmp.write_text(text, encoding="utf-8")
                os.replace(tmp, path)

    # ---------------------------------------------------------------- pruning
    def close(self) -> None:
        """After the run: finish its bundle, keep the bundles it used (their mtime), and prune when this run wrote
        entries and the cache is over its bound."""
        self.finish_bundle()
        self._close_bundles()
        self._bundled = None
        # a run that wrote little (one page changed) scans the cache at most hourly; one that wrote much, or whose
        # workers wrote (the bytes are theirs: unknown here), always
        if self.wrote and (not self.written or self.written >= _PRUNE_BYTES or self._prune_due()):
            self.prune()

    def _prune_due(self) -> bool:
        try:
            return time.time() - os.stat(self.directory / _PRUNED).st_mtime > _PRUNE_EVERY
        except OSError:
            return True

    def prune(self) -> None:
        """Remove the entries used least recently until the cache is under 3/4 of its bound (entries used by
        this run stay), and temporary files that a killed run left behind."""
        try:
            self._prune()
        finally:
            with contextlib.suppress(OSError):
                with open(self.directory / _PRUNED, "ab"):
                    pass
                os.utime(self.directory / _PRUNED)

    def _prune(self) -> None:
        now = time.time()
        items: list[tuple[float, int, str]] = []
        total = 0
        try:
            with os.scandir(self.entries) as it:
                for e in it:
                    try:
                        st = e.stat()
                    except OSError:
                        continue
                    if e.name.startswith("."):
                        if now - st.st_mtime > _TMP_AGE:
                            _unlink(e.path)
                        continue
                    total += st.st_size
                    items.append((st.st_mtime, st.st_size, e.path))
        except OSError:
            return
        if total <= self.max_bytes:
            return
        goal = self.max_bytes * 3 // 4
        for mtime, size, path in sorted(items):
            if total <= goal or mtime >= self.started - 1:
                break
            if _unlink(path):
                total -= size


def _read_all(fd: int) -> bytes:
    """The rest of an open file, read in as few calls as its size allows (no buffered reader: no fstat, no
    terminal check, no seek per entry)."""
    chunks = []
    while True:
        chunk = os.read(fd, _CHUNK)
        chunks.append(chunk)
        if len(chunk) < _CHUNK:  # a short read of a regular file: its end (one interrupted early only makes a miss)
            break
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


_CHUNK = 1 << 20


def _unlink(path: str) -> bool:
    try:
        os.unlink(path)
        return True
    except OSError:
        return False


_PACKED: dict[tuple[str, str, bool, str | None], Any] = {}  # (intent, key, with tool text, page) -> packed


def new_run() -> None:
    """Forget the contracts packed by an earlier run in this process: a contract's key leaves out what may
    differ between runs (the page a binding names is relative to the run's compile root)."""
    _PACKED.clear()


def pack_outcome(outcome: Any, *, fragments: bool) -> None:
    """The outcome's contracts packed (`compile.merge.PackedContract`), those of actions with errors left out
    (they take no part in merging): what a cache entry holds and what the run folds in. A contract met before
    (same intent and key: a header repeated on every page) is pickled once; only its source differs."""
    if not outcome.contracts:
        return
    from axag.compile.merge import PackedContract, binding_page

    packed = []
    for c, has_errors in outcome.contracts:
        if has_errors:
            continue
        if not isinstance(c, PackedContract):
            ident = (str(c.meta["intent"]), c.key, fragments, binding_page(c.tool))
            known = _PACKED.get(ident) if c.key else None
            if known is None:
                c = PackedContract.pack(c, fragment=fragments)
                if len(_PACKED) >= 512:  # a bounded memo: what is kept for the run is the index's
                    _PACKED.clear()
                _PACKED[ident] = c
            else:
                c = PackedContract(known.intent, known.key, known.name, c.sources[0], known.blob, known.fragment,
                                   known.page)
        packed.append((c, False))
    outcome.contracts = packed


def lookup_tasks(tasks: list[tuple[Any, ...]], resolver: Any, request: Any,
                 cache: ResultCache) -> tuple[list[Any], list[int], list[tuple[Any, ...]]]:
    """(outcomes of the tasks found in the cache, the task index of each hit and then of each miss, the
    missed tasks with the key of their entry appended)."""
    hits: list[Any] = []
    hit_slots: list[int] = []
    miss_slots: list[int] = []
    misses: list[tuple[Any, ...]] = []
    by_dir: dict[Any, Any] = {}  # the settings of the files of a folder (discovered files are files)
    for i, (path, disp, rel) in enumerate(tasks):
        settings = by_dir.get(path.parent)
        if settings is None:
            settings = by_dir[path.parent] = resolver.resolve(path)
        key = cache.key(path, disp, rel, settings, request)
        outcome = cache.lookup(key, partial(_file_digest, path))
        if outcome is None:
            miss_slots.append(i)
            misses.append((path, disp, rel, key))
        else:
            outcome.path, outcome.display, outcome.repo_path = path, disp, rel
            hits.append(outcome)
            hit_slots.append(i)
    return hits, hit_slots + miss_slots, misses


def _file_digest(path: Path) -> bytes | None:
    """The digest of a file's bytes, or None when it cannot be read or is not a regular file."""
    try:
        data = read_whole.read_regular(path)
    except OSError:
        return None
    return digest(data) if data is not None else None


def check_and_store(path: Path, display: str, repo_path: str, settings: Any, request: Any, cache: ResultCache,
                    key: bytes, check: Any = None) -> FileOutcome:
    """Check a file that the cache missed (with ``check``, default `engine.check_file`), and store its outcome
    (contracts packed) under ``key``."""
    from axag.lint.engine import check_file

    check = check or check_file

    try:
        data = read_whole.read_regular(path)
    except OSError:
        data = None
    if data is None:  # unreadable or not a regular file: checked (and reported) as usual, never stored
        result: FileOutcome = check(path, display, repo_path, settings, request)
        return result
    with depends.Collector() as files:  # the modules its spec objects are imported from, ...
        outcome: FileOutcome = check(path, display, repo_path, settings, request, data=data)
    pack_outcome(outcome, fragments=request.mode == "compile")
    cache.store(key, digest(data), outcome, files)
    return outcome
