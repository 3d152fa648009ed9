"""The WebMCP runtime in a real browser: Playwright drives Debian's Chromium with
``--enable-features=WebMCP`` against the example site's pages, served by the loopback backend that records every
request, with the module `axag webmcp` writes. What the page sends is compared with what `axag serve` sends for
the same arguments (axag/serve/binding.py against the same backend)."""

from __future__ import annotations

import asyncio
import importlib
import json
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axag.cli.group import main
from tests.browser import CHROMIUM, CHROMIUM_ARGS, missing, need
from tests.conftest import REPO
from tests.serve_backend import Backend, Recorded, running_backend

SITE = REPO / "fixtures" / "site"
CSP = "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'"
SETUP = """import { configure } from "/axag-webmcp.js";
// room_available holds; any other state precondition is one this page cannot check (undefined)
configure({ preconditions: (text) => (["room_available", "season_is_open"].includes(text) ? true : undefined),
            roles: ["staff"] });
"""


def _site(tmp: Path) -> tuple[Path, dict[str, Any]]:
    """The example site with the module, the tools compiled from it (mcp), and a page setup script."""
    site = tmp / "site"
    site.mkdir()
    for page in SITE.glob("*.html"):
        html = page.read_text(encoding="utf-8")
        html = html.replace("</body>", '<script type="module" src="/setup.js"></script>\n'
                                       '<script type="module" src="/axag-webmcp.js"></script>\n</body>')
        (site / page.name).write_text(html, encoding="utf-8")
    (site / "setup.js").write_text(SETUP, encoding="utf-8")
    return site, compile_with_module(site, tmp / "tools.json")


def compile_with_module(site: Path, out: Path) -> dict[str, Any]:
    """The site's pages compiled to ``out`` (mcp) and `axag webmcp`'s module written into the site."""
    runner = CliRunner()
    done = runner.invoke(main, ["compile", str(site), "--root", str(site), "-o", str(out)])
    assert done.exit_code == 0, done.output
    # the module from the tools file (the same as from the pages: both are `axag webmcp` inputs)
    done = runner.invoke(main, ["webmcp", str(out), "-o", str(site)])
    assert done.exit_code == 0, done.output
    return dict(json.loads(out.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    return _site(tmp_path_factory.mktemp("webmcp"))


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    need(CHROMIUM, "Chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright (pip install -e '.[test]')")
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Any) -> Iterator[Any]:
    b = playwright.chromium.launch(executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, "--enable-features=WebMCP"])
    yield b
    b.close()


@pytest.fixture
def backend(site: tuple[Path, dict[str, Any]]) -> Iterator[Backend]:
    with running_backend(site[0], page_headers={"content-security-policy": CSP}) as b:
        yield b


class Page:
    def __init__(self, browser: Any, url: str) -> None:
        self.context = browser.new_context()
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(url)
        self.page.wait_for_function("document.modelContext && document.readyState === 'complete'")

    def tools(self) -> list[dict[str, Any]]:
        return list(self.page.evaluate("""async () => (await document.modelContext.getTools()).map(
            (t) => ({name: t.name, description: t.description,
                     inputSchema: typeof t.inputSchema === "string" ? JSON.parse(t.inputSchema) : t.inputSchema}))"""))

    def names(self) -> list[str]:
        return sorted(t["name"] for t in self.tools())

    def start(self, name: str, args: dict[str, Any]) -> None:
        """Start executeTool without waiting (a confirmation may be shown); `result` waits for it."""
        self.page.evaluate("""([name, args]) => { window.__axagResult = (async () => {
            const tool = (await document.modelContext.getTools()).find((t) => t.name === name);
            return JSON.parse(await document.modelContext.executeTool(tool, args)); })(); }""", [name, args])

    def result(self) -> dict[str, Any]:
        return dict(self.page.evaluate("window.__axagResult"))

    def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        self.start(name, args)
        return self.result()

    def close(self) -> None:
        self.context.close()


def _calls(backend: Backend) -> list[Recorded]:
    return [r for r in backend.requests if not r.path.endswith((".html", ".js", ".ico"))]


def _shape(r: Recorded) -> dict[str, Any]:
    """What the comparison reads: method, path, query, content type without its boundary, decoded fields in
    order (a CSRF token is checked by the backend: each session gets its own, so only its name is compared)."""
    ctype = r.content_type.split(";")[0].strip()
    fields = [(k, "<token>" if k == "csrf" else v) for k, v in r.form]
    return {"method": r.method, "path": r.path, "query": r.query, "content_type": ctype, "fields": fields}


def _serve_sends(backend: Backend, doc: dict[str, Any], name: str, args: dict[str, Any]) -> Recorded:
    from axag.serve.binding import run_form

    tool = next(t for t in doc["tools"] if t["name"] == name)
    before = len(backend.requests)

    answers: list[Any] = []

    async def go() -> None:
        async with httpx.AsyncClient() as client:
            answers.append(await run_form(client, backend.url, tool["_meta"]["org.axag/http"], args, 65536))

    worker = threading.Thread(target=lambda: asyncio.run(go()))  # Playwright's loop runs in this thread
    worker.start()
    worker.join()
    assert answers and answers[0].ok, answers
    sent = [r for r in backend.requests[before:] if not r.path.endswith(".html")]
    assert len(sent) == 1
    return sent[0]


def _python_guards(doc: dict[str, Any], tmp: Path) -> Any:
    from axag.guards.render import write_guards

    write_guards(doc, tmp / "site_guards")
    sys.path.insert(0, str(tmp))
    try:
        return importlib.import_module("site_guards")
    finally:
        sys.path.remove(str(tmp))


# ---------------------------------------------------------------- registration

def test_get_tools_lists_exactly_the_page_tools(browser: Any, backend: Backend,
                                                site: tuple[Path, dict[str, Any]]) -> None:
    doc = site[1]
    by_name = {t["name"]: t for t in doc["tools"]}
    expected = {"booking.html": ["booking_cancel", "booking_create", "session_sign_out", "site_search"],
                "index.html": ["room_compare", "session_sign_out", "site_search"],
                "admin.html": ["rate_update"]}
    for page_name, names in expected.items():
        page = Page(browser, f"{backend.url}/{page_name}")
        try:
            tools = page.tools()
            assert sorted(t["name"] for t in tools) == names
            for t in tools:
                assert t["description"] == by_name[t["name"]]["description"]
                assert t["inputSchema"] == by_name[t["name"]]["inputSchema"]
            assert page.errors == []
        finally:
            page.close()


def test_disabled_element_is_withdrawn_and_comes_back(browser: Any, backend: Backend) -> None:
    page = Page(browser, f"{backend.url}/booking.html")
    try:
        sign_out = "document.querySelector('[axag-intent=\"session.sign_out\"]')"
        page.page.evaluate(f"{sign_out}.disabled = true")
        page.page.wait_for_timeout(50)
        assert "session_sign_out" not in page.names()
        page.page.evaluate(f"{sign_out}.disabled = false")
        page.page.wait_for_timeout(50)
        assert "session_sign_out" in page.names()
        page.page.evaluate(f"{sign_out}.hidden = true")
        page.page.wait_for_timeout(50)
        assert "session_sign_out" not in page.names()
        page.page.evaluate(f"{sign_out}.remove()")
        page.page.wait_for_timeout(50)
        assert "session_sign_out" not in page.names()
        page.page.evaluate("document.querySelector('header').append(Object.assign(document.createElement('button'), "
                           "{textContent: 'Sign out'}))")
        page.page.evaluate("document.querySelector('header button:last-child').setAttribute('axag-intent', "
                           "'session.sign_out')")
        page.page.wait_for_timeout(50)
        assert "session_sign_out" in page.names()
        assert page.errors == []
    finally:
        page.close()


def test_without_model_context_the_module_does_nothing(playwright: Any, backend: Backend) -> None:
    b = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    try:
        page = b.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{backend.url}/booking.html")
        page.wait_for_load_state("load")
        page.wait_for_timeout(200)
        assert page.evaluate("document.modelContext") is None
        assert page.evaluate("async () => typeof (await import('/axag-webmcp.js')).configure") == "function"
        assert errors == []
    finally:
        b.close()


# ---------------------------------------------------------------- guards

INVALID = [
    ("site_search", {"q": "x" * 121}),
    ("site_search", {}),
    ("booking_create", {"check_in": "2026-13-01", "check_out": "2026-02-01", "guests": 11, "email": "nope",
                        "board": "suite"}),
    ("booking_create", {"check_in": "2026-03-05", "check_out": "2026-03-01", "guests": 2, "email": "a@b.example",
                        "board": "breakfast"}),
    ("booking_cancel", {"booking_id": "X1", "reason": "bored"}),
]


def test_invalid_input_gets_the_python_guard_violations_and_sends_nothing(
        browser: Any, backend: Backend, site: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    guards = _python_guards(site[1], tmp_path)
    page = Page(browser, f"{backend.url}/booking.html")
    try:
        for name, args in INVALID:
            got = page.call(name, args)
            want = guards.GUARDS[name].check(args).for_model()
            assert got["permission"] == "constraint_violated", (name, args, got)
            assert got == want, (name, args)
        assert _calls(backend) == []
        assert page.page.locator("axag-confirmation").count() == 0
    finally:
        page.close()


def test_state_precondition_without_checker_is_refused_honestly(browser: Any, backend: Backend) -> None:
    page = Page(browser, f"{backend.url}/booking.html")
    try:
        got = page.call("booking_cancel", {"booking_id": "B000123"})
        assert got["success"] is False and got["permission"] == "precondition_failed"
        assert 'the precondition "booking_is_not_checked_in" cannot be checked here' in got["guidance"]
        assert _calls(backend) == []
    finally:
        page.close()


def test_approval_required_answers_that_no_approver_can_be_reached(browser: Any, backend: Backend) -> None:
    page = Page(browser, f"{backend.url}/admin.html")
    try:
        got = page.call("rate_update", {"category": "suite", "rate": 120, "valid_from": "2026-05-01",
                                        "valid_until": "2026-06-01"})
        assert got["success"] is False and got["permission"] == "approval_required", got
        assert "this page cannot reach an approver: nobody has been asked" in got["guidance"]
        assert _calls(backend) == []
        assert page.page.locator("axag-confirmation").count() == 0
    finally:
        page.close()


VALUES = st.one_of(
    st.text(max_size=8), st.text(alphabet="0123456789-T:Z", min_size=8, max_size=25), st.integers(-5, 15),
    st.floats(allow_nan=False, allow_infinity=False), st.booleans(), st.none(),
    st.lists(st.integers(0, 3), max_size=2), st.sampled_from(["2026-03-01", "2026-02-30", "a@b.example", "breakfast",
                                                              "room_only", "x" * 121, "Ann\r\nid=1"]),
)
BOOKING_KEYS = ["check_in", "check_out", "guests", "email", "board", "note", "extra"]


def _numbers(value: Any) -> Any:
    return json.loads(json.dumps(value), parse_int=float)


def _args(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(keys), VALUES, max_size=len(keys))


def test_envelopes_equal_the_python_guard(browser: Any, site: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """For generated arguments, the envelope `executeTool` answers equals the Python guard's (`axag guards` for
    the same tools), and a refused call never reaches the backend (site_search: every input; booking_create,
    whose valid inputs ask the person, only inputs the guard refuses)."""
    guards = _python_guards(site[1], tmp_path)
    with running_backend(site[0]) as backend:
        page = Page(browser, f"{backend.url}/booking.html")
        try:
            _property(page, guards, backend)
        finally:
            page.close()


def _property(page: Page, guards: Any, backend: Backend) -> None:
    @settings(max_examples=40, deadline=None, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(st.one_of(st.tuples(st.just("site_search"), _args(["q", "page"])),
                     st.tuples(st.just("booking_create"), _args(BOOKING_KEYS))))
    def check(case: tuple[str, dict[str, Any]]) -> None:
        name, args = case
        want = guards.GUARDS[name].check(args).for_model()
        if name == "booking_create" and want["permission"] != "constraint_violated":
            return  # valid values: the page would ask the person (tests/webmcp/test_browser.py)
        before = len(_calls(backend))
        got = page.call(name, args)
        if want["success"]:
            assert got["success"] is True and got["permission"] == want["permission"], (args, got)
            assert len(_calls(backend)) == before + 1
        else:  # numbers compared as JSON reads them (a float's shortest text differs between the languages)
            assert _numbers(got) == _numbers(want), args
            assert len(_calls(backend)) == before

    check()


# ---------------------------------------------------------------- what is sent

def test_get_form_sends_what_serve_sends(browser: Any, backend: Backend, site: tuple[Path, dict[str, Any]]) -> None:
    args = {"q": "sea view & balcony ~ 100% *"}
    page = Page(browser, f"{backend.url}/booking.html")
    try:
        got = page.call("site_search", args)
        assert got["success"] is True and got["permission"] == "not_required", got
        assert got["result"] == {"status": 200, "content_type": "application/json",
                                 "body": {"results": [args["q"]]}}
        assert page.page.evaluate("location.pathname") == "/booking.html"  # the page did not navigate
        assert page.page.input_value("#q") == args["q"]  # filled like a person would
        sent = _calls(backend)
        assert len(sent) == 1
        served = _serve_sends(backend, site[1], "site_search", args)
        assert _shape(sent[0]) == _shape(served)
    finally:
        page.close()


BOOKING = {"check_in": "2026-03-01", "check_out": "2026-03-04", "guests": 2, "email": "ann@example.org",
           "board": "breakfast", "note": "Late arrival, ~23h"}


def test_confirmation_yes_runs_once_and_sends_what_serve_sends(
        browser: Any, backend: Backend, site: tuple[Path, dict[str, Any]]) -> None:
    page = Page(browser, f"{backend.url}/booking.html")
    try:
        page.start("booking_create", BOOKING)
        dialog = page.page.locator("axag-confirmation dialog")
        dialog.wait_for(state="visible")
        assert dialog.locator("p").inner_text() == "Book 2 guests from 2026-03-01 to 2026-03-04?"
        assert "ann@example.org" in dialog.locator("dl").inner_text()
        # styled under a CSP without 'unsafe-inline' (a constructed stylesheet): the rule applied
        assert dialog.evaluate("(d) => getComputedStyle(d).borderTopLeftRadius") == "8px"
        assert _calls(backend) == []  # nothing runs before the person answers
        dialog.get_by_role("button", name="Yes").click()
        got = page.result()
        assert got["success"] is True and got["confirmed"] is True, got
        assert got["result"]["status"] == 201
        assert got["result"]["body"] == {"booking": "B000123", "guests": "2"}
        assert page.page.locator("axag-confirmation").count() == 0
        sent = _calls(backend)
        assert len(sent) == 1
        served = _serve_sends(backend, site[1], "booking_create", BOOKING)
        assert _shape(sent[0]) == _shape(served)
        assert page.errors == []
    finally:
        page.close()


def test_confirmation_no_runs_nothing(browser: Any, backend: Backend) -> None:
    page = Page(browser, f"{backend.url}/booking.html")
    try:
        page.start("booking_create", BOOKING)
        dialog = page.page.locator("axag-confirmation dialog")
        dialog.wait_for(state="visible")
        dialog.get_by_role("button", name="No").click()
        got = page.result()
        assert got["success"] is False and got["permission"] == "confirmation_required"
        assert "the user declined to confirm it" in got["guidance"]
        page.start("booking_create", BOOKING)  # dismissed with Escape: declined as well
        dialog.wait_for(state="visible")
        page.page.keyboard.press("Escape")
        assert "the user declined to confirm it" in page.result()["guidance"]
        assert _calls(backend) == []
    finally:
        page.close()


def test_single_line_input_refuses_line_breaks(browser: Any, backend: Backend) -> None:
    page = Page(browser, f"{backend.url}/booking.html")
    try:
        got = page.call("booking_create", {**BOOKING, "email": "ann@example.org\r\ncsrf=x"})
        assert got["permission"] == "constraint_violated"
        assert _calls(backend) == []
        assert page.page.locator("axag-confirmation").count() == 0
    finally:
        page.close()


def test_button_without_form_is_activated(browser: Any, backend: Backend) -> None:
    page = Page(browser, f"{backend.url}/booking.html")
    try:
        page.page.evaluate("""window.__clicks = 0; document.querySelector('[axag-intent="session.sign_out"]')
            .addEventListener('click', (e) => { window.__clicks += 1; e.preventDefault(); })""")
        got = page.call("session_sign_out", {})
        assert got["success"] is True and got["permission"] == "not_required", got
        assert got["result"] == {"activated": True, "element": "button", "handled": True, "still_on_page": True}
        assert page.page.evaluate("window.__clicks") == 1
        assert _calls(backend) == []
    finally:
        page.close()


def test_declarative_tool_after_the_fix(browser: Any, tmp_path: Path, site: tuple[Path, dict[str, Any]]) -> None:
    """`axag lint --select webmcp --fix` gives the booking form toolname, tooldescription and toolparamdescription:
    Chromium lists it as a declarative tool with the compiled name and description and the schema's properties;
    the module leaves that form to the browser (no duplicate registration)."""
    fixed = tmp_path / "fixed"
    shutil.copytree(site[0], fixed)
    done = CliRunner().invoke(main, ["lint", "--isolated", "--select", "webmcp", "--fix", "--exit-zero",
                                     str(fixed / "booking.html")])
    assert done.exit_code == 0, done.output
    html = (fixed / "booking.html").read_text(encoding="utf-8")
    assert 'toolname="booking_create"' in html and "toolautosubmit" not in html
    compiled = {t["name"]: t for t in site[1]["tools"]}
    with running_backend(fixed) as backend:
        page = Page(browser, f"{backend.url}/booking.html")
        try:
            # the browser registers declarative tools after the page loaded
            page.page.wait_for_function("async () => (await document.modelContext.getTools()).length === 4")
            tools = {t["name"]: t for t in page.tools()}
            assert sorted(tools) == ["booking_cancel", "booking_create", "session_sign_out", "site_search"]
            for name in ("booking_create", "site_search"):  # both forms are declarative now
                assert tools[name]["description"] == compiled[name]["description"]
                assert sorted(tools[name]["inputSchema"]["properties"]) == sorted(
                    compiled[name]["inputSchema"]["properties"])
                for key, sub in compiled[name]["inputSchema"]["properties"].items():
                    # Chromium adds its own format note to a date control's description
                    assert tools[name]["inputSchema"]["properties"][key]["description"].startswith(
                        sub["description"]), (name, key)
            assert page.errors == []
        finally:
            page.close()


def test_module_matches_the_pages_input(tmp_path: Path, site: tuple[Path, dict[str, Any]]) -> None:
    """`axag webmcp PAGES` and `axag webmcp tools.json` write the same module."""
    out = tmp_path / "from-pages"
    done = CliRunner().invoke(main, ["webmcp", str(site[0]), "-o", str(out)])
    assert done.exit_code == 0, done.output
    assert (out / "axag-webmcp.js").read_bytes() == (site[0] / "axag-webmcp.js").read_bytes()
    shutil.rmtree(out)
