"""PARSE: lxml's tree decides which start tags are elements; the raw scan only gives positions.

Every start tag that the raw scan proposes gets a marker id right after its name, made of a per-process random
nonce that the page does not contain (so a page cannot forge one) and the tag's index. After the one lxml
parse, a proposal is kept only when lxml's element carrying its marker has the same tag name and the same
attribute names in the same order: a start tag that lxml reads as text (inside an attribute value, a comment,
raw text, a dropped second ``<body>``) is never reported. The markers are removed from the tree; when one was
rejected, its text may sit anywhere in the tree, so the page is parsed again without it and the nonce never
reaches an output.

When the scan may have missed an annotated element (an ``axag`` it could not place, a rejected proposal), one
XPath over the tree lists the elements that carry annotation or interactivity attributes, and each one that no
marker vouches for is located in the source by its line and attribute names.
"""

from __future__ import annotations

import secrets
from typing import Any

from lxml import etree

from axag.parse.tokenizer import RawTag, annotation_meaning, is_annotation_attr, makes_interactive

_PROCESS_NONCE = secrets.token_hex(8)
_BY_ID = etree.XPath("id($i)")
# elements with an attribute that may make them annotated or interactive (filtered in Python)
_CANDIDATES = etree.XPath(
    "//*[@*[contains(name(), 'axag') or contains(name(), 'click') or starts-with(name(), 'hx-')"
    " or name() = 'role']]")


def marker_prefix(contains: Any) -> str:
    """``__axag_<nonce>_``: the per-process nonce unless ``contains(prefix)`` says the page holds it (then a
    fresh one). The nonce never reaches an output: markers are removed from the tree, and a tree in which one
    landed elsewhere is discarded."""
    nonce = _PROCESS_NONCE
    while contains(f"__axag_{nonce}_"):
        nonce = secrets.token_hex(8)
    return f"__axag_{nonce}_"


def marker(prefix: str, n: int) -> str:
    """The text inserted after the name of proposed start tag ``n``: an unquoted id with spaces around it,
    which can end no comment, raw text, quoted value or tag."""
    return f" id={prefix}{n} "


def raw_names(tag: RawTag) -> list[str]:
    """Attribute names of a raw start tag as lxml keeps them: ASCII lower-cased, first occurrence only."""
    return list(dict.fromkeys(a.low for a in tag.attrs))


def same_start_tag(el: Any, tag: RawTag, marked: bool) -> bool:
    """lxml's element ``el`` is the raw start tag ``tag``: same name and attribute names in order. ``marked``:
    ``el`` carries the marker id as its first attribute (lxml then dropped the tag's own id)."""
    if not isinstance(el.tag, str) or el.tag != tag.tag:
        return False
    names = raw_names(tag)
    keys = list(el.keys())
    if marked:
        if not keys or keys[0] != "id":
            return False
        return keys[1:] == [n for n in names if n != "id"]
    return keys == names


def find_marked(root: Any, prefix: str, n: int) -> Any:
    found = _BY_ID(root, i=f"{prefix}{n}")
    return found[0] if found else None


def annotated_or_interactive(root: Any, kind: str) -> list[tuple[Any, bool]]:
    """(element, annotated?) for every element of lxml's tree that carries annotation attributes or, failing
    those, an attribute making it interactive (element selection and interactivity), in document order."""
    out: list[tuple[Any, bool]] = []
    for el in _CANDIDATES(root):
        if any(is_annotation_attr(k, kind) for k in el.attrib):
            out.append((el, True))
        elif is_interactive_element(el):
            out.append((el, False))
    return out


def is_interactive_element(el: Any) -> bool:
    """`tokenizer.is_interactive_attr` on lxml's attributes."""
    return any(makes_interactive(k, v) for k, v in el.items())


def lxml_annotations(el: Any, kind: str) -> list[tuple[str, str, bool]]:
    """(written name, value, bound?) of each annotation attribute of an lxml element, in order."""
    out = []
    for k, v in el.items():
        if is_annotation_attr(k, kind):
            out.append((k, str(v), annotation_meaning(k, kind)[1]))
    return out
