"""A template-valued submitter among same-named buttons (the WebMCP runtime with the form binding): the compiled value is
unknown (`{{ … }}`), so the runtime takes the live page's value of the annotated button, found by its occurrence
among the form's buttons of that name, not the first one of the name; and what the page sends equals what
`axag serve` sends for the same live page. Real Chromium with WebMCP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.serve_backend import Backend
from tests.webmcp.test_browser import Page, _calls, _serve_sends, _shape, browser, playwright
from tests.webmcp.test_live import _compiled_site, _serve_page, served

__all__ = ["browser", "playwright", "served"]  # the fixtures

RISK = 'axag-action-type="write" axag-risk-level="low" axag-idempotent="false" axag-side-effects=\'["x"]\''


def _page(values: tuple[str, str, str], annotated: int) -> str:
    """Three submit buttons named `op` (values from the template or rendered); the `annotated`-th carries the
    annotation, and a hidden `op` follows them."""
    buttons = []
    for i, value in enumerate(values):
        note = f' axag-intent="doc.save" {RISK} axag-description="Save"' if i == annotated else ""
        buttons.append(f'<button type="submit" name="op" value="{value}"{note}>B{i}</button>')
    return f'''<!DOCTYPE html>
<html lang="en"><head><title>t</title></head><body axag-scope="user">
<form id="doc" action="/docs" method="post">
  <label>Title <input name="title" required></label>
  {"".join(buttons)}
  <input type="hidden" name="op" value="{{{{ hidden_op }}}}">
</form>
<script type="module" src="/axag-webmcp.js"></script>
</body></html>
'''


TEMPLATE = ("{{ first }}", "{{ second }}", "{{ third }}")


@pytest.mark.parametrize("annotated", [0, 1, 2])
def test_a_template_valued_submitter_is_found_by_its_occurrence(
        browser: Any, tmp_path: Path, served: tuple[Path, Backend], annotated: int) -> None:
    site, doc = _compiled_site(tmp_path, _page(TEMPLATE, annotated))
    binding = next(t for t in doc["tools"] if t["name"] == "doc_save")["_meta"]["org.axag/http"]
    assert binding["constants"][0] == ["op", None]  # unknown when compiled: the live page says
    assert binding["live"][0] == [0, "button", annotated]
    rendered = _page(("archive", "publish", "delete"), annotated).replace("{{ hidden_op }}", "h1")
    backend = _serve_page(served, site, rendered)
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        got = page.call("doc_save", {"title": "T"})
        assert got["success"] is True, got
        sent = _calls(backend)
        assert len(sent) == 1
        chosen = ("archive", "publish", "delete")[annotated]
        assert _shape(sent[0])["fields"] == [("title", "T"), ("op", chosen), ("op", "h1")]
        assert _shape(sent[0]) == _shape(_serve_sends(backend, doc, "doc_save", {"title": "T"}))
        assert page.errors == []
    finally:
        page.close()


def test_a_template_valued_submitter_gone_from_the_live_form_refuses_the_call(
        browser: Any, tmp_path: Path, served: tuple[Path, Backend]) -> None:
    """The live page has fewer buttons of the name than the annotated one's occurrence: nothing is sent."""
    site, _ = _compiled_site(tmp_path, _page(TEMPLATE, 2))
    rendered = _page(("archive", "publish", "delete"), 2).replace("{{ hidden_op }}", "h1")
    rendered = rendered.replace('<button type="submit" name="op" value="archive">B0</button>', "")
    backend = _serve_page(served, site, rendered)
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        got = page.call("doc_save", {"title": "T"})
        assert got["success"] is False, got
        assert got["result"]["error"] == "page_changed", got
        assert got["result"]["detail"] == ("the page changed: its form no longer has the button control 'op'; "
                                           "nothing was sent")
        assert _calls(backend) == []
    finally:
        page.close()
