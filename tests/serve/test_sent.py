"""What `axag serve` sends is what the page declares, and a call that ran is never reported lost.

Every test drives `axag serve` (a subprocess) with the MCP SDK's own client, over stdio or streamable HTTP, against
a real loopback backend (tests/sent_backend.py) that records each request exactly as it arrived."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.sent_backend import Site, drip, endless, fixed, redirect, running_site, waits_for
from tests.serve.test_serve import ROOT, add_token, http_client, http_server, serve_args, stdio_client
from tests.serve_backend import free_port

RISK = 'axag-action-type="write" axag-risk-level="low" axag-idempotent="false" axag-side-effects=\'["x"]\''


def page(body: str) -> str:
    return f'<!DOCTYPE html>\n<html lang="en"><head><title>t</title></head><body axag-scope="user">\n{body}\n</body></html>\n'


@pytest.fixture
def site() -> Iterator[Site]:
    with running_site() as s:
        yield s


def write_site(folder: Path, site: Site, pages: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, html in pages.items():
        (folder / name).write_text(html, encoding="utf-8")
        site.pages["/" + name] = html
    return folder


TOOK: list[float] = []  # how long each call of `call` took (the call alone, not serve's start)


def call(args: list[str], *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    """The structured results of ``calls``, made in order in one stdio session with `axag serve ARGS`."""

    async def go() -> list[Any]:
        out = []
        async with stdio_client(args, "legacy") as client:
            for name, arguments in calls:
                started = time.monotonic()
                res = await client.call_tool(name, arguments)
                TOOK.append(time.monotonic() - started)
                out.append(res.structured_content if res.structured_content is not None else
                           {"protocol_error": [c.text for c in res.content if hasattr(c, "text")]})
        return out

    return asyncio.run(go())


def serve(folder: Path, site: Site, tmp_path: Path, *extra: str) -> list[str]:
    return serve_args(tmp_path / "state.sqlite", str(folder), "--base-url", site.url, *extra)


# ---------------------------------------------------------------------------------------------- 1: the submitter
SUBMITTERS = page(f'''<form id="doc" action="/docs" method="post">
  <label>Title <input name="title" required></label>
  <input type="hidden" name="csrf" value="token">
  <label>Owner <input name="owner" value="ann" readonly></label>
  <button type="submit" name="op" value="delete">Delete</button>
  <button type="submit" name="op" value="save" axag-intent="doc.save" {RISK} axag-description="Save">Save</button>
</form>''')


def test_the_submitter_and_read_only_controls_keep_their_compiled_values(site: Site, tmp_path: Path) -> None:
    folder = write_site(tmp_path / "site", site, {"doc.html": SUBMITTERS})
    # the live page differs from the compiled one in what it may not change: the read-only value
    site.pages["/doc.html"] = SUBMITTERS.replace('value="ann" readonly', 'value="mallory" readonly')
    [res] = call(serve(folder, site, tmp_path), ("doc_save", {"title": "T"}))
    assert res["success"] is True, res
    [post] = site.calls("POST")
    assert post.form == [("title", "T"), ("csrf", site.tokens[-1]), ("owner", "ann"), ("op", "save")]


def test_a_hidden_constant_gone_from_the_live_page_refuses_the_call(site: Site, tmp_path: Path) -> None:
    folder = write_site(tmp_path / "site", site, {"doc.html": SUBMITTERS})
    site.pages["/doc.html"] = SUBMITTERS.replace('<input type="hidden" name="csrf" value="token">', "")
    [res] = call(serve(folder, site, tmp_path), ("doc_save", {"title": "T"}))
    assert res["success"] is False and res["result"]["error"] == "page_changed", res
    assert "no longer has the hidden control 'csrf'" in res["result"]["detail"]
    assert "it was not sent" in res["guidance"] and "recompile" in res["guidance"]
    assert site.calls("POST") == []


# ---------------------------------------------------------------------------------------------- 2: which form
def twin_forms(n: int, annotated: int, ids: bool) -> str:
    forms = []
    for i in range(n):
        ann = f'axag-intent="item.update" {RISK} axag-description="Update"' if i == annotated else ""
        form_id = f' id="f{i}"' if ids else ""
        forms.append(f'<form{form_id} action="/items" method="post" {ann}><label>Name <input name="name" required>'
                     f'</label><input type="hidden" name="id" value="{i + 1}"><button>Go</button></form>')
    return page("\n".join(forms))


@pytest.mark.parametrize("ids", [False, True])
def test_live_values_come_from_the_annotated_form(ids: bool, site: Site, tmp_path: Path) -> None:
    folder = write_site(tmp_path / "site", site, {"items.html": twin_forms(2, 1, ids)})
    [res] = call(serve(folder, site, tmp_path), ("item_update", {"name": "n"}))
    assert res["success"] is True, res
    assert site.calls("POST")[-1].form == [("name", "n"), ("id", "2")]


def test_a_form_that_cannot_be_found_unambiguously_refuses_the_call(site: Site, tmp_path: Path) -> None:
    folder = write_site(tmp_path / "site", site, {"items.html": twin_forms(2, 1, False)})
    site.pages["/items.html"] = twin_forms(3, 1, False)  # one more form of that action: position is unreliable
    [res] = call(serve(folder, site, tmp_path), ("item_update", {"name": "n"}))
    assert res["success"] is False and res["result"]["error"] == "page_changed", res
    assert "3 forms of the page have the annotated form's fields" in res["result"]["detail"]
    assert site.calls("POST") == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 5), data=st.data(), ids=st.booleans(), extra=st.integers(0, 2))
def test_live_values_always_come_from_the_annotated_form(n: int, data: st.DataObject, ids: bool, extra: int,
                                                          tmp_path_factory: pytest.TempPathFactory) -> None:
    """Property (library level, the same code serve runs): whatever forms share the action, the live values are
    the annotated form's, or the call is refused as "page changed"; never another form's."""
    from axag.api import compile_paths
    from axag.serve.binding import PageChanged, live_values

    annotated = data.draw(st.integers(0, n - 1))
    folder = tmp_path_factory.mktemp("twins")
    (folder / "items.html").write_text(twin_forms(n, annotated, ids), encoding="utf-8")
    doc, _ = compile_paths([folder], root=str(folder))
    [tool] = doc["tools"]
    binding = tool["_meta"]["org.axag/http"]
    live_page = twin_forms(n + extra, annotated, ids)  # the live page may have more forms of that action
    try:
        values = live_values(live_page, binding, "http://h/items.html")
    except PageChanged:
        assert extra and not ids  # refused only when the position is unreliable and the fields are ambiguous
        return
    assert values == {0: str(annotated + 1)}


# ---------------------------------------------------------------------------------------------- 4: redirects
FORM = page(f'''<form id="f" action="/save" method="post" axag-intent="note.save" {RISK} axag-description="Save">
  <label>Text <input name="text" required></label><input type="hidden" name="csrf" value="token">
  <button>Save</button></form>''')


@pytest.mark.parametrize("status", [302, 307, 308])
def test_a_redirect_to_another_origin_is_answered_never_followed(status: int, site: Site, tmp_path: Path) -> None:
    with running_site() as other:
        other.handlers["/steal"] = fixed(b'{"secret": "internal body"}')
        folder = write_site(tmp_path / "site", site, {"f.html": FORM})
        site.handlers["/save"] = redirect(f"{other.url}/steal?x=1", status)
        [res] = call(serve(folder, site, tmp_path), ("note_save", {"text": "hello"}))
        assert other.seen == []
    assert res["success"] is False
    assert res["result"] == {"status": status, "error": "redirected_elsewhere", "redirect_origin": other.url,
                             "detail": f"the call: the backend answered HTTP {status}, a redirect to another "
                                       f"origin ({other.url}), which was not followed"}
    assert "internal body" not in json.dumps(res)
    assert f"reached the backend (HTTP {status}), so it has run" in res["guidance"]


def test_the_page_load_never_follows_a_redirect_elsewhere(site: Site, tmp_path: Path) -> None:
    with running_site() as other:
        other.pages["/f.html"] = FORM
        folder = write_site(tmp_path / "site", site, {"f.html": FORM})
        site.handlers["/f.html"] = redirect(f"{other.url}/f.html")
        [res] = call(serve(folder, site, tmp_path), ("note_save", {"text": "hello"}))
        assert other.seen == []
    assert res["success"] is False and res["result"]["redirect_origin"] == other.url, res
    assert "it was not sent" in res["guidance"]
    assert site.calls("POST") == []


def test_same_origin_redirects_are_followed_at_most_five_times(site: Site, tmp_path: Path) -> None:
    folder = write_site(tmp_path / "site", site, {"f.html": FORM})
    for i in range(5):
        site.handlers[f"/hop{i}"] = redirect(f"/hop{i + 1}", 303)
    site.handlers["/hop5"] = fixed(b'{"done": true}')
    site.handlers["/save"] = redirect("/hop1", 303)  # five redirects in all: followed
    site.handlers["/loop"] = redirect("/loop", 307)
    args = serve(folder, site, tmp_path)
    [ok] = call(args, ("note_save", {"text": "a"}))
    assert ok["success"] is True and ok["result"]["body"] == {"done": True}, ok
    site.handlers["/save"] = redirect("/hop0", 303)  # six
    [six] = call(args, ("note_save", {"text": "b"}))
    assert six["success"] is False and six["result"]["error"] == "too_many_redirects", six
    assert six["result"]["status"] == 303 and "answered HTTP 303" in six["result"]["detail"]


# ---------------------------------------------------------------------------------------------- 5: bounds
def test_the_timeout_is_a_deadline_for_the_whole_call(site: Site, tmp_path: Path) -> None:
    folder = write_site(tmp_path / "site", site, {"f.html": FORM})
    site.handlers["/save"] = drip(0.5, 40)  # a byte every 0.5 s for 20 s: never a read timeout
    [res] = call(serve(folder, site, tmp_path, "--timeout", "2"), ("note_save", {"text": "a"}))
    took = TOOK[-1]
    assert res["success"] is False and res["result"]["error"] == "timeout", res
    assert res["result"]["status"] == 200 and res["result"]["body"].startswith("x")
    assert "so it has run" in res["guidance"]
    assert took < 8, took  # a 2 s deadline (with slack for a loaded machine); the drip alone lasts 20 s


def test_the_page_load_counts_against_the_deadline(site: Site, tmp_path: Path) -> None:
    folder = write_site(tmp_path / "site", site, {"f.html": FORM})
    site.handlers["/f.html"] = drip(0.5, 40)
    [res] = call(serve(folder, site, tmp_path, "--timeout", "2"), ("note_save", {"text": "a"}))
    assert res["result"]["error"] == "timeout" and "loading the page" in res["result"]["detail"], res
    assert "it was not sent" in res["guidance"]
    assert site.calls("POST") == []


def test_reading_stops_at_a_hard_cap_above_max_result_bytes(site: Site, tmp_path: Path) -> None:
    folder = write_site(tmp_path / "site", site, {"f.html": FORM})
    site.handlers["/save"] = endless(site)  # up to 2000 MiB
    [res] = call(serve(folder, site, tmp_path, "--max-result-bytes", "1000", "--timeout", "60"),
                 ("note_save", {"text": "a"}))
    assert res["success"] is True, res
    assert res["result"]["truncated"] is True and res["result"]["body"] == "y" * 1000
    deadline = time.monotonic() + 10
    while not site.streamed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert site.streamed and site.streamed[0] < 64 << 20, site.streamed  # the rest was never read


# ---------------------------------------------------------------------------------------------- 6: CR/LF
PLAIN = page(f'''<form id="p" action="/profile" method="post" enctype="text/plain" axag-intent="profile.update" {RISK}
  axag-description="Update"><label>Name <input name="name" required></label>
  <label>Bio <textarea name="bio"></textarea></label><input type="hidden" name="user_id" value="u-7">
  <button>Save</button></form>''')


def plain_pairs(body: bytes) -> list[tuple[str, str]]:
    return [tuple(line.split("=", 1)) for line in body.decode().split("\r\n") if line]  # type: ignore[misc]


def test_single_line_values_with_cr_or_lf_are_refused(site: Site, tmp_path: Path) -> None:
    from axag.api import compile_paths
    from axag.compile.serialize import dumps

    folder = write_site(tmp_path / "site", site, {"p.html": PLAIN})
    doc, _ = compile_paths([folder], root=str(folder))
    props = doc["tools"][0]["inputSchema"]["properties"]
    assert props["name"]["pattern"] == "^[^\\r\\n]*$" and "pattern" not in props["bio"]
    [refused, sent] = call(serve(folder, site, tmp_path), ("profile_update", {"name": "Ann\r\nuser_id=u-1"}),
                           ("profile_update", {"name": "Ann", "bio": "line 1\nline 2"}))
    assert refused["permission"] == "constraint_violated", refused  # the guard refuses it
    assert [v["field"] for v in refused["violations"]] == ["name"]
    assert sent["success"] is True, sent
    [post] = site.calls("POST")
    assert post.body == b"name=Ann\r\nbio=line 1\nline 2\r\nuser_id=u-7\r\n"
    # a tools file without the pattern (an older compile, an author's own axag-parameter-pattern): the encoder
    # never emits it either
    del doc["tools"][0]["inputSchema"]["properties"]["name"]["pattern"]
    (tmp_path / "tools.json").write_text(dumps(doc), encoding="utf-8")
    args = serve_args(tmp_path / "s2.sqlite", str(tmp_path / "tools.json"), "--base-url", site.url)
    [res] = call(args, ("profile_update", {"name": "Ann\nuser_id=u-1"}))
    assert res["success"] is False and res["result"]["error"] == "line_break", res
    assert len(site.calls("POST")) == 1


# ---------------------------------------------------------------------------------------------- 7: credentials
def test_base_url_credentials_are_never_shown(site: Site, tmp_path: Path) -> None:
    folder = write_site(tmp_path / "site", site, {"f.html": FORM})
    secret_url = f"http://ann:pw-S3cr3t-x@127.0.0.1:{free_port()}/?api_key=K3y-V4lue-z&lang=en"
    args = serve_args(tmp_path / "state.sqlite", str(folder), "--base-url", secret_url, "--audit-arguments")
    [res] = call(args, ("note_save", {"text": "a"}))
    assert res["result"]["error"] == "connection_failed", res
    text = json.dumps(res)
    assert "loading the page http://127.0.0.1:" in text
    for secret in ("pw-S3cr3t-x", "K3y-V4lue-z", "ann:"):
        assert secret not in text
    from axag.serve.state import SqliteStore

    assert "S3cr3t" not in json.dumps(SqliteStore(tmp_path / "state.sqlite").audit_rows())


def test_base_url_secrets_echoed_by_the_backend_are_masked(site: Site, tmp_path: Path) -> None:
    folder = write_site(tmp_path / "site", site, {"f.html": FORM})
    site.handlers["/save"] = fixed(b'{"echo": "pw-S3cr3t-x"}')
    base = site.url.replace("http://", "http://ann:pw-S3cr3t-x@")
    [res] = call(serve_args(tmp_path / "s.sqlite", str(folder), "--base-url", base), ("note_save", {"text": "a"}))
    assert res["success"] is True and res["result"]["body"] == {"echo": "***"}, res
    assert site.calls("POST")[0].headers["authorization"].startswith("Basic ")  # still sent to the backend


# ---------------------------------------------------------------------------------------------- 11: results kept
def nested(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


@pytest.mark.parametrize("body", [nested(300), nested(1200), b'{"n": NaN}', b"[" * 100_000])
def test_an_odd_body_is_returned_as_text_with_its_status(body: bytes, site: Site, tmp_path: Path) -> None:
    folder = write_site(tmp_path / "site", site, {"f.html": FORM})
    site.handlers["/save"] = fixed(body, status=201)
    [res] = call(serve(folder, site, tmp_path, "--max-result-bytes", "200000"), ("note_save", {"text": "a"}))
    assert res["success"] is True and res["result"]["status"] == 201, res
    assert res["result"]["body"] == body.decode()  # whole (under the cap), as text
    from axag.serve.state import SqliteStore

    rows = SqliteStore(tmp_path / "state.sqlite").audit_rows()
    assert [(r["permission"], r["backend_status"]) for r in rows] == [("not_required", 201)]
    assert len(site.calls("POST")) == 1


def test_a_locked_audit_database_never_replaces_the_result(site: Site, tmp_path: Path) -> None:
    folder = write_site(tmp_path / "site", site, {"f.html": FORM})
    state = tmp_path / "state.sqlite"
    from axag.serve.state import SqliteStore

    SqliteStore(state).close()  # the schema exists
    args = serve(folder, site, tmp_path)

    async def go() -> Any:
        async with stdio_client(args, "legacy") as client:
            await client.list_tools()
            lock = sqlite3.connect(state, isolation_level=None)
            lock.execute("BEGIN IMMEDIATE")  # every write waits (the audit row's)
            try:
                res = await client.call_tool("note_save", {"text": "a"})
            finally:
                lock.execute("ROLLBACK")
                lock.close()
            return res.structured_content

    res = asyncio.run(go())
    assert res["success"] is True and res["result"]["status"] == 200, res
    assert len(site.calls("POST")) == 1
    assert SqliteStore(state).audit_rows() == []


# ---------------------------------------------------------------------------------------------- 3: path segments
API = ROOT / "tests" / "data" / "serve_sent"
OPERATIONS = {  # tool -> (method, path template, path parameters)
    "removeMember": ("DELETE", "/projects/{project}/members/{member}", ("project", "member")),
    "getFile": ("GET", "/files/{name}", ("name",)),
    "getIssue": ("GET", "/orgs/{org}/repos/{repo}/issues/{number}", ("org", "repo", "number")),
}


class Session:
    """One stdio MCP session with `axag serve`, driven from synchronous code (a hypothesis test): its client
    lives in an event loop on a thread of its own."""

    def __init__(self, args: list[str]) -> None:
        self.loop = asyncio.new_event_loop()
        self.queue: asyncio.Queue[Any] | None = None
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self._run(args),), daemon=True)
        self.thread.start()
        assert self.ready.wait(120), "axag serve did not start"

    async def _run(self, args: list[str]) -> None:
        self.queue = asyncio.Queue()
        async with stdio_client(args, "legacy") as client:
            self.ready.set()
            while True:
                item = await self.queue.get()
                if item is None:
                    return
                name, arguments, done = item
                res = await client.call_tool(name, arguments)
                done.set_result(res.structured_content)

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        done: asyncio.Future[Any] = self.loop.create_future()
        assert self.queue is not None
        self.loop.call_soon_threadsafe(self.queue.put_nowait, (name, arguments, done))
        return asyncio.run_coroutine_threadsafe(asyncio.wait_for(asyncio.shield(done), 60), self.loop).result(70)

    def close(self) -> None:
        assert self.queue is not None
        self.loop.call_soon_threadsafe(self.queue.put_nowait, None)
        self.thread.join(30)


@pytest.fixture(scope="module")
def api_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, Session]]:
    with running_site() as site:
        state = tmp_path_factory.mktemp("api") / "state.sqlite"
        session = Session(serve_args(state, str(API / "site"), "--base-url", site.url, "--openapi",
                                     str(API / "openapi.yaml")))
        try:
            yield site, session
        finally:
            session.close()


@pytest.mark.parametrize("value", ["", ".", ".."])
@pytest.mark.parametrize("tool, param", [(t, p) for t, (_, _, ps) in OPERATIONS.items() for p in ps if p != "number"])
def test_dot_segments_and_empty_path_parameters_are_refused(tool: str, param: str, value: str,
                                                             api_session: tuple[Site, Session]) -> None:
    site, session = api_session
    _, _, params = OPERATIONS[tool]
    arguments: dict[str, Any] = {p: ("x" if p != "number" else 1) for p in params}
    arguments[param] = value
    before = len(site.seen)
    res = session.call(tool, arguments)
    assert res["permission"] == "constraint_violated" and res["success"] is False, res
    assert [(v["field"], v["constraint"]) for v in res["violations"]] == [(param, "path_segment")]
    assert len(site.seen) == before


SEGMENT = st.one_of(st.sampled_from(["", ".", "..", "...", "a/..", "../x", "%2e%2e", "%2E", ".%2e", "?x=1", "#f",
                                     "a b", "ü", "~", "\\..", "/"]),
                    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=st.sampled_from(sorted(OPERATIONS)), data=st.data())
def test_every_path_sent_has_the_operations_template_shape(tool: str, data: st.DataObject,
                                                          api_session: tuple[Site, Session]) -> None:
    """Property over every path parameter of the test document: a value is refused (``""``, ``.``, ``..``), or
    the request's raw path is the template with that value as one percent-encoded segment."""
    from urllib.parse import quote

    site, session = api_session
    method, template, params = OPERATIONS[tool]
    arguments: dict[str, Any] = {}
    for p in params:
        arguments[p] = data.draw(st.integers(0, 10**6) if p == "number" else SEGMENT, label=p)
    before = len(site.seen)
    res = session.call(tool, arguments)
    if any(arguments[p] in ("", ".", "..") for p in params):
        assert res["permission"] == "constraint_violated", res
        assert len(site.seen) == before
        return
    assert res["success"] is True, res
    [seen] = site.seen[before:]
    expected = template
    for p in params:
        expected = expected.replace("{" + p + "}", quote(str(arguments[p]), safe=""))
    assert (seen.method, seen.raw_path) == (method, expected)


# ---------------------------------------------------------------------------------------------- 12: clients
def test_opening_many_sessions_never_closes_a_client_in_use(tmp_path: Path) -> None:
    release = threading.Event()
    with running_site() as site:
        folder = write_site(tmp_path / "site", site, {"f.html": FORM})
        site.handlers["/save"] = waits_for(release, fixed(b'{"saved": true}'))
        state = tmp_path / "state.sqlite"
        token = add_token(state, "ann", "")

        async def go(url: str) -> Any:
            async with http_client(url, token, "legacy") as first:
                slow = asyncio.ensure_future(first.call_tool("note_save", {"text": "slow"}))
                while not site.calls("POST"):
                    await asyncio.sleep(0.05)
                # the slow call keeps its handler (it already runs); every later call is answered at once
                site.handlers["/save"] = fixed(b'{"saved": true}')
                for batch in range(0, 270, 30):
                    await asyncio.gather(*(another_ok(url, token, i) for i in range(batch, batch + 30)))
                release.set()
                return (await slow).structured_content

        # the held call must outlast 270 sessions on a loaded machine: a long deadline
        with http_server(serve_args(state, str(folder), "--base-url", site.url, "--timeout", "600")) as url:
            res = asyncio.run(go(url))
    assert res["success"] is True and res["result"]["body"] == {"saved": True}, res


async def another_ok(url: str, token: str, i: int) -> None:
    async with http_client(url, token, "legacy") as c:
        res = await c.call_tool("note_save", {"text": f"n{i}"})
        assert res.structured_content["success"] is True, res.structured_content
