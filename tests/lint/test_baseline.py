"""Baseline files (the baseline): load, apply (suppress + stale count), render (sorted, determinism and serialisation)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axag.lint import baseline
from axag.outcome.errors import InputError
from axag.outcome.findings import Finding, Severity, fingerprint


def _f(code: int, path: str, anchor: str, occurrence: int = 0, line: int = 1) -> Finding:
    fp = fingerprint(code, path, anchor, None, occurrence)
    return Finding(code, Severity.ERROR, "m", path, line, 1, line, 2, repo_path=path, anchor=anchor,
                   fingerprint=fp)


A = _f(6, "site/b.html", "cart.clear")
B = _f(4, "site/b.html", "cart.clear", line=7)
C = _f(4, "site/a.html", "cart.view")
D = _f(4, "site/a.html", "cart.view", occurrence=1, line=9)


def test_render_sorted_and_serialised() -> None:
    text = baseline.render([A, B, C, D, A])
    entries = json.loads(text)["findings"]
    assert [(e["path"], e["code"], e["fingerprint"]) for e in entries] == sorted(
        (f.repo_path, f.id, f.fingerprint) for f in (A, B, C, D)
    )
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    assert text.startswith('{\n  "version": 1,\n  "findings": [\n    {\n      "code": "AXAG-LINT-004",\n')
    assert "line" not in text
    assert baseline.render([]) == '{\n  "version": 1,\n  "findings": []\n}\n'


def test_round_trip_and_apply(tmp_path: Path) -> None:
    file = tmp_path / "baseline.json"
    file.write_text(baseline.render([A, B, C]), encoding="utf-8")
    recorded = baseline.load(file)
    assert recorded == {baseline.entry(f) for f in (A, B, C)}
    moved = _f(6, "site/b.html", "cart.clear", line=30)  # line numbers are not part of the fingerprint
    kept, suppressed, stale = baseline.apply([moved, C, D], recorded)
    assert kept == [D]
    assert [(f.line, f.code, f.suppression, f.justification) for f in suppressed] == [
        (30, 6, "external", baseline.JUSTIFICATION),
        (1, 4, "external", baseline.JUSTIFICATION),
    ]
    assert stale == 1  # B was fixed


def test_update_prunes_fixed_findings(tmp_path: Path) -> None:
    file = tmp_path / "baseline.json"
    file.write_text(baseline.render([A, B, C]), encoding="utf-8")
    file.write_text(baseline.render([A, C]), encoding="utf-8")  # --update-baseline after fixing B
    recorded = baseline.load(file)
    assert recorded == {baseline.entry(A), baseline.entry(C)}
    kept, suppressed, stale = baseline.apply([A, C], recorded)
    assert (kept, [f.fingerprint for f in suppressed], stale) == ([], [A.fingerprint, C.fingerprint], 0)


def test_missing(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        baseline.load(tmp_path / "nope.json")
    assert baseline.load(tmp_path / "nope.json", missing_ok=True) == set()


@pytest.mark.parametrize(
    "content",
    [
        "",
        "{",
        "[]",
        '{"version": 2, "findings": []}',
        '{"version": true, "findings": []}',
        '{"version": 1}',
        '{"version": 1, "findings": {}}',
        '{"version": 1, "findings": [1]}',
        '{"version": 1, "findings": [{"code": "6", "path": "a.html", "fingerprint": "0123456789abcdef"}]}',
        '{"version": 1, "findings": [{"code": "AXAG-LINT-006", "path": "", "fingerprint": "0123456789abcdef"}]}',
        '{"version": 1, "findings": [{"code": "AXAG-LINT-006", "path": "a.html", "fingerprint": "xyz"}]}',
        '{"version": 1, "findings": [{"code": "AXAG-LINT-006", "path": "a.html"}]}',
    ],
)
def test_malformed(tmp_path: Path, content: str) -> None:
    file = tmp_path / "baseline.json"
    file.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match="malformed baseline"):
        baseline.load(file)


def test_invalid_utf8(tmp_path: Path) -> None:
    file = tmp_path / "baseline.json"
    file.write_bytes(b'{"version": 1, "findings": ["\xff"]}')
    with pytest.raises(InputError, match="malformed baseline"):
        baseline.load(file)


def test_unreadable(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        baseline.load(tmp_path)  # a directory
