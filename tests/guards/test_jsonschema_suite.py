"""Every case of the vendored JSON-Schema-Test-Suite whose schema uses only compiled keywords (the property schema), wrapped as a
parameter, gets the suite's verdict from the Python guards, both from the runtime and from a generated package.

guard formats defines the formats more simply than the suite (e.g. any leap second, a plain ``local@domain`` e-mail, a URI
as scheme + non-space characters, hostnames without IDNA rules). The cases where that definition deliberately
differs are pinned in ``DEVIATIONS``; they must get the opposite verdict, so that any change is noticed.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from axag.guards.render import write_guards
from axag.values import pyruntime

SUITE = Path(__file__).resolve().parents[1] / "data" / "jsonschema-test-suite" / "draft2020-12"
COMPILED = {
    "type", "description", "format", "enum", "const", "default", "examples", "minimum", "exclusiveMinimum",
    "maximum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "items", "minItems",
    "maxItems", "uniqueItems", "properties", "required", "additionalProperties",
}

# (file, group description, test description): guard formats deliberately differs from the suite here.
DEVIATIONS = {
    # optional/format/date-time.json
    ('optional/format/date-time.json', 'validation of date-time strings', 'an invalid date-time with leap second on a wrong minute, UTC'),
    ('optional/format/date-time.json', 'validation of date-time strings', 'an invalid date-time with leap second on a wrong hour, UTC'),
    # optional/format/email.json: HTML's valid e-mail address (what <input type="email"> checks)
    ('optional/format/email.json', 'validation of e-mail addresses', 'a quoted string with a space in the local part is valid'),
    ('optional/format/email.json', 'validation of e-mail addresses', 'a quoted string with a double dot in the local part is valid'),
    ('optional/format/email.json', 'validation of e-mail addresses', 'a quoted string with a @ in the local part is valid'),
    ('optional/format/email.json', 'validation of e-mail addresses', 'an IPv4-address-literal after the @ is valid'),
    ('optional/format/email.json', 'validation of e-mail addresses', 'an IPv6-address-literal after the @ is valid'),
    ('optional/format/email.json', 'validation of e-mail addresses', 'dot before local part is not valid'),
    ('optional/format/email.json', 'validation of e-mail addresses', 'dot after local part is not valid'),
    ('optional/format/email.json', 'validation of e-mail addresses', 'two subsequent dots inside local part are not valid'),
    # optional/format/hostname.json
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'invalid Punycode'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'contains illegal char U+302E Hangul single dot tone mark'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'Begins with a Spacing Combining Mark'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'Begins with a Nonspacing Mark'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'Begins with an Enclosing Mark'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'Exceptions that are DISALLOWED, right-to-left chars'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'Exceptions that are DISALLOWED, left-to-right chars'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', "MIDDLE DOT with no preceding 'l'"),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'MIDDLE DOT with nothing preceding'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', "MIDDLE DOT with no following 'l'"),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'MIDDLE DOT with nothing following'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'Greek KERAIA not followed by Greek'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'Greek KERAIA not followed by anything'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'Hebrew GERESH not preceded by Hebrew'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'Hebrew GERESH not preceded by anything'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'Hebrew GERSHAYIM not preceded by Hebrew'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'Hebrew GERSHAYIM not preceded by anything'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'KATAKANA MIDDLE DOT with no Hiragana, Katakana, or Han'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'KATAKANA MIDDLE DOT with no other characters'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'Arabic-Indic digits mixed with Extended Arabic-Indic digits'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'ZERO WIDTH JOINER not preceded by Virama'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'ZERO WIDTH JOINER not preceded by anything'),
    ('optional/format/hostname.json', 'validation of A-label (punycode) host names', 'contains "--" in the 3rd and 4th position'),
    # optional/format/time.json
    ('optional/format/time.json', 'validation of time strings', 'invalid leap second, Zulu (wrong hour)'),
    ('optional/format/time.json', 'validation of time strings', 'invalid leap second, Zulu (wrong minute)'),
    ('optional/format/time.json', 'validation of time strings', 'invalid leap second, zero time-offset (wrong hour)'),
    ('optional/format/time.json', 'validation of time strings', 'invalid leap second, zero time-offset (wrong minute)'),
    ('optional/format/time.json', 'validation of time strings', 'invalid leap second, positive time-offset (wrong hour)'),
    ('optional/format/time.json', 'validation of time strings', 'invalid leap second, positive time-offset (wrong minute)'),
    ('optional/format/time.json', 'validation of time strings', 'invalid leap second, negative time-offset (wrong hour)'),
    ('optional/format/time.json', 'validation of time strings', 'invalid leap second, negative time-offset (wrong minute)'),
    ('optional/format/time.json', 'validation of time strings', 'an invalid time string with invalid leap second (wrong hour)'),
    ('optional/format/time.json', 'validation of time strings', 'an invalid time string with invalid leap second (wrong minute)'),
    # optional/format/uri.json
    ('optional/format/uri.json', 'validation of URIs', 'invalid userinfo'),
    ('optional/format/uri.json', 'validation of URIs', 'unescaped non US-ASCII characters'),
    ('optional/format/uri.json', 'validation of URIs', 'invalid backslash character'),
    ('optional/format/uri.json', 'validation of URIs', 'invalid " character'),
    ('optional/format/uri.json', 'validation of URIs', 'invalid <> characters'),
    ('optional/format/uri.json', 'validation of URIs', 'invalid {} characters'),
    ('optional/format/uri.json', 'validation of URIs', 'invalid ^ character'),
    ('optional/format/uri.json', 'validation of URIs', 'invalid ` character'),
    ('optional/format/uri.json', 'validation of URIs', 'invalid | character'),
    ('optional/format/uri.json', 'validation of URIs', 'invalid percent-encoding with non-hex digits'),
    ('optional/format/uri.json', 'validation of URIs', 'incomplete percent-encoding triplet'),
    ('optional/format/uri.json', 'validation of URIs', 'lone percent sign is invalid'),
    ('optional/format/uri.json', 'validation of URIs', 'non-numeric port is invalid'),
    ('optional/format/uri.json', 'validation of URIs', 'leading zero in an embedded IPv4 address is invalid'),
    ('optional/format/uri.json', 'validation of URIs', 'square brackets are not allowed in a path segment'),
}


def compiled_only(schema: Any) -> bool:
    """True when the schema uses only keywords axag compiles (patterns must compile with ``re``, the pattern subset)."""
    if not isinstance(schema, dict):
        return False
    for key, value in schema.items():
        if key not in COMPILED:
            return False
        if key == "items" and not compiled_only(value):
            return False
        if key == "properties" and not (isinstance(value, dict) and all(compiled_only(v) for v in value.values())):
            return False
        if key == "additionalProperties" and value is not False:
            return False
        if key == "pattern":
            try:
                re.compile(value)
            except re.error:
                return False
    return True


def _cases() -> list[tuple[str, str, str, dict[str, Any], Any, bool]]:
    out = []
    for path in sorted(SUITE.rglob("*.json")):
        rel = path.relative_to(SUITE).as_posix()
        for group in json.loads(path.read_text(encoding="utf-8")):
            schema = group["schema"]
            if isinstance(schema, dict):
                schema = {k: v for k, v in schema.items() if k != "$schema"}
            if not compiled_only(schema):
                continue
            for test in group["tests"]:
                out.append((rel, group["description"], test["description"], schema, test["data"], test["valid"]))
    return out


CASES = _cases()


def _wrap(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"p": schema}, "required": ["p"], "additionalProperties": False}


def _expected(rel: str, group: str, test: str, valid: bool) -> bool:
    return not valid if (rel, group, test) in DEVIATIONS else valid


def test_suite_coverage() -> None:
    files = {c[0] for c in CASES}
    assert len(CASES) >= 700
    for name in ("const.json", "enum.json", "multipleOf.json", "type.json", "uniqueItems.json", "required.json",
                 "properties.json", "items.json", "pattern.json", "optional/format/date-time.json"):
        assert name in files
    keys = {(c[0], c[1], c[2]) for c in CASES}
    assert keys >= DEVIATIONS  # every pinned deviation still exists


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}:{c[1]}:{c[2]}" for c in CASES])
def test_suite_case_runtime(case: tuple[str, str, str, dict[str, Any], Any, bool]) -> None:
    rel, group, test, schema, data, valid = case
    guard = pyruntime.ToolGuard(tool="t", intent="t.t", schema=_wrap(schema))
    assert (not guard.check({"p": data}).violations) is _expected(rel, group, test, valid)
    assert (pyruntime.validate_value(schema, data) == []) is _expected(rel, group, test, valid)


def test_suite_cases_generated_package(tmp_path: Path) -> None:
    schemas: dict[str, int] = {}
    tools = []
    for case in CASES:
        key = json.dumps(case[3], sort_keys=True)
        if key not in schemas:
            schemas[key] = len(schemas)
            tools.append({"name": f"s{schemas[key]}", "inputSchema": _wrap(case[3]),
                          "_meta": {"org.axag/action": {"intent": f"s.s{schemas[key]}"}}})
    write_guards({"tools": tools}, tmp_path / "suite_guards")
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("suite_guards")
    finally:
        sys.path.remove(str(tmp_path))
    for rel, group, test, schema, data, valid in CASES:
        guard = module.GUARDS[f"s{schemas[json.dumps(schema, sort_keys=True)]}"]
        assert (not guard.check({"p": data}).violations) is _expected(rel, group, test, valid), (rel, group, test)
