"""Run records: what one ``axag lint FILE...`` printed and wrote (its stdout and stderr text in
order, its report files) and its exit code, kept in ``runs/`` of the result cache so that the console script
(`cli.entry`) can answer the same invocation again without importing click, lxml, rich, jsonschema, the
model or the rules.

A record is keyed by everything that output depends on: axag's code (version, size and mtime of each module),
the Python version, the arguments, the working directory, the environment variables axag reads, whether stdout
and stderr are terminals and their encodings, the bytes of every named file, and the state (absent, or the digest
of the bytes) of each file that configuration, ``.gitignore`` and repository discovery may read in the folders
above the named files and the working directory. Every other file the run read (``--config``, baseline,
manifest, enforced intents, OpenAPI, configuration files: `axag.files.depends`) is listed in the record with its digest
and compared when it is read. A record carries a MAC made with the user's secret (`axag.batch.cache.secret`), and a
replay writes only the report files its command line names. Only named regular files are keyed (no folder,
glob, ``-`` or component file, whose relative imports are read too), with the options in ``FLAGS`` and
``VALUED`` (``--no-cache`` is parsed but never keyed).
This module imports only the standard library's built-in modules and ``xxhash``.
"""

from __future__ import annotations

import marshal
import os
import sys

import xxhash

from axag import __version__
from axag.batch.cache.location import DIR_NAME, ENV_VAR, named_folder
from axag.batch.cache.secret import ID_SIZE, TAG_SIZE, equal, foreign, key_id, tag
from axag.files.read_whole import read_regular

MAGIC = b"axag-run/2\n"
RUNS = "runs"  # the folder of the records inside the cache folder
ENV_READ = ("NO_COLOR", "FORCE_COLOR", ENV_VAR, "HOME")  # the environment a lint run's output depends on
FLAGS = frozenset({"-q", "--quiet", "--isolated", "--statistics", "--exit-zero", "--force-exclude",
                   "--no-respect-gitignore", "--no-cache"})
VALUED = frozenset({"--config", "--color", "-j", "--jobs", "--select", "--ignore", "--extend-select", "--level",
                    "--fail-on", "--output-format", "--output-file", "--baseline", "--manifest",
                    "--enforced-intents", "--openapi", "--cache-dir"})
# what configuration (`config.CONFIG_NAMES`), .gitignore and repository discovery look for in each folder
WATCHED = (".axag.toml", "axag.toml", "pyproject.toml", ".gitignore", ".git", os.path.join(".git", "info", "exclude"))
# component files read the files their relative imports name (parse/jsxspec.py): never served here
COMPONENT_EXTS = (".jsx", ".tsx", ".js", ".ts", ".mjs", ".mts")
STDOUT, STDERR, FILE = 0, 1, 2  # the kinds of a record's operations
TYPE_CHECKING = False  # `typing` costs milliseconds at start-up
if TYPE_CHECKING:
    from typing import Any

_pending: list[bytes] = []  # the key of the invocation that missed (its run leaves the record)


def pending_record() -> bytes | None:
    """The key under which the lint run in progress should leave its record (None: no record); given once."""
    key = _pending.pop() if _pending else None
    _pending.clear()
    return key


def expect_record(key: bytes) -> None:
    """The run about to start should leave its record under ``key`` (`pending_record`)."""
    _pending.clear()
    _pending.append(key)


def parse_args(argv: list[str]) -> tuple[list[str], dict[str, list[str]]] | None:
    """``lint`` with served options only: (named paths, option -> values), else None."""
    if not argv or argv[0] != "lint" or any(k.endswith("_COMPLETE") for k in os.environ):  # click's completion
        return None
    paths: list[str] = []
    values: dict[str, list[str]] = {}
    i = 1
    while i < len(argv):
        token = argv[i]
        if token.startswith("-"):
            name, eq, value = token.partition("=") if token.startswith("--") else (token, "", "")
            if name in FLAGS and not eq:
                values.setdefault(name, [])
            elif name in VALUED:
                if not eq:
                    i += 1
                    if i == len(argv):
                        return None
                    value = argv[i]
                values.setdefault(name, []).append(value)
            else:  # -, --, --fix, --diff, --no-cache, --help, short clusters, anything unknown
                return None
        else:
            paths.append(token)
        i += 1
    return (paths, values) if paths else None


def plan_of(argv: list[str]) -> tuple[bytes, tuple[str, ...]] | None:
    """(the record's key, the cache folders to look in) for a served invocation whose files can be read."""
    parsed = parse_args(argv)
    if parsed is None or "--no-cache" in parsed[1]:
        return None
    paths, values = parsed
    try:
        cwd = os.getcwd()
    except OSError:  # a removed working directory: the run reports it
        return None
    parts = [MAGIC.decode(), __version__, sys.version, code_stamp().hex(), *installed(), cwd, *argv, "\0env"]
    parts += [name + "=" + os.environ.get(name, "\0") for name in ENV_READ]
    for stream in (sys.stdout, sys.stderr):
        try:
            parts.append(f"{stream.isatty()}:{stream.encoding}:{stream.errors}")
        except (AttributeError, ValueError):
            return None
    folders = {cwd}
    parts.append("\0files")
    for raw in paths:
        path = os.path.normpath(os.path.join(cwd, raw))
        if path.lower().endswith(COMPONENT_EXTS):
            return None
        data = _read_regular(path)
        if data is None:
            return None
        parts += [path, xxhash.xxh3_128_hexdigest(data)]
        folders.add(os.path.dirname(path))
    above: set[str] = set()
    for folder in folders:
        while folder not in above:
            above.add(folder)
            folder = os.path.dirname(folder)
    parts.append("\0above")
    pyprojects: dict[str, bytes] = {}
    for folder in sorted(above):
        for name in WATCHED:
            path = os.path.join(folder, name)
            data = _read_regular(path)
            if data is None:
                parts.append(f"{path}:{'dir' if os.path.isdir(path) else 'other' if os.path.lexists(path) else '-'}")
            else:
                parts.append(f"{path}:{xxhash.xxh3_128_hexdigest(data)}")
                if name == "pyproject.toml":
                    pyprojects[folder] = data
    key = xxhash.xxh3_128_digest("\0".join(parts).encode("utf-8", "surrogatepass"))
    return key, cache_folders(cwd, values, pyprojects)


def cache_folders(cwd: str, values: dict[str, list[str]], pyprojects: dict[str, bytes]) -> tuple[str, ...]:
    """Where the run's result cache may be (`cache.cache_dir` over `config.resolve.Resolver.project_root`), without
    reading TOML: a pyproject.toml that mentions axag may hold ``[tool.axag]``, so its folder is a candidate
    before those above it. The record is checked whatever folder it is found in."""
    named = named_folder((values.get("--cache-dir") or [""])[-1], cwd)
    if named is not None:
        return (named,)
    if "--isolated" in values:
        roots = [cwd]
    elif values.get("--config"):
        roots = [os.path.dirname(os.path.normpath(os.path.join(cwd, os.path.expanduser(values["--config"][-1]))))]
    else:
        roots = []
        folder = cwd
        while True:
            if any(os.path.isfile(os.path.join(folder, name)) for name in (".axag.toml", "axag.toml")):
                roots.append(folder)
                break
            if b"axag" in pyprojects.get(folder, b""):
                roots.append(folder)
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        if cwd not in roots:
            roots.append(cwd)
    return tuple(os.path.join(root, DIR_NAME) for root in roots)


def installed() -> list[str]:
    """The folders Python imports from (but the script's own) with their mtimes: installing, upgrading or removing
    a package (lxml, rich, click, ...) changes its folder's entries, so a record of other libraries is not used."""
    out = []
    for folder in sys.path[1:]:
        try:
            out.append(f"{folder}:{os.stat(folder or '.').st_mtime_ns}")
        except OSError:
            out.append(f"{folder}:-")
    return out


_STAMP: list[bytes] = []


def code_stamp() -> bytes:
    """axag's version and the size and mtime of each of its modules (an edited checkout never replays)."""
    if not _STAMP:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        parts = [__version__]
        stack = [root]
        while stack:
            folder = stack.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                if entry.name.endswith(".py"):
                    try:
                        st = entry.stat()
                    except OSError:
                        continue
                    parts.append(f"{entry.path}:{st.st_size}:{st.st_mtime_ns}")
                elif entry.name != "__pycache__" and entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
        _STAMP.append(xxhash.xxh3_128_digest("\n".join(parts).encode("utf-8", "surrogatepass")))
    return _STAMP[0]


def _read_regular(path: str) -> bytes | None:
    """The bytes of a regular file (symbolic links followed), else None: a folder, a FIFO, anything unreadable."""
    try:
        return read_regular(path)
    except (OSError, ValueError):
        return None


def state_of(path: str) -> str:
    """What a record remembers of an input file: the digest of its bytes, or ``-``."""
    data = _read_regular(path)
    return "-" if data is None else xxhash.xxh3_128_hexdigest(data)


# ---------------------------------------------------------------------------------------------- records
def read_record(path: str, key: bytes, secret: bytes) -> tuple[Any, Any, int] | None:
    """(inputs, operations, exit code) of a record, or None (missing, truncated, corrupt, for another key, not of
    this format, or not made with ``secret``: its MAC does not match; one made with another secret is said once,
    `cache_secret.foreign`)."""
    try:
        with open(path, "rb") as fh:
            blob = fh.read()
    except OSError:
        return None
    head = len(MAGIC) + ID_SIZE + len(key)
    if len(blob) < head + TAG_SIZE or blob[:len(MAGIC)] != MAGIC or blob[head - len(key):head] != key:
        return None
    if blob[len(MAGIC):head - len(key)] != key_id(secret):
        foreign(os.path.dirname(os.path.dirname(path)))
        return None
    payload = blob[head:-TAG_SIZE]
    if not equal(tag(secret, blob[:-TAG_SIZE]), blob[-TAG_SIZE:]):
        return None
    try:
        inputs, ops, code = marshal.loads(payload)
        well_formed = (
            type(code) is int and 0 <= code <= 255
            and all(_strings(item, 2) for item in inputs)
            and all(type(op) is tuple and len(op) == 3 and op[0] in (STDOUT, STDERR, FILE) and _strings(op[1:], 2)
                    for op in ops))
    except (ValueError, EOFError, TypeError):  # not a triple of sequences
        return None
    return (inputs, ops, code) if well_formed else None


def _strings(item: Any, n: int) -> bool:
    return type(item) is tuple and len(item) == n and all(type(x) is str for x in item)


def encode_record(key: bytes, secret: bytes, inputs: list[tuple[str, str]], ops: list[tuple[int, str, str]],
                  code: int) -> bytes:
    """A record: magic, the secret's id, the key, the payload and the MAC of all of them."""
    body = b"".join((MAGIC, key_id(secret), key, marshal.dumps((tuple(inputs), tuple(ops), code))))
    return body + tag(secret, body)


# ---------------------------------------------------------------------------------------------- streams
class _Pacified:
    """A stream whose flush ignores a closed pipe (click's `_PacifyFlushWrapper`)."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        try:  # noqa: SIM105 - contextlib costs start-up time
            self.wrapped.flush()
        except BrokenPipeError:
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


def pacify_streams() -> None:
    """After a closed pipe: stdout and stderr that ignore it when flushed at exit (exit code 1, as click's)."""
    sys.stdout = _Pacified(sys.stdout)
    sys.stderr = _Pacified(sys.stderr)
