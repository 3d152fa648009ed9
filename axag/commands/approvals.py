"""`axag approvals list|show|approve|deny` on the state database of `axag serve`, and the approval options of
`axag serve` (issue 15)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from axag.commands.common import fail, guard_errors
from axag.commands.serve_settings import DEFAULT_STATE, host_port, open_store, serve_settings, state_path
from axag.plural import plural

if TYPE_CHECKING:
    from axag.serve.approvals import ApprovalDesk

__all__ = ["approval_options", "approvals", "make_server"]

_TTL = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(s|m|h)?\s*$")


def parse_ttl(text: str) -> float:
    """`90`, `90s`, `15m` or `2h` → seconds (> 0)."""
    m = _TTL.match(text)
    if m is None or float(m.group(1)) <= 0:
        raise fail(f"--approval-ttl {text}: expected a duration such as 90s, 15m or 2h")
    return float(m.group(1)) * {"s": 1, "m": 60, "h": 3600}[m.group(2) or "s"]


def approval_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option("--approval-mode", type=click.Choice(["wait", "tell"]), default="wait", show_default=True,
                     help="wait: request_permission stays open until a decision or expiry; tell: it answers at once."),
        click.option("--approval-ttl", default="15m", show_default=True, help="How long a request stays open."),
        click.option("--notify-webhook", default=None, metavar="URL",
                     help="POST each new approval request (JSON with a summary and the link) to URL."),
        click.option("--notify-command", default=None, metavar="CMD",
                     help="Run CMD for each new approval request, with the JSON on stdin."),
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


def make_server(config: Any, store: Any, approval: dict[str, Any], hostport: tuple[str, int] | None) -> Any:
    """A `ToolServer`, or a `DeskToolServer` when a tool needs approval or `--desk` is given."""
    from axag.serve.app import ToolServer

    desk_http = approval.get("desk_http")
    if desk_http is not None and hostport is not None:
        raise fail("--desk-http is for stdio mode; with --http the approval page is on the HTTP port")
    webhook = approval.get("notify_webhook")
    if webhook is not None and not webhook.startswith(("http://", "https://")):
        raise fail(f"--notify-webhook {webhook}: expected an http:// or https:// URL")
    ttl = parse_ttl(approval["approval_ttl"])
    if not approval.get("desk") and not _needs_approval(config.tools_doc):
        return ToolServer(config, store)
    from axag.serve.permission import DeskConfig, DeskToolServer

    page = hostport if hostport is not None else host_port(desk_http) if desk_http is not None else None
    page_url = None
    if page is not None:
        host = f"[{page[0]}]" if ":" in page[0] else page[0]
        page_url = f"http://{host}:{page[1]}"
    desk_config = DeskConfig(mode=approval["approval_mode"], ttl=ttl, notify_webhook=webhook,
                             notify_command=approval.get("notify_command"), page_url=page_url)
    server = DeskToolServer(config, store, desk_config)
    if desk_http is not None:
        server.desk_http = page
    return server


@click.group("approvals", context_settings={"help_option_names": ["-h", "--help"]})
def approvals() -> None:
    """Approval requests of `axag serve`: list, show, approve, deny."""


def _state_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--state", default=None,
                        help=f"SQLite state database of axag serve (default: serve.state, else {DEFAULT_STATE}).")(fn)


def _desk(state: str | None) -> ApprovalDesk:
    """The approval desk on the database `axag serve` uses: ``state``, else [tool.axag.serve] state, else the
    default. It must exist: these commands never create one (a mistyped --state or the wrong folder would
    otherwise read an empty new database and say nothing)."""
    from axag.serve.approvals import ApprovalDesk

    path = _existing_state(state)
    return ApprovalDesk(open_store(path))


def _existing_state(state: str | None) -> str:
    path = state_path(state, serve_settings(None, False))
    if not Path(path).is_file():
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
            click.echo(json.dumps(req.summary(), ensure_ascii=False, sort_keys=True))
        else:
            click.echo(f"{req.id}  {req.status:<8}  {req.tool}  by {req.actor or '-'}  {req.granted}/{req.count}  "
                       f"expires {req.summary()['expires']}  {req.reason}")


@approvals.command("show")
@click.argument("request_id")
@_state_option
@guard_errors
def show_cmd(request_id: str, state: str | None) -> None:
    """One request as JSON (its decisions included; never a link)."""
    desk = _desk(state)
    req = desk.get(request_id)
    if req is None:
        raise fail(f"no approval request {request_id} in {desk.store.path}")
    click.echo(f"axag: approval request {request_id} in {desk.store.path}", err=True)
    click.echo(json.dumps(req.summary(), ensure_ascii=False, indent=2, sort_keys=True))


def _decide(request_id: str, name: str, state: str | None, granted: bool, scope: str) -> None:
    from axag.serve.approvals import DeskRefusal

    desk = _desk(state)
    roles = desk.approver_roles(name)
    if roles is None:
        raise fail(f"{name} is not an approver (add one with `axag serve approver add {name} --roles ...`)")
    try:
        req = desk.decide(request_id, name, roles, granted=granted, scope=scope)
    except DeskRefusal as exc:
        raise fail(f"not recorded: {exc}") from exc
    what = "denied the call" if not granted else "approved " + ("these values" if scope == "value" else "this call")
    click.echo(f"{request_id}: {name} {what} ({req.granted} of {req.count} approvals; the request is {req.status})")


@approvals.command("approve")
@click.argument("request_id")
@click.option("--as", "name", required=True, help="The approver's name (`axag serve approver add`).")
@click.option("--scope", type=click.Choice(["call", "value"]), default="call", show_default=True,
              help="call: this call once; value: later calls with the same values too.")
@_state_option
@guard_errors
def approve_cmd(request_id: str, name: str, scope: str, state: str | None) -> None:
    """Approve REQUEST_ID as NAME."""
    _decide(request_id, name, state, True, scope)


@approvals.command("deny")
@click.argument("request_id")
@click.option("--as", "name", required=True, help="The approver's name (`axag serve approver add`).")
@_state_option
@guard_errors
def deny_cmd(request_id: str, name: str, state: str | None) -> None:
    """Deny REQUEST_ID as NAME."""
    _decide(request_id, name, state, False, "call")
