"""Rate limits and cooldowns in the page: the runtime's guard store (the TypeScript runtime's
InMemoryStore, one per page load) enforces them before anything is sent, and a refused call answers the envelope
the Python guard gives for the same sequence of calls. Real Chromium with WebMCP, a loopback backend that records
every request."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from axag.guards.render import write_guards
from tests.serve_backend import Backend, running_backend
from tests.webmcp.test_browser import CSP, Page, _calls, browser, compile_with_module, playwright

__all__ = ["browser", "playwright"]  # the module-scoped browser fixtures

WRITE = 'axag-action-type="write" axag-risk-level="low" axag-idempotent="false" axag-side-effects=\'["x"]\''
PAGE = f"""<!DOCTYPE html>
<html lang="en"><head><title>t</title></head><body axag-scope="user">
<form id="notes" action="/notes" method="post">
  <label>Text <input name="text" required></label>
  <button type="submit" axag-intent="note.add" {WRITE} axag-rate-limit="2/minute" axag-description="Add a note">Add</button>
</form>
<form id="pings" action="/pings" method="post">
  <label>To <input name="to" required></label>
  <button type="submit" axag-intent="ping.send" {WRITE} axag-rate-limit="1/hour" axag-cooldown="10s"
          axag-description="Send a ping">Ping</button>
</form>
<button type="button" axag-intent="bell.ring" {WRITE} axag-cooldown="1h" axag-description="Ring the bell">Ring</button>
<script type="module" src="/axag-webmcp.js"></script>
</body></html>
"""


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[tuple[Backend, ModuleType]]:
    """The page's backend and the Python guards generated for the same tools (`axag guards`)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "doc.html").write_text(PAGE, encoding="utf-8")
    doc = compile_with_module(site, tmp_path / "tools.json")
    write_guards(doc, tmp_path / "limits_guards")
    spec = importlib.util.spec_from_file_location("limits_guards", tmp_path / "limits_guards" / "__init__.py",
                                                  submodule_search_locations=[str(tmp_path / "limits_guards")])
    assert spec is not None and spec.loader is not None
    guards = importlib.util.module_from_spec(spec)
    sys.modules["limits_guards"] = guards
    try:
        spec.loader.exec_module(guards)
        with running_backend(site, page_headers={"content-security-policy": CSP}) as backend:
            yield backend, guards
    finally:
        for name in [m for m in sys.modules if m == "limits_guards" or m.startswith("limits_guards.")]:
            del sys.modules[name]


def _python_refusal(guards: ModuleType, name: str, calls: list[dict[str, Any]], waited: float) -> dict[str, Any]:
    """The Python guard's envelope for the last of ``calls``, the earlier ones having run at t=1000 and the last
    one made ``waited`` seconds later (a fresh store: one page load)."""
    guard = guards.make_guards()[name]
    for args in calls[:-1]:
        ran = guard.run(lambda a: {"ok": True}, args, guards.GuardContext(now=1000.0))
        assert ran.success, ran
    return dict(guard.check(calls[-1], guards.GuardContext(now=1000.0 + waited)).for_model())


def _retry_after(got: dict[str, Any], full: int) -> int:
    """The page's retry_after_seconds: the whole wait, less the seconds the calls took on this machine."""
    assert got["permission"] == "rate_limited", got
    n = int(got["violations"][0]["actual"]["retry_after_seconds"])
    assert full - 10 < n <= full, got
    return n


def test_a_rate_limit_is_enforced_in_the_page_with_the_python_guards_envelope(
        browser: Any, limited: tuple[Backend, ModuleType]) -> None:
    backend, guards = limited
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        calls = [{"text": "one"}, {"text": "two"}, {"text": "three"}]
        for args in calls[:2]:
            got = page.call("note_add", args)
            assert got["success"] is True and got["result"]["status"] == 200, got
        refused = page.call("note_add", calls[2])
        n = _retry_after(refused, 60)
        assert refused == _python_refusal(guards, "note_add", calls, 60 - n + 0.5)
        assert refused["guidance"] == f"note_add is rate limited (2/minute). Try again in {n} seconds."
        assert [r.form for r in _calls(backend)] == [[("text", "one")], [("text", "two")]]  # the third never sent
        assert page.errors == []
    finally:
        page.close()
    # the limit is per page load: a reload starts a new store
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        assert page.call("note_add", {"text": "four"})["success"] is True
        assert len(_calls(backend)) == 3
    finally:
        page.close()


def test_a_cooldown_on_a_button_is_enforced_in_the_page(browser: Any, limited: tuple[Backend, ModuleType]) -> None:
    backend, guards = limited
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        page.page.evaluate("""window.__rings = 0; document.querySelector('[axag-intent="bell.ring"]')
            .addEventListener('click', () => { window.__rings += 1; })""")
        assert page.call("bell_ring", {})["success"] is True
        refused = page.call("bell_ring", {})
        n = _retry_after(refused, 3600)
        assert refused == _python_refusal(guards, "bell_ring", [{}, {}], 3600 - n + 0.5)
        assert refused["violations"][0]["constraint"] == "cooldown"
        assert refused["violations"][0]["message"] == (
            f"bell_ring needs a cooldown of 1h between calls; retry after {n} seconds.")
        assert page.page.evaluate("window.__rings") == 1  # the second call did not click
        assert page.errors == []
    finally:
        page.close()


def test_a_rate_limit_and_a_cooldown_together_name_the_longer_wait(
        browser: Any, limited: tuple[Backend, ModuleType]) -> None:
    backend, guards = limited
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        calls = [{"to": "ann"}, {"to": "bob"}]
        assert page.call("ping_send", calls[0])["success"] is True
        refused = page.call("ping_send", calls[1])
        n = _retry_after(refused, 3600)  # the hour's limit outlasts the 10 s cooldown
        assert refused == _python_refusal(guards, "ping_send", calls, 3600 - n + 0.5)
        assert refused["violations"][0]["constraint"] == "rate_limit"
        assert [r.path for r in _calls(backend)] == ["/pings"]
    finally:
        page.close()
