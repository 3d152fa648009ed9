"""The rule declarations (indexed by axag/rules/catalogue.py) agree with the SPEC's rule tables (reference rules, axag's own rules, run diagnostics):
code, name, severity (with the second severity of I/W and E/W), level (with "off"), C flag, fix flag and
message templates. Skipped when ../shared/SPEC.md is not there (a failure in this project's CI)."""

from __future__ import annotations

import re

import pytest

from axag.outcome.findings import Fixable, Level, Severity
from axag.rules.catalogue import RULES
from tests.conftest import SHARED, shared_or_skip

SPEC = SHARED / "SPEC.md"


@pytest.fixture(autouse=True)
def _spec() -> None:
    shared_or_skip("SPEC.md")


_SEV = {"E": Severity.ERROR, "W": Severity.WARNING, "I": Severity.INFO}
_LEVEL = {"B": Level.BASIC, "I": Level.INTERMEDIATE, "F": Level.FULL, "—": None}


# Where the SPEC writes prose inside a template, the catalogue spells it as a placeholder; these are the only
# accepted differences (SPEC text -> catalogue text).
_ADAPTED = {
    "{scope | not declared}": "{scope}",  # 016: the value is '"tenant"'-style quoted or "not declared"
    '[; did you mean …]': '[; did you mean "{s}"?]',  # 112: as in 110
    "{first difference}": "{first_difference}",  # 121: placeholder names have no spaces
    "{m} entries": "{entries}",  # 101: "1 entry", "2 entries"
}


# Fix flags changed ahead of the SPEC table: code -> (SPEC cell, cell now).
_AMENDED_FIX = {
    106: ("", "a string list written as plain text"),
    135: ("", "when a grammatical item says the same"),
}


# Messages a rule words beyond the SPEC's templates (the SPEC's come first): code -> their keys.
_WORDED_BEYOND_SPEC = {
    4: ["suggest"],  # the closest value: "…; did you mean "{s}"? …"
    5: ["suggest"],
    107: ["suggest"],
    108: ["suggest"],
    112: ["phone"],  # "…; phone numbers have no format, use a "pattern""
    129: ["unharvested"],  # "…; " and why the control of that name is no parameter
}


def _adapt(template: str) -> str:
    for spec_text, ours in _ADAPTED.items():
        template = template.replace(spec_text, ours)
    return template


def _cells(line: str) -> list[str]:
    # split on | that is not escaped as \|
    parts = re.split(r"(?<!\\)\|", line.strip())
    return [p.strip().replace("\\|", "|") for p in parts[1:-1]]


def _section(text: str, heading: str) -> list[list[str]]:
    start = text.index(heading)
    rest = text[start + len(heading):]
    end = rest.find("\n### ")
    body = rest if end < 0 else rest[:end]
    rows = []
    for line in body.splitlines():
        if re.match(r"^\| \d{3} \|", line):
            rows.append(_cells(line))
    return rows


def _spec_rows() -> dict[int, tuple[str, list[str]]]:
    text = SPEC.read_text(encoding="utf-8")
    out: dict[int, tuple[str, list[str]]] = {}
    for heading in ("### 12.3 ", "### 12.4 ", "### 12.5 "):
        for row in _section(text, heading):
            out[int(row[0])] = (heading.strip("# ").strip(), row)
    return out


# Rules in the catalogue that SPEC.md does not list yet; every other code must match the SPEC
# exactly. Remove a code from here when its row lands in the SPEC's table of axag's own rules (test_not_yet_in_spec then fails).
_NOT_IN_SPEC_YET = {
    148,  # unsupported-file-input: a file input in the scope of an action an agent calls
    149,  # openapi-drift: axag-operation-id against an --openapi document (like 030)
    160, 161, 162, 163, 164,  # the webmcp group: declarative WebMCP attributes on annotated forms
    150,  # critical-without-gate: a critical action with neither confirmation nor approval
    151,  # unbound-action: an action with no HTTP binding, which serve cannot run by itself
    152,  # jsx-expression-in-markup: axag-intent={intent} in a file read as HTML
    153,  # comment-in-start-tag: a comment inside a start tag cuts the annotations off
}


def test_same_codes() -> None:
    assert sorted(_spec_rows()) == sorted(set(RULES) - _NOT_IN_SPEC_YET)


def test_not_yet_in_spec() -> None:
    assert set(RULES) >= _NOT_IN_SPEC_YET
    assert not _NOT_IN_SPEC_YET & set(_spec_rows())


def _rule_rows() -> list[tuple[int, str, list[str]]]:
    if not SPEC.exists():
        return []
    return [(code, sec, row) for code, (sec, row) in sorted(_spec_rows().items()) if sec != "12.5"]


@pytest.mark.parametrize(("code", "section", "row"), _rule_rows(), ids=[f"{c:03d}" for c, _s, _r in _rule_rows()])
def test_rule_metadata(code: int, section: str, row: list[str]) -> None:
    _code, name, sev, level, c_flag, fix_flag, trigger, message = row
    if code in _AMENDED_FIX and fix_flag == _AMENDED_FIX[code][0]:
        fix_flag = _AMENDED_FIX[code][1]
    meta = RULES[code]
    info = meta.info
    assert info.name == name
    assert info.trigger == trigger
    sevs = sev.split("/")
    assert info.severity is _SEV[sevs[0]]
    if len(sevs) == 2:
        assert meta.alt_severity is _SEV[sevs[1]]
    else:
        assert meta.alt_severity is None
    off = level.endswith("(off)")
    assert info.off_by_default is off
    assert info.level is _LEVEL[level.replace("(off)", "").strip()]
    assert info.compile_check is (c_flag == "C")
    if fix_flag == "":
        assert info.fix is Fixable.NEVER
    elif fix_flag == "yes":
        assert info.fix is Fixable.ALWAYS
    else:
        assert info.fix is Fixable.SOMETIMES
        assert meta.fix_note == fix_flag
    templates = [_adapt(t) for t in re.findall(r"`([^`]*)`", message)]
    if templates:
        assert list(meta.messages.values())[: len(templates)] == templates
        assert list(meta.messages)[len(templates):] == _WORDED_BEYOND_SPEC.get(code, [])


@pytest.mark.parametrize("code", [190, 191, 192, 193, 199])
def test_run_diagnostics(code: int) -> None:
    rows = _spec_rows()
    _code, name, sev, _meaning = rows[code][1]
    info = RULES[code].info
    assert info.name == name
    assert info.severity is _SEV[sev]
    assert info.level is None
    assert info.can_disable is (code not in (191, 192, 199))
