"""A scriptable loopback backend for tests/serve/test_sent.py: uvicorn on an ephemeral port, serving
pages from a dict (each load issues a fresh CSRF token for every `value="token"`), recording every request
exactly as it arrived (raw path, query, headers, body), and answering each path with a handler the test sets:
redirects, slow drips, endless or deeply nested bodies, waits on an event."""

from __future__ import annotations

import asyncio
import re
import secrets
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response

from tests.serve_backend import read_request, serving

Handler = Callable[[Request], Awaitable[Response]]


@dataclass
class Seen:
    method: str
    raw_path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    body: bytes
    form: list[tuple[str, str]]


@dataclass
class Site:
    pages: dict[str, str] = field(default_factory=dict)  # "/a.html" -> HTML
    handlers: dict[str, Handler] = field(default_factory=dict)  # path -> handler (else: a JSON echo)
    seen: list[Seen] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)  # every CSRF token issued, in order
    url: str = ""
    streamed: list[int] = field(default_factory=list)  # bytes an endless body had sent when it stopped

    def calls(self, method: str | None = None) -> list[Seen]:
        return [s for s in self.seen if method is None or s.method == method]

    def app(self) -> Any:
        async def any_path(request: Request) -> Response:
            body, _ctype, form = await read_request(request)
            raw = request.scope.get("raw_path", b"").decode("latin-1").split("?", 1)[0]
            self.seen.append(Seen(request.method, raw, parse_qsl(request.url.query, keep_blank_values=True),
                                  dict(request.headers), body, form))
            handler = self.handlers.get(request.url.path)
            if handler is not None:
                return await handler(request)
            page = self.pages.get(request.url.path)
            if page is not None and request.method == "GET":
                def fresh(_: Any) -> str:
                    token = secrets.token_hex(8)
                    self.tokens.append(token)
                    return f'value="{token}"'

                return HTMLResponse(re.sub(r'value="token"', fresh, page))
            return JSONResponse({"ok": True, "path": request.url.path, "form": form})

        async def asgi(scope: Any, receive: Any, send: Any) -> None:  # no router: every path is recorded
            if scope["type"] != "http":
                return
            response = await any_path(Request(scope, receive))
            await response(scope, receive, send)

        return asgi


@contextmanager
def running_site(site: Site | None = None) -> Iterator[Site]:
    site = site or Site()
    with serving(site.app()) as url:
        site.url = url
        yield site


def redirect(location: str, status: int = 302) -> Handler:
    async def handler(request: Request) -> Response:
        return Response(status_code=status, headers={"location": location})

    return handler


def drip(every: float, count: int) -> Handler:
    """A 200 whose body arrives one byte per ``every`` seconds, ``count`` times."""
    from starlette.responses import StreamingResponse

    async def body() -> Any:
        for _ in range(count):
            yield b"x"
            await asyncio.sleep(every)

    async def handler(request: Request) -> Response:
        return StreamingResponse(body(), media_type="text/plain")

    return handler


def endless(site: Site, chunk: int = 1 << 20) -> Handler:
    """A 200 that sends 1 MiB chunks until the reader goes away (``site.streamed`` gets the bytes sent)."""
    from starlette.responses import StreamingResponse

    async def body() -> Any:
        sent = 0
        block = b"y" * chunk
        try:
            while sent < 2000 * chunk:
                yield block
                sent += chunk
                await asyncio.sleep(0)
        finally:
            site.streamed.append(sent)

    async def handler(request: Request) -> Response:
        return StreamingResponse(body(), media_type="text/plain")

    return handler


def fixed(content: bytes, media_type: str = "application/json", status: int = 200) -> Handler:
    async def handler(request: Request) -> Response:
        return Response(content, status_code=status, media_type=media_type)

    return handler


def waits_for(event: threading.Event, then: Handler | None = None) -> Handler:
    async def handler(request: Request) -> Response:
        while not event.is_set():
            await asyncio.sleep(0.05)
        return await then(request) if then is not None else PlainTextResponse("done")

    return handler
