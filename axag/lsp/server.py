"""The language server (pygls 2, lsprotocol): documents in, diagnostics, code actions, completion and hover out.

Diagnostics are pulled (``textDocument/diagnostic``) when the client supports pull diagnostics, else pushed
(``textDocument/publishDiagnostics``) after open and after each change, debounced; never both. Every lint runs
on one worker thread, in order: the background read of the workspace (for the run-wide checks) goes file by
file, so an edit waits for one file at most.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from axag import __version__
from axag.lsp import features
from axag.lsp.positions import Positions
from axag.lsp.workspace import DocumentLint, Workspace
from axag.outcome.findings import Finding, Severity

log = logging.getLogger("axag.lsp")
R = TypeVar("R")

FIX_ALL = "source.fixAll.axag"
DEBOUNCE_S = 0.02  # after a change: the lint of the last of a burst of keystrokes only
_SEVERITY = {Severity.ERROR: T.DiagnosticSeverity.Error, Severity.WARNING: T.DiagnosticSeverity.Warning,
             Severity.INFO: T.DiagnosticSeverity.Information}
_LANGUAGES_JSX = frozenset({".jsx", ".tsx", ".js", ".ts", ".mjs", ".mts", ".cjs", ".cts"})
_NO_SUPPRESSION = frozenset({191, 192, 199})


class AxagServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("axag", __version__, text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
        self.folders: dict[Path, Workspace] = {}
        self.loose: dict[Path, Workspace] = {}  # documents outside every folder: their own folder, not scanned
        self.lints: dict[str, tuple[int | None, str, DocumentLint]] = {}  # uri -> (version, text, lint)
        self.uris: dict[Path, str] = {}  # the uri of each document linted, by path
        self.following: set[asyncio.Task[None]] = set()  # `follow`
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.scans: dict[Workspace, asyncio.Task[None]] = {}  # the background read of each folder, last started
        self.debounce = DEBOUNCE_S
        self.pull = False
        self.unsafe_fixes = False  # initializationOptions.unsafeFixes: source.fixAll.axag applies unsafe fixes too
        self.worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="axag-lint")
        self.shown_errors: set[str] = set()

    # ------------------------------------------------------------------------------------------ helpers
    async def run(self, fn: Callable[..., R], *args: Any) -> R:
        return await asyncio.get_running_loop().run_in_executor(self.worker, fn, *args)

    @property
    def encoding(self) -> str:
        enc = self.workspace.position_encoding
        return str(enc.value if isinstance(enc, T.PositionEncodingKind) else enc or "utf-16")

    def workspace_of(self, path: Path) -> Workspace:
        best: Path | None = None
        for root in self.folders:
            if (path == root or root in path.parents) and (best is None or len(root.parts) > len(best.parts)):
                best = root
        if best is not None:
            return self.folders[best]
        parent = path.parent
        ws = self.loose.get(parent)
        if ws is None:
            ws = self.loose[parent] = Workspace(parent)
            self.report_config(ws)
        return ws

    def report_config(self, ws: Workspace) -> None:
        if ws.config_error and ws.config_error not in self.shown_errors:
            self.shown_errors.add(ws.config_error)
            self.window_show_message(T.ShowMessageParams(T.MessageType.Error,
                                                         f"axag: configuration: {ws.config_error}"))

    async def lint_now(self, uri: str) -> tuple[DocumentLint, str]:
        """The lint of the document's current text (kept until the text changes), made on the worker."""
        if self.following:  # another document's edit may change this one's run-wide findings: those first
            await asyncio.gather(*self.following, return_exceptions=True)
        doc = self.workspace.get_text_document(uri)
        text, version = doc.source, doc.version
        kept = self.lints.get(uri)
        if kept is not None and kept[0] == version and kept[1] == text:
            return kept[2], text
        path = Path(to_fs_path(uri) or uri)
        ws = self.workspace_of(path)
        result = await self.run(ws.lint, path, text)
        self.lints[uri] = (version, text, result)
        self.uris[path] = uri
        if result.others:  # after this document's diagnostics: the caller sends them before its next await
            self.follow(self.run_wide_again(ws, result.others))
        return result, text

    def follow(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` (run-wide findings of other documents made again) after the current handler; a lint
        asked for meanwhile waits for it."""
        task = asyncio.get_running_loop().create_task(work)
        self.following.add(task)
        task.add_done_callback(self.following.discard)

    async def run_wide_again(self, ws: Workspace, paths: list[Path], refresh: bool = False) -> None:
        """The run-wide findings of open documents after a change of contracts they are compared with (an edit
        of another document, a file changed on disk, the end of the background read): those that changed are
        published again (pushed), or the client is asked to pull again (also whenever ``refresh``: the files
        that are not open changed)."""
        for path in paths:
            got = await self.run(ws.run_wide_again, path)
            uri = self.uris.get(path)
            doc = self.workspace.text_documents.get(uri) if got is not None and uri is not None else None
            if got is None or uri is None or doc is None or doc.source != got[0]:
                continue  # unchanged, closed, or changed since (its own lint follows)
            self.lints[uri] = (doc.version, got[0], got[1])
            if self.pull:
                refresh = True
            else:
                self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
                    uri, self.diagnostics(got[1], got[0]), version=doc.version))
        caps = self.client_capabilities.workspace
        if self.pull and refresh and caps is not None and caps.diagnostics is not None and \
                caps.diagnostics.refresh_support:
            self.workspace_diagnostic_refresh(None)

    def diagnostics(self, lint: DocumentLint, text: str) -> list[T.Diagnostic]:
        pos = Positions(lint.outcome.text if lint.outcome.text is not None else text, self.encoding)
        return [diagnostic(f, pos) for f in lint.findings]

    async def publish(self, uri: str) -> None:
        if self.pull:
            return
        doc = self.workspace.get_text_document(uri)
        version = doc.version
        lint, text = await self.lint_now(uri)
        if self.workspace.text_documents.get(uri) is None or self.workspace.get_text_document(uri).version != version:
            return  # closed or changed meanwhile: the newer text publishes its own
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri, self.diagnostics(lint, text),
                                                                          version=version))

    def schedule(self, uri: str, delay: float) -> None:
        old = self.pending.pop(uri, None)
        if old is not None:
            old.cancel()

        async def later() -> None:
            if delay:
                await asyncio.sleep(delay)
            try:
                await self.publish(uri)
            finally:
                if self.pending.get(uri) is task:
                    del self.pending[uri]

        task = asyncio.get_running_loop().create_task(later())
        self.pending[uri] = task

    def relint_open(self, workspaces: set[Workspace] | None = None) -> None:
        """Lint every open document again (of ``workspaces``, else all): after a configuration change."""
        for uri in list(self.workspace.text_documents):
            path = Path(to_fs_path(uri) or uri)
            if workspaces is not None and self.workspace_of(path) not in workspaces:
                continue
            self.lints.pop(uri, None)
            if not self.pull:
                self.schedule(uri, 0)
        if self.pull:
            caps = self.client_capabilities.workspace
            if caps is not None and caps.diagnostics is not None and caps.diagnostics.refresh_support:
                self.workspace_diagnostic_refresh(None)

    def start_scan(self, ws: Workspace) -> None:
        self.scans[ws] = asyncio.get_running_loop().create_task(self.scan(ws))

    async def scan(self, ws: Workspace) -> None:
        await self.run(ws.scan)
        # every file counts now: the run-wide findings of the open documents (the rest depends on their text)
        self.follow(self.run_wide_again(ws, ws.open_paths(), refresh=True))


def diagnostic(f: Finding, pos: Positions) -> T.Diagnostic:
    from axag.report import rule_url

    sl, sc = pos.to_lsp(f.line, f.column)
    el, ec = pos.to_lsp(f.end_line, f.end_column)
    tags = [T.DiagnosticTag.Unnecessary] if f.code == 133 else None
    return T.Diagnostic(range=T.Range(T.Position(sl, sc), T.Position(el, ec)), message=f.message,
                        severity=_SEVERITY[f.severity], code=f.id,
                        code_description=T.CodeDescription(href=rule_url(f.code)), source="axag", tags=tags,
                        data={"fingerprint": f.fingerprint})


server = AxagServer()


# ---------------------------------------------------------------------------------------------- lifecycle
@server.feature(T.INITIALIZE)
def initialize(ls: AxagServer, params: T.InitializeParams) -> None:
    caps = params.capabilities.text_document
    ls.pull = caps is not None and caps.diagnostic is not None
    options = params.initialization_options
    if isinstance(options, dict) and isinstance(options.get("debounceMs"), (int, float)):
        ls.debounce = max(0.0, float(options["debounceMs"]) / 1000)
    if isinstance(options, dict) and isinstance(options.get("unsafeFixes"), bool):
        ls.unsafe_fixes = options["unsafeFixes"]
    roots: list[str] = []
    if params.workspace_folders:
        roots = [f.uri for f in params.workspace_folders]
    elif params.root_uri:
        roots = [params.root_uri]
    elif params.root_path:
        roots = [from_fs_path(params.root_path) or params.root_path]
    for uri in roots:
        path = to_fs_path(uri)
        if path:
            root = Path(os.path.abspath(path))
            ls.folders[root] = Workspace(root)


@server.feature(T.INITIALIZED)
async def initialized(ls: AxagServer, params: T.InitializedParams) -> None:
    for ws in ls.folders.values():  # first: a request arriving meanwhile waits for these reads
        ls.report_config(ws)
        ls.start_scan(ws)
    caps = ls.client_capabilities.workspace
    if caps is not None and caps.did_change_watched_files is not None and \
            caps.did_change_watched_files.dynamic_registration:
        from axag.config.toml import CONFIG_NAMES

        sources = "**/*.{html,htm,jinja,jinja2,j2,njk,hbs,liquid,vue,svelte,astro,jsx,tsx,js,ts,mjs,mts}"
        globs = [f"**/{n}" for n in CONFIG_NAMES] + [sources]
        watchers = [T.FileSystemWatcher(glob_pattern=g) for g in globs]
        try:
            await ls.client_register_capability_async(T.RegistrationParams([T.Registration(
                "axag-watched-files", T.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                T.DidChangeWatchedFilesRegistrationOptions(watchers))]))
        except Exception as exc:  # noqa: BLE001 - a client that refuses still gets every other feature
            log.info("watched-file registration refused: %s", exc)


@server.feature(T.SHUTDOWN)
def shutdown(ls: AxagServer, params: None) -> None:
    ls.worker.shutdown(wait=False, cancel_futures=True)


# ---------------------------------------------------------------------------------------------- documents
@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: AxagServer, params: T.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: AxagServer, params: T.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, ls.debounce)


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: AxagServer, params: T.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    task = ls.pending.pop(uri, None)
    if task is not None:
        task.cancel()
    ls.lints.pop(uri, None)
    path = Path(to_fs_path(uri) or uri)
    if not ls.pull:
        ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri, []))
    ws = ls.workspace_of(path)

    async def closed() -> None:  # the file on disk counts again: for the run-wide findings of the others too
        others = await ls.run(ws.close, path)
        if others:
            await ls.run_wide_again(ws, others)

    ls.follow(closed())


def result_id(diags: list[T.Diagnostic]) -> str:
    """A report's `resultId`: the same diagnostics give the same id (the client then gets "unchanged")."""
    import hashlib

    data = repr([(d.range, d.severity, d.code, d.message, d.tags, d.data) for d in diags])
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@server.feature(T.TEXT_DOCUMENT_DIAGNOSTIC,
                T.DiagnosticOptions(identifier="axag", inter_file_dependencies=True, workspace_diagnostics=True))
async def pull_diagnostics(ls: AxagServer, params: T.DocumentDiagnosticParams) -> T.DocumentDiagnosticReport:
    lint, text = await ls.lint_now(params.text_document.uri)
    diags = ls.diagnostics(lint, text)
    rid = result_id(diags)
    if params.previous_result_id == rid:
        return T.RelatedUnchangedDocumentDiagnosticReport(result_id=rid)
    return T.RelatedFullDocumentDiagnosticReport(items=diags, result_id=rid)


@server.feature(T.WORKSPACE_DIAGNOSTIC)
async def workspace_diagnostics(ls: AxagServer, params: T.WorkspaceDiagnosticParams) -> T.WorkspaceDiagnosticReport:
    """Every file of the workspace folders (within the configured paths and excludes): open documents with their
    text and version, the others as on disk, each as `axag lint` run in its folder reports it. A file reported
    before and gone now gets an empty report; one whose diagnostics did not change since the client's
    ``previousResultIds``, an "unchanged" report. Queued behind the background read of the workspace."""
    previous = {p.uri: p.value for p in params.previous_result_ids}
    reports: dict[str, tuple[int | None, list[T.Diagnostic]]] = {}
    for uri in list(ls.workspace.text_documents):
        version = ls.workspace.get_text_document(uri).version
        lint, text = await ls.lint_now(uri)
        reports[uri] = (version, ls.diagnostics(lint, text))
    for ws in list(ls.folders.values()):
        scan = ls.scans.get(ws)
        if scan is not None and not scan.done():
            await asyncio.shield(scan)  # the files are being read: report them all, once read
        for path, text, findings in await ls.run(ws.closed_reports):
            uri = from_fs_path(str(path)) or path.as_uri()
            if uri not in reports:
                pos = Positions(text, ls.encoding)
                reports[uri] = (None, [diagnostic(f, pos) for f in findings])
    for uri in previous:
        reports.setdefault(uri, (None, []))  # deleted or no longer linted: clear what the client shows
    items: list[T.WorkspaceDocumentDiagnosticReport] = []
    for uri in sorted(reports):
        version, diags = reports[uri]
        rid = result_id(diags)
        if previous.get(uri) == rid:
            items.append(T.WorkspaceUnchangedDocumentDiagnosticReport(uri=uri, version=version, result_id=rid))
        else:
            items.append(T.WorkspaceFullDocumentDiagnosticReport(uri=uri, version=version, items=diags,
                                                                 result_id=rid))
    return T.WorkspaceDiagnosticReport(items=items)


@server.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)
async def watched_files(ls: AxagServer, params: T.DidChangeWatchedFilesParams) -> None:
    changed: dict[Workspace, set[Path]] = {}  # -> the open documents whose run-wide findings may change
    reload: set[Workspace] = set()
    for change in params.changes:
        path = Path(os.path.abspath(to_fs_path(change.uri) or change.uri))
        ws = ls.workspace_of(path)
        if ws.is_config(path):
            reload.add(ws)
        else:
            changed.setdefault(ws, set()).update(await ls.run(ws.file_changed, path))
    for ws in reload:
        await ls.run(ws.reload)
        ls.report_config(ws)
        ls.start_scan(ws)
    if reload:
        ls.relint_open(reload)
    for ws, paths in changed.items():
        if ws not in reload:
            ls.follow(ls.run_wide_again(ws, sorted(paths), refresh=True))


# ---------------------------------------------------------------------------------------------- code actions
def _overlaps(a: T.Range, b: T.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and \
        (b.start.line, b.start.character) <= (a.end.line, a.end.character)


def _edit(pos: Positions, start: int, end: int, content: str) -> T.TextEdit:
    sl, sc = pos.offset_to_lsp(start)
    el, ec = pos.offset_to_lsp(end)
    return T.TextEdit(T.Range(T.Position(sl, sc), T.Position(el, ec)), content)


def suppression_edit(f: Finding, text: str, path: Path, pos: Positions) -> T.TextEdit:
    """A line above the finding's: ``axag-disable-next-line CODE -- reason`` in the file's comment syntax."""
    from axag.files.source import file_kind

    line_start = pos.lines.starts[f.line - 1]
    line = pos.lines.line_text(f.line)
    indent = line[:len(line) - len(line.lstrip(" \t"))]
    body = f"axag-disable-next-line {f.id} -- reason"
    if file_kind(path) == "jsx":
        before = text[:line_start].rstrip()
        in_code = not line.lstrip().startswith("<") or before.endswith(("(", "=>", "return", "?", ":", "&&", "||"))
        comment = f"/* {body} */" if in_code else f"{{/* {body} */}}"
    else:
        comment = f"<!-- {body} -->"
    return _edit(pos, line_start, line_start, f"{indent}{comment}{pos.lines.line_ending()}")


@server.feature(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(
    code_action_kinds=[T.CodeActionKind.QuickFix, T.CodeActionKind.SourceFixAll, FIX_ALL]))
async def code_actions(ls: AxagServer, params: T.CodeActionParams) -> list[T.CodeAction]:
    uri = params.text_document.uri
    lint, text = await ls.lint_now(uri)
    decoded = lint.outcome.text if lint.outcome.text is not None else text
    pos = Positions(decoded, ls.encoding)
    path = Path(to_fs_path(uri) or uri)
    only = params.context.only
    want_quick = not only or any(k == T.CodeActionKind.QuickFix or str(k) == "quickfix" for k in only)
    want_all = not only or any(FIX_ALL.startswith(str(getattr(k, "value", k))) for k in only)
    out: list[T.CodeAction] = []
    if want_quick:
        for f in lint.findings:
            diag = diagnostic(f, pos)
            if not _overlaps(diag.range, params.range):
                continue
            if f.fix is not None:
                edits = [_edit(pos, e.start, e.end, e.content) for e in f.fix.edits]
                # unsafe (did-you-mean) fixes are offered too, marked and never preferred, as ruff's server does
                title = f"{f.fix.description} ({f.id})" + (" (unsafe)" if f.fix.unsafe else "")
                out.append(T.CodeAction(title, kind=T.CodeActionKind.QuickFix,
                                        diagnostics=[diag], is_preferred=not f.fix.unsafe,
                                        edit=T.WorkspaceEdit(changes={uri: edits})))
            if f.code not in _NO_SUPPRESSION and f.line <= pos.lines.line_count():
                out.append(T.CodeAction(f"Suppress {f.id} ({f.name}) on this line", kind=T.CodeActionKind.QuickFix,
                                        diagnostics=[diag],
                                        edit=T.WorkspaceEdit(changes={uri: [suppression_edit(f, decoded, path,
                                                                                             pos)]})))
    if want_all and any(f.fix is not None and (ls.unsafe_fixes or not f.fix.unsafe) for f in lint.findings):
        fixed = await ls.run(_fix_all, ls.workspace_of(path), lint, text, ls.unsafe_fixes)
        if fixed is not None and fixed != decoded:
            end = pos.offset_to_lsp(len(decoded))
            out.append(T.CodeAction("Fix all axag findings", kind=FIX_ALL,
                                    edit=T.WorkspaceEdit(changes={uri: [T.TextEdit(
                                        T.Range(T.Position(0, 0), T.Position(*end)), fixed)]})))
    return out


def _fix_all(ws: Workspace, lint: DocumentLint, text: str, unsafe: bool = False) -> str | None:
    """The document as `axag lint --fix` leaves it (all passes, verified; ``unsafe``: as `--fix --unsafe-fixes`),
    or None when nothing is fixed."""
    from axag.lint.fix import fix_file

    outcome = lint.outcome
    result = fix_file(outcome, ws.resolver.resolve(outcome.path), ws.request, data=text.encode("utf-8"),
                      unsafe=unsafe)
    return result.new_text if result.changed else None


# ---------------------------------------------------------------------------------------------- completion, hover
_KINDS = {"property": T.CompletionItemKind.Property, "value": T.CompletionItemKind.EnumMember,
          "key": T.CompletionItemKind.Field, "reference": T.CompletionItemKind.Reference}


@server.feature(T.TEXT_DOCUMENT_COMPLETION,
                T.CompletionOptions(trigger_characters=["-", '"', "'", " ", ":", "{", ",", "["]))
async def completion(ls: AxagServer, params: T.CompletionParams) -> T.CompletionList:
    uri = params.text_document.uri
    text = ls.workspace.get_text_document(uri).source
    path = Path(to_fs_path(uri) or uri)
    pos = Positions(text, ls.encoding)
    offset = pos.offset(params.position.line, params.position.character)
    ws = ls.workspace_of(path)
    items = features.complete(text, offset, jsx=path.suffix.lower() in _LANGUAGES_JSX, intents=ws.intents())
    out = []
    for i, item in enumerate(items):
        rng = T.Range(T.Position(*pos.offset_to_lsp(item.start)), T.Position(*pos.offset_to_lsp(item.end)))
        out.append(T.CompletionItem(item.label, kind=_KINDS[item.kind], detail=item.detail or None,
                                    documentation=T.MarkupContent(T.MarkupKind.Markdown, item.doc),
                                    text_edit=T.TextEdit(rng, item.insert), sort_text=f"{i:04d}",
                                    filter_text=item.label))
    return T.CompletionList(is_incomplete=False, items=out)


@server.feature(T.TEXT_DOCUMENT_HOVER)
def hover(ls: AxagServer, params: T.HoverParams) -> T.Hover | None:
    text = ls.workspace.get_text_document(params.text_document.uri).source
    pos = Positions(text, ls.encoding)
    found = features.hover(text, pos.offset(params.position.line, params.position.character))
    if found is None:
        return None
    md, s, e = found
    return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, md),
                   T.Range(T.Position(*pos.offset_to_lsp(s)), T.Position(*pos.offset_to_lsp(e))))


def main() -> None:
    server.start_io()
