"""The result-cache options of `axag lint` and `axag compile`: ``--no-cache`` and ``--cache-dir DIR``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def cache_options(fn: F) -> F:
    import click

    fn = click.option("--cache-dir", "cache_dir", default=None, metavar="DIR",
                      help="Keep the result cache in DIR (default: $AXAG_CACHE_DIR, else .axag_cache in the "
                           "project root).")(fn)
    fn = click.option("--no-cache", "no_cache", is_flag=True,
                      help="Neither read nor write the result cache.")(fn)
    return fn


def open_cache(opts: dict[str, Any], resolver: Any, cwd: Path) -> Any:
    """The run's `cache.ResultCache`, or None with ``--no-cache`` (or when this user has no secret to
    authenticate its entries with, `axag.batch.cache.secret`)."""
    from axag.batch.cache.secret import secret
    from axag.batch.cache.store import ResultCache, cache_dir

    directory = cache_dir(opts["cache_dir"], opts["no_cache"], Path(resolver.project_root), cwd)
    key = secret() if directory is not None else None  # no secret to authenticate entries with: no cache
    return ResultCache(directory, key) if directory is not None and key is not None else None
