"""`axag approvals list|show|approve|deny|link|remembered|revoke` on the state database of `axag serve`, and the
approval options of `axag serve` (issues 15, 24).

Deciding in the terminal needs the approver's own token (a hidden prompt on a terminal, else
`AXAG_APPROVER_TOKEN`), checked as the page checks it: knowing an approver's name is not enough. Text that came
from a caller is shown with its control and bidi characters escaped, `--json` included."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from axag.cli.common import fail, guard_errors
from axag.cli.serve_settings import STATE_HELP, host_port, open_store, serve_settings, state_path
from axag.outcome.plural import plural
from axag.serve.escape import shown, shown_json

if TYPE_CHECKING:
    from axag.serve.approvals import ApprovalDesk

__all__ = ["approval_options", "approvals", "make_server"]

_TTL = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(s|m|h)?\s*$")


TOKEN_VARIABLE = "AXAG_APPROVER_TOKEN"


def parse_ttl(text: str, flag: str = "--approval-ttl") -> float:
    """`90`, `90s`, `15m` or `2h` → seconds (> 0)."""
    m = _TTL.match(text)
    if m is None or float(m.group(1)) <= 0:
        raise fail(f"{flag} {text}: expected a duration such as 90s, 15m or 2h")
    return float(m.group(1)) * {"s": 1, "m": 60, "h": 3600}[m.group(2) or "s"]


def approval_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option("--approval-mode", type=click.Choice(["wait", "tell"]), default="wait", show_default=True,
                     help="wait: request_permission stays open until a decision or expiry; tell: it answers at once."),
        click.option("--approval-ttl", default="15m", show_default=True, help="How long a request stays open."),
        click.option("--value-approval-ttl", default=None,
                     help="How long \"approve these values\" lasts for the caller who asked (default: "
                          "serve.value-approval-ttl, else 24h)."),
        click.option("--max-pending", default=None, type=click.IntRange(min=1),
                     help="Distinct pending approval requests per caller; more answer rate_limited (default: "
                          "serve.max-pending, else 5)."),
        click.option("--notify-webhook", default=None, metavar="URL",
                     help="POST each new approval request (JSON with a summary and the link) to URL."),
        click.option("--notify-command", default=None, metavar="CMD",
                     help="Run CMD for each new approval request, with the JSON on stdin."),
        click.option("--public-url", default=None, metavar="ORIGIN",
                     help="The origin approval links use when serve runs behind a proxy or load balancer, e.g. "
                          "https://approvals.example.com (default: serve.public-url, else the --http or "
                          "--desk-http address)."),
        click.option("--desk", is_flag=True, help="List request_permission even when no tool needs approval."),
        click.option("--desk-http", default=None, metavar="HOST:PORT",
                     help="stdio mode: serve the approval page on HOST:PORT (HTTP mode uses its own port)."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _needs_approval(doc: dict[str, Any]) -> bool:
    return any(isinstance(t.get("_meta"), dict) and t["_meta"].get("org.axag/action", {}).get("approval_required")
               for t in doc["tools"])


def public_origin(url: str | None) -> str | None:
    """``--public-url``: an http(s) origin (a trailing / dropped); the page lives at its root."""
    if url is None:
        return None
    from urllib.parse import urlsplit

    origin = url.rstrip("/")
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path or parts.query or parts.fragment:
        raise fail(f"--public-url {shown(url)}: expected an http:// or https:// origin such as "
                   "https://approvals.example.com (no path: the approval page is served at /approvals/…)")
    return origin


def make_server(config: Any, store: Any, approval: dict[str, Any], hostport: tuple[str, int] | None,
                settings: Any = None) -> Any:
    """A `ToolServer`, or a `DeskToolServer` when a tool needs approval or `--desk` is given; options left out
    come from ``settings`` ([serve] value-approval-ttl, max-pending)."""
    from axag.serve.app import ToolServer

    desk_http = approval.get("desk_http")
    if desk_http is not None and hostport is not None:
        raise fail("--desk-http is for stdio mode; with --http the approval page is on the HTTP port")
    webhook = approval.get("notify_webhook")
    if webhook is not None and not webhook.startswith(("http://", "https://")):
        raise fail(f"--notify-webhook {webhook}: expected an http:// or https:// URL")
    ttl = parse_ttl(approval["approval_ttl"])
    value_text = approval.get("value_approval_ttl") or getattr(settings, "serve_value_approval_ttl", None) or "24h"
    value_ttl = parse_ttl(value_text, "--value-approval-ttl")
    max_pending = approval.get("max_pending") or getattr(settings, "serve_max_pending", None) or 5
    if not approval.get("desk") and not _needs_approval(config.tools_doc):
        return ToolServer(config, store)
    from axag.serve.approval_loop import DeskConfig, DeskToolServer

    page = hostport if hostport is not None else host_port(desk_http) if desk_http is not None else None
    page_url = public_origin(approval.get("public_url") or getattr(settings, "serve_public_url", None))
    if page_url is None and page is not None:
        host = f"[{page[0]}]" if ":" in page[0] else page[0]
        page_url = f"http://{host}:{page[1]}"
    desk_config = DeskConfig(mode=approval["approval_mode"], ttl=ttl, notify_webhook=webhook,
                             notify_command=approval.get("notify_command"), page_url=page_url, value_ttl=value_ttl,
                             max_pending=int(max_pending))
    server = DeskToolServer(config, store, desk_config)
    if desk_http is not None:
        server.desk_http = page
    return server


@click.group("approvals", context_settings={"help_option_names": ["-h", "--help"]})
def approvals() -> None:
    """Approval requests of `axag serve`: list, show, approve, deny, link; remembered approvals: remembered,
    revoke."""


def _state_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--state", default=None, help=STATE_HELP)(fn)


def _desk(state: str | None) -> ApprovalDesk:
    """The approval desk on the database `axag serve` uses: ``state``, else [tool.axag.serve] state, else the
    default. It must exist: these commands never create one (a mistyped --state or the wrong folder would
    otherwise read an empty new database and say nothing)."""
    from axag.serve.approvals import ApprovalDesk

    path = _existing_state(state)
    return ApprovalDesk(open_store(path, create=False))


def _existing_state(state: str | None) -> str:
    from axag.serve.stores import is_database_url

    path = state_path(state, serve_settings(None, False))
    if not is_database_url(path) and not Path(path).is_file():
        raise fail(f"no state database at {path} (axag serve creates it; give --state FILE, or set state in "
                   "[tool.axag.serve], to read another)")
    return path


@approvals.command("list")
@click.option("--status", type=click.Choice(["pending", "approved", "denied", "expired"]), default=None)
@click.option("--json", "as_json", is_flag=True, help="JSON lines instead of a table.")
@_state_option
@guard_errors
def list_cmd(status: str | None, as_json: bool, state: str | None) -> None:
    """The requests, oldest first (the database read and their number on stderr)."""
    desk = _desk(state)
    requests = desk.list(status)
    kind = f"{status} approval request" if status else "approval request"
    click.echo(f"axag: {plural(len(requests), kind) if requests else 'no ' + kind + 's'} in {desk.store.path}",
               err=True)
    for req in requests:
        if as_json:
            click.echo(shown_json(req.summary()))
        else:
            click.echo(shown(f"{req.id}  {req.status:<8}  {req.tool}  by {req.actor or '-'}  {req.granted}/{req.count}  "
                             f"expires {req.summary()['expires']}  {req.reason}"))


@approvals.command("show")
@click.argument("request_id")
@_state_option
@guard_errors
def show_cmd(request_id: str, state: str | None) -> None:
    """One request as JSON (its decisions included; never a link)."""
    desk = _desk(state)
    req = desk.get(request_id)
    if req is None:
        raise fail(f"no approval request {shown(request_id)} in {desk.store.path}")
    click.echo(f"axag: approval request {shown(request_id)} in {desk.store.path}", err=True)
    click.echo(shown_json(req.summary(), indent=2))


def _approver_token() -> str:
    """The approver's token: ``AXAG_APPROVER_TOKEN``, else a hidden prompt on a terminal; else a refusal."""
    token = os.environ.get(TOKEN_VARIABLE, "").strip()
    if token:
        return token
    if sys.stdin.isatty():
        token = str(click.prompt("Your approver token", hide_input=True, err=True)).strip()
        if token:
            return token
    raise fail(f"deciding needs your approver token: type it at the prompt (on a terminal) or set {TOKEN_VARIABLE} "
               "(`axag serve approver add NAME` printed it)")


def _decide(request_id: str, name: str | None, state: str | None, granted: bool, scope: str) -> None:
    from axag.serve.approvals import DeskRefusal

    token = _approver_token()
    desk = _desk(state)
    who = desk.approver_identity(token)
    if who is None:
        raise fail("that approver token is not known (`axag serve approver list` shows the approvers)")
    holder, roles = who
    if name is not None and name != holder:
        raise fail(f"--as {shown(name)}: the token is {shown(holder)}'s, not {shown(name)}'s")
    try:
        req = desk.decide(request_id, holder, roles, granted=granted, scope=scope)
    except DeskRefusal as exc:
        raise fail(f"not recorded: {shown(str(exc))}") from exc
    what = "denied the call" if not granted else "approved " + ("these values" if scope == "value" else "this call")
    click.echo(shown(f"{request_id}: {holder} {what} ({req.granted} of {req.count} approvals; the request is "
                     f"{req.status})"))


_AS = ("The approver's name; it must be the name of the token's approver (the token comes from a prompt or "
       f"{TOKEN_VARIABLE}).")


@approvals.command("approve")
@click.argument("request_id")
@click.option("--as", "name", default=None, help=_AS)
@click.option("--scope", type=click.Choice(["call", "value"]), default="call", show_default=True,
              help="call: this call once; value: later calls by the same caller with the same values too.")
@_state_option
@guard_errors
def approve_cmd(request_id: str, name: str | None, scope: str, state: str | None) -> None:
    """Approve REQUEST_ID with your approver token."""
    _decide(request_id, name, state, True, scope)


@approvals.command("deny")
@click.argument("request_id")
@click.option("--as", "name", default=None, help=_AS)
@_state_option
@guard_errors
def deny_cmd(request_id: str, name: str | None, state: str | None) -> None:
    """Deny REQUEST_ID with your approver token."""
    _decide(request_id, name, state, False, "call")


@approvals.command("link")
@click.argument("request_id")
@click.option("--url", default=None, metavar="ORIGIN",
              help="Origin of the approval page (default: the one `axag serve` last announced in the database).")
@_state_option
@guard_errors
def link_cmd(request_id: str, url: str | None, state: str | None) -> None:
    """Print a fresh link to the page of pending request REQUEST_ID; its earlier links stop working."""
    desk = _desk(state)
    req = desk.get(request_id)
    if req is None:
        raise fail(f"no approval request {shown(request_id)}")
    if req.status != "pending":
        raise fail(f"request {req.id} is already {req.status}; there is nothing left to decide")
    origin = url if url is not None else desk.store.setting("page_url")
    if origin is None:
        raise fail("no approval page is known: serve one (`axag serve --desk-http HOST:PORT` or `--http`), or "
                   "give --url")
    if not origin.startswith(("http://", "https://")):
        raise fail(f"--url {shown(origin)}: expected an http:// or https:// origin")
    click.echo(f"{origin.rstrip('/')}/approvals/{req.id}?code={desk.mint_code(req.id, retire=True)}")


@approvals.command("remembered")
@click.option("--json", "as_json", is_flag=True, help="JSON lines instead of a table.")
@_state_option
@guard_errors
def remembered_cmd(as_json: bool, state: str | None) -> None:
    """Approved values that are remembered (\"approve these values\"): who may call again, approved by whom,
    until when; oldest first."""
    from axag.serve.approvals import _iso

    for row in _desk(state).store.remembered():
        row = {**row, "created": _iso(row["created"]), "expires": _iso(row["expires"])}
        if as_json:
            click.echo(shown_json(row))
        else:
            by = ", ".join(f"{name} ({', '.join(roles) or 'no roles'})" for name, roles in sorted(row["approvers"].items()))
            click.echo(shown(f"{row['id']}  {row['tool']}  for {row['actor']}  by {by}  expires {row['expires']}  "
                             f"{row['fingerprint'][:16]}"))


@approvals.command("revoke")
@click.argument("remembered_id")
@_state_option
@guard_errors
def revoke_cmd(remembered_id: str, state: str | None) -> None:
    """Forget the remembered approval REMEMBERED_ID (`axag approvals remembered` lists them)."""
    if not _desk(state).store.revoke_remembered(remembered_id):
        raise fail(f"no remembered approval {shown(remembered_id)} (`axag approvals remembered` lists them)")
    click.echo(f"{shown(remembered_id)}: revoked; those values need approval again")
