"""PARSE for JSX/TSX: tree-sitter syntax tree -> the `ParsedFile` model the HTML parser feeds.

Every JSX element becomes an lxml element (under one synthetic root, nested as in the JSX tree, so that
ancestors, forms, labels and controls work as for HTML) and an `Element` with exact spans; elements with
annotation attributes are the file's annotated elements. Intrinsic elements keep their tag; components take
the HTML tag ``[tool.axag.jsx] components`` maps them to, else a ``jsx-*`` tag that nothing treats as
interactive. Static values (strings, ``{"…"}``, ``{`…`}`` without substitutions, numbers, booleans) are
values; every other expression is dynamic. ``axag={spec}`` expands to the longhand attributes of the spec
object (`axag.parse.jsxspec`), positioned in the object, possibly in another file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from lxml import etree

from axag.files.source import SourceText
from axag.files.spans import LineIndex, Span
from axag.parse import jsxspec
from axag.parse import jsxtree as T
from axag.parse.document import Attr, Element, ParsedFile
from axag.parse.entities import decode_attribute
from axag.vocabulary import is_annotation_name

# byte hits (in the lower-cased source) that start an element or an attribute rules look at
_TAG_HITS = re.compile(rb"<(?:button|form|input|select|textarea|label|fieldset|legend|option|optgroup|datalist)")
_ATTR_HITS = (b"axag", b"onclick", b"role", b"hx-")  # at the start of an attribute name
_SPACE = frozenset(b" \t\r\n")
_LINKS = re.compile(rb"<a(?=[\s/>])")
# node types between a hit and its element: the tag's name, an attribute's name, the attribute
_CLIMB = frozenset({"<", "identifier", "property_identifier", "jsx_namespace_name", "jsx_attribute",
                    "member_expression", "nested_identifier"})
_TEXT_TAGS = frozenset({"label", "legend", "option", "button", "a", "textarea", "optgroup"})
DYNAMIC_TEXT = "{{…}}"  # stands for an expression in lxml attributes and text (harvested data is then unknown)
# React prop names whose HTML attribute is not simply their lower-case form
_HTML_NAMES = {"classname": "class", "htmlfor": "for", "defaultvalue": "value", "defaultchecked": "checked"}
_IGNORED = frozenset({b"classname", b"class", b"style", b"key", b"ref", b"children", b"dangerouslysetinnerhtml"})
_BOOLEAN = frozenset({"disabled", "required", "checked", "multiple", "readonly", "hidden", "selected"})
_SAFE_TAG = re.compile(r"[^a-z0-9_.-]")
# bytes that may make a file worth a tree: annotations and what makes an element interactive (element selection and interactivity)
_MARKERS = (b"axag", b"onclick", b"<button", b"<form", b"<input", b"role", b"hx-", b"javascript:")


def parse_jsx(src: SourceText, components: Mapping[str, str] | None = None) -> ParsedFile:
    """Parse a .jsx/.tsx/.js/.ts file. Raises `jsxtree.GrammarMissing` when tree-sitter is not installed."""
    text = src.text
    comps = dict(components or {})
    root_el = etree.Element("jsx-root")
    pf = ParsedFile(src=src, text=text, root=root_el, elements=[], lines=LineIndex(text))
    low = src.lower_data
    if not any(m in low for m in _MARKERS) and not any(f"<{c}".lower().encode() in low for c in comps):
        return pf  # nothing that a rule could see: no tree needed
    grammar = T.grammar_for(src.path)
    T.language(grammar)  # GrammarMissing before anything else
    data = src.data[len(src.bom):] if src.encoding == "utf-8" and not src.replaced else T.source_bytes(text)
    module = jsxspec.module_of(src.path, text, grammar, data)
    _Builder(pf, module, comps).build()
    return pf


_NAMES: dict[bytes, str | None] = {}


def _name(raw: bytes) -> str | None:
    """The lower-case name of a JSX attribute as written, or None when rules never look at it (cached)."""
    low = _NAMES.get(raw, "")
    if low != "":
        return low
    b = raw.lower()
    low = None if b in _IGNORED or (b.startswith(b"on") and b != b"onclick") else b.decode("utf-8", "replace")
    if len(_NAMES) < 4096:
        _NAMES[raw] = low
    return low


class _Builder:
    def __init__(self, pf: ParsedFile, module: jsxspec.Module, components: dict[str, str]) -> None:
        self.pf = pf
        self.module = module
        self.data = module.data
        self.cp = module.offsets.cp
        self.components = components
        self.loader = jsxspec.Loader()
        self.component = False
        self.tags: dict[str, str] = {}  # written element name -> lxml tag

    def build(self) -> None:
        """The elements rules can see, found from byte hits (no walk of the whole tree in Python): tags that
        take part in interactivity and harvesting, and elements with an annotation, a click listener, a role,
        an htmx verb (or an id, when something refers to ids). They are nested by containment; the elements
        between them (``div``, layout components) are left out of the lxml tree, as they change nothing."""
        stack: list[tuple[int, Any]] = []
        root = self.pf.root
        for node, opening in self._candidates():
            name = opening.child_by_field_name("name")
            if name is None:
                continue
            while stack and stack[-1][0] <= node.start_byte:
                stack.pop()
            parent = stack[-1][1] if stack else root
            written = T.node_text(self.data, name)
            el = self._lxml(parent, written)
            self.component = el.tag.startswith("jsx-")  # an unmapped component: its props are not HTML
            element = Element(tag=written, el=el, start=self.cp(opening.start_byte),
                              tag_span=Span(self.cp(name.start_byte), self.cp(name.end_byte)),
                              end=self.cp(opening.end_byte))
            interactive = self._attributes(opening, el, element)
            if node is not opening and (el.tag in _TEXT_TAGS or el.get("id") is not None):
                text = "".join(self._text(node))
                if text:
                    el.text = text
            if element.attrs and node is not opening and self._renders_more(node):
                etree.SubElement(el, "slot")  # like a template's block: actions may come from elsewhere (137)
            self.pf._by_el[el] = element
            if element.attrs:
                self.pf.elements.append(element)
            elif interactive:
                self.pf.interactive.append(el)
            stack.append((node.end_byte, el))

    def _candidates(self) -> list[tuple[Any, Any]]:
        """(element node, its opening node) of every element a byte hit falls in, in document order."""
        data = self.data
        src = self.pf.src
        low = src.lower_data if data is src.data else data.lower()
        hits = [m.start() for m in _TAG_HITS.finditer(low)]
        for mark in _ATTR_HITS:
            i = low.find(mark)
            while i >= 0:
                if i and low[i - 1] in _SPACE:
                    hits.append(i)
                i = low.find(mark, i + 2)
        if b"javascript:" in low:
            hits.extend(m.start() for m in _LINKS.finditer(low))
        names = [b"<" + c.encode() for c in self.components]
        if b"aria-labelledby" in low or b"axag-params-from" in low:
            names.append(b" id=")
        for mark in names:
            i = data.find(mark)
            while i >= 0:
                hits.append(i + 1 if mark[0] == 32 else i)
                i = data.find(mark, i + 2)
        found: dict[int, tuple[Any, Any]] = {}
        descend = self.module.root.descendant_for_byte_range
        for i in hits:
            node = descend(i, i + 1)
            for _ in range(4):
                if node is None:
                    break
                t = node.type
                if t == "jsx_self_closing_element":
                    found.setdefault(node.start_byte, (node, node))
                    break
                if t == "jsx_opening_element":
                    parent = node.parent
                    if parent is not None:
                        found.setdefault(parent.start_byte, (parent, node))
                    break
                if t not in _CLIMB:
                    break
                node = node.parent
        return [found[k] for k in sorted(found)]

    def _lxml(self, parent: Any, written: str) -> Any:
        tag = self.tags.get(written)
        if tag is None:
            intrinsic = written[:1].islower() and "." not in written
            tag = written.lower() if intrinsic else self.components.get(written) or "jsx-" + written.lower()
            tag = _SAFE_TAG.sub("-", tag.lower()) or "jsx-element"
            if not tag[0].isalpha():
                tag = "jsx-" + tag
            self.tags[written] = tag
        return etree.SubElement(parent, tag)

    def _renders_more(self, node: Any) -> bool:
        """Whether an element's children include markup made elsewhere: an expression such as ``{children}``
        or ``{items.map(…)}``, or a component."""
        for child in node.named_children:
            t = child.type
            if t == "jsx_expression":
                inner = [c for c in child.named_children if c.type != "comment"]
                if inner and T.literal(self.data, inner[0]) is None:
                    return True
            elif t in ("jsx_element", "jsx_self_closing_element"):
                opening = child.child_by_field_name("open_tag") if t == "jsx_element" else child
                name = opening.child_by_field_name("name") if opening is not None else None
                if name is not None and not T.node_text(self.data, name)[:1].islower():
                    return True
        return False

    def _text(self, node: Any) -> list[str]:
        """The text of an element and its descendants (expressions stand as ``DYNAMIC_TEXT``)."""
        pieces: list[str] = []
        for child in node.named_children:
            t = child.type
            if t == "jsx_text":
                pieces.append(T.node_text(self.data, child))
            elif t == "jsx_expression":
                inner = [c for c in child.named_children if c.type != "comment"]
                if inner:
                    lit = T.literal(self.data, inner[0])
                    pieces.append(lit[0] if lit is not None else DYNAMIC_TEXT)
            elif t == "jsx_element":
                pieces.extend(self._text(child))
        return pieces

    def _attributes(self, opening: Any, el: Any, element: Element) -> bool:
        interactive = False
        spec: tuple[Any, Any] | None = None
        data = self.data
        for attr in opening.children_by_field_name("attribute"):
            if attr.type != "jsx_attribute":
                continue  # a spread: unknown props, nothing static
            count = attr.named_child_count
            if not count:
                continue
            name_node = attr.named_child(0)
            low = _name(data[name_node.start_byte:name_node.end_byte])
            if low is None:
                continue  # class, style, key, other listeners than onClick: nothing rules look at
            vnode = attr.named_child(1) if count > 1 else None
            if low.startswith("axag") and is_annotation_name(low):
                written = T.node_text(data, name_node)
                if low == "axag" and vnode is not None and vnode.type == "jsx_expression" and spec is None:
                    spec = (name_node, vnode)  # expanded after the longhand attributes, which win
                else:
                    self._add(element, self._annotation(name_node, written, low, vnode))
                continue
            if low == "onclick":
                if self.component:
                    continue  # a callback prop of a component, not a listener (no 001)
                el.set("onclick", DYNAMIC_TEXT)
                interactive = True
                continue
            html = _HTML_NAMES.get(low, low)
            value = self._plain_value(vnode)
            if value is None or (value == DYNAMIC_TEXT and html in _BOOLEAN):
                continue
            try:
                el.set(html, value)
            except ValueError:
                continue
            if html in ("hx-post", "hx-put", "hx-patch", "hx-delete") or \
                    (html == "role" and value.strip().lower() == "button"):
                interactive = True
        if spec is not None:
            self._spec(element, *spec)
        return interactive

    def _plain_value(self, vnode: Any) -> str | None:
        """An lxml attribute value: static text, ``DYNAMIC_TEXT``, or None when the attribute is absent."""
        if vnode is None:
            return ""
        if vnode.type == "string":
            return decode_attribute(T.node_text(self.data, vnode)[1:-1])[0]
        if vnode.type != "jsx_expression":
            return DYNAMIC_TEXT
        inner = [c for c in vnode.named_children if c.type != "comment"]
        if not inner:
            return None
        node = inner[0]
        if node.type in ("true", "false"):
            return "" if node.type == "true" else None
        if node.type in ("null", "undefined"):
            return None
        lit = T.literal(self.data, node)
        return lit[0] if lit is not None else DYNAMIC_TEXT

    def _annotation(self, name_node: Any, written: str, low: str, vnode: Any) -> Attr:
        cp = self.cp
        name_span = Span(cp(name_node.start_byte), cp(name_node.end_byte))
        if vnode is None:
            return Attr(name=low, written=written, value="", raw="", quote=None, name_span=name_span,
                        value_span=Span(name_span.end, name_span.end))
        if vnode.type == "string":
            raw = T.node_text(self.data, vnode)[1:-1]
            value, offsets = decode_attribute(raw)
            start = cp(vnode.start_byte) + 1
            return Attr(name=low, written=written, value=value, raw=raw, quote=T.node_text(self.data, vnode)[0],
                        name_span=name_span, value_span=Span(start, cp(vnode.end_byte) - 1), offsets=offsets)
        self.pf.frozen.append((cp(vnode.start_byte), cp(vnode.end_byte)))
        inner = [c for c in vnode.named_children if c.type != "comment"] if vnode.type == "jsx_expression" else []
        lit = T.literal(self.data, inner[0]) if inner else None
        if lit is not None:
            raw = self.data[lit[1]:lit[2]].decode("utf-8", "replace")
            value = lit[0]
            offsets = None if raw == value else [0] * (len(value) + 1)
            value_span = Span(cp(lit[1]), cp(lit[2]))
            return Attr(name=low, written=written, value=value, raw=raw, quote="", name_span=name_span,
                        value_span=value_span, offsets=offsets,
                        js_quote=self._rewritable(value_span, raw == value, vnode))
        return Attr(name=low, written=written, value=T.node_text(self.data, vnode), raw=T.node_text(self.data, vnode),
                    quote="", name_span=name_span, value_span=Span(cp(vnode.start_byte), cp(vnode.end_byte)),
                    dynamic=True)

    def _spec(self, element: Element, name_node: Any, vnode: Any) -> None:
        """``axag={spec}``: the spec's keys as longhand attributes; one dynamic ``axag`` when unresolvable."""
        attr = self._annotation(name_node, "axag", "axag", vnode)
        inner = [c for c in vnode.named_children if c.type != "comment"]
        found = jsxspec.resolve(self.module, inner[0], self.loader) if inner else None
        items = jsxspec.entries(*found) if found is not None else None
        if items is None:
            attr.dynamic = True
            self._add(element, attr)
            return
        own = {a.name for a in element.attrs}
        for item in items:
            if item.name in own:
                continue  # a longhand attribute on the element wins
            mod = item.module
            origin = None if mod is self.module else mod
            span = Span(*item.value_span)
            if origin is None:
                self.pf.frozen.append(item.value_span)
            value = item.value if item.value is not None else mod.text[span.start:span.end]
            offsets = None if item.literal_body else [0] * (len(value) + 1)
            quote = self._rewritable(span, item.literal_body and item.value is not None, vnode) \
                if origin is None else None
            self._add(element, Attr(name=item.name, written=item.name, value=value,
                                    raw=mod.text[span.start:span.end], quote="", name_span=Span(*item.key_span),
                                    value_span=span, offsets=offsets, dynamic=item.value is None, origin=origin,
                                    js_quote=quote))

    def _rewritable(self, span: Span, exact: bool, vnode: Any) -> str | None:
        """The quote of a string literal whose body is ``span`` (``exact``: its characters are the value), when
        it is written inside the attribute's expression ``vnode``: a fix may rewrite that body (`fix_problem`
        lets it). Recorded in ``pf.rewritable``; None for anything else (numbers, escapes, a module const)."""
        text = self.pf.text
        if not exact or span.start < 1 or span.end >= len(text):
            return None
        quote = text[span.start - 1]
        if quote not in "\"'`" or text[span.end] != quote:
            return None
        if not (self.cp(vnode.start_byte) < span.start - 1 and span.end + 1 <= self.cp(vnode.end_byte)):
            return None
        self.pf.rewritable.append((span.start, span.end))
        return quote

    @staticmethod
    def _add(element: Element, a: Attr) -> None:
        element.attrs.append(a)
        if a.name in element.first:
            a.repeat = True
            element.duplicates.append(a)
        else:
            element.first[a.name] = a


def fix_problem(old: str, new: str, path: Any) -> str | None:
    """Why a fixed JSX text is not a safe edit of ``old`` (None when it is): it must parse with no more
    syntax errors, keep every element and every attribute other than static annotation strings, and keep
    the code outside elements (fixes for JSX: fixes edit static string attributes, never an expression)."""
    grammar = T.grammar_for(path) if path is not None else "tsx"
    before, after = _shape(old, grammar), _shape(new, grammar)
    if after[0] > before[0]:
        return "the fixed source does not parse"
    if before[1] != after[1]:
        return "a fix would change something other than a static annotation attribute"
    return None


_WRAPPERS = frozenset({"jsx_expression", "parenthesized_expression", "as_expression", "satisfies_expression"})


def _value_string_bodies(expression: Any) -> list[tuple[int, int]]:
    """Byte ranges of the bodies (inside the quotes) of the string literals that are values in an annotation
    attribute's expression: the expression itself, or the value of a key of an object in it (`Attr.js_quote`:
    the only parts of an expression a fix edits)."""
    out: list[tuple[int, int]] = []
    stack = [expression]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type not in ("string", "template_string") or node.parent is None:
            continue
        parent = node.parent
        value = parent.type in _WRAPPERS or (parent.type == "pair" and parent.child_by_field_name("value") == node)
        if value and not any(c.type == "template_substitution" for c in node.named_children):
            out.append((node.start_byte + 1, node.end_byte - 1))
    return out


def _shape(text: str, grammar: str) -> tuple[int, list[Any]]:
    """(syntax errors, the file with every static annotation attribute string left out, as tokens)."""
    data = T.source_bytes(text)
    tree = T.parse(data, grammar)
    errors = len(T.captures(grammar, "(ERROR) @e", tree.root_node).get("e", []))
    cut: list[tuple[int, int]] = []
    for attr in T.captures(grammar, "(jsx_attribute) @a", tree.root_node).get("a", []):
        parts = attr.named_children
        if not parts or not is_annotation_name(T.node_text(data, parts[0]).lower()):
            continue
        if len(parts) == 1 or parts[1].type == "string":
            cut.append((attr.start_byte, attr.end_byte))
        elif parts[1].type == "jsx_expression":
            cut.extend(_value_string_bodies(parts[1]))
    for c in T.captures(grammar, "(comment) @c", tree.root_node).get("c", []):
        if b"axag-" in data[c.start_byte:c.end_byte]:
            cut.append((c.start_byte, c.end_byte))  # suppression comments (133 edits them)
    pieces: list[str] = []
    pos = 0
    for a, b in sorted(cut):
        pieces.append(data[pos:a].decode("utf-8", "replace"))
        pos = b
    pieces.append(data[pos:].decode("utf-8", "replace"))
    return errors, "".join(pieces).split()
