"""Where the result cache lives, named once for the cache (`axag.batch.cache.store`) and for the console script's run
records (`axag.cli.records`), which find it without importing the cache. Imports only ``os``."""

from __future__ import annotations

import os

DIR_NAME = ".axag_cache"  # in the project root, unless the option or the environment names a folder
ENV_VAR = "AXAG_CACHE_DIR"


def named_folder(option: str | None, cwd: str) -> str | None:
    """The folder ``--cache-dir`` (else ``AXAG_CACHE_DIR``) names, relative values taken from ``cwd``; None when
    neither is given."""
    chosen = option or os.environ.get(ENV_VAR) or None
    return None if chosen is None else os.path.join(cwd, os.path.expanduser(chosen))
