"""One definition of a submit control and its form (axag/model/submit.py), shared by harvesting and rule 001."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import codes_at, lint_json


def test_a_button_with_a_blank_type_is_its_forms_submit_button(tmp_path: Path) -> None:
    # HTML: a blank type is the submit state. Rule 001 used to see no submit button here and reported it
    # besides its form; harvesting (which already read it so) gives the action the form's controls.
    (tmp_path / "a.html").write_text('<form>\n<input name="q">\n<button type=" ">Go</button>\n</form>\n',
                                     encoding="utf-8")
    _code, findings = lint_json(["a.html", "--select", "AXAG-LINT-001"], cwd=tmp_path)
    assert codes_at(findings) == [("001", 1, 2)]


def test_harvesting_and_rule_001_agree_on_the_scope(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(
        '<form id="f"><input name="q" axag-parameter-description="Query"></form>\n'
        '<button type="" form="f" axag-intent="site.search" axag-action-type="read" axag-description="Search">'
        'Go</button>\n', encoding="utf-8")
    _code, findings = lint_json(["a.html", "--select", "AXAG-LINT-001,AXAG-LINT-120"], cwd=tmp_path)
    assert findings == []  # the form is the button's parameter scope: covered, and its control is harvested
