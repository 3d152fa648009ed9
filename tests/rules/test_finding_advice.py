"""Findings that teach: a precondition that names a parameter but is not in the
relational grammar gets 135 with the grammatical rewrite; a role list written as plain text gets its JSON;
a placeholder naming a read-only control says why that control is no parameter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axag.model.relational import parse_relation
from axag.model.relational_hints import suggest
from tests.conftest import run_axag

_FORM = """<form>
  <input name="start_date" type="date" required>
  <input name="end_date" type="date" required>
  <input name="nights" type="number">
  <button axag-intent="room.book" axag-action-type="write" axag-risk-level="low" axag-idempotent="false"
          axag-description="Book a room."
          axag-preconditions='{items}'>Book</button>
</form>
"""


def _lint(tmp_path: Path, html: str, *args: str) -> list[dict[str, Any]]:
    (tmp_path / "p.html").write_text(html, encoding="utf-8")
    res = run_axag(["lint", "--isolated", "--output-format", "json", *args, "p.html"], cwd=tmp_path)
    return list(json.loads(res.stdout)["findings"])


def _msg135(text: str) -> str:
    return (f'Precondition "{text}" mentions parameters but is not in the relational grammar; it is treated as '
            "a state precondition")


def test_135_every_unparsed_precondition_with_its_rewrite(tmp_path: Path) -> None:
    items = '["end_date is later than start_date", "nights at least 1", "nights must be at least 1", ' \
            '"room is free", "nights available"]'
    got = [(f["code"], f["line"], f["column"], f["end_column"], f["message"], f["fix"] and f["fix"]["edits"])
           for f in _lint(tmp_path, _FORM.format(items=items), "--select", "AXAG-LINT-135")]
    assert got == [
        ("AXAG-LINT-135", 7, 32, 67, _msg135("end_date is later than start_date"),
         [{"path": "p.html", "content": '"end_date is after start_date"', "start": {"line": 7, "column": 32},
           "end": {"line": 7, "column": 67}}]),
        ("AXAG-LINT-135", 7, 69, 88, _msg135("nights at least 1"),
         [{"path": "p.html", "content": '"nights >= 1"', "start": {"line": 7, "column": 69}, "end": {"line": 7, "column": 88}}]),
        ("AXAG-LINT-135", 7, 90, 117, _msg135("nights must be at least 1"),
         [{"path": "p.html", "content": '"nights >= 1"', "start": {"line": 7, "column": 90}, "end": {"line": 7, "column": 117}}]),
        # names a parameter, no grammatical reading: reported without a fix ("room is free" names none)
        ("AXAG-LINT-135", 7, 135, 153, _msg135("nights available"), None),
    ]


def test_135_text_format_shows_the_rewrite(tmp_path: Path) -> None:
    (tmp_path / "p.html").write_text(_FORM.format(items='["end_date is later than start_date"]'), encoding="utf-8")
    res = run_axag(["lint", "--isolated", "--select", "AXAG-LINT-135", "p.html"], cwd=tmp_path)
    assert '= help: write "end_date is after start_date"' in res.stdout
    assert '= fix: Rewrite as "end_date is after start_date" (run axag lint --fix)' in res.stdout


def test_135_fix_makes_the_relation_enforced_and_is_idempotent(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(_FORM.format(items='["end_date is later than start_date", "nights at least 1"]'), encoding="utf-8")
    run_axag(["lint", "--isolated", "--fix", "p.html"], cwd=tmp_path)
    fixed = page.read_text(encoding="utf-8")
    assert """axag-preconditions='["end_date is after start_date", "nights >= 1"]'""" in fixed
    run_axag(["lint", "--isolated", "--fix", "p.html"], cwd=tmp_path)
    assert page.read_text(encoding="utf-8") == fixed
    res = run_axag(["compile", "--isolated", "p.html"], cwd=tmp_path)
    pre = json.loads(res.stdout)["tools"][0]["_meta"]["org.axag/action"]["preconditions"]
    assert [(p["kind"], p.get("form")) for p in pre] == [("relational", "greater_than"),
                                                         ("relational", "greater_than_or_equal")]


def test_135_fix_in_a_double_quoted_attribute(tmp_path: Path) -> None:
    html = _FORM.format(items="").replace(
        "axag-preconditions=''", 'axag-preconditions="[&quot;nights at least 1&quot;]"')
    page = tmp_path / "p.html"
    page.write_text(html, encoding="utf-8")
    run_axag(["lint", "--isolated", "--fix", "p.html"], cwd=tmp_path)
    assert 'axag-preconditions="[&quot;nights &gt;= 1&quot;]"' not in page.read_text(encoding="utf-8")
    assert 'axag-preconditions="[&quot;nights >= 1&quot;]"' in page.read_text(encoding="utf-8")


_P = frozenset({"start_date", "end_date", "nights", "guests", "coupon", "customer_id", "email", "phone",
                "vat_id", "country", "a", "b"})


@pytest.mark.parametrize(
    ("item", "rewrite"),
    [
        ("end_date is later than start_date", "end_date is after start_date"),
        ("end_date must be later than start_date.", "end_date must be after start_date"),
        ("end_date is no earlier than start_date", "end_date is on or after start_date"),
        ("end_date must not be before start_date", "end_date is on or after start_date"),
        ("nights at least 1", "nights >= 1"),
        ("nights must be at least 1", "nights >= 1"),
        ("nights must not be more than 5", "nights <= 5"),
        ("guests max 10", "guests <= 10"),
        ("nights=1", "nights == 1"),
        ("nights \u2265 1", "nights >= 1"),
        ("nights must be a positive number", "nights > 0"),
        ("a must be different from b", "a != b"),
        ("coupon needs customer_id", "coupon requires customer_id"),
        ("email and phone cannot both be given", "email and phone are mutually exclusive"),
        ("email or phone is required", "at least one of email or phone"),
        ("one of email, phone", "exactly one of email, phone"),
        ('vat_id is required if country is "DE"', 'vat_id is required when country is "DE"'),
        ("vat_id required when country is given", "vat_id is required when country is given"),
        # no certain reading
        ("nights available", None),
        ("nights at least one", None),
        ("nights at least rooms", None),  # "rooms" is no parameter
        ("nights >= 1", None),  # already in the grammar
    ],
)
def test_suggest(item: str, rewrite: str | None) -> None:
    assert suggest(item, _P) == rewrite


_name = st.sampled_from(sorted(_P))
_operand = st.one_of(_name, st.integers(-99, 99).map(str), st.sampled_from(['"DE"', "'x'", "true", "1.5"]))
_filler = st.sampled_from(["is", "must be", "should be", "must not be", "is not", "", "needs", "and", "or",
                           "at least", "later than", "more than", "equal to", "required when", "given",
                           "cannot both be given", "one of", "positive", "max", "=", "\u2264", ","])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_name, _operand, _filler), min_size=1, max_size=7))
def test_a_suggestion_is_in_the_grammar_and_names_only_parameters(words: list[str]) -> None:
    item = " ".join(w for w in words if w)
    new = suggest(item, _P)
    if new is not None:
        rel = parse_relation(new)
        assert rel is not None, (item, new)
        assert rel.names and set(rel.names) <= _P


# ------------------------------------------------------------------------------------ 106: plain role lists
_ROLES = ('<button axag-intent="order.refund" axag-action-type="write" axag-approval-required="true"\n'
          '        axag-approval-roles="{roles}">Refund</button>\n')


def test_106_plain_role_list_gets_its_json(tmp_path: Path) -> None:
    [f] = _lint(tmp_path, _ROLES.format(roles="admin, owner"), "--select", "AXAG-LINT-106")
    assert (f["line"], f["column"], f["message"]) == (
        2, 30, "axag-approval-roles contains invalid JSON: expected a value")
    assert f["fix"] == {"description": 'Replace with ["admin","owner"]', "edits": [
        {"path": "p.html", "content": '\'["admin","owner"]\'', "start": {"line": 2, "column": 29}, "end": {"line": 2, "column": 43}}]}
    res = run_axag(["lint", "--isolated", "--select", "AXAG-LINT-106", "p.html"], cwd=tmp_path)
    assert '= help: write it as a JSON array: ["admin","owner"]' in res.stdout


def test_106_fix_applies_and_is_idempotent(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(_ROLES.format(roles="admin, owner"), encoding="utf-8")
    run_axag(["lint", "--isolated", "--fix", "p.html"], cwd=tmp_path)
    fixed = page.read_text(encoding="utf-8")
    assert fixed == _ROLES.format(roles="").replace('axag-approval-roles=""',
                                                    """axag-approval-roles='["admin","owner"]'""")
    run_axag(["lint", "--isolated", "--fix", "p.html"], cwd=tmp_path)
    assert page.read_text(encoding="utf-8") == fixed
    assert _lint(tmp_path, fixed, "--select", "AXAG-LINT-106") == []


@pytest.mark.parametrize(
    ("attr", "raw", "fixed"),
    [
        ("axag-approval-roles", "admin", '["admin"]'),
        ("axag-side-effects", "email_sent,stock-reserved", '["email_sent","stock-reserved"]'),
        ("axag-preconditions", "user is logged in", '["user is logged in"]'),
        ("axag-preconditions", "cart is open, user is known", None),  # a comma in a sentence: no certain reading
        ("axag-approval-roles", "[admin, owner]", None),  # broken JSON, not plain text
        ("axag-approval-roles", "head of sales, owner", None),  # not names
    ],
)
def test_106_fix_only_when_certain(tmp_path: Path, attr: str, raw: str, fixed: str | None) -> None:
    html = f'<button axag-intent="order.refund" axag-action-type="write" {attr}="{raw}">Refund</button>\n'
    [f] = _lint(tmp_path, html, "--select", "AXAG-LINT-106")
    assert (f["fix"]["description"] if f["fix"] else None) == (f"Replace with {fixed}" if fixed else None)


# ------------------------------------------------------------------------------------ 129: read-only controls
_READONLY = """<form>
  <input name="nights" type="number" readonly value="2">
  <input name="guest_name">
  <button axag-intent="room.book" axag-action-type="write" axag-confirmation-required="true"
          axag-confirmation-message="Book {{{{nights}}}} nights for {{{{guest_name}}}}?"{extra}>Book</button>
</form>
"""


def test_129_says_why_a_readonly_control_is_no_parameter(tmp_path: Path) -> None:
    [f] = _lint(tmp_path, _READONLY.format(extra=""), "--select", "AXAG-LINT-129")
    assert (f["line"], f["column"], f["end_column"]) == (5, 43, 53)
    assert f["message"] == ('Placeholder "nights" does not name a parameter of "room.book"; <input name="nights"> '
                            "at line 2 is not harvested as a parameter: the control is read-only")
    res = run_axag(["lint", "--isolated", "--select", "AXAG-LINT-129", "p.html"], cwd=tmp_path)
    assert ('= help: declare "nights" in axag-required-parameters or axag-optional-parameters if the caller '
            "sets it, or remove the placeholder") in res.stdout


@pytest.mark.parametrize(
    ("control", "why"),
    [
        ('<input name="nights" disabled>', "the control is disabled"),
        ('<input name="nights" type="hidden">', "hidden inputs are not harvested"),
        ('<textarea name="nights" aria-readonly="true"></textarea>', "the control is read-only"),
    ],
)
def test_129_other_exclusions(tmp_path: Path, control: str, why: str) -> None:
    html = _READONLY.format(extra="").replace('<input name="nights" type="number" readonly value="2">', control)
    [f] = _lint(tmp_path, html, "--select", "AXAG-LINT-129")
    tag = control[1:control.index(" ")]
    assert f["message"].endswith(f'; <{tag} name="nights"> at line 2 is not harvested as a parameter: {why}')


def test_129_plain_when_no_control_has_that_name(tmp_path: Path) -> None:
    html = _READONLY.format(extra="").replace("{{nights}}", "{{rooms}}")
    [f] = _lint(tmp_path, html, "--select", "AXAG-LINT-129")
    assert f["message"] == 'Placeholder "rooms" does not name a parameter of "room.book"'
