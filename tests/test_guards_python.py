"""Python guards: naming, literals, generated modules, envelopes (SPEC §10)."""

from __future__ import annotations

import ast

import pytest

from axag.guards import naming


def test_stub_names_basic_and_reserved() -> None:
    names = naming.stub_names(["room_available", "User is authenticated!", "import", "pass", "delete", "new",
                               "", "3 rooms", "eval", "arguments", "x" * 50])
    assert names == {
        "room_available": "room_available",
        "User is authenticated!": "user_is_authenticated",
        "import": "pre_import",
        "pass": "pre_pass",
        "delete": "pre_delete",
        "new": "pre_new",
        "": "pre_",
        "3 rooms": "pre_3_rooms",
        "eval": "pre_eval",
        "arguments": "pre_arguments",
        "x" * 50: "x" * 40,
    }


def test_stub_name_collisions_get_sha_suffix() -> None:
    names = naming.stub_names(["a b", "a-b", "c"])
    assert names == {"a b": "a_b_c8687a08", "a-b": "a_b_d44362d6", "c": "c"}


def test_guard_identifier() -> None:
    assert naming.guard_identifier("booking-create") == "guard_booking_create"
    with pytest.raises(naming.GuardSpecError):
        naming.guard_identifier("a.b")


@pytest.mark.parametrize(
    "value",
    ["", 'q"uote', "back\\slash", '"""', "*/", "${x}", "{{y}}", "line\nbreak", "\u2028", "\x00", "\U0001f600",
     "\ud800", 0, -0.0, 10.0, 1.5, 1e20, 2**80, -(2**60), True, False, None, [1, "a", [None]],
     {"__proto__": {"a": [1.25]}}],
)
def test_py_literal_round_trip(value: object) -> None:
    text = naming.py_literal(value)
    assert text.isascii() and "\n" not in text
    assert ast.literal_eval(text) == value


def test_py_literal_exact() -> None:
    assert naming.py_literal("a\"\\\x00\xe9\u2028\U0001f600") == '"a\\"\\\\\\x00\\xe9\\u2028\\U0001f600"'
    assert naming.py_literal(10.0) == "10"
    assert naming.py_literal(1e20) == "1e+20"
    assert naming.py_literal({"a": [1, 2.5]}) == '{"a": [1, 2.5]}'
