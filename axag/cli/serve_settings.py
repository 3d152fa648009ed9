"""What `axag serve` and `axag approvals` share: the configuration, the state database (its path, its options
and opening it), a list of roles and the HOST:PORT of an address."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from axag.cli.common import fail

if TYPE_CHECKING:
    from axag.config.settings import Settings
    from axag.serve.oauth import OAuthSettings
    from axag.serve.state import SqlStore

__all__ = ["DEFAULT_STATE", "STATE_HELP", "host_port", "oauth_options", "oauth_settings", "open_store", "roles_of",
           "serve_settings", "state_options", "state_path"]

DEFAULT_STATE = ".axag/state.sqlite"
STATE_HELP = (f"State database: an SQLite file, or postgresql://… shared by several servers (default: serve.state, "
              f"else {DEFAULT_STATE}).")


def serve_settings(config: str | None, isolated: bool) -> Settings:
    from axag.config.resolve import Resolver

    return Resolver(Path.cwd(), config=config, isolated=isolated).run_settings()


def state_path(state: str | None, settings: Settings) -> str:
    if state is not None:
        return state
    return str(settings.serve_state) if settings.serve_state is not None else DEFAULT_STATE


def state_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--state``, ``--config`` and ``--isolated`` of the commands that open the state database."""
    for option in reversed((
        click.option("--state", default=None,
                     help=STATE_HELP),
        click.option("--config", "config", type=click.Path(dir_okay=False), help="Use this configuration file only."),
        click.option("--isolated", is_flag=True, help="Ignore all configuration files."),
    )):
        fn = option(fn)
    return fn


def open_store(state: str | None, config: str | None = None, isolated: bool = False, *,
               create: bool = True) -> SqlStore:
    """The state store at ``state`` (an SQLite file or a PostgreSQL URL), else at the configured (or default)
    one; in a command, closed when the command ends (a PostgreSQL store's pool keeps connections and threads that
    the garbage collector would otherwise close at some later time, from one of those threads)."""
    from axag.serve.stores import open_state

    store = open_state(state_path(state, serve_settings(config, isolated)), create=create)
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.call_on_close(store.close)
    return store


def roles_of(text: str) -> tuple[str, ...]:
    """``"a, b,"`` -> ``("a", "b")``: the comma-separated roles of ``--roles``."""
    return tuple(r.strip() for r in text.split(",") if r.strip())


def host_port(value: str, flag: str = "--http") -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", value
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise fail(f"{flag} {value}: expected HOST:PORT")
    return host, int(port)


def oauth_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The OAuth resource-server options of `axag serve` (HTTP mode)."""
    for option in reversed((
        click.option("--oauth-issuer", default=None, metavar="URL",
                     help="Accept the JWT access tokens of this OAuth authorization server (default: "
                          "serve.oauth-issuer); static tokens are then refused unless --allow-static-tokens."),
        click.option("--oauth-audience", default=None, metavar="URL",
                     help="This server's resource identifier (RFC 8707), the URL clients reach /mcp at; tokens "
                          "must name it in aud (default: serve.oauth-audience)."),
        click.option("--oauth-scopes", multiple=True, metavar="SCOPE",
                     help="OAuth scopes every token must carry (repeatable or space-separated; default: "
                          "serve.oauth-scopes). Unrelated to axag-scope."),
        click.option("--oauth-roles-claim", default=None, metavar="NAME",
                     help="The token claim holding the caller's roles; a dotted name reaches into an object "
                          "(default: serve.oauth-roles-claim, else roles)."),
        click.option("--allow-static-tokens", is_flag=True, default=None,
                     help="With --oauth-issuer, accept the tokens of `axag serve token add` too (default: "
                          "serve.allow-static-tokens, else no)."),
    )):
        fn = option(fn)
    return fn


def oauth_settings(settings: Settings, http: bool, issuer: str | None, audience: str | None,
                   scopes: tuple[str, ...], roles_claim: str | None,
                   allow_static_tokens: bool | None) -> OAuthSettings | None:
    """The OAuth settings of a run (flags win over [tool.axag.serve]), or None when no issuer is configured."""
    from axag.serve.oauth import DEFAULT_ROLES_CLAIM, OAuthSettings, scope_tokens

    issuer = issuer if issuer is not None else settings.serve_oauth_issuer
    audience = audience if audience is not None else settings.serve_oauth_audience
    scope_list = scope_tokens(scopes if scopes else settings.serve_oauth_scopes)
    roles_claim = roles_claim if roles_claim is not None else settings.serve_oauth_roles_claim
    allow = allow_static_tokens if allow_static_tokens is not None else settings.serve_allow_static_tokens
    if issuer is None:
        given = [flag for flag, value in (("--oauth-audience", audience), ("--oauth-scopes", scope_list),
                                          ("--oauth-roles-claim", roles_claim)) if value]
        if given:
            raise fail(f"{', '.join(given)}: only with --oauth-issuer (or oauth-issuer in [tool.axag.serve])")
        return None
    if not http:
        raise fail("--oauth-issuer is for HTTP mode (--http HOST:PORT); a stdio server has no bearer tokens")
    try:
        import jwt  # noqa: F401 - the `oauth` extra
    except ImportError:  # pragma: no cover - an install without it
        raise fail("--oauth-issuer needs the oauth extra: pip install 'axag[oauth]'") from None
    if audience is None:
        raise fail("--oauth-issuer needs --oauth-audience URL: the URL clients reach this server's /mcp at, "
                   "which tokens must name in aud (RFC 8707)")
    return OAuthSettings(issuer=issuer, audience=audience, scopes=scope_list,
                         roles_claim=roles_claim if roles_claim is not None else DEFAULT_ROLES_CLAIM,
                         allow_static_tokens=bool(allow))
