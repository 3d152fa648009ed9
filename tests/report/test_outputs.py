"""Reports as new users met them: a format written to a file is not printed; run-wide
findings name places as every other finding does, and the JSON summary counts files, elements and actions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_axag

BAD = '<button axag-intent="cart.clear" axag-action-type="Delete">Clear</button>\n'
BUTTON = ('<button type="button" axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="{r}" '
          'axag-idempotent="true" axag-description="Empty the cart">Clear</button>\n')


def axag(cwd: Path, *args: str) -> tuple[int, str, str]:
    res = run_axag(list(args), cwd=cwd)
    return res.exit_code, res.stdout, res.stderr


# ------------------------------------------------------------------------------ 14
@pytest.mark.parametrize("args", [
    ["--output-format", "html:report.html"],
    ["--output-format", "json:report.json", "--output-format", "sarif:report.sarif"],
    ["--output-format", "concise:report.txt"],
    ["--output-file", "report.txt"],
])
def test_formats_written_to_files_leave_stdout_the_summary(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "a.html").write_text(BAD)
    code, out, err = axag(tmp_path, "lint", "--isolated", "--no-cache", "a.html", *args)
    assert code == 1
    assert out == "Found 1 error, 1 warning, 1 info (1 fixable with --fix).\n"  # the info: 151
    assert err == ""
    written = [a.partition(":")[2] or a for a in args[1::2]]
    assert all((tmp_path / name).stat().st_size > 0 for name in written)
    code, out, _ = axag(tmp_path, "lint", "--isolated", "--no-cache", "--quiet", "a.html", *args)
    assert (code, out) == (1, "")


def test_a_format_to_stdout_beside_one_to_a_file(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(BAD)
    code, out, _ = axag(tmp_path, "lint", "--isolated", "--no-cache", "a.html", "--output-format", "html:r.html",
                        "--output-format", "concise")
    assert code == 1
    assert out.startswith("a.html:1:")  # the concise report, once
    assert out.count("Found 1 error") == 1


# ------------------------------------------------------------------------------ 15
def test_121_names_the_first_declaration_as_findings_name_places(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.axag]\n")
    site = tmp_path / "site"
    (site / "deep").mkdir(parents=True)
    (site / "a.html").write_text(BUTTON.format(r="high"))
    (site / "b.html").write_text("<p>b</p>\n" + BUTTON.format(r="low"))
    work = site / "deep"
    for command in (["lint", "--select", "AXAG-LINT-121"], ["compile", "-o", str(tmp_path / "t.json")]):
        code, out, err = axag(work, *command, "..", "--output-format", "concise")
        assert code == 1
        lines = [line for line in (out + err).splitlines() if "AXAG-LINT-121" in line]
        assert lines == [('../b.html:2:2: AXAG-LINT-121 "cart.clear" is also declared at ../a.html:1:2 with a '
                         'different contract (/description)')], command


def test_json_summary_counts_files_elements_and_actions(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(BUTTON.format(r="high") + '<p axag-intent="x.y">no action type</p>\n')
    (tmp_path / "b.html").write_text("<p>nothing annotated</p>\n")
    (tmp_path / "c.html").write_text('<form axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" '
                                     'axag-description="Add"><button axag-intent="cart.add.go">Go</button></form>\n')
    _code, out, _ = axag(tmp_path, "lint", "--isolated", "--no-cache", ".", "--output-format", "json")
    summary = json.loads(out)["summary"]
    assert {k: summary[k] for k in ("files", "elements", "actions")} == {"files": 3, "elements": 4, "actions": 4}
