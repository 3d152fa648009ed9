"""Runtime of axag-generated Python guards (AXAG SPEC §10).

This file is copied verbatim into generated guard packages as ``_runtime.py``. It needs Python >= 3.10 and the
standard library only. It holds the result envelope, the guard context, stores, the value validator (§10.4,
§10.5), relational checks (§10.6, §7.4), confirmation and approval (§10.8), rate limit and cooldown (§10.9) and
the ``ToolGuard`` class that runs the gates in the order of §10.3.
"""

from __future__ import annotations

import dataclasses
import hashlib
import ipaddress
import itertools
import json
import math
import re
import threading
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from fractions import Fraction
from typing import Any, Protocol

__all__ = [
    "Approval",
    "ApprovalTicket",
    "Confirmation",
    "GuardContext",
    "GuardResult",
    "GuardStore",
    "InMemoryStore",
    "ToolGuard",
    "Violation",
    "check_format",
    "fingerprint",
    "validate_value",
]


# ---------------------------------------------------------------------------------------------- envelope
@dataclasses.dataclass(frozen=True)
class Violation:
    """One broken rule: ``field`` is a path (``""`` root, ``a``, ``a[2]``, ``a.b``) or None."""

    field: str | None
    constraint: str
    expected: object
    actual: object
    message: str

    def to_dict(self) -> dict[str, object]:
        return {
            "field": self.field,
            "constraint": self.constraint,
            "expected": _copy(self.expected),
            "actual": _copy(self.actual),
            "message": self.message,
        }


@dataclasses.dataclass(frozen=True)
class Confirmation:
    """The user's confirmation of one call, identified by the call's fingerprint."""

    fingerprint: str
    by: str | None = None
    id: str = ""


@dataclasses.dataclass(frozen=True)
class Approval:
    """One approver's decision about a call (``scope`` is ``"call"`` or ``"value"``)."""

    approver: str
    roles: Collection[str]
    fingerprint: str
    granted: bool = True
    scope: str = "call"
    id: str = ""
    expires: float | None = None  # seconds since the epoch; an approval past it does not count ("expired")


@dataclasses.dataclass(frozen=True)
class ApprovalTicket:
    """What ``GuardContext.request_approval`` receives when a call needs approval."""

    tool: str
    intent: str
    fingerprint: str
    roles: tuple[str, ...]
    count: int
    arguments: Mapping[str, object]


@dataclasses.dataclass(frozen=True)
class GuardContext:
    """The caller's side of a call: identity, roles, confirmation, approvals, hooks, clock."""

    actor: str | None = None
    roles: frozenset[str] = frozenset()
    confirmation: Confirmation | None = None
    approvals: tuple[Approval, ...] = ()
    request_approval: Callable[[ApprovalTicket], Mapping[str, object]] | None = None
    now: float | None = None
    null_as_absent: bool = False


@dataclasses.dataclass(frozen=True)
class GuardResult:
    """The result envelope (§10.10). Only ``for_model()`` may be shown to a model."""

    success: bool
    permission: str
    violations: tuple[Violation, ...]
    guidance: str
    tool: str
    active_constraints: Mapping[str, object]
    caller_only: Mapping[str, object] = dataclasses.field(default_factory=dict)
    result: object = None
    has_result: bool = False

    def to_dict(self) -> dict[str, object]:
        out = self.for_model()
        if self.caller_only:
            out["caller_only"] = _copy(dict(self.caller_only))
        return out

    def for_model(self) -> dict[str, object]:
        out: dict[str, object] = {"success": self.success}
        if self.has_result:
            out["result"] = self.result
        out["permission"] = self.permission
        out["violations"] = [v.to_dict() for v in self.violations]
        out["guidance"] = self.guidance
        out["tool"] = self.tool
        if not self.success:
            out["active_constraints"] = _copy(dict(self.active_constraints))
        return out


def _copy(value: object) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


# ---------------------------------------------------------------------------------------------- stores
class GuardStore(Protocol):
    """Pluggable state for rate limits, cooldowns, remembered approvals and single-use keys (§10.9)."""

    def acquire(
        self,
        intent: str,
        actor: str | None,
        now: float,
        limit: int | None,
        window_seconds: float | None,
        cooldown_seconds: float | None,
        record: bool,
    ) -> float | None: ...

    def remember_approval(self, tool: str, fingerprint: str) -> None: ...

    def approved_before(self, tool: str, fingerprint: str) -> bool: ...

    def consume(self, tool: str, fingerprint: str, key: str) -> bool: ...


class InMemoryStore:
    """Thread-safe in-process store (one lock). Keyed by intent; ``actor`` is ignored."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[str, list[float]] = {}
        self._last: dict[str, float] = {}
        self._approved: set[tuple[str, str]] = set()
        self._used: set[tuple[str, str, str]] = set()

    def acquire(
        self,
        intent: str,
        actor: str | None,
        now: float,
        limit: int | None,
        window_seconds: float | None,
        cooldown_seconds: float | None,
        record: bool,
    ) -> float | None:
        with self._lock:
            wait = 0.0
            stamps = self._calls.get(intent, [])
            if window_seconds is not None:
                stamps = [t for t in stamps if t > now - window_seconds]
                if record:
                    self._calls[intent] = stamps
                if limit is not None and len(stamps) >= limit:
                    oldest = sorted(stamps)[len(stamps) - limit]
                    wait = max(wait, oldest + window_seconds - now)
            if cooldown_seconds is not None and intent in self._last:
                wait = max(wait, self._last[intent] + cooldown_seconds - now)
            if wait > 0:
                return wait
            if record:
                if window_seconds is not None:
                    self._calls.setdefault(intent, []).append(now)
                self._last[intent] = max(now, self._last.get(intent, now))
            return None

    def remember_approval(self, tool: str, fingerprint: str) -> None:
        with self._lock:
            self._approved.add((tool, fingerprint))

    def approved_before(self, tool: str, fingerprint: str) -> bool:
        with self._lock:
            return (tool, fingerprint) in self._approved

    def consume(self, tool: str, fingerprint: str, key: str) -> bool:
        with self._lock:
            entry = (tool, fingerprint, key)
            if entry in self._used:
                return False
            self._used.add(entry)
            return True


# ---------------------------------------------------------------------------------------------- JSON text
def _number_text(value: float) -> str:
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        raise ValueError("non-finite number")
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


def _json_text(value: object, *, canonical: bool) -> str:
    """Compact JSON; canonical: keys sorted by code point and ASCII escaping (§10.2). Numbers per §4.9."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=canonical)
    if isinstance(value, (int, float)):
        return _number_text(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_json_text(v, canonical=canonical) for v in value) + "]"
    if isinstance(value, Mapping):
        keys = list(value)
        if not all(isinstance(k, str) for k in keys):
            raise TypeError("object keys must be strings")
        if canonical:
            keys.sort()
        return "{" + ",".join(
            json.dumps(k, ensure_ascii=canonical) + ":" + _json_text(value[k], canonical=canonical) for k in keys
        ) + "}"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _show(value: object) -> str:
    """A value in a message: compact JSON, or ``repr`` for values outside JSON."""
    try:
        return _json_text(value, canonical=False)
    except (TypeError, ValueError):
        return repr(value)


def fingerprint(tool: str, arguments: Mapping[str, object]) -> str:
    """SHA-256 hex digest of the canonical JSON of ``{"tool": tool, "arguments": arguments}``."""
    text = _json_text({"tool": tool, "arguments": arguments}, canonical=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


# ---------------------------------------------------------------------------------------------- equality
_TRUE = object()
_FALSE = object()


def _unbool(value: object) -> object:
    if value is True:
        return _TRUE
    if value is False:
        return _FALSE
    return value


def json_equal(one: object, two: object) -> bool:
    """JSON equality: 1 == 1.0, booleans never equal numbers, deep for arrays and objects."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(json_equal(a, b) for a, b in zip(one, two))
    if isinstance(one, dict) and isinstance(two, dict):
        return len(one) == len(two) and all(k in two and json_equal(v, two[k]) for k, v in one.items())
    return _unbool(one) == _unbool(two)


def _equality_key(value: object) -> object:
    """A hashable key with ``_equality_key(a) == _equality_key(b)`` exactly when ``json_equal(a, b)``."""
    if value is True or value is False:
        return (_unbool(value),)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, list):
        return ("l", tuple(_equality_key(v) for v in value))
    if isinstance(value, dict):
        return ("d", frozenset((k, _equality_key(v)) for k, v in value.items()))
    return ("v", value)


def _unique(items: list[Any]) -> bool:
    """Uniqueness as the jsonschema package decides it (sort, compare neighbours; else pairwise)."""
    try:
        ordered = sorted(_unbool(i) for i in items)  # type: ignore[type-var]
        return not any(json_equal(a, b) for a, b in itertools.pairwise(ordered))
    except (NotImplementedError, TypeError):
        try:  # the pairwise answer in linear time: equal keys <=> json_equal (no quadratic blow-up)
            keys = [_equality_key(i) for i in items]
            return len(set(keys)) == len(keys)
        except TypeError:  # a value outside JSON that is not hashable
            pass
        seen: list[object] = []
        for item in items:
            element = _unbool(item)
            if any(json_equal(s, element) for s in seen):
                return False
            seen.append(element)
        return True


# ---------------------------------------------------------------------------------------------- formats
_EMAIL = re.compile(r"[^\s@]+@[^\s@]+")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]*")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME = r"([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|([+-])([0-9]{2}):([0-9]{2}))"
_TIME_RE = re.compile(_TIME)
_DATE_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]" + _TIME)
_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
_IPV4 = re.compile(r"(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})")
_LABEL = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?")


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _valid_date(year: str, month: str, day: str) -> bool:
    y, m, d = int(year), int(month), int(day)
    return 1 <= m <= 12 and 1 <= d <= _days_in_month(y, m)


def _valid_time(groups: Sequence[str | None]) -> bool:
    hour, minute, second, _fraction, _zone, _sign, off_h, off_m = groups
    if int(hour or 0) > 23 or int(minute or 0) > 59 or int(second or 0) > 60:
        return False
    return off_h is None or (int(off_h) <= 23 and int(off_m or 0) <= 59)


def check_format(fmt: str, value: str) -> bool:
    """§10.5 formats; unknown format names pass."""
    if fmt == "email":
        return _EMAIL.fullmatch(value) is not None
    if fmt == "uri":
        return _URI.fullmatch(value) is not None
    if fmt == "date":
        m = _DATE.fullmatch(value)
        return m is not None and _valid_date(*m.groups())
    if fmt == "date-time":
        m = _DATE_TIME.fullmatch(value)
        return m is not None and _valid_date(*m.groups()[:3]) and _valid_time(m.groups()[3:])
    if fmt == "time":
        m = _TIME_RE.fullmatch(value)
        return m is not None and _valid_time(m.groups())
    if fmt == "uuid":
        return _UUID.fullmatch(value) is not None
    if fmt == "ipv4":
        m = _IPV4.fullmatch(value)
        return m is not None and all(int(g) <= 255 for g in m.groups())
    if fmt == "ipv6":
        if "%" in value:
            return False
        try:
            ipaddress.IPv6Address(value)
        except ValueError:
            return False
        return True
    if fmt == "hostname":
        if len(value) > 253:
            return False
        return all(len(label) <= 63 and _LABEL.fullmatch(label) for label in value.split("."))
    return True


# ---------------------------------------------------------------------------------------------- value checks
_TYPE_NAMES = {"string", "number", "integer", "boolean", "null", "array", "object"}


def _is_number(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value)


def _is_json(value: object) -> bool:
    """True for values in the JSON domain (what json.loads produces, finite numbers)."""
    if value is None or isinstance(value, (bool, str)):
        return True
    if isinstance(value, (int, float)):
        return _is_number(value)
    if isinstance(value, list):
        return all(_is_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    return False


def _in_domain(schema: Mapping[str, Any], value: object) -> bool:
    """The value itself is a JSON value; so are its contents where no sub-schema will look at them."""
    if isinstance(value, list):
        return "items" in schema or all(_is_json(v) for v in value)
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return False
        return "properties" in schema or all(_is_json(v) for v in value.values())
    return _is_json(value)


def _has_type(value: object, type_name: str) -> bool:
    if type_name == "string":
        return isinstance(value, str)
    if type_name == "integer":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value) and value.is_integer())
    if type_name == "number":
        return _is_number(value)
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name == "null":
        return value is None
    if type_name == "array":
        return isinstance(value, list)
    if type_name == "object":
        return isinstance(value, dict)
    return False


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number" if _is_number(value) else "non-finite number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _child(path: str, key: str) -> str:
    return key if path == "" else f"{path}.{key}"


def _fname(path: str) -> str:
    return path if path else "arguments"


_LIMIT_WORDS = {
    "minimum": "at least",
    "maximum": "at most",
    "exclusiveMinimum": "greater than",
    "exclusiveMaximum": "less than",
    "multipleOf": "a multiple of",
}


def _multiple_fails(value: float, divisor: float) -> bool:
    """``multipleOf`` exactly as the jsonschema package evaluates it (§10.4)."""
    if isinstance(divisor, float):
        try:
            quotient = value / divisor
            return int(quotient) != quotient
        except OverflowError:
            return (Fraction(value) / Fraction(divisor)).denominator != 1
    return bool(value % divisor)


def _validate(schema: Mapping[str, Any], value: object, path: str, tool: str, out: list[Violation]) -> None:
    """Append the violations of ``value`` against a property schema (§4.10 keywords), in keyword order."""
    f = _fname(path)
    for key, expected in schema.items():
        if key == "type":
            types = [expected] if isinstance(expected, str) else list(expected)
            in_domain = _in_domain(schema, value)
            if not in_domain or not any(_has_type(value, t) for t in types):
                wanted = " or ".join(f"{_article(t)} {t}" for t in types)
                actual = _copy(value) if in_domain else repr(value)
                out.append(Violation(path, "type", _copy(expected), actual,
                                     f"{f} must be {wanted}; got {_json_type(value)}."))
        elif key == "format":
            if isinstance(value, str) and not check_format(str(expected), value):
                out.append(Violation(path, "format", expected, value, f"{f} must be a valid {expected}."))
        elif key == "enum":
            if not any(json_equal(e, value) for e in expected):
                out.append(Violation(path, "enum", _copy(expected), _copy(value),
                                     f"{f} must be one of {_show(expected)}; got {_show(value)}."))
        elif key == "const":
            if not json_equal(expected, value):
                out.append(Violation(path, "const", _copy(expected), _copy(value),
                                     f"{f} must be {_show(expected)}; got {_show(value)}."))
        elif key in _LIMIT_WORDS:
            if not _is_number(value):
                continue
            number: Any = value
            if key == "minimum":
                failed = number < expected
            elif key == "maximum":
                failed = number > expected
            elif key == "exclusiveMinimum":
                failed = number <= expected
            elif key == "exclusiveMaximum":
                failed = number >= expected
            else:
                failed = _multiple_fails(number, expected)
            if failed:
                out.append(Violation(path, key, expected, value,
                                     f"{f} must be {_LIMIT_WORDS[key]} {_show(expected)}; got {_show(value)}."))
        elif key in ("minLength", "maxLength"):
            if isinstance(value, str):
                n = len(value)
                if (n < expected) if key == "minLength" else (n > expected):
                    word = "at least" if key == "minLength" else "at most"
                    out.append(Violation(path, key, expected, n,
                                         f"{f} must have {word} {_show(expected)} characters; got {n}."))
        elif key == "pattern":
            if isinstance(value, str) and re.search(expected, value) is None:
                out.append(Violation(path, "pattern", expected, value,
                                     f"{f} must match the pattern {_show(expected)}."))
        elif key == "items":
            if isinstance(value, list) and isinstance(expected, Mapping):
                for i, item in enumerate(value):
                    _validate(expected, item, f"{path}[{i}]", tool, out)
        elif key in ("minItems", "maxItems"):
            if isinstance(value, list):
                n = len(value)
                if (n < expected) if key == "minItems" else (n > expected):
                    word = "at least" if key == "minItems" else "at most"
                    out.append(Violation(path, key, expected, n,
                                         f"{f} must have {word} {_show(expected)} items; got {n}."))
        elif key == "uniqueItems":
            if expected is True and isinstance(value, list) and not _unique(value):
                out.append(Violation(path, "uniqueItems", True, _copy(value),
                                     f"{f} must not contain duplicate items."))
        elif key == "properties":
            if isinstance(value, dict):
                for name, sub in expected.items():
                    if name in value:
                        _validate(sub, value[name], _child(path, name), tool, out)
        elif key == "required":
            if isinstance(value, dict):
                for name in expected:
                    if name not in value:
                        child = _child(path, name)
                        out.append(Violation(child, "required", True, None, f"{child} is required."))
        elif key == "additionalProperties" and expected is False and isinstance(value, dict):
            known = schema.get("properties", {})
            for name in value:
                if name not in known:
                    child = _child(path, str(name))
                    out.append(Violation(child, "additionalProperties", False, _copy(value[name]),
                                         f"{child} is not a parameter of {tool}."))


def validate_value(schema: Mapping[str, Any], value: object) -> list[tuple[str, str]]:
    """Failing (path, keyword) pairs of ``value`` against ``schema`` (the guards' semantics, §10.4-§10.5)."""
    out: list[Violation] = []
    _validate(schema, value, "", "the schema", out)
    return [(v.field or "", v.constraint) for v in out]


# ---------------------------------------------------------------------------------------------- relations
_DATE_LIKE = ("date", "date-time", "time", "local-date-time", "time-of-day", "month", "week")
_LOCAL_TIME = re.compile(r"([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?")


def _normal_time(text: str) -> str | None:
    m = _LOCAL_TIME.fullmatch(text)
    if m is None:
        return None
    hour, minute, second, fraction = m.groups()
    fraction = (fraction or "").ljust(3, "0")
    return f"{hour}:{minute}:{second or '00'}.{fraction}"


def _normal_local(kind: str, text: str) -> str | None:
    """Normalise time-of-day and local date-time values to ``HH:MM:SS.sss`` in their time part (§5.5)."""
    if kind == "time-of-day":
        return _normal_time(text)
    if kind == "local-date-time":
        date, sep, rest = text.partition("T")
        if not sep or _DATE.fullmatch(date) is None:
            return None
        t = _normal_time(rest)
        return None if t is None else f"{date}T{t}"
    return text


def _seconds(groups: Sequence[str | None]) -> Fraction:
    hour, minute, second, fraction, _zone, sign, off_h, off_m = groups
    sec = Fraction(int(second or 0))
    if sec == 60:
        sec = Fraction(59999999, 1000000)
    elif fraction:
        sec += Fraction(int(fraction[1:]), 10 ** (len(fraction) - 1))
    total = int(hour or 0) * 3600 + int(minute or 0) * 60 + sec
    if off_h is not None:
        offset = int(off_h) * 3600 + int(off_m or 0) * 60
        total -= offset if sign == "+" else -offset
    return total


def _days(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar."""
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _order_key(kind: str, value: object) -> Any:
    """Comparison key of an operand for its kind (§7.4), or None when it cannot be compared."""
    if kind in ("number", "other") and _is_number(value):
        return value
    if not isinstance(value, str):
        return None
    if kind == "date-time":
        m = _DATE_TIME.fullmatch(value)
        if m is None or not _valid_date(*m.groups()[:3]) or not _valid_time(m.groups()[3:]):
            return None
        y, mo, d = (int(g) for g in m.groups()[:3])
        return _days(y, mo, d) * 86400 + _seconds(m.groups()[3:])
    if kind == "time":
        m = _TIME_RE.fullmatch(value)
        if m is None or not _valid_time(m.groups()):
            return None
        return _seconds(m.groups())
    if kind in ("time-of-day", "local-date-time"):
        return _normal_local(kind, value)
    if kind == "number":
        return None
    return value


def _given(arguments: Mapping[str, object], name: str) -> bool:
    return name in arguments and arguments[name] is not None


def _actual(arguments: Mapping[str, object], params: Sequence[str]) -> dict[str, object]:
    return {p: _copy(arguments[p]) for p in dict.fromkeys(params) if _given(arguments, p)}


_ORDER_WORDS = {
    "greater_than": ("greater than", "after"),
    "greater_than_or_equal": ("at least", "on or after"),
    "less_than": ("less than", "before"),
    "less_than_or_equal": ("at most", "on or before"),
}


class _NoValue:
    def __repr__(self) -> str:
        return "NO_VALUE"


NO_VALUE: Any = _NoValue()


def rel_compare(
    out: list[Violation],
    arguments: Mapping[str, object],
    ok: Collection[str],
    form: str,
    text: str,
    a: str,
    b: str | None,
    value: object,
    kind: str,
) -> None:
    """Comparison and ordering forms (R1-R5, R12): checked only when every named parameter is given and valid."""
    names = [a] if b is None else [a, b]
    if not all(_given(arguments, n) and n in ok for n in names):
        return
    left = arguments[a]
    right = arguments[b] if b is not None else value
    shown = b if b is not None else _show(value)
    if form in ("equal", "not_equal"):
        same = json_equal(left, right)
        if form == "equal" and not same:
            out.append(Violation(a, form, text, _actual(arguments, names), f"{a} must equal {shown}."))
        elif form == "not_equal" and same:
            out.append(Violation(a, form, text, _actual(arguments, names), f"{a} must differ from {shown}."))
        return
    lk, rk = _order_key(kind, left), _order_key(kind, right)
    if lk is None or rk is None:
        return
    try:
        holds = {
            "greater_than": lambda: lk > rk,
            "greater_than_or_equal": lambda: lk >= rk,
            "less_than": lambda: lk < rk,
            "less_than_or_equal": lambda: lk <= rk,
        }[form]()
    except TypeError:
        return
    if not holds:
        numeric, date_like = _ORDER_WORDS[form]
        word = date_like if kind in _DATE_LIKE else numeric
        out.append(Violation(a, form, text, _actual(arguments, names), f"{a} must be {word} {shown}."))


def rel_requires(out: list[Violation], arguments: Mapping[str, object], text: str, a: str, b: str) -> None:
    """R6: if ``a`` is given, ``b`` must be given."""
    if _given(arguments, a) and not _given(arguments, b):
        out.append(Violation(a, "requires", text, _actual(arguments, [a, b]), f"{b} is required when {a} is given."))


def rel_required_when_present(
    out: list[Violation], arguments: Mapping[str, object], text: str, a: str, b: str
) -> None:
    """R11: if ``b`` is given, ``a`` must be given."""
    if _given(arguments, b) and not _given(arguments, a):
        out.append(Violation(a, "required_when_present", text, _actual(arguments, [a, b]),
                             f"{a} is required when {b} is given."))


def rel_required_when_equal(
    out: list[Violation], arguments: Mapping[str, object], text: str, a: str, b: str, value: object
) -> None:
    """R10: if ``b`` equals ``value``, ``a`` must be given."""
    if _given(arguments, b) and json_equal(arguments[b], value) and not _given(arguments, a):
        out.append(Violation(a, "required_when_equal", text, _actual(arguments, [a, b]),
                             f"{a} is required when {b} is {_show(value)}."))


def rel_mutually_exclusive(out: list[Violation], arguments: Mapping[str, object], text: str, a: str, b: str) -> None:
    """R7: not both given."""
    if _given(arguments, a) and _given(arguments, b):
        out.append(Violation(a, "mutually_exclusive", text, _actual(arguments, [a, b]),
                             f"{a} and {b} cannot both be given."))


def rel_exactly_one_of(out: list[Violation], arguments: Mapping[str, object], text: str, names: Sequence[str]) -> None:
    """R8: exactly one of the names given."""
    k = sum(1 for n in dict.fromkeys(names) if _given(arguments, n))
    if k != 1:
        out.append(Violation(names[0], "exactly_one_of", text, _actual(arguments, names),
                             f"Give exactly one of {', '.join(names)}; got {k}."))


def rel_at_least_one_of(out: list[Violation], arguments: Mapping[str, object], text: str, names: Sequence[str]) -> None:
    """R9: at least one of the names given."""
    if not any(_given(arguments, n) for n in names):
        out.append(Violation(names[0], "at_least_one_of", text, _actual(arguments, names),
                             f"Give at least one of {', '.join(names)}."))


def check_bound(
    out: list[Violation],
    arguments: Mapping[str, object],
    ok: Collection[str],
    param: str,
    kind: str,
    minimum: str | None,
    maximum: str | None,
) -> None:
    """Date-like bounds (§5.5): lexicographic after normalisation; overnight ``time`` windows."""
    value = arguments.get(param)
    if not isinstance(value, str) or param not in ok:
        return
    v = _normal_local(kind, value)
    lo = _normal_local(kind, minimum) if minimum is not None else None
    hi = _normal_local(kind, maximum) if maximum is not None else None
    if v is None:
        return
    if kind == "time-of-day" and lo is not None and hi is not None and hi < lo:
        if not (v >= lo or v <= hi):
            out.append(Violation(param, "formatMinimum", minimum, value,
                                 f"{param} must be {minimum} or later, or {maximum} or earlier."))
        return
    if lo is not None and v < lo:
        out.append(Violation(param, "formatMinimum", minimum, value, f"{param} must not be before {minimum}."))
    if hi is not None and v > hi:
        out.append(Violation(param, "formatMaximum", maximum, value, f"{param} must not be after {maximum}."))


# ---------------------------------------------------------------------------------------------- null_as_absent
def _drop_nulls(schema: object, value: object) -> Any:
    if isinstance(value, dict):
        props: Mapping[str, object] = {}
        required: Collection[object] = ()
        if isinstance(schema, Mapping):
            raw_props = schema.get("properties")
            props = raw_props if isinstance(raw_props, Mapping) else {}
            raw_required = schema.get("required")
            required = raw_required if isinstance(raw_required, list) else ()
        return {
            k: _drop_nulls(props.get(k), v) for k, v in value.items() if not (v is None and k not in required)
        }
    if isinstance(value, list):
        items = schema.get("items") if isinstance(schema, Mapping) else None
        return [_drop_nulls(items, v) for v in value]
    return value


_PLACEHOLDER = re.compile(r"\{\{ *([A-Za-z_][A-Za-z0-9_]{0,63}) *\}\}")


def _confirmation_text(message: str, arguments: Mapping[str, object]) -> str:
    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in arguments:
            return "(not given)"
        value = arguments[name]
        return value if isinstance(value, str) else _show(value)

    return _PLACEHOLDER.sub(sub, message)


# ---------------------------------------------------------------------------------------------- the guard
RelationsFn = Callable[[Mapping[str, object], frozenset[str]], list[Violation]]
PreconditionsFn = Callable[[Mapping[str, object], GuardContext, str], "str | None"]


def _role_phrase(roles: Sequence[str]) -> str:
    if not roles:
        return "any role"
    if len(roles) == 1:
        return f"the role {roles[0]}"
    return "one of the roles " + ", ".join(roles)


def _approval_state(hook_result: object, execute: bool, ctx: GuardContext) -> str:
    """The honest second half of `approval_required` guidance: is anyone actually handling the request?"""
    if not execute and ctx.request_approval is not None:
        return ("Nobody has been asked yet: running the call will request approval. Do not try to approve it "
                "yourself.")
    if hook_result is None:
        return ("No approval channel is configured, so nobody has been asked and the call cannot proceed from "
                "here. Do not repeat the call or try to approve it yourself; tell the user.")
    if isinstance(hook_result, Mapping) and hook_result.get("notified") is False:
        return ("The request was recorded, but nobody could be notified, so it waits until an approver looks for "
                "it. Do not repeat the call or try to approve it yourself; tell the user approval is pending.")
    return ("A person is handling the request. Do not repeat the call or try to approve it yourself; tell the user "
            "approval is pending or continue with other work.")


class _Outcome:
    """Internal: what the gates decided before the handler runs."""

    def __init__(self, refusal: GuardResult | None, arguments: Mapping[str, object], fp: str,
                 approved: bool, counting: dict[str, list[Approval]]) -> None:
        self.refusal = refusal
        self.arguments = arguments
        self.fp = fp
        self.approved = approved
        self.counting = counting


class ToolGuard:
    """The compiled guard of one tool: ``check`` (no side effects), ``run``, ``arun`` and ``wrap``."""

    def __init__(
        self,
        *,
        tool: str,
        intent: str,
        schema: Mapping[str, Any],
        relations: RelationsFn | None = None,
        bounds: Sequence[tuple[str, str, str | None, str | None]] = (),
        preconditions: PreconditionsFn | None = None,
        required_roles: Sequence[str] = (),
        confirmation_required: bool = False,
        confirmation_message: str | None = None,
        approval_required: bool = False,
        approval_roles: Sequence[str] = (),
        approval_count: int = 1,
        rate_limit: str | None = None,
        rate_count: int | None = None,
        rate_window_seconds: float | None = None,
        cooldown: str | None = None,
        cooldown_seconds: float | None = None,
        active_constraints: Mapping[str, object] | None = None,
        store: GuardStore | None = None,
    ) -> None:
        self.tool = tool
        self.intent = intent
        self.schema = schema
        self._relations = relations
        self._bounds = tuple(bounds)
        self._preconditions = preconditions
        self.required_roles = tuple(required_roles)
        self.confirmation_required = confirmation_required
        self.confirmation_message = confirmation_message
        self.approval_required = approval_required
        self.approval_roles = tuple(approval_roles)
        self.approval_count = approval_count
        self.rate_limit = rate_limit
        self.rate_count = rate_count
        self.rate_window_seconds = rate_window_seconds
        self.cooldown = cooldown
        self.cooldown_seconds = cooldown_seconds
        self.active_constraints: Mapping[str, object] = active_constraints or {}
        self.store: GuardStore = store if store is not None else InMemoryStore()

    # ------------------------------------------------------------------ public API
    def check(self, arguments: object, context: GuardContext | None = None) -> GuardResult:
        """Run every gate without a handler and without side effects."""
        outcome = self._gates(arguments, context or GuardContext(), execute=False)
        if outcome.refusal is not None:
            return outcome.refusal
        return self._result(True, "approved" if outcome.approved else "not_required", (), "The call is allowed.")

    def run(
        self,
        handler: Callable[[Mapping[str, object]], object],
        arguments: object,
        context: GuardContext | None = None,
    ) -> GuardResult:
        """Run the gates, then the handler (exceptions propagate)."""
        ctx = context or GuardContext()
        outcome = self._gates(arguments, ctx, execute=True)
        if outcome.refusal is not None:
            return outcome.refusal
        refusal = self._consume(outcome, ctx)
        if refusal is not None:
            return refusal
        return self._success(outcome, handler(outcome.arguments))

    async def arun(
        self,
        handler: Callable[[Mapping[str, object]], Awaitable[object]],
        arguments: object,
        context: GuardContext | None = None,
    ) -> GuardResult:
        """``run`` for an asynchronous handler."""
        ctx = context or GuardContext()
        outcome = self._gates(arguments, ctx, execute=True)
        if outcome.refusal is not None:
            return outcome.refusal
        refusal = self._consume(outcome, ctx)
        if refusal is not None:
            return refusal
        return self._success(outcome, await handler(outcome.arguments))

    def wrap(
        self, handler: Callable[[Mapping[str, object]], object]
    ) -> Callable[[object, GuardContext | None], GuardResult]:
        """A function ``(arguments, context=None) -> GuardResult`` running ``handler`` behind this guard."""

        def guarded(arguments: object, context: GuardContext | None = None) -> GuardResult:
            return self.run(handler, arguments, context)

        return guarded

    # ------------------------------------------------------------------ envelopes
    def _result(
        self,
        success: bool,
        permission: str,
        violations: Sequence[Violation],
        guidance: str,
        caller_only: Mapping[str, object] | None = None,
        result: object = None,
        has_result: bool = False,
    ) -> GuardResult:
        return GuardResult(
            success=success,
            permission=permission,
            violations=tuple(violations),
            guidance=guidance,
            tool=self.tool,
            active_constraints=self.active_constraints,
            caller_only=dict(caller_only or {}),
            result=result,
            has_result=has_result,
        )

    def _success(self, outcome: _Outcome, value: object) -> GuardResult:
        if outcome.approved:
            return self._result(True, "approved", (), "The call was approved and has run.", None, value, True)
        return self._result(True, "not_required", (), "The call succeeded.", None, value, True)

    def _denied(self, reason: str) -> GuardResult:
        return self._result(False, "denied", (), f"{self.tool} was refused: {reason}. Do not retry; tell the user it "
                            "was refused.")

    def _confirmation_refusal(self, arguments: Mapping[str, object], fp: str) -> GuardResult:
        message = None
        if self.confirmation_message is not None:
            message = _confirmation_text(self.confirmation_message, arguments)
        asked = f': "{message}"' if message is not None else ""
        guidance = (f"{self.tool} needs the user's explicit confirmation. A person is being asked{asked}. Do not "
                    "repeat the call and do not confirm it yourself; wait for the outcome.")
        return self._result(False, "confirmation_required", (), guidance,
                            {"fingerprint": fp, "confirmation_message": message})

    def _approval_refusal(self, arguments: Mapping[str, object], fp: str, ctx: GuardContext,
                          execute: bool, used: Collection[tuple[str, str]] = ()) -> GuardResult:
        hook_result: object = None
        if execute and ctx.request_approval is not None:
            ticket = ApprovalTicket(self.tool, self.intent, fp, self.approval_roles, self.approval_count,
                                    arguments)
            raw = ctx.request_approval(ticket)
            hook_result = _copy(dict(raw)) if isinstance(raw, Mapping) else raw
        caller_only: dict[str, object] = {"fingerprint": fp, "approval": hook_result}
        not_counted = self._not_counted(ctx, fp, used)
        if not_counted:
            caller_only["not_counted"] = not_counted
        status = hook_result.get("status") if isinstance(hook_result, Mapping) else None
        if status == "expired" or any(x["reason"] == "expired" for x in not_counted):
            return self._result(False, "expired", (), f"{self.tool}'s request for approval expired before it was "
                                "decided, so the call did not run. Do not repeat the call by yourself; tell the user, "
                                "who can ask for approval again.", caller_only)
        n = self.approval_count
        return self._result(False, "approval_required", (), f"{self.tool} needs approval by {n} "
                            f"{'approver' if n == 1 else 'approvers'} holding {_role_phrase(self.approval_roles)}. "
                            + _approval_state(hook_result, execute, ctx), caller_only)

    def _not_counted(self, ctx: GuardContext, fp: str, used: Collection[tuple[str, str]]) -> list[dict[str, str]]:
        """Why each offered approval did not count (caller_only, for integrators)."""
        now = ctx.now if ctx.now is not None else time.time()
        declared = set(self.approval_roles)
        out: list[dict[str, str]] = []
        for a in ctx.approvals:
            if a.fingerprint != fp:
                reason = "different arguments"
            elif ctx.actor is not None and a.approver == ctx.actor:
                reason = "self-approval"
            elif declared and not declared.intersection(a.roles):
                reason = "roles"
            elif a.expires is not None and a.expires <= now:
                reason = "expired"
            elif (a.approver, a.id) in used:
                reason = "already used"
            else:
                continue
            out.append({"approver": a.approver, "id": a.id, "reason": reason})
        return out

    # ------------------------------------------------------------------ gates (§10.3)
    def _gates(self, arguments: object, ctx: GuardContext, *, execute: bool) -> _Outcome:
        args: Any = _drop_nulls(self.schema, arguments) if ctx.null_as_absent else arguments
        none = _Outcome(None, {}, "", False, {})

        # 1. roles
        missing = [r for r in self.required_roles if r not in ctx.roles]
        if missing:
            word = "the role " if len(missing) == 1 else "the roles "
            none.refusal = self._denied("the caller lacks " + word + ", ".join(missing))
            return none

        # 2. value constraints; 3. relations and bounds
        violations: list[Violation] = []
        _validate(self.schema, args, "", self.tool, violations)
        if isinstance(args, dict) and all(isinstance(k, str) for k in args):
            bad = {(v.field or "") for v in violations}
            ok = frozenset(
                name for name in args
                if not any(p == name or p.startswith((name + ".", name + "[")) for p in bad)
            )
            if self._relations is not None:
                violations.extend(self._relations(args, ok))
            for param, kind, lo, hi in self._bounds:
                check_bound(violations, args, ok, param, kind, lo, hi)
        if violations:
            n = len(violations)
            messages = " ".join(v.message for v in violations)
            guidance = (f"The arguments break {n} {'constraint' if n == 1 else 'constraints'} of {self.tool}: "
                        f"{messages} Correct the arguments and call {self.tool} again; do not repeat the same values.")
            none.refusal = self._result(False, "constraint_violated", violations, guidance)
            return none

        # 4. opaque preconditions
        if self._preconditions is not None:
            failed = self._preconditions(args, ctx, self.tool)
            if failed is not None:
                violation = Violation(None, "precondition", failed, False, f'The precondition "{failed}" does not hold.')
                guidance = (f'{self.tool} cannot run now: the precondition "{failed}" does not hold. Do not retry '
                            "until it holds; tell the user what is missing.")
                none.refusal = self._result(False, "precondition_failed", [violation], guidance)
                return none

        fp = fingerprint(self.tool, args)
        outcome = _Outcome(None, args, fp, False, {})

        # 5. confirmation
        if self.confirmation_required and (ctx.confirmation is None or ctx.confirmation.fingerprint != fp):
            outcome.refusal = self._confirmation_refusal(args, fp)
            return outcome

        # 6. approval
        if self.approval_required:
            if self.store.approved_before(self.tool, fp):
                outcome.approved = True
            else:
                counting = self._counting(ctx, fp)
                if any(not a.granted for group in counting.values() for a in group):
                    outcome.refusal = self._denied("an approver refused the call")
                    return outcome
                if len(counting) >= self.approval_count:
                    outcome.approved = True
                    outcome.counting = counting
                    if execute and any(a.scope == "value" for group in counting.values() for a in group):
                        self.store.remember_approval(self.tool, fp)
                else:
                    outcome.refusal = self._approval_refusal(args, fp, ctx, execute)
                    return outcome

        # 7. rate limit and cooldown
        if self.rate_count is not None or self.cooldown_seconds is not None:
            now = ctx.now if ctx.now is not None else time.time()
            wait = self.store.acquire(self.intent, ctx.actor, now, self.rate_count, self.rate_window_seconds,
                                      self.cooldown_seconds, execute)
            if wait is not None:
                outcome.refusal = self._rate_refusal(ctx, now, wait)
                return outcome
        return outcome

    def _counting(self, ctx: GuardContext, fp: str) -> dict[str, list[Approval]]:
        """Approvals that count, grouped by approver (each approver counts once)."""
        counting: dict[str, list[Approval]] = {}
        declared = set(self.approval_roles)
        now = ctx.now if ctx.now is not None else time.time()
        for approval in ctx.approvals:
            if approval.fingerprint != fp:
                continue
            if ctx.actor is not None and approval.approver == ctx.actor:
                continue
            if declared and not declared.intersection(approval.roles):
                continue
            if approval.expires is not None and approval.expires <= now:
                continue
            counting.setdefault(approval.approver, []).append(approval)
        return counting

    def _rate_refusal(self, ctx: GuardContext, now: float, wait: float) -> GuardResult:
        constraint = "rate_limit" if self.rate_count is not None else "cooldown"
        if self.rate_count is not None and self.cooldown_seconds is not None:
            rate_wait = self.store.acquire(self.intent, ctx.actor, now, self.rate_count, self.rate_window_seconds,
                                           None, False) or 0.0
            cool_wait = self.store.acquire(self.intent, ctx.actor, now, None, None, self.cooldown_seconds,
                                           False) or 0.0
            constraint = "rate_limit" if rate_wait >= cool_wait else "cooldown"
        text = (self.rate_limit if constraint == "rate_limit" else self.cooldown) or ""
        seconds = max(1, math.ceil(wait))
        if constraint == "rate_limit":
            message = f"{self.tool} is rate limited ({text}); retry after {seconds} seconds."
        else:
            message = f"{self.tool} needs a cooldown of {text} between calls; retry after {seconds} seconds."
        violation = Violation(None, constraint, text, {"retry_after_seconds": seconds}, message)
        guidance = f"{self.tool} is rate limited ({text}). Try again in {seconds} seconds."
        return self._result(False, "rate_limited", [violation], guidance)

    def _consume(self, outcome: _Outcome, ctx: GuardContext) -> GuardResult | None:
        """Step 8: consume single-use confirmation and call-scoped approvals (§10.8)."""
        fp = outcome.fp
        if self.confirmation_required:
            key = "confirmation:" + (ctx.confirmation.id if ctx.confirmation is not None else "")
            if not self.store.consume(self.tool, fp, key):
                return self._confirmation_refusal(outcome.arguments, fp)
        if outcome.counting:
            remaining = 0
            used: set[tuple[str, str]] = set()
            for approver, group in outcome.counting.items():
                valid = any(a.scope == "value" for a in group)
                for approval in group:
                    if approval.scope == "call":
                        if self.store.consume(self.tool, fp, f"approval:{approver}:{approval.id}"):
                            valid = True
                        else:
                            used.add((approver, approval.id))
                remaining += valid
            if remaining < self.approval_count:
                return self._approval_refusal(outcome.arguments, fp, ctx, True, used)
        return None
