"""`axag lint --watch`: lint, then lint again on every change (`watchfiles`, the ``watch`` extra),
printing each report like a fresh run (ruff's ``--watch`` as the model). Only the files that changed are checked
again; the others keep their outcome, and the run-wide checks (121, 122) are made again over every file, so a
changed file's duplicate intent shows in the other file it clashes with. A configuration change (or a
.gitignore) starts from scratch. Ctrl-C exits 130 (`axag.cli.group.LazyGroup`)."""

from __future__ import annotations

import copy
import os
import sys
from pathlib import Path
from typing import Any

from axag.cli.common import echo, fail
from axag.outcome.exit_codes import EXIT_OK

_RESTART = frozenset({".axag.toml", "axag.toml", "pyproject.toml", ".gitignore"})


class Incremental:
    """`api.check_files` keeping each file's outcome between runs: a run checks only the files in ``changed``
    (every file on the first run, or after a restart) and those it has not seen."""

    def __init__(self) -> None:
        self.outcomes: dict[Path, Any] = {}
        self.changed: set[Path] | None = None
        self.checked: list[Path] = []  # the files the last run checked

    def __call__(self, files: list[Path], resolver: Any, request: Any, *, cwd: Path, jobs: int = 1,
                 stdin: Any = None, progress: Any = None, cache: Any = None) -> Any:
        from axag.api import Run, file_task

        keys = [Path(os.path.abspath(f)) for f in files]
        todo = [f for f, k in zip(files, keys, strict=True)
                if self.changed is None or k in self.changed or k not in self.outcomes]
        project = Path(getattr(resolver, "project_root", cwd))
        repo_cache: dict[Path, Path] = {}
        tasks = [file_task(f, project, cwd, repo_cache) for f in todo]
        # each file's outcome is kept as made (a run's merge empties the contracts of the outcomes it reads, so
        # the run below merges copies); no result cache: what is checked again has changed
        if jobs > 1 and len(tasks) >= 2 * jobs:
            from axag.batch.workers import map_files

            fresh = list(map_files(tasks, resolver, request, jobs))
        else:
            from axag.batch.one_file import check_task

            fresh = [check_task(t, resolver.resolve(t[0]), request, None) for t in tasks]
        for f, outcome in zip(todo, fresh, strict=True):
            self.outcomes[Path(os.path.abspath(f))] = outcome
            if progress is not None:
                progress.advance()
        self.outcomes = {k: self.outcomes[k] for k in keys}  # deleted files are gone
        self.checked = todo
        run = Run(files=len(keys), tool_texts=False)
        for k in keys:
            run.add(copy.copy(self.outcomes[k]), cached=True)
        return run


def watch(opts: dict[str, Any], run_lint: Any) -> int:
    """Lint ``opts["paths"]``, then again after each change, until Ctrl-C."""
    for flag in ("fix", "diff", "update_baseline"):
        if opts.get(flag):
            raise fail(f"--watch cannot be combined with --{flag.replace('_', '-')}")
    if "-" in opts["paths"]:
        raise fail("--watch cannot lint standard input")
    try:
        import watchfiles
    except ImportError as exc:
        raise fail(f"--watch needs the watch extra: pip install 'axag[watch]' ({exc})") from exc
    roots = [p for p in (opts["paths"] or (".",)) if os.path.exists(p)]
    state = Incremental()
    opts = {**opts, "_check_files": state}
    tty = sys.stdout.isatty()
    _run(opts, run_lint)
    echo("axag: watching for changes (Ctrl-C to stop)", err=True)
    for changes in watchfiles.watch(*roots, debounce=200, step=50, raise_interrupt=True):
        paths = {Path(os.path.abspath(p)) for _, p in changes}
        if any(p.name in _RESTART for p in paths):
            state.outcomes.clear()
            state.changed = None
        else:
            state.changed = paths
        if tty:
            echo("\x1b[2J\x1b[H", nl=False)
        echo(f"axag: {len(paths)} file{'s' if len(paths) != 1 else ''} changed, linting again", err=True)
        _run(opts, run_lint)
        echo("axag: watching for changes (Ctrl-C to stop)", err=True)
    return EXIT_OK  # the watch ends only with Ctrl-C (130), or should the watcher ever stop by itself


def _run(opts: dict[str, Any], run_lint: Any) -> None:
    from axag.outcome.errors import AxagError

    try:
        run_lint(opts)
    except AxagError as exc:  # a broken configuration while watching: say so and wait for the next change
        echo(f"axag: error: {exc}", err=True)
    except Exception as exc:
        click = sys.modules.get("click")
        if click is None or not isinstance(exc, click.ClickException):
            raise
        echo(f"axag: error: {exc.format_message()}", err=True)
