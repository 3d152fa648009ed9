"""The approval page of `axag serve`: `/approvals/<id>?code=<secret>`.

Server-rendered with jinja2 (autoescaped), no external assets, no JavaScript, a strict Content-Security-Policy
(the one inline style block is allowed by its hash). Opening a link (GET: safe and repeatable until the request is
decided or expires, so a link preview does not burn it) starts a page session (an HttpOnly, SameSite=Strict
cookie for that request only) and redirects to the page without the code. A decision is a POST with the
session's CSRF token and the approver's own token. Every text shown has its control and bidi characters
escaped (`axag.serve.escape`).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

from jinja2 import Environment, FileSystemLoader, select_autoescape

from axag.serve.approvals import ApprovalDesk, ApprovalRequest, DeskRefusal
from axag.serve.escape import shown

__all__ = ["ApprovalPageServer", "DeskTimes", "desk_app", "serve_beside", "serve_desk", "with_desk"]


class DeskTimes(Protocol):
    @property
    def ttl(self) -> float: ...  # how long a request (and its page session) lasts, in seconds

    @property
    def value_ttl(self) -> float: ...  # how long "approve these values" lasts

    @property
    def page_url(self) -> str | None: ...  # the page's public origin (`--public-url`), None: no page


class ApprovalPageServer(Protocol):
    """What the approval page reads of the server (`axag.serve.approval_loop.DeskToolServer` fits): its approval
    desk, the served tools by name and the desk's times."""

    @property
    def desk(self) -> ApprovalDesk: ...

    @property
    def tools(self) -> Mapping[str, Mapping[str, Any]]: ...

    @property
    def desk_config(self) -> DeskTimes: ...

COOKIE = "axag_desk"
_FOLD = 160
_STYLE = (
    "body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#fff;color:#1a1a1a}"
    "main{max-width:46rem;margin:0 auto;padding:1rem 1.25rem}"
    "h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:1.5rem}h3{font-size:1.05rem}"
    "dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}dd{margin:0}"
    "table{border-collapse:collapse;width:100%}th,td{border:1px solid #6b6b6b;padding:.3rem .5rem;"
    "text-align:left;vertical-align:top}code,pre{font-family:ui-monospace,monospace}"
    "td code,pre{white-space:pre-wrap;overflow-wrap:anywhere}label{display:block;font-weight:600;margin-top:1rem}"
    "input{font:inherit;padding:.4rem;border:2px solid #4a4a4a;border-radius:4px;width:100%;max-width:28rem}"
    ".hint{color:#3d3d3d;margin:.25rem 0 1rem}.buttons{display:flex;flex-wrap:wrap;gap:.75rem}"
    "button{font:inherit;padding:.5rem 1rem;border:2px solid #0b4f8a;border-radius:4px;background:#0b4f8a;"
    "color:#fff;cursor:pointer}button.deny{background:#fff;color:#8a0b0b;border-color:#8a0b0b}"
    ":focus-visible{outline:3px solid #c25e00;outline-offset:2px}"
    ".note{padding:.5rem .75rem;border-left:4px solid #0b4f8a;background:#eef4fa}"
    ".note.error{border-color:#8a0b0b;background:#fbeeee}"
)
_CSP = ("default-src 'none'; style-src 'sha256-"
        + base64.b64encode(hashlib.sha256(_STYLE.encode()).digest()).decode()
        + "'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; img-src 'none'")
_HEADERS = {"Content-Security-Policy": _CSP, "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
            "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}
_ENV = Environment(loader=FileSystemLoader(str(Path(__file__).with_name("templates"))),
                   autoescape=select_autoescape(["html", "j2"]), trim_blocks=True, lstrip_blocks=True,
                   finalize=lambda v: shown(v) if type(v) is str else v)  # every text printed, caller text included
_INVALID = ("This approval link is not valid: it was replaced by a newer link, or its request was decided or has "
            "expired. Ask for a new link (`axag approvals link ID`) or decide with `axag approvals`.")


def duration(seconds: float) -> str:
    """``86400`` -> ``24 h``, ``5400`` -> ``90 min``, ``45`` -> ``45 s``."""
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{int(seconds // 3600)} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{int(seconds // 60)} min"
    return f"{seconds:g} s"


def _time_left(req: ApprovalRequest) -> str:
    seconds = max(0, int(req.expires - time.time()))
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


def _arguments(req: ApprovalRequest) -> list[tuple[str, str, str | None]]:
    """(name, value as shown, the full value when it had to be folded)."""
    out: list[tuple[str, str, str | None]] = []
    for name, value in sorted(req.arguments.items()):
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if len(text) > _FOLD:
            out.append((name, text[:_FOLD] + "…", text))
        else:
            out.append((name, text, None))
    return out


def desk_app(server: ApprovalPageServer) -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, RedirectResponse, Response
    from starlette.routing import Route

    desk = server.desk

    def page(req: ApprovalRequest | None, *, status: int = 200, csrf: str = "", message: str = "",
             kind: str = "info") -> Response:
        values: dict[str, Any] = {"style": _STYLE, "req": req, "csrf": csrf, "message": message,
                                  "message_kind": kind, "heading": "Approval request"}
        if req is not None:
            tool = server.tools.get(req.tool, {})
            meta = tool.get("_meta", {}).get("org.axag/action", {})
            roles = list(req.roles)
            values.update({
                "heading": f"Approve {req.tool}?" if req.status == "pending" else f"Approval request {req.id}",
                "title": tool.get("title"), "description": tool.get("description", "").split("\n")[0],
                "risk": meta.get("risk_level", "not declared"), "side_effects": meta.get("side_effects", []),
                "preconditions": [p.get("text", "") for p in meta.get("preconditions", [])],
                "roles": ("one of the roles " + ", ".join(roles)) if roles else "any role",
                "arguments": _arguments(req), "time_left": _time_left(req),
                "value_ttl": duration(server.desk_config.value_ttl)})
        return HTMLResponse(_ENV.get_template("approval.html.j2").render(**values), status_code=status,
                            headers=_HEADERS)

    def session_csrf(request: Request, rid: str) -> str | None:
        cookie = request.cookies.get(COOKIE)
        return None if not cookie else desk.session_csrf(rid, cookie)

    async def show(request: Request) -> Response:
        rid = request.path_params["rid"]
        code = request.query_params.get("code")
        if code is not None:
            spent = desk.open_code(rid, code)
            if spent is None:
                return page(None, status=403, message=_INVALID, kind="error")
            session, _ = spent
            resp = RedirectResponse(f"/approvals/{rid}", status_code=303, headers=_HEADERS)
            resp.set_cookie(COOKIE, session, path=f"/approvals/{rid}", httponly=True, samesite="strict",
                            secure=request.url.scheme == "https" or str(server.desk_config.page_url).startswith(
                                "https://"), max_age=int(server.desk_config.ttl) + 60)
            return resp
        csrf = session_csrf(request, rid)
        req = desk.get(rid) if csrf is not None else None
        if csrf is None or req is None:
            return page(None, status=403, message=_INVALID, kind="error")
        return page(req, csrf=csrf)

    async def decide(request: Request) -> Response:
        rid = request.path_params["rid"]
        csrf = session_csrf(request, rid)
        form = await request.form()
        sent = form.get("csrf")
        if csrf is None or not isinstance(sent, str) or not hmac.compare_digest(sent.encode(), csrf.encode()):
            return page(None, status=403, message="This form is not valid here (missing or wrong CSRF token, or "
                        "no session). Open the approval link again.", kind="error")
        req = desk.get(rid)
        if req is None:
            return page(None, status=403, message=_INVALID, kind="error")
        token, action = form.get("token"), form.get("action")
        who = desk.approver_identity(token) if isinstance(token, str) and token else None
        if who is None:
            return page(req, status=401, csrf=csrf, message="That approver token is not known.", kind="error")
        if action not in ("approve_call", "approve_value", "deny"):
            return page(req, status=400, csrf=csrf, message="Choose Approve this call, Approve these values or "
                        "Deny.", kind="error")
        name, roles = who
        try:
            req = desk.decide(rid, name, roles, granted=action != "deny",
                              scope="value" if action == "approve_value" else "call")
        except DeskRefusal as exc:
            return page(desk.get(rid) or req, status=403, csrf=csrf, message=f"Not recorded: {exc}.", kind="error")
        what = "denied the call" if action == "deny" else "approved " + (
            "these values" if action == "approve_value" else "this call")
        return page(req, csrf=csrf, message=f"Recorded: {name} {what} ({req.granted} of {req.count} approvals; the "
                    f"request is {req.status}).")

    return Starlette(routes=[Route("/approvals/{rid}", show, methods=["GET"]),
                             Route("/approvals/{rid}", decide, methods=["POST"])])


def with_desk(app: Any, desk: Any) -> Any:
    """One ASGI app: `/approvals/…` goes to the approval page, everything else to ``app``."""

    async def routed(scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and str(scope.get("path", "")).startswith("/approvals/"):
            await desk(scope, receive, send)
        else:
            await app(scope, receive, send)

    return routed


async def serve_desk(server: Any, host: str, port: int) -> None:
    """The approval page alone (stdio mode with `--desk-http`)."""
    await serve_beside(desk_app(server), host, port)


async def serve_beside(app: Any, host: str, port: int) -> None:
    """``app`` on a listener of its own beside the MCP server (which owns SIGTERM/SIGINT and cancels this)."""
    import uvicorn

    from axag.serve.logs import uvicorn_log_config

    class Quiet(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:  # the MCP server owns SIGTERM/SIGINT
            yield

    # log_level warning: uvicorn's access log (which would show a link's code) stays off
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off",
                            log_config=uvicorn_log_config())
    await Quiet(config).serve()
