"""determinism and serialisation and canonical numbers: axag.compile.serialize."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from axag.compile.serialize import canonical_number, dumps, dumps_canonical, dumps_compact, normalise


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (10.0, "10"),
        (10, "10"),
        (-3.0, "-3"),
        (0.0, "0"),
        (-0.0, "0"),
        (0.1, "0.1"),
        (1.5, "1.5"),
        (-2.5e-7, "-2.5e-07"),
        (1e300, "1e+300"),
        (1e16, "1e+16"),
        (float(2**53), "9007199254740992.0"),
        (float(2**53 - 1), "9007199254740991"),
        (-float(2**53 - 1), "-9007199254740991"),
        (2**60, "1152921504606846976"),
        (-(2**70), "-1180591620717411303424"),
        (2.0**60, "1.152921504606847e+18"),
    ],
)
def test_canonical_number(value: float, text: str) -> None:
    assert canonical_number(value) == text
    assert dumps_compact(value) == text
    assert dumps(value) == text + "\n"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_rejected(bad: float) -> None:
    with pytest.raises(ValueError):
        canonical_number(bad)
    with pytest.raises(ValueError):
        dumps({"x": bad})
    with pytest.raises(ValueError):
        dumps_compact([bad])


def test_booleans_are_not_numbers() -> None:
    with pytest.raises(TypeError):
        canonical_number(True)
    assert dumps_compact([True, False, None, 1]) == "[true,false,null,1]"


def test_document_layout() -> None:
    doc = {"b": 1, "a": {"z": [], "y": {}, "x": [1.0, "é→\u2028"]}, "c": [{"k": None}]}
    assert dumps(doc) == (
        "{\n"
        '  "b": 1,\n'
        '  "a": {\n'
        '    "z": [],\n'
        '    "y": {},\n'
        '    "x": [\n'
        "      1,\n"
        '      "é→\u2028"\n'
        "    ]\n"
        "  },\n"
        '  "c": [\n'
        "    {\n"
        '      "k": null\n'
        "    }\n"
        "  ]\n"
        "}\n"
    )


def test_control_characters_are_escaped_and_non_ascii_kept() -> None:
    s = 'tab\there "q" back\\ nl\n nul\x00 esc\x1b del\x7f ü 日本 😀'
    assert dumps_compact(s) == r'"tab\there \"q\" back\\ nl\n nul\u0000 esc\u001b del' + '\x7f ü 日本 😀"'
    assert dumps({"k": s}).encode("utf-8").count(b"\n") == 3
    assert json.loads(dumps({"k": s})) == {"k": s}


def test_compact_form() -> None:
    assert dumps_compact({"a": [1, 2.50, {"b": "ß"}], "c": 1e-5}) == '{"a":[1,2.5,{"b":"ß"}],"c":1e-05}'


def test_insertion_order_is_kept_and_tuples_are_arrays() -> None:
    assert dumps_compact({"z": 1, "a": (2, 3)}) == '{"z":1,"a":[2,3]}'


def test_non_json_data_is_rejected() -> None:
    with pytest.raises(TypeError):
        dumps({1: "x"})
    with pytest.raises(TypeError):
        dumps({"x": {1, 2}})


def test_normalise_copies() -> None:
    src = {"a": [1.0, {"b": 2.5}]}
    out = normalise(src)
    assert out == {"a": [1, {"b": 2.5}]}
    assert isinstance(out["a"][0], int)
    assert src["a"][0] == 1.0 and isinstance(src["a"][0], float)


def test_single_trailing_newline_and_deterministic() -> None:
    doc = {"x": [0.1, 2**60, 10.0]}
    assert dumps(doc) == dumps(doc)
    assert dumps(doc).endswith("]\n}\n")
    assert not dumps(doc).endswith("\n\n")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_round_trip(value: object) -> None:
    text = dumps(value)
    assert json.loads(text) == value
    assert json.loads(dumps_compact(value)) == value
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert dumps(json.loads(text)) == text  # stable


def test_canonical_form() -> None:
    value = {"b": [1.0, {"z": 1, "a": "é😀"}], "a": None, "B": 0.5}
    assert dumps_canonical(value) == '{"B":0.5,"a":null,"b":[1,{"a":"\\u00e9\\ud83d\\ude00","z":1}]}'
    assert dumps_canonical({"x": 10.0}) == dumps_canonical({"x": 10})


def test_lone_surrogates_are_escaped() -> None:
    assert dumps_compact("a\ud800b\udfff") == '"a\\ud800b\\udfff"'
    text = dumps({"k\udc00": "😀"})
    assert text == '{\n  "k\\udc00": "😀"\n}\n'
    assert json.loads(text) == {"k\udc00": "😀"}
    text.encode("utf-8")
