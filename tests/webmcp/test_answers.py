"""What the WebMCP runtime reports about the answer to a form it sent: redirects follow the browser's
rules (a same-origin redirect is followed and reported with the final URL; a redirect to another origin is
followed too, as a form submission would be, and its answer, which the page cannot read, is reported as opaque);
a form whose action is on another origin is sent and its opaque answer reported as such, never as a success.
Real Chromium with WebMCP; two loopback backends (the page's origin and another one) record every request."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from axag.cli.group import main
from axag.serve.binding import run_form
from tests.serve_backend import Backend, Recorded, running_backend, serving
from tests.webmcp.test_browser import Page, browser, compile_with_module, playwright

__all__ = ["browser", "playwright"]  # the module-scoped browser fixtures

RISK = 'axag-action-type="write" axag-risk-level="low" axag-idempotent="false" axag-side-effects=\'["x"]\''
MODULE = '<script type="module" src="/axag-webmcp.js"></script>'


def _form(intent: str, action: str) -> str:
    return (f'<form id="{intent.replace(".", "-")}" action="{action}" method="post">\n'
            f'  <label>Text <input name="text" required></label>\n'
            f'  <button type="submit" axag-intent="{intent}" {RISK} axag-description="Send it">Send</button>\n'
            "</form>\n")


def _page(other: str) -> str:
    forms = [("go.same303", "/go/same303"), ("go.same307", "/go/same307"), ("go.away", "/go/away"),
             ("note.away", f"{other}/collect"), ("big.json", "/big/json"), ("big.text", "/big/text"),
             ("small.json", "/small/json"), ("big.fail", "/big/fail")]
    return ('<!DOCTYPE html>\n<html lang="en"><head><title>t</title></head><body axag-scope="user">\n'
            + "".join(_form(i, a) for i, a in forms) + MODULE + "\n</body></html>\n")


@pytest.fixture
def origins(tmp_path: Path) -> Iterator[tuple[Backend, Backend, dict[str, Any]]]:
    """(the page's backend, another origin's backend, the compiled tools). The page's backend answers
    /go/same303 and /go/same307 with a redirect to /landed, and /go/away with a redirect to the other origin."""
    with running_backend(tmp_path / "other-site") as other:
        site = tmp_path / "site"
        site.mkdir()
        (site / "doc.html").write_text(_page(other.url), encoding="utf-8")
        doc = compile_with_module(site, tmp_path / "tools.json")
        # the page may fetch from both origins (connect-src); no inline script or style anywhere
        csp = f"default-src 'self'; connect-src 'self' {other.url}; object-src 'none'"
        backend = Backend([site], page_headers={"content-security-policy": csp})

        async def redirect(request: Request) -> Response:
            await backend._record(request)
            hop = request.path_params["hop"]
            if hop == "away":
                return RedirectResponse(f"{other.url}/elsewhere", status_code=303)
            return RedirectResponse("/landed", status_code=int(hop.removeprefix("same")))

        async def big(request: Request) -> Response:
            await backend._record(request)
            kind = request.path_params["kind"]
            if kind == "fail":  # an error page longer than the cut
                return PlainTextResponse("Internal trouble: " + "the database is down. " * 60, status_code=500)
            if kind == "text":
                return PlainTextResponse("\u00e9t\u00e9 " * 400)  # multi-byte characters across the cut
            return JSONResponse({"items": ["\u00e9l\u00e9ment"] * 200})

        async def small(request: Request) -> Response:
            await backend._record(request)
            return JSONResponse({"items": ["x"] * 10})

        app = backend.app()
        app.router.routes.insert(0, Route("/go/{hop}", redirect, methods=["GET", "POST"]))
        app.router.routes.insert(0, Route("/big/{kind}", big, methods=["POST"]))
        app.router.routes.insert(0, Route("/small/json", small, methods=["POST"]))
        with serving(app) as url:
            backend.url = url
            yield backend, other, doc


def _sent(backend: Backend) -> list[tuple[str, str, list[tuple[str, str]]]]:
    return [(r.method, r.path, r.form) for r in backend.requests if not r.path.endswith((".html", ".js", ".ico"))]


def _serve_sends(backend: Backend, doc: dict[str, Any], name: str, args: dict[str, Any]) -> list[Recorded]:
    """What `axag serve` sends to the page's backend for the same call (its requests, redirects included)."""
    before = len(backend.requests)
    _serve_answers(backend, doc, name, args, 65536)
    return backend.requests[before:]


def _serve_answers(backend: Backend, doc: dict[str, Any], name: str, args: dict[str, Any], cut: int) -> Any:
    """`axag serve`'s answer (`BackendAnswer`) to the same call, its body cut at ``cut`` bytes."""
    binding = next(t for t in doc["tools"] if t["name"] == name)["_meta"]["org.axag/http"]
    answers: list[Any] = []

    async def go() -> None:
        async with httpx.AsyncClient() as client:
            answers.append(await run_form(client, backend.url, binding, args, cut))

    worker = threading.Thread(target=lambda: asyncio.run(go()))  # Playwright's loop runs in this thread
    worker.start()
    worker.join(30)
    return answers[0]


@pytest.mark.parametrize(("hop", "landed"), [("same303", ("GET", "/landed", [])),
                                              ("same307", ("POST", "/landed", [("text", "T")]))])
def test_a_same_origin_redirect_is_followed_and_reported(
        browser: Any, origins: tuple[Backend, Backend, dict[str, Any]], hop: str,
        landed: tuple[str, str, list[tuple[str, str]]]) -> None:
    """303 turns the POST into a GET of the target, 307 sends the same POST again (the browser's rules, and
    serve's): the answer is the target's, with the URL it came from."""
    backend, other, doc = origins
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        got = page.call(f"go_{hop}", {"text": "T"})
        assert got["success"] is True, got
        method = landed[0]
        assert got["result"] == {"status": 200, "content_type": "application/json", "url": f"{backend.url}/landed",
                                 "body": {"ok": True, "path": "/landed", "method": method,
                                          "form": [list(p) for p in landed[2]], "json": None}}
        assert _sent(backend) == [("POST", f"/go/{hop}", [("text", "T")]), landed]
        assert page.page.url == f"{backend.url}/doc.html"
        assert page.errors == []
    finally:
        page.close()
    served = _serve_sends(backend, doc, f"go_{hop}", {"text": "T"})
    assert [(r.method, r.path, r.form) for r in served] == [("POST", f"/go/{hop}", [("text", "T")]), landed]
    assert other.requests == []


def test_a_redirect_to_another_origin_is_followed_and_its_answer_reported_as_opaque(
        browser: Any, origins: tuple[Backend, Backend, dict[str, Any]]) -> None:
    """The call reached the page's site, which redirected it elsewhere: the browser follows (as it would for the
    form), the other origin's answer cannot be read, and the envelope says the call has run, never that it
    failed to reach the site or that it succeeded."""
    backend, other, _ = origins
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        got = page.call("go_away", {"text": "T"})
        assert got["success"] is False, got
        assert got["permission"] == "not_required"
        assert got["result"] == {
            "status": None, "opaque": True, "error": "redirected_elsewhere",
            "detail": "the site answered with a redirect to another origin, which the browser followed; this page "
                      "cannot read the answer from there"}
        assert got["guidance"] == (
            "go_away has run: it reached the site, which redirected it to another origin; the browser followed "
            "the redirect, and this page cannot read the answer from there, so whether it succeeded is unknown. "
            "It was not retried. Tell the user; do not repeat the call unless the user asks.")
        assert _sent(backend) == [("POST", "/go/away", [("text", "T")])]
        assert _sent(other) == [("GET", "/elsewhere", [])]  # followed, as the browser's rules say
        assert page.page.url == f"{backend.url}/doc.html"
        assert page.errors == []
    finally:
        page.close()


def test_a_cross_origin_action_is_sent_and_its_answer_reported_as_opaque(
        browser: Any, origins: tuple[Backend, Backend, dict[str, Any]]) -> None:
    """A form whose action is on another origin is sent there exactly as the page declares; the answer is opaque
    to the page (no CORS read), and the envelope says so: sent, answered, outcome unknown."""
    backend, other, _ = origins
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        got = page.call("note_away", {"text": "T & U"})
        assert got["success"] is False, got
        assert got["permission"] == "not_required"
        assert got["result"] == {
            "status": None, "opaque": True, "error": "answer_unreadable", "origin": other.url,
            "detail": f"the request was sent to {other.url}, another origin, whose answer this page cannot read"}
        assert got["guidance"] == (
            f"note_away has run: it was sent to {other.url}, another origin, which answered, but this page cannot "
            "read an answer from another origin, so whether it succeeded is unknown. It was not retried. Tell the "
            "user; do not repeat the call unless the user asks.")
        assert _sent(backend) == []
        sent = [r for r in other.requests if r.path == "/collect"]
        assert [(r.method, r.content_type, r.form) for r in sent] == [
            ("POST", "application/x-www-form-urlencoded", [("text", "T & U")])]
        assert sent[0].cookies == {}  # the page's session cookie stays on its own origin
        assert page.errors == []
    finally:
        page.close()


CUT = 1000


@pytest.mark.parametrize("name", ["big_json", "big_text", "small_json", "big_fail"])
def test_the_answer_is_cut_at_max_result_bytes_as_serve_cuts_it(
        browser: Any, origins: tuple[Backend, Backend, dict[str, Any]], tmp_path: Path, name: str) -> None:
    """`axag webmcp --max-result-bytes 1000`: the page reports the status, content type and body serve reports
    for the same answer: a JSON body that fits is parsed, one that does not is the first 1000 bytes as text,
    marked `truncated`; an error status is a failure that quotes the start of the body."""
    backend, _, doc = origins
    site = backend.sites[0]
    done = CliRunner().invoke(main, ["webmcp", str(tmp_path / "tools.json"), "-o", str(site),
                                     "--max-result-bytes", str(CUT)])
    assert done.exit_code == 0, done.output
    page = Page(browser, f"{backend.url}/doc.html")
    try:
        got = page.call(name, {"text": "T"})
        assert page.errors == [] or name == "big_fail"  # Chromium logs the 500 to the console
    finally:
        page.close()
    served = _serve_answers(backend, doc, name, {"text": "T"}, CUT)
    assert got["result"] == served.result
    assert got["success"] is served.ok
    if name == "big_fail":
        assert got["guidance"].startswith('big_fail passed its checks but the backend answered HTTP 500: '
                                          '"Internal trouble: the database is down.')
    elif name == "small_json":
        assert got["result"]["body"] == {"items": ["x"] * 10} and "truncated" not in got["result"]
    else:
        assert got["result"]["truncated"] is True
