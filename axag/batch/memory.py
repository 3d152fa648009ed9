"""Memory pacing while many files are checked: garbage collection by files, and the C heap given back
after a big page; and the collector's setting for a long-running server (`serving_gc`). A leaf module
(standard library only), used by `axag.api`, the worker processes of `axag.batch.workers` and `axag serve`'s
transports."""

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
    when garbage may have piled up. The objects that exist before the run (modules, tables) are frozen out
    of the scans; worker processes forked meanwhile inherit the setting and share those pages."""
    enabled = gc.isenabled()
    gc.disable()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


# young objects (allocated, not yet freed) after which `file_done` collects: a file's model frees itself by
# reference counting (`engine.release_model` breaks its cycles), so what stays young is mostly the findings
# kept for the run, and now and then the cycles of a rarer path (a legacy migration's second model)
YOUNG_LIMIT = 20_000


def file_done(size: int = 0) -> None:
    """After each file under `bulk_gc`: collect the young objects once enough of them piled up, the older ones
    at every eighth of those collections, so that memory stays flat whatever cycles a page left behind
    (scanning every file's survivors after every file cost more than the rest of the pacing). After a big
    file (``size`` bytes), at once, and the memory its tree took goes back to the system (`release_memory`)."""
    if gc.isenabled():
        return
    big = size >= BIG_FILE
    if big or gc.get_count()[0] >= YOUNG_LIMIT:
        global _COLLECTIONS
        _COLLECTIONS += 1
        gc.collect(1 if _COLLECTIONS % 8 == 0 else 0)
    if big:
        release_memory()


_COLLECTIONS = 0


def freeze_survivors() -> None:
    """Under `bulk_gc`: move every object that exists now out of the collector's scans (`bulk_gc` unfreezes
    them at its end). For objects made in bulk that live to the end of the run, such as the outcomes of
    cache hits: a file checked after them would otherwise make `file_done` scan them all."""
    if not gc.isenabled():
        gc.freeze()


# young objects (allocated, not yet freed) after which a server answering calls collects them: a call leaves about
# 150 containers in reference cycles (the SDK's SSE responses, their cancelled tasks and tracebacks), which only
# the collector frees; at Python's default of 700 it ran every third call, and every tenth of those runs walked
# the generation above as well
SERVING_YOUNG = 5_000


def serving_gc() -> None:
    """Before a long-running server answers its first request: the garbage of start-up collected, then every
    object that exists (modules, the compiled tools and their guards, the SDK's models and schemas) frozen out of
    the collector's scans for good, and young objects collected every `SERVING_YOUNG` allocations.

    Measured with `gc.callbacks` over 3,000 calls of `axag serve` on two shared cores (start-up included): 1.0 to
    1.2 s in the collector with Python's settings, 0.45 to 0.6 s with these. The full collections during the
    calls (five, each a walk over start-up's ≈ 110,000 objects, ≈ 65 ms while every call in flight waits) are
    gone; what remains is the young garbage, mostly the SDK's (the SSE responses' cancelled tasks and their
    tracebacks), which costs about the same however often it is collected (0.3 to 0.45 s in all at 700 and at
    5,000)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(SERVING_YOUNG, *gc.get_threshold()[1:])


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
