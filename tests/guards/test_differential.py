"""Differential property test (guard value checks): guards agree with jsonschema's Draft202012Validator.

Schemas are generated in the property-schema subset (as parameter declarations compile them), wrapped as the parameter
``p`` of a tool's input schema; arguments are random JSON values biased towards the schema. The failing
(path, keyword) pairs of the guard must equal those of ``jsonschema`` with a format checker implementing guard formats
(written here independently of the runtime), after mapping ``additionalProperties`` and ``required`` errors to the
child paths of the offending keys. Two keywords get their JSON Schema meaning rather than the jsonschema package's:
``pattern`` is ECMA-262 (each generated pattern has a hand-written Python equivalent here; a string over its
``maxLength`` is not searched), and ``uniqueItems`` uses JSON equality (the package sorts and compares neighbours,
which calls ``[[0], [false], [0]]`` unique).
"""

from __future__ import annotations

import ast
import calendar
import importlib
import ipaddress
import itertools
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, FormatChecker, ValidationError, validators

from axag.compile.serialize import normalise
from axag.guards import guard_spec
from axag.guards.render import write_guards
from axag.values import pyruntime
from axag.vocabulary import SCHEMA_KEY_ORDER

# ---------------------------------------------------------------------------------------------- oracle formats
_D = r"(\d{4})-(\d{2})-(\d{2})"
_T = r"(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))"


def _ascii_digits(s: str) -> bool:
    return all(not c.isdigit() or c in "0123456789" for c in s)


def _date_ok(y: str, m: str, d: str) -> bool:
    month = int(m)
    return 1 <= month <= 12 and 1 <= int(d) <= calendar.monthrange(int(y), month)[1]


def _time_ok(h: str, mi: str, s: str, oh: str | None, om: str | None) -> bool:
    if not (int(h) < 24 and int(mi) < 60 and int(s) < 61):
        return False
    return oh is None or (int(oh) < 24 and om is not None and int(om) < 60)


def _f_date(v: str) -> bool:
    m = re.fullmatch(_D, v, re.ASCII)
    return bool(m) and _date_ok(*m.groups())


def _f_date_time(v: str) -> bool:
    m = re.fullmatch(_D + "[Tt]" + _T, v, re.ASCII)
    return bool(m) and _date_ok(*m.groups()[:3]) and _time_ok(*m.groups()[3:])


def _f_time(v: str) -> bool:
    m = re.fullmatch(_T, v, re.ASCII)
    return bool(m) and _time_ok(*m.groups())


def _f_ipv4(v: str) -> bool:
    parts = v.split(".")
    return len(parts) == 4 and all(
        p.isascii() and p.isdigit() and (p == "0" or not p.startswith("0")) and int(p) < 256 and len(p) <= 3
        for p in parts
    )


def _f_ipv6(v: str) -> bool:
    if "%" in v:
        return False
    try:
        ipaddress.IPv6Address(v)
    except ValueError:
        return False
    return True


def _f_hostname(v: str) -> bool:
    if len(v) > 253:
        return False
    return all(
        0 < len(label) <= 63 and label.isascii() and re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?", label)
        for label in v.split(".")
    )


ORACLE_FORMATS: dict[str, Callable[[str], bool]] = {
    "email": lambda v: re.fullmatch(r"[^\s@]+@[^\s@]+", v) is not None,
    "uri": lambda v: re.fullmatch(r"[A-Za-z][A-Za-z0-9+.\-]*:\S*", v) is not None,
    "date": _f_date,
    "date-time": _f_date_time,
    "time": _f_time,
    "uuid": lambda v: re.fullmatch(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", v) is not None,
    "ipv4": _f_ipv4,
    "ipv6": _f_ipv6,
    "hostname": _f_hostname,
}


def format_checker() -> FormatChecker:
    checker = FormatChecker(formats=())
    for name, fn in ORACLE_FORMATS.items():
        checker.checks(name)(lambda v, fn=fn: not isinstance(v, str) or fn(v))
    return checker


FORMAT_CHECKER = format_checker()


def _path(parts: Any) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out = part if out == "" else f"{out}.{part}"
    return out


def _child(path: str, key: str) -> str:
    return key if path == "" else f"{path}.{key}"


_DOT = "[^\\n\\r\\u2028\\u2029]"
# each generated pattern (ECMA-262) and its Python equivalent, written by hand: $ is the end, \d \w are ASCII
ECMA_PATTERNS = {
    "^a": r"^a", "b$": r"b\Z", "^[a-z]+$": r"^[a-z]+\Z", "\\d": r"[0-9]", "^(?:[0-9]{2})$": r"^[0-9]{2}\Z",
    "a|b": r"a|b", "b": "b", "^$": r"^\Z", ".": _DOT, "^\\w+@": r"^[A-Za-z0-9_]+@", "[\\u00e9]": "\u00e9",
    r"^[0-9]{4}-(0[1-9]|1[0-2])$": r"^[0-9]{4}-(0[1-9]|1[0-2])\Z",
    r"^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$": r"^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])\Z",
    r"^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,3})?)?$":
        r"^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,3})?)?\Z",
    "^#[0-9A-Fa-f]{6}$": r"^#[0-9A-Fa-f]{6}\Z", "\\bab": r"(?<![A-Za-z0-9_])ab", ".$": _DOT + r"\Z",
    "\\s": "[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]",
}


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Any:
    if not validator.is_type(instance, "string"):
        return
    limit = schema.get("maxLength")
    if isinstance(limit, int) and len(instance) > limit:
        return  # the guard does not search a string that is already too long
    if re.search(ECMA_PATTERNS[pattern], instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _json_eq(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_eq(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_eq(a[k], b[k]) for k in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _unique_items(validator: Any, unique: bool, instance: Any, schema: dict[str, Any]) -> Any:
    if unique and validator.is_type(instance, "array") and any(
        _json_eq(instance[i], instance[j]) for i in range(len(instance)) for j in range(i)
    ):
        yield ValidationError(f"{instance!r} has non-unique elements")


OracleValidator = validators.extend(Draft202012Validator, {"pattern": _pattern, "uniqueItems": _unique_items})


def oracle(schema: dict[str, Any], instance: Any) -> set[tuple[str, str]]:
    pairs: set[tuple[str, str]] = set()
    for error in OracleValidator(schema, format_checker=FORMAT_CHECKER).iter_errors(instance):
        path = _path(error.absolute_path)
        if error.validator == "required":
            for key in error.validator_value:
                if key not in error.instance:
                    pairs.add((_child(path, key), "required"))
        elif error.validator == "additionalProperties":
            known = error.schema.get("properties", {})
            for key in error.instance:
                if key not in known:
                    pairs.add((_child(path, key), "additionalProperties"))
        else:
            pairs.add((path, str(error.validator)))
    return pairs


def wrap(prop: dict[str, Any], required: bool) -> dict[str, Any]:
    return {"type": "object", "properties": {"p": prop}, "required": ["p"] if required else [],
            "additionalProperties": False}


# ---------------------------------------------------------------------------------------------- generators
NAMES = st.sampled_from(["a", "b", "c", "__proto__", "x_1"])
BIG = 2**999
integers = st.one_of(st.integers(-20, 20), st.integers(-BIG, BIG))
floats = st.floats(allow_nan=False, allow_infinity=False)
numbers = st.one_of(integers, floats, st.sampled_from([0.5, 1.5, -0.0, 1e20, 1e-300, 2.0**60, 10.0, 0.1, 0.3]))
SAMPLES = [
    "", "a", "ab", "a@b", "a b@c", "x:y", "http://e.com/a b", "2026-02-28", "2024-02-29", "2025-02-29", "2026-13-01",
    "0000-02-29", "2026-05-01T10:00:00Z", "2026-05-01t10:00:60.5z", "2026-05-01T24:00:00Z", "2026-05-01T10:00:00+24:00",
    "10:00:00Z", "23:59:60-23:59", "10:00:00", "12:00", "12:00:01.5", "00000000-0000-0000-0000-00000000000G",
    "123e4567-e89b-12d3-a456-426614174000", "1.2.3.4", "01.2.3.4", "256.1.1.1", "::1", "fe80::1%eth0", "1::2::3",
    "::ffff:1.2.3.4", "example.com", "ex_ample.com", "a-.com", "example.com.", "x" * 64 + ".com", "\u0661.2.3.4",
    "2026-05", "2026-W09", "2026-W54", "2026-05-01T08:00", "#a0B1c2", "AB12", "é\U0001f600", "a\nb", "a@b\n",
    "1", "true", "ab\n", "a\u2028", "\ufeff", "\x85", "\u00e9ab", "12\n", "\u00e9@", "#a0B1c2\n", "2026-05\n",
]
strings = st.one_of(st.sampled_from(SAMPLES), st.text(max_size=6))
PATTERNS = list(ECMA_PATTERNS)
FORMATS = list(ORACLE_FORMATS)
leaf_json = st.one_of(st.none(), st.booleans(), numbers, strings)
any_json = st.recursive(
    leaf_json,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(NAMES, inner, max_size=3)),
    max_leaves=8,
)
small_count = st.integers(0, 4)


@st.composite
def schemas(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    kinds = ["string", "number", "integer", "boolean"] + (["array", "object"] if depth < 3 else [])
    t = draw(st.sampled_from(kinds))
    s: dict[str, Any] = {"type": t}
    if t == "string" and draw(st.booleans()):
        s["format"] = draw(st.sampled_from(FORMATS))
    values = {"string": strings, "number": numbers, "integer": integers, "boolean": st.booleans()}.get(t, any_json)
    if draw(st.integers(0, 5)) == 0:
        s["enum"] = draw(st.lists(st.one_of(values, any_json), min_size=1, max_size=4))
    if draw(st.integers(0, 7)) == 0:
        s["const"] = draw(st.one_of(values, any_json))
    if draw(st.integers(0, 9)) == 0:
        s["description"] = "d"
        s["default"] = draw(any_json)
        s["examples"] = [draw(any_json)]
    if t in ("number", "integer"):
        bound = integers if t == "integer" else numbers
        for key in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
            if draw(st.integers(0, 3)) == 0:
                s[key] = draw(bound)
        if draw(st.integers(0, 2)) == 0:
            s["multipleOf"] = draw(st.one_of(st.integers(1, 12), st.sampled_from(
                [0.5, 0.1, 0.25, 1e-300, 1e20, 2.5, 3.0, 1e-5, 7]), st.floats(0.001, 1000)))
    if t == "string":
        if draw(st.integers(0, 3)) == 0:
            s["minLength"] = draw(small_count)
        if draw(st.integers(0, 3)) == 0:
            s["maxLength"] = draw(small_count)
        if draw(st.integers(0, 2)) == 0:
            s["pattern"] = draw(st.sampled_from(PATTERNS))
    if t == "array":
        if draw(st.booleans()):
            s["items"] = draw(schemas(depth + 1))
        if draw(st.integers(0, 3)) == 0:
            s["minItems"] = draw(small_count)
        if draw(st.integers(0, 3)) == 0:
            s["maxItems"] = draw(small_count)
        if draw(st.booleans()):
            s["uniqueItems"] = True
    if t == "object" and draw(st.booleans()):
        names = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
        s["properties"] = {n: draw(schemas(depth + 1)) for n in names}
        req = [n for n in names if draw(st.booleans())]
        if req:
            s["required"] = req
        s["additionalProperties"] = False
    return normalise({k: s[k] for k in SCHEMA_KEY_ORDER if k in s})  # type: ignore[no-any-return]


@st.composite
def value_for(draw: st.DrawFn, s: dict[str, Any]) -> Any:
    """A value that is often close to valid for ``s``."""
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(any_json)
    if choice == 1 and "enum" in s:
        return draw(st.sampled_from(s["enum"]))
    if choice == 2 and "const" in s:
        return s["const"]
    t = s["type"]
    if t == "string":
        return draw(strings)
    if t == "integer":
        return draw(st.one_of(integers, st.sampled_from([2.0, -4.0, 1e20, 3])))
    if t == "number":
        return draw(numbers)
    if t == "boolean":
        return draw(st.booleans())
    if t == "array":
        items = s.get("items")
        inner = value_for(items) if items is not None else any_json
        size = draw(st.integers(0, 4))
        out = [draw(inner) for _ in range(size)]
        if out and draw(st.booleans()):
            out.append(out[0] if draw(st.booleans()) else (1.0 if out[0] == 1 else out[0]))
        return out
    props = s.get("properties", {})
    obj: dict[str, Any] = {}
    for name, sub in props.items():
        if draw(st.integers(0, 4)) > 0:
            obj[name] = draw(value_for(sub))
    if draw(st.integers(0, 4)) == 0:
        obj[draw(st.sampled_from(["zz", "a", "__proto__"]))] = draw(any_json)
    return obj


@st.composite
def cases(draw: st.DrawFn) -> tuple[dict[str, Any], list[Any]]:
    prop = draw(schemas())
    schema = wrap(prop, draw(st.booleans()))
    args: list[Any] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            args.append(draw(any_json))
        elif kind == 1:
            args.append({})
        else:
            value = {"p": draw(value_for(prop))}
            if kind == 2:
                value["q"] = draw(leaf_json)
            args.append(value)
    return schema, args


def _guard_pairs(guard: Any, instance: Any) -> set[tuple[str, str]]:
    return {(v.field or "", v.constraint) for v in guard.check(instance).violations}


# ---------------------------------------------------------------------------------------------- tests
@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(cases())
def test_runtime_validator_agrees_with_jsonschema(case: tuple[dict[str, Any], list[Any]]) -> None:
    schema, args = case
    # the schema goes through the literal encoder, as in generated code
    encoded = ast.literal_eval(guard_spec.py_literal(schema))
    assert encoded == schema
    guard = pyruntime.ToolGuard(tool="t", intent="t.t", schema=encoded)
    for instance in args:
        instance = json.loads(json.dumps(instance))  # a JSON value as json.loads produces it
        expected = oracle(schema, instance)
        assert _guard_pairs(guard, instance) == expected, (schema, instance)
        assert set(pyruntime.validate_value(schema, instance)) == expected


_SEQ = itertools.count()


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(cases(), min_size=1, max_size=25))
def test_generated_guards_agree_with_jsonschema(batch: list[tuple[dict[str, Any], list[Any]]]) -> None:
    import tempfile

    tools = []
    for i, (schema, _args) in enumerate(batch):
        tools.append({
            "name": f"t{i}",
            "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema},
            "_meta": {"org.axag/action": {"intent": f"t.t{i}"}},
        })
    with tempfile.TemporaryDirectory() as tmp:
        name = f"axag_diff_{next(_SEQ)}"
        write_guards({"tools": tools}, Path(tmp) / name)
        sys.path.insert(0, tmp)
        try:
            module = importlib.import_module(name)
        finally:
            sys.path.remove(tmp)
        for i, (schema, args) in enumerate(batch):
            guard = module.GUARDS[f"t{i}"]
            for instance in args:
                instance = json.loads(json.dumps(instance))
                assert _guard_pairs(guard, instance) == oracle(schema, instance), (schema, instance)
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]


def test_known_edge_cases() -> None:
    """Hand-picked cases from guard value checks (1 vs 1.0, booleans, multipleOf overflow, code points, search)."""
    cases_: list[tuple[dict[str, Any], Any]] = [
        ({"type": "integer"}, 1.0),
        ({"type": "integer"}, True),
        ({"type": "number", "enum": [1]}, 1.0),
        ({"type": "boolean", "enum": [1]}, True),
        ({"type": "array", "uniqueItems": True}, [1, 1.0]),
        ({"type": "array", "uniqueItems": True}, [1, True]),
        ({"type": "array", "uniqueItems": True}, [[1], [True], [1.0]]),
        ({"type": "array", "uniqueItems": True}, [{"a": 1}, {"a": 1.0}]),
        ({"type": "number", "multipleOf": 1e-300}, 1e300),
        ({"type": "integer", "multipleOf": 0.5}, 2**999),
        ({"type": "number", "multipleOf": 0.1}, 0.3),
        ({"type": "number", "multipleOf": 3}, 7.5),
        ({"type": "number", "multipleOf": 1e20}, 2e20),
        ({"type": "string", "maxLength": 1}, "\U0001f600"),
        ({"type": "string", "pattern": "b"}, "abc"),
        ({"type": "string", "pattern": "b$"}, "ab\n"),
        ({"type": "string", "pattern": "^\\w+@"}, "\u00e9@"),
        ({"type": "string", "pattern": ".$"}, "a\u2028"),
        ({"type": "string", "pattern": "\\s"}, "\ufeff"),
        ({"type": "string", "pattern": "\\s"}, "\x85"),
        ({"type": "string", "pattern": "\\bab"}, "\u00e9ab"),
        ({"type": "string", "pattern": "^[a-z]+$", "maxLength": 2}, "abc"),
        ({"type": "array", "uniqueItems": True}, [[0], [False], [0]]),
        ({"type": "array", "uniqueItems": True}, [{"a": 1, "b": 2}, {"b": 2, "a": 1.0}]),
        ({"type": "string", "format": "email"}, "a@b\n"),
        ({"type": "string", "format": "date-time"}, "2026-01-01t00:00:60z"),
        ({"type": "integer", "minimum": 2**80}, 2**80 - 1),
        ({"type": "number", "maximum": 0.1}, 0.1000000000000001),
    ]
    for prop, value in cases_:
        schema = wrap(prop, True)
        guard = pyruntime.ToolGuard(tool="t", intent="t.t", schema=schema)
        assert _guard_pairs(guard, {"p": value}) == oracle(schema, {"p": value}), (prop, value)
