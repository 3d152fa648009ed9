"""Transports of `axag serve`: stdio (default) and streamable HTTP under uvicorn with bearer tokens.

Logs go to stderr only: in stdio mode stdout carries the protocol. On SIGTERM (and SIGINT) the server stops
taking new work and lets the calls in flight finish (bounded by the backend timeout) before it exits.
"""

from __future__ import annotations

import logging
import signal
import sys
from typing import Any

import anyio

from axag.batch.memory import serving_gc
from axag.serve.app import ToolServer
from axag.serve.logs import json_logs, uvicorn_log_config
from axag.serve.metrics import metrics_app

__all__ = ["StoreTokenVerifier", "serve_http", "serve_stdio"]

log = logging.getLogger("axag.serve")


class StoreTokenVerifier:
    """The SDK's `TokenVerifier`: a bearer token is valid when its SHA-256 is in the state database (looked up
    without blocking the event loop where the store can: `atoken_identity`)."""

    def __init__(self, store: Any) -> None:
        self.store = store

    async def verify_token(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        found = await self.store.atoken_identity(token)
        if found is None:
            return None
        name, roles = found
        return AccessToken(token=token, client_id=name, scopes=[], subject=name, claims={"roles": list(roles)})


async def _drain(tools: ToolServer, grace: float) -> None:
    """Wait (at most ``grace`` seconds) until no call and no answer has been in flight for 0.3 s."""
    quiet = 0
    with anyio.move_on_after(grace):
        while quiet < 15:
            quiet = 0 if tools.in_flight or tools.requests_in_flight else quiet + 1
            await anyio.sleep(0.02)


def _counting(app: Any, tools: ToolServer) -> Any:
    """The ASGI app, counting the POST requests being answered (a call's answer is complete only when its
    response stream is, after the call itself has returned)."""

    async def counted(scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await app(scope, receive, send)
            return
        tools.requests_in_flight += 1
        try:
            await app(scope, receive, send)
        finally:
            tools.requests_in_flight -= 1

    return counted


async def serve_stdio(tools: ToolServer) -> None:
    from mcp.server.stdio import stdio_server

    server = tools.server
    async with anyio.create_task_group() as tg:

        async def on_signal() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                async for _ in signals:
                    log.warning("axag serve: stopping; waiting for %d call(s) in flight", tools.in_flight)
                    await _drain(tools, tools.config.timeout + 5.0)
                    tg.cancel_scope.cancel()
                    return

        tg.start_soon(on_signal)
        desk_http = getattr(tools, "desk_http", None)  # the approval page beside stdio (`--desk-http`)
        if desk_http is not None:
            from axag.serve.approval_page import serve_desk

            tg.start_soon(serve_desk, tools, *desk_http)
        _start_metrics_listener(tools, tg)
        serving_gc()
        try:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
        finally:
            tg.cancel_scope.cancel()
            await tools.aclose()


def _draining_server(config: Any, tools: ToolServer) -> Any:
    """A uvicorn server whose first SIGTERM/SIGINT waits for the calls in flight before it shuts down: uvicorn
    (and sse-starlette, which ends open SSE streams as soon as uvicorn is told to exit) would otherwise cut the
    answers of calls still running. A second signal stops at once."""
    import asyncio
    from types import FrameType

    import uvicorn

    class DrainingServer(uvicorn.Server):
        draining = False

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if self.draining or not (tools.in_flight or tools.requests_in_flight):
                super().handle_exit(sig, frame)
                self._captured_signals.clear()  # a graceful stop exits 0
                return
            self.draining = True
            log.warning("axag serve: stopping; waiting for %d call(s) in flight", tools.in_flight)
            loop = asyncio.get_running_loop()

            async def drain_then_exit() -> None:
                await _drain(tools, tools.config.timeout + 5.0)
                super(DrainingServer, self).handle_exit(sig, frame)
                self._captured_signals.clear()

            loop.call_soon_threadsafe(lambda: loop.create_task(drain_then_exit()))

    return DrainingServer(config)


async def serve_http(tools: ToolServer, host: str, port: int, oauth: Any = None) -> None:
    """Streamable HTTP on HOST:PORT; callers authenticate with the static tokens of the state database, or, with
    ``oauth`` (an `axag.serve.oauth.OAuthSettings`), with the issuer's JWT access tokens."""
    import uvicorn

    url_host = f"[{host}]" if ":" in host else host
    oauth_client = None
    if oauth is None:
        if tools.store.token_count() == 0:
            log.warning("axag serve: no tokens in %s; every request will get 401. Add one with "
                        "`axag serve token add NAME --roles a,b`.", tools.store.path)
        from mcp.server.auth.settings import AuthSettings

        auth = AuthSettings(issuer_url=f"http://{url_host}:{port}", resource_server_url=None)  # type: ignore[arg-type]
        app = tools.server.streamable_http_app(host=host, auth=auth, token_verifier=StoreTokenVerifier(tools.store))
    else:
        from axag.serve.oauth import oauth_app

        app, oauth_client = await oauth_app(tools, host, oauth)
    _metrics_route(tools, app)
    app = getattr(tools, "wrap_asgi", lambda a: a)(app)  # the approval page on the same port
    config = uvicorn.Config(_counting(app, tools), host=host, port=port, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=int(tools.config.timeout) + 5, log_config=uvicorn_log_config())
    server = _draining_server(config, tools)
    serving_gc()
    _announce(f"axag serve: MCP endpoint http://{url_host}:{port}/mcp")
    try:
        async with anyio.create_task_group() as tg:
            _start_metrics_listener(tools, tg)
            await server.serve()
            tg.cancel_scope.cancel()
    finally:
        if oauth_client is not None:
            await oauth_client.aclose()
        await tools.aclose()


def _announce(line: str) -> None:
    """A start-up line on stderr: as it is in text mode, an INFO record in JSON mode."""
    if json_logs():
        log.info(line)
    else:
        print(line, file=sys.stderr, flush=True)


def _metrics_route(tools: ToolServer, app: Any) -> None:
    """`/metrics` beside `/mcp` on the HTTP port, unless the metrics have a listener of their own."""
    if tools.metrics is not None and tools.metrics_listen is None:
        _route_like_mcp(app, "/metrics", metrics_app(tools.metrics))


def _route_like_mcp(app: Any, path: str, endpoint: Any) -> None:
    """Serve ``endpoint`` at ``path`` of the SDK's Starlette ``app`` behind the authentication of its `/mcp`
    route: the same `RequireAuthMiddleware` settings (required scopes, resource metadata) on the same
    authentication middleware, whatever verifier the server was built with."""
    from mcp.server.auth.middleware.bearer_auth import RequireAuthMiddleware
    from starlette.routing import Route

    mcp_route = next(r for r in app.router.routes if getattr(r, "path", None) == "/mcp")
    guard = mcp_route.endpoint
    if isinstance(guard, RequireAuthMiddleware):
        endpoint = RequireAuthMiddleware(endpoint, guard.required_scopes, guard.resource_metadata_url)
    app.router.routes.append(Route(path, endpoint=endpoint))


def _start_metrics_listener(tools: ToolServer, tg: Any) -> None:
    """``--metrics-listen HOST:PORT``: the metrics on a listener of their own (no authentication: bind it where
    only the scraper reaches)."""
    if tools.metrics is None or tools.metrics_listen is None:
        return
    from axag.serve.approval_page import serve_beside

    host, port = tools.metrics_listen
    _announce(f"axag serve: metrics http://{f'[{host}]' if ':' in host else host}:{port}/metrics")
    tg.start_soon(serve_beside, metrics_app(tools.metrics), host, port)
