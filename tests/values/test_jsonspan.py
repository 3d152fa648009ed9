"""Strict JSON with spans (JSON values, finding positions)."""

from __future__ import annotations

import contextlib
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axag.values.jsonspan import MAX_DEPTH, JsonError, parse


def test_value_and_spans() -> None:
    text = ' {"a": [1, 2.5, {"b": null}], "c": "x\\u00e9"} '
    doc = parse(text)
    assert doc.value == {"a": [1, 2.5, {"b": None}], "c": "xé"}
    assert doc.span(()) == (1, len(text) - 1)
    assert text[slice(*doc.span(("a",)))] == '[1, 2.5, {"b": null}]'
    assert text[slice(*doc.span(("a", 0)))] == "1"
    assert text[slice(*doc.span(("a", 1)))] == "2.5"
    assert text[slice(*doc.span(("a", 2, "b")))] == "null"
    assert text[slice(*doc.key_span(("a", 2, "b")))] == '"b"'
    assert text[slice(*doc.key_span(("c",)))] == '"c"'
    assert text[slice(*doc.span(("c",)))] == '"x\\u00e9"'
    assert doc.has(("a", 2)) and not doc.has(("a", 3)) and not doc.has(("a", "x"))


@pytest.mark.parametrize("path", [("x",), ("a", 5), ("a", "0"), (0,), ("a", True)])
def test_bad_paths(path: tuple[str | int, ...]) -> None:
    doc = parse('{"a": [1]}')
    with pytest.raises(KeyError):
        doc.span(path)


def test_key_span_needs_key() -> None:
    doc = parse('{"a": [1]}')
    with pytest.raises(KeyError):
        doc.key_span(("a", 0))
    with pytest.raises(KeyError):
        doc.key_span(())


def test_spans_are_code_points() -> None:
    text = '["😀é", "x"]'
    doc = parse(text)
    assert doc.span((1,)) == (7, 10)
    assert doc.value == ["😀é", "x"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0), ("-0", 0), ("12", 12), ("-12", -12), ("1.5", 1.5), ("1e3", 1000.0), ("1E-2", 0.01),
        ("-0.0", -0.0), ("1e-400", 0.0), ("true", True), ("false", False), ("null", None),
        ('"a\\"\\\\\\/\\b\\f\\n\\r\\t"', 'a"\\/\b\f\n\r\t'), ('"\\ud83d\\ude00"', "😀"), ('"\\ud800"', "\ud800"),
        ("[]", []), ("{}", {}), (" [ ] ", []), ("\t\r\n{\"a\" : { } }\n", {"a": {}}),
        ("123456789012345678901234567890", 123456789012345678901234567890),
    ],
)
def test_values(text: str, value: object) -> None:
    got = parse(text).value
    assert got == value and type(got) is type(value)


def test_huge_integer_is_exact() -> None:
    digits = "7" * 10000
    expected = 7 * (10**10000 - 1) // 9
    assert parse(digits).value == expected
    assert parse("-" + digits).value == -expected


@pytest.mark.parametrize(
    ("text", "message", "offset"),
    [
        ("", "unexpected end of input", 0),
        ("   ", "unexpected end of input", 3),
        ("[1,]", "trailing comma", 2),
        ('{"a":1,}', "trailing comma", 6),
        ('{"min": 1, "min": 2}', 'repeated key "min"', 11),
        ('{"a": 1, "\\u0061": 2}', 'repeated key "a"', 9),
        ("01", "leading zeros are not allowed", 0),
        ("[-01]", "leading zeros are not allowed", 1),
        ("1.", "invalid number", 0),
        (".5", "invalid number", 0),
        ("-", "invalid number", 0),
        ("+1", "invalid number", 0),
        ("1e", "invalid number", 0),
        ("[1 2]", "expected ',' or ']'", 3),
        ('{"a":1 "b":2}', "expected ',' or '}'", 7),
        ("[1", "unexpected end of input", 2),
        ('{"a"', "unexpected end of input", 4),
        ('{"a" 1}', "expected ':'", 5),
        ("{a:1}", "expected a string key", 1),
        ("NaN", "NaN is not allowed", 0),
        ("[Infinity]", "Infinity is not allowed", 1),
        ("-Infinity", "Infinity is not allowed", 0),
        ("1e999", "number out of range", 0),
        ("[-1e400]", "number out of range", 1),
        ("'a'", "strings must use double quotes", 0),
        ("{'a': 1}", "strings must use double quotes", 1),
        ("[1] // c", "unexpected text after the value", 4),
        ("// c\n1", "comments are not allowed", 0),
        ("[/* c */ 1]", "comments are not allowed", 1),
        ('"a\tb"', "control character in string", 2),
        ('"a\x00"', "control character in string", 2),
        ('"\\x"', "invalid escape in string", 1),
        ('"\\u12"', "invalid \\u escape in string", 1),
        ('"abc', "unterminated string", 0),
        ('"abc\\', "unterminated string", 0),
        ("tru", "expected a value", 0),
        ("nul", "expected a value", 0),
        ("True", "expected a value", 0),
        ("[1]x", "unexpected text after the value", 3),
        ("1 2", "unexpected text after the value", 2),
        ("\u00a01", "expected a value", 0),
        ("[,1]", "expected a value", 1),
    ],
)
def test_errors(text: str, message: str, offset: int) -> None:
    with pytest.raises(JsonError) as info:
        parse(text)
    assert (info.value.message, info.value.offset) == (message, offset)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert parse(ok).span((0,) * (MAX_DEPTH - 1)) == (MAX_DEPTH - 1, MAX_DEPTH + 1)
    for text in ("[" * 100000, '{"a":' * 100000, "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)):
        with pytest.raises(JsonError) as info:
            parse(text)
        assert info.value.message == "nesting too deep"
        assert info.value.offset == MAX_DEPTH * (5 if text.startswith("{") else 1)


def test_long_input_is_linear() -> None:
    text = "[" + ",".join(['{"k": "v\\n", "n": 1.5}'] * 50000) + "]"
    doc = parse(text)
    assert len(doc.value) == 50000  # type: ignore[arg-type]


def _no_dup_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("dup")
    return dict(pairs)


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=5), children, max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_json, st.sampled_from([None, 2]), st.booleans())
def test_agrees_with_json_loads(value: object, indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    doc = parse(text)
    assert _same(doc.value, json.loads(text))
    assert doc.span(()) == (0, len(text))


def _walk(value: object, path: tuple[str | int, ...]) -> list[tuple[tuple[str | int, ...], object]]:
    out: list[tuple[tuple[str | int, ...], object]] = [(path, value)]
    if isinstance(value, list):
        for i, v in enumerate(value):
            out += _walk(v, (*path, i))
    elif isinstance(value, dict):
        for k, v in value.items():
            out += _walk(v, (*path, k))
    return out


@settings(max_examples=200, deadline=None)
@given(_json)
def test_every_span_reparses_to_its_value(value: object) -> None:
    text = json.dumps(value, indent=1, ensure_ascii=False)
    doc = parse(text)
    for path, sub in _walk(doc.value, ()):
        assert _same(parse(text[slice(*doc.span(path))]).value, sub)
        if path and isinstance(path[-1], str):
            assert json.loads(text[slice(*doc.key_span(path))]) == path[-1]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from('[]{}",:0123456789-+.eE tfnrulasNI\\/\'\x01é'), max_size=40))
def test_random_text_only_raises_json_error(text: str) -> None:
    try:
        value = parse(text).value
    except JsonError as e:
        assert 0 <= e.offset <= len(text)
        return
    try:
        expected = json.loads(text, object_pairs_hook=_no_dup_keys)
    except ValueError:
        pytest.fail(f"accepted {text!r}")
    assert _same(value, expected)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_arbitrary_text(text: str) -> None:
    with contextlib.suppress(JsonError):
        parse(text)
