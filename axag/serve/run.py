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

from axag.serve.app import ToolServer

__all__ = ["StoreTokenVerifier", "serve_http", "serve_stdio"]

log = logging.getLogger("axag.serve")


class StoreTokenVerifier:
    """The SDK's `TokenVerifier`: a bearer token is valid when its SHA-256 is in the state database."""

    def __init__(self, store: Any) -> None:
        self.store = store

    async def verify_token(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        found = self.store.token_identity(token)
        if found is None:
            return None
        name, roles = found
        return AccessToken(token=token, client_id=name, scopes=[], subject=name, claims={"roles": list(roles)})


async def _drain(tools: ToolServer, grace: float) -> None:
    with anyio.move_on_after(grace):
        while tools.in_flight:
            await anyio.sleep(0.02)


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
        try:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
        finally:
            tg.cancel_scope.cancel()
            await tools.aclose()


async def serve_http(tools: ToolServer, host: str, port: int) -> None:
    import uvicorn
    from mcp.server.auth.settings import AuthSettings

    if tools.store.token_count() == 0:
        log.warning("axag serve: no tokens in %s; every request will get 401. Add one with "
                    "`axag serve token add NAME --roles a,b`.", tools.store.path)
    url_host = f"[{host}]" if ":" in host else host
    auth = AuthSettings(issuer_url=f"http://{url_host}:{port}", resource_server_url=None)  # type: ignore[arg-type]
    app = tools.server.streamable_http_app(host=host, auth=auth, token_verifier=StoreTokenVerifier(tools.store))
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=int(tools.config.timeout) + 5)
    server = uvicorn.Server(config)
    print(f"axag serve: MCP endpoint http://{url_host}:{port}/mcp", file=sys.stderr, flush=True)
    try:
        await server.serve()
    finally:
        await tools.aclose()
