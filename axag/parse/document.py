"""PARSE: one lxml parse per file plus the raw start-tag scan for positions (parsing: which start tags are elements); lxml's tree decides
which start tags are elements (a second parse only for pages whose markup fooled the scan).

`parse_source` returns a `ParsedFile`: the lxml tree, the annotated elements (attributes with
name/value spans, decoded values, duplicate and dynamic flags), and lazy lookups for any other element.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from axag.files.source import SourceText
from axag.files.spans import LineIndex, Span
from axag.parse.entities import decode_attribute
from axag.parse.markers import (
    annotated_or_interactive,
    find_marked,
    lxml_annotations,
    marker,
    marker_prefix,
    same_start_tag,
)
from axag.parse.templates import blank_template_tags, is_dynamic_value
from axag.parse.tokenizer import (
    RawAttr,
    RawTag,
    annotation_meaning,
    find_tags,
    find_tags_in_bytes,
    scan_tag,
    utf8_size,
)
from axag.vocabulary import is_annotation_name

_PARSER = etree.HTMLParser(recover=True, remove_comments=False, huge_tree=True, default_doctype=False)
# the same for a file's own bytes, which axag decoded as UTF-8 (lxml must not read another encoding into them)
_UTF8_PARSER = etree.HTMLParser(recover=True, remove_comments=False, huge_tree=True, default_doctype=False,
                                encoding="utf-8")
# the kinds whose start tags hold {expressions} of their own (JSX components, Svelte, Astro)
_BRACE_KINDS = frozenset({"jsx", "svelte", "astro"})

# lxml element type (HtmlElement-like); kept as Any so callers need no lxml typing.
LxmlElement = Any


def tag_name(el: LxmlElement) -> str:
    """The lower-cased tag name of an lxml element; "" for comments and processing instructions."""
    tag = el.tag  # a new string on each access
    return tag.lower() if isinstance(tag, str) else ""


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
    jsx: bool = False  # an unquoted {expression} in a file not read as a component: dynamic, and rule 152's
    origin: Any = None  # JSX: the module (another file) the value was written in; None = this file
    repeat: bool = False  # a repeat of an earlier attribute of the same name (in its element's `duplicates`)
    # JSX: the value is the whole body of a string literal of this file quoted with this character ('"', "'" or
    # '`'; no escapes in it), inside an expression: a fix may rewrite that body, and nothing else of it
    js_quote: str | None = None

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
        """``attr`` (one of this element's) repeats an earlier attribute of the same name (it is in
        ``duplicates``; template alternatives are not): constant time, where ``attr in duplicates`` compares
        dataclasses one by one (16k repeats of one attribute took minutes)."""
        return attr.repeat

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
    # lxml elements without annotations that carry an attribute making them interactive (element selection and interactivity)
    interactive: list[Any] = field(default_factory=list)
    frozen: list[tuple[int, int]] = field(default_factory=list)  # JSX expressions: no fix edits inside
    # JSX: string literal bodies inside frozen expressions that a fix may replace whole (`Attr.js_quote`)
    rewritable: list[tuple[int, int]] = field(default_factory=list)
    _by_el: dict[Any, Element] = field(default_factory=dict)
    # (tag, line) -> the lxml elements of that tag on that line (each with its index), and their raw start tags:
    # found once per line, not once per element (minified pages put thousands of controls on one line)
    _line_peers: dict[tuple[str, int], dict[Any, int]] = field(default_factory=dict)
    # (tag, line start) -> the raw start tags of that name ending on that line (`_start_tags_ending_on`)
    _line_found: dict[tuple[str, int], list[RawTag]] = field(default_factory=dict)
    _walk: dict[str, list[Any]] | None = None
    _lf_starts: list[int] | None = None  # line starts as libxml2 counts lines (LF only), when the text has CR
    _has_cr: bool | None = None  # whether the text holds a CR (searched once, not once per located element)
    # (tag, line start) -> the index in `_line_found` after the tag `_locate_start_tag` found last on that line
    _line_next: dict[tuple[str, int], int] = field(default_factory=dict)
    # '<' offset -> its start tag as `scan_tag` reads it (None: none there): the windows of neighbouring lines
    # overlap, and each start tag is tokenized once, not once per window that holds it
    _scanned: dict[int, RawTag | None] = field(default_factory=dict)

    def named(self, tag: str) -> list[Any]:
        """The lxml elements named ``tag`` in document order; ``tag`` is one of `WALKED_TAGS` or ``"a"``.
        One walk of the tree (in C) serves every consumer of the file (interactive elements, labels); ``<a>``
        elements are collected only when the file mentions ``javascript:`` (the only links that matter,
        element selection and interactivity), else ``named("a")`` is empty."""
        if self._walk is None:
            walk: dict[str, list[Any]] = {t: [] for t in (*WALKED_TAGS, "a")}
            if self.root is not None:
                src = self.src
                links = src.mentions("javascript:")
                tags = (*WALKED_TAGS, *(("a",) if links else ()))
                # after a self-closed <html/>, libxml2 puts the rest of the page in a second top-level element
                for top in (self.root, *self.root.itersiblings()):
                    for el in top.iter(*tags):
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


def _attr_from_raw(text: str, ra: RawAttr, kind: str, dyn_ranges: list[tuple[int, int]],
                   lxml_values: dict[str, str] | None) -> Attr | None:
    """``lxml_values``: lxml's attributes of the element when this is the first occurrence of the name in its
    start tag; the value lxml holds wins over the decoded source text if they ever differ (positions inside the
    value then approximate)."""
    ra_low = ra.low
    if "axag" not in ra_low:
        return None  # every annotation name, bound forms included, holds "axag" (most attributes do not: hot)
    written = ra.written
    if ra_low.startswith("axag"):  # `annotation_meaning` of an unbound name, without the call (hot)
        low, bound = ra_low, False
    else:
        low, bound = annotation_meaning(written, kind, ra_low)
    if not is_annotation_name(low):
        return None
    raw_value = text[ra.value_start:ra.value_end]
    if ra.quote is None:
        value, offsets = "", None
    elif "&" not in raw_value and "\r" not in raw_value:  # nothing to decode (`decode_attribute`'s own test)
        value, offsets = raw_value, None
    else:
        value, offsets = decode_attribute(raw_value)
    lxml_value = lxml_values.get(ra_low) if lxml_values is not None else None
    if lxml_value is not None and lxml_value != value:
        value, offsets = lxml_value, None
    dynamic = bound
    if not dynamic and ra.quote is not None and "{" in value:  # every template marker holds a "{"
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
    # axag-intent={intent} in a file read as markup: a JSX expression, which this file only holds as text
    jsx = (not dynamic and ra.quote == "" and value.startswith("{") and not value.startswith("{{")
           and kind not in _BRACE_KINDS)
    # positional: name, written, value, raw, quote, name_span, value_span, offsets, dynamic, closed, jsx
    return Attr(low, written, value, raw_value, ra.quote, Span(ra.name_start, ra.name_end),
                Span(ra.value_start, ra.value_end), offsets, dynamic or jsx, ra.closed, jsx)


def element_from_raw(text: str, tag: RawTag, el: LxmlElement | None, kind: str,
                     dyn_ranges: list[tuple[int, int]]) -> Element:
    e = Element(tag=tag.tag, el=el, start=tag.start, tag_span=Span(tag.name_start, tag.name_end),
                end=tag.end, raw=tag)
    seen: set[str] = set()
    values = dict(el.items()) if el is not None else None
    spread = kind == "vue" and any(_binds_any_attribute(ra.low) for ra in tag.attrs)
    for ra in tag.attrs:
        key = ra.low
        if "axag" not in key:  # no annotation (`_attr_from_raw`'s first test, without the call: hot)
            seen.add(key)
            continue
        a = _attr_from_raw(text, ra, kind, dyn_ranges, values if key not in seen else None)
        seen.add(key)
        if a is None:
            continue
        a.dynamic = a.dynamic or spread
        e.attrs.append(a)
        first = e.first.get(a.name)
        if first is None:
            e.first[a.name] = a
        elif not (a.dynamic and first.dynamic):
            a.repeat = True
            e.duplicates.append(a)
        # else: alternatives of a template ({% if %}…{% else %}…), both dynamic (dynamic values), not a repeat
    return e


def _binds_any_attribute(low: str) -> bool:
    """A Vue binding that can set any attribute at run time: ``v-bind="obj"``, ``v-bind:[name]``, ``:[name]``."""
    return low == "v-bind" or low.startswith(("v-bind:[", ":[", "v-bind."))


WALKED_TAGS = ("button", "input", "form", "label")  # what `ParsedFile.named` collects in its one walk


def parse_source(src: SourceText) -> ParsedFile:
    """Parse one decoded file. Raises nothing for malformed markup; returns root None when lxml
    produced no document (the caller reports 192).

    The raw scan proposes the annotated (and interactive) start tags; each gets an unforgeable marker id
    inserted right after its tag name (same line, so lxml's line numbers do not move), and after the one lxml
    parse each is found through libxml2's id table in constant time and kept only when lxml's element is that
    start tag (`markers`). The element's own id (or its absence) is restored at once. A rejected proposal
    (markup inside a value, a comment or raw text; a start tag lxml drops) means one more parse without it, so
    that no marker text stays in the tree. When the scan may have missed an annotated element, one XPath over
    lxml's tree lists them and each one no marker vouches for is located by its line and attributes
    (`_locate_start_tag`), or else reported from lxml's attributes without positions."""
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
        annotated_tags, interactive_tags, plain_tags, lost = find_tags_in_bytes(
            text, src.data, src.lower_data, skip, utf8=len(src.data) - skip != len(text))
    else:
        annotated_tags, interactive_tags, plain_tags, lost = find_tags(
            text, lo, hi, src.data if ascii_compatible else None,
            lowered=src.lower_data if ascii_compatible else None, kind=src.kind)
    raw_tags = sorted(annotated_tags + interactive_tags + plain_tags, key=lambda t: t.start)
    if ascii_compatible:
        prefix = marker_prefix(lambda p: p.encode("ascii") in src.lower_data)
    else:
        prefix = marker_prefix(lambda p: p in text.lower())

    def parse(tags: list[RawTag]) -> Any:
        if whole_html and src.encoding == "utf-8":
            # the file's own UTF-8 bytes, marked, go to lxml: no second copy of a big page as text, no conversion
            return _parse_bytes(_marked_bytes(text, src.data, skip, tags, prefix))
        return _parse_tree(_marked_text(text, tags, lo, hi, src.kind, prefix))

    root: Any = None
    pairs: list[tuple[RawTag, LxmlElement]] = []
    for _attempt in range(3):
        root = parse(raw_tags)
        pairs, rejected = _vouched(root, text, raw_tags, prefix)
        if not rejected:
            break
        lost = True  # a proposal lxml did not confirm: its marker text sits somewhere; parse again without it
        raw_tags = [tag for tag, _ in pairs]
    else:
        root, pairs = parse([]), []
    pf = ParsedFile(src=src, text=text, root=root, elements=[], lines=lines, dynamic_ranges=dyn_ranges)
    annotated_starts = {t.start for t in annotated_tags}
    interactive_starts = {t.start for t in interactive_tags}
    if lost and root is not None:
        found: list[tuple[RawTag | None, LxmlElement, bool]] = []
        by_el = {el: tag for tag, el in pairs}
        used = {tag.start for tag, _ in pairs}
        for el, annotated in annotated_or_interactive(root, src.kind):
            tag = by_el.get(el)
            if tag is None and annotated:
                tag = _locate_start_tag(pf, el, used)
            found.append((tag, el, annotated))
    else:
        found = [(tag, el, tag.start in annotated_starts) for tag, el in pairs
                 if tag.start in annotated_starts or tag.start in interactive_starts]
    for tag, el, annotated in found:
        if not annotated:
            pf.interactive.append(el)
            continue
        element = (element_from_raw(text, tag, el, src.kind, dyn_ranges) if tag is not None
                   else _element_from_lxml(pf, el, src.kind))
        pf.elements.append(element)
        pf._by_el[el] = element
    return pf


def _vouched(root: Any, text: str, tags: list[RawTag],
             prefix: str) -> tuple[list[tuple[RawTag, LxmlElement]], bool]:
    """The proposed start tags that lxml confirms, each with its element (marker removed, own id restored),
    and whether any proposal was rejected."""
    if root is None:
        return [], False  # no document at all: nothing to confirm, nothing to parse again
    pairs: list[tuple[RawTag, LxmlElement]] = []
    rejected = False
    for n, tag in enumerate(tags):
        el = find_marked(root, prefix, n)
        if el is None or not same_start_tag(el, tag, marked=True):
            rejected = True
            continue
        own = _own_id(text, tag)
        if own is None:
            del el.attrib["id"]
        else:
            try:
                el.set("id", own)
            except ValueError:  # a control character lxml's API refuses: find it in a tree without markers
                rejected = True
                continue
        pairs.append((tag, el))
    return pairs, rejected


def _locate_start_tag(pf: ParsedFile, el: LxmlElement, used: set[int]) -> RawTag | None:
    """The raw start tag of an lxml element that the scan missed: a ``<tag`` ending on lxml's line with the
    same attribute names and values, after the one found last on that line (elements come in document order).
    The tags of a line are found once (`_start_tags_ending_on`) and searched from where the line's previous
    element was found, so that a page of many such elements on one line is read once."""
    values = list(el.values())

    def same(raw: RawTag) -> bool:
        if raw.start in used or not same_start_tag(el, raw, marked=False):
            return False
        seen: dict[str, str] = {}
        for ra in raw.attrs:
            value = "" if ra.quote is None else decode_attribute(pf.text[ra.value_start:ra.value_end])[0]
            seen.setdefault(ra.low, value)
        return list(seen.values()) == values

    tag = str(el.tag)
    line_start, line_end = _lxml_line(pf, el.sourceline or 1)
    found = _start_tags_ending_on(pf, tag, line_start, line_end)
    key = (tag, line_start)
    for j in range(pf._line_next.get(key, 0), len(found)):
        if same(found[j]):
            pf._line_next[key] = j + 1
            used.add(found[j].start)
            return found[j]
    return None


def _tags_starting_in(text: str, tag: str, lo: int, hi: int,
                      scanned: dict[int, RawTag | None] | None = None) -> list[RawTag]:
    """The raw ``<tag`` start tags whose ``<`` lies in ``[lo, hi)``. ``scanned``: the start tags tokenized
    so far in ``text`` by their offset (read and filled here)."""
    pat = _BACK_TAG_CACHE.get(tag)
    if pat is None:
        pat = re.compile("<" + re.escape(tag) + r"(?=[\t\n\x0c\r />]|$)", re.IGNORECASE)
        _BACK_TAG_CACHE[tag] = pat
    out: list[RawTag] = []
    # the match may run past ``hi`` (the name and the character after it): only its '<' must lie before it
    for m in pat.finditer(text, lo, min(len(text), hi + len(tag) + 2)):
        at = m.start()
        if at >= hi:
            continue
        if scanned is None:
            raw = scan_tag(text, at)
        elif at in scanned:
            raw = scanned[at]
        else:
            raw = scanned[at] = scan_tag(text, at)
        if raw is not None:
            out.append(raw)
    return out


def _element_from_lxml(pf: ParsedFile, el: LxmlElement, kind: str) -> Element:
    """An annotated element whose start tag cannot be found in the source: lxml's attributes, positioned at the
    start of lxml's line without spans (parsing: which start tags are elements)."""
    line = min(max(el.sourceline or 1, 1), pf.lines.line_count())
    start = pf.lines.starts[line - 1]
    here = Span(start, start)
    e = Element(tag=tag_name(el), el=el, start=start, tag_span=here, end=start, matched=False)
    for written, value, bound in lxml_annotations(el, kind):
        name = annotation_meaning(written, kind)[0]
        dynamic = bound or is_dynamic_value(value, kind, name)[0]
        a = Attr(name=name, written=written, value=value, raw=value, quote='"', name_span=here, value_span=here,
                 offsets=[0] * (len(value) + 1), dynamic=dynamic)
        e.attrs.append(a)
        e.first.setdefault(name, a)
    return e


def _marked_text(text: str, raw_tags: list[RawTag], lo: int, hi: int, kind: str, prefix: str) -> str:
    """``text`` with the marker id after the name of every raw start tag (and, for .vue, blanked outside the
    template section, padded so that lxml's line numbers stay those of the file)."""
    if raw_tags:
        pieces: list[str] = []
        pos = 0
        for n, tag in enumerate(raw_tags):
            pieces.append(text[pos:tag.name_end])
            pieces.append(marker(prefix, n))
            pos = tag.name_end
        pieces.append(text[pos:])
        marked = "".join(pieces)
        shifted_lo, shifted_hi = lo, hi
        for n, tag in enumerate(raw_tags):
            width = len(marker(prefix, n))
            if tag.name_end <= lo:
                shifted_lo += width
            if tag.name_end <= hi:
                shifted_hi += width
    else:
        marked, shifted_lo, shifted_hi = text, lo, hi
    if kind in ("vue", "astro"):
        prefix_text = re.sub(r"[^\r\n]", " ", marked[:shifted_lo])
        return prefix_text + marked[shifted_lo:shifted_hi]
    return marked


def _marked_bytes(text: str, data: bytes, skip: int, raw_tags: list[RawTag], prefix: str) -> bytes:
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
        pieces.append(marker(prefix, n).encode("ascii"))
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
    lines = pf.lines
    line = min(max(el.sourceline or 1, 1), lines.line_count())
    found = _start_tags_ending_on(pf, tag, *_lxml_line(pf, line))
    if not found:
        start = lines.starts[line - 1]
        return Element(tag=tag, el=el, start=start, tag_span=Span(start, start), end=start, matched=False)
    best = found[-1]
    if len(found) > 1 and pf.root is not None:
        key = (tag, line)
        same = pf._line_peers.get(key)
        if same is None:
            peers = (e for e in pf.root.iter(el.tag) if e.sourceline == el.sourceline)
            same = {e: i for i, e in enumerate(peers)}
            pf._line_peers[key] = same
        index = same.get(el)
        if len(same) == len(found) and index is not None:
            best = found[index]
    # positional (tag, el, start, tag_span, end, attrs, first, duplicates, raw): one per located control
    return Element(tag, el, best.start, Span(best.name_start, best.name_end), best.end, [], {}, [], best)


def _lxml_line(pf: ParsedFile, line: int) -> tuple[int, int]:
    """The text offsets [start, end) of lxml's line ``line`` (libxml2 counts LF and CRLF, not a lone CR)."""
    text = pf.text
    if pf._has_cr is None:
        pf._has_cr = "\r" in text
    if not pf._has_cr:
        lines = pf.lines
        line = min(max(line, 1), lines.line_count())
        return lines.starts[line - 1], (lines.starts[line] if line < lines.line_count() else len(text))
    if pf._lf_starts is None:
        pf._lf_starts = [0, *(m.end() for m in re.finditer("\n", text))]
    starts = pf._lf_starts
    line = min(max(line, 1), len(starts))
    return starts[line - 1], (starts[line] if line < len(starts) else len(text))


def _start_tags_ending_on(pf: ParsedFile, tag: str, line_start: int, line_end: int) -> list[RawTag]:
    """The raw ``<tag`` start tags whose end lies in ``[line_start, line_end)`` (one line), in document order,
    searched backwards from the line's end in growing windows; found once per line (minified pages put
    thousands of controls on one line, each located here)."""
    key = (tag, line_start)
    cached = pf._line_found.get(key)
    if cached is not None:
        return cached
    text = pf.text
    window = 512
    while True:
        lo = max(0, line_end - window)
        found = [raw for raw in _tags_starting_in(text, tag, lo, line_end, pf._scanned)
                 if line_start <= max(raw.end - 1, raw.start) < line_end]
        if lo == 0 or window > 1 << 22 or (
                found and lo < line_start):  # the window holds the line's start (lxml breaks lines at LF only)
            pf._line_found[key] = found
            return found
        window *= 4

