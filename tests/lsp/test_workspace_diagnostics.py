"""`workspace/diagnostic` of `axag lsp` (pull diagnostics for the workspace): every file within the
configured paths and excludes, as `axag lint --output-format json` run in the folder reports it (run-wide 121
included), open documents with their editor text and version; result ids give "unchanged" reports; a file
gone since the last report gets an empty one. `textDocument/diagnostic` answers "unchanged" for an unchanged
document likewise."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as T

from tests.lsp.test_lsp import _expected_by_uri, _workspace
from tests.lsp_client import INITIALIZED, actual, change_doc, lint_json, open_doc, start, stop

pytestmark = pytest.mark.asyncio

A = ('<form action="/cart" method="post" axag-intent="cart.add_item" axag-action-type="write" '
     'axag-risk-level="low">\n  <input name="sku">\n  <button type="submit">Add</button>\n</form>\n')
B = ('<form action="/cart" method="post" axag-intent="cart.add_item" axag-action-type="write" '
     'axag-risk-level="low" axag-idempotent="false">\n  <input name="sku">\n  <button type="submit">Add</button>\n'
     '</form>\n')
CLEAN = '<p>No actions here.</p>\n'
FILES = {"a.html": A, "b.html": B, "clean.html": CLEAN, "vendor/lib.html": A, "notes.txt": "axag-intent"}
CONFIG = '[tool.axag]\nexclude = ["vendor"]\n'


def _by_uri(report: T.WorkspaceDiagnosticReport) -> dict[str, T.WorkspaceDocumentDiagnosticReport]:
    return {item.uri: item for item in report.items}


async def _pull(client: object, previous: list[T.PreviousResultId] | None = None) -> T.WorkspaceDiagnosticReport:
    report = await client.workspace_diagnostic_async(  # type: ignore[attr-defined]
        T.WorkspaceDiagnosticParams(previous_result_ids=previous or []))
    assert isinstance(report, T.WorkspaceDiagnosticReport)
    return report


async def test_workspace_diagnostics_equal_lint_json_of_the_folder(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {**FILES, "pyproject.toml": CONFIG})
    names = ["a.html", "b.html", "clean.html"]
    want = _expected_by_uri(root, lint_json(root, tmp_path), names)
    assert any(w[0] == "AXAG-LINT-121" for w in want[(root / "b.html").as_uri()])  # the run-wide check counts
    client = await start(root, tmp_path, pull=True)
    try:
        caps = INITIALIZED[id(client)].capabilities
        assert isinstance(caps.diagnostic_provider, T.DiagnosticOptions)
        assert caps.diagnostic_provider.workspace_diagnostics is True
        report = _by_uri(await _pull(client))
        assert sorted(report) == sorted(want)  # not vendor/ (excluded), not notes.txt (not read)
        for uri, item in report.items():
            assert isinstance(item, T.WorkspaceFullDocumentDiagnosticReport) and item.version is None
            assert item.kind == "full" and sorted(actual(d) for d in item.items) == want[uri], uri
        assert want[(root / "a.html").as_uri()] and not want[(root / "clean.html").as_uri()]

        # an open document counts with its text and version: its edit also ends b.html's duplicate intent (121);
        # clean.html keeps its unchanged report
        previous = [T.PreviousResultId(uri, item.result_id or "") for uri, item in report.items()]
        a_uri, b_uri, clean_uri = ((root / n).as_uri() for n in names)
        open_doc(client, root / "a.html")
        edited = A.replace('axag-risk-level="low"', 'axag-risk-level="low" axag-idempotent="false"')
        change_doc(client, a_uri, 2, edited)
        again = _by_uri(await _pull(client, previous))
        assert sorted(again) == sorted(want)
        (root / "a.html").write_text(edited, encoding="utf-8")
        want_edited = _expected_by_uri(root, lint_json(root, tmp_path), names)
        opened, other = again[a_uri], again[b_uri]
        assert isinstance(opened, T.WorkspaceFullDocumentDiagnosticReport) and opened.version == 2
        assert sorted(actual(d) for d in opened.items) == want_edited[a_uri] != want[a_uri]
        assert isinstance(other, T.WorkspaceFullDocumentDiagnosticReport) and other.version is None
        assert sorted(actual(d) for d in other.items) == want_edited[b_uri]
        assert not any(d.code == "AXAG-LINT-121" for d in other.items)
        assert isinstance(again[clean_uri], T.WorkspaceUnchangedDocumentDiagnosticReport)
        assert again[clean_uri].result_id == report[clean_uri].result_id
    finally:
        await stop(client)


async def test_a_deleted_file_gets_an_empty_report(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"a.html": A, "b.html": B})
    client = await start(root, tmp_path, pull=True)
    try:
        first = _by_uri(await _pull(client))
        a_uri, b_uri = (root / "a.html").as_uri(), (root / "b.html").as_uri()
        b = first[b_uri]
        assert isinstance(b, T.WorkspaceFullDocumentDiagnosticReport)
        assert any(d.code == "AXAG-LINT-121" for d in b.items)
        (root / "a.html").unlink()
        client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(
            [T.FileEvent(a_uri, T.FileChangeType.Deleted)]))
        previous = [T.PreviousResultId(uri, item.result_id or "") for uri, item in first.items()]
        after = _by_uri(await _pull(client, previous))
        assert sorted(after) == [a_uri, b_uri]
        gone = after[a_uri]
        assert isinstance(gone, T.WorkspaceFullDocumentDiagnosticReport) and list(gone.items) == []
        b = after[b_uri]  # its duplicate intent (121) went with a.html
        assert isinstance(b, T.WorkspaceFullDocumentDiagnosticReport)
        assert not any(d.code == "AXAG-LINT-121" for d in b.items)
        assert sorted(actual(d) for d in b.items) == _expected_by_uri(root, lint_json(root, tmp_path),
                                                                      ["b.html"])[b_uri]
    finally:
        await stop(client)


async def test_document_pull_answers_unchanged_for_the_same_result(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"a.html": A})
    client = await start(root, tmp_path, pull=True)
    try:
        uri = open_doc(client, root / "a.html")
        ident = T.TextDocumentIdentifier(uri)
        first = await client.text_document_diagnostic_async(T.DocumentDiagnosticParams(ident))
        assert isinstance(first, T.RelatedFullDocumentDiagnosticReport) and first.items and first.result_id
        same = await client.text_document_diagnostic_async(T.DocumentDiagnosticParams(
            ident, previous_result_id=first.result_id))
        assert isinstance(same, T.RelatedUnchangedDocumentDiagnosticReport) and same.result_id == first.result_id
        change_doc(client, uri, 2, A.replace('"low"', '"low" axag-idempotent="false"'))
        changed = await client.text_document_diagnostic_async(T.DocumentDiagnosticParams(
            ident, previous_result_id=first.result_id))
        assert isinstance(changed, T.RelatedFullDocumentDiagnosticReport)
        assert changed.result_id != first.result_id
        assert not any(d.code == "AXAG-LINT-007" for d in changed.items)
    finally:
        await stop(client)
