"""Running a call as the page's own HTTP request (`_meta["org.axag/http"]`) or as an OpenAPI operation.

A form binding is submitted the way a browser submits the form: GET puts the pairs in the query string; POST
encodes them as `application/x-www-form-urlencoded`, `multipart/form-data` or `text/plain`. Pairs are the
parameters (under their control names, in parameter order) followed by the constants (document order). With
`refresh`, the page is loaded first (with the session's cookies) and the constants the binding marks as live
(`live`: hidden inputs, template values) take the live page's values, so a CSRF token is the one the server just
issued; the submitter and read-only controls keep their compiled values. The live values come from the annotated
form itself (found by id, else by its position among the forms of the same action and method, else by its field
names); when it cannot be found unambiguously, or a live constant is gone, the call is refused as "page changed".
Nothing is retried.

What is sent and read is bounded: the whole call, page load included, has one deadline (`--timeout`);
redirects are followed at most 5 times and only within the `--base-url` origin (one elsewhere is answered as
what it is, never followed); bodies are streamed and reading stops just above `--max-result-bytes`; a value of a
single-line control with CR or LF in it is never sent.
"""

from __future__ import annotations

import functools
import json
import posixpath
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode, urljoin, urlsplit

import anyio
import httpx

from axag.serve.redact import redact_url

__all__ = ["BackendAnswer", "PageChanged", "form_pairs", "live_values", "path_problem", "run_form", "run_openapi"]

MAX_REDIRECTS = 5
PAGE_CAP = 16 * 1024 * 1024  # the most of a page read for its live form values
JSON_DEPTH = 64  # a JSON answer nested deeper is returned as text (the envelope must stay serialisable)
REDIRECT_STATUSES = (301, 302, 303, 307, 308)


@dataclass
class BackendAnswer:
    """What the backend said: an HTTP answer (``status``) or a failure to get one (``error``). A failure after an
    answer (a body that timed out, a redirect that was not followed) has both: the call reached the backend."""

    result: Any
    status: int | None = None
    error: str | None = None
    sent: bool = True  # False: nothing of the call itself was sent (refused before, or the page load failed)

    @property
    def ok(self) -> bool:
        return self.error is None and (self.status is None or self.status < 400)


class PageChanged(Exception):
    """The live page no longer has the annotated form, or a live constant of it."""


@dataclass
class _Progress:
    """How far the call got, for the answer when the deadline passes."""

    what: str = "the call"
    status: int | None = None
    content_type: str = ""
    body: bytearray = field(default_factory=bytearray)
    call_status: int | None = None  # the first answer to the call's own request: it reached the backend


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _line_break(binding: Mapping[str, Any], arguments: Mapping[str, object]) -> str | None:
    """The first parameter of a single-line control whose value holds CR or LF (a browser never sends one)."""
    multiline = set(binding.get("multiline", []))
    for param, value in arguments.items():
        if param in multiline:
            continue
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str) and ("\r" in v or "\n" in v) for v in values):
            return param
    return None


def form_pairs(binding: Mapping[str, Any], arguments: Mapping[str, object],
               live: Mapping[int, str] | None = None) -> list[tuple[str, str]]:
    """The name/value pairs a browser would submit for ``arguments``; ``live``: the live page's values of the
    binding's live constants (by index into its constants)."""
    pairs: list[tuple[str, str]] = []
    fields: Mapping[str, str] = binding.get("fields", {})
    checkbox: Mapping[str, str] = binding.get("checkbox", {})
    for param, value in arguments.items():
        name = fields.get(param, param)
        if value is None:
            continue
        if param in checkbox:
            if value is True:
                pairs.append((name, checkbox[param]))
            continue
        if isinstance(value, list):
            pairs.extend((name, _text(v)) for v in value)
            continue
        pairs.append((name, _text(value)))
    for index, (name, value) in enumerate(binding.get("constants", [])):
        fresh = live.get(index) if live is not None else None
        if fresh is not None:
            pairs.append((name, fresh))
        elif value is not None:
            pairs.append((name, value))
    return pairs


def _multipart(pairs: list[tuple[str, str]]) -> tuple[bytes, str]:
    boundary = "----axag" + secrets.token_hex(12)
    out = bytearray()
    for name, value in pairs:
        escaped = name.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")
        out += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{escaped}\"\r\n\r\n").encode()
        out += value.encode("utf-8") + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return bytes(out), f"multipart/form-data; boundary={boundary}"


def _encode(enctype: str, pairs: list[tuple[str, str]]) -> tuple[bytes, str]:
    if enctype == "multipart/form-data":
        return _multipart(pairs)
    if enctype == "text/plain":
        body = "".join(f"{n}={v}\r\n" for n, v in pairs)
        return body.encode("utf-8"), "text/plain;charset=UTF-8"
    return urlencode(pairs).encode("ascii"), "application/x-www-form-urlencoded"


# ---------------------------------------------------------------------------------------------- the live form
def _where(base: str, url: str) -> tuple[str, str, str, str]:
    parts = urlsplit(urljoin(base, url))
    path = posixpath.normpath(parts.path) if parts.path else "/"
    if parts.path.endswith("/") and path != "/":
        path += "/"
    return parts.scheme, parts.netloc, path, parts.query


def _find_form(root: Any, binding: Mapping[str, Any], page: str) -> Any:
    """The annotated form in the live page (`PageChanged` when it is not there unambiguously)."""
    from axag.compile.http import form_members

    forms = list(root.iter("form"))
    locator: Mapping[str, Any] = binding.get("form", {})
    if "id" in locator:
        hits = [f for f in forms if f.get("id") == locator["id"]]
        if len(hits) == 1:
            return hits[0]
        raise PageChanged(f"the page has {len(hits) or 'no'} form{'' if len(hits) == 1 else 's'} with the id "
                          f"{locator['id']!r}")
    if "index" in locator:
        target = _where(page, str(locator["action"]))
        same = [f for f in forms if (f.get("method") or "get").strip().upper() == locator["method"]
                and _where(page, (f.get("action") or "").strip() or page) == target]
        if len(same) == locator["count"]:
            return same[int(locator["index"])]
    names = {str(n) for n in binding.get("fields", {}).values()} | {str(c[0]) for c in binding.get("constants", [])}
    hits = [f for f in forms if names <= {m.get("name") for m in form_members(f)}]
    if len(hits) == 1:
        return hits[0]
    raise PageChanged(f"{'no form' if not hits else f'{len(hits)} forms'} of the page {'has' if not hits else 'have'} "
                      "the annotated form's fields" + (" and the forms of its action and method changed"
                                                       if "index" in locator else ""))


def live_values(html: str, binding: Mapping[str, Any], page: str) -> dict[int, str]:
    """The live page's values of the binding's live constants, by index into its constants; `PageChanged` when
    the annotated form, or one of those constants, is not in the page."""
    from lxml import etree
    from lxml import html as lxml_html

    from axag.compile.http import control_kind, form_members

    live = binding.get("live", [])
    if not live:
        return {}
    try:
        root = lxml_html.document_fromstring(html)
    except (ValueError, etree.ParserError) as exc:  # an empty or unparsable page
        raise PageChanged("the page has no form") from exc
    form = _find_form(root, binding, page)
    members = form_members(form)
    constants = binding.get("constants", [])
    out: dict[int, str] = {}
    for index, kind, occurrence in live:
        name = str(constants[index][0])
        found = [m for m in members if m.get("name") == name and control_kind(m) == kind]
        if occurrence >= len(found):
            raise PageChanged(f"its form no longer has the {kind.replace('input:', '')} control {name!r}")
        el = found[occurrence]
        out[index] = el.text_content() if el.tag == "textarea" else (el.get("value") or "")
    return out


# ---------------------------------------------------------------------------------------------- answers
def _json_body(raw: bytes) -> object:
    """The parsed JSON answer, or None when it is not plain, shallow JSON (then it is returned as text)."""
    from axag.files.read_json import nesting_error

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if nesting_error(text, JSON_DEPTH) is not None:
        return None

    def constant(name: str) -> object:
        raise ValueError(name)

    try:
        return json.loads(text, parse_constant=constant)
    except (ValueError, RecursionError):
        return None


def _decode(raw: bytes, charset: str | None) -> str:
    try:
        return raw.decode(charset or "utf-8", "replace")
    except LookupError:
        return raw.decode("utf-8", "replace")


def _result(status: int, ctype: str, charset: str | None, raw: bytes, complete: bool,
            max_bytes: int) -> dict[str, Any]:
    body: object = None
    truncated = not complete or len(raw) > max_bytes
    if "json" in ctype.split(";")[0] and not truncated:
        body = _json_body(raw)
    if body is None:
        body = _decode(raw[:max_bytes], charset)
    result: dict[str, Any] = {"status": status, "content_type": ctype, "body": body}
    if truncated:
        result["truncated"] = True
    return result


def _answer(resp: httpx.Response, max_bytes: int) -> BackendAnswer:
    """The answer of a response read whole (`resp.content`)."""
    result = _result(resp.status_code, resp.headers.get("content-type", ""), resp.charset_encoding, resp.content,
                     True, max_bytes)
    return BackendAnswer(result, status=resp.status_code)


def failure(error: str, detail: str, status: int | None = None, sent: bool = True) -> BackendAnswer:
    return BackendAnswer({"status": status, "error": error, "detail": detail}, status=status, error=error, sent=sent)


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    default = {"http": 80, "https": 443}.get(url.scheme)
    return url.scheme, url.host, url.port if url.port is not None else default


def origin_text(url: httpx.URL) -> str:
    """``scheme://host[:port]``: what a redirect's target is said to be (never its userinfo, path or query)."""
    host = f"[{url.host}]" if ":" in url.host else url.host
    return f"{url.scheme}://{host}" + (f":{url.port}" if url.port is not None else "")


async def _exchange(client: httpx.AsyncClient, request: httpx.Request, origin: httpx.URL, cap: int,
                    progress: _Progress, is_call: bool) -> tuple[httpx.Response, bytes, bool] | BackendAnswer:
    """Send ``request``, following redirects within ``origin`` (at most `MAX_REDIRECTS`), and read the final body
    up to ``cap`` bytes: (response, body, complete), or the answer that ends the call here."""
    hops = 0
    while True:
        try:
            resp = await client.send(request, stream=True, follow_redirects=False)
        except httpx.TimeoutException as exc:
            return _failed_after(progress, "timeout", f"{progress.what}: the backend did not answer in time "
                                 f"({type(exc).__name__})")
        except httpx.ConnectError as exc:
            return _failed_after(progress, "connection_failed", f"{progress.what}: the backend could not be "
                                 f"reached ({exc})")
        except httpx.HTTPError as exc:
            return _failed_after(progress, "http_error", f"{progress.what}: {type(exc).__name__}: {exc}")
        if is_call and progress.call_status is None:
            progress.call_status = resp.status_code
        progress.status, progress.content_type = resp.status_code, resp.headers.get("content-type", "")
        progress.body = bytearray()
        try:
            nxt = resp.next_request if resp.status_code in REDIRECT_STATUSES else None
            if nxt is not None:
                if _origin(nxt.url) != _origin(origin):
                    return _redirected(progress, resp.status_code, nxt.url)
                hops += 1
                if hops > MAX_REDIRECTS:
                    return _failed_after(progress, "too_many_redirects", f"{progress.what}: the backend redirected "
                                         f"more than {MAX_REDIRECTS} times")
                request = nxt
                continue
            complete = True
            async for chunk in resp.aiter_bytes():
                progress.body += chunk
                if len(progress.body) > cap:  # the hard cap: stop reading, the rest is never held
                    complete = False
                    break
            return resp, bytes(progress.body[:cap + 1]), complete
        except httpx.TimeoutException:
            return _failed_after(progress, "timeout", f"{progress.what}: the backend's answer did not arrive in time")
        except httpx.HTTPError as exc:
            return _failed_after(progress, "http_error", f"{progress.what}: reading the answer failed "
                                 f"({type(exc).__name__}: {exc})")
        finally:
            with anyio.CancelScope(shield=True):
                await resp.aclose()


def _failed_after(progress: _Progress, error: str, detail: str) -> BackendAnswer:
    """A failure; when the call's own request was answered already, the answer says that it reached the backend."""
    status = progress.call_status
    if status is not None:
        detail = f"{detail}; the call reached the backend, which answered HTTP {status}"
    return failure(error, detail, status=status, sent=status is not None or progress.what == "the call")


def _redirected(progress: _Progress, status: int, target: httpx.URL) -> BackendAnswer:
    origin = origin_text(target)
    result = {"status": status, "error": "redirected_elsewhere", "redirect_origin": origin,
              "detail": f"{progress.what}: the backend answered HTTP {status}, a redirect to another origin "
                        f"({origin}), which was not followed"}
    return BackendAnswer(result, status=status, error="redirected_elsewhere", sent=progress.what == "the call")


async def _deadline(timeout: float, progress: _Progress, max_bytes: int, run: Any) -> BackendAnswer:
    """``await run()`` within ``timeout`` seconds for the whole of it (page load, redirects and body included)."""
    with anyio.move_on_after(timeout):
        answer: BackendAnswer = await run()
        return answer
    detail = f"{progress.what}: the whole call did not finish within --timeout {timeout:g} s"
    answer = _failed_after(progress, "timeout", detail)
    if progress.call_status is not None and progress.status is not None and progress.body:
        answer.result["body"] = _decode(bytes(progress.body[:max_bytes]), None)
        answer.result["truncated"] = True
    return answer


# ---------------------------------------------------------------------------------------------- the calls
@functools.lru_cache(maxsize=64)
def _url(base_url: str) -> httpx.URL:
    """``--base-url`` parsed once (an `httpx.URL` is immutable), not on every call."""
    return httpx.URL(base_url)


@functools.lru_cache(maxsize=1024)
def _joined(base_url: str, action: str) -> str:
    """A form's action resolved against ``--base-url``, once per form."""
    return urljoin(base_url, action)


async def run_form(client: httpx.AsyncClient, base_url: str, binding: Mapping[str, Any],
                   arguments: Mapping[str, object], max_bytes: int, timeout: float = 30.0) -> BackendAnswer:
    """Submit the form of ``binding`` with ``arguments`` (within ``timeout`` seconds for the whole call)."""
    broken = _line_break(binding, arguments)
    if broken is not None:
        return failure("line_break", f"the value of {broken!r} holds a line break (CR or LF), which its single-line "
                       "control never sends; nothing was sent", sent=False)
    progress = _Progress()
    return await _deadline(timeout, progress, max_bytes, lambda: _run_form(client, base_url, binding, arguments, max_bytes,
                                                                progress))


async def _run_form(client: httpx.AsyncClient, base_url: str, binding: Mapping[str, Any],
                    arguments: Mapping[str, object], max_bytes: int, progress: _Progress) -> BackendAnswer:
    from axag.compile.http import page_url

    origin = _url(base_url)
    live = None
    if binding.get("refresh"):
        page = urljoin(base_url, page_url(str(binding.get("page", ""))))
        progress.what = f"loading the page {redact_url(page)} for fresh form values"
        got = await _exchange(client, client.build_request("GET", page), origin, PAGE_CAP, progress, False)
        if isinstance(got, BackendAnswer):
            got.sent = False
            return got
        resp, raw, complete = got
        if resp.status_code >= 400:
            result = _result(resp.status_code, resp.headers.get("content-type", ""), resp.charset_encoding, raw,
                             complete, max_bytes)
            result["page"] = redact_url(page)
            return BackendAnswer(result, status=resp.status_code, sent=False)
        if not complete:
            return failure("page_changed", f"the page {redact_url(page)} is larger than {PAGE_CAP} bytes; "
                           "nothing was sent", sent=False)
        try:
            live = live_values(_decode(raw, resp.charset_encoding), binding, str(resp.url))
        except PageChanged as exc:
            return failure("page_changed", f"the page {redact_url(page)} changed: {exc}; nothing was sent",
                           sent=False)
        progress.what = "the call"
        progress.status, progress.body = None, bytearray()
    pairs = form_pairs(binding, arguments, live)
    url = _joined(base_url, str(binding["action"]))
    if binding["method"] == "GET":
        url = url.split("?", 1)[0].split("#", 1)[0] + ("?" + urlencode(pairs) if pairs else "")
        request = client.build_request("GET", url)
    else:
        body, ctype = _encode(str(binding.get("enctype", "")), pairs)
        request = client.build_request("POST", url, content=body, headers={"content-type": ctype})
    return await _send(client, request, origin, max_bytes, progress)


async def _send(client: httpx.AsyncClient, request: httpx.Request, origin: httpx.URL, max_bytes: int,
                progress: _Progress) -> BackendAnswer:
    got = await _exchange(client, request, origin, max_bytes, progress, True)
    if isinstance(got, BackendAnswer):
        return got
    resp, raw, complete = got
    result = _result(resp.status_code, resp.headers.get("content-type", ""), resp.charset_encoding, raw, complete,
                     max_bytes)
    return BackendAnswer(result, status=resp.status_code)


def path_problem(op: Mapping[str, Any], arguments: Mapping[str, object]) -> str | None:
    """The first path parameter whose value is not one path segment of its own: ``""``, ``"."`` or ``".."``
    (URL joining would drop or climb it: ``/members/..`` is ``/``)."""
    where: Mapping[str, str] = op.get("in", {})
    for name, value in arguments.items():
        if where.get(name) == "path" and value is not None and _text(value) in ("", ".", ".."):
            return name
    return None


async def run_openapi(client: httpx.AsyncClient, base_url: str, op: Mapping[str, Any],
                      arguments: Mapping[str, object], max_bytes: int, timeout: float = 30.0) -> BackendAnswer:
    """Call the OpenAPI operation ``op`` (`{"method", "path", "in": {param: where}}`)."""
    bad = path_problem(op, arguments)
    if bad is not None:
        return failure("constraint_violated", f"the path parameter {bad!r} is empty, '.' or '..'; nothing was sent",
                       sent=False)
    path = str(op["path"])
    query: list[tuple[str, str]] = []
    headers: dict[str, str] = {}
    body: dict[str, object] = {}
    where: Mapping[str, str] = op.get("in", {})
    for name, value in arguments.items():
        place = where.get(name, "body")
        if place == "path":
            path = path.replace("{" + name + "}", quote(_text(value), safe=""))
        elif place == "query":
            if isinstance(value, list):
                query.extend((name, _text(v)) for v in value)
            else:
                query.append((name, _text(value)))
        elif place == "header":
            headers[name] = _text(value)
        else:
            body[name] = value
    url = urljoin(base_url, path.lstrip("/") if base_url.endswith("/") else path)
    if query:
        url += "?" + urlencode(query)
    method = str(op["method"]).upper()
    content = None
    if body or method in ("POST", "PUT", "PATCH"):
        content = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers["content-type"] = "application/json"
    request = client.build_request(method, url, content=content, headers=headers)
    progress = _Progress()
    return await _deadline(timeout, progress, max_bytes,
                           lambda: _send(client, request, _url(base_url), max_bytes, progress))
