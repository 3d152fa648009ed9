"""`axag lint` through the CLI: golden outputs, exit codes, options, the real-world corpus."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, lint_json, run_axag, shared_or_skip

GOLDEN = FIXTURES / "lint" / "golden"
UPDATE = bool(os.environ.get("AXAG_UPDATE_GOLDENS"))


@pytest.mark.parametrize("fmt", ["full", "concise", "json"])
def test_golden_output(fmt: str) -> None:
    res = run_axag(["lint", "--isolated", "--color", "never", "page.html", "--output-format", fmt], cwd=GOLDEN)
    expected = GOLDEN / f"expected.{fmt}.txt"
    if UPDATE:
        expected.write_text(res.stdout, encoding="utf-8")
    assert res.exit_code == 1
    assert res.stdout == expected.read_text(encoding="utf-8")


def test_exit_codes_and_selection(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text('<button type="button" axag-intent="a.b" axag-action-type="read" '
                                     'axag-description="Read it">x</button>\n', encoding="utf-8")
    assert run_axag(["lint", "--isolated", "a.html"], cwd=tmp_path).exit_code == 0
    (tmp_path / "b.html").write_text('<button type="button" axag-intent="a.c" axag-action-type="bogus" '
                                     'axag-description="x">x</button>\n', encoding="utf-8")
    assert run_axag(["lint", "--isolated", "b.html"], cwd=tmp_path).exit_code == 1
    assert run_axag(["lint", "--isolated", "--exit-zero", "b.html"], cwd=tmp_path).exit_code == 0
    assert run_axag(["lint", "--isolated", "--ignore", "004", "b.html"], cwd=tmp_path).exit_code == 0
    assert run_axag(["lint", "--isolated", "--select", "nonsense-rule", "b.html"], cwd=tmp_path).exit_code == 2
    assert run_axag(["lint", "--isolated", "--output-format", "json", "--output-format", "concise", "b.html"],
                    cwd=tmp_path).exit_code == 2


def test_warning_threshold(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text('<button type="button" axag-intent="a.b" axag-action-type="read">x</button>\n',
                                     encoding="utf-8")
    code, findings = lint_json(["a.html"], cwd=tmp_path)
    assert [f["code"] for f in findings] == ["AXAG-LINT-138", "AXAG-LINT-151"] and code == 0
    assert run_axag(["lint", "--isolated", "--fail-on", "warning", "a.html"], cwd=tmp_path).exit_code == 1


def test_quiet_drops_the_summary(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text("<p>nothing</p>\n", encoding="utf-8")
    assert run_axag(["lint", "--isolated", "a.html"], cwd=tmp_path).stdout == "All checks passed.\n"
    assert run_axag(["lint", "--isolated", "--quiet", "a.html"], cwd=tmp_path).stdout == ""


def test_file_output_prints_the_summary_alone(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text('<button type="button" axag-intent="a.b" axag-action-type="nope" '
                                     'axag-description="x">x</button>\n', encoding="utf-8")
    res = run_axag(["lint", "--isolated", "--output-format", "sarif:out.sarif", "a.html"], cwd=tmp_path)
    assert res.exit_code == 1
    assert res.stdout == "Found 1 error, 0 warnings, 1 info (0 fixable with --fix).\n"  # 151 is an info
    sarif = json.loads((tmp_path / "out.sarif").read_text(encoding="utf-8"))
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["AXAG-LINT-151", "AXAG-LINT-004"]


def test_stdin_with_filename() -> None:
    res = run_axag(["lint", "--isolated", "--output-format", "concise", "-", "--stdin-filename", "page.html"],
                   input='<button axag-intent="a.b" axag-action-type="nope" axag-description="d">x</button>\n')
    assert res.stdout.splitlines()[0].startswith("page.html:1:2: AXAG-LINT-151 ")  # no form submits it
    assert res.stdout.splitlines()[1].startswith("page.html:1:45: AXAG-LINT-004 ")


def test_no_files_is_a_notice(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    res = run_axag(["lint", "--isolated", "."], cwd=tmp_path)
    assert res.exit_code == 0
    assert "no files" in res.stderr


def test_version() -> None:
    from axag import __version__

    assert run_axag(["--version"]).stdout == f"axag {__version__}\n"


def _position_kinds(text: str) -> dict[tuple[int, int], str]:
    """Every (line, column) where a finding may point: tag names, annotation names and values."""
    from axag.files.spans import LineIndex

    lines = LineIndex(text)
    out: dict[tuple[int, int], str] = {}
    for m in re.finditer(r"<([A-Za-z][^\s/>]*)", text):
        out[lines.position(m.start(1))] = "tag"
    for m in re.finditer(r"""(?i)(?<=[\s"'])((?:axag|:axag|v-bind:axag)[^\s=/>]*)(\s*=\s*(["']?))?""", text):
        out[lines.position(m.start(1))] = "name"
        if m.group(2) is not None:
            out[lines.position(m.end(2))] = "value"
    return out


def test_real_world_corpus_never_crashes_and_points_at_real_positions() -> None:
    corpus = shared_or_skip("corpus")
    files = sorted(p for p in corpus.rglob("*.html"))
    assert len(files) >= 160
    res = run_axag(["lint", "--isolated", "--output-format", "json", "."], cwd=corpus)
    assert res.exit_code in (0, 1), res.stderr
    findings = json.loads(res.stdout)["findings"]
    assert findings
    assert not [f for f in findings if f["code"] == "AXAG-LINT-199"]
    texts: dict[str, str] = {}
    for f in findings:
        code = f["code"]
        if code in ("AXAG-LINT-121", "AXAG-LINT-122", "AXAG-LINT-190", "AXAG-LINT-193"):
            continue
        path = f["path"]
        if path not in texts:
            texts[path] = (corpus / path).read_text(encoding="utf-8", errors="replace")
        text = texts[path]
        kinds = _position_kinds(text)
        pos = (f["line"], f["column"])
        if code in ("AXAG-LINT-133", "AXAG-LINT-143", "AXAG-LINT-153"):
            continue  # suppression comments; a comment inside a start tag
        inside_value = any(k == "value" and p[0] == pos[0] and p[1] <= pos[1] for p, k in kinds.items())
        assert pos in kinds or inside_value, (path, f)


def test_lint_output_identical_with_one_or_two_jobs() -> None:
    outs = []
    for jobs in ("1", "2"):
        # --no-cache: the second run does the work itself instead of reading the first one's results
        res = run_axag(["lint", "--isolated", "-j", jobs, "--no-cache", "--output-format", "json", "rules"],
                       cwd=FIXTURES)
        assert res.exit_code == 1
        outs.append(res.stdout)
    assert len(json.loads(outs[0])["findings"]) > 100
    assert outs[0] == outs[1]
