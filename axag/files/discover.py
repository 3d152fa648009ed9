"""DISCOVER (file discovery): command-line paths → sorted list of files to process.

Named files are always processed (unless ``force_exclude``); directories are walked with each
directory's ``include``/``exclude`` (closest configuration, configuration) and ``.gitignore`` files plus
``.git/info/exclude`` with gitignore(5) semantics (``pathspec`` gitwildmatch). Patterns that match a named
directory or one of its ancestors are not applied while walking it. Symlinks to files are followed,
symlinks to directories are not. Unreadable directories become ``problems``; nothing raises.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from axag.config.resolve import Resolver
from axag.config.settings import Settings
from axag.files.globs import match_any, relative_posix

KINDS: Final[dict[str, str]] = {
    ".html": "html",
    ".htm": "html",
    ".jinja": "jinja",
    ".jinja2": "jinja",
    ".j2": "jinja",
    ".njk": "jinja",
    ".hbs": "hbs",
    ".liquid": "liquid",
    ".vue": "vue",
    ".svelte": "svelte",
    ".astro": "astro",
    ".jsx": "jsx",
    ".tsx": "jsx",
    ".js": "jsx",
    ".ts": "jsx",
    ".mjs": "jsx",
    ".mts": "jsx",
}


def file_kind(path: str | os.PathLike[str]) -> str:
    """``html``, ``jinja``, ``hbs``, ``liquid``, ``vue``, ``svelte``, ``astro`` or ``jsx`` by extension
    (case-insensitive, dynamic values); ``html`` for any other extension (such a file named on the command line is
    skipped with a warning, file discovery)."""
    return KINDS.get(os.path.splitext(os.fspath(path))[1].lower(), "html")


class Discovered(list[Path]):
    """The files found (absolute, normalised without resolving symlinks, sorted by POSIX string, no
    duplicates), plus ``problems``: ``(path, message)`` pairs for paths that could not be read
    (unreadable directory, missing named path), sorted, for the caller to report (e.g. as ``191``)."""

    problems: list[tuple[Path, str]]

    def __init__(self, files: Iterable[Path] = (), problems: Iterable[tuple[Path, str]] = ()) -> None:
        super().__init__(files)
        self.problems = list(problems)


# ---------------------------------------------------------------- gitignore


def _git_root(start: Path) -> Path | None:
    d = start
    while True:
        if (d / ".git").exists():
            return d
        if d.parent == d:
            return None
        d = d.parent


def _reroot(line: str, prefix: str) -> str | None:
    """One gitignore line of a file in directory ``prefix`` (POSIX, relative to the scope's top, ``""`` for
    the top) rewritten relative to the top; ``None`` for blank lines and comments."""
    line = line.rstrip("\r\n")
    if not line.strip() or line.startswith("#"):
        return None
    if not prefix:
        return line
    neg = "!" if line.startswith("!") else ""
    body = line[1:] if neg else line
    anchored = "/" in body.rstrip("/ ")
    body = body.lstrip("/") if anchored else body
    return f"{neg}{prefix}/{body}" if anchored else f"{neg}{prefix}/**/{body}"


def _read_lines(file: Path) -> list[str]:
    try:
        return file.read_bytes().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return []


class _Scope:
    """The gitignore view of one named path. Sources: ``.git/info/exclude`` of the git root, then the
    ``.gitignore`` files from ``top`` (git root, else the cwd when the path is inside it, else the path's own
    directory) down to each directory, combined into one ``GitIgnoreSpec`` relative to ``top`` (later
    patterns win; a pattern matching a path beats one matching only a directory containing it). With a
    ``named_dir``, patterns matching it or its ancestors are dropped."""

    def __init__(self, top: Path, git_root: Path | None, named_dir: Path | None) -> None:
        self.top = top
        self.git_root = git_root
        self.named_dir = named_dir
        self._lines: dict[Path, list[str]] = {}
        self._specs: dict[tuple[Path, ...], Any] = {}
        self._by_dir: dict[Path, Any] = {}
        self._named_prefixes: list[str] = []
        if named_dir is not None:
            rel = relative_posix(named_dir, top)
            if rel != "." and not rel.startswith(".."):
                parts = rel.split("/")
                self._named_prefixes = ["/".join(parts[:k]) + "/" for k in range(1, len(parts) + 1)]

    def _file_lines(self, directory: Path) -> list[str]:
        got = self._lines.get(directory)
        if got is None:
            file = directory / ".gitignore"
            raw = _read_lines(file) if file.is_file() else []
            prefix = relative_posix(directory, self.top)
            prefix = "" if prefix == "." else prefix
            got = [r for r in (_reroot(x, prefix) for x in raw) if r is not None]
            self._lines[directory] = got
        return got

    def _spec_for(self, directory: Path) -> Any:
        """The combined spec for entries of ``directory`` (``None`` when no pattern applies)."""
        if directory in self._by_dir:
            return self._by_dir[directory]
        chain: list[Path] = []
        d = directory
        while True:
            chain.append(d)
            if d == self.top or d.parent == d:
                break
            d = d.parent
        if chain[-1] != self.top:
            chain = []
        with_patterns = tuple(c for c in reversed(chain) if self._file_lines(c))
        spec = self._specs.get(with_patterns, False)
        if spec is False:
            spec = self._build(with_patterns)
            self._specs[with_patterns] = spec
        self._by_dir[directory] = spec
        return spec

    def _build(self, dirs: tuple[Path, ...]) -> Any:
        lines: list[str] = []
        if self.git_root is not None and self.git_root == self.top:
            info = self.top / ".git" / "info" / "exclude"
            if info.is_file():
                lines.extend(r for r in (_reroot(x, "") for x in _read_lines(info)) if r is not None)
        for d in dirs:
            lines.extend(self._file_lines(d))
        if not lines:
            return None  # nothing to ignore: pathspec is not even imported
        import pathspec

        spec = pathspec.GitIgnoreSpec.from_lines(lines)
        patterns = [p for p in spec.patterns if p.include is not None]
        if self._named_prefixes:
            patterns = [
                p for p in patterns if not any(p.match_file(x) is not None for x in self._named_prefixes)
            ]
        if not patterns:
            return None
        return pathspec.GitIgnoreSpec(patterns)

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """Whether ``path`` itself is ignored (its directories are not checked: the walk prunes them)."""
        spec = self._spec_for(path.parent)
        if spec is None:
            return False
        rel = relative_posix(path, self.top)
        if rel.startswith(".."):
            return False
        return bool(spec.check_file(rel + "/" if is_dir else rel).include)

    def ignored_with_ancestors(self, path: Path, is_dir: bool) -> bool:
        """``path`` or one of its directories between ``top`` and it is ignored."""
        rel = relative_posix(path, self.top)
        if not rel.startswith("..") and rel != ".":
            parts = rel.split("/")
            for k in range(1, len(parts)):
                if self.ignored(self.top.joinpath(*parts[:k]), True):
                    return True
        return self.ignored(path, is_dir)


def _scope(path: Path, named_dir: Path | None, cwd: Path) -> _Scope:
    start = path if named_dir is not None else path.parent
    git_root = _git_root(start)
    if git_root is not None:
        top = git_root
    elif not relative_posix(start, cwd).startswith(".."):
        top = cwd
    else:
        top = start
    return _Scope(top, git_root, named_dir)


# ---------------------------------------------------------------- walking


def _excluded(settings: Settings, path: Path, is_dir: bool, *, ancestors: bool) -> bool:
    return match_any(settings.exclude_globs, relative_posix(path, settings.base), is_dir=is_dir, ancestors=ancestors)


def _included(settings: Settings, path: Path) -> bool:
    return match_any(settings.include_globs, relative_posix(path, settings.base), ancestors=False)


def discover(
    paths: Iterable[str | os.PathLike[str]],
    settings_resolver: Resolver,
    *,
    force_exclude: bool = False,
    respect_gitignore: bool | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> Discovered:
    """Files to process for ``paths`` (files and directories named on the command line).

    ``respect_gitignore``: ``False`` for ``--no-respect-gitignore``; ``None`` uses the
    ``respect-gitignore`` setting of each named path's configuration. ``force_exclude`` applies
    ``exclude`` (of the closest configuration) and ``.gitignore`` to named paths too. Returns a
    ``Discovered`` list (see there); ``Discovered.problems`` lists unreadable directories and missing
    named paths."""
    base = Path(os.path.abspath(cwd if cwd is not None else settings_resolver.cwd))
    files: set[Path] = set()
    problems: set[tuple[Path, str]] = set()
    for raw in _expand_globs(paths, base):
        path = Path(os.path.normpath(os.path.join(base, os.fspath(raw))))
        settings = settings_resolver.resolve(path)
        use_gitignore = settings.respect_gitignore if respect_gitignore is None else respect_gitignore
        if path.is_dir():
            if force_exclude:
                if _excluded(settings_resolver.resolve_dir(path.parent), path, True, ancestors=True):
                    continue
                if use_gitignore and _scope(path, None, base).ignored_with_ancestors(path, True):
                    continue
            scope = _scope(path, path, base) if use_gitignore else None
            _walk(path, settings_resolver, scope, files, problems)
        elif path.exists():
            if force_exclude:
                if _excluded(settings, path, False, ancestors=True):
                    continue
                if use_gitignore and _scope(path, None, base).ignored_with_ancestors(path, False):
                    continue
            files.add(path)
        else:
            problems.add((path, "No such file or directory"))
    return Discovered(sorted(files, key=lambda p: p.as_posix()), sorted(problems, key=lambda x: x[0].as_posix()))


def missing_paths(paths: Iterable[str | os.PathLike[str]], cwd: str | os.PathLike[str]) -> list[str]:
    """The named paths, as written, that do not exist (a glob pattern that matches nothing included):
    a usage error for every command (file discovery)."""
    base = Path(os.path.abspath(cwd))
    return [raw for raw in _expand_globs(paths, base)
            if not os.path.exists(os.path.normpath(os.path.join(base, raw)))]


def _expand_globs(paths: Iterable[str | os.PathLike[str]], base: Path) -> list[str]:
    """Named paths with glob characters (`*`, `?`, `[`; `**` crosses directories) that do not exist as
    written are expanded, sorted; a pattern that matches nothing stays as written (reported as missing)."""
    import glob

    out: list[str] = []
    for raw in paths:
        text = os.fspath(raw)
        if any(c in text for c in "*?[") and not os.path.exists(os.path.join(base, text)):
            matches = sorted(glob.glob(text, root_dir=base, recursive=True))
            if matches:
                out.extend(matches)
                continue
        out.append(text)
    return out


def _walk(
    root: Path,
    resolver: Resolver,
    scope: _Scope | None,
    files: set[Path],
    problems: set[tuple[Path, str]],
) -> None:
    stack = [root]
    while stack:
        directory = stack.pop()
        settings = resolver.resolve_dir(directory)
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            problems.add((directory, f"cannot read directory: {exc.strerror or exc}"))
            continue
        for entry in entries:
            path = directory / entry.name
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file()  # follows symlinks to files
            except OSError:
                continue
            if is_dir and not is_link:
                if _excluded(settings, path, True, ancestors=False):
                    continue
                if scope is not None and scope.ignored(path, True):
                    continue
                stack.append(path)
            elif is_file:
                if not _included(settings, path) or _excluded(settings, path, False, ancestors=False):
                    continue
                if scope is not None and scope.ignored(path, False):
                    continue
                files.add(path)
            # symlinks to directories, broken symlinks and special files are skipped
