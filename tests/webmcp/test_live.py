"""The WebMCP runtime takes from the live page exactly the constants the form binding lists as `live`
(docs/webmcp.md): hidden inputs and template values, found in the annotated element's own form by control
kind and occurrence; every other constant (the submitter, read-only controls) keeps its compiled value; a `live`
constant missing from the live form refuses the call with nothing sent. What the page sends is compared with what
`axag serve` sends for the same page (tests/webmcp/test_browser.py's helpers, real Chromium with WebMCP)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axag.serve.binding import PageChanged, live_values
from tests.serve_backend import Backend, running_backend
from tests.webmcp.test_browser import (
    CSP,
    Page,
    _calls,
    _serve_sends,
    _shape,
    browser,
    compile_with_module,
    playwright,
)

__all__ = ["browser", "playwright"]  # the module-scoped browser fixtures

RISK = 'axag-action-type="write" axag-risk-level="low" axag-idempotent="false" axag-side-effects=\'["x"]\''
MODULE = '<script type="module" src="/axag-webmcp.js"></script>'


def _form(rev: str, trailing_op: bool) -> str:
    """A form whose annotated submitter `op=save` has a same-named sibling button before it; `trailing_op` adds a
    hidden input of the submitter's name after it (so a constant's name alone does not say where its value is)."""
    trailing = f'\n  <input type="hidden" name="op" value="{rev}-op">' if trailing_op else ""
    return f'''<!DOCTYPE html>
<html lang="en"><head><title>t</title></head><body axag-scope="user">
<form id="doc" action="/docs" method="post">
  <label>Title <input name="title" required></label>
  <input type="hidden" name="rev" value="{rev}">
  <input type="hidden" name="csrf" value="token">
  <label>Owner <input name="owner" value="ann" readonly></label>
  <button type="submit" name="op" value="delete">Delete</button>
  <button type="submit" name="op" value="save" axag-intent="doc.save" {RISK} axag-description="Save">Save</button>{trailing}
</form>
{MODULE}
</body></html>
'''


def _compiled_site(tmp: Path, html: str) -> tuple[Path, dict[str, Any]]:
    """`doc.html` compiled (tools.json) and its module written beside it (`axag webmcp`)."""
    site = tmp / "site"
    site.mkdir()
    (site / "doc.html").write_text(html, encoding="utf-8")
    return site, compile_with_module(site, tmp / "tools.json")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, Backend]]:
    site = tmp_path / "served"
    site.mkdir()
    with running_backend(site, page_headers={"content-security-policy": CSP}) as b:
        yield site, b


def _serve_page(served: tuple[Path, Backend], site: Path, html: str) -> Backend:
    """The live page (`html`) served with the compiled module."""
    folder, backend = served
    (folder / "doc.html").write_text(html, encoding="utf-8")
    (folder / "axag-webmcp.js").write_bytes((site / "axag-webmcp.js").read_bytes())
    return backend


def test_a_hidden_constant_gone_from_the_live_form_refuses_the_call(
        browser: Any, tmp_path: Path, served: tuple[Path, Backend]) -> None:
    compiled = _form("r1", False)
    site, doc = _compiled_site(tmp_path, compiled)
    live = compiled.replace('<input type="hidden" name="rev" value="r1">', "")
    backend = _serve_page(served, site, live)
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        got = page.call("doc_save", {"title": "T"})
        assert got["success"] is False, got
        assert got["result"] == {"status": None, "error": "page_changed",
                                 "detail": "the page changed: its form no longer has the hidden control 'rev'; "
                                           "nothing was sent"}
        assert "was not run: the page changed" in got["guidance"]
        assert _calls(backend) == []
        assert page.page.input_value("input[name=title]") == ""  # not even filled
        assert page.errors == []
    finally:
        page.close()
    # serve refuses the same page for the same reason
    binding = next(t for t in doc["tools"] if t["name"] == "doc_save")["_meta"]["org.axag/http"]
    with pytest.raises(PageChanged, match="^its form no longer has the hidden control 'rev'$"):
        live_values(live, binding, f"{backend.url}/doc.html")


@pytest.mark.parametrize("trailing_op", [False, True], ids=["hidden-rev", "hidden-rev-and-op"])
def test_the_submitter_keeps_its_compiled_value_and_hidden_values_are_live(
        browser: Any, tmp_path: Path, served: tuple[Path, Backend], trailing_op: bool) -> None:
    site, doc = _compiled_site(tmp_path, _form("r1", trailing_op))
    # the live page: new hidden values, and the read-only value and the buttons' values changed (they stay compiled)
    live = (_form("r2", trailing_op).replace('value="ann" readonly', 'value="mallory" readonly')
            .replace('value="save" axag-intent', 'value="publish" axag-intent'))
    backend = _serve_page(served, site, live)
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        got = page.call("doc_save", {"title": "T"})
        assert got["success"] is True, got
        sent = _calls(backend)
        assert len(sent) == 1
        expected = [("title", "T"), ("rev", "r2"), ("csrf", "<token>"), ("owner", "ann"), ("op", "save")]
        if trailing_op:
            expected.append(("op", "r2-op"))
        assert _shape(sent[0])["fields"] == expected
        assert _shape(sent[0]) == _shape(_serve_sends(backend, doc, "doc_save", {"title": "T"}))
        assert page.errors == []
    finally:
        page.close()


CONTROL = st.sampled_from(["hidden", "readonly", "button"])


@st.composite
def _layouts(draw: st.DrawFn) -> tuple[list[tuple[str, str]], int]:
    """Controls of names `op` / `a` (hidden inputs, read-only inputs, other submit buttons) and where the
    annotated submitter `op` stands among them."""
    controls = draw(st.lists(st.tuples(CONTROL, st.sampled_from(["op", "a"])), min_size=1, max_size=5))
    return controls, draw(st.integers(0, len(controls)))


def _layout_page(controls: list[tuple[str, str]], at: int, tag: str, drop: int | None = None) -> str:
    parts = []
    for i, (kind, name) in enumerate(controls):
        if i == at:
            parts.append(f'<button type="submit" name="op" value="s-{tag}" axag-intent="doc.save" {RISK} '
                         'axag-description="Save">Save</button>')
        if i == drop:
            continue
        value = f"{kind}{i}-{tag}"
        parts.append({"hidden": f'<input type="hidden" name="{name}" value="{value}">',
                      "readonly": f'<label>R{i} <input name="{name}" value="{value}" readonly></label>',
                      "button": f'<button type="submit" name="{name}" value="{value}">B{i}</button>'}[kind])
    if at == len(controls):
        parts.append(f'<button type="submit" name="op" value="s-{tag}" axag-intent="doc.save" {RISK} '
                     'axag-description="Save">Save</button>')
    body = "\n  ".join(parts)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><title>t</title></head><body axag-scope="user">\n'
            f'<form id="doc" action="/docs" method="post">\n  <label>Title <input name="title" required></label>\n'
            f'  {body}\n</form>\n{MODULE}\n</body></html>\n')


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
          derandomize=True)
@given(layout=_layouts(), drop_hidden=st.booleans())
def test_the_page_sends_what_serve_sends_for_any_layout(
        browser: Any, served: tuple[Path, Backend], layout: tuple[list[tuple[str, str]], int],
        drop_hidden: bool) -> None:
    """Every value changed in the live page: the browser sends exactly serve's pairs (the live hidden values,
    every other constant compiled), and when a hidden input is gone both refuse and nothing is sent."""
    controls, at = layout
    hidden = [i for i, (kind, _) in enumerate(controls) if kind == "hidden"]
    drop = hidden[0] if drop_hidden and hidden else None
    with tempfile.TemporaryDirectory() as tmp:
        site, doc = _compiled_site(Path(tmp), _layout_page(controls, at, "compiled"))
        live = _layout_page(controls, at, "live", drop)
        backend = _serve_page(served, site, live)
        before = len(_calls(backend))
        page = Page(browser, f"{backend.url}/doc.html")
        try:
            got = page.call("doc_save", {"title": "T"})
            sent = _calls(backend)[before:]
            if drop is not None:
                assert got["success"] is False and got["result"]["error"] == "page_changed", got
                assert sent == []
                binding = next(t for t in doc["tools"] if t["name"] == "doc_save")["_meta"]["org.axag/http"]
                with pytest.raises(PageChanged):
                    live_values(live, binding, f"{backend.url}/doc.html")
                return
            assert got["success"] is True, got
            assert len(sent) == 1
            fields = _shape(sent[0])["fields"]
            assert ("op", "s-compiled") in fields and not any(v.startswith("s-live") for _, v in fields)
            assert _shape(sent[0]) == _shape(_serve_sends(backend, doc, "doc_save", {"title": "T"}))
        finally:
            page.close()


def test_a_navigate_link_sends_the_get_of_its_href_as_serve_does(
        browser: Any, tmp_path: Path, served: tuple[Path, Backend]) -> None:
    """A navigate link to a page of the site is bound as the GET of its href: the page sends that GET
    (no form, nothing filled) without navigating away, as serve does; before, the runtime looked for a form and
    refused the call as "page changed"."""
    html = f'''<!DOCTYPE html>
<html lang="en"><head><title>t</title></head><body axag-scope="user">
<a href="/orders.html?status=open" axag-intent="order.list_open" axag-action-type="navigate" axag-risk-level="none"
   axag-description="Open orders">Open orders</a>
{MODULE}
</body></html>
'''
    site, doc = _compiled_site(tmp_path, html)
    binding = next(t for t in doc["tools"] if t["name"] == "order_list_open")["_meta"]["org.axag/http"]
    assert binding["method"] == "GET" and binding["live"] == [] and "form" not in binding
    backend = _serve_page(served, site, html)
    (served[0] / "orders.html").write_text("<p>open orders</p>", encoding="utf-8")
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        got = page.call("order_list_open", {})
        assert got["success"] is True, got
        assert page.page.url == f"{backend.url}/doc.html"  # the page stayed
        orders = [r for r in backend.requests if r.path == "/orders.html"]
        assert [(r.method, r.query) for r in orders] == [("GET", [("status", "open")])]
        assert page.errors == []
    finally:
        page.close()
    import asyncio

    import httpx

    from axag.serve.binding import run_form

    before = len([r for r in backend.requests if r.path == "/orders.html"])

    async def serve_sends() -> None:
        async with httpx.AsyncClient() as client:
            await run_form(client, backend.url, binding, {}, 65536)

    import threading

    worker = threading.Thread(target=lambda: asyncio.run(serve_sends()))  # Playwright's loop runs in this thread
    worker.start()
    worker.join(30)
    sent = [r for r in backend.requests if r.path == "/orders.html"][before:]
    assert [(r.method, r.query) for r in sent] == [("GET", [("status", "open")])]
