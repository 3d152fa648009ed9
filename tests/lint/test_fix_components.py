"""Case, space and did-you-mean fixes in components: a misspelt or mis-cased value inside a JSX/TSX `axag={…}` spec object (or a
longhand `axag-x={"…"}` string expression) gets the same fix as the HTML attribute form (case/space fixes safe,
did-you-mean fixes with `--unsafe-fixes`), editing only the string literal's characters; re-parsed like every
fix. A spec object bound to a module `const` keeps its suggestion and gets no fix. In `.vue` files a bound
`:axag="{…}"` is a dynamic value (dynamic values), never edited; the attribute form there is fixed as in HTML. The
language server offers the same fixes as quick fixes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types as T

from tests.lsp.test_lsp import _apply, _code_actions, _workspace
from tests.lsp_client import env, open_doc, start, stop, until, utf16

TSX = '''\
const bound = { intent: "c.list", actionType: "read", riskLevel: "hgih" };
export function Orders() {
  return <>
    <button axag={{ intent: "order.view", actionType: 'read', riskLevel: "High", scope: `tennant` }}>View</button>
    <button axag-intent="order.open" axag-action-type={"raed"} axag-risk-level={'low'}>Open</button>
    <button axag={defineAction({ intent: "order.list", actionType: "read", riskLevel: "hgih" } as const)}>All</button>
    <button axag={bound}>Bound</button>
  </>;
}
'''

# `--fix`: the safe case fix only ("High" -> "high"), inside its double quotes
TSX_FIXED = TSX.replace('riskLevel: "High"', 'riskLevel: "high"')

# `--fix --unsafe-fixes`: the did-you-mean fixes too, each keeping its literal's quotes; never the module const
TSX_UNSAFE = (TSX_FIXED.replace("scope: `tennant`", "scope: `tenant`")
              .replace('axag-action-type={"raed"}', 'axag-action-type={"read"}')
              .replace('"order.list", actionType: "read", riskLevel: "hgih"',
                       '"order.list", actionType: "read", riskLevel: "high"'))

VUE = '''\
<template>
  <button :axag="{ intent: 'order.view', actionType: 'read', riskLevel: 'hgih' }">View</button>
  <button axag-intent="order.open" axag-action-type="read" axag-risk-level="hgih">Open</button>
  <button axag-intent="order.list" axag-action-type="read" axag-risk-level=" Low">All</button>
</template>
'''

VUE_FIXED = VUE.replace('axag-risk-level=" Low"', 'axag-risk-level="low"')
VUE_UNSAFE = VUE_FIXED.replace('axag-risk-level="hgih">Open', 'axag-risk-level="high">Open')

IGNORE = ["--ignore", "6,25,26,138,151"]  # what a high risk and no description bring along


def _lint(cwd: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "axag", "lint", "--isolated", "--no-cache", *IGNORE, *args],
                          cwd=cwd, env=env(tmp_path), capture_output=True, text=True, check=False)


def _fixed(tmp_path: Path, name: str, text: str, *flags: str) -> tuple[str, subprocess.CompletedProcess[str]]:
    work = tmp_path / "w"
    work.mkdir(exist_ok=True)
    (work / name).write_text(text, encoding="utf-8", newline="")
    proc = _lint(work, tmp_path, "--fix", *flags, name)
    return (work / name).read_text(encoding="utf-8"), proc


@pytest.mark.parametrize(("name", "text", "flags", "result"), [
    ("Orders.tsx", TSX, (), TSX_FIXED),
    ("Orders.tsx", TSX, ("--unsafe-fixes",), TSX_UNSAFE),
    ("Orders.vue", VUE, (), VUE_FIXED),
    ("Orders.vue", VUE, ("--unsafe-fixes",), VUE_UNSAFE),
], ids=["tsx-fix", "tsx-unsafe-fixes", "vue-fix", "vue-unsafe-fixes"])
def test_lint_fix_edits_the_value_inside_the_spec_object(tmp_path: Path, name: str, text: str,
                                                          flags: tuple[str, ...], result: str) -> None:
    new, proc = _fixed(tmp_path, name, text, *flags)
    assert new == result, proc.stdout + proc.stderr
    assert "AXAG-LINT-199" not in proc.stdout, proc.stdout


def test_the_summary_counts_the_spec_fixes(tmp_path: Path) -> None:
    (tmp_path / "Orders.tsx").write_text(TSX, encoding="utf-8")
    proc = _lint(tmp_path, tmp_path, "--output-format", "concise", "Orders.tsx")
    assert proc.stdout.splitlines()[-2] == (
        "Found 5 errors, 0 warnings, 0 infos (1 fixable with --fix; 3 more with --unsafe-fixes).")
    js = _lint(tmp_path, tmp_path, "--output-format", "json", "Orders.tsx")
    fixes = {(f["line"], f["code"]): f["fix"] for f in json.loads(js.stdout)["findings"]}
    assert fixes[(1, "AXAG-LINT-005")] is None  # the module const: suggested, not fixed
    scope = fixes[(4, "AXAG-LINT-107")]
    col = TSX.splitlines()[3].index("tennant") + 1
    assert scope == {"description": 'Replace with "tenant"', "applicability": "unsafe", "edits": [
        {"path": "Orders.tsx", "start": {"line": 4, "column": col}, "end": {"line": 4, "column": col + 7},
         "content": "tenant"}]}


LSP_DOC = 'export const A = () => <button axag={{ intent: "a.b", actionType: "read", riskLevel: "hgih" }}>A</button>;\n'


@pytest.mark.asyncio
async def test_the_language_server_offers_the_spec_fix_as_an_unsafe_quick_fix(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"a.tsx": LSP_DOC})
    client = await start(root, tmp_path)
    try:
        uri = open_doc(client, root / "a.tsx")
        await until(lambda: uri in client.diagnostics, 30)
        diag = next(d for d in client.diagnostics[uri] if d.code == "AXAG-LINT-005")
        actions = [a for a in await _code_actions(client, uri, diag.range)
                   if a.title == 'Replace with "high" (AXAG-LINT-005) (unsafe)']
        assert len(actions) == 1 and actions[0].is_preferred is False
        col = LSP_DOC.index("hgih")
        edit = T.TextEdit(T.Range(T.Position(0, utf16(LSP_DOC[:col])), T.Position(0, utf16(LSP_DOC[:col + 4]))),
                          "high")
        assert actions[0].edit is not None and list(actions[0].edit.changes[uri]) == [edit]
        assert _apply(LSP_DOC, [edit]) == LSP_DOC.replace('"hgih"', '"high"')
    finally:
        await stop(client)
