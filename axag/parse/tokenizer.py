"""Raw start-tag tokenizer (parsing: which start tags are elements): attribute name/value spans straight from the decoded text.

lxml builds the element tree; this module only reads the start tags that matter (annotated ones and
elements that get element-level findings), so its cost does not grow with the markup that has no
annotations.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import AnyStr

from axag.parse.templates import unbound_name

# HTML whitespace (not Python's \s, which also takes \v, NBSP and other Unicode spaces)
_WS = r"\t\n\x0c\r "
# Attribute: optional whitespace/slashes, then name [= value]. A name may start with '='.
_ATTR = re.compile(
    rf"""[{_WS}/]*(?:(?P<name>[^{_WS}/>][^{_WS}/>=]*)(?:[{_WS}]*=[{_WS}]*(?:"(?P<dq>[^"]*)"?|'(?P<sq>[^']*)'?"""
    rf"""|(?P<uq>[^{_WS}>]*)))?)?"""
)
_TAG_NAME = re.compile(rf"<([A-Za-z][^{_WS}/>]*)")
# Regions whose content is not markup: comments, raw text and RCDATA elements.
_SKIP_START = re.compile(rf"<!--|<(script|style|textarea|title)(?=[{_WS}/>])", re.IGNORECASE)
_CLOSERS = {n: re.compile("</" + n, re.IGNORECASE) for n in ("script", "style", "textarea", "title")}
# where a comment ends (HTML5): "<!-->" and "<!--->" at once, else at the first "-->" or "--!>"
_COMMENT_ABRUPT = re.compile(r"-?>")
_COMMENT_ABRUPT_BYTES = re.compile(rb"-?>")
_COMMENT_END = re.compile(r"--!?>")
_COMMENT_END_BYTES = re.compile(rb"--!?>")
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
    low: str = ""  # the name ASCII lower-cased, as lxml has it (`scan_tag` fills it in)


_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ASCII_LOWER = str.maketrans(_UPPER, _UPPER.lower())


def ascii_lower(name: str) -> str:
    """Lower-case ASCII letters only, as libxml2 does with tag and attribute names."""
    return name.lower() if name.isascii() else name.translate(_ASCII_LOWER)


FoundTags = tuple[list["RawTag"], list["RawTag"], list["RawTag"], bool]  # annotated, interactive, plain, lost


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
        # the groups (1 name, 2 dq, 3 sq, 4 uq) do not nest, so the last one that took part (``lastindex``) tells
        # which value was read, in one look: this loop runs for every attribute of every scanned tag
        last = a.lastindex
        if last is None:
            pos = a.end()
            break
        ns, ne = a.span(1)
        if last == 1:
            q, vs, ve, closed = None, ne, ne, True
        else:
            vs, ve = a.span(last)
            if last == 2:
                q = '"'
                closed = ve < n and text[ve] == '"'
            elif last == 3:
                q = "'"
                closed = ve < n and text[ve] == "'"
            else:
                q, closed = "", True
        written = text[ns:ne]
        attrs.append(RawAttr(written, ns, ne, q, vs, ve, closed,
                             written.lower() if written.isascii() else written.translate(_ASCII_LOWER)))
        end = a.end()
        pos = end if end != pos else pos + 1  # no progress cannot happen with a name, but be safe
    end = pos + 1 if pos < n and text[pos] == ">" else pos
    return RawTag(ascii_lower(m.group(1)), start, m.start(1), m.end(1), min(end, n), attrs)


def skipped_ranges(text: str) -> list[tuple[int, int]]:
    """Comment, <script>/<style> raw text and <textarea>/<title> RCDATA ranges, in order."""

    def close(name: str, body: int) -> int:
        m = _CLOSERS[name.lower()].search(text, body)
        return m.start() if m else -1

    return _skip_ranges(text, 0, len(text), _SKIP_START, _COMMENT_END, ">", close)


def _skip_ranges(buf: AnyStr, pos: int, last: int, opener: re.Pattern[AnyStr], comment_end: re.Pattern[AnyStr],
                 gt: AnyStr,
                 close: Callable[[AnyStr, int], int]) -> list[tuple[int, int]]:
    """The skipped ranges of ``buf`` (text, or lower-cased bytes) from ``pos`` up to the one holding offset
    ``last``: a comment from its ``<!--``, a raw-text or RCDATA element from the end of its start tag to the
    start of its end tag (``close(name, body)``: where ``</name`` starts, -1 when it does not)."""
    out: list[tuple[int, int]] = []
    n = len(buf)
    while pos <= last:
        m = opener.search(buf, pos)
        if not m:
            break
        if m.group(1) is None:
            c = (_COMMENT_ABRUPT if isinstance(buf, str) else _COMMENT_ABRUPT_BYTES).match(buf, m.end()) or \
                comment_end.search(buf, m.end())
            end = n if c is None else c.end()
            out.append((m.start(), end))
        else:
            tag_end = buf.find(gt, m.end())
            body = n if tag_end < 0 else tag_end + 1
            end = close(m.group(1), body)
            end = n if end < 0 else end
            out.append((body, end))
        pos = end
    return out


def marker_positions(text: str, lo: int, hi: int, data: bytes | None, marker: str, *,
                     lowered: bytes | None = None) -> list[int]:
    """Offsets of every ``marker`` (lower-case ASCII, matched in any case) in ``text[lo:hi]``. Fast path:
    when the raw bytes hold as many case-insensitive occurrences as the text holds lower-case ones,
    str.find (C speed) has found them all. ``lowered``: ``data.lower()`` when the caller has it."""
    positions = []
    i = text.find(marker, lo, hi)
    while i >= 0:
        positions.append(i)
        i = text.find(marker, i + len(marker), hi)
    if data is not None and lo == 0 and hi == len(text):
        if lowered is None:
            lowered = data.lower()
        if lowered.count(marker.encode()) == len(positions):
            return positions
    pattern = re.compile(re.escape(marker), re.IGNORECASE)
    return [m.start() for m in pattern.finditer(text, lo, hi)]


def axag_positions(text: str, lo: int, hi: int, data: bytes | None = None) -> list[int]:
    return marker_positions(text, lo, hi, data, "axag")


_INTERACTIVE_MARKERS = ("click", "role", "hx-")
_NAME_START = " \t\n\r\f\"'/"
# which character may precede each marker when it starts (or ends) an attribute name
_BEFORE = {"axag": _NAME_START + ":[.-", "click": "n@:(", "role": _NAME_START, "hx-": _NAME_START}
# what must follow: role="button" (any case, any quoting), an htmx verb
_AFTER = {
    "role": re.compile(rf"role[{_WS}]*=[{_WS}]*[\"']?[{_WS}]*button", re.IGNORECASE),
    "hx-": re.compile(r"hx-(?:post|put|patch|delete)", re.IGNORECASE),
}
_CLICK_PREFIXES = ("@click", "v-on:click", "x-on:click")
_HX = ("hx-post", "hx-put", "hx-patch", "hx-delete")


def is_interactive_attr(text: str, a: RawAttr) -> bool:
    """An attribute that makes any element interactive (element selection and interactivity): click listeners, htmx verbs, role=button."""
    return makes_interactive(a.low, text[a.value_start:a.value_end] if a.quote is not None else None)


def makes_interactive(name: str, value: str | None) -> bool:
    """`is_interactive_attr` on a lower-cased name and its value (None when valueless)."""
    if name in ("onclick", "(click)") or name in _HX or name.startswith(_CLICK_PREFIXES):
        return True
    return name == "role" and value is not None and value.strip().lower() == "button"


_SKIP_START_BYTES = re.compile(rb"<!--|<(script|style|textarea|title)(?=[\t\n\x0c\r />])")
_BEFORE_BYTES = {k: frozenset(v.encode()) for k, v in _BEFORE.items()}
_AFTER_BYTES = {
    "role": re.compile(rb"role[\t\n\x0c\r ]*=[\t\n\x0c\r ]*[\"']?[\t\n\x0c\r ]*button"),
    "hx-": re.compile(rb"hx-(?:post|put|patch|delete)"),
}


def find_tags_in_bytes(text: str, data: bytes, lowered: bytes, skip: int, utf8: bool) -> FoundTags:
    """`find_tags` over a whole HTML file, searching its raw bytes (C-speed ``bytes.find`` on the lower-cased
    bytes instead of scans of the decoded text): ``text`` is ``data[skip:]`` decoded (``skip``: the BOM's
    length) either one byte per code point or, with ``utf8``, as valid UTF-8. Markers, the characters
    around them and the comment/raw-text boundaries are ASCII, so byte positions map to code points by
    decoding only the stretches between the candidates."""
    candidates: list[int] = []
    axag: set[int] = set()
    find = lowered.find
    for marker in ("axag", *_INTERACTIVE_MARKERS):
        mb = marker.encode()
        i = find(mb, skip)
        if i < 0:
            continue
        before = _BEFORE_BYTES[marker]
        follow = _AFTER_BYTES.get(marker)
        step = len(mb)
        while i >= 0:
            if i > skip and lowered[i - 1] in before and (follow is None or follow.match(lowered, i)):
                candidates.append(i)
            i = find(mb, i + step)
        if marker == "axag":
            axag.update(candidates)
    if not candidates:
        return [], [], [], False
    candidates = sorted(set(candidates))
    skips = _skipped_byte_ranges(lowered, skip, candidates[-1])
    lost = False
    if skips:
        kept = []
        for b in candidates:
            k = bisect.bisect_right(skips, (b, len(lowered) + 1)) - 1
            if not (k >= 0 and skips[k][0] <= b < skips[k][1]):
                kept.append(b)
            elif b in axag:
                lost = True
        candidates = kept
    positions: list[int] = []
    placed: set[int] = set()
    if utf8:
        prev, chars = skip, 0
        for b in candidates:
            chars += utf8_length(data, prev, b)
            positions.append(chars)
            if b in axag:
                placed.add(chars)
            prev = b
    else:
        positions = [b - skip for b in candidates]
        placed = {b - skip for b in candidates if b in axag}
    annotated, interactive, plain, unplaced = _tags_at(text, positions, 0, len(text), None, placed)
    return annotated, interactive, plain, lost or unplaced


_PIECE = 1 << 16


def utf8_length(data: bytes, start: int, end: int) -> int:
    """Code points in ``data[start:end]`` (valid UTF-8 cut at character boundaries), decoded 64 KB at a time
    so that a big page is never copied whole."""
    if end - start <= _PIECE:
        return len(data[start:end].decode("utf-8"))
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    count = 0
    for pos in range(start, end, _PIECE):
        count += len(decoder.decode(data[pos:min(pos + _PIECE, end)]))
    return count + len(decoder.decode(b"", final=True))


def utf8_size(text: str, start: int, end: int) -> int:
    """Bytes of ``text[start:end]`` in UTF-8, encoded 64 K code points at a time (lone surrogates: 3 bytes)."""
    count = 0
    for pos in range(start, end, _PIECE):
        count += len(text[pos:min(pos + _PIECE, end)].encode("utf-8", "surrogatepass"))
    return count


def _skipped_byte_ranges(lowered: bytes, skip: int, last: int) -> list[tuple[int, int]]:
    """`skipped_ranges` on lower-cased bytes, up to the range holding offset ``last``."""
    return _skip_ranges(lowered, skip, last, _SKIP_START_BYTES, _COMMENT_END_BYTES, b">",
                        lambda name, body: lowered.find(b"</" + name, body))


def find_tags(text: str, lo: int = 0, hi: int | None = None, data: bytes | None = None, *,
              lowered: bytes | None = None, kind: str = "html") -> FoundTags:
    """Start tags within ``[lo, hi)``: those with annotation attributes, and the others that carry an
    attribute making them interactive (element selection and interactivity), each in document order. ``data``: the file's raw bytes
    when they are ASCII-compatible (enables the fast search); ``lowered``: ``data.lower()`` if known.

    Also returned: the other start tags holding an ``axag`` that may start an attribute name (it follows a
    space, a quote or a slash; here inside a value), which the caller has lxml confirm, and whether such an
    ``axag`` lies in no start tag found here (in a comment, in raw text, or where this scan cannot tell): the
    caller then asks lxml's tree, which alone decides what is an element."""
    hi = len(text) if hi is None else hi
    low = (lowered if lowered is not None else data.lower()) if data is not None else None
    candidates: list[int] = []
    placed: set[int] = set()
    for marker in ("axag", *_INTERACTIVE_MARKERS):
        if low is not None and marker.encode() not in low:
            continue
        before = _BEFORE[marker]
        # keep only occurrences where the marker can be (part of) an attribute name
        follow = _AFTER.get(marker)
        candidates.extend(p for p in marker_positions(text, lo, hi, data, marker, lowered=low)
                          if p > 0 and text[p - 1] in before and (follow is None or follow.match(text, p)))
        if marker == "axag":
            placed.update(candidates)
    if not candidates:
        return [], [], [], False
    return _tags_at(text, sorted(set(candidates)), lo, hi, skipped_ranges(text), placed, kind)


def _tags_at(text: str, candidates: list[int], lo: int, hi: int, skips: list[tuple[int, int]] | None,
             axag: set[int], kind: str = "html") -> FoundTags:
    """The start tags enclosing the sorted candidate offsets (outside ``skips``), classified, and whether one
    of the ``axag`` candidates found no start tag."""
    annotated: list[RawTag] = []
    interactive: list[RawTag] = []
    plain: list[RawTag] = []
    seen: set[int] = set()
    covered = (-1, -1)
    lost = False
    for p in candidates:
        if covered[0] <= p < covered[1]:
            continue  # inside the start tag found last
        tag = _enclosing_tag(text, p, lo, hi, skips)
        if tag is None:
            lost = lost or p in axag
            continue
        if tag.start in seen:
            continue
        covered = (tag.start, tag.end)
        seen.add(tag.start)
        if any("axag" in a.low and is_annotation_attr(a.written, kind) for a in tag.attrs):
            annotated.append(tag)
        elif any(is_interactive_attr(text, a) for a in tag.attrs):
            interactive.append(tag)
        elif p in axag:
            plain.append(tag)  # an "axag" inside a value: lxml must confirm that it is one
    return annotated, interactive, plain, lost


def _enclosing_tag(text: str, p: int, lo: int, hi: int, skips: list[tuple[int, int]] | None) -> RawTag | None:
    if p < lo or p >= hi:
        return None
    if skips:
        i = bisect.bisect_right(skips, (p, len(text) + 1)) - 1
        if i >= 0 and skips[i][0] <= p < skips[i][1]:
            return None
    # the enclosing start tag: the last '<' + letter before p that tokenizes past p
    j = p
    for _ in range(8):
        j = text.rfind("<", lo, j)
        if j < 0:
            return None
        if j + 1 < len(text) and text[j + 1].isalpha():
            cand = scan_tag(text, j)
            if cand is not None and cand.end > p:
                return cand
    return None


def find_annotated_tags(text: str, lo: int = 0, hi: int | None = None, data: bytes | None = None) -> list[RawTag]:
    """Start tags within ``[lo, hi)`` that carry at least one annotation attribute, in document order."""
    return find_tags(text, lo, hi, data)[0]


def annotation_meaning(written: str, kind: str, low: str | None = None) -> tuple[str, bool]:
    """(meaning name, bound?) of an attribute name: ASCII lower-cased (as lxml has it; ``low`` when known);
    bound forms name the annotation they stand for: Vue ``:name`` / ``v-bind:name`` (in .vue files), Angular
    ``[name]``, ``[attr.name]``, ``bind-name`` (in any file)."""
    if low is None:
        low = ascii_lower(written)
    if low[:1] in ":v[b" and not low.startswith("axag"):
        unbound = unbound_name(low, kind)
        if unbound is not None:
            return unbound, True
    return low, False


def is_annotation_attr(written: str, kind: str = "html") -> bool:
    """An annotation attribute (``axag`` or ``axag-*``, any case; bound forms of Vue and Angular)."""
    low = annotation_meaning(written, kind)[0]
    return low == "axag" or low.startswith("axag-")
