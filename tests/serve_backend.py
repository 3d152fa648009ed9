"""A real backend for the `axag serve` tests: a Starlette app under uvicorn on a loopback port.

It serves the pages of a site folder with a CSRF token that changes on every load (bound to a session cookie),
answers the forms' endpoints, records every request, and can be told to fail (500) or to hang (timeout).
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

_TOKEN = re.compile(r'(name="(?:csrf|nonce)" value=")token"')


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Recorded:
    method: str
    path: str
    query: list[tuple[str, str]]
    content_type: str
    form: list[tuple[str, str]]
    body: bytes
    cookies: dict[str, str]
    headers: dict[str, str]


@dataclass
class Backend:
    sites: list[Path]
    requests: list[Recorded] = field(default_factory=list)
    tokens: dict[str, str] = field(default_factory=dict)  # session id -> last CSRF token issued
    mode: str = "ok"  # ok | 500 | hang (5 s) | slow (1 s)
    url: str = ""
    page_headers: dict[str, str] = field(default_factory=dict)  # added to every page (e.g. a CSP)

    def calls(self, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.path == path]

    def app(self) -> Starlette:
        async def page(request: Request) -> Response:
            await self._record(request)
            name = request.path_params["name"] + ".html"
            file = next((d / name for d in self.sites if (d / name).is_file()), None)
            if file is None:
                return PlainTextResponse("not found", status_code=404)
            sid = request.cookies.get("sid") or secrets.token_hex(8)
            token = secrets.token_hex(12)
            self.tokens[sid] = token
            html = _TOKEN.sub(lambda m: m.group(1) + token + '"', file.read_text(encoding="utf-8"))
            resp = HTMLResponse(html, headers=self.page_headers)
            resp.set_cookie("sid", sid)
            return resp

        async def script(request: Request) -> Response:  # the pages' own modules (axag-webmcp.js)
            await self._record(request)
            name = request.path_params["name"] + ".js"
            file = next((d / name for d in self.sites if (d / name).is_file()), None)
            if file is None:
                return PlainTextResponse("not found", status_code=404)
            return Response(file.read_bytes(), media_type="text/javascript")

        async def endpoint(request: Request) -> Response:
            rec = await self._record(request)
            if self.mode == "500":
                return PlainTextResponse("Internal trouble: the database is down", status_code=500)
            if self.mode == "hang":
                await asyncio.sleep(5)
            if self.mode == "slow":
                await asyncio.sleep(1)
            form = dict(rec.form)
            sid = rec.cookies.get("sid", "")
            for key in ("csrf", "nonce"):
                if key in form and (not sid or form[key] != self.tokens.get(sid)):
                    return JSONResponse({"error": f"bad {key}"}, status_code=403)
            if request.url.path == "/bookings":
                return JSONResponse({"booking": "B000123", "guests": form.get("guests")}, status_code=201)
            if request.url.path == "/search":
                return JSONResponse({"results": [dict(rec.query).get("q", "")]})
            return JSONResponse({"ok": True, "path": request.url.path, "method": request.method,
                                 "form": rec.form, "json": _json(rec.body)})

        routes = [Route("/{name}.html", page), Route("/{name}.js", script),
                  Route("/{rest:path}", endpoint, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])]
        return Starlette(routes=routes)

    async def _record(self, request: Request) -> Recorded:
        body, ctype, form = await read_request(request)
        rec = Recorded(request.method, request.url.path, parse_qsl(request.url.query, keep_blank_values=True),
                       ctype, form, body, dict(request.cookies), dict(request.headers))
        self.requests.append(rec)
        return rec


async def read_request(request: Request) -> tuple[bytes, str, list[tuple[str, str]]]:
    """(body, content type, the form's name/value pairs when it is an urlencoded or multipart form)."""
    body = await request.body()
    ctype = request.headers.get("content-type", "")
    form: list[tuple[str, str]] = []
    if ctype.startswith("application/x-www-form-urlencoded"):
        form = parse_qsl(body.decode(), keep_blank_values=True)
    elif ctype.startswith("multipart/form-data"):
        parsed = await request.form()
        form = [(k, str(v)) for k, v in parsed.multi_items()]
    return body, ctype, form


def _json(body: bytes) -> Any:
    try:
        return json.loads(body) if body else None
    except ValueError:
        return None


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """The ASGI ``app`` under uvicorn on a free loopback port (its URL), stopped on exit."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("backend did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextmanager
def running_backend(*sites: Path, page_headers: dict[str, str] | None = None) -> Iterator[Backend]:
    """The backend on a free loopback port, stopped on exit."""
    backend = Backend(list(sites), page_headers=dict(page_headers or {}))
    with serving(backend.app()) as url:
        backend.url = url
        yield backend


if __name__ == "__main__":  # a local backend for trying `axag serve` (see docs/serve/index.md)
    import argparse

    parser = argparse.ArgumentParser(description="Serve a site folder's pages with a fresh CSRF token per load.")
    parser.add_argument("site", type=Path)
    parser.add_argument("--port", type=int, default=8000)
    opts = parser.parse_args()
    uvicorn.run(Backend([opts.site]).app(), host="127.0.0.1", port=opts.port, log_level="warning")
