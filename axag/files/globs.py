"""The globs of discovery (``include``, ``exclude`` and ``lint.per-file-ignores``): gitignore-like patterns
relative to the folder of the configuration that names them, and the default include and exclude lists."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from axag.files.paths import relpath_posix

DEFAULT_INCLUDE: Final = ("*.html", "*.htm", "*.jinja", "*.jinja2", "*.j2", "*.njk", "*.hbs", "*.liquid", "*.vue",
                           "*.svelte", "*.astro", "*.jsx", "*.tsx", "*.js", "*.ts")
DEFAULT_EXCLUDE: Final = (
    ".git", "node_modules", ".venv", "venv", ".tox", "__pycache__", ".mypy_cache", ".ruff_cache",
    "bower_components",
)


@dataclass(frozen=True, slots=True)
class Glob:
    """One configuration glob: ``*`` does not cross ``/``, ``**`` matches any number of directories, a pattern
    without ``/`` matches the base name anywhere; a trailing ``/`` matches directories only; a leading
    ``/`` or ``./`` only anchors."""

    pattern: str
    regex: re.Pattern[str]
    basename: bool
    dir_only: bool

    def matches(self, rel: str, *, is_dir: bool = False, ancestors: bool = True) -> bool:
        """``rel``: POSIX path relative to the directory of the defining file. With ``ancestors``, the
        pattern also matches when it matches a directory containing the path (exclusion semantics)."""
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        if not parts:
            return False
        if parts[0] == "..":
            if not self.basename:
                return False
            while parts and parts[0] == "..":
                parts.pop(0)
            if not parts:
                return False
        first = 1 if ancestors else len(parts)
        for k in range(first, len(parts) + 1):
            this_is_dir = is_dir if k == len(parts) else True
            if self.dir_only and not this_is_dir:
                continue
            subject = parts[k - 1] if self.basename else "/".join(parts[:k])
            if self.regex.fullmatch(subject):
                return True
        return False


def _translate(pat: str) -> str:
    out: list[str] = []
    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "*":
            if pat.startswith("**", i):
                j = i + 2
                if (i == 0 or pat[i - 1] == "/") and (j == n or pat[j] == "/"):
                    if j == n:
                        out.append(".*")
                        i = j
                    else:
                        out.append("(?:[^/]*/)*")
                        i = j + 1
                    continue
                out.append("[^/]*")
                i = j
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and pat[j] in "!^":
                j += 1
            if j < n and pat[j] == "]":
                j += 1
            while j < n and pat[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
            else:
                body = pat[i + 1 : j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pat[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def compile_glob(pattern: str) -> Glob:
    p = pattern.strip()
    dir_only = p.endswith("/") and p.rstrip("/") != ""
    p = p.rstrip("/") if dir_only else p
    anchored = False
    while p.startswith("./"):
        p, anchored = p[2:], True
    if p.startswith("/"):
        p, anchored = p.lstrip("/"), True
    basename = not anchored and "/" not in p
    return Glob(pattern, re.compile(_translate(p), re.DOTALL), basename, dir_only)


def relative_posix(path: str | os.PathLike[str], base: str | os.PathLike[str]) -> str:
    """POSIX path of ``path`` relative to ``base`` (both made absolute without resolving symlinks)."""
    return relpath_posix(os.path.abspath(path), os.path.abspath(base))


def match_any(globs: Iterable[Glob], rel: str, *, is_dir: bool = False, ancestors: bool = True) -> bool:
    return any(g.matches(rel, is_dir=is_dir, ancestors=ancestors) for g in globs)


_COMPILED: dict[tuple[str, ...], tuple[Glob, ...]] = {}


def compiled(patterns: tuple[str, ...]) -> tuple[Glob, ...]:
    """The compiled globs of ``patterns`` (compiled once per tuple of patterns)."""
    got = _COMPILED.get(patterns)
    if got is None:
        got = _COMPILED[patterns] = tuple(compile_glob(p) for p in patterns)
    return got
