"""Small value forms and their autofixes (enumerations, booleans, rate limit and cooldown, other value forms, type and format values).

Parsers return ``None`` for an invalid value. ``fix_*`` functions return the replacement for an invalid value,
or ``None`` when there is no fix (or the value is already valid, so there is nothing to fix).
"""

from __future__ import annotations

import re
from typing import Final

from axag.vocabulary import (
    COOLDOWN_MS,
    COOLDOWN_RE,
    FORMATS,
    PARAMETER_TYPES,
    PERIOD_SECONDS,
    PLACEHOLDER_RE,
    RATE_PERIODS,
    RATE_RE,
    collapse_ws,
)

__all__ = [
    "Placeholder",
    "canonical_rate",
    "check_schema_ref",
    "fix_boolean",
    "fix_cooldown",
    "fix_enum",
    "fix_format",
    "fix_parameter_type",
    "fix_rate",
    "parse_cooldown",
    "parse_rate",
    "placeholders",
]

_ASCII_WS: Final = " \t\n\r\f"
_WS_RUN: Final = re.compile(r"[ \t\n\r\f]+")


# ---------------------------------------------------------------- rate limit and cooldown rate limit
def parse_rate(v: str) -> tuple[int, str, int] | None:
    """``"100/h"`` -> ``(100, "hour", 3600)``: count, singular long period, window seconds."""
    m = RATE_RE.fullmatch(v)
    if m is None or m.group("period") not in RATE_PERIODS:
        return None
    period = RATE_PERIODS[m.group("period")]
    return int(m.group("count")), period, PERIOD_SECONDS[period]


def canonical_rate(v: str) -> str | None:
    """``"100/h"`` -> ``"100/hour"``; None when invalid."""
    parsed = parse_rate(v)
    return None if parsed is None else f"{parsed[0]}/{parsed[1]}"


_RATE_FIX_RE: Final = re.compile(r"([0-9]+) ?(?:/|per(?= )) ?([a-z]+)")
_RATE_WORDS: Final = {"sec": "second", "secs": "second", "min": "minute", "mins": "minute", "hr": "hour",
                      "hrs": "hour"}


def fix_rate(v: str) -> str | None:
    """Spaces, upper case, ``sec``/``min``/``hr`` (+``s``) and ``per``: ``"10 per Minute"`` -> ``"10/minute"``."""
    if parse_rate(v) is not None:
        return None
    s = _WS_RUN.sub(" ", v.lower()).strip(" ")
    m = _RATE_FIX_RE.fullmatch(s)
    if m is None:
        return None
    count, period = m.groups()
    period = _RATE_WORDS.get(period, period)
    fixed = f"{count}/{period}"
    return fixed if parse_rate(fixed) is not None else None


# ---------------------------------------------------------------- rate limit and cooldown
def parse_cooldown(v: str) -> tuple[str, int] | None:
    """``"05s"`` -> ``("5s", 5000)``: canonical form and milliseconds; None when invalid (n must be >= 1)."""
    m = COOLDOWN_RE.fullmatch(v)
    if m is None:
        return None
    n = int(m.group("n"))
    if n < 1:
        return None
    unit = m.group("unit")
    return f"{n}{unit}", n * COOLDOWN_MS[unit]


_COOLDOWN_WORDS: Final = {
    "ms": "ms", "msec": "ms", "millis": "ms", "milliseconds": "ms",
    "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
    "m": "m", "min": "m", "mins": "m", "minute": "m", "minutes": "m",
    "h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h",
    "d": "d", "day": "d", "days": "d",
}
_COOLDOWN_FIX_RE: Final = re.compile(r"([0-9]+) ?([a-z]+)")


def fix_cooldown(v: str) -> str | None:
    """Spaces, upper case and unit words: ``"30 Seconds"`` -> ``"30s"``."""
    if parse_cooldown(v) is not None:
        return None
    s = _WS_RUN.sub(" ", v.lower()).strip(" ")
    m = _COOLDOWN_FIX_RE.fullmatch(s)
    if m is None or m.group(2) not in _COOLDOWN_WORDS:
        return None
    n = int(m.group(1))
    if n < 1:
        return None
    return f"{n}{_COOLDOWN_WORDS[m.group(2)]}"


# ---------------------------------------------------------------- booleans
_TRUE_WORDS: Final = ("true", "1", "yes", "y", "on")
_FALSE_WORDS: Final = ("false", "0", "no", "n", "off")


def fix_boolean(raw: str, valueless: bool) -> str | None:
    """booleans mapping: valueless -> ``true``; ``True``/``1``/``yes``/``y``/``on`` -> ``true``; the false words ->
    ``false`` (any case, after trimming); an explicit ``""`` or anything else -> no fix."""
    if valueless:
        return "true"
    if raw in ("true", "false"):
        return None
    t = raw.strip(_ASCII_WS).lower()
    if t in _TRUE_WORDS:
        return "true"
    if t in _FALSE_WORDS:
        return "false"
    return None


# ---------------------------------------------------------------- enumerations enums
def fix_enum(raw: str, allowed: tuple[str, ...] | list[str]) -> str | None:
    """Trim and lower-case; a fix only when that gives an allowed value (and differs from ``raw``)."""
    fixed = raw.strip(_ASCII_WS).lower()
    return fixed if fixed in allowed and fixed != raw else None


# ---------------------------------------------------------------- type and format values parameter type and format
_TYPE_FIXES: Final[dict[str, tuple[str, str | None]]] = {
    "date": ("string", "date"),
    "datetime": ("string", "date-time"),
    "date-time": ("string", "date-time"),
    "enum": ("string", None),
    "int": ("integer", None),
    "float": ("number", None),
    "double": ("number", None),
    "bool": ("boolean", None),
    "str": ("string", None),
}


def fix_parameter_type(v: str) -> tuple[str, str | None] | None:
    """``"date"`` -> ``("string", "date")``, ``"int"`` -> ``("integer", None)``, ``"String"`` ->
    ``("string", None)``; None when valid already or not fixable."""
    if v in PARAMETER_TYPES:
        return None
    t = v.strip(_ASCII_WS).lower()
    if t in PARAMETER_TYPES:
        return t, None
    return _TYPE_FIXES.get(t)


def fix_format(v: str) -> str | None:
    """Lower-case, trim and ``_`` -> ``-`` when that gives a valid format (``"Date_Time"`` -> ``"date-time"``)."""
    if v in FORMATS:
        return None
    f = v.strip(_ASCII_WS).lower().replace("_", "-")
    return f if f in FORMATS else None


_LIST_NAME: Final = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]*")


def plain_string_list(raw: str, *, names: bool) -> list[str] | None:
    """A JSON string-array attribute written as plain text, read as the array it means, or None when that is
    not certain. ``names`` (role and side-effect lists): comma-separated names, ``admin, owner`` ->
    ``["admin", "owner"]``; other lists (pre/postconditions, sentences that may hold commas): one item, only when
    the text holds no comma and does not look like broken JSON."""
    text = collapse_ws(raw)
    if not text or text[0] in "[{\"'" or any(c in text for c in '"[]{}'):
        return None
    if names:
        items = [part.strip(" ") for part in text.split(",")]
        return items if all(_LIST_NAME.fullmatch(i) for i in items) else None
    return None if "," in text else [text]


# ---------------------------------------------------------------- other value forms other forms
_REF_ID: Final = r"[A-Za-z_$][A-Za-z0-9_$.-]*"
_REF_PATH: Final = r"(?![/\\])(?![A-Za-z]:)[^\s#]+"
_SCHEMA_REF_RE: Final = re.compile(
    rf"zod:{_REF_PATH}(?:#{_REF_ID})?|openapi:{_REF_PATH}#{_REF_ID}|openapi:{_REF_ID}"
)


def check_schema_ref(v: str) -> bool:
    """``zod:PATH[#EXPORT]``, ``openapi:PATH#OPERATION_ID`` or ``openapi:OPERATION_ID`` (PATH relative: not
    starting with ``/``, ``\\`` or a drive letter; no whitespace or ``#``)."""
    return _SCHEMA_REF_RE.fullmatch(v) is not None


Placeholder = tuple[str, tuple[int, int]]


def placeholders(message: str) -> tuple[list[Placeholder], list[int]]:
    """Well-formed ``{{ NAME }}`` placeholders as ``(name, (start, end))`` (the span covers the braces), and the
    1-based columns of every ``{{`` that does not start a well-formed placeholder."""
    found: list[Placeholder] = []
    malformed: list[int] = []
    i = message.find("{{")
    while i >= 0:
        m = PLACEHOLDER_RE.match(message, i)
        if m is not None:
            found.append((m.group(1), (i, m.end())))
            i = message.find("{{", m.end())
        else:
            malformed.append(i + 1)
            i = message.find("{{", i + 1)
    return found, malformed
