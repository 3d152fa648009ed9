"""Relative paths of the files of a run, computed once per file (discovery, display paths, repository paths)."""

from __future__ import annotations

import os


def _plain_absolute(p: str) -> bool:
    """An absolute POSIX path already in normal form (no ``.``/``..``/empty segments, no trailing slash)."""
    return p.startswith("/") and "/." not in p and "//" not in p and (p == "/" or not p.endswith("/"))


def relpath_posix(path: str | os.PathLike[str], base: str | os.PathLike[str]) -> str:
    """``os.path.relpath(path, base)`` with ``/`` separators; a string operation when ``path`` lies under
    ``base`` and both are plain absolute paths (the common case of files found under a folder), which runs
    once per file of a run. Raises ValueError like `os.path.relpath` (other drives on Windows)."""
    p, b = os.fspath(path), os.fspath(base)
    if os.sep == "/" and _plain_absolute(p) and _plain_absolute(b):
        if b == "/":
            return p[1:] or "."
        if p.startswith(b) and (len(p) == len(b) or p[len(b)] == "/"):
            return p[len(b) + 1:] or "."
    return os.path.relpath(p, b).replace(os.sep, "/")
