"""Reporters (lint options --statistics, output formats): golden files for every format, plus targeted checks."""

from __future__ import annotations

import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axag.outcome.findings import (
    Edit,
    Finding,
    Fix,
    Fixable,
    Level,
    RuleInfo,
    RunReport,
    Severity,
    fingerprint,
)
from axag.report import FORMATS, HUMAN_FORMATS, escape_text, render
from axag.report.github import escape_data, escape_property

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN = DATA / "report"
UPDATE = os.environ.get("AXAG_UPDATE_GOLDENS") == "1"
ANSI = re.compile(r"\x1b\[[0-9;]*m")

RULES = [
    RuleInfo(4, "invalid-action-type", Severity.ERROR, Level.BASIC, True, Fixable.SOMETIMES,
             'Invalid axag-action-type="{v}". Must be one of: read, write, delete, navigate',
             trigger="value not in enum (except `create`/`mutate` in any case)",
             fails='<button axag-intent="cart.clear" axag-action-type="reed">Clear</button>',
             passes='<button axag-intent="cart.clear" axag-action-type="read">Clear</button>'),
    RuleInfo(6, "high-risk-without-confirmation", Severity.WARNING, Level.INTERMEDIATE, False,
             Fixable.SOMETIMES, 'axag-risk-level="{r}" should have axag-confirmation-required="true"',
             trigger="risk `high`/`critical`, confirmation absent or `false`"),
    RuleInfo(9, "invalid-parameter-list", Severity.ERROR, Level.BASIC, True, Fixable.NEVER,
             "{attr} contains invalid JSON: {detail}", trigger="parameter list not valid JSON"),
    RuleInfo(25, "elevated-risk-read", Severity.INFO, Level.INTERMEDIATE, False, Fixable.NEVER,
             'Read action has risk "{r}"; reads are usually "none" or "low"',
             trigger="`read` with risk `medium` or `high`"),
    RuleInfo(190, "file-skipped", Severity.INFO, None, False, Fixable.NEVER,
             "not text (contains NUL bytes) or not a supported file; skipped",
             trigger="not text (contains NUL bytes) or not a supported file; skipped"),
]

CART = (
    "<form>",
    '  <button axag-intent="cart.clear" axag-action-type="reed">Clear</button>',
    "</form>",
)
TAB_LINE = '\t<button axag-intent="account.delete"\taxag-risk-level="high">Delete</button>'
TAB_COL = TAB_LINE.index("high") + 1


def _f(code: int, sev: Severity, msg: str, path: str, line: int, col: int, end_line: int, end_col: int,
       *, anchor: str = "", attribute: str | None = None, **kw: object) -> Finding:
    name = {r.code: r.name for r in RULES}[code]
    repo_path = "site/" + path
    return Finding(code, sev, msg, path, line, col, end_line, end_col, name=name, repo_path=repo_path,
                   attribute=attribute, anchor=anchor,
                   fingerprint=fingerprint(code, repo_path, anchor, attribute, 0), **kw)  # type: ignore[arg-type]


def sample_run() -> RunReport:
    """An error, a warning, an info, a fixable finding, a multi-line span, a tab, a suppressed finding."""
    col = CART[1].index("reed") + 1
    fix = Fix('Replace "reed" with "read"', (Edit(77, 81, "read", 2, col, 2, col + 4),))
    err = _f(4, Severity.ERROR, 'Invalid axag-action-type="reed". Must be one of: read, write, delete, navigate',
             "cart.html", 2, col, 2, col + 4, anchor="cart.clear", attribute="axag-action-type",
             help='did you mean "read"?', fix=fix,
             context=((1, CART[0]), (2, CART[1]), (3, CART[2])))
    warn_fix = Fix('Add axag-confirmation-required="true"',
                   (Edit(60, 60, ' axag-confirmation-required="true"', 1, 61, 1, 61),))
    warn = _f(6, Severity.WARNING, 'axag-risk-level="high" should have axag-confirmation-required="true"',
              "account.html", 1, TAB_COL, 1, TAB_COL + 4, anchor="account.delete", attribute="axag-risk-level",
              fix=warn_fix, context=((1, TAB_LINE), (2, "<p>Gone for good.</p>")))
    multi = _f(9, Severity.ERROR, "axag-parameters contains invalid JSON: Expecting ',' delimiter",
               "search.html", 3, 23, 5, 8, anchor="search.run", attribute="axag-parameters",
               context=((2, '<form axag-intent="search.run" axag-action-type="read"'),
                        (3, '      axag-parameters=\'["q",'), (4, '        "page" "size"'), (5, "      ]'>"),
                        (6, "</form>")))
    info = _f(25, Severity.INFO, 'Read action has risk "medium"; reads are usually "none" or "low"',
              "search.html", 2, 2, 2, 6, anchor="search.run", attribute="axag-risk-level",
              context=((1, "<main>"), (2, '<form axag-intent="search.run" axag-action-type="read"'),
                       (3, '      axag-parameters=\'["q",')))
    supp = _f(25, Severity.INFO, 'Read action has risk "high"; reads are usually "none" or "low"',
              "cart.html", 5, 9, 5, 13, anchor="cart.view", attribute="axag-risk-level",
              suppression="inSource", justification="reviewed with security")
    findings = sorted([err, warn, multi, info], key=Finding.sort_key)
    return RunReport(findings=findings, suppressed=[supp], rules=list(RULES), files=4, exit_code=1,
                     tool_version="0.1.0")


def hostile_run() -> RunReport:
    msg = 'Unknown attribute "x]]>\x00\x1b[31mred\x1b[0m</script>\u2028%,:\r\nend"'
    f = _f(4, Severity.ERROR, msg, "evil\x1b[2J.html", 1, 2, 1, 5, anchor="a",
           help="try \x1b]0;title\x07", context=((1, "<a \x1b[31m\tb>"),))
    return RunReport(findings=[f], rules=list(RULES), files=1, exit_code=1, tool_version="0.1.0")


GOLDEN_NAMES = {
    "full": "full.txt",
    "concise": "concise.txt",
    "json": "json.json",
    "json-lines": "json-lines.jsonl",
    "github": "github.txt",
    "gitlab": "gitlab.json",
    "sarif": "sarif.json",
    "junit": "junit.xml",
    "statistics": "statistics.txt",
}


@pytest.mark.parametrize("fmt", sorted(GOLDEN_NAMES))
def test_golden(fmt: str) -> None:
    out = render(fmt, sample_run(), color=False)
    path = GOLDEN / GOLDEN_NAMES[fmt]
    if UPDATE:  # pragma: no cover - regenerating goldens
        path.write_text(out, encoding="utf-8", newline="\n")
    assert out == path.read_text(encoding="utf-8")
    assert out.endswith("\n") and "\r" not in out
    assert render(fmt, sample_run(), color=False) == out  # deterministic


def test_formats_registry() -> None:
    assert list(FORMATS) == ["full", "concise", "json", "json-lines", "github", "gitlab", "sarif", "junit", "html"]
    with pytest.raises(ValueError):
        render("xml", sample_run())


# ---------------------------------------------------------------- full / concise / statistics


def test_full_tab_underline_is_under_the_span() -> None:
    out = render("full", sample_run())
    lines = out.splitlines()
    i = next(n for n, text in enumerate(lines) if text.startswith("1 |     <button"))
    shown, carets = lines[i], lines[i + 1]
    assert "\t" not in shown
    assert carets.index("^") == shown.index("high") and carets.count("^") == 4


def test_full_multiline_span_first_line_then_ellipsis() -> None:
    out = render("full", sample_run())
    assert "3 |       axag-parameters='[\"q\",\n  |                       ^^^^^^…\n4 |" in out
    assert "5 |" not in out  # only one line after the span's first line


def test_full_escapes_controls_and_wide_characters() -> None:
    f = replace(hostile_run().findings[0], column=4, end_column=7, context=((1, "<a \x1b[31m\tb>"),))
    out = render("full", RunReport(findings=[f], rules=list(RULES)))
    assert "\x1b" not in out and "\x00" not in out and "\u2028" not in out
    assert "1 | <a \\x1b[31m    b>\n  |    ^^^^^^\n" in out  # span "\x1b[3" is 4 + 1 + 1 columns wide
    wide = replace(f, column=2, end_column=3, context=((1, "漢字x"),))
    assert "1 | 漢字x\n  |   ^^\n" in render("full", RunReport(findings=[wide]))


def test_full_escapes_message_path_and_help() -> None:
    out = render("full", hostile_run())
    assert out.startswith(
        'error[AXAG-LINT-004]: Unknown attribute "x]]>\\x00\\x1b[31mred\\x1b[0m</script>\\u2028%,:\\r\\nend"\n'
        " --> evil\\x1b[2J.html:1:2\n"
    )
    assert "  = help: try \\x1b]0;title\\x07\n" in out
    assert "\x1b" not in out


@pytest.mark.parametrize("fmt", sorted(HUMAN_FORMATS))
@pytest.mark.parametrize("make", [sample_run, hostile_run, RunReport])
def test_colour_is_the_plain_layout_with_styles(fmt: str, make: object) -> None:
    run = make()  # type: ignore[operator]
    plain = render(fmt, run, color=False)
    coloured = render(fmt, run, color=True)
    assert "\x1b[" in coloured
    assert ANSI.sub("", coloured) == plain
    # every ESC in the coloured output starts an SGR sequence produced by rich, none comes from the text
    assert coloured.count("\x1b") == len(ANSI.findall(coloured))


def test_machine_formats_are_never_coloured() -> None:
    for fmt in FORMATS:
        if fmt not in HUMAN_FORMATS:
            assert render(fmt, sample_run(), color=True) == render(fmt, sample_run(), color=False)


def test_concise_line() -> None:
    out = render("concise", hostile_run(), quiet=True)
    assert out == (
        'evil\\x1b[2J.html:1:2: AXAG-LINT-004 Unknown attribute "x]]>\\x00\\x1b[31mred\\x1b[0m'
        '</script>\\u2028%,:\\r\\nend"\n'
    )


def test_summaries() -> None:
    assert render("full", RunReport()) == "All checks passed.\n"
    assert render("concise", RunReport()) == "All checks passed.\n"
    assert render("full", RunReport(), quiet=True) == ""
    run = RunReport(fixed=3, baseline_stale=2)
    assert render("concise", run) == (
        "Fixed 3 findings.\nAll checks passed.\n"
        "2 baseline entries no longer occur (run axag lint --update-baseline to prune them).\n"
    )
    assert not render("full", sample_run(), quiet=True).rstrip().endswith("--fix).")


def test_statistics_sorted_by_count_then_code() -> None:
    base = sample_run()
    extra = [replace(f, line=f.line + 10) for f in base.findings if f.code in (9, 25)]
    run = replace(base, findings=base.findings + extra + [replace(extra[1], line=40)])
    out = render("statistics", run, quiet=True)
    assert out == (
        "3  AXAG-LINT-009  invalid-parameter-list\n"
        "2  AXAG-LINT-025  elevated-risk-read\n"
        "1  AXAG-LINT-004  invalid-action-type             [*]\n"
        "1  AXAG-LINT-006  high-risk-without-confirmation  [*]\n"
    )


# ---------------------------------------------------------------- machine formats


def test_json_and_json_lines() -> None:
    doc = json.loads(render("json", sample_run()))
    assert doc["summary"] == {"errors": 2, "warnings": 1, "infos": 1, "fixable": 2, "files": 4, "elements": 0, "actions": 0,
                              "suppressed": 1}
    assert json.loads(render("json", RunReport()))["findings"] == []
    out = render("json-lines", hostile_run())
    assert len(out.splitlines()) == 1 and out.count("\n") == 1
    assert json.loads(out)["message"] == hostile_run().findings[0].message
    assert render("json-lines", RunReport()) == ""


def test_github_escaping() -> None:
    assert escape_data("100% a\r\nb: c, d") == "100%25 a%0D%0Ab: c, d"
    assert escape_property("100% a\r\nb: c, d") == "100%25 a%0D%0Ab%3A c%2C d"
    f = replace(hostile_run().findings[0], message="50%\r\nx: y, z", repo_path="a:b,c.html")
    out = render("github", RunReport(findings=[f]))
    assert out == (
        "::error file=a%3Ab%2Cc.html,line=1,endLine=1,col=2,endColumn=5,title=axag (AXAG-LINT-004)"
        "::a:b,c.html:1:2: AXAG-LINT-004 50%25%0D%0Ax: y, z\n"
    )


def test_gitlab_parses() -> None:
    issues = json.loads(render("gitlab", sample_run()))
    assert [i["severity"] for i in issues] == ["minor", "major", "info", "major"]
    assert issues[3]["location"] == {
        "path": "site/search.html",
        "positions": {"begin": {"line": 3, "column": 23}, "end": {"line": 5, "column": 8}},
    }
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    assert json.loads(render("gitlab", hostile_run()))[0]["description"].startswith("AXAG-LINT-004 Unknown")


def _sarif_validator() -> object:
    import jsonschema

    schema = json.loads((DATA / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    assert cls is jsonschema.Draft4Validator
    cls.check_schema(schema)
    return cls(schema)


@pytest.mark.parametrize("make", [sample_run, hostile_run, RunReport])
def test_sarif_validates(make: object) -> None:
    validator = _sarif_validator()
    doc = json.loads(render("sarif", make()))  # type: ignore[operator]
    errors = list(validator.iter_errors(doc))  # type: ignore[attr-defined]
    assert errors == []


def test_sarif_content() -> None:
    base = sample_run()
    baselined = replace(base.findings[0], suppression="external", justification="recorded in the baseline")
    run = replace(base, findings=base.findings[1:], suppressed=[*base.suppressed, baselined], exit_code=2)
    sarif = json.loads(render("sarif", run))["runs"][0]
    assert sarif["invocations"] == [{"executionSuccessful": False, "exitCode": 2}]
    assert [r["id"] for r in sarif["tool"]["driver"]["rules"]] == [
        "AXAG-LINT-004", "AXAG-LINT-006", "AXAG-LINT-009", "AXAG-LINT-025", "AXAG-LINT-190"
    ]
    results = sarif["results"]
    assert len(results) == 5
    assert [r.get("suppressions") for r in results if "suppressions" in r] == [
        [{"kind": "external", "justification": "recorded in the baseline"}],
        [{"kind": "inSource", "justification": "reviewed with security"}],
    ]
    for r in results:
        assert sarif["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
    space = replace(base.findings[0], repo_path="my site/é.html")
    uri = json.loads(render("sarif", RunReport(findings=[space])))["runs"][0]["results"][0]["locations"][0]
    assert uri["physicalLocation"]["artifactLocation"] == {"uri": "my%20site/%C3%A9.html", "uriBaseId": "%SRCROOT%"}


def test_junit_well_formed_for_hostile_text() -> None:
    out = render("junit", hostile_run())
    root = ET.fromstring(out.encode("utf-8"))
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None
    assert failure.get("message") == (
        'Unknown attribute "x]]>\\x00\\x1b[31mred\\x1b[0m</script>\u2028%,:\r\nend"'
    )
    assert failure.get("type") == "error"
    suite = root.find("testsuite")
    assert suite is not None and suite.get("name") == "site/evil\\x1b[2J.html"
    assert "\x1b" not in out and "\x00" not in out and "</script>" not in out


def test_junit_clean_run_has_one_passing_case() -> None:
    root = ET.fromstring(render("junit", RunReport(files=3)))
    assert root.attrib == {"name": "axag", "tests": "1", "failures": "0"}
    case = root.find("testsuite/testcase")
    assert case is not None and case.get("name") == "axag" and list(case) == []


def test_escape_text() -> None:
    assert escape_text("plain ü 漢") == "plain ü 漢"
    assert escape_text("a\tb\x1b\x7f\x9b\u202e\u2029") == "a\\tb\\x1b\\x7f\\x9b\\u202e\\u2029"


def test_non_colour_rendering_does_not_import_rich() -> None:
    import subprocess

    code = (
        "import sys\n"
        "from axag.outcome.findings import RunReport\n"
        "from axag.report import FORMATS, render\n"
        "for fmt in [*FORMATS, 'statistics']:\n"
        "    if fmt != 'html':  # the page is rendered by jinja2\n"
        "        render(fmt, RunReport())\n"
        "heavy = [m for m in ('rich', 'jinja2', 'jsonschema', 'bs4') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# ---------------------------------------------------------------- properties



@settings(max_examples=60, deadline=None)
@given(message=st.text(), line=st.text(max_size=20), path=st.text(min_size=1, max_size=10))
def test_any_text_stays_safe(message: str, line: str, path: str) -> None:
    f = replace(hostile_run().findings[0], message=message, path=path, repo_path=path, help=message,
                column=1, end_column=len(line) + 1, context=((1, line),))
    run = RunReport(findings=[f], rules=list(RULES), files=1, exit_code=1)
    ET.fromstring(render("junit", run).encode("utf-8"))
    assert json.loads(render("json", run))["findings"][0]["message"] == message
    assert len(render("json-lines", run).splitlines()) == 1
    assert render("github", run).count("\n") == 1  # the runner reads workflow commands line by line (LF)
    for fmt in ("full", "concise"):
        plain = render(fmt, run)
        assert not any(ch in plain for ch in "\x1b\x00\x9b\u2028\u202e")
        coloured = render(fmt, run, color=True)
        assert ANSI.sub("", coloured) == plain


def test_colour_output_ignores_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = render("full", sample_run(), color=True)
    for name, value in {"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "20", "FORCE_COLOR": "", "TTY_COMPATIBLE": "0"}.items():
        monkeypatch.setenv(name, value)
    assert render("full", sample_run(), color=True) == expected  # the CLI decides colour, not rich


@pytest.mark.parametrize("fmt", [*FORMATS, "statistics"])
@pytest.mark.parametrize("quiet", [False, True])
def test_pieces_are_the_whole_report(fmt: str, quiet: bool) -> None:
    """Reports are written piece by piece (a big one is never held whole); the pieces make the same text."""
    from axag.report import render_chunks

    for report in (sample_run(), RunReport(), hostile_run()):
        for color in (False, True):
            assert "".join(render_chunks(fmt, report, color=color, quiet=quiet)) == \
                render(fmt, report, color=color, quiet=quiet)


def test_findings_survive_pickling() -> None:
    """Findings cross from worker processes pickled as their field values: every field comes back."""
    import pickle

    for f in [*sample_run().findings, *sample_run().suppressed, *hostile_run().findings]:
        back = pickle.loads(pickle.dumps(f, pickle.HIGHEST_PROTOCOL))
        assert back == f and back.fix == f.fix and back.context == f.context
