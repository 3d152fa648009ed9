"""The catalogue's passing examples pass: `axag rule CODE` shows, for every rule, a passing example
that gives no error-severity finding at the default selection (each example linted on its own, through the CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axag.rules.catalogue import RULES
from tests.conftest import run_axag

_WITH_EXAMPLES = [code for code, rule in RULES.items() if rule.passes]


@pytest.mark.parametrize("code", _WITH_EXAMPLES, ids=[f"{c:03d}" for c in _WITH_EXAMPLES])
def test_the_passing_example_has_no_error(code: int, tmp_path: Path) -> None:
    shown = run_axag(["rule", str(code)]).stdout
    assert "  passes:\n" in shown
    (tmp_path / "example.html").write_text(RULES[code].passes + "\n", encoding="utf-8")
    res = run_axag(["lint", "--isolated", "--output-format", "json", "example.html"], cwd=tmp_path)
    errors = [(f["code"], f["line"], f["message"]) for f in json.loads(res.stdout)["findings"]
              if f["severity"] == "error"]
    assert errors == []
