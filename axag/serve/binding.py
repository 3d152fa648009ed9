"""Running a call as the page's own HTTP request (`_meta["org.axag/http"]`) or as an OpenAPI operation.

A form binding is submitted the way a browser submits the form: GET puts the pairs in the query string; POST
encodes them as `application/x-www-form-urlencoded`, `multipart/form-data` or `text/plain`. Pairs are the
parameters (under their control names, in parameter order) followed by the constants (document order). With
`refresh`, the page is loaded first (with the session's cookies) and the constants take the live page's values,
so a CSRF token is the one the server just issued. Nothing is retried.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

import httpx

__all__ = ["BackendAnswer", "form_pairs", "run_form", "run_openapi"]


@dataclass
class BackendAnswer:
    """What the backend said: an HTTP answer (``status``) or a failure to get one (``error``)."""

    result: Any
    status: int | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and (self.status is None or self.status < 400)


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


def form_pairs(binding: Mapping[str, Any], arguments: Mapping[str, object],
               live: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """The name/value pairs a browser would submit for ``arguments``."""
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
    for name, value in binding.get("constants", []):
        fresh = live.get(name) if live is not None else None
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


def live_values(html: str, binding: Mapping[str, Any], page_url: str) -> dict[str, str]:
    """The current values of the binding's constants in the live page: in the form whose action and method
    match the binding (else the first form that has one of the names)."""
    from lxml import etree
    from lxml import html as lxml_html

    try:
        root = lxml_html.document_fromstring(html)
    except (ValueError, etree.ParserError):  # an empty or unparsable page: no live values
        return {}
    names = {n for n, _ in binding.get("constants", [])}
    target = urljoin(page_url, binding["action"])
    forms = list(root.iter("form"))
    chosen = None
    for form in forms:
        action = urljoin(page_url, (form.get("action") or "").strip() or page_url)
        method = (form.get("method") or "get").strip().upper()
        if urlsplit(action).path == urlsplit(target).path and method == binding["method"]:
            chosen = form
            break
    if chosen is None:
        chosen = next((f for f in forms if any(el.get("name") in names for el in f.iter())), None)
    if chosen is None:
        return {}
    out: dict[str, str] = {}
    for el in chosen.iter("input", "textarea", "button"):
        name = el.get("name")
        if name in names and name not in out:
            out[name] = el.text_content() if el.tag == "textarea" else (el.get("value") or "")
    return out


def _answer(resp: httpx.Response, max_bytes: int) -> BackendAnswer:
    ctype = resp.headers.get("content-type", "")
    raw = resp.content
    body: object
    truncated = False
    if "json" in ctype.split(";")[0] and len(raw) <= max_bytes:
        try:
            body = resp.json()
        except ValueError:
            body = raw.decode("utf-8", "replace")
    else:
        truncated = len(raw) > max_bytes
        body = raw[:max_bytes].decode(resp.encoding or "utf-8", "replace")
    result: dict[str, Any] = {"status": resp.status_code, "content_type": ctype, "body": body}
    if truncated:
        result["truncated"] = True
    return BackendAnswer(result, status=resp.status_code)


def failure(error: str, detail: str) -> BackendAnswer:
    return BackendAnswer({"status": None, "error": error, "detail": detail}, error=error)


async def _send(client: httpx.AsyncClient, request: httpx.Request, max_bytes: int) -> BackendAnswer:
    try:
        resp = await client.send(request, follow_redirects=True)
    except httpx.TimeoutException as exc:
        return failure("timeout", f"the backend did not answer in time ({type(exc).__name__})")
    except httpx.ConnectError as exc:
        return failure("connection_failed", f"the backend could not be reached ({exc})")
    except httpx.HTTPError as exc:
        return failure("http_error", f"{type(exc).__name__}: {exc}")
    return _answer(resp, max_bytes)


async def run_form(client: httpx.AsyncClient, base_url: str, binding: Mapping[str, Any],
                   arguments: Mapping[str, object], max_bytes: int) -> BackendAnswer:
    """Submit the form of ``binding`` with ``arguments``."""
    from axag.compile.http import page_url

    live = None
    page = urljoin(base_url, page_url(str(binding.get("page", ""))))
    if binding.get("refresh"):
        try:
            got = await client.get(page, follow_redirects=True)
        except httpx.TimeoutException:
            return failure("timeout", f"loading the page {page} for fresh form values timed out")
        except httpx.HTTPError as exc:
            return failure("connection_failed", f"loading the page {page} failed ({exc})")
        if got.status_code >= 400:
            return BackendAnswer({"status": got.status_code, "content_type": got.headers.get("content-type", ""),
                                  "body": got.text[:max_bytes], "page": page}, status=got.status_code)
        live = live_values(got.text, binding, page)
    pairs = form_pairs(binding, arguments, live)
    url = urljoin(base_url, str(binding["action"]))
    if binding["method"] == "GET":
        url = url.split("?", 1)[0].split("#", 1)[0] + ("?" + urlencode(pairs) if pairs else "")
        request = client.build_request("GET", url)
    else:
        body, ctype = _encode(str(binding.get("enctype", "")), pairs)
        request = client.build_request("POST", url, content=body, headers={"content-type": ctype})
    return await _send(client, request, max_bytes)


async def run_openapi(client: httpx.AsyncClient, base_url: str, op: Mapping[str, Any],
                      arguments: Mapping[str, object], max_bytes: int) -> BackendAnswer:
    """Call the OpenAPI operation ``op`` (`{"method", "path", "in": {param: where}}`)."""
    from urllib.parse import quote

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
    return await _send(client, request, max_bytes)
