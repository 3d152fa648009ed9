"""Options and helpers shared by the lint and compile commands (the CLI layer only)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import click

from axag.cli import AxagClickError
from axag.errors import AxagError

F = TypeVar("F", bound=Callable[..., Any])


def common_options(fn: F) -> F:
    for opt in reversed([
        click.option("--config", "config", type=click.Path(dir_okay=False), help="Use this configuration file only."),
        click.option("--isolated", is_flag=True, help="Ignore all configuration files."),
        click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True),
        click.option("--quiet", "-q", is_flag=True, help="Only findings: no summary, no progress."),
        click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                     help="Worker processes (default: available CPUs)."),
    ]):
        fn = opt(fn)
    return fn


def use_color(flag: str, stream: Any = None) -> bool:
    if flag == "always":
        return True
    if flag == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    s = stream if stream is not None else sys.stdout
    try:
        return bool(s.isatty())
    except (AttributeError, ValueError):
        return False


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def fail(message: str) -> AxagClickError:
    return AxagClickError(message)


def guard_errors(fn: F) -> F:
    """Turn core errors (ConfigError, InputError, UsageError) into exit code 2."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AxagError as exc:
            raise AxagClickError(str(exc)) from exc

    return wrapper  # type: ignore[return-value]


def write_or_print(path: str | None, text: str | Iterable[str], *, err: bool = False) -> None:
    """Write ``text`` (or its pieces) atomically to ``path``, or to stdout (stderr) for None or ``-``."""
    if path is None or path == "-":
        for piece in [text] if isinstance(text, str) else text:
            click.echo(piece, nl=False, err=err)
        return
    from axag.fsio import write_atomic

    write_atomic(Path(path), text)
