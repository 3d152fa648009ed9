"""`compile.http.form_members` with the one-pass `member_index` (a 5,000-line page of 1,000 forms: one
walk of the document per form made the language server's lint quadratic) gives exactly what the walk per form
gave, for any arrangement of forms, `form=` owners, ids and named controls."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html as lxml_html

from axag.compile.http import form_members, member_index


def _walk_per_form(form: Any) -> list[Any]:
    """The definition: every named element of the document, in order, that is the form's descendant without a
    `form=` attribute, or whose `form=` is the form's id."""
    form_id = form.get("id")
    out = []
    for el in form.getroottree().iter():
        if not isinstance(el.tag, str) or el.get("name") is None:
            continue
        owner = el.get("form")
        if owner is not None:
            if form_id is not None and owner == form_id:
                out.append(el)
            continue
        if next(el.iterancestors("form"), None) is form:
            out.append(el)
    return out


_IDS = st.sampled_from([None, "f1", "f2", "f3"])


@st.composite
def _controls(draw: Any, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["input", "div", "form", "select"] if depth < 2 else ["input", "select"]))
        name = draw(st.sampled_from([None, "a", "b"]))
        owner = draw(_IDS)
        attrs = (f' name="{name}"' if name else "") + (f' form="{owner}"' if owner else "")
        if kind == "form":
            ident = draw(_IDS)
            attrs += f' id="{ident}"' if ident else ""
        if kind in ("div", "form"):
            parts.append(f"<{kind}{attrs}>{draw(_controls(depth + 1))}</{kind}>")
        elif kind == "select":
            parts.append(f"<select{attrs}><option>x</option></select>")
        else:
            parts.append(f"<input{attrs}>")
    return "".join(parts)


@settings(max_examples=300, deadline=None)
@given(_controls())
def test_the_index_gives_what_the_walk_per_form_gives(body: str) -> None:
    root = lxml_html.document_fromstring(f"<html><body>{body}<form id='f1'><input name='z'></form></body></html>")
    index = member_index(root.getroottree())
    for form in root.iter("form"):
        want = _walk_per_form(form)
        assert form_members(form, index) == want
        assert form_members(form) == want
