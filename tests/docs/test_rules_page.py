"""The rule reference docs/rules.md is generated from the declarations (axag/rules/docs.py); rewrite it with
AXAG_UPDATE_GOLDENS=1 after changing a declaration."""

from __future__ import annotations

import os

from axag.rules.catalogue import RULES
from axag.rules.docs import markdown
from tests.conftest import REPO

RULES_MD = REPO / "docs" / "rules.md"


def test_rules_md_is_generated_from_the_declarations() -> None:
    text = markdown()
    if os.environ.get("AXAG_UPDATE_GOLDENS"):
        RULES_MD.write_text(text, encoding="utf-8")
    assert RULES_MD.read_text(encoding="utf-8") == text


def test_rules_md_has_a_row_per_rule_from_its_declaration() -> None:
    rows = [line for line in markdown().splitlines() if line.startswith("| AXAG-LINT-")]
    assert [row.split(" | ")[0][2:] for row in rows] == [r.info.id for r in RULES.values()]
    assert rows[0] == ("| AXAG-LINT-001 | missing-intent | error | basic | no | no | interactive, uncovered element "
                       "without intent/macro; or any element with action attributes but no intent/macro |")
    row33 = next(row for row in rows if row.startswith("| AXAG-LINT-033 "))
    assert row33.startswith("| AXAG-LINT-033 | dynamic-value | info/warning | full | yes | no | an annotation value")
    row10 = next(row for row in rows if row.startswith("| AXAG-LINT-010 "))
    assert "| full, needs --manifest |" in row10
    row113 = next(row for row in rows if row.startswith("| AXAG-LINT-113 "))
    assert "(a letter or \\_, then" in row113  # Markdown emphasis characters are escaped outside code spans
    row15 = next(row for row in rows if row.startswith("| AXAG-LINT-125 "))
    assert "| sometimes (spaces, case, sec/min/hr and per (10 per minute -&gt; 10/minute)) |" in row15


def test_readme_links_the_rule_reference() -> None:
    assert "(docs/rules.md)" in (REPO / "README.md").read_text(encoding="utf-8")
