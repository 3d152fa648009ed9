"""The relational precondition grammar."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axag.model.relational import FORMS, Relation, looks_relational, parse_relation


def R(form: str, names: tuple[str, ...], template: str, op: str | None = None, *value: object) -> Relation:
    return Relation(form, names, value[0] if value else None, bool(value), op, template)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the examples of the relational grammar
        ("check_out is after check_in", R("greater_than", ("check_out", "check_in"), "R2", ">")),
        ("check_out must be after check_in", R("greater_than", ("check_out", "check_in"), "R2", ">")),
        ("guests <= 10", R("less_than_or_equal", ("guests",), "R1", "<=", 10)),
        ("coupon_code requires customer_id", R("requires", ("coupon_code", "customer_id"), "R6")),
        ("exactly one of email, phone or user_id", R("exactly_one_of", ("email", "phone", "user_id"), "R8")),
        ('vat_id is required when country is "DE"', R("required_when_equal", ("vat_id", "country"), "R10", None, "DE")),
        # R1: every operator, must / must be, names and values as operands
        ("a > b", R("greater_than", ("a", "b"), "R1", ">")),
        ("a >= 1.5", R("greater_than_or_equal", ("a",), "R1", ">=", 1.5)),
        ("a < -2", R("less_than", ("a",), "R1", "<", -2)),
        ("a <= 1e3", R("less_than_or_equal", ("a",), "R1", "<=", 1000.0)),
        ("a == 'x y'", R("equal", ("a",), "R1", "==", "x y")),
        ("a != true", R("not_equal", ("a",), "R1", "!=", True)),
        ("a == FALSE", R("equal", ("a",), "R1", "==", False)),
        ("a must > b", R("greater_than", ("a", "b"), "R1", ">")),
        ("a must be >= b", R("greater_than_or_equal", ("a", "b"), "R1", ">=")),
        ("a MUST BE < 0", R("less_than", ("a",), "R1", "<", 0)),
        ("a>b", R("greater_than", ("a", "b"), "R1", ">")),
        ("a>=-1", R("greater_than_or_equal", ("a",), "R1", ">=", -1)),
        ('a=="x"', R("equal", ("a",), "R1", "==", "x")),
        ("a == \"it's\"", R("equal", ("a",), "R1", "==", "it's")),
        ("a == ''", R("equal", ("a",), "R1", "==", "")),
        ("n > 123456789012345678901234567890", R("greater_than", ("n",), "R1", ">", 123456789012345678901234567890)),
        ("guests <= 10.", R("less_than_or_equal", ("guests",), "R1", "<=", 10)),
        ("  guests \n <=\t10  ", R("less_than_or_equal", ("guests",), "R1", "<=", 10)),
        ("guests <= 1.5.", R("less_than_or_equal", ("guests",), "R1", "<=", 1.5)),
        # R2-R5
        ("end is before start", R("less_than", ("end", "start"), "R3", "<")),
        ("end must be before 5", R("less_than", ("end",), "R3", "<", 5)),
        ('d is on or after "2024-01-01"', R("greater_than_or_equal", ("d",), "R4", ">=", "2024-01-01")),
        ("d must be on or after e", R("greater_than_or_equal", ("d", "e"), "R4", ">=")),
        ("d Is On Or Before e", R("less_than_or_equal", ("d", "e"), "R5", "<=")),
        ("d must be on or before e", R("less_than_or_equal", ("d", "e"), "R5", "<=")),
        # R6, R7
        ("A Requires B", R("requires", ("A", "B"), "R6")),
        ("a and b are mutually exclusive", R("mutually_exclusive", ("a", "b"), "R7")),
        ("a AND b ARE Mutually Exclusive.", R("mutually_exclusive", ("a", "b"), "R7")),
        # R8, R9 and every LIST separator
        ("exactly one of a or b", R("exactly_one_of", ("a", "b"), "R8")),
        ("exactly one of a,b", R("exactly_one_of", ("a", "b"), "R8")),
        ("Exactly One Of a, b, and c", R("exactly_one_of", ("a", "b", "c"), "R8")),
        ("at least one of a and b", R("at_least_one_of", ("a", "b"), "R9")),
        ("at least one of a, b, or c, d", R("at_least_one_of", ("a", "b", "c", "d"), "R9")),
        ("at least one of a, a", R("at_least_one_of", ("a", "a"), "R9")),
        # R10, R11
        ("a is required when b is 3", R("required_when_equal", ("a", "b"), "R10", None, 3)),
        ("a is required when b is true", R("required_when_equal", ("a", "b"), "R10", None, True)),
        ("a is required when b is 'x'", R("required_when_equal", ("a", "b"), "R10", None, "x")),
        ("a is required when b is given", R("required_when_present", ("a", "b"), "R11")),
        ("a IS REQUIRED WHEN b IS GIVEN", R("required_when_present", ("a", "b"), "R11")),
        # R12
        ("a differs from b", R("not_equal", ("a", "b"), "R12", "!=")),
        ("a must differ from b", R("not_equal", ("a", "b"), "R12", "!=")),
        # names are case-sensitive and may look like keywords
        ("Guests <= 10", R("less_than_or_equal", ("Guests",), "R1", "<=", 10)),
        ("must > 1", R("greater_than", ("must",), "R1", ">", 1)),
        ("_x1 requires y_2", R("requires", ("_x1", "y_2"), "R6")),
    ],
)
def test_matches(text: str, expected: Relation) -> None:
    assert parse_relation(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "", ".", "room_available", "user is authenticated", "balance is positive",
        "a = 1", "a === 1", "a <> 1", "a => 1", "a is > 1", "a must be be > 1", "a be > 1",
        "a > 01", "a > .5", "a > 1e999", "a > +1", "a > 1x", "a > b c", "a >", "> 1",
        "true > 1", "a > 'x", "a > \"x'", "a > 'x\"y'z'",
        "a is after", "a is on after b", "a after b", "a must after b", "a is after b c",
        "a requires", "a requires b c", "a requires true", "true requires a",
        "a and b are exclusive", "a, b are mutually exclusive", "a and true are mutually exclusive",
        "exactly one of a", "exactly one of a b", "exactly one of a,", "exactly one of a, true",
        "exactly one of", "one of a or b", "at least one a or b", "exactly one of a or or b",
        "a is required when b", "a is required when b is c", "a is required when b is", "a is required if b is 1",
        "a differs b", "a differ from b", "a must differs from b", "a differs from 1",
        "guests <= 10..", "a > 1 .. ", "a>b>c", "a ≥ 1",
    ],
)
def test_no_match(text: str) -> None:
    assert parse_relation(text) is None


def test_forms_are_the_spec_names() -> None:
    assert set(FORMS) == {
        "greater_than", "greater_than_or_equal", "less_than", "less_than_or_equal", "equal", "not_equal",
        "requires", "mutually_exclusive", "exactly_one_of", "at_least_one_of", "required_when_equal",
        "required_when_present",
    }


@pytest.mark.parametrize(
    ("text", "params", "expected"),
    [
        ("guests should be at most 10 or before x", {"guests"}, True),
        ("guests < ten people", {"guests"}, True),
        ("guests = 10", {"guests"}, True),
        ("check_out comes after check_in", {"check_out"}, True),
        ("coupon_code Requires a customer", {"coupon_code"}, True),
        ("email and phone are exclusive", {"email"}, True),
        ("give one of email or phone", {"phone"}, True),
        ("vat_id is Required When shipping abroad", {"vat_id"}, True),
        ("a should differ from b", {"a"}, True),
        ("a differs to b", {"a"}, True),
        ("x.guests != 3", {"guests"}, True),
        # every item outside the grammar that names a parameter, keyword or not
        ("guests must be less than 10", {"guests"}, True),
        ("the afternoon slot is free for guests", {"guests"}, True),
        ("user is authenticated", {"user"}, True),
        ("nights at least 1", {"nights"}, True),
        # no parameter named as a whole word
        ("guestsafter 10", {"guests"}, False),
        ("my_guests < 10", {"guests"}, False),
        ("user is authenticated", {"nights"}, False),
        ("balance > 0", set(), False),
        ("balance > 0", {"guests"}, False),
        # items in the grammar are not "looks relational"
        ("guests <= 10", {"guests"}, False),
        ("check_out is after check_in", {"check_out"}, False),
    ],
)
def test_looks_relational(text: str, params: set[str], expected: bool) -> None:
    assert looks_relational(text, params) is expected


_word = st.sampled_from(["a", "b", "c", "is", "must", "be", "after", "on", "or", "and", "of", "one", "exactly",
                         "requires", "given", "when", "required", "1", "-2.5", "'x'", '"y"', "true", ">", ">=",
                         "==", ",", ".", "differs", "from"])


@settings(max_examples=500, deadline=None)
@given(st.lists(_word, max_size=8), st.sampled_from([" ", ""]))
def test_never_crashes(words: list[str], sep: str) -> None:
    r = parse_relation(sep.join(words) or " ")
    if r is not None:
        assert r.form in FORMS
        assert r.template in {f"R{i}" for i in range(1, 13)}
        assert r.has_value == (r.value is not None)
        assert all(n.lower() not in ("true", "false") for n in r.names)
