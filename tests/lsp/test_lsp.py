"""`axag lsp` driven as an editor drives it: pytest-lsp's client over stdio. Diagnostics equal
`axag lint --output-format json` (0-based UTF-16 positions), pushed or pulled but never both; every code action
applied and re-linted; completion and hover at given positions; configuration reload; half-typed documents."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as T

from tests.conftest import REPO, SHARED, shared_or_skip
from tests.lsp_client import (
    actual,
    change_doc,
    expected,
    lint_json,
    open_doc,
    published,
    start,
    stop,
    until,
    utf16,
)

pytestmark = pytest.mark.asyncio
CORPUS = SHARED / "corpus"
SITE = REPO / "fixtures" / "site"

PAGE = """<!doctype html>
<html><body>
<form id="f" axag-intent="cart.add_item" axag-action-type="write" axag-risk-level="High">
  <input name="sku"><input name="quantity">
  <button type="submit">Add</button>
</form>
<button axag-intent="order.cancel" axag-action-type="delete" axag-risk-level="high">Cancel</button>
</body></html>
"""


def _workspace(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8", newline="")
    return root


def _apply(text: str, edits: list[T.TextEdit]) -> str:
    """Apply LSP text edits (UTF-16 positions) as an editor does."""
    lines = text.splitlines(keepends=True) or [""]

    def offset(p: T.Position) -> int:
        before = sum(len(line) for line in lines[:p.line])
        line = lines[p.line] if p.line < len(lines) else ""
        units = 0
        for i, c in enumerate(line):
            if units >= p.character:
                return before + i
            units += utf16(c)
        return before + len(line.rstrip("\r\n"))

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        s, t = offset(e.range.start), offset(e.range.end)
        text = text[:s] + e.new_text + text[t:]
    return text


def _diags(client: Any, uri: str) -> list[tuple[Any, ...]]:
    return sorted(actual(d) for d in client.diagnostics.get(uri, []))


def _expected_by_uri(root: Path, findings: list[dict[str, Any]], names: list[str]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for name in names:
        text = (root / name).read_text(encoding="utf-8")
        out[(root / name).as_uri()] = sorted(expected(f, text) for f in findings if f["path"] == name)
    return out


# ---------------------------------------------------------------------------------------------- diagnostics
async def test_example_site_diagnostics_equal_lint_json(tmp_path: Path) -> None:
    root = tmp_path / "site"
    shutil.copytree(SITE, root)
    (root / "booking.html").write_text((root / "booking.html").read_text(encoding="utf-8").replace(
        'axag-action-type="write"', 'axag-action-type="mutate"', 1), encoding="utf-8")
    names = sorted(p.name for p in root.glob("*.html"))
    want = _expected_by_uri(root, lint_json(root, tmp_path), names)
    assert any(want.values())
    client = await start(root, tmp_path)
    try:
        for name in names:
            open_doc(client, root / name)
        await until(lambda: all(_diags(client, u) == w for u, w in want.items()), 60, "site diagnostics")
    finally:
        await stop(client)


async def test_corpus_diagnostics_equal_lint_json_with_run_wide_findings(tmp_path: Path) -> None:
    """Only some files are open: the run-wide findings (121) come from the background read of the others."""
    shared_or_skip("corpus")
    findings = lint_json(CORPUS, tmp_path)
    with_121 = sorted({f["path"] for f in findings if f["code"] == "AXAG-LINT-121"})[:6]
    others = sorted({f["path"] for f in findings if f["code"] != "AXAG-LINT-121"} - set(with_121))[:10]
    components = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.suffix in (".tsx", ".vue"))
    names = with_121 + others + components
    want = _expected_by_uri(CORPUS, findings, names)
    assert with_121 and any(e[0] == "AXAG-LINT-121" for w in want.values() for e in w)
    client = await start(CORPUS, tmp_path)
    try:
        for name in names:
            open_doc(client, CORPUS / name)
        try:
            await until(lambda: all(_diags(client, u) == w for u, w in want.items()), 120, "corpus diagnostics")
        except AssertionError:
            bad = {u: (_diags(client, u), w) for u, w in want.items() if _diags(client, u) != w}
            raise AssertionError(next(iter(bad.items()))) from None
    finally:
        await stop(client)


async def test_positions_are_0_based_utf16(tmp_path: Path) -> None:
    text = '<p>😀 é</p>\r\n<button aria-label="𝄞𝄞" axag-intent="a.b" axag-action-type="read" axag-risk-level="hgih">x</button>\r\n'
    root = _workspace(tmp_path, {"p.html": text})
    client = await start(root, tmp_path)
    try:
        uri = open_doc(client, root / "p.html", text)
        await until(lambda: uri in client.diagnostics, 30)
        d = next(d for d in client.diagnostics[uri] if d.code == "AXAG-LINT-005")
        line = text.split("\r\n")[1]
        col = line.index('hgih')
        assert d.range.start.line == 1
        # the value (or the attribute) starts after two astral characters: 2 UTF-16 units each
        assert d.range.start.character in (utf16(line[:col]), utf16(line[:line.index("axag-risk-level")]))
        assert d.range.start.character > len(line[:line.index("axag-risk-level")])
        assert d.code_description is not None and d.code_description.href.endswith("AXAG-LINT-005")
    finally:
        await stop(client)


async def test_pull_diagnostics_when_the_client_pulls_and_then_no_push(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"page.html": PAGE})
    want = _expected_by_uri(root, lint_json(root, tmp_path), ["page.html"])
    client = await start(root, tmp_path, pull=True)
    try:
        uri = open_doc(client, root / "page.html")
        report = await client.text_document_diagnostic_async(T.DocumentDiagnosticParams(T.TextDocumentIdentifier(uri)))
        assert isinstance(report, T.RelatedFullDocumentDiagnosticReport)
        assert sorted(actual(d) for d in report.items) == want[uri] and want[uri]
        change_doc(client, uri, 2, PAGE.replace("High", "high"))
        await asyncio.sleep(1.0)
        assert uri not in client.diagnostics  # never pushed to a client that pulls
    finally:
        await stop(client)


async def test_push_after_open_and_after_each_change(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"page.html": PAGE})
    client = await start(root, tmp_path)
    try:
        uri = open_doc(client, root / "page.html")
        await until(lambda: any(d.code == "AXAG-LINT-005" for d in client.diagnostics.get(uri, [])), 30)
        for version in range(2, 8):  # a burst of keystrokes: the last text wins
            change_doc(client, uri, version, PAGE.replace("High", "hig"[: version % 3 + 1]))
        change_doc(client, uri, 8, PAGE.replace("High", "high"))
        await until(lambda: not any(d.code == "AXAG-LINT-005" for d in client.diagnostics.get(uri, [])), 30)
        await asyncio.sleep(0.5)
        assert not any(d.code == "AXAG-LINT-005" for d in client.diagnostics[uri])
    finally:
        await stop(client)


# ---------------------------------------------------------------------------------------------- code actions
async def _code_actions(client: Any, uri: str, rng: T.Range, only: list[str] | None = None) -> list[T.CodeAction]:
    got = await client.text_document_code_action_async(T.CodeActionParams(
        T.TextDocumentIdentifier(uri), rng, T.CodeActionContext(diagnostics=[], only=only)))
    return [a for a in got or [] if isinstance(a, T.CodeAction)]


async def test_every_code_action_applied_and_relinted(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"page.html": PAGE})
    client = await start(root, tmp_path)
    try:
        uri = open_doc(client, root / "page.html")
        await until(lambda: uri in client.diagnostics, 30)
        first = list(client.diagnostics[uri])
        version = 1
        tried = 0
        for diag in first:
            version += 1
            change_doc(client, uri, version, PAGE)  # back to the page each action was offered for
            await until(lambda v=version: published(client, uri) == v, 30)
            actions = await _code_actions(client, uri, diag.range)
            mine = [a for a in actions if a.diagnostics and any(d.code == diag.code and d.range == diag.range
                                                                 for d in a.diagnostics)]
            assert any(a.title.startswith(f"Suppress {diag.code}") for a in mine), (diag, actions)
            for action in mine:
                assert action.edit is not None and action.edit.changes is not None
                new = _apply(PAGE, action.edit.changes[uri])
                version += 1
                change_doc(client, uri, version, new)
                await until(lambda v=version: published(client, uri) == v, 30)
                after = client.diagnostics[uri]
                gone = diag.code if action.title.startswith("Suppress") else action.title.rsplit("(", 1)[1][:-1]
                count = sum(1 for d in after if d.code == gone)
                assert count < sum(1 for d in first if d.code == gone), (action.title, new)
                assert not any(d.code in ("AXAG-LINT-133", "AXAG-LINT-143", "AXAG-LINT-199") for d in after), \
                    (action.title, [d.message for d in after])
                tried += 1
        assert tried >= len(first) + 2  # at least two real fixes besides one suppression per finding
    finally:
        await stop(client)


async def fix_all(root: Path, tmp_path: Path, text: str, options: Any = None) -> str:
    """``root/page.html`` (holding ``text``) as the one `source.fixAll.axag` action leaves it."""
    client = await start(root, tmp_path, options=options)
    try:
        uri = open_doc(client, root / "page.html")
        await until(lambda: uri in client.diagnostics, 30)
        actions = await _code_actions(client, uri, T.Range(T.Position(0, 0), T.Position(0, 0)),
                                      only=["source.fixAll"])
        assert [a.kind for a in actions] == ["source.fixAll.axag"]
        assert actions[0].edit is not None and actions[0].edit.changes is not None
        return _apply(text, actions[0].edit.changes[uri])
    finally:
        await stop(client)


async def test_fix_all_equals_lint_fix(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"page.html": PAGE})
    fixed = await fix_all(root, tmp_path, PAGE)
    import subprocess
    import sys

    from tests.lsp_client import env

    subprocess.run([sys.executable, "-m", "axag", "lint", "--fix", "--exit-zero", "--no-cache", "page.html"],  # noqa: ASYNC221
                   cwd=root, env=env(tmp_path), capture_output=True, check=False)
    assert fixed == (root / "page.html").read_text(encoding="utf-8") != PAGE


# ---------------------------------------------------------------------------------------------- completion, hover
def _at(text: str, marker: str = "|") -> tuple[str, T.Position]:
    i = text.index(marker)
    before = text[:i]
    line = before.count("\n")
    return text[:i] + text[i + 1:], T.Position(line, utf16(before.rsplit("\n", 1)[-1]))


async def _complete(client: Any, root: Path, name: str, marked: str) -> list[T.CompletionItem]:
    text, position = _at(marked)
    uri = open_doc(client, root / name, text)
    got = await client.text_document_completion_async(T.CompletionParams(T.TextDocumentIdentifier(uri), position))
    client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri)))
    items = got.items if isinstance(got, T.CompletionList) else list(got or [])
    return items


CASES = [
    ("a.html", '<button axag-ri|>', ["axag-risk-level"], None),
    ("a.html", '<button axag-risk-level="|">', ["none", "low", "medium", "high", "critical"], None),
    ("a.html", '<button axag-risk-level="h|">', ["high"], None),
    ("a.html", '<button axag-idempotent="|">', ["true", "false"], None),
    ("a.html", '<div axag-scope="|"></div>', ["public", "user", "tenant", "global"], None),
    ("a.html", '<button axag-required-parameters=\'[{"|\'>', None, ["name", "type", "minLength"]),
    ("a.html", '<button axag-required-parameters=\'[{"name": "q", "type": "|\'>', ["string", "number", "integer",
                                                                                 "boolean", "array", "object"], None),
    ("a.html", ('<form><input name="email"><select name="plan"></select>\n'
                '<button axag-required-parameters=\'["|\'></form>'), ["email", "plan"], None),
    ("a.html", '<a axag-intent="|">', ["cart.view"], None),
    ("c.tsx", 'export const X = () => <button axag={{ ri| }}>x</button>;', None, ["riskLevel"]),
    ("c.tsx", 'export const X = () => <button axag={{ riskLevel: "|" }}>x</button>;',
     ["none", "low", "medium", "high", "critical"], None),
    ("c.tsx", 'export const X = () => <button axag-action-type="|">x</button>;',
     ["read", "write", "delete", "navigate"], None),
    # half-typed: an unclosed quote, an unclosed tag
    ("a.html", '<p>hi</p>\n<button axag-action-type="wr|\n<p>more</p>', ["write"], None),
    ("a.html", '<div>\n<button type="button" axag-|', None, ["axag-intent", "axag-action-type"]),
]


async def test_completion(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"other.html": '<a href="/c" axag-intent="cart.view" axag-action-type="navigate">c</a>'})
    client = await start(root, tmp_path)
    try:
        await asyncio.sleep(1.0)  # the background read of the workspace (intents in use)
        for name, marked, exact, contains in CASES:
            items = await _complete(client, root, name, marked)
            labels = [i.label for i in items]
            if exact is not None:
                assert labels == exact, (marked, labels)
            if contains is not None:
                assert set(contains) <= set(labels), (marked, labels)
        items = await _complete(client, root, "a.html", '<button axag-risk-level="|">')
        assert items[3].documentation is not None and "serious harm" in str(items[3].documentation)
        items = await _complete(client, root, "a.html", "<button axag-ri|>")
        item = next(i for i in items if i.label == "axag-risk-level")
        assert isinstance(item.documentation, T.MarkupContent) and "how much harm" in item.documentation.value
        assert isinstance(item.text_edit, T.TextEdit) and item.text_edit.new_text == 'axag-risk-level=""'
        assert not await _complete(client, root, "a.html", "<p>text axag-|</p>")  # not in a tag
    finally:
        await stop(client)


async def test_hover(tmp_path: Path) -> None:
    text = ('<!-- axag-disable-next-line AXAG-LINT-006 -- reviewed -->\n'
            '<button axag-intent="a.b" axag-action-type="write" axag-risk-level="high">x</button>\n')
    root = _workspace(tmp_path, {"h.html": text})
    client = await start(root, tmp_path)
    try:
        uri = open_doc(client, root / "h.html")

        async def hover(line: int, character: int) -> str:
            got = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri),
                                                                       T.Position(line, character)))
            return "" if got is None else str(got.contents.value)

        assert "high-risk-without-confirmation" in await hover(0, text.index("LINT-006") + 2)
        second = text.split("\n")[1]
        assert "how much harm a wrong call can do" in await hover(1, second.index("axag-risk-level") + 3)
        assert "serious harm" in await hover(1, second.index('"high"') + 2)
        assert "creates or changes data" in await hover(1, second.index('"write"') + 2)
        assert await hover(1, second.index(">x<") + 1) == ""
    finally:
        await stop(client)


async def test_half_typed_documents_never_crash(tmp_path: Path) -> None:
    """Every prefix cut of a page (unclosed quotes, tags, JSON, comments), with completion and hover at its end:
    the server answers each and keeps publishing."""
    page = (CORPUS / "axag-docs").glob("*.html") if CORPUS.is_dir() else iter(())
    text = next(iter(sorted(page)), None)
    body = text.read_text(encoding="utf-8")[:3000] if text is not None else PAGE
    body += PAGE + '<button axag={{ riskLevel: "hi'
    root = _workspace(tmp_path, {"x.html": ""})
    client = await start(root, tmp_path, options={"debounceMs": 0})
    try:
        uri = open_doc(client, root / "x.html", "")
        for version, cut in enumerate(range(0, len(body), max(1, len(body) // 60)), start=2):
            part = body[:cut]
            change_doc(client, uri, version, part)
            lines = part.split("\n")
            position = T.Position(len(lines) - 1, utf16(lines[-1]))
            await client.text_document_completion_async(T.CompletionParams(T.TextDocumentIdentifier(uri), position))
            await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), position))
        change_doc(client, uri, 999, PAGE)
        await until(lambda: published(client, uri) == 999, 30)
        assert any(d.code == "AXAG-LINT-005" for d in client.diagnostics[uri])
        assert client.error is None
    finally:
        await stop(client)


# ---------------------------------------------------------------------------------------------- configuration
async def test_configuration_change_relints_open_documents(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"page.html": PAGE})
    client = await start(root, tmp_path)
    try:
        uri = open_doc(client, root / "page.html")
        await until(lambda: any(d.code == "AXAG-LINT-005" for d in client.diagnostics.get(uri, [])), 30)
        (root / "pyproject.toml").write_text('[tool.axag.lint]\nignore = ["AXAG-LINT-005"]\n', encoding="utf-8")
        client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams(
            [T.FileEvent((root / "pyproject.toml").as_uri(), T.FileChangeType.Created)]))
        await until(lambda: uri in client.diagnostics and client.diagnostics[uri] and
                    not any(d.code == "AXAG-LINT-005" for d in client.diagnostics[uri]), 30, "the reload")
        want = _expected_by_uri(root, lint_json(root, tmp_path), ["page.html"])
        assert _diags(client, uri) == want[uri]
    finally:
        await stop(client)
