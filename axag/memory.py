"""Memory pacing while many files are checked: garbage collection by files, and the C heap given back
after a big page. A leaf module (standard library only), used by `axag.api` and the worker processes of
`axag.parallel`."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def bulk_gc() -> Iterator[None]:
    """Cyclic garbage collection paced by files while many files are checked: the automatic collector
    (which would scan each file's model many times over as it grows) is off, and `file_done` collects
    once per file. The objects that exist before the run (modules, tables) are frozen out of the scans;
    worker processes forked meanwhile inherit the setting and share those pages."""
    enabled = gc.isenabled()
    gc.disable()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


def file_done(count: int, size: int = 0) -> None:
    """After each file under `bulk_gc`: collect the young objects (the file's model is garbage now,
    partly in reference cycles), and now and then the older ones, so that memory stays flat. After a big
    file (``size`` bytes), the memory its tree took goes back to the system (`release_memory`)."""
    if gc.isenabled():
        return
    gc.collect(1 if count % 32 == 0 else 0)
    if size >= BIG_FILE:
        release_memory()


BIG_FILE = 1 << 20  # bytes: the parse tree of such a page takes tens of MB
_TRIM: Any = None


def release_memory() -> None:
    """Give the C heap's free memory back to the system (glibc's ``malloc_trim``; nothing elsewhere).

    libxml2 builds each tree with the C allocator; once a big page's tree is freed, glibc keeps the pages
    for later C allocations, which Python objects (allocated in arenas of their own) cannot use. Without
    this a run's resident memory stays at the high-water mark of its biggest page, and whatever is
    allocated afterwards (the merged output, or another big page in a parallel worker) comes on top."""
    global _TRIM
    if _TRIM is None:
        _TRIM = False
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                _TRIM = ctypes.CDLL("libc.so.6").malloc_trim
            except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
                _TRIM = False
    if _TRIM:
        _TRIM(0)
