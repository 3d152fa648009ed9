"""The server's view of one workspace folder: its configuration (closest config per file, per-file ignores,
baseline, manifest and enforced intents, as `axag lint` run in the folder reads them), the lint of an open
document's text, and what the run-wide checks (121, 122) need of every other file within the configured paths
and excludes, read in the background after start. No protocol types here."""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axag.lint.engine import FileOutcome, Request
from axag.outcome.findings import Finding

# `axag-intent="…"` and the `intent: "…"` of spec objects; a literal first, which the regex engine scans for fast
_INTENT_VALUE = re.compile(r"""intent(?:\s*=\s*\{?\s*|\s*:\s*)["']([a-z][a-z0-9_]*\.[a-z][a-z0-9_]*)["']""")


@dataclass
class DocumentLint:
    """The lint of one document: the findings to show, and the outcome they come from."""

    outcome: FileOutcome
    findings: list[Finding]
    run_wide: list[Finding] = field(default_factory=list)


@dataclass
class _Others:
    """What `sitewide_findings` reads of a run (`engine.RunOutcomes`), with the index of its contracts (as
    `api.Run` keeps it: lint's, whose contracts are not compressed)."""

    outcomes: list[FileOutcome]
    run_findings: list[Finding] = field(default_factory=list)
    contracts: Any = None

    def __post_init__(self) -> None:
        from axag.compile.merge import ContractIndex

        self.contracts = ContractIndex(fragments=False)
        for outcome in self.outcomes:
            self.contracts.add(copy.copy(outcome), squeeze=False)  # the index empties what it reads: copies


class Workspace:
    """One workspace folder. Thread-safe: the background scan and the server's lints share ``_files``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._files: dict[Path, FileOutcome] = {}  # the run-wide part of every file: contracts, display, ran
        self._intents: dict[Path, set[str]] = {}
        self._findings: dict[Path, list[Finding]] = {}  # of every file read (for `workspace/diagnostic`)
        self._open: dict[Path, FileOutcome] = {}
        self._generation = 0
        self.scanned = threading.Event()
        self.config_error: str | None = None
        self.reload()

    # ------------------------------------------------------------------------------------------ configuration
    def reload(self) -> None:
        """(Re)read the configuration; the next `scan` reads the files again."""
        from axag.config.resolve import Resolver
        from axag.outcome.errors import AxagError

        with self._lock:
            self._generation += 1
            self._files.clear()
            self._intents.clear()
            self._findings.clear()
            self.scanned.clear()
        self.config_error = None
        self.baseline: set[Any] | None = None
        try:
            self.resolver = Resolver(self.root)
            settings = self.resolver.run_settings()
            self.request = Request(mode="lint", want_contracts=True, keep_text=True,
                                   compile_root=Path(settings.compile_root or self.root),
                                   manifest=None, enforced_intents=None)
            self._options(settings)
        except AxagError as exc:
            self.config_error = str(exc)
            self.resolver = Resolver(self.root, isolated=True)
            self.request = Request(mode="lint", want_contracts=True, keep_text=True, compile_root=self.root)

    def _options(self, settings: Any) -> None:
        """The files the configuration names (manifest, enforced intents, baseline), read as `axag lint` reads
        them; a file that cannot be read is a configuration error (shown once), the rest still applies."""
        from axag.files.read_json import read_json
        from axag.outcome.errors import AxagError

        problems = []
        if settings.manifest is not None:
            try:
                data = read_json(str(settings.manifest), "manifest")
                if isinstance(data, dict):
                    self.request.manifest, self.request.manifest_name = data, str(settings.manifest)
            except AxagError as exc:
                problems.append(str(exc))
        if settings.enforced_intents is not None:
            try:
                data = read_json(str(settings.enforced_intents), "enforced intents")
                if isinstance(data, dict):
                    data = data.get("intents")
                if isinstance(data, list) and all(isinstance(x, str) for x in data):
                    self.request.enforced_intents = frozenset(data)
            except AxagError as exc:
                problems.append(str(exc))
        if settings.baseline is not None:
            from axag.lint import baseline

            try:
                self.baseline = baseline.load(settings.baseline)
            except AxagError as exc:
                problems.append(str(exc))
        if problems:
            self.config_error = "; ".join(problems)

    def is_config(self, path: Path) -> bool:
        from axag.config.toml import CONFIG_NAMES

        return path.name in CONFIG_NAMES

    # ------------------------------------------------------------------------------------------ the files
    def scan(self) -> None:
        """Read every file of the workspace (within the configured paths and excludes) for the run-wide checks
        and the intents it uses; documents open in the editor count with their text instead."""
        from axag.files.discover import discover

        generation = self._generation
        try:
            files: Iterable[Path] = discover([str(self.root)], self.resolver, cwd=self.root)
        except Exception:  # noqa: BLE001 - a workspace that cannot be listed still lints its open documents
            files = []
        repo_cache: dict[Path, Path] = {}
        from axag.batch.memory import bulk_gc, file_done

        with bulk_gc():  # garbage collection paced by files, as in a run of `axag lint`
            for path in files:
                if generation != self._generation:
                    return  # the configuration changed: a new scan runs
                file_done(self._read(Path(path).absolute(), generation, repo_cache))
        if generation == self._generation:
            self.scanned.set()

    def file_changed(self, path: Path) -> None:
        """A file changed on disk (or was created or deleted): read it again unless it is open."""
        from axag.files.source import is_read

        if is_read(path):
            self._read(path, self._generation, {})

    def _read(self, path: Path, generation: int, repo_cache: dict[Path, Path]) -> int:
        """Check a file of the workspace as it is on disk (unless it is open); one that is gone is forgotten.
        Returns the size read."""
        from axag.api import check_document
        from axag.files.read_whole import read_regular

        with self._lock:
            if path in self._open:
                return 0
        try:
            data = read_regular(path)
        except OSError:
            data = None
        if data is None:
            with self._lock:
                self._files.pop(path, None)
                self._intents.pop(path, None)
                self._findings.pop(path, None)
            return 0
        outcome = check_document(path, data, self.resolver, self.request, cwd=self.root, repo_cache=repo_cache)
        self._keep(path, outcome, generation)
        return len(data)

    def _keep(self, path: Path, outcome: FileOutcome, generation: int) -> None:
        text = outcome.text or ""
        intents = set(_INTENT_VALUE.findall(text))
        findings = outcome.findings
        outcome.findings, outcome.suppressed, outcome.text = [], [], None
        outcome.contracts = _packed(outcome.contracts)
        with self._lock:
            if generation == self._generation:
                self._files[path] = outcome
                self._intents[path] = intents
                self._findings[path] = findings

    def intents(self) -> list[str]:
        with self._lock:
            return sorted(set().union(*self._intents.values())) if self._intents else []

    # ------------------------------------------------------------------------------------------ linting
    def lint(self, path: Path, text: str) -> DocumentLint:
        """Lint an open document's text as `axag lint` lints the file in this workspace. The garbage collector
        waits for the end of the lint, as in a run of `axag lint` (`memory.bulk_gc`): left on, it scanned the
        whole server (the previous lint's contracts, the workspace's outcomes, every module) once or more
        per lint of a page of a thousand forms."""
        from axag.api import check_document
        from axag.batch.memory import bulk_gc, file_done

        with bulk_gc():
            data = text.encode("utf-8", "surrogatepass")
            outcome = check_document(path, data, self.resolver, self.request, cwd=self.root)
            findings = list(outcome.findings)
            run_wide = self.run_wide(path, outcome)
            kept = copy.copy(outcome)
            kept.contracts = _packed(outcome.contracts)
            with self._lock:
                self._open[path] = kept
                self._intents[path] = set(_INTENT_VALUE.findall(text))
            shown = self._baseline(sorted(findings + run_wide, key=Finding.sort_key))
            file_done(len(data))
        return DocumentLint(outcome, shown, run_wide)

    def closed_reports(self) -> list[tuple[Path, str, list[Finding]]]:
        """Every file of the workspace that is not open in the editor, as `axag lint` run in the folder reports
        it (its findings, the run-wide ones located in it, the baseline applied), with its text as on disk (for
        the positions), in path order: what `workspace/diagnostic` reports beside the open documents."""
        from axag.files.read_whole import read_regular
        from axag.files.source import load
        from axag.lint.sitewide import sitewide_findings

        with self._lock:
            files, opened, found = dict(self._files), dict(self._open), dict(self._findings)
        every = {**files, **opened}
        run_wide: dict[str, list[Finding]] = {}
        if len(every) > 1:
            for f in sitewide_findings(_Others(list(every.values())), self.request):
                run_wide.setdefault(f.path, []).append(f)
        out = []
        for path in sorted(files):
            if path in opened:
                continue
            try:
                data = read_regular(path)
            except OSError:
                data = None
            src = load(path, data) if data is not None else "gone"
            text = "" if isinstance(src, str) else src.text
            shown = sorted(found.get(path, []) + _tag_spans(run_wide.get(files[path].display, []), text),
                           key=Finding.sort_key)
            out.append((path, text, self._baseline(shown)))
        return out

    def _baseline(self, findings: list[Finding]) -> list[Finding]:
        if self.baseline is None:
            return findings
        from axag.lint import baseline

        return baseline.apply(findings, self.baseline)[0]

    def close(self, path: Path) -> None:
        with self._lock:
            self._open.pop(path, None)
        self.file_changed(path)

    def run_wide(self, path: Path, outcome: FileOutcome) -> list[Finding]:
        """The run-wide findings (121, 122) located in the document, with every other file as it is (open
        documents with their text)."""
        from axag.lint.sitewide import sitewide_findings

        if not outcome.contracts:
            return []
        with self._lock:
            others = {**self._files, **self._open}
        others[path] = outcome
        if len(others) == 1:
            return []
        found = sitewide_findings(_Others(list(others.values())), self.request)
        return _tag_spans([f for f in found if f.path == outcome.display], outcome.text or "")


_TAG_NAME = re.compile(r"[^\s/>]+")


def _tag_spans(findings: list[Finding], text: str) -> list[Finding]:
    """121/122 underline the tag name of the later declaration (`compile.merge.declaration_spans`, which reads
    the file from disk): here from the document's text, which the editor may not have saved."""
    from dataclasses import replace

    from axag.files.spans import LineIndex, context_rows

    lines = LineIndex(text)
    out = []
    for f in findings:
        m = _TAG_NAME.match(lines.line_text(f.line), f.column - 1) if 1 <= f.line <= lines.line_count() else None
        out.append(f if m is None else replace(f, end_line=f.line, end_column=m.end() + 1,
                                               context=context_rows(lines, f.line, f.line)))
    return out


def _packed(contracts: list[tuple[Any, bool]]) -> list[tuple[Any, bool]]:
    """Contracts as the merge keeps them (packed once, not at each keystroke's run-wide check)."""
    from axag.compile.merge import PackedContract

    return [(c if isinstance(c, PackedContract) else PackedContract.pack(c, fragment=False), e)
            for c, e in contracts]
