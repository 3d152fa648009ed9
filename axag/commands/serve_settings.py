"""What `axag serve` and `axag approvals` share: the configuration, the state database (its path, its options
and opening it), a list of roles and the HOST:PORT of an address."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from axag.commands.common import fail

if TYPE_CHECKING:
    from axag.config import Settings
    from axag.serve.state import SqliteStore

__all__ = ["DEFAULT_STATE", "host_port", "open_store", "roles_of", "serve_settings", "state_options", "state_path"]

DEFAULT_STATE = ".axag/state.sqlite"


def serve_settings(config: str | None, isolated: bool) -> Settings:
    from axag.config import Resolver

    return Resolver(Path.cwd(), config=config, isolated=isolated).run_settings()


def state_path(state: str | None, settings: Settings) -> str:
    if state is not None:
        return state
    return str(settings.serve_state) if settings.serve_state is not None else DEFAULT_STATE


def state_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--state``, ``--config`` and ``--isolated`` of the commands that open the state database."""
    for option in reversed((
        click.option("--state", default=None,
                     help=f"SQLite state database (default: serve.state, else {DEFAULT_STATE})."),
        click.option("--config", "config", type=click.Path(dir_okay=False), help="Use this configuration file only."),
        click.option("--isolated", is_flag=True, help="Ignore all configuration files."),
    )):
        fn = option(fn)
    return fn


def open_store(state: str | None, config: str | None = None, isolated: bool = False) -> SqliteStore:
    """The `serve.state.SqliteStore` at ``state``, else at the configured (or default) path."""
    from axag.serve.state import SqliteStore

    return SqliteStore(state_path(state, serve_settings(config, isolated)))


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
