"""The WebMCP runtime fills a form so that a framework sees it: the value goes through the native
setter, past a React-style value tracker installed on the node, and `input` and `change` fire with it; and an
element made `inert` or hidden with CSS `display: none` is withdrawn from getTools() and comes back (real Chromium
with WebMCP, tests/webmcp/test_browser.py's helpers)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.serve_backend import Backend, running_backend
from tests.webmcp.test_browser import Page, _calls, browser, compile_with_module, playwright

__all__ = ["browser", "playwright"]  # the module-scoped browser fixtures

RISK = 'axag-action-type="write" axag-risk-level="low" axag-idempotent="false" axag-side-effects=\'["x"]\''
HTML = f'''<!DOCTYPE html>
<html lang="en"><head><title>t</title><style>.gone {{ display: none; }}</style></head><body axag-scope="user">
<section id="box">
<form id="doc" action="/docs" method="post">
  <label>Title <input id="title" name="title" required></label>
  <button type="submit" axag-intent="doc.save" {RISK} axag-description="Save">Save</button>
</form>
</section>
<script type="module" src="/tracker.js"></script>
<script type="module" src="/axag-webmcp.js"></script>
</body></html>
'''
# React's inputValueTracking: an own `value` property on the node records what was assigned through it; on
# `input`, React fires onChange only when the native value differs from the tracked one (so `el.value = x`
# from outside is invisible to it, and a value set through the prototype's setter is seen).
TRACKER = """const input = document.getElementById("title");
const native = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value");
let tracked = input.value;
Object.defineProperty(input, "value", { configurable: true,
  get() { return native.get.call(this); }, set(v) { tracked = String(v); native.set.call(this, v); } });
window.__events = [];
for (const type of ["input", "change"]) {
  input.addEventListener(type, (e) => {
    const now = native.get.call(input);
    window.__events.push({ type, value: now, onChange: type === "input" && now !== tracked, bubbles: e.bubbles });
    if (type === "input") { tracked = now; }
  });
}
"""


@pytest.fixture
def backend(tmp_path: Path) -> Iterator[Backend]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "doc.html").write_text(HTML, encoding="utf-8")
    (site / "tracker.js").write_text(TRACKER, encoding="utf-8")
    compile_with_module(site, tmp_path / "tools.json")
    with running_backend(site) as b:
        yield b


def test_the_form_is_filled_through_the_native_setter_with_input_and_change(browser: Any, backend: Backend) -> None:
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        got = page.call("doc_save", {"title": "Quarterly report"})
        assert got["success"] is True, got
        assert page.page.evaluate("window.__events") == [
            {"type": "input", "value": "Quarterly report", "onChange": True, "bubbles": True},
            {"type": "change", "value": "Quarterly report", "onChange": False, "bubbles": True},
        ]
        assert page.page.input_value("#title") == "Quarterly report"
        assert [(r.method, r.path, r.form) for r in _calls(backend)] == [
            ("POST", "/docs", [("title", "Quarterly report")])]
        assert page.errors == []
    finally:
        page.close()


@pytest.mark.parametrize(("hide", "show"), [
    ("document.getElementById('box').inert = true", "document.getElementById('box').inert = false"),
    ("document.getElementById('box').classList.add('gone')", "document.getElementById('box').classList.remove('gone')"),
    ("document.querySelector('[axag-intent]').style.display = 'none'",
     "document.querySelector('[axag-intent]').style.display = ''"),
], ids=["inert-ancestor", "display-none-class", "display-none-style"])
def test_an_inert_or_undisplayed_element_is_withdrawn_and_comes_back(
        browser: Any, backend: Backend, hide: str, show: str) -> None:
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        assert page.names() == ["doc_save"]
        page.page.evaluate(hide)
        assert page.page.evaluate("document.querySelector('[axag-intent]').checkVisibility()") is ("inert" in hide)
        page.page.wait_for_timeout(50)
        assert page.names() == []
        page.page.evaluate(show)
        page.page.wait_for_timeout(50)
        assert page.names() == ["doc_save"]
        assert page.errors == []
    finally:
        page.close()
