"""The questions the lint of a page answers once per file instead of once per action or element (the language
server's latency on a page of a thousand forms) give what the per-element computation gave, on random pages
that now and then carry WebMCP attributes (any case), file inputs and ``<template>`` elements:

- the control category of each element (`model.harvest.control_category`: a control is asked for when its scope
  is listed, when it is harvested, bound and labelled);
- whether the file has a ``<template>`` (`model.harvest._template_of` then skips the search of each control's
  ancestors) and a file input (`model.harvest.scope_file_inputs` then skips each scope);
- whether the file's text holds a WebMCP attribute name at all (`rules.webmcp._plain_attr` then reads no start
  tag again);
- the findings of every rule, their messages, spans and fixes, are those of a lint that answers none of these
  per file (each shortcut forced off).

`parse.tokenizer.scan_tag` reads which value an attribute has from the match's ``lastindex``; the reading
that asks each group in turn (the product's code before) is kept here as the definition.
"""

from __future__ import annotations

import re
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from axag.api import lint_text
from axag.model import harvest as H
from axag.parse.tokenizer import _ASCII_LOWER, scan_tag
from axag.rules import webmcp
from axag.rules.base import RuleCtx
from tests.conftest import build_model_from
from tests.model.test_page_indexes import _page, _tag

_NAMES = ("toolname", "tooldescription", "toolautosubmit", "toolparamdescription")


@st.composite
def _rich_page(draw: Any) -> str:
    """A random page of forms and controls, with WebMCP attributes written in any case on some forms and
    controls, a file input or two, and a ``<template>`` holding more of the same now and then."""
    text = draw(_page())
    for opener, attr in (("<form", ' toolname="t.x"'), ("<form", " ToolAutoSubmit"),
                         ("<form", ' tooldescription="D"'), ("<input", ' TOOLPARAMDESCRIPTION="Words"'),
                         ("<input", " type=file"), ("<button", ' toolparamdescription="B"')):
        if draw(st.booleans()):
            text = text.replace(opener, opener + attr, draw(st.integers(0, 2)))
    if draw(st.booleans()):
        held = draw(_tag())
        text = text.replace("<body>", f"<body><template>{held}</template>" if draw(st.booleans())
                            else f"<body><form axag-intent=\"t.in\" axag-action-type=\"read\"><template>{held}"
                                 "<input type=file name=up></template><input name=q></form>", 1)
    if draw(st.booleans()):  # an action whose form holds (or owns from outside) a file input
        own = draw(st.sampled_from(["", " disabled", ' form="f2"', ' form="f1"']))
        outside = draw(st.sampled_from(["", '<input type=FILE name=late form="f1">', "<input type=file name=x>"]))
        text = text.replace("</body>", '<form id="f1" axag-intent="up.load" axag-action-type="write">'
                                       f"<input type=file name=doc{own}><input name=t></form>{outside}</body>", 1)
    return text


def _plain_scope_file_inputs(model: Any, scope: Any) -> list[Any]:
    """The definition: the file inputs a browser submits with ``scope``, searched in every scope."""
    home = next(scope.iterancestors("template"), None)
    is_form = H._tag(scope) == "form"
    form_id = H._attr(scope, "id") if is_form else None
    out = []
    for el in scope.iterdescendants("input"):
        if not H._is_file_input(el) or next(el.iterancestors("template"), None) is not home:
            continue
        owner = H._attr(el, "form") if is_form else None
        if owner is not None and owner != form_id:
            continue
        out.append(el)
    root = model.pf.root
    if is_form and form_id:
        extra = [el for el in root.xpath("//*[@form=$id]", id=form_id)
                 if H._is_file_input(el) and next(el.iterancestors("template"), None) is home and el not in out]
        if extra:
            order = {el: i for i, el in enumerate(root.iter())}
            out = sorted([*out, *extra], key=lambda e: order.get(e, 0))
    return [el for el in out if "disabled" not in (H.exclusion(el, "file") or "")]


def _plain_written(pf: Any, element: Any, name: str) -> Any:
    """The definition: the first attribute of the start tag named ``name`` (as lxml lower-cases it)."""
    if element.raw is None:
        return None
    return next(((ra.name_start, ra.value_start, ra.value_end, ra.quote) for ra in element.raw.attrs
                 if ra.low == name), None)


@settings(max_examples=120, deadline=None)
@given(_rich_page())
def test_file_level_answers_equal_the_per_element_computation(text: str) -> None:
    pf, model = build_model_from(text)
    everything = [el for el in pf.root.iter() if isinstance(el.tag, str)]
    for el in everything:
        assert H._template_of(model, el) is next(el.iterancestors("template"), None)
    for el in reversed(everything):  # asked again, in another order than the model's
        assert H.control_category(model, el) == H._control_category(el)
    for act in model.actions:
        scope = H.scope_of(model, act)
        if scope is not None:
            assert H.scope_file_inputs(model, scope) == _plain_scope_file_inputs(model, scope)
    ctx = RuleCtx(model, frozenset())
    for el in everything:
        element = pf.element_of(el)
        for name in _NAMES:
            got = webmcp._plain_attr(ctx, element, name)
            want = _plain_written(pf, element, name)
            assert (None if got is None else (got.name_span.start, got.value_span.start, got.value_span.end,
                                              got.quote)) == want


def _findings(text: str) -> list[Any]:
    return [(f.code, f.line, f.column, f.end_line, f.end_column, f.message, f.help, f.fix)
            for f in lint_text(text, select="ALL")]


@settings(max_examples=60, deadline=None)
@given(_rich_page())
def test_every_finding_is_that_of_a_lint_without_the_per_file_shortcuts(text: str) -> None:
    shortcut = _findings(text)
    with mock.patch.object(webmcp, "_in_file", lambda ctx, name: True), \
            mock.patch.object(H, "_has_file_inputs", lambda model: True), \
            mock.patch.object(H, "_may_have_templates", lambda model: True):
        plain = _findings(text)
    assert shortcut == plain


# ------------------------------------------------------------------------------------------ the start-tag reading
_WS = r"\t\n\x0c\r "
_ATTR = re.compile(
    rf"""[{_WS}/]*(?:(?P<name>[^{_WS}/>][^{_WS}/>=]*)(?:[{_WS}]*=[{_WS}]*(?:"(?P<dq>[^"]*)"?|'(?P<sq>[^']*)'?"""
    rf"""|(?P<uq>[^{_WS}>]*)))?)?"""
)


def _plain_attributes(text: str, pos: int) -> list[tuple[Any, ...]]:
    """The definition: each attribute's name, value span and quote, each value group asked in turn."""
    n = len(text)
    out = []
    while pos < n:
        a = _ATTR.match(text, pos)
        assert a is not None
        ns, ne = a.span(1)
        if ns < 0:
            break
        vs, ve = a.span(2)
        if vs >= 0:
            q, closed = '"', ve < n and text[ve] == '"'
        else:
            vs, ve = a.span(3)
            if vs >= 0:
                q, closed = "'", ve < n and text[ve] == "'"
            else:
                vs, ve = a.span(4)
                closed = True
                q = "" if vs >= 0 else None
                if vs < 0:
                    vs = ve = ne
        written = text[ns:ne]
        out.append((written, ns, ne, q, vs, ve, closed, written.translate(_ASCII_LOWER)))
        end = a.end()
        pos = end if end != pos else pos + 1
    return out


_PIECES = st.sampled_from(["a", "B", "x-y", "é", "=", "==", '"', "'", '""', "''", " ", "\t", "\n", "/", ">",
                           "&amp;", "{", "}", "= ", " =", "id", "axag-intent"])


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["a", "input", "Div", "x-y", "FORM"]), st.lists(_PIECES, max_size=30))
def test_scan_tag_reads_each_attribute_as_the_group_by_group_reading(name: str, pieces: list[str]) -> None:
    text = "<" + name + "".join(pieces)
    tag = scan_tag(text, 0)
    assert tag is not None
    assert [(a.written, a.name_start, a.name_end, a.quote, a.value_start, a.value_end, a.closed, a.low)
            for a in tag.attrs] == _plain_attributes(text, tag.name_end)
