"""The lookups the lint of a page makes once per file instead of once per element (a 5,000-line page of 1,000
forms: the language server's latency) give exactly what the per-element computation gave, on random pages:

- `parse.document.locate_element` tokenizes each start tag once per file (`ParsedFile._scanned`), whatever
  order the elements are located in and however the search windows of neighbouring lines overlap;
- `model.harvest.document_order` numbers each parent's children once per file, where the definition
  (`_document_position` below, the product's code before) counts the siblings before each element
  (`parent.index`);
- `model.reach.reach` finds an action's scope, form and submit control once per file (rule 151 and the HTTP
  binding of compile both ask), whatever page it is asked for first.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from axag.files.source import SourceText, load
from axag.model import harvest as H
from axag.model.reach import Link, Submission, form_action, form_method, form_of, reach
from axag.model.submit import is_submit_control
from axag.parse.document import ParsedFile, _tags_starting_in, locate_element, parse_source
from axag.parse.tokenizer import RawTag
from tests.conftest import build_model_from

_BREAK = st.sampled_from(["", "", " ", "\n", "\n  ", "\r\n"])
_IDS = st.sampled_from([None, "f1", "f2", "f3"])


@st.composite
def _tag(draw: Any, depth: int = 0) -> str:
    """A random piece of a page: forms, controls, buttons, labels and divs, some annotated, start tags split
    over lines or several on one line, with `>` and `<input` inside values now and then."""
    kind = draw(st.sampled_from(["input", "button", "label", "div", "form", "select", "textarea"]
                                if depth < 2 else ["input", "button", "label"]))
    attrs = []
    if draw(st.booleans()):
        attrs.append(f'name="{draw(st.sampled_from(["a", "b", "c_d"]))}"')
    if kind == "input":
        t = draw(st.sampled_from([None, "text", "submit", "hidden", "image", "checkbox"]))
        if t:
            attrs.append(f"type={t}")
    if kind == "button":
        t = draw(st.sampled_from([None, "submit", "button", "reset", ""]))
        if t is not None:
            attrs.append(f'type="{t}"')
        if draw(st.booleans()):
            attrs.append(f'formaction="{draw(st.sampled_from(["/x", "y?z=1", "", "https://e.example/"]))}"')
        if draw(st.booleans()):
            attrs.append(f'formmethod="{draw(st.sampled_from(["post", "GET", "dialog"]))}"')
    owner = draw(_IDS)
    if owner and kind in ("input", "button", "select"):
        attrs.append(f'form="{owner}"')
    if kind == "form":
        ident = draw(_IDS)
        if ident:
            attrs.append(f'id="{ident}"')
        if draw(st.booleans()):
            attrs.append(f'action="{draw(st.sampled_from(["/save", "../up", "", "?q=1"]))}"')
        if draw(st.booleans()):
            attrs.append(f'method="{draw(st.sampled_from(["post", "get", "dialog"]))}"')
    if draw(st.booleans()):
        attrs.append('title="a > b <input c"')
    if kind in ("form", "button") and draw(st.booleans()):
        n = draw(st.integers(0, 3))
        attrs.append(f'axag-intent="item.do_{n}" axag-action-type="{draw(st.sampled_from(["write", "read", "navigate"]))}"'
                     ' axag-risk-level="low"')
    if kind == "input" and draw(st.booleans()):
        attrs.append('axag-parameter-description="A value"')
    sep = [draw(_BREAK) or " " for _ in attrs]
    start = f"<{kind}" + "".join(s + a for s, a in zip(sep, attrs, strict=True)) + draw(_BREAK) + ">"
    if kind == "input":
        return start
    inner = "".join(draw(_BREAK) + draw(_tag(depth + 1)) for _ in range(draw(st.integers(0, 3))))
    if kind == "select":
        inner = "<option>x</option>"
    return f"{start}{inner}</{kind}>"


@st.composite
def _page(draw: Any) -> str:
    body = "".join(draw(_BREAK) + draw(_tag()) for _ in range(draw(st.integers(1, 8))))
    return f"<!doctype html><html><body>{body}\n</body></html>\n"


def _parse(text: str) -> ParsedFile:
    src = load(Path("t.html"), text.encode("utf-8"))
    assert isinstance(src, SourceText)
    return parse_source(src)


def _raw(tag: RawTag | None) -> Any:
    return None if tag is None else (tag.tag, tag.start, tag.name_start, tag.name_end, tag.end,
                                     [(a.written, a.name_start, a.value_start, a.value_end, a.quote)
                                      for a in tag.attrs])


def _found(e: Any) -> Any:
    return (e.tag, e.start, e.tag_span, e.end, e.matched, _raw(e.raw))


@settings(max_examples=60, deadline=None)
@given(_page(), st.randoms(use_true_random=False))
def test_each_start_tag_is_tokenized_once_and_located_as_before(text: str, rnd: random.Random) -> None:
    pf = _parse(text)
    assert pf.root is not None
    elements = [el for el in pf.root.iter() if isinstance(el.tag, str) and el not in pf._by_el]
    rnd.shuffle(elements)  # the order of the lookups must not matter
    order = [e for e in pf.root.iter() if isinstance(e.tag, str)]
    fresh = _parse(text)
    twins = [e for e in fresh.root.iter() if isinstance(e.tag, str)]
    for el in elements:
        located = pf.element_of(el)
        # the definition: nothing tokenized before, the start tags of the element's line found afresh
        twin = twins[order.index(el)]
        fresh._scanned.clear()
        fresh._line_found.clear()
        fresh._line_peers.clear()
        assert _found(located) == _found(locate_element(fresh, twin))
    # and the tags found through the cache are those found without it
    for at, tag in pf._scanned.items():
        assert tag is None or tag.start == at
    for tag_name in ("input", "button", "form", "label", "div"):
        lo, hi = 0, len(pf.text)
        assert [_raw(t) for t in _tags_starting_in(pf.text, tag_name, lo, hi, pf._scanned)] == \
               [_raw(t) for t in _tags_starting_in(pf.text, tag_name, lo, hi)]


def _document_position(el: Any) -> tuple[int, ...]:
    """The definition of document order, as the model computed it at each call: the child indexes from the root
    (``parent.index``); elements outside the root element come first."""
    path: list[int] = []
    parent = el.getparent()
    while parent is not None:
        path.append(parent.index(el))
        el, parent = parent, parent.getparent()
    if el is not el.getroottree().getroot():
        return ()
    path.reverse()
    return tuple(path)


@settings(max_examples=100, deadline=None)
@given(_page(), st.randoms(use_true_random=False))
def test_document_order_numbers_children_once_and_orders_as_document_position(text: str,
                                                                              rnd: random.Random) -> None:
    _pf, model = build_model_from(text)
    root = model.pf.root
    everything = list(root.iter())
    shuffled = list(everything)
    rnd.shuffle(shuffled)
    key = H.document_order(model)
    for el in shuffled:
        assert key(el) == _document_position(el)
    assert sorted(shuffled, key=key) == sorted(shuffled, key=_document_position) == everything
    assert H.document_order(model)(everything[-1]) == _document_position(everything[-1])  # the kept numbers


def _submitter(act: Any, form: Any) -> Any:
    """The definition of the submit control, as reach found it at each call: the action element when it is one,
    else the form's first submit control without a `form=` of another form."""
    el = act.element.el
    if el is not None and is_submit_control(el):
        return el
    form_id = form.get("id")
    return next((c for c in form.iterdescendants() if is_submit_control(c) and c.get("form") in (None, form_id)),
                None)


def _reach_once(model: Any, act: Any, page: str) -> Any:
    """`reach` as it was computed at each call, nothing kept between calls (links: left to `reach`, which
    computes them at each call still)."""
    scope = H.scope_of(model, act)
    form = H.submitting_form(model, act, scope) if scope is not None else None
    if scope is None or form is None:
        return "link"
    sub = _submitter(act, form)
    method = form_method(form, sub)
    if method == "dialog":
        return 'its form has method="dialog", which sends nothing to the site'
    action = form_action(model, form, sub, page)
    if action is None:
        return "the template writes its form's action, which is only known on the live page"
    return Submission(scope, form, sub, method, action)


@settings(max_examples=100, deadline=None)
@given(_page(), st.lists(st.sampled_from(["index.html", "a/b.html", "shop/cart/x.html"]), min_size=1, max_size=4))
def test_reach_keeps_the_form_of_each_action_and_answers_each_page_as_before(text: str, pages: list[str]) -> None:
    _pf, model = build_model_from(text)
    for page in pages:
        for act in model.actions:
            got = reach(model, act, page)
            want = _reach_once(model, act, page)
            scope = H.scope_of(model, act)
            assert form_of(model, act)[:2] == (scope, H.submitting_form(model, act, scope) if scope is not None
                                               else None)
            if want == "link":
                assert isinstance(got, (Link, str))
                assert not isinstance(got, Submission)
            else:
                assert got == want


def test_a_page_of_many_forms_locates_every_control_of_the_page() -> None:
    """The benchmark's page: a thousand forms in one body, each control on its own line after a label."""
    from tests.benchmarks.lsp_bench import big_page

    text = big_page(600)
    pf, model = build_model_from(text)
    inputs = list(pf.root.iter("input"))
    assert len(inputs) == 120 and len(model.actions) == 120
    for n, el in enumerate(inputs):
        located = pf.element_of(el)
        assert located.matched and text[located.start:located.end] == f'<input id="n{n}" name="name" required>'
    assert [H.document_order(model)(f) for f in pf.root.iter("form")] == [(0, n) for n in range(120)]  # in <body>
