"""Findings on JSX values: fixes kept out of expressions, and positions of `axag={spec}` values
written in another file (the spec object reached through a relative import)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from axag.files.spans import LineIndex
from axag.outcome.findings import Fix
from axag.rules.problem import Problem


def touches(fx: Fix, frozen: list[tuple[int, int]], rewritable: list[tuple[int, int]] | None = None) -> bool:
    """An edit overlapping (or inserting inside) one of the ``frozen`` ranges, other than one replacing exactly
    a ``rewritable`` range (the body of a string literal, `Attr.js_quote`)."""
    allowed = set(rewritable or ())
    for e in fx.edits:
        if (e.start, e.end) in allowed:
            continue
        for a, b in frozen:
            if (e.start < b and a < e.end) or a < e.start < b:
                return True
    return False


def elsewhere(p: Problem, path: Path, shown: tuple[str, ...]) -> tuple[LineIndex, tuple[str, ...]] | None:
    """For a problem at a value written in another module: that module's line index and its path shown as
    each of ``shown`` shows ``path`` (same relative form); None for positions in the file itself."""
    origin = _origin(p)
    if origin is None:
        return None
    return LineIndex(origin.text), tuple(_beside(path, s, origin.path) for s in shown)


def _origin(p: Problem) -> Any:
    if p.element is None or p.attribute is None:
        return None
    a = p.element.first.get(p.attribute)
    if a is None or a.origin is None:
        return None
    # only spans inside that key's text are positions in the other file (element-level spans are not)
    return a.origin if a.name_span.start <= p.span.start <= p.span.end <= a.value_span.end else None


def _beside(path: Path, shown: str, other: Path) -> str:
    from axag.files.paths import relpath_posix

    try:
        rel = relpath_posix(other, path.parent)
    except ValueError:
        return other.as_posix()
    return os.path.normpath(os.path.join(os.path.dirname(shown), rel)).replace(os.sep, "/")
