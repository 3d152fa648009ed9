"""WRITE: the only place outputs reach the file system (atomic replace, create-only, --check)."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from axag.outcome.errors import InputError


def _pieces(data: bytes | str | Iterable[str]) -> Iterator[bytes]:
    if isinstance(data, bytes):
        yield data
    elif isinstance(data, str):
        yield data.encode("utf-8")
    else:
        for piece in data:
            yield piece.encode("utf-8")


def write_atomic(path: str | os.PathLike[str], data: bytes | str | Iterable[str], *, keep_mode: bool = True,
                 within: str | os.PathLike[str] | None = None) -> None:
    """Write ``data`` to ``path`` atomically: temp file in the same directory, flush, fsync, rename.
    ``data`` may be pieces of text (a report written as it is rendered).

    The target either keeps its old content or gets the complete new one. An existing file's
    permission bits are kept. Raises ``InputError`` (exit 2) on OS errors, leaving the target untouched.

    Symbolic links are written through (the link is kept) only when the file they lead to lies inside
    ``within`` (default: the directory ``path`` names, e.g. that of ``-o``); a committed link cannot make
    axag write anywhere else.
    """
    target = Path(path)
    mode: int | None = None
    try:
        st = os.stat(target)
        mode = stat.S_IMODE(st.st_mode)
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise InputError(f"cannot write {target}: {exc.strerror or exc}") from exc
    if mode is not None and not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
        # a device or a pipe (/dev/null, /dev/stdout, a FIFO, >(…)): nothing to replace, write straight to it
        # (renaming over it would replace the device node itself)
        try:
            with open(target, "wb") as fh:
                fh.writelines(_pieces(data))
        except OSError as exc:
            raise InputError(f"cannot write {target}: {exc.strerror or exc}") from exc
        return
    target = _contained(target, within)
    directory = target.parent if str(target.parent) else Path(".")
    tmp_name = ""
    try:
        import tempfile  # imported on use: a run that writes no file does without it

        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.writelines(_pieces(data))
                fh.flush()
                os.fsync(fh.fileno())
            if keep_mode and mode is not None:
                os.chmod(tmp_name, mode)
            elif mode is None:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp_name, 0o666 & ~umask)
            os.replace(tmp_name, target)
            tmp_name = ""
        finally:
            if tmp_name:
                with contextlib.suppress(OSError):
                    os.unlink(tmp_name)
        _fsync_dir(directory)
    except OSError as exc:
        raise InputError(f"cannot write {target}: {exc.strerror or exc}") from exc


def _contained(target: Path, within: str | os.PathLike[str] | None) -> Path:
    """The file to replace for ``target``: itself, or for a symbolic link the file it leads to, which must lie
    inside ``within`` (default: the directory ``target`` names), as must ``target`` when a directory on its way
    inside ``within`` is a link. Raises ``InputError`` otherwise."""
    link = target.is_symlink()
    if not link and within is None:
        return target
    root_given = Path(within) if within is not None else (target.parent if str(target.parent) else Path("."))
    root = Path(os.path.realpath(root_given))
    real = Path(os.path.realpath(target))
    if real != root and root not in real.parents:
        what = "a symbolic link to" if link else "reached through a symbolic link as"
        raise InputError(f"refusing to write {target}: it is {what} {real}, outside {root_given}")
    return real if link else target


def contained(path: str | os.PathLike[str], within: str | os.PathLike[str]) -> Path:
    """What `write_atomic` would replace for ``path`` (see `_contained`), checked before anything is read or
    written: a link leading outside ``within`` raises ``InputError``."""
    return _contained(Path(path), within)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def create_only(path: str | os.PathLike[str], data: str, *, within: str | os.PathLike[str] | None = None) -> bool:
    """Create ``path`` with ``data`` unless it exists (user-owned files). Returns True when created. A dangling
    symbolic link counts as absent and is written through under the rules of `write_atomic`."""
    target = Path(path)
    if target.exists():
        return False
    write_atomic(target, data, within=within)
    return True


def normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n")


def check(path: str | os.PathLike[str], data: str, *, max_lines: int = 50) -> tuple[bool, str]:
    """Compare ``data`` with the file at ``path`` (CRLF == LF). Returns (up_to_date, short unified diff)."""
    target = Path(path)
    try:
        old = target.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return False, f"{target} is missing\n"
    except OSError as exc:
        raise InputError(f"cannot read {target}: {exc.strerror or exc}") from exc
    if normalise_newlines(old) == normalise_newlines(data):
        return True, ""
    import difflib

    diff = list(
        difflib.unified_diff(
            normalise_newlines(old).splitlines(keepends=True),
            normalise_newlines(data).splitlines(keepends=True),
            fromfile=f"{target} (committed)",
            tofile=f"{target} (compiled)",
        )
    )
    if len(diff) > max_lines:
        diff = diff[:max_lines] + [f"... ({len(diff) - max_lines} more diff lines)\n"]
    return False, "".join(line if line.endswith("\n") else line + "\n" for line in diff)
