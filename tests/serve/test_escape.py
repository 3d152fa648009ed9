"""Approver-facing text, as a property: whatever a caller writes, what axag shows an approver holds no control, bidi
or separator character, and the JSON form still decodes to the exact text."""

from __future__ import annotations

import json
import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from axag.serve.escape import shown, shown_json

UNSAFE = ("Cc", "Cf", "Zl", "Zp")
texts = st.text(st.characters(codec="utf-8"), max_size=60) | st.text(
    st.sampled_from("a \x00\x1b\x07\r\n\x7f\x85\x9b\u061c\u200b\u200e\u202a\u202e\u2028\u2066\u2069\ufeff"
                    "\U000e0001\U0001f600é"), max_size=40)


def clean(text: str) -> bool:
    return not any(unicodedata.category(c) in UNSAFE for c in text)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_shown_text_is_clean_and_keeps_the_rest(text: str) -> None:
    out = shown(text)
    assert clean(out)
    if "\\" not in text:  # each unsafe character became one escape; the rest is as it was, in order
        assert re.sub(r"\\x[0-9a-f]{2}|\\u[0-9a-f]{4}|\\U[0-9a-f]{8}", "", out) == "".join(
            c for c in text if unicodedata.category(c) not in UNSAFE)
    if clean(text):
        assert out == text


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(texts, texts | st.lists(texts, max_size=3), max_size=4), st.sampled_from([None, 2]))
def test_shown_json_is_clean_and_decodes_exactly(value: dict[str, object], indent: int | None) -> None:
    out = shown_json(value, indent=indent)
    assert clean(out.replace("\n", "")) if indent else clean(out)
    assert json.loads(out) == value


def test_escapes_are_the_usual_ones() -> None:
    assert shown("a\x1b[2Kb\u202ec\U000e0001") == "a\\x1b[2Kb\\u202ec\\U000e0001"
    assert shown_json({"r": "\x1b\u202e\U000e0001"}) == '{"r": "\\u001b\\u202e\\udb40\\udc01"}'
