"""Rate limit, cooldown, booleans, enums, parameter types, schema refs, placeholders (enumerations, value syntax, type and format values)."""

from __future__ import annotations

import pytest

from axag.model.forms import (
    canonical_rate,
    check_schema_ref,
    fix_boolean,
    fix_cooldown,
    fix_enum,
    fix_format,
    fix_parameter_type,
    fix_rate,
    parse_cooldown,
    parse_rate,
    placeholders,
)
from axag.vocabulary import RISK_LEVELS, SCOPES


@pytest.mark.parametrize(
    ("v", "expected"),
    [
        ("100/h", (100, "hour", 3600)), ("1/second", (1, "second", 1)), ("5/seconds", (5, "second", 1)),
        ("5/s", (5, "second", 1)), ("10/minute", (10, "minute", 60)), ("10/minutes", (10, "minute", 60)),
        ("10/m", (10, "minute", 60)), ("2/hour", (2, "hour", 3600)), ("2/hours", (2, "hour", 3600)),
        ("3/day", (3, "day", 86400)), ("3/days", (3, "day", 86400)), ("3/d", (3, "day", 86400)),
        ("0/s", None), ("01/s", None), ("10/Minute", None), (" 10/minute", None), ("10 / minute", None),
        ("10/min", None), ("10/week", None), ("10", None), ("/s", None), ("10/", None), ("-1/s", None),
    ],
)
def test_parse_rate(v: str, expected: tuple[int, str, int] | None) -> None:
    assert parse_rate(v) == expected


def test_canonical_rate() -> None:
    assert canonical_rate("100/h") == "100/hour"
    assert canonical_rate("5/seconds") == "5/second"
    assert canonical_rate("10/minute") == "10/minute"
    assert canonical_rate("10/min") is None


@pytest.mark.parametrize(
    ("v", "expected"),
    [
        ("10 per minute", "10/minute"), ("10 PER Minute", "10/minute"), (" 10/minute ", "10/minute"),
        ("10 / minute", "10/minute"), ("100/H", "100/h"), ("5/sec", "5/second"), ("5/secs", "5/second"),
        ("5/min", "5/minute"), ("5 / MINS", "5/minute"), ("5/hr", "5/hour"), ("5/hrs", "5/hour"),
        ("10 per\tday", "10/day"), ("10  per  days", "10/days"),
        ("10/minute", None), ("0/minute", None), ("10 per week", None), ("ten/minute", None),
        ("10perminute", None), ("10 minutes", None), ("", None), ("01/s", None),
    ],
)
def test_fix_rate(v: str, expected: str | None) -> None:
    assert fix_rate(v) == expected
    if expected is not None:
        assert parse_rate(expected) is not None


@pytest.mark.parametrize(
    ("v", "expected"),
    [
        ("5s", ("5s", 5000)), ("05s", ("5s", 5000)), ("250ms", ("250ms", 250)), ("2m", ("2m", 120000)),
        ("1h", ("1h", 3600000)), ("3d", ("3d", 259200000)), ("0010ms", ("10ms", 10)),
        ("0s", None), ("000m", None), ("5", None), ("s", None), ("5S", None), (" 5s", None), ("5 s", None),
        ("5sec", None), ("1.5s", None), ("-1s", None), ("5w", None),
    ],
)
def test_parse_cooldown(v: str, expected: tuple[str, int] | None) -> None:
    assert parse_cooldown(v) == expected


@pytest.mark.parametrize(
    ("v", "expected"),
    [
        ("5 s", "5s"), (" 5s ", "5s"), ("5S", "5s"), ("30 Seconds", "30s"), ("1 second", "1s"), ("2sec", "2s"),
        ("2 secs", "2s"), ("250 msec", "250ms"), ("250 MILLIS", "250ms"), ("250 milliseconds", "250ms"),
        ("1 min", "1m"), ("2 mins", "2m"), ("1 minute", "1m"), ("3 minutes", "3m"), ("1 hr", "1h"),
        ("2 hrs", "2h"), ("1 hour", "1h"), ("4 hours", "4h"), ("1 day", "1d"), ("7 days", "7d"),
        ("05 S", "5s"), ("5s", None), ("0 s", None), ("5 weeks", None), ("five s", None), ("", None),
        ("1.5 s", None),
    ],
)
def test_fix_cooldown(v: str, expected: str | None) -> None:
    assert fix_cooldown(v) == expected


@pytest.mark.parametrize(
    ("raw", "valueless", "expected"),
    [
        ("", True, "true"),
        ("", False, None),
        ("True", False, "true"), ("TRUE", False, "true"), (" true ", False, "true"), ("1", False, "true"),
        ("yes", False, "true"), ("Y", False, "true"), ("On", False, "true"),
        ("False", False, "false"), ("0", False, "false"), ("NO", False, "false"), ("n", False, "false"),
        ("off", False, "false"), ("\tfalse\n", False, "false"),
        ("true", False, None), ("false", False, None), ("maybe", False, None), ("2", False, None),
        ("t", False, None), ("  ", False, None),
    ],
)
def test_fix_boolean(raw: str, valueless: bool, expected: str | None) -> None:
    assert fix_boolean(raw, valueless) == expected


@pytest.mark.parametrize(
    ("raw", "allowed", "expected"),
    [
        ("High", RISK_LEVELS, "high"), (" high", RISK_LEVELS, "high"), ("CRITICAL ", RISK_LEVELS, "critical"),
        ("high", RISK_LEVELS, None), ("hgh", RISK_LEVELS, None), ("", RISK_LEVELS, None),
        ("Tenant", SCOPES, "tenant"), ("Hi gh", RISK_LEVELS, None),
    ],
)
def test_fix_enum(raw: str, allowed: tuple[str, ...], expected: str | None) -> None:
    assert fix_enum(raw, allowed) == expected


@pytest.mark.parametrize(
    ("v", "expected"),
    [
        ("date", ("string", "date")), ("datetime", ("string", "date-time")), ("date-time", ("string", "date-time")),
        ("enum", ("string", None)), ("int", ("integer", None)), ("float", ("number", None)),
        ("double", ("number", None)), ("bool", ("boolean", None)), ("str", ("string", None)),
        ("String", ("string", None)), ("INTEGER", ("integer", None)), (" number", ("number", None)),
        ("Date", ("string", "date")), ("string", None), ("text", None), ("", None), ("long", None),
    ],
)
def test_fix_parameter_type(v: str, expected: tuple[str, str | None] | None) -> None:
    assert fix_parameter_type(v) == expected


@pytest.mark.parametrize(
    ("v", "expected"),
    [
        ("Email", "email"), ("date_time", "date-time"), ("DATE_TIME", "date-time"), ("IPv4", "ipv4"),
        ("URL", "url"), ("email", None), ("phone", None), ("tel", None), ("e-mail", None),
    ],
)
def test_fix_format(v: str, expected: str | None) -> None:
    assert fix_format(v) == expected


@pytest.mark.parametrize(
    ("v", "ok"),
    [
        ("zod:src/schemas/user.ts", True), ("zod:src/schemas/user.ts#UserSchema", True), ("zod:./a.ts#$x", True),
        ("openapi:api.yaml#getUser", True), ("openapi:specs/api.yaml#get-user.v2", True),
        ("openapi:getUser", True), ("openapi:_op$1", True),
        ("zod:", False), ("zod:#X", False), ("zod:a.ts#", False), ("zod:a.ts#1x", False), ("zod:a b.ts", False),
        ("zod:/abs/a.ts", False), ("zod:C:/a.ts", False), ("zod:a.ts#X#Y", False),
        ("openapi:", False), ("openapi:api.yaml#", False), ("openapi:./api.yaml", False),
        ("openapi:/api.yaml#op", False), ("json:a.json", False), ("ZOD:a.ts", False), ("", False),
        (" zod:a.ts", False),
    ],
)
def test_check_schema_ref(v: str, ok: bool) -> None:
    assert check_schema_ref(v) is ok


@pytest.mark.parametrize(
    ("message", "found", "malformed"),
    [
        ("Delete {{name}}?", [("name", (7, 15))], []),
        ("Delete {{ name }} and {{  x_1  }}", [("name", (7, 17)), ("x_1", (22, 33))], []),
        ("{{ bad-name }} {{}} {{ 1x }} {{name", [], [1, 16, 21, 30]),
        ("{{{y}}", [("y", (1, 6))], [1]),
        ("no placeholders {x} }}", [], []),
        ("{{\tname}}", [], [1]),
        ("{{name }}{{b}}", [("name", (0, 9)), ("b", (9, 14))], []),
    ],
)
def test_placeholders(message: str, found: list[tuple[str, tuple[int, int]]], malformed: list[int]) -> None:
    assert placeholders(message) == (found, malformed)
