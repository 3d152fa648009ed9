"""`axag serve TOOLS.json | PATHS…`: the compiled tools as a guarded MCP server; `axag serve token add`."""

from __future__ import annotations

import importlib
import logging
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from axag.cli.approvals import approval_options, make_server
from axag.cli.common import fail, guard_errors
from axag.cli.serve_settings import (
    STATE_HELP,
    host_port,
    oauth_options,
    oauth_settings,
    open_store,
    roles_of,
    serve_settings,
    state_options,
    state_path,
)
from axag.outcome.errors import InputError

if TYPE_CHECKING:
    from axag.serve.filters import ToolFilter

__all__ = ["serve"]

log = logging.getLogger("axag.serve")



class _DefaultRun(click.Group):
    """`axag serve ARGS` runs the server; `axag serve token …` manages tokens."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args[:1] != ["-h"] and args[:1] != ["--help"] and (not args or args[0] not in self.commands):
            args = ["run", *args]
        return super().parse_args(ctx, args)


@click.group("serve", cls=_DefaultRun, context_settings={"help_option_names": ["-h", "--help"]})
def serve() -> None:
    """Serve compiled tools as a guarded MCP server (`axag serve run --help` lists the options)."""


def load_tools(inputs: tuple[str, ...], openapi: str | None) -> dict[str, Any]:
    """A tools.json, or the tools compiled from PATHS (a single folder is the site root of page URLs)."""
    doc = _tools_document(inputs)
    if openapi is not None:
        from axag.compile.openapi import bind_openapi

        for problem in bind_openapi(doc, openapi):
            log.warning("axag serve: warning: OpenAPI drift: %s", problem)
    return doc


def _tools_document(inputs: tuple[str, ...]) -> dict[str, Any]:
    if len(inputs) == 1 and inputs[0].endswith(".json") and Path(inputs[0]).is_file():
        from axag.cli.guards import load_tools_document

        return load_tools_document(Path(inputs[0]))
    from axag.api import compile_paths
    from axag.outcome.findings import Severity

    for p in inputs:
        if not Path(p).exists():
            raise InputError(f"{p}: no such file or folder")
    root = inputs[0] if len(inputs) == 1 and Path(inputs[0]).is_dir() else None
    doc, findings = compile_paths(list(inputs), root=os.path.abspath(root) if root else None)
    errors = [f for f in findings if f.severity is Severity.ERROR]
    if errors:
        shown = "; ".join(f"{f.path}:{f.line}:{f.column}: AXAG-LINT-{f.code:03d} {f.message}" for f in errors[:5])
        raise InputError(f"the pages do not compile ({len(errors)} error(s)): {shown}")
    if not doc["tools"]:
        raise InputError("no tools to serve: the inputs have no annotated actions")
    return doc


def load_handlers(spec: str | None) -> Mapping[str, Any]:
    if spec is None:
        return {}
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise InputError(f"--handlers {spec}: expected module:attribute")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise InputError(f"--handlers {spec}: cannot import {module_name}: {type(exc).__name__}: {exc}") from exc
    handlers = getattr(module, attr, None)
    if not isinstance(handlers, Mapping) or not all(callable(h) for h in handlers.values()):
        raise InputError(f"--handlers {spec}: {attr} is not a mapping of tool names to callables")
    return handlers


def operator_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """What `axag serve` exposes and how it reports; each defaults to its [tool.axag.serve] key."""
    from axag.config.toml import LOG_FORMATS
    from axag.vocabulary import RISK_LEVELS

    options = [
        click.option("--read-only/--no-read-only", "read_only", default=None,
                     help="Serve only the tools whose action changes nothing (read, navigate) (default: "
                          "serve.read-only, else off)."),
        click.option("--max-risk", type=click.Choice(RISK_LEVELS), default=None, metavar="LEVEL",
                     help=f"Serve only the tools of this risk level or lower ({' < '.join(RISK_LEVELS)}; an "
                          "undeclared risk counts as critical) (default: serve.max-risk)."),
        click.option("--tools", "tool_globs", multiple=True, metavar="GLOB",
                     help="Serve only the tools whose name matches a GLOB (repeatable; default: serve.tools)."),
        click.option("--exclude-tools", "exclude_globs", multiple=True, metavar="GLOB",
                     help="Never serve the tools whose name matches a GLOB; beats --tools (repeatable; default: "
                          "serve.exclude-tools)."),
        click.option("--metrics/--no-metrics", "metrics", default=None,
                     help="Prometheus metrics at /metrics of the --http port, behind its authentication "
                          "(default: serve.metrics, else off)."),
        click.option("--metrics-listen", default=None, metavar="HOST:PORT",
                     help="Serve the metrics on a listener of their own, without authentication (implies "
                          "--metrics; default: serve.metrics-listen)."),
        click.option("--log-format", type=click.Choice(LOG_FORMATS), default=None,
                     help="Logs on stderr as text lines or JSON objects, one a line (default: serve.log-format, "
                          "else text)."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _filtered(doc: dict[str, Any], tool_filter: ToolFilter) -> dict[str, Any]:
    """The tools document with only the tools the filter admits; a glob matching no tool is warned about, and a
    filter leaving no tool is an error."""
    if not tool_filter.active:
        return doc
    for glob in tool_filter.unmatched([t["name"] for t in doc["tools"]]):
        log.warning("axag serve: warning: %s matches no tool", glob)
    kept = tool_filter.apply(doc)
    if not kept["tools"]:
        raise fail(f"no tool is left to serve: {tool_filter.summary()} leave(s) out all {len(doc['tools'])} tools")
    return kept


def server_metrics(tools: Any) -> Any:
    """The metrics of ``tools``: its calls in flight and the pending approval requests of its state database."""
    from axag.serve.approvals import ApprovalDesk
    from axag.serve.metrics import ServeMetrics

    desk = getattr(tools, "desk", None) or ApprovalDesk(tools.store)
    return ServeMetrics(lambda: tools.in_flight, lambda: len(desk.list("pending")))


@serve.command("run")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--base-url", default=None, help="Origin of the site's backend (needed for HTTP-bound tools).")
@click.option("--http", "http", default=None, metavar="HOST:PORT",
              help="Serve streamable HTTP (default host 127.0.0.1) instead of stdio.")
@click.option("--guards", "guards_dir", default=None, type=click.Path(file_okay=False),
              help="Use this generated guard package (and its preconditions.py).")
@click.option("--handlers", default=None, metavar="MODULE:ATTR", help="A mapping of tool names to callables.")
@click.option("--openapi", default=None, type=click.Path(dir_okay=False),
              help="OpenAPI 3.0/3.1 document binding axag-operation-id buttons.")
@click.option("--allow-unbound", is_flag=True, help="Serve tools without binding or handler (they refuse).")
@click.option("--actor", default=None, help="Caller identity in stdio mode (default: serve.actor).")
@click.option("--roles", default=None, help="Caller roles in stdio mode, comma-separated (default: serve.roles).")
@click.option("--state", default=None, help=STATE_HELP)
@click.option("--timeout", default=30.0, show_default=True, type=click.FloatRange(min=0.1),
              help="Backend timeout in seconds.")
@click.option("--max-result-bytes", default=65536, show_default=True, type=click.IntRange(min=1))
@click.option("--audit-arguments", is_flag=True, help="Store argument values in the audit log.")
@click.option("--config", "config", type=click.Path(dir_okay=False), help="Use this configuration file only.")
@click.option("--isolated", is_flag=True, help="Ignore all configuration files.")
@operator_options
@approval_options
@oauth_options
@guard_errors
def run_cmd(inputs: tuple[str, ...], base_url: str | None, http: str | None, guards_dir: str | None,
            handlers: str | None, openapi: str | None, allow_unbound: bool, actor: str | None, roles: str | None,
            state: str | None, timeout: float, max_result_bytes: int, audit_arguments: bool, config: str | None,
            isolated: bool, read_only: bool | None, max_risk: str | None, tool_globs: tuple[str, ...],
            exclude_globs: tuple[str, ...], metrics: bool | None, metrics_listen: str | None,
            log_format: str | None, oauth_issuer: str | None, oauth_audience: str | None,
            oauth_scopes: tuple[str, ...], oauth_roles_claim: str | None, allow_static_tokens: bool,
            **approval: Any) -> None:
    """Serve the tools of TOOLS.json, or of the annotated PATHS, over MCP."""
    from axag.serve.app import ServeConfig, binding_of, unbound_tools
    from axag.serve.filters import ToolFilter
    from axag.serve.logs import configure_logging

    settings = serve_settings(config, isolated)
    configure_logging(log_format or settings.serve_log_format or "text")
    tool_filter = ToolFilter(
        read_only=read_only if read_only is not None else bool(settings.serve_read_only),
        max_risk=max_risk if max_risk is not None else settings.serve_max_risk,
        tools=tool_globs or settings.serve_tools or (), exclude_tools=exclude_globs or settings.serve_exclude_tools or ())
    metrics_on = metrics if metrics is not None else bool(settings.serve_metrics)
    listen_text = metrics_listen if metrics_listen is not None else settings.serve_metrics_listen
    metrics_at = host_port(listen_text, "--metrics-listen") if listen_text is not None else None
    metrics_on = metrics_on or metrics_at is not None
    if metrics_on and metrics_at is None and http is None:
        raise fail("--metrics needs --http (the metrics are served at /metrics on its port) or --metrics-listen "
                   "HOST:PORT (a listener of their own)")
    base_url = base_url if base_url is not None else settings.serve_base_url
    actor = actor if actor is not None else settings.serve_actor
    role_list = roles_of(roles) if roles is not None else settings.serve_roles
    state = state_path(state, settings)

    doc = load_tools(inputs, openapi)
    handler_map = load_handlers(handlers)
    unknown = sorted(set(handler_map) - {t["name"] for t in doc["tools"]})
    if unknown:
        raise fail(f"--handlers: no served tool is named {', '.join(unknown)}")
    doc = _filtered(doc, tool_filter)
    unbound = unbound_tools(doc, handler_map)
    if unbound and not allow_unbound:
        raise fail("these tools have no HTTP binding and no handler: " + ", ".join(unbound)
                   + " (bind them with --handlers or --openapi, or pass --allow-unbound to serve them as refusals;"
                   " axag lint (rule 151 unbound-action) says why each one has no binding)")
    needs_base = [t["name"] for t in doc["tools"] if binding_of(t) is not None and t["name"] not in handler_map]
    if needs_base and base_url is None:
        raise fail("--base-url is required: these tools call the site's backend: " + ", ".join(needs_base))
    if base_url is not None and not base_url.startswith(("http://", "https://")):
        raise fail(f"--base-url {base_url}: expected an http:// or https:// URL")
    for t in doc["tools"]:
        left_out = (binding_of(t) or {}).get("unsupported")
        if left_out:
            log.warning("axag serve: warning: %s: an agent cannot supply the file input(s) %s; calls are sent "
                        "without them", t["name"], ", ".join(left_out))
    serve_config = ServeConfig(tools_doc=doc, base_url=base_url, handlers=handler_map, allow_unbound=allow_unbound,
                         actor=actor, roles=role_list, timeout=timeout, max_result_bytes=max_result_bytes,
                         audit_arguments=audit_arguments, guards_dir=guards_dir)
    hostport = host_port(http) if http is not None else None
    oauth = oauth_settings(settings, hostport is not None, oauth_issuer, oauth_audience, oauth_scopes,
                           oauth_roles_claim, allow_static_tokens)
    import anyio

    from axag.serve.stores import open_state
    from axag.serve.transports import serve_http, serve_stdio

    store = open_state(state)
    exposed = store.exposure()
    if exposed is not None:
        log.warning("axag serve: warning: %s", exposed)
    tools = make_server(serve_config, store, approval, hostport, settings)
    if metrics_on:
        tools.metrics = server_metrics(tools)
        tools.metrics_listen = metrics_at
    if hostport is None:
        anyio.run(serve_stdio, tools)
    else:
        anyio.run(serve_http, tools, *hostport, oauth)


@serve.group("token")
def token() -> None:
    """Bearer tokens of HTTP mode (stored hashed in the state database): add, list, revoke."""


def _listing(rows: list[dict[str, Any]]) -> None:
    from axag.serve.approvals import _iso
    from axag.serve.escape import shown

    for row in rows:
        click.echo(shown(f"{row['name']}  roles {','.join(row['roles']) or '-'}  created {_iso(row['created'])}"))


@token.command("add")
@click.argument("name")
@click.option("--roles", default="", help="Roles of the token's holder, comma-separated.")
@state_options
@guard_errors
def token_add(name: str, roles: str, state: str | None, config: str | None, isolated: bool) -> None:
    """Make a token for NAME (replacing NAME's earlier one); it is printed once and only its hash is kept."""
    if not name.strip():
        raise fail("the token needs a non-empty NAME")
    store = open_store(state, config, isolated)
    replaced = any(row["name"] == name for row in store.tokens())
    click.echo(store.add_token(name, list(roles_of(roles))))
    if replaced:
        click.echo(f"axag serve: replaced the earlier token of {name}; it no longer works", err=True)
    store.close()


@token.command("list")
@state_options
@guard_errors
def token_list(state: str | None, config: str | None, isolated: bool) -> None:
    """The token holders, their roles and when the token was made (never a token)."""
    _listing(open_store(state, config, isolated).tokens())


@token.command("revoke")
@click.argument("name")
@state_options
@guard_errors
def token_revoke(name: str, state: str | None, config: str | None, isolated: bool) -> None:
    """Delete the token of NAME: it stops working at once."""
    if open_store(state, config, isolated).revoke_token(name) == 0:
        raise fail(f"no token for {name} (`axag serve token list` shows them)")
    click.echo(f"revoked the token of {name}")


@serve.group("approver")
def approver() -> None:
    """Approvers of the approval page and `axag approvals` (tokens stored hashed in the state database): add,
    list, revoke."""


@approver.command("add")
@click.argument("name")
@click.option("--roles", default="", help="The approver's roles, comma-separated.")
@state_options
@guard_errors
def approver_add(name: str, roles: str, state: str | None, config: str | None, isolated: bool) -> None:
    """Make (or replace) the token of approver NAME; it is printed once and only its hash is kept."""
    from axag.serve.approvals import ApprovalDesk

    if not name.strip():
        raise fail("the approver needs a non-empty NAME")
    store = open_store(state, config, isolated)
    desk = ApprovalDesk(store)
    replaced = desk.approver_roles(name) is not None
    click.echo(desk.add_approver(name, list(roles_of(roles))))
    if replaced:
        click.echo(f"axag serve: replaced the earlier token of approver {name}; it no longer works", err=True)
    store.close()


@approver.command("list")
@state_options
@guard_errors
def approver_list(state: str | None, config: str | None, isolated: bool) -> None:
    """The approvers, their roles and when their token was made (never a token)."""
    from axag.serve.approvals import ApprovalDesk

    _listing(ApprovalDesk(open_store(state, config, isolated)).approvers())


@approver.command("revoke")
@click.argument("name")
@state_options
@guard_errors
def approver_revoke(name: str, state: str | None, config: str | None, isolated: bool) -> None:
    """Delete approver NAME: their token stops working, and values they approved stop counting."""
    from axag.serve.approvals import ApprovalDesk

    if not ApprovalDesk(open_store(state, config, isolated)).revoke_approver(name):
        raise fail(f"{name} is not an approver (`axag serve approver list` shows them)")
    click.echo(f"revoked approver {name}")
