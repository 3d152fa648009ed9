"""When the module registers its tools and which elements it finds operable at start-up: every tool is
registered before the page's next script runs (the module registers in the microtask checkpoint right after it
has run), and an element inside an `inert`, `hidden` or `aria-disabled="true"` ancestor is not registered until
that ancestor lets it go (the start-up pass looks at ancestors only when the page has such an element). Real
Chromium with WebMCP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.serve_backend import Backend
from tests.webmcp.test_browser import Page, _calls, browser, compile_with_module, playwright
from tests.webmcp.test_live import _serve_page, served

__all__ = ["browser", "playwright", "served"]  # the fixtures

BUTTON = ('<button type="button" axag-intent="panel.{n}" axag-action-type="write" axag-risk-level="low" '
          'axag-idempotent="true" axag-side-effects="[]" axag-required-parameters="[]" '
          'axag-description="Press {n}">{n}</button>')
NAMES = ["panel_first", "panel_second", "panel_third"]
# the page's own module after axag's: what it sees of document.modelContext when it starts
AFTER = "window.__seen = document.modelContext.getTools().then((tools) => tools.map((t) => t.name).sort());\n"


def _page(buttons: list[str], tail: str) -> str:
    return ('<!DOCTYPE html>\n<html lang="en"><head><title>panel</title></head><body axag-scope="public">\n'
            + "\n".join(buttons) + "\n" + tail + "</body></html>\n")


def _compiled(tmp_path: Path) -> tuple[Path, list[str]]:
    site = tmp_path / "site"
    site.mkdir()
    buttons = [BUTTON.format(n=n) for n in ("first", "second", "third")]
    (site / "doc.html").write_text(_page(buttons, ""), encoding="utf-8")
    doc = compile_with_module(site, tmp_path / "tools.json")
    assert sorted(t["name"] for t in doc["tools"]) == NAMES
    return site, buttons


def test_every_tool_is_registered_before_the_next_script_runs(browser: Any, tmp_path: Path,
                                                              served: tuple[Path, Backend]) -> None:
    site, buttons = _compiled(tmp_path)
    (served[0] / "after.js").write_text(AFTER, encoding="utf-8")
    backend = _serve_page(served, site, _page(buttons, '<script type="module" src="/axag-webmcp.js"></script>\n'
                                                       '<script type="module" src="/after.js"></script>\n'))
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        assert page.page.evaluate("window.__seen") == NAMES
        assert page.errors == []
    finally:
        page.close()


@pytest.mark.parametrize("gate", ["inert", "hidden", 'aria-disabled="true"'])
def test_an_element_under_a_withdrawing_ancestor_registers_when_the_ancestor_lets_it_go(
        browser: Any, tmp_path: Path, served: tuple[Path, Backend], gate: str) -> None:
    site, buttons = _compiled(tmp_path)
    live = [buttons[0], f'<div id="gate" {gate}><span>{buttons[1]}</span></div>', buttons[2]]
    backend = _serve_page(served, site, _page(live, '<script type="module" src="/axag-webmcp.js"></script>\n'))
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        assert page.names() == ["panel_first", "panel_third"]
        page.page.evaluate(f"document.querySelector('#gate').removeAttribute({gate.split('=')[0]!r})")
        page.page.wait_for_function("async () => (await document.modelContext.getTools()).length === 3")
        assert page.names() == NAMES
        page.page.evaluate(f"document.querySelector('#gate').setAttribute({gate.split('=')[0]!r}, 'true')")
        page.page.wait_for_function("async () => (await document.modelContext.getTools()).length === 2")
        assert page.names() == ["panel_first", "panel_third"]
        assert _calls(backend) == []
        assert page.errors == []
    finally:
        page.close()
