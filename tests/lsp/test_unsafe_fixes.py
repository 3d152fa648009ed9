"""`axag lsp` and the unsafe (did-you-mean) fixes: offered as quick fixes for their finding, marked
"(unsafe)" and never preferred (safe fixes are); `source.fixAll.axag` applies only the safe ones, as
`axag lint --fix` does, unless the client sets `initializationOptions.unsafeFixes` (ruff's `unsafe-fixes`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types as T

from tests.lsp.test_lsp import _apply, _code_actions, _workspace, fix_all
from tests.lsp_client import change_doc, env, open_doc, published, start, stop, until, utf16

pytestmark = pytest.mark.asyncio

LINE = ('  <button axag-intent="member.remove" axag-action-type="delete" axag-risk-level="High" '
        'axag-confirmation-required="true" axag-scope="tennant" axag-descripton="Remove a member">Remove</button>')
DOC = f'<form action="/members" method="post">\n{LINE}\n</form>\n'


def _span(needle: str) -> T.Range:
    col = LINE.index(needle)
    return T.Range(T.Position(1, utf16(LINE[:col])), T.Position(1, utf16(LINE[:col + len(needle)])))


# finding -> (the exact quick fix title, its one edit)
UNSAFE = {
    "AXAG-LINT-107": ('Replace with "tenant" (AXAG-LINT-107) (unsafe)', T.TextEdit(_span('"tennant"'), '"tenant"')),
    "AXAG-LINT-100": ('Rename to "axag-description" (AXAG-LINT-100) (unsafe)',
                      T.TextEdit(_span("axag-descripton"), "axag-description")),
}


def _lint_fix(root: Path, tmp_path: Path, *flags: str) -> str:
    (root / "page.html").write_text(DOC, encoding="utf-8", newline="")
    subprocess.run([sys.executable, "-m", "axag", "lint", "--fix", *flags, "--exit-zero", "--no-cache", "page.html"],
                   cwd=root, env=env(tmp_path), capture_output=True, check=True)
    return (root / "page.html").read_text(encoding="utf-8")


async def test_unsafe_fixes_are_quick_fixes_marked_unsafe_and_not_preferred(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"page.html": DOC})
    client = await start(root, tmp_path)
    try:
        uri = open_doc(client, root / "page.html")
        await until(lambda: uri in client.diagnostics, 30)
        diags = {d.code: d for d in client.diagnostics[uri]}
        assert set(UNSAFE) | {"AXAG-LINT-005"} <= set(diags), diags
        safe = [a for a in await _code_actions(client, uri, diags["AXAG-LINT-005"].range)
                if a.title.endswith("(AXAG-LINT-005)") and not a.title.startswith("Suppress")]
        assert len(safe) == 1 and safe[0].is_preferred is True and safe[0].kind == T.CodeActionKind.QuickFix
        version = 1
        for code, (title, edit) in UNSAFE.items():
            diag = diags[code]
            actions = await _code_actions(client, uri, diag.range)
            mine = [a for a in actions if a.title == title]
            assert len(mine) == 1, [a.title for a in actions]
            action = mine[0]
            assert action.kind == T.CodeActionKind.QuickFix
            assert action.is_preferred is False
            assert action.diagnostics is not None and [d.code for d in action.diagnostics] == [code]
            assert action.edit is not None and action.edit.changes is not None
            assert set(action.edit.changes) == {uri} and list(action.edit.changes[uri]) == [edit]
            new = _apply(DOC, action.edit.changes[uri])
            s, e = edit.range.start.character, edit.range.end.character  # LINE is ASCII
            assert new == DOC.replace(LINE, LINE[:s] + edit.new_text + LINE[e:])
            version += 1
            change_doc(client, uri, version, new)
            await until(lambda v=version: published(client, uri) == v, 30)
            after = [d.code for d in client.diagnostics[uri]]
            assert code not in after and "AXAG-LINT-005" in after, (title, after)
            version += 1
            change_doc(client, uri, version, DOC)
            await until(lambda v=version: published(client, uri) == v, 30)
    finally:
        await stop(client)


async def test_fix_all_applies_only_the_safe_fixes_as_lint_fix(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"page.html": DOC})
    fixed = await fix_all(root, tmp_path, DOC)
    assert fixed == DOC.replace('"High"', '"high"')
    assert fixed == _lint_fix(root, tmp_path)


async def test_unsafe_fixes_option_makes_fix_all_apply_them_as_lint_fix_unsafe_fixes(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"page.html": DOC})
    fixed = await fix_all(root, tmp_path, DOC, {"unsafeFixes": True})
    assert fixed == DOC.replace('"High"', '"high"').replace('"tennant"', '"tenant"').replace(
        "axag-descripton", "axag-description")
    assert fixed == _lint_fix(root, tmp_path, "--unsafe-fixes")
