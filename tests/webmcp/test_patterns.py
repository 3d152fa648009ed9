"""A pattern in the page is ECMA-262's, as in the Python guards: the WebMCP runtime never counts a match that
starts between the halves of a surrogate pair, where V8's own RegExp (Node's, at least) finds ``\\B`` in "b😀_".
The module runs in Node (a few stand-ins for the page: the guard refuses before the form is touched) on every
astral case of the hardening test, and in real Chromium with WebMCP (tests/webmcp/test_browser.py's helpers)."""

from __future__ import annotations

import html
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from axag.values import pyruntime
from tests.guards.test_hardening import ASTRAL
from tests.guards.test_typescript import _need_node
from tests.serve_backend import Backend, running_backend
from tests.webmcp.test_browser import Page, _calls, browser, compile_with_module, playwright

__all__ = ["browser", "playwright"]  # the module-scoped browser fixtures

RISK = 'axag-action-type="write" axag-risk-level="low" axag-idempotent="false" axag-side-effects=\'["x"]\''
HTML = f'''<!DOCTYPE html>
<html lang="en"><head><title>t</title></head><body axag-scope="user">
<form id="note" action="/notes" method="post">
  <label>Text <textarea name="text" required axag-parameter-pattern="\\B"></textarea></label>
  <button type="submit" axag-intent="note.save" {RISK} axag-description="Save">Save</button>
</form>
<script type="module" src="/axag-webmcp.js"></script>
</body></html>
'''


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[Backend, dict[str, Any]]]:
    root = tmp_path / "site"
    root.mkdir()
    (root / "note.html").write_text(HTML, encoding="utf-8")
    doc = compile_with_module(root, tmp_path / "tools.json")
    with running_backend(root) as b:
        yield b, doc


def test_the_page_refuses_a_pattern_match_inside_a_surrogate_pair(
        browser: Any, site: tuple[Backend, dict[str, Any]]) -> None:
    backend, doc = site
    schema = doc["tools"][0]["inputSchema"]["properties"]["text"]
    assert schema["pattern"] == "\\B"
    refused, allowed = "b\U0001f600_", "b\U0001f600"  # \B holds only between 😀's halves / at the end after 😀
    assert [pyruntime.validate_value(schema, v) == [] for v in (refused, allowed)] == [False, True]
    page = Page(browser, f"{backend.url}/note.html")
    try:
        got = page.call("note_save", {"text": refused})
        assert got["permission"] == "constraint_violated", got
        assert [(v["field"], v["constraint"], v["actual"]) for v in got["violations"]] == [
            ("text", "pattern", refused)]
        assert _calls(backend) == []
        got = page.call("note_save", {"text": allowed})
        assert got["success"] is True, got
        assert [(r.method, r.path, r.form) for r in _calls(backend)] == [("POST", "/notes", [("text", allowed)])]
        assert page.errors == []
    finally:
        page.close()


# the page as far as the module reads it before a guard refuses: one annotated element, WebMCP's registerTool
NODE_PAGE = """
const el = { isConnected: true, closest: () => null, hasAttribute: () => false, getAttribute: () => "astral.check" };
const tools = new Map();
globalThis.location = { pathname: "/astral.html" };
globalThis.MutationObserver = class { observe() {} };
globalThis.document = {
  readyState: "complete", documentElement: {}, querySelector: () => null, querySelectorAll: () => [el],
  modelContext: { registerTool: (tool) => { tools.set(tool.name, tool); } },
};
await import("./axag-webmcp.mjs");
const args = JSON.parse(process.argv[2]);
console.log(JSON.stringify(await tools.get("astral_check").execute(args)));
"""


def test_the_module_in_node_refuses_exactly_the_spec_refusals(tmp_path: Path) -> None:
    """One call with every astral case's text in its own parameter: the violations name exactly the cases the spec
    refuses (\\B in "b😀_" among them), as the Python guard's do."""
    _, node = _need_node()
    site = tmp_path / "site"
    site.mkdir()
    fields = "".join(f'<textarea name="p{i}" axag-parameter-pattern="{html.escape(p)}"></textarea>\n'
                     for i, (p, _, _) in enumerate(ASTRAL))
    (site / "astral.html").write_text(
        f'<!DOCTYPE html>\n<html lang="en"><head><title>t</title></head><body axag-scope="user">\n'
        f'<form action="/astral" method="post">\n{fields}'
        f'<button type="submit" axag-intent="astral.check" {RISK} axag-description="Check">Check</button>\n'
        "</form>\n</body></html>\n", encoding="utf-8")
    doc = compile_with_module(site, tmp_path / "tools.json")
    schema = doc["tools"][0]["inputSchema"]
    assert [schema["properties"][f"p{i}"]["pattern"] for i in range(len(ASTRAL))] == [p for p, _, _ in ASTRAL]
    args = {f"p{i}": s for i, (_, s, _) in enumerate(ASTRAL)}
    shutil.copy(site / "axag-webmcp.js", tmp_path / "axag-webmcp.mjs")
    (tmp_path / "page.mjs").write_text(NODE_PAGE, encoding="utf-8")
    done = subprocess.run([node, "page.mjs", json.dumps(args)], check=False, cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    refused = [f"p{i}" for i, (_, _, ok) in enumerate(ASTRAL) if not ok]
    assert got["permission"] == "constraint_violated"
    assert [(v["field"], v["constraint"]) for v in got["violations"]] == [(f, "pattern") for f in refused]
    python = pyruntime.validate_value(schema, args)
    assert sorted(f for f, _ in python) == sorted(refused) and {c for _, c in python} == {"pattern"}
