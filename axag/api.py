"""Library entry points: lint and compile return data; nothing here prints."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axag.batch.memory import (  # noqa: F401 (BIG_FILE re-exported)
    BIG_FILE,
    bulk_gc,
    file_done,
    freeze_survivors,
    release_memory,
)
from axag.batch.one_file import check_task
from axag.files.paths import relpath_posix
from axag.lint.engine import FileOutcome, Request, check_file, display_path, shared_codes
from axag.outcome.findings import Finding, RunReport


@dataclass
class Run:
    """The outcome of checking many files: per-file outcomes plus run-wide findings (121, 122, 191)."""

    outcomes: list[FileOutcome] = field(default_factory=list)
    run_findings: list[Finding] = field(default_factory=list)
    files: int = 0
    contracts: Any = None  # compile.merge.ContractIndex, folded in as files complete
    tool_texts: bool = True  # the index makes the tool texts of tools.json (compile, not lint)

    def add(self, outcome: FileOutcome, *, cached: bool = False) -> None:
        """``cached``: the outcome comes from the result cache (its contracts are kept as they were stored)."""
        outcome.ran = shared_codes(outcome.ran)  # outcomes from worker processes come with their own copies
        if outcome.contracts:
            if self.contracts is None:
                from axag.compile.merge import ContractIndex

                self.contracts = ContractIndex(fragments=self.tool_texts)
            self.contracts.add(outcome, squeeze=not cached)
        self.outcomes.append(outcome)

    def findings(self) -> list[Finding]:
        out = [f for o in self.outcomes for f in o.findings] + self.run_findings
        return sorted(out, key=Finding.sort_key)

    def suppressed(self) -> list[Finding]:
        return sorted((f for o in self.outcomes for f in o.suppressed), key=Finding.sort_key)

    @property
    def internal_error(self) -> bool:
        return any(o.internal_error for o in self.outcomes)


BUNDLE_FILES = 32  # files to check from which a run writes its cache entries as a bundle


def repo_root_of(path: Path, fallback: Path, cache: dict[Path, Path]) -> Path:
    """The nearest directory (the file's or an ancestor) containing `.git`, else ``fallback``."""
    d = path.parent
    chain = []
    while True:
        if d in cache:
            root = cache[d]
            break
        chain.append(d)
        if (d / ".git").exists():
            root = d
            break
        if d.parent == d:
            root = fallback
            break
        d = d.parent
    for c in chain:
        cache[c] = root
    return root


def file_task(path: Path, project: Path, cwd: Path, repo_cache: dict[Path, Path]) -> tuple[Path, str, str]:
    """(path, display path, repository-relative path) of a file to check."""
    repo = repo_root_of(path, project, repo_cache)
    try:
        repo_rel = relpath_posix(path, repo)
    except ValueError:
        repo_rel = path.as_posix()
    return path, display_path(path, cwd), repo_rel


def check_document(path: Path, data: bytes, resolver: Any, request: Request, *, cwd: Path,
                   repo_cache: dict[Path, Path] | None = None) -> FileOutcome:
    """One document given as its bytes (an editor's buffer, `axag lsp`), checked as `check_files` checks a file
    of a run: the settings that apply to ``path``, its path shown relative to ``cwd``, its fingerprints relative
    to its repository."""
    project = resolver.project_root if hasattr(resolver, "project_root") else cwd
    task = file_task(path, Path(project), cwd, {} if repo_cache is None else repo_cache)
    return check_file(path, task[1], task[2], resolver.resolve(path), request, data=data)


def check_files(files: Sequence[Path], resolver: Any, request: Request, *, cwd: Path, jobs: int = 1,
                stdin: tuple[Path, bytes] | None = None, progress: Any = None, cache: Any = None) -> Run:
    """Run the engine over ``files`` (in-process, or with worker processes when it pays). ``cache``: a
    `cache.ResultCache` whose entries stand in for the files they match (and which gets the others)."""
    if cache is not None:
        from axag.batch.cache.store import new_run

        new_run()
    with bulk_gc():
        run = _check_files(files, resolver, request, cwd=cwd, jobs=jobs, stdin=stdin, progress=progress,
                           cache=cache if not request.keep_text else None)
    if cache is not None:
        cache.close()
    return run


def _check_files(files: Sequence[Path], resolver: Any, request: Request, *, cwd: Path, jobs: int,
                 stdin: tuple[Path, bytes] | None, progress: Any, cache: Any) -> Run:
    project = resolver.project_root if hasattr(resolver, "project_root") else cwd
    repo_cache: dict[Path, Path] = {}
    tasks = [file_task(f, Path(project), cwd, repo_cache) for f in files]
    run = Run(files=len(tasks) + (1 if stdin else 0), tool_texts=request.mode == "compile")
    if stdin is not None:
        spath, data = stdin
        settings = resolver.resolve(spath)
        disp = display_path(spath, cwd)
        run.add(check_file(spath, disp, disp, settings, request, data=data))
    first = len(run.outcomes)
    slots = list(range(len(tasks)))  # the task index of each outcome added below, in the order added
    if cache is not None:
        from axag.batch.cache.store import lookup_tasks

        hits, slots, tasks = lookup_tasks(tasks, resolver, request, cache)
        for outcome in hits:
            run.add(outcome, cached=True)
            if progress is not None:
                progress.advance()
        if hits and tasks:
            freeze_survivors()  # kept to the end of the run: not scanned by the collections of the files checked
        if len(tasks) >= BUNDLE_FILES:
            cache.bundle_writes()  # one file of new entries per process, not one per file (`axag.batch.cache.bundle`)
    if jobs > 1 and len(tasks) >= 2 * jobs:
        from axag.batch.workers import biggest_first, file_sizes, map_files

        sizes = file_sizes([t[0] for t in tasks])
        order = biggest_first(sizes)
        for outcome in map_files([tasks[i] for i in order], resolver, request, jobs, cache):
            run.add(outcome)
            if progress is not None:
                progress.advance()
        slots = slots[:len(slots) - len(tasks)] + [slots[len(slots) - len(tasks) + i] for i in order]
        if cache is not None:
            cache.wrote = True  # by the workers
    else:
        for task in tasks:
            outcome = check_task(task, resolver.resolve(task[0]), request, cache)
            run.add(outcome)
            file_done(outcome.size)
            if progress is not None:
                progress.advance()
        if len(tasks) > 1:
            release_memory()  # before the run's outputs are built
    # back in the order of the files (the outcomes themselves do not depend on the order they were made in)
    if slots != sorted(slots):
        run.outcomes[first:] = [o for _, o in sorted(zip(slots, run.outcomes[first:], strict=False), key=lambda t: t[0])]
    return run


def lint_report(run: Run, rules: Iterable[Any], version: str) -> RunReport:
    return RunReport(
        findings=run.findings(),
        suppressed=run.suppressed(),
        rules=sorted(rules, key=lambda r: r.code),
        files=run.files,
        elements=sum(o.elements for o in run.outcomes),
        actions=sum(o.actions for o in run.outcomes),
        paths=sorted({o.repo_path for o in run.outcomes}),
        tool_version=version,
    )


# ---------------------------------------------------------------------- convenience entry points
def lint_text(html: str | bytes, path: str = "page.html", *, select: str | None = None,
              harvest: bool = True) -> list[Finding]:
    """Lint one document given as text (no configuration files are read). Returns its findings."""
    from axag.config.settings import Settings

    cwd = Path.cwd()
    data = html.encode("utf-8") if isinstance(html, str) else html
    request = Request(mode="lint", cli_select=select, harvest=harvest)
    outcome = check_file(cwd / path, path, path, Settings(base=cwd), request, data=data)
    return outcome.findings


def lint_paths(paths: Sequence[str | os.PathLike[str]], *, select: str | None = None, isolated: bool = True,
               jobs: int = 1) -> list[Finding]:
    """Lint files and folders as `axag lint` does (configuration honoured unless ``isolated``)."""
    from axag.config.resolve import Resolver
    from axag.files.discover import discover
    from axag.lint.sitewide import sitewide_findings

    cwd = Path.cwd()
    resolver = Resolver(cwd, isolated=isolated)
    request = Request(mode="lint", cli_select=select, want_contracts=True)
    files = discover([os.fspath(p) for p in paths], resolver, cwd=cwd)
    run = check_files(list(files), resolver, request, cwd=cwd, jobs=jobs)
    run.run_findings.extend(sitewide_findings(run, request))
    return run.findings()


def compile_paths(paths: Sequence[str | os.PathLike[str]], *, target: str = "mcp", root: str | None = None,
                  isolated: bool = True) -> tuple[dict[str, Any], list[Finding]]:
    """Compile files and folders; returns (document, findings). The document is returned even when
    findings include errors (the CLI refuses to write it then)."""
    from axag import __version__
    from axag.compile.merge import merge_contracts
    from axag.compile.targets import render
    from axag.config.resolve import Resolver
    from axag.files.discover import discover

    cwd = Path.cwd()
    resolver = Resolver(cwd, isolated=isolated)
    request = Request(mode="compile", want_contracts=True, compile_root=Path(root) if root else cwd)
    files = discover([os.fspath(p) for p in paths], resolver, cwd=cwd)
    run = check_files(list(files), resolver, request, cwd=cwd)
    found, tools = merge_contracts(run, request)
    run.run_findings.extend(found)
    return render(target, tools, __version__).doc, run.findings()


def render_guards(tools_doc: dict[str, Any], lang: str = "python") -> dict[str, str]:
    """The generated guard files (relative path -> text) for a tools document."""
    from axag.guards.render import render_guards as _render

    return dict(_render(tools_doc, lang, None).files)


def context_block(tools_doc: dict[str, Any], tools: Sequence[str] | None = None) -> str:
    """The constraint-context block of the constraint context block."""
    from axag.guards.context import block

    return block(tools_doc, list(tools) if tools else None)
