"""Users do not have the SPEC: no text axag shows them cites a section of it (such as "trigger: §7.3").
Rule explanations are in plain words (`axag rule`, SARIF), and the vocabulary and the relational grammar are
documented in docs/, linked from the README."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axag.rules.catalogue import RULES
from tests.conftest import FIXTURES, run_axag

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("code", sorted(RULES))
def test_rule_texts_cite_no_section(code: int) -> None:
    from axag.report.sarif import rule_descriptor

    res = run_axag(["rule", str(code)])
    assert res.exit_code == 0
    assert "§" not in res.stdout
    assert "trigger:       \n" not in res.stdout  # every rule says when it reports
    assert all("§" not in m for m in RULES[code].messages)
    assert "§" not in json.dumps(rule_descriptor(RULES[code].info), ensure_ascii=False)


def test_rule_listing_and_help_cite_no_section() -> None:
    assert "§" not in run_axag(["rule", "--all"]).stdout
    for command in ("lint", "compile", "guards", "context", "rule"):
        assert "§" not in run_axag([command, "--help"]).stdout
    assert "§" not in run_axag(["--help"]).stdout


def test_reported_messages_cite_no_section() -> None:
    res = run_axag(["lint", "--isolated", "--select", "ALL", "--output-format", "json", "--exit-zero",
                    str(FIXTURES)])
    findings = json.loads(res.stdout)["findings"]
    assert len(findings) > 100
    assert [f["message"] for f in findings if "§" in f["message"]] == []
    assert [f["fix"]["description"] for f in findings if f["fix"] and "§" in f["fix"]["description"]] == []
    full = run_axag(["lint", "--isolated", "--select", "ALL", "--exit-zero", str(FIXTURES)]).stdout
    assert "= help: " in full and "= fix: " in full
    assert [line for line in full.splitlines() if "§" in line and not line.lstrip()[:1].isdigit()] == []


def test_rule_explains_the_trigger_in_plain_words() -> None:
    out = run_axag(["rule", "AXAG-LINT-135"]).stdout
    assert ("  trigger:       a precondition that mentions a parameter with a comparison word but does not follow "
            "the relational grammar (docs/preconditions.md)") in out
    out = run_axag(["rule", "invalid-rate-limit"]).stdout
    assert "  fix:           sometimes (spaces, case, sec/min/hr and per (10 per minute -> 10/minute))\n" in out


def test_docs_are_linked_from_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for doc in ("docs/vocabulary.md", "docs/preconditions.md"):
        assert f"]({doc})" in readme
        assert (ROOT / doc).is_file()
        assert "§" not in (ROOT / doc).read_text(encoding="utf-8")
