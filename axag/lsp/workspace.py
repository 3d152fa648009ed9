"""The server's view of one workspace folder: its configuration (closest config per file, per-file ignores,
baseline, manifest and enforced intents, as `axag lint` run in the folder reads them), the lint of an open
document's text, and what the run-wide checks (121, 122) need of every other file within the configured paths
and excludes, read in the background after start. No protocol types here."""

from __future__ import annotations

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
    """The lint of one document: the findings to show, and the outcome they come from. ``others``: the open
    documents whose run-wide findings this lint may have changed (they share an intent or a tool name with the
    document's text before or after; `Workspace.run_wide_again`)."""

    outcome: FileOutcome
    findings: list[Finding]
    run_wide: list[Finding] = field(default_factory=list)
    others: list[Path] = field(default_factory=list)


Declared = frozenset[tuple[str, str]]  # (intent, tool name with "-" as "_") of a file's actions


@dataclass
class _Open:
    """An open document as last linted: its text and lint; ``covered``: the declarations whose contracts were
    built (those another file shares, or that it makes twice: ``twice``; `_Gate`)."""

    text: str
    lint: DocumentLint
    covered: Declared
    twice: Declared


@dataclass
class _Others:
    """What `sitewide_findings` reads of a run (`engine.RunOutcomes`): the outcomes (for the rules each file
    ran), and the index of the contracts to merge (as `api.Run` keeps it)."""

    outcomes: list[FileOutcome]
    contracts: Any
    run_findings: list[Finding] = field(default_factory=list)


class _Part:
    """Some of a file's contracts, as `ContractIndex.add` reads an outcome (it empties ``contracts``)."""

    __slots__ = ("contracts", "display", "repo_path")

    def __init__(self, outcome: FileOutcome, contracts: list[tuple[Any, bool]]) -> None:
        self.display, self.repo_path, self.contracts = outcome.display, outcome.repo_path, contracts


def _declared(pairs: Iterable[tuple[str, str]]) -> Declared:
    """As the merge compares them: tool names collide with "-" and "_" alike (`merge.merge_index`)."""
    return frozenset((intent, name.replace("-", "_")) for intent, name in pairs)


def _read_declared(outcome: FileOutcome) -> Declared:
    """What a file as read declares: its kept contracts' (`Workspace._keep`: packed, without errors)."""
    return _declared((c.intent, c.name) for c, _ in outcome.contracts)


def _contract_intent(contract: Any) -> str:
    """The intent of a contract, packed (`merge.PackedContract`) or not (`contract.ToolContract`)."""
    from axag.compile.merge import PackedContract

    return contract.intent if isinstance(contract, PackedContract) else str(contract.meta["intent"])


class _Gate:
    """`Request.contracts_for` of an open document: notes what the document declares, and has the contracts built
    of the declarations the run-wide checks can find something with: those whose intent or tool name another file
    declares too, or the document twice. Of any other, the intent has one contract and the tool name one tool,
    and no other file's groups contain either: no finding, in the document or elsewhere."""

    def __init__(self, ws: Workspace, path: Path) -> None:
        self.ws, self.path = ws, path
        # a file without actions (or not read) has all of its (no) contracts
        self.declared: Declared = frozenset()
        self.covered: Declared = frozenset()
        self.twice: Declared = frozenset()

    def __call__(self, pairs: list[tuple[str, str]]) -> frozenset[tuple[str, str]]:
        from collections import Counter

        self.declared = _declared(pairs)
        intents = Counter(i for i, _ in pairs)
        names = Counter(n.replace("-", "_") for _, n in pairs)
        self.twice = frozenset((i, n) for i, n in self.declared if intents[i] > 1 or names[n] > 1)
        with self.ws._lock:
            self.covered = self.ws._relevant(self.path, self.declared, self.twice)
        return frozenset((i, n) for i, n in pairs if (i, n.replace("-", "_")) in self.covered)


class Workspace:
    """One workspace folder. Thread-safe: the background scan and the server's lints share ``_files``.

    The run-wide checks (duplicate intents 121, tool-name collisions 122) of a document compare only the
    contracts of the intents it shares with other files (or declares twice) and of the intents whose tool names
    it shares: an index of what every file declares (``_by_intent``, ``_by_name``) finds those files, and only
    their contracts of those intents are merged at each keystroke. Of an open document, only the contracts of
    such declarations are built (`_Gate`); the others when another document comes to share them
    (`_contracts`)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._files: dict[Path, FileOutcome] = {}  # the run-wide part of every file: contracts, display, ran
        self._intents: dict[Path, set[str]] = {}
        self._findings: dict[Path, list[Finding]] = {}  # of every file read (for `workspace/diagnostic`)
        self._open: dict[Path, _Open] = {}
        self._declared: dict[Path, Declared] = {}  # of every file: an open document's text, else the file's
        self._by_intent: dict[str, set[Path]] = {}  # intent -> the files declaring it
        self._by_name: dict[str, dict[Path, set[str]]] = {}  # tool name -> file -> the intents it names so
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
            self._intents = {p: self._intents[p] for p in self._open if p in self._intents}
            self._findings.clear()
            for path in list(self._declared):
                if path not in self._open:
                    self._set_declared(path, frozenset())
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

    def file_changed(self, path: Path) -> list[Path]:
        """A file changed on disk (or was created or deleted): read it again unless it is open, or forget it when
        `axag lint` in the folder would not read it (the configured excludes, .gitignore). Returns the open
        documents whose run-wide findings this may have changed (`run_wide_again`; their other findings depend
        on their text and the configuration only)."""
        from axag.files.source import is_read

        if not is_read(path):
            return []
        with self._lock:
            if path in self._open:
                return []
            before = self._declared.get(path, frozenset())
        if self._discovered(path):
            self._read(path, self._generation, {})
        else:
            self._forget(path)
        with self._lock:
            after = self._declared.get(path, frozenset())
        return self._affected(path, before | after)

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
            self._forget(path)
            return 0
        outcome = check_document(path, data, self.resolver, self.request, cwd=self.root, repo_cache=repo_cache)
        self._keep(path, outcome, generation)
        return len(data)

    def _forget(self, path: Path) -> None:
        with self._lock:
            self._files.pop(path, None)
            self._intents.pop(path, None)
            self._findings.pop(path, None)
            if path not in self._open:
                self._set_declared(path, frozenset())

    def _discovered(self, path: Path) -> bool:
        """Whether the scan would read ``path`` (an existing file; one that is gone is read, and forgotten)."""
        from axag.files.discover import discover

        if not path.exists():
            return True
        try:
            return path in discover([str(path)], self.resolver, cwd=self.root, force_exclude=True)
        except Exception:  # noqa: BLE001 - as the scan: a file that cannot be placed is read
            return True

    def _keep(self, path: Path, outcome: FileOutcome, generation: int) -> None:
        text = outcome.text or ""
        intents = set(_INTENT_VALUE.findall(text))
        findings = outcome.findings
        outcome.findings, outcome.suppressed, outcome.text = [], [], None
        # the contracts the merge takes part in (those of actions with errors take none), packed once
        outcome.contracts = _packed([(c, e) for c, e in outcome.contracts if not e])
        declared = _read_declared(outcome)
        with self._lock:
            if generation == self._generation:
                self._files[path] = outcome
                self._findings[path] = findings
                if path not in self._open:
                    self._intents[path] = intents
                    self._set_declared(path, declared)

    def _set_declared(self, path: Path, declared: Declared) -> None:
        """What ``path`` declares now (the lock held): the index follows (what changed only)."""
        old = self._declared.pop(path, frozenset())
        if declared:
            self._declared[path] = declared
        gone = old - declared
        kept_intents = {i for i, _ in declared} if gone else set()
        for intent, name in gone:
            paths = self._by_intent.get(intent)
            if paths is not None and intent not in kept_intents:
                paths.discard(path)
                if not paths:
                    del self._by_intent[intent]
            named = self._by_name.get(name)
            intents = named.get(path) if named is not None else None
            if named is not None and intents is not None:
                intents.discard(intent)
                if not intents:
                    del named[path]
                    if not named:
                        del self._by_name[name]
        for intent, name in declared - old:
            self._by_intent.setdefault(intent, set()).add(path)
            self._by_name.setdefault(name, {}).setdefault(path, set()).add(intent)

    def _relevant(self, path: Path, declared: Declared, twice: Declared) -> Declared:
        """The declarations of ``declared`` whose intent or tool name a file other than ``path`` declares too, or
        that ``path`` makes twice (``twice``): the only ones the run-wide checks can find something with (the
        lock held)."""
        out = set()
        for pair in declared:
            paths = self._by_intent.get(pair[0])
            named = self._by_name.get(pair[1])
            if pair in twice or (paths and (len(paths) > 1 or path not in paths)) or \
                    (named and (len(named) > 1 or path not in named)):
                out.add(pair)
        return frozenset(out)

    def _related(self, declared: Declared) -> tuple[set[str], set[Path]]:
        """The intents whose contracts decide the run-wide findings of a file declaring ``declared`` (its own
        intents, and those of every other declaration of one of its tool names: whether such an intent merges
        into one tool decides a collision), and the files declaring any of them (the lock held)."""
        intents = {i for i, _ in declared}
        for _, name in declared:
            for named in self._by_name.get(name, {}).values():
                intents |= named
        files: set[Path] = set()
        for intent in intents:
            files |= self._by_intent.get(intent, set())
        return intents, files

    def open_paths(self) -> list[Path]:
        with self._lock:
            return sorted(self._open)

    def intents(self) -> list[str]:
        with self._lock:
            return sorted(set().union(*self._intents.values())) if self._intents else []

    # ------------------------------------------------------------------------------------------ linting
    def lint(self, path: Path, text: str) -> DocumentLint:
        """Lint an open document's text as `axag lint` lints the file in this workspace. The garbage collector
        waits for the end of the lint, as in a run of `axag lint` (`memory.bulk_gc`): left on, it scanned the
        whole server (the previous lint's contracts, the workspace's outcomes, every module) once or more
        per lint of a page of a thousand forms."""
        from dataclasses import replace

        from axag.api import check_document
        from axag.batch.memory import bulk_gc, file_done

        with bulk_gc():
            data = text.encode("utf-8", "surrogatepass")
            gate = _Gate(self, path)
            outcome = check_document(path, data, self.resolver, replace(self.request, contracts_for=gate),
                                     cwd=self.root)
            # a lint that failed (199) has no contracts: nothing to compare
            declared = frozenset() if outcome.internal_error else gate.declared
            covered = frozenset() if outcome.internal_error else gate.covered
            findings = list(outcome.findings)
            lint = DocumentLint(outcome, findings)
            with self._lock:
                before = self._declared.get(path, frozenset())
                self._open[path] = _Open(text, lint, covered, gate.twice)
                self._intents[path] = set(_INTENT_VALUE.findall(text))
                self._set_declared(path, declared)
            lint.run_wide = self._run_wide(path, covered) if covered else []
            lint.findings = self._baseline(sorted(findings + lint.run_wide, key=Finding.sort_key))
            lint.others = self._affected(path, before | declared)
            file_done(len(data))
        return lint

    def _contracts(self, path: Path, needed: Declared) -> list[tuple[Any, bool]]:
        """The contracts of a file: of the file as read, or an open document's (all built now when its lint left
        some of ``needed`` unbuilt)."""
        from axag.api import check_document

        doc = self._open.get(path)
        if doc is None:
            kept = self._files.get(path)
            return kept.contracts if kept is not None else []
        if not needed <= doc.covered:
            data = doc.text.encode("utf-8", "surrogatepass")
            doc.lint.outcome.contracts = check_document(path, data, self.resolver, self.request,
                                                        cwd=self.root).contracts
            doc.covered = self._declared.get(path, frozenset())
        return doc.lint.outcome.contracts

    def _outcome(self, path: Path) -> FileOutcome | None:
        doc = self._open.get(path)
        return doc.lint.outcome if doc is not None else self._files.get(path)

    def _run_wide(self, path: Path, relevant: Declared | None = None) -> list[Finding]:
        """The run-wide findings (121, 122) located in an open document, with every other file as it is (open
        documents with their text): the merge of the contracts of its related intents (`_related`), which
        decide them exactly as the merge of the whole workspace does. ``relevant``: its declarations a finding
        can come from (`_relevant`), when known."""
        from axag.compile.merge import ContractIndex
        from axag.lint.sitewide import sitewide_findings

        doc = self._open[path]
        with self._lock:
            if relevant is None:
                relevant = self._relevant(path, self._declared.get(path, frozenset()), doc.twice)
            intents, files = self._related(relevant)
            needs = {f: frozenset(p for p in self._declared.get(f, ()) if p[0] in intents) for f in files}
        if not relevant:
            return []
        needs[path] = relevant
        index = ContractIndex(fragments=False)
        for other, needed in needs.items():  # in any order: the merge orders sources itself
            outcome = self._outcome(other)
            if outcome is None:
                continue
            parts: list[tuple[Any, bool]] = [(c, e) for c, e in self._contracts(other, needed)
                                             if not e and _contract_intent(c) in intents]
            if parts:
                index.add(_Part(outcome, parts), squeeze=False)
        if not index.by_intent:
            return []
        outcome = doc.lint.outcome
        found = sitewide_findings(_Others([outcome], index), self.request)
        return _tag_spans([f for f in found if f.path == outcome.display], doc.text)

    def _affected(self, path: Path, declared: Declared) -> list[Path]:
        """The open documents other than ``path`` whose run-wide findings depend on contracts of an intent or a
        tool name of ``declared`` (what ``path`` declared before its edit and after)."""
        intents = {i for i, _ in declared}
        names = {n for _, n in declared}
        out = []
        with self._lock:
            for other in sorted(self._open):
                if other == path:
                    continue
                mine = self._declared.get(other, frozenset())
                related, _files = self._related(mine)
                if intents & related or any(n in names for _, n in mine):
                    out.append(other)
        return out

    def run_wide_again(self, path: Path) -> tuple[str, DocumentLint] | None:
        """An open document's lint with its run-wide findings made again (after another document's edit): its
        text and the new lint, or None when they did not change (or it is not open)."""
        doc = self._open.get(path)
        if doc is None:
            return None
        lint = doc.lint
        run_wide = self._run_wide(path)
        if run_wide == lint.run_wide:
            return None
        new = DocumentLint(lint.outcome, self._baseline(sorted(lint.outcome.findings + run_wide,
                                                                key=Finding.sort_key)), run_wide)
        doc.lint = new
        return doc.text, new

    def closed_reports(self) -> list[tuple[Path, str, list[Finding]]]:
        """Every file of the workspace that is not open in the editor, as `axag lint` run in the folder reports
        it (its findings, the run-wide ones located in it, the baseline applied), with its text as on disk (for
        the positions), in path order: what `workspace/diagnostic` reports beside the open documents."""
        from axag.compile.merge import ContractIndex
        from axag.files.read_whole import read_regular
        from axag.files.source import load
        from axag.lint.sitewide import sitewide_findings

        with self._lock:
            files, found = dict(self._files), dict(self._findings)
            opened = {p: doc.lint.outcome for p, doc in self._open.items()}
        every = {**files, **opened}
        index = ContractIndex(fragments=False)
        for path in sorted(every):
            doc = self._open.get(path)
            with self._lock:  # of an open document, the contracts a finding can come from (`_Gate`)
                needed = frozenset() if doc is None else \
                    self._relevant(path, self._declared.get(path, frozenset()), doc.twice)
            parts: list[tuple[Any, bool]] = [(c, e) for c, e in self._contracts(path, needed) if not e]
            if parts:
                index.add(_Part(every[path], parts), squeeze=False)
        run_wide: dict[str, list[Finding]] = {}
        for f in sitewide_findings(_Others(list(every.values()), index), self.request):
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

    def close(self, path: Path) -> list[Path]:
        """The document counts as the file on disk again. Returns the open documents whose run-wide findings
        this may have changed (`run_wide_again`)."""
        with self._lock:
            self._open.pop(path, None)
            before = self._declared.get(path, frozenset())
            kept = self._files.get(path)
            self._set_declared(path, frozenset() if kept is None else _read_declared(kept))
        self.file_changed(path)
        with self._lock:
            after = self._declared.get(path, frozenset())
        return self._affected(path, before | after)


_TAG_NAME = re.compile(r"[^\s/>]+")


def _tag_spans(findings: list[Finding], text: str) -> list[Finding]:
    """121/122 underline the tag name of the later declaration (`compile.merge.declaration_spans`, which reads
    the file from disk): here from the document's text, which the editor may not have saved."""
    from dataclasses import replace

    from axag.files.spans import LineIndex, context_rows

    if not findings:
        return findings
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
