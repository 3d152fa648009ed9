"""What the WebMCP runtime sends for a form's other encodings, and the page's own checks: a
multipart/form-data and a text/plain form send what `axag serve` sends for the same arguments (method, path,
content type without its boundary, the fields in order, and for text/plain the exact body); a state precondition
is decided by the page's checker, sync or async (false refuses, nothing is sent), and required roles come from
`configure({roles})`. Real Chromium with WebMCP; a loopback backend records every request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.serve_backend import Backend
from tests.webmcp.test_browser import Page, _calls, _serve_sends, _shape, browser, playwright
from tests.webmcp.test_live import _compiled_site, _serve_page, served

__all__ = ["browser", "playwright", "served"]  # the fixtures

WRITE = 'axag-action-type="write" axag-risk-level="low" axag-idempotent="false" axag-side-effects=\'["x"]\''


def _page(setup: bool = False) -> str:
    """The page; with ``setup``, a module of the site's (`/setup.js`) configures the runtime first."""
    first = '<script type="module" src="/setup.js"></script>\n' if setup else ""
    return f'''<!DOCTYPE html>
<html lang="en"><head><title>t</title></head><body axag-scope="user">
<form id="multi" action="/upload-notes" method="post" enctype="multipart/form-data">
  <label>Title <input name="title" required></label>
  <label>Body <textarea name="body"></textarea></label>
  <input type="hidden" name="csrf" value="token">
  <button type="submit" name="op" value="save" axag-intent="note.save" {WRITE} axag-description="Save">Save</button>
</form>
<form id="plain" action="/plain-notes" method="post" enctype="text/plain">
  <label>Title <input name="title" required></label>
  <button type="submit" axag-intent="note.mail" {WRITE} axag-description="Mail it">Mail</button>
</form>
<form id="gated" action="/gated" method="post">
  <label>Title <input name="title" required></label>
  <button type="submit" axag-intent="note.publish" {WRITE} axag-description="Publish"
          axag-preconditions='["note_is_draft"]' axag-required-roles='["editor"]'>Publish</button>
</form>
{first}<script type="module" src="/axag-webmcp.js"></script>
</body></html>
'''


def test_multipart_and_text_plain_send_what_serve_sends(browser: Any, tmp_path: Path,
                                                        served: tuple[Path, Backend]) -> None:
    site, doc = _compiled_site(tmp_path, _page())
    backend = _serve_page(served, site, _page())
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        multi = {"title": "Caf\u00e9 & co", "body": "line one\r\nline two"}
        assert page.call("note_save", multi)["success"] is True
        assert page.call("note_mail", {"title": "A=B"})["success"] is True
        sent = _calls(backend)
        assert len(sent) == 2
        assert _shape(sent[0])["content_type"] == "multipart/form-data"
        assert _shape(sent[0])["fields"] == [("title", "Caf\u00e9 & co"), ("body", "line one\r\nline two"),
                                             ("csrf", "<token>"), ("op", "save")]
        assert _shape(sent[0]) == _shape(_serve_sends(backend, doc, "note_save", multi))
        assert sent[1].content_type.split(";")[0] == "text/plain"
        assert sent[1].body == b"title=A=B\r\n"
        served_plain = _serve_sends(backend, doc, "note_mail", {"title": "A=B"})
        assert (sent[1].method, sent[1].path, sent[1].body) == (served_plain.method, served_plain.path,
                                                                served_plain.body)
        assert page.errors == []
    finally:
        page.close()


IMPORT = 'import { configure } from "/axag-webmcp.js";\n'
SYNC_NO = IMPORT + 'configure({ preconditions: () => false, roles: ["editor"] });\n'
ASYNC_YES = IMPORT + ('configure({ preconditions: async (text, args, tool) => { window.__asked = [text, args, tool];\n'
                      '  await new Promise((r) => setTimeout(r, 20)); return text === "note_is_draft"; },\n'
                      '  roles: ["editor"] });\n')
NO_ROLE = IMPORT + 'configure({ preconditions: () => true, roles: ["viewer"] });\n'


def _configured(served: tuple[Path, Backend], site: Path, setup: str) -> Backend:
    """The page served with the module and a `/setup.js` that configures it (the CSP allows no inline script)."""
    (served[0] / "setup.js").write_text(setup, encoding="utf-8")
    return _serve_page(served, site, _page(True))


def test_the_pages_checker_decides_state_preconditions_sync_or_async(
        browser: Any, tmp_path: Path, served: tuple[Path, Backend]) -> None:
    site, _ = _compiled_site(tmp_path, _page())
    backend = _configured(served, site, SYNC_NO)
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        got = page.call("note_publish", {"title": "T"})
        assert got["success"] is False and got["permission"] == "precondition_failed", got
        assert "note_is_draft" in got["guidance"]
        assert _calls(backend) == []
    finally:
        page.close()
    _configured(served, site, ASYNC_YES)
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        got = page.call("note_publish", {"title": "T"})
        assert got["success"] is True, got
        assert page.page.evaluate("window.__asked") == ["note_is_draft", {"title": "T"}, "note_publish"]
        assert [r.path for r in _calls(backend)] == ["/gated"]
    finally:
        page.close()


def test_required_roles_come_from_configure(browser: Any, tmp_path: Path, served: tuple[Path, Backend]) -> None:
    site, _ = _compiled_site(tmp_path, _page())
    backend = _configured(served, site, NO_ROLE)
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        got = page.call("note_publish", {"title": "T"})
        assert got["success"] is False and got["permission"] == "denied", got
        assert "editor" in got["guidance"]
        assert _calls(backend) == []
    finally:
        page.close()
