"""What new users met: safety and lint semantics, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import codes_at, lint_json, run_axag

_WIPE = ('<form action="/account/delete" method="post" axag-intent="account.delete" axag-action-type="delete"\n'
         '      axag-risk-level="critical" axag-description="Delete the account" axag-idempotent="true"\n'
         '      axag-scope="user" axag-preconditions=\'["signed in"]\'>\n'
         "  <button>Delete</button>\n"
         "</form>\n")


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------- 1: 150
def test_a_critical_action_without_a_gate_fails_lint_and_compile(tmp_path: Path) -> None:
    _write(tmp_path, "a.html", _WIPE)
    code, findings = lint_json(["a.html"], cwd=tmp_path)
    assert code == 1
    assert [(f["code"], f["severity"], f["line"], f["column"]) for f in findings if f["severity"] == "error"] == [
        ("AXAG-LINT-150", "error", 2, 24)]
    gate = next(f for f in findings if f["code"] == "AXAG-LINT-150")
    assert gate["message"] == ('"account.delete" is critical risk but has no gate: add '
                               'axag-confirmation-required="true" or axag-approval-required="true"')
    # one finding per problem: 006 (confirmation) and 026 (approval-required) stay silent beside it
    assert not [f for f in findings if f["code"] == "AXAG-LINT-006"]
    assert not [f for f in findings if f["code"] == "AXAG-LINT-026" and "approval-required" in f["message"]]
    res = run_axag(["compile", "--isolated", "a.html", "-o", "tools.json"], cwd=tmp_path)
    assert res.exit_code == 1
    assert "AXAG-LINT-150" in res.output
    assert not (tmp_path / "tools.json").exists()


def test_high_risk_without_confirmation_stays_a_warning(tmp_path: Path) -> None:
    _write(tmp_path, "a.html", _WIPE.replace('"critical"', '"high"'))
    code, findings = lint_json(["a.html"], cwd=tmp_path)
    assert code == 0
    assert "AXAG-LINT-006" in {f["code"] for f in findings}
    assert run_axag(["compile", "--isolated", "a.html", "-o", "tools.json"], cwd=tmp_path).exit_code == 0


def test_a_gate_passes(tmp_path: Path) -> None:
    for gate in ('axag-confirmation-required="true"', 'axag-approval-required="true" axag-approval-roles=\'["ops"]\''):
        _write(tmp_path, "a.html", _WIPE.replace('axag-scope="user"', f'axag-scope="user" {gate}'))
        _code, findings = lint_json(["a.html"], cwd=tmp_path)
        assert "AXAG-LINT-150" not in {f["code"] for f in findings}, gate
        assert run_axag(["compile", "--isolated", "a.html", "-o", "tools.json"], cwd=tmp_path).exit_code == 0


def test_compile_writes_it_only_when_the_finding_is_suppressed_with_a_reason(tmp_path: Path) -> None:
    _write(tmp_path, "a.html", "<!-- axag-disable-next-line AXAG-LINT-150 -->\n" + _WIPE)
    res = run_axag(["compile", "--isolated", "a.html", "-o", "tools.json"], cwd=tmp_path)
    assert res.exit_code == 1 and not (tmp_path / "tools.json").exists()
    assert "lifts it in compile only with a reason" in res.output
    _write(tmp_path, "a.html", "<!-- axag-disable-next-line AXAG-LINT-150 -- the page asks twice -->\n" + _WIPE)
    res = run_axag(["compile", "--isolated", "a.html", "-o", "tools.json"], cwd=tmp_path)
    assert res.exit_code == 0, res.output
    tools = json.loads((tmp_path / "tools.json").read_text(encoding="utf-8"))
    assert [t["name"] for t in tools["tools"]] == ["account_delete"]
    # lint agrees (it is suppressed there too), and other C-rule errors are never lifted by a reason
    assert lint_json(["a.html"], cwd=tmp_path)[0] == 0
    _write(tmp_path, "b.html", "<!-- axag-disable-next-line AXAG-LINT-100 -- not lifted -->\n"
           + _WIPE.replace('axag-scope="user"', 'axag-scope="user" axag-confirmation-required="true" axag-bogus="1"'))
    assert run_axag(["compile", "--isolated", "b.html", "-o", "b.json"], cwd=tmp_path).exit_code == 1


def test_every_safety_finding_fails_ci_with_the_documented_setting(tmp_path: Path) -> None:
    """The documented one line (lint.severity, docs/lint/configuration.md) makes the safety warnings errors."""
    from tests.conftest import REPO

    readme = (REPO / "docs" / "lint" / "configuration.md").read_text(encoding="utf-8")
    line = next(x for x in readme.splitlines() if x.startswith("severity = {") and '"AXAG-LINT-006" = "error"' in x
                and '"AXAG-LINT-021" = "error"' in x)
    _write(tmp_path, "pyproject.toml", f"[tool.axag.lint]\n{line}\n")
    _write(tmp_path, "a.html", _WIPE.replace('"critical"', '"high"'))
    res = run_axag(["lint", "--output-format", "concise", "a.html"], cwd=tmp_path)
    assert res.exit_code == 1, res.output
    assert "a.html:2:24: AXAG-LINT-006" in res.output


# ---------------------------------------------------------------------------------------------- 2: 101
def test_constraints_migrate_onto_harvested_controls(tmp_path: Path) -> None:
    page = ('<form action="/book" method="post" axag-intent="room.book" axag-action-type="write"\n'
            '      axag-risk-level="low" axag-idempotent="false" axag-side-effects=\'["books a room"]\'\n'
            '      axag-description="Book a room"\n'
            '      axag-constraints=\'{"duration": {"min": 15, "max": 60}, "note": {"maxLength": 200},'
            ' "size": "size <= 12"}\'>\n'
            '  <label>Duration <input name="duration" type="number"></label>\n'
            '  <label>Note <textarea name="note"></textarea></label>\n'
            '  <label>Size <input name="size" type="number"></label>\n'
            "  <button>Book</button>\n"
            "</form>\n")
    _write(tmp_path, "m.html", page)
    _code, findings = lint_json(["m.html"], cwd=tmp_path)
    assert [f["message"] for f in findings if f["code"] == "AXAG-LINT-101"] == [
        "axag-constraints is not part of AXAG 1.1; 3 of 3 entries can be migrated with --fix"]
    res = run_axag(["lint", "--isolated", "--fix", "m.html"], cwd=tmp_path)
    assert res.exit_code == 0, res.output
    assert (tmp_path / "m.html").read_text(encoding="utf-8") == (
        '<form action="/book" method="post" axag-intent="room.book" axag-action-type="write"\n'
        '      axag-risk-level="low" axag-idempotent="false" axag-side-effects=\'["books a room"]\'\n'
        '      axag-description="Book a room">\n'
        '  <label>Duration <input name="duration" type="number" axag-parameter-min="15" axag-parameter-max="60">'
        "</label>\n"
        '  <label>Note <textarea name="note" axag-parameter-max-length="200"></textarea></label>\n'
        '  <label>Size <input name="size" type="number" axag-parameter-max="12"></label>\n'
        "  <button>Book</button>\n"
        "</form>\n")
    assert run_axag(["compile", "--isolated", "m.html", "-o", "t.json"], cwd=tmp_path).exit_code == 0
    schema = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))["tools"][0]["inputSchema"]["properties"]
    assert (schema["duration"]["minimum"], schema["duration"]["maximum"]) == (15, 60)
    assert schema["note"]["maxLength"] == 200 and schema["size"]["maximum"] == 12


def test_a_bound_that_does_not_fit_the_control_stays_with_its_reason(tmp_path: Path) -> None:
    page = ('<form action="/s" method="get" axag-intent="room.search" axag-action-type="read"\n'
            '      axag-risk-level="none" axag-description="Search"\n'
            '      axag-constraints=\'{"code": {"min": 1}}\'>\n'
            '  <label>Code <input name="code"></label>\n'
            "  <button>Go</button>\n"
            "</form>\n")
    _write(tmp_path, "m.html", page)
    _code, findings = lint_json(["m.html"], cwd=tmp_path)
    assert [f["message"] for f in findings if f["code"] == "AXAG-LINT-101"] == [
        "axag-constraints is not part of AXAG 1.1; 0 of 1 entry can be migrated with --fix",
        ('axag-constraints entry "code": manual migration needed: migrating it would raise AXAG-LINT-115 (Parameter "code": "min" does '
        'not apply to type "string")')]


# ---------------------------------------------------------------------------------------------- 3, 4: did you mean
_TYPOS = ('<form action="/y" method="post" axag-intent="team.remove" axag-action-type="delete"\n'
          '      axag-risk-level="hgih" axag-scope="tennant" axag-description="Remove" axag-idempotent="true"\n'
          '      axag-confirmation-required="true" axag-preconditions=\'["a"]\'\n'
          '      axag-aproval-required="true" axag-approval-roles=\'["admin"]\'\n'
          '      axag-required-parameters=\'[{"name": "reason", "type": "string", "descripton": "Why"}]\'>\n'
          '  <button>Go</button>\n'
          "</form>\n")


def test_values_get_a_did_you_mean_and_the_typos_drag_nothing_along(tmp_path: Path) -> None:
    _write(tmp_path, "t.html", _TYPOS)
    _code, findings = lint_json(["t.html"], cwd=tmp_path)
    assert [(f["code"], f["message"]) for f in findings] == [
        ("AXAG-LINT-005", ('Invalid axag-risk-level="hgih"; did you mean "high"? Must be one of: none, low, medium, '
                          "high, critical")),
        ("AXAG-LINT-107", ('Invalid axag-scope="tennant"; did you mean "tenant"? Must be one of: public, user, '
                          "tenant, global")),
        ("AXAG-LINT-100", 'Unknown attribute "axag-aproval-required"; did you mean "axag-approval-required"?'),
        ("AXAG-LINT-110", 'Parameter "reason": unknown key "descripton"; did you mean "description"?'),
    ]
    assert all(f["fix"]["applicability"] == "unsafe" for f in findings)


def test_a_misspelt_scope_attribute_drags_no_scope_findings(tmp_path: Path) -> None:
    _write(tmp_path, "t.html", '<form action="/drop" method="post" axag-intent="team.drop" axag-action-type="delete"\n'
           '      axag-risk-level="high" axag-confirmation-required="true" axag-idempotent="true"\n'
           '      axag-preconditions=\'["a"]\' axag-scpoe="tenant" axag-description="Drop"><button>Drop</button></form>\n')
    _code, findings = lint_json(["t.html"], cwd=tmp_path)
    assert codes_at(findings) == [("100", 3, 34)]


def test_unsafe_fixes_apply_only_with_the_flag(tmp_path: Path) -> None:
    path = _write(tmp_path, "t.html", _TYPOS)
    res = run_axag(["lint", "--isolated", "--fix", "--output-format", "concise", "t.html"], cwd=tmp_path)
    assert res.exit_code == 1
    assert path.read_text(encoding="utf-8") == _TYPOS
    assert res.output.splitlines()[-1] == ("Found 4 errors, 0 warnings, 0 infos (0 fixable with --fix; 4 more with "
                                           "--unsafe-fixes).")
    diff = run_axag(["lint", "--isolated", "--diff", "--unsafe-fixes", "t.html"], cwd=tmp_path)
    assert diff.exit_code == 1 and '+      axag-risk-level="high" axag-scope="tenant"' in diff.output
    assert path.read_text(encoding="utf-8") == _TYPOS
    res = run_axag(["lint", "--isolated", "--fix", "--unsafe-fixes", "--output-format", "concise", "t.html"],
                   cwd=tmp_path)
    assert res.exit_code == 0, res.output
    assert res.output.splitlines() == ["Fixed 4 findings.", "All checks passed."]
    assert path.read_text(encoding="utf-8") == (
        _TYPOS.replace("hgih", "high").replace("tennant", "tenant").replace("aproval", "approval")
        .replace('\'[{"name": "reason", "type": "string", "descripton": "Why"}]\'',
                 '\'[{"name":"reason","type":"string","description":"Why"}]\''))


def test_case_fixes_stay_safe(tmp_path: Path) -> None:
    path = _write(tmp_path, "t.html", _TYPOS.replace("hgih", "HIGH"))
    res = run_axag(["lint", "--isolated", "--fix", "--output-format", "concise", "t.html"], cwd=tmp_path)
    assert 'axag-risk-level="high"' in path.read_text(encoding="utf-8")
    assert "0 fixable with --fix; 3 more with --unsafe-fixes" in res.output


# ---------------------------------------------------------------------------------------------- 7: 032
def test_a_declared_description_labels_the_harvested_control(tmp_path: Path) -> None:
    _write(tmp_path, "s.html", (
        '<form action="/search" method="get" axag-intent="search.run" axag-action-type="read"\n'
        '      axag-risk-level="none" axag-description="Search"\n'
        '      axag-required-parameters=\'[{"name": "query", "type": "string", "description": "Words"}]\'>\n'
        '  <input name="query" placeholder="Search">\n'
        '  <input name="page" placeholder="Page">\n'
        "  <button>Go</button>\n"
        "</form>\n"))
    _code, findings = lint_json(["s.html"], cwd=tmp_path)
    assert [(f["code"], f["line"], f["message"]) for f in findings] == [
        ("AXAG-LINT-032", 5, ('Parameter "page" has no label, aria-label or axag-parameter-description; a placeholder '
                             "is not a label"))]


# ---------------------------------------------------------------------------------------------- 8: 152
def test_jsx_in_an_html_file_gives_one_finding_per_element(tmp_path: Path) -> None:
    _write(tmp_path, "j.html", '<button axag-intent={intent} axag-action-type={type} axag-risk-level={risk}>Go'
           "</button>\n")
    code, findings = lint_json(["j.html"], cwd=tmp_path)
    assert code == 1
    assert [(f["code"], f["line"], f["column"], f["message"]) for f in findings] == [
        ("AXAG-LINT-152", 1, 21, ('<button> has JSX expressions in axag-intent, axag-action-type, axag-risk-level, '
         'but this .html file is read as HTML, where "{intent}" is text; write the component in a .jsx or .tsx '
         "file to have it read as one"))]
    assert run_axag(["compile", "--isolated", "j.html", "-o", "t.json"], cwd=tmp_path).exit_code == 1


def test_braces_in_a_component_are_expressions(tmp_path: Path) -> None:
    _write(tmp_path, "j.jsx", 'export const B = ({intent}) => <button axag-intent={intent} axag-action-type="read"'
           ' axag-risk-level="none">Go</button>;\n')
    _code, findings = lint_json(["j.jsx"], cwd=tmp_path)
    assert "AXAG-LINT-152" not in {f["code"] for f in findings}


# ---------------------------------------------------------------------------------------------- 9: 153
def test_a_comment_inside_a_start_tag_is_named(tmp_path: Path) -> None:
    _write(tmp_path, "c.html", '<button <!-- primary --> axag-intent="cart.clear" axag-action-type="delete"'
           ' axag-risk-level="high">Clear</button>\n')
    code, findings = lint_json(["c.html"], cwd=tmp_path)
    assert code == 1
    assert [(f["code"], f["line"], f["column"], f["end_column"], f["message"]) for f in findings] == [
        ("AXAG-LINT-153", 1, 9, 25, ('The comment inside <button> ends its start tag at "-->": axag-intent, '
         "axag-action-type, axag-risk-level after it are text, not attributes; move the comment out of the tag"))]
