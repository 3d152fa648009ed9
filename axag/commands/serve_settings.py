"""What `axag serve` and `axag approvals` share: the configuration, the state database's path and the
HOST:PORT of an address."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from axag.commands.common import fail

__all__ = ["DEFAULT_STATE", "host_port", "serve_settings", "state_path"]

DEFAULT_STATE = ".axag/state.sqlite"


def serve_settings(config: str | None, isolated: bool) -> Any:
    from axag.config import Resolver

    return Resolver(Path.cwd(), config=config, isolated=isolated).run_settings()


def state_path(state: str | None, settings: Any) -> str:
    if state is not None:
        return state
    return str(settings.serve_state) if settings.serve_state is not None else DEFAULT_STATE


def host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", value
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise fail(f"--http {value}: expected HOST:PORT")
    return host, int(port)
