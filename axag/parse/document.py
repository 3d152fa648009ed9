"""PARSE: one lxml parse per file plus the raw start-tag scan for positions (SPEC §14.2).

`parse_source` returns a `ParsedFile`: the lxml tree, the annotated elements (attributes with
name/value spans, decoded values, duplicate and dynamic flags), and lazy lookups for any other element.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from axag.parse.entities import decode_attribute
from axag.parse.templates import blank_template_tags, is_dynamic_value, unbound_name
from axag.parse.tokenizer import RawAttr, RawTag, find_tags, find_tags_in_bytes, scan_tag, utf8_size
from axag.source import SourceText
from axag.spans import LineIndex, Span
from axag.vocabulary import is_annotation_name

_PARSER = etree.HTMLParser(recover=True, remove_comments=False, huge_tree=True, default_doctype=False)
# the same for a file's own bytes, which axag decoded as UTF-8 (lxml must not read another encoding into them)
_UTF8_PARSER = etree.HTMLParser(recover=True, remove_comments=False, huge_tree=True, default_doctype=False,
                                encoding="utf-8")

# lxml element type (HtmlElement-like); kept as Any so callers need no lxml typing.
LxmlElement = Any


def tag_name(el: LxmlElement) -> str:
    """The lower-cased tag name of an lxml element; "" for comments and processing instructions."""
    return el.tag.lower() if isinstance(el.tag, str) else ""


def attribute(el: LxmlElement, name: str) -> str | None:
    """An attribute of an lxml element as a plain string, or None."""
    v = el.get(name)
    return None if v is None else str(v)


@dataclass(slots=True)
class Attr:
    """One annotation attribute occurrence as written in the source."""

    name: str  # meaning name: lower-cased (vue bindings without ':'/'v-bind:')
    written: str  # as written
    value: str  # decoded value ("" when valueless)
    raw: str  # raw source text of the value
    quote: str | None  # '"', "'", "" (unquoted), None (valueless)
    name_span: Span
    value_span: Span  # inside the quotes; an empty span at the name's end when valueless
    offsets: list[int] | None = None  # decoded index -> raw index (None = identity)
    dynamic: bool = False
    closed: bool = True  # quoted value with its closing quote
    origin: Any = None  # JSX: the module (another file) the value was written in; None = this file

    @property
    def valueless(self) -> bool:
        return self.quote is None

    def value_sub_span(self, start: int, end: int) -> Span:
        """Source span of decoded value characters ``[start, end)``."""
        base = self.value_span.start
        if self.offsets is None:
            return Span(base + start, base + end)
        last = len(self.offsets) - 1
        s = self.offsets[min(max(start, 0), last)]
        e = self.offsets[min(max(end, 0), last)] if end > start else s
        return Span(base + s, base + e)


@dataclass(slots=True)
class Element:
    """An element that rules look at: annotated ones always, others on demand."""

    tag: str
    el: LxmlElement | None
    start: int  # offset of '<'
    tag_span: Span  # the tag name after '<'
    end: int  # end of the start tag
    attrs: list[Attr] = field(default_factory=list)  # annotation attributes in source order
    first: dict[str, Attr] = field(default_factory=dict)  # first occurrence per meaning name
    duplicates: list[Attr] = field(default_factory=list)
    raw: RawTag | None = None
    matched: bool = True  # False when no raw start tag could be matched (position from lxml)

    def is_repeat(self, attr: Attr) -> bool:
        """``attr`` (one of this element's) repeats an earlier attribute of the same name: constant time, where
        ``attr in duplicates`` compares dataclasses one by one (16k repeats of one attribute took minutes)."""
        return self.first.get(attr.name) is not attr

    def get(self, name: str) -> str | None:
        """A non-annotation attribute from the lxml element (lower-case name)."""
        return None if self.el is None else attribute(self.el, name)

    def has(self, name: str) -> bool:
        return self.el is not None and self.el.get(name) is not None


@dataclass
class ParsedFile:
    src: SourceText
    text: str  # the text positions refer to (template constructs in start tags blanked)
    root: LxmlElement | None
    elements: list[Element]  # annotated elements in document order
    lines: LineIndex
    dynamic_ranges: list[tuple[int, int]] = field(default_factory=list)
    # lxml elements without annotations that carry an attribute making them interactive (§12.2)
    interactive: list[Any] = field(default_factory=list)
    frozen: list[tuple[int, int]] = field(default_factory=list)  # JSX expressions: no fix edits inside
    _by_el: dict[Any, Element] = field(default_factory=dict)
    # (tag, line) -> the lxml elements of that tag on that line (each with its index), and their raw start tags:
    # found once per line, not once per element (minified pages put thousands of controls on one line)
    _line_peers: dict[tuple[str, int], dict[Any, int]] = field(default_factory=dict)
    _line_tags: dict[tuple[str, int], list[RawTag]] = field(default_factory=dict)
    _walk: dict[str, list[Any]] | None = None

    def named(self, tag: str) -> list[Any]:
        """The lxml elements named ``tag`` in document order; ``tag`` is one of `WALKED_TAGS` or ``"a"``.
        One walk of the tree (in C) serves every consumer of the file (interactive elements, labels); ``<a>``
        elements are collected only when the file mentions ``javascript:`` (the only links that matter,
        §12.2), else ``named("a")`` is empty."""
        if self._walk is None:
            walk: dict[str, list[Any]] = {t: [] for t in (*WALKED_TAGS, "a")}
            if self.root is not None:
                src = self.src
                links = (b"javascript:" in src.lower_data if not src.encoding.startswith("utf-16")
                         else "javascript:" in src.text.lower())
                for el in self.root.iter(*WALKED_TAGS, *(("a",) if links else ())):
                    walk[el.tag].append(el)
            self._walk = walk
        return self._walk[tag]

    def element_of(self, el: LxmlElement) -> Element:
        """The `Element` for an lxml element (annotated ones from the scan, others located on demand)."""
        found = self._by_el.get(el)
        if found is not None:
            return found
        made = locate_element(self, el)
        self._by_el[el] = made
        return made

    def is_annotated(self, el: LxmlElement) -> bool:
        e = self._by_el.get(el)
        return e is not None and bool(e.attrs)


def _attr_from_raw(text: str, ra: RawAttr, kind: str, dyn_ranges: list[tuple[int, int]]) -> Attr | None:
    written = ra.written
    low = written.lower()
    bound = False
    if not is_annotation_name(low):
        unbound = unbound_name(low, kind)  # Vue and Angular bindings: the value is an expression (§3.9)
        if unbound is not None:
            low, bound = unbound, True
    if not is_annotation_name(low):
        return None
    raw_value = text[ra.value_start:ra.value_end]
    value, offsets = decode_attribute(raw_value) if ra.quote is not None else ("", None)
    dynamic = bound
    if not dynamic and ra.quote is not None:
        dyn, unwrapped = is_dynamic_value(value, kind, low)
        if dyn:
            dynamic = True
        elif unwrapped != value:
            value, offsets = unwrapped, None  # escaped placeholders unwrapped; positions approximate
    if not dynamic and dyn_ranges:
        for a, b in dyn_ranges:
            if a <= ra.name_start < b:
                dynamic = True
                break
    return Attr(
        name=low,
        written=written,
        value=value,
        raw=raw_value,
        quote=ra.quote,
        name_span=Span(ra.name_start, ra.name_end),
        value_span=Span(ra.value_start, ra.value_end),
        offsets=offsets,
        dynamic=dynamic,
        closed=ra.closed,
    )


def element_from_raw(text: str, tag: RawTag, el: LxmlElement | None, kind: str,
                     dyn_ranges: list[tuple[int, int]]) -> Element:
    e = Element(tag=tag.tag, el=el, start=tag.start, tag_span=Span(tag.name_start, tag.name_end),
                end=tag.end, raw=tag)
    for ra in tag.attrs:
        a = _attr_from_raw(text, ra, kind, dyn_ranges)
        if a is None:
            continue
        e.attrs.append(a)
        if a.name in e.first:
            e.duplicates.append(a)
        else:
            e.first[a.name] = a
    return e


WALKED_TAGS = ("button", "input", "form", "label")  # what `ParsedFile.named` collects in its one walk
MARKER = "__axag_m"  # id prefix of the marker inserted into annotated start tags before parsing
_BY_ID = etree.XPath("id($i)")


def parse_source(src: SourceText) -> ParsedFile:
    """Parse one decoded file. Raises nothing for malformed markup; returns root None when lxml
    produced no document (the caller reports 192).

    The raw scan finds the annotated start tags first; each gets a marker `id` inserted right after
    its tag name (same line, so lxml's line numbers do not move), and after the one lxml parse each
    element is found through libxml2's id table in constant time, whatever the size of the page.
    The element's own id (or its absence) is restored at once."""
    text = src.text
    dyn_ranges: list[tuple[int, int]] = []
    if src.kind in ("svelte", "astro"):
        from axag.parse.braces import neutralize_braces

        text = neutralize_braces(text)
    if src.kind != "html":
        text, dyn_ranges = blank_template_tags(text, src.kind)
    lines = LineIndex(text)
    lo, hi = (src.window if src.window is not None else (0, len(text)))
    ascii_compatible = not src.encoding.startswith("utf-16")
    skip = len(src.bom)
    whole_html = src.kind == "html" and src.window is None and ascii_compatible and not src.replaced
    if whole_html and (len(src.data) - skip == len(text) or src.encoding == "utf-8"):
        # equal lengths: one byte per code point (nothing was replaced, so no decoder merged bytes)
        annotated_tags, interactive_tags = find_tags_in_bytes(
            text, src.data, src.lower_data, skip, utf8=len(src.data) - skip != len(text))
    else:
        annotated_tags, interactive_tags = find_tags(text, lo, hi, src.data if ascii_compatible else None,
                                                     lowered=src.lower_data if ascii_compatible else None)
    raw_tags = sorted(annotated_tags + interactive_tags, key=lambda t: t.start)
    if whole_html and src.encoding == "utf-8":
        # the file's own UTF-8 bytes, marked, go to lxml: no second copy of a big page as text, no conversion
        root = _parse_bytes(_marked_bytes(text, src.data, skip, raw_tags))
    else:
        root = _parse_tree(_marked_text(text, raw_tags, lo, hi, src.kind))
    pf = ParsedFile(src=src, text=text, root=root, elements=[], lines=lines, dynamic_ranges=dyn_ranges)
    annotated_starts = {t.start for t in annotated_tags}
    for n, tag in enumerate(raw_tags):
        el = None
        if root is not None:
            found = _BY_ID(root, i=f"{MARKER}{n}")
            if found:
                el = found[0]
                own = _own_id(text, tag)
                if own is None:
                    del el.attrib["id"]
                else:
                    el.set("id", own)
        if tag.start not in annotated_starts:
            if el is not None:
                pf.interactive.append(el)
            continue
        element = element_from_raw(text, tag, el, src.kind, dyn_ranges)
        element.matched = el is not None
        pf.elements.append(element)
        if el is not None:
            pf._by_el[el] = element
    return pf


def _marker(n: int) -> str:
    return f' id="{MARKER}{n}"'


def _marked_text(text: str, raw_tags: list[RawTag], lo: int, hi: int, kind: str) -> str:
    """``text`` with the marker id after the name of every raw start tag (and, for .vue, blanked outside the
    template section, padded so that lxml's line numbers stay those of the file)."""
    if raw_tags:
        pieces: list[str] = []
        pos = 0
        for n, tag in enumerate(raw_tags):
            pieces.append(text[pos:tag.name_end])
            pieces.append(_marker(n))
            pos = tag.name_end
        pieces.append(text[pos:])
        marked = "".join(pieces)
        shifted_lo, shifted_hi = lo, hi
        for n, tag in enumerate(raw_tags):
            width = len(_marker(n))
            if tag.name_end <= lo:
                shifted_lo += width
            if tag.name_end <= hi:
                shifted_hi += width
    else:
        marked, shifted_lo, shifted_hi = text, lo, hi
    if kind in ("vue", "astro"):
        prefix = re.sub(r"[^\r\n]", " ", marked[:shifted_lo])
        return prefix + marked[shifted_lo:shifted_hi]
    return marked


def _marked_bytes(text: str, data: bytes, skip: int, raw_tags: list[RawTag]) -> bytes:
    """`_marked_text` on the file's UTF-8 bytes (after the BOM): the byte offset of each tag name's end is
    counted from the text between the tags."""
    ascii_only = len(data) - skip == len(text)
    if not raw_tags:
        return data[skip:] if skip else data
    pieces: list[bytes] = []
    pos = skip
    char = 0
    for n, tag in enumerate(raw_tags):
        if ascii_only:
            end = skip + tag.name_end
        else:
            end = pos + utf8_size(text, char, tag.name_end)
            char = tag.name_end
        pieces.append(data[pos:end])
        pieces.append(_marker(n).encode("ascii"))
        pos = end
    pieces.append(data[pos:])
    return b"".join(pieces)


def _parse_bytes(data: bytes) -> Any:
    if not data or data.isspace():
        return None
    try:
        return etree.fromstring(data, _UTF8_PARSER)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None


def _own_id(text: str, tag: RawTag) -> str | None:
    """The element's own id attribute value as lxml would have kept it (first occurrence wins)."""
    for ra in tag.attrs:
        if ra.written.lower() == "id":
            if ra.quote is None:
                return ""
            return decode_attribute(text[ra.value_start:ra.value_end])[0]
    return None


def _parse_tree(text: str) -> Any:
    if not text or text.isspace():
        return None
    try:
        root = etree.fromstring(text, _PARSER)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        try:
            root = etree.fromstring(text.encode("utf-8", "surrogatepass"), _PARSER)
        except (etree.ParserError, etree.XMLSyntaxError, ValueError, UnicodeError):
            return None
    return root


_BACK_TAG_CACHE: dict[str, re.Pattern[str]] = {}


def locate_element(pf: ParsedFile, el: LxmlElement) -> Element:
    """Find the start tag of a non-annotated element from lxml's line (where its start tag ends): the
    `<tag` start tags ending on that line, matched to the lxml elements of that tag on that line in
    document order (several same-tag controls on one line, as in minified HTML, each get their own)."""
    tag = str(el.tag).lower() if isinstance(el.tag, str) else "?"
    text = pf.text
    lines = pf.lines
    line = min(max(el.sourceline or 1, 1), lines.line_count())
    line_end = lines.starts[line] if line < lines.line_count() else len(text)
    pat = _BACK_TAG_CACHE.get(tag)
    if pat is None:
        pat = re.compile("<" + re.escape(tag) + r"(?=[\s/>])", re.IGNORECASE)
        _BACK_TAG_CACHE[tag] = pat
    # the raw start tags of that name that end on the line, searched backwards in growing windows
    key = (tag, line)
    cached = pf._line_tags.get(key)
    found: list[RawTag] = [] if cached is None else cached
    window = 512
    while cached is None:
        lo = max(0, line_end - window)
        found = []
        for m in pat.finditer(text, lo, line_end):
            raw = scan_tag(text, m.start())
            if raw is not None and lines.position(max(raw.end - 1, raw.start))[0] == line:
                found.append(raw)
        complete = lo == 0 or (found and lines.position(found[0].start)[0] < line) or (
            found and lines.position(lo)[0] < lines.position(found[0].start)[0])
        if complete or window > 1 << 20:
            pf._line_tags[key] = found
            break
        window *= 4
    if not found:
        start = lines.starts[line - 1]
        return Element(tag=tag, el=el, start=start, tag_span=Span(start, start), end=start, matched=False)
    best = found[-1]
    if len(found) > 1 and pf.root is not None:
        same = pf._line_peers.get(key)
        if same is None:
            peers = (e for e in pf.root.iter(el.tag) if e.sourceline == el.sourceline)
            same = {e: i for i, e in enumerate(peers)}
            pf._line_peers[key] = same
        index = same.get(el)
        if len(same) == len(found) and index is not None:
            best = found[index]
    return Element(tag=tag, el=el, start=best.start, tag_span=Span(best.name_start, best.name_end),
                   end=best.end, raw=best)
