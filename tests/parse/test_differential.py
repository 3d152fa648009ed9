"""The annotated elements axag reports are exactly those of lxml's tree of the same bytes (parsing: which start tags are elements).

lxml decides what is an element; axag's raw start-tag scan only adds positions. Hostile markup (text that looks
like a start tag inside attribute values, comments of every HTML5 form, raw text, CDATA, foreign content, marker
look-alikes, odd whitespace, encodings) must never add, drop or change an annotated element. The reference is
``lxml.html`` reading the bytes in the encoding of reading and decoding (a BOM, else a meta charset, else UTF-8; lxml's own
default without a declaration is windows-1252), and an element counts when it has an annotation attribute
(``axag`` or ``axag-*``, attribute name rules, or an Angular binding of one). Positions are checked against the source text and lxml's line numbers.
"""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axag.files.source import load
from axag.parse.document import parse_source
from axag.parse.entities import decode_attribute
from axag.parse.templates import unbound_name
from axag.parse.tokenizer import ascii_lower
from axag.vocabulary import is_annotation_name
from tests.conftest import shared_or_skip

View = list[tuple[str, list[tuple[str, str]]]]


def lxml_view(data: bytes, encoding: str) -> View:
    parser = lxml.html.HTMLParser(encoding=encoding if encoding.startswith("utf-8") or not data.startswith(
        (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) else None)
    try:
        root = lxml.html.document_fromstring(data, parser=parser)
    except Exception:  # noqa: BLE001 - lxml found no document at all
        return []
    out: View = []
    # after a self-closed <html/>, libxml2 puts the rest of the page in a second top-level element
    for el in (e for top in (root, *root.itersiblings()) for e in top.iter()):
        if not isinstance(el.tag, str):
            continue
        attrs = []
        for k, v in el.items():
            name = str(k) if is_annotation_name(str(k)) else unbound_name(str(k).lower(), "html")
            if name is not None:  # an annotation, or an Angular binding of one (`[axag]`)
                attrs.append((name, str(v)))
        if attrs:
            out.append((el.tag, attrs))
    return out


def axag_view(data: bytes) -> tuple[View, Any]:
    src = load(Path("t.html"), data)
    assert not isinstance(src, str)
    pf = parse_source(src)
    out: View = []
    for e in pf.elements:
        out.append((e.tag if e.el is None else e.el.tag,
                    [(a.name, a.value) for a in e.attrs if e.first[a.name] is a]))
    return out, pf


def check(data: bytes) -> None:
    """axag's annotated elements equal lxml's; every attribute span holds what axag says it read."""
    view, pf = axag_view(data)
    assert view == lxml_view(data, pf.src.encoding), data
    text = pf.text
    for e in pf.elements:
        assert e.matched, data
        assert ascii_lower(text[e.tag_span.start:e.tag_span.end]) == e.tag == e.el.tag
        assert e.start <= e.tag_span.start < e.end
        # lxml's line of an element is the line where its start tag ends (libxml2 counts no lone CR)
        if "\r" not in text.replace("\r\n", ""):
            assert pf.lines.position(e.end - 1)[0] == e.el.sourceline, data
        for a in e.attrs:
            assert e.tag_span.end <= a.name_span.start < a.name_span.end <= e.end
            assert text[a.name_span.start:a.name_span.end] == a.written
            # the value is read from its span (not taken from lxml because the decoding differed)
            raw = text[a.value_span.start:a.value_span.end]
            assert a.value == (decode_attribute(raw)[0] if a.quote is not None else ""), data
            if a.quote:
                assert text[a.value_span.start - 1] == a.quote
            off = a.name_span.start
            if "\r" not in text:  # line and column counted here by hand: LF line breaks, columns in code points
                assert pf.lines.position(off) == (text.count("\n", 0, off) + 1, off - text.rfind("\n", 0, off))


# ---------------------------------------------------------------- hostile fixtures
BUTTON = '<button type="button" axag-intent="order.pay" axag-action-type="write">Pay</button>'
HOSTILE = {
    "title_holds_start_tag": """<div title='<button axag-intent="admin.wipe" axag-action-type="read">'>x</div>""",
    "double_quoted_holds_start_tag": '<div title="<button axag-intent=admin.wipe>">x</div>' + BUTTON,
    "unquoted_value_holds_tag_name": "<div title=<button axag-intent=x>y</div>",
    "unquoted_before_slash": "<div title=<button/ axag-intent=x>y</div>",
    "attribute_name_holds_tag": "<div <button axag-intent=x>y</div>",
    "tag_name_holds_tag": "<div<button axag-intent=x>y</div>",
    "comment_after_tag_name": "<button <!-- axag-foo -->x</button>",
    "abrupt_comment": "<!-->" + BUTTON,
    "abrupt_comment_dash": "<!--->" + BUTTON,
    "bang_comment_end": "<!-- note --!>" + BUTTON,
    "empty_comment": "<!---->" + BUTTON,
    "unterminated_comment": "<!-- " + BUTTON,
    "commented_button": "<!-- " + BUTTON + " -->",
    "comment_in_value": '<button title="<!--" axag-intent="a.b">x</button><p axag-intent="c.d">-->',
    "many_lt_in_value": '<button title="' + "<" * 12 + '" axag-intent="a.b">x</button>',
    "many_tags_in_value": '<button title="' + "<b " * 12 + '" axag-intent="a.b">x</button>',
    # found by hypothesis: the scan reads the "<!--" inside a bogus CDATA comment as a comment and misses what
    # follows; locating those on lxml's line must not stop at a lone CR (libxml2 breaks lines at LF only), or a
    # commented-out twin further on was taken for the element
    "bogus_comment_then_lone_cr": '<![CDATA[<!--</button>' + BUTTON + '<div axag-intent=""\raxag-intent="">'
                                  '<button axag-intent="" axag-intent="" axag-intent="">-->]]>' + BUTTON + "<!--"
                                  + BUTTON * 3 + "-->",
    "forged_marker_id": '<form id="__axag_m0"><input name="q"></form>'
                        '<form axag-intent="user.update" axag-action-type="write"><input name="email"></form>',
    "forged_marker_prefix": '<p id="__axag_">x</p><p class=" id=__axag_m0 ">' + BUTTON,
    "script": "<script>var s = '" + BUTTON + "';</script>" + BUTTON,
    "script_escaped": "<script><!--<script></script>" + BUTTON + "</script>",
    "script_not_closed_by_prefix": "<script>x</scriptx>" + BUTTON + "</script>",
    "style": "<style>/* " + BUTTON + " */</style>",
    "textarea": "<textarea>" + BUTTON + "</textarea>",
    "title": "<title>" + BUTTON + "</title>",
    "xmp": "<xmp>" + BUTTON + "</xmp>",
    "iframe": "<iframe>" + BUTTON + "</iframe>",
    "noembed": "<noembed>" + BUTTON + "</noembed>",
    "noframes": "<noframes>" + BUTTON + "</noframes>",
    "plaintext": "<plaintext>" + BUTTON,
    "noscript": "<noscript>" + BUTTON + "</noscript>",
    "template": "<template>" + BUTTON + "</template>",
    "cdata": "<![CDATA[" + BUTTON + "]]>",
    "svg_cdata": "<svg><![CDATA[" + BUTTON + "]]></svg>" + BUTTON,
    "svg_script": "<svg><script>" + BUTTON + "</script></svg>",
    "math_title": "<math><title>" + BUTTON + "</title></math>",
    "svg_annotated": '<svg axag-intent="draw.it"><circle axag-intent="c.x"/></svg>',
    "processing_instruction": "<?php " + BUTTON + " ?>" + BUTTON,
    "bogus_comment": "<!x " + BUTTON + " >",
    "bogus_end_tag": "</ " + BUTTON + " >",
    "end_tag_attributes": '</p axag-intent="x.y">' + BUTTON,
    "doctype": "<!DOCTYPE html '" + BUTTON + "'>" + BUTTON,
    "prose": "<p>Add axag-intent=\"x.y\" to a button: 'axag-intent' and \"axag-risk-level\"</p>",
    "prose_in_class": '<p class="demo axag-intent">x</p>',
    "unquoted_values": "<button axag-intent=a.b axag-action-type=read>x</button>",
    "valueless": "<button axag-intent axag-x-flag>x</button>",
    "duplicates": '<button axag-intent="a" AXAG-Intent="b" axag-intent="c">x</button>',
    "upper_case": '<BUTTON AXAG-INTENT="A.B">x</BUTTON>',
    "odd_whitespace": '<button\taxag-intent="a"\naxag-x-a="1"\x0caxag-x-b="2"\r\naxag-x-c="3">x</button>',
    "vertical_tab_is_not_space": '<button\x0baxag-intent="a">x</button>',
    "slash_separated": '<button/axag-intent="a"/axag-x-b="2"/>x',
    "no_space_after_quote": '<button a="1"axag-intent="a">x</button>',
    "spaces_around_equals": '<button axag-intent = "a" / axag-x-b= b >x</button>',
    "references_in_values": '<button axag-intent="a&amp;b&lt&notit;&#x80;&#0;&nbsp">x</button>',
    "line_breaks_in_values": '<button axag-description="one\r\ntwo\rthree\nfour">x</button>',
    "second_body_dropped": '<body axag-scope="a"><body axag-scope="b"><html axag-scope="c">' + BUTTON,
    "unclosed_quote": '<button axag-intent="a>x</button>' + BUTTON,
    "tag_at_end": '<button axag-intent="a"',
    "axag_prefix_only": '<button axagfoo="1" axag="x">x</button>',
    "marker_like_text": "<p>__axag_m0 id=__axag_m1</p>" + BUTTON,
    "non_ascii": '<button axag-description="naïve – ☃ 𝄞" data-ü="1">é</button>',
    "select": "<select><option>" + BUTTON + "</option></select>",
    "self_closed_html": "<!--><html/>" + BUTTON,
    "table": "<table><tr>" + BUTTON + "</tr></table>",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_fixture(name: str) -> None:
    check(HOSTILE[name].encode("utf-8"))


def test_phantom_tool_in_title_compiles_nothing() -> None:
    view, _ = axag_view(HOSTILE["title_holds_start_tag"].encode())
    assert view == []


def test_forged_marker_cannot_swap_elements() -> None:
    view, pf = axag_view(HOSTILE["forged_marker_id"].encode())
    assert view == [("form", [("axag-intent", "user.update"), ("axag-action-type", "write")])]
    assert pf.elements[0].el.get("id") is None
    assert [i.get("name") for i in pf.elements[0].el.iter("input")] == ["email"]


@pytest.mark.parametrize("encode", [
    lambda s: codecs.BOM_UTF8 + s.encode("utf-8"),
    lambda s: codecs.BOM_UTF16_LE + s.encode("utf-16-le"),
    lambda s: codecs.BOM_UTF16_BE + s.encode("utf-16-be"),
    lambda s: ('<meta charset="iso-8859-1">' + s).encode("latin-1", "replace"),
    lambda s: ('<meta charset="windows-1252">' + s).encode("cp1252", "replace"),
], ids=["bom8", "utf16le", "utf16be", "latin1", "cp1252"])
@pytest.mark.parametrize("name", ["title_holds_start_tag", "comment_after_tag_name", "bang_comment_end",
                                  "many_lt_in_value", "non_ascii", "odd_whitespace", "duplicates"])
def test_hostile_fixture_encodings(name: str, encode: Any) -> None:
    check(encode(HOSTILE[name]))


def test_corpus_pages_match_lxml() -> None:
    """Markup others wrote (the AXAG docs, the reference's fixtures): the same elements, values and positions."""
    pages = sorted(shared_or_skip("corpus").rglob("*.htm*"))
    assert len(pages) > 100
    for page in pages:
        check(page.read_bytes())


def test_nul_byte_file_is_reported_not_read() -> None:
    """A file with a NUL byte (no UTF-16 BOM) is not text: axag reads nothing from it and says so (190, reading and decoding)."""
    assert load(Path("t.html"), (BUTTON + "\x00").encode()) == "binary"


# ---------------------------------------------------------------- generated hostile markup
_WS = st.sampled_from([" ", "  ", "\t", "\n", "\r\n", "\r", "\x0c", "\x0b", "/", " / ", ""])
_NAMES = st.sampled_from([
    "axag-intent", "AXAG-Action-Type", "axag-risk-level", "axag", "axag-x-a", "axagfoo", "title", "id", "class",
    "onclick", "role", "<!--", "-->", "<b", "=x", "data-axag", "'q", '"q'])
_TEXT = st.sampled_from([
    "", "x", "a.b", "<", "<<<<<<<<<", ">", "&amp;", "&lt", "&#x3c;", "'", '"', "<!--", "-->", "--!>", "<!-->",
    "]]>", "<![CDATA[", "</script>", "</title>", "</textarea>", "__axag_m0", " id=__axag_m0 ", "{{ x }}",
    '<button axag-intent="admin.wipe">', "<button axag-intent=p.q>", " axag-intent=z ", "é", "\r\n", "\t",
    "\x01", "İK", "&#0;", "&#13;", "<button title='", '<a title="', "&amp", "&notin", "&noti", "&ampx", "&#x110000;",
    "&#xD800;", "&#128;", "&#", "&#x;", "&Bogus;", "&lt=", "&ltb", "&#9999999999;", "&lté", "&amp²", "&not١"])


@st.composite
def _attribute(draw: Any) -> str:
    name = draw(_NAMES)
    form = draw(st.sampled_from(["dq", "sq", "uq", "none"]))
    value = "".join(draw(st.lists(_TEXT, max_size=3)))
    sep = draw(st.sampled_from(["=", " = ", "="]))
    if form == "dq":
        return name + sep + '"' + value.replace('"', "") + '"'
    if form == "sq":
        return name + sep + "'" + value.replace("'", "") + "'"
    if form == "uq":
        return name + sep + "".join(c for c in value if not c.isspace() and c not in "\"'>") + "x"
    return name


@st.composite
def _start_tag(draw: Any) -> str:
    tag = draw(st.sampled_from(["button", "div", "a", "form", "input", "BUTTON", "svg", "p", "span", "body", "html",
                                "head", "bütton", "b<i"]))
    parts = [draw(_WS) + draw(_attribute()) for _ in range(draw(st.integers(0, 4)))]
    if parts and not parts[0][:1].isspace() and not parts[0].startswith("/"):
        parts[0] = " " + parts[0]
    return "<" + tag + "".join(parts) + draw(st.sampled_from([">", "/>", " >", ">", ""]))


_CONTAINERS = [("<!--", "-->"), ("<!-->", ""), ("<!---", "--!>"), ("<!-- ", "--!>"), ("<![CDATA[", "]]>"),
               ("<script>", "</script>"), ("<style>", "</style>"), ("<textarea>", "</textarea>"),
               ("<title>", "</title>"), ("<xmp>", "</xmp>"), ("<svg>", "</svg>"), ("<math>", "</math>"),
               ("<?", ">"), ("<!x ", ">"), ("</ ", ">"), ("<noscript>", "</noscript>"), ("<template>", "</template>"),
               ("<select>", "</select>"), ("<table>", "</table>"), ("<p>", "</p>")]


def _wrap(draw_pair: tuple[str, str], inner: list[str]) -> str:
    return draw_pair[0] + "".join(inner) + draw_pair[1]


_LEAF = st.one_of(_start_tag(), _TEXT, st.just("</button>"), st.just(BUTTON))
_MARKUP = st.recursive(
    _LEAF,
    lambda children: st.builds(_wrap, st.sampled_from(_CONTAINERS), st.lists(children, max_size=4)),
    max_leaves=12)


_ENCODINGS = {
    "utf-8": lambda s: s.encode("utf-8"),
    "bom8": lambda s: codecs.BOM_UTF8 + s.encode("utf-8"),
    "utf-16": lambda s: codecs.BOM_UTF16_LE + s.encode("utf-16-le", "surrogatepass"),
    "latin-1": lambda s: ('<meta charset="iso-8859-1">' + s).encode("latin-1", "replace"),
}


@settings(max_examples=400)
@given(st.lists(_MARKUP, min_size=1, max_size=6), st.sampled_from(sorted(_ENCODINGS)))
def test_generated_markup_matches_lxml(pieces: list[str], encoding: str) -> None:
    check(_ENCODINGS[encoding]("".join(pieces)))


@pytest.mark.parametrize("unit", [
    '<button <!-- axag-intent="a.b{}" -->x</button>',  # all on one line
    '<button <!--\n axag-intent="a.b{}" -->x</button>\n',  # each tag over two lines
])
def test_locating_missed_elements_is_linear(unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Start tags that only lxml's tree reveals are located once each: the tokenizer work grows with the page."""
    from axag.parse import document

    calls = 0
    scan = document.scan_tag

    def counted(text: str, start: int) -> Any:
        nonlocal calls
        calls += 1
        return scan(text, start)

    monkeypatch.setattr(document, "scan_tag", counted)
    work = []
    for n in (250, 1000):
        calls = 0
        view, pf = axag_view("".join(unit.format(i) for i in range(n)).encode())
        assert len(view) == n and all(e.matched for e in pf.elements)
        work.append(calls)
    assert work[1] <= 4 * work[0] * 1.25
