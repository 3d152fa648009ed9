"""Spans (offsets into decoded text) and their 1-based line/column positions."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_FEED = re.compile("\n")


@dataclass(frozen=True, slots=True)
class Span:
    """Half-open range ``[start, end)`` of code-point offsets into a file's decoded text."""

    start: int
    end: int


class LineIndex:
    """Maps code-point offsets to 1-based (line, column); LF, CRLF and lone CR break lines."""

    __slots__ = ("starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        # without CR a plain line-feed search (the regex engine's fast literal scan) finds every break
        starts.extend([m.end() for m in (_LINE_FEED if "\r" not in text else _LINE_BREAK).finditer(text)])
        self.starts = starts

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column - 1

    def line_count(self) -> int:
        return len(self.starts)

    def line_text(self, line: int) -> str:
        """Text of a 1-based line without its line break."""
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def line_ending(self) -> str:
        m = _LINE_BREAK.search(self.text)
        return m.group(0) if m else "\n"


def context_rows(lines: LineIndex, line: int, eline: int) -> tuple[tuple[int, str], ...]:
    """The (line number, text) pairs a finding carries for the `full` format: one line before its span, the
    span's lines (the first three and the last when it spans more than seven), one line after."""
    import sys

    first = max(1, line - 1)
    last = min(lines.line_count(), max(line, eline) + 1)
    if eline - line > 6:
        rng = [*range(first, line + 2), *range(eline, last + 1)]
    else:
        rng = list(range(first, last + 1))
    out = []
    for n in rng:
        text = lines.line_text(n)
        if len(text) > 2000:
            text = text[:2000]
        # interned: findings on one element, and the same markup on many pages, share their context lines
        out.append((n, sys.intern(text)))
    return tuple(out)
