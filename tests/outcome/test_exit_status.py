"""One mapping from outcomes to exit codes and one builder of finding 191, shared by lint and compile."""

from __future__ import annotations

from pathlib import Path

import pytest

from axag.cli.common import exit_status, unreadable_file
from axag.outcome.exit_codes import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from axag.outcome.findings import Finding, Severity, fingerprint
from tests.conftest import chdir, lint_json, run_axag


def _finding(severity: Severity) -> Finding:
    return Finding(code=1, severity=severity, message="m", path="a.html", line=1, column=1, end_line=1,
                   end_column=1)


@pytest.mark.parametrize(("severities", "fail_on", "exit_zero", "internal", "expected"), [
    ((), None, False, False, EXIT_OK),
    ((Severity.WARNING,), None, False, False, EXIT_OK),
    ((Severity.ERROR,), None, False, False, EXIT_FINDINGS),
    ((Severity.WARNING,), Severity.WARNING, False, False, EXIT_FINDINGS),
    ((Severity.INFO,), Severity.INFO, False, False, EXIT_OK),  # info never fails
    ((Severity.ERROR,), None, True, False, EXIT_OK),
    ((Severity.ERROR,), None, True, True, EXIT_ERROR),  # an internal error wins over --exit-zero
    ((), None, False, True, EXIT_ERROR),
])
def test_exit_status(severities: tuple[Severity, ...], fail_on: Severity | None, exit_zero: bool, internal: bool,
                     expected: int) -> None:
    findings = [_finding(s) for s in severities]
    assert exit_status(findings, fail_on=fail_on, exit_zero=exit_zero, internal_error=internal) == expected


@pytest.mark.parametrize(("severities", "exit_zero", "internal", "expected"), [
    ((), False, False, EXIT_FINDINGS),  # compile --check: a stale file; lint --diff: changes
    ((), True, False, EXIT_FINDINGS),  # whatever --exit-zero says
    ((Severity.ERROR,), False, False, EXIT_FINDINGS),
    ((), False, True, EXIT_ERROR),  # an internal error wins
])
def test_exit_status_of_a_stale_output(severities: tuple[Severity, ...], exit_zero: bool, internal: bool,
                                       expected: int) -> None:
    findings = [_finding(s) for s in severities]
    assert exit_status(findings, exit_zero=exit_zero, internal_error=internal, stale=True) == expected


def test_the_commands_set_no_exit_status_of_their_own() -> None:
    """`exit_status` is the one mapping: no command returns, exits with or raises a literal status."""
    import ast

    root = Path(__file__).resolve().parents[2] / "axag" / "cli"
    literal: list[str] = []
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = None
            if isinstance(node, ast.Return) and node.value is not None:
                value = node.value
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                    "exit", "Exit") and node.args:
                value = node.args[0]
            if isinstance(value, ast.Constant) and isinstance(value.value, int) and not isinstance(value.value,
                                                                                                   bool):
                literal.append(f"{path.name}:{node.lineno}")
    assert literal == []


def test_unreadable_file_finding() -> None:
    f = unreadable_file("dir/a.html", "cannot read it", "x/dir/a.html")
    assert (f.code, f.severity, f.name, f.message, f.path, f.repo_path) == (
        191, Severity.ERROR, "unreadable-file", "cannot read it", "dir/a.html", "x/dir/a.html")
    assert (f.line, f.column, f.end_line, f.end_column) == (1, 1, 1, 1)
    assert f.fingerprint == fingerprint(191, "x/dir/a.html", "", None, 0)
    assert unreadable_file("a.html", "m").repo_path == "a.html"


def test_lint_and_compile_report_a_missing_path_alike(tmp_path: Path) -> None:
    (tmp_path / "ok.html").write_text('<button axag-intent="a.b" axag-action-type="read">B</button>\n')
    with chdir(tmp_path):
        code, findings = lint_json(["--isolated", "ok.html", "gone.html"])
        res = run_axag(["compile", "--isolated", "--output-format", "json", "-o", "-", "ok.html", "gone.html"])
    assert code == 2
    assert [(f["code"], f["message"], f["line"], f["column"]) for f in findings] == [
        ("AXAG-LINT-191", 'path "gone.html" does not exist', 1, 1)]
    assert res.exit_code == 2
    assert '"AXAG-LINT-191"' in res.stderr + res.stdout
