"""Raw start-tag tokenizer (SPEC §14.2): attribute name/value spans straight from the decoded text.

lxml builds the element tree; this module only reads the start tags that matter (annotated ones and
elements that get element-level findings), so its cost does not grow with the markup that has no
annotations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Attribute: optional whitespace/slashes, then name [= value]. A name may start with '='.
_ATTR = re.compile(
    r"""[\s/]*(?:(?P<name>[^\s/>][^\s/>=]*)(?:\s*=\s*(?:"(?P<dq>[^"]*)"?|'(?P<sq>[^']*)'?|(?P<uq>[^\s>]*)))?)?"""
)
_TAG_NAME = re.compile(r"<([A-Za-z][^\s/>]*)")
# Regions whose content is not markup: comments, raw text and RCDATA elements.
_SKIP_START = re.compile(r"<!--|<(script|style|textarea|title)(?=[\s/>])", re.IGNORECASE)
_CLOSERS = {n: re.compile("</" + n, re.IGNORECASE) for n in ("script", "style", "textarea", "title")}
_AXAG_ANY_CASE = re.compile("axag", re.IGNORECASE)


@dataclass(slots=True)
class RawAttr:
    written: str  # name as written
    name_start: int
    name_end: int
    quote: str | None  # '"', "'", "" (unquoted) or None (valueless)
    value_start: int  # raw value span (inside quotes); == name_end when valueless
    value_end: int
    closed: bool = True  # a quoted value found its closing quote


@dataclass(slots=True)
class RawTag:
    tag: str  # lower-cased
    start: int  # offset of '<'
    name_start: int
    name_end: int
    end: int  # offset just after '>' (or end of text)
    attrs: list[RawAttr]


def scan_tag(text: str, start: int) -> RawTag | None:
    """Tokenize the start tag whose '<' is at ``start``."""
    m = _TAG_NAME.match(text, start)
    if not m:
        return None
    pos = m.end()
    n = len(text)
    attrs: list[RawAttr] = []
    attr_match = _ATTR.match
    while pos < n:
        a = attr_match(text, pos)
        assert a is not None  # the pattern can match the empty string
        name = a.group("name")
        if name is None:
            pos = a.end()
            break
        if a.group("dq") is not None:
            q, vs, ve = '"', a.start("dq"), a.end("dq")
            closed = ve < n and text[ve] == '"'
        elif a.group("sq") is not None:
            q, vs, ve = "'", a.start("sq"), a.end("sq")
            closed = ve < n and text[ve] == "'"
        elif a.group("uq") is not None:
            q, vs, ve = "", a.start("uq"), a.end("uq")
            closed = True
        else:
            q, vs, ve, closed = None, a.end("name"), a.end("name"), True
        attrs.append(RawAttr(name, a.start("name"), a.end("name"), q, vs, ve, closed))
        if a.end() == pos:  # no progress (cannot happen with a name, but be safe)
            pos += 1
        else:
            pos = a.end()
    end = pos + 1 if pos < n and text[pos] == ">" else pos
    return RawTag(m.group(1).lower(), start, m.start(1), m.end(1), min(end, n), attrs)


def skipped_ranges(text: str) -> list[tuple[int, int]]:
    """Comment, <script>/<style> raw text and <textarea>/<title> RCDATA ranges, in order."""
    out: list[tuple[int, int]] = []
    pos = 0
    while True:
        m = _SKIP_START.search(text, pos)
        if not m:
            return out
        if m.group(1) is None:
            end = text.find("-->", m.end())
            end = len(text) if end < 0 else end + 3
        else:
            name = m.group(1).lower()
            gt = text.find(">", m.end())
            body = len(text) if gt < 0 else gt + 1
            cm = _CLOSERS[name].search(text, body)
            close = cm.start() if cm else -1
            end = len(text) if close < 0 else close
            out.append((body, end))
            pos = end
            continue
        out.append((m.start(), end))
        pos = end


def axag_positions(text: str, lo: int, hi: int, data: bytes | None = None) -> list[int]:
    """Offsets of every "axag" (any case) in ``text[lo:hi]``. Fast path: when the raw bytes hold as
    many case-insensitive occurrences as the text holds lower-case ones, str.find finds them all."""
    positions = []
    i = text.find("axag", lo, hi)
    while i >= 0:
        positions.append(i)
        i = text.find("axag", i + 4, hi)
    if data is not None and data.lower().count(b"axag") == len(positions) and lo == 0 and hi == len(text):
        return positions
    return [m.start() for m in _AXAG_ANY_CASE.finditer(text, lo, hi)]


def find_annotated_tags(text: str, lo: int = 0, hi: int | None = None, data: bytes | None = None) -> list[RawTag]:
    """Start tags within ``[lo, hi)`` that carry at least one annotation attribute, in document order.
    ``data``: the file's raw bytes when they are ASCII-compatible (enables a fast path)."""
    hi = len(text) if hi is None else hi
    positions = axag_positions(text, lo, hi, data)
    if not positions:
        return []
    skips = skipped_ranges(text)
    out: list[RawTag] = []
    si = 0
    covered_to = -1
    for p in positions:
        if p < lo or p >= hi or p < covered_to:
            continue
        while si < len(skips) and skips[si][1] <= p:
            si += 1
        if si < len(skips) and skips[si][0] <= p < skips[si][1]:
            continue
        # the enclosing start tag: the last '<' + letter before p that tokenizes past p
        j = p
        tag: RawTag | None = None
        tries = 0
        while tries < 8:
            j = text.rfind("<", lo if lo else 0, j)
            if j < 0:
                break
            tries += 1
            if j + 1 < len(text) and text[j + 1].isalpha():
                cand = scan_tag(text, j)
                if cand is not None and cand.end > p:
                    tag = cand
                    break
        if tag is None:
            continue
        covered_to = tag.end
        if any(_is_annotation(a.written) for a in tag.attrs) and (not out or out[-1].start != tag.start):
            out.append(tag)
    return out


def _is_annotation(written: str) -> bool:
    low = written.lower()
    return low == "axag" or low.startswith("axag-")
