"""docs/dev/architecture.md states what tests/project/test_architecture.py enforces: its layer table is the test's
`LAYERS`, its circle-counting command counts none, and the rule recipe lives there (CONTRIBUTING.md links to it)."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import REPO
from tests.project.test_architecture import LAYERS

DOC = REPO / "docs" / "dev" / "architecture.md"


def _doc_layers(text: str) -> dict[int, tuple[str, ...]]:
    block = text.split("<!-- layers: checked against LAYERS in tests/project/test_architecture.py -->", 1)[1]
    block = block.split("<!-- /layers -->", 1)[0]
    out: dict[int, tuple[str, ...]] = {}
    for line in block.strip().splitlines()[2:]:  # after the header and the rule line
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        out[int(cells[0])] = tuple(re.findall(r"`([^`]+)`", cells[1]))
    return out


def test_the_documented_layers_are_the_enforced_layers() -> None:
    assert _doc_layers(DOC.read_text(encoding="utf-8")) == LAYERS


def test_a_changed_layer_is_noticed() -> None:
    text = DOC.read_text(encoding="utf-8").replace("| 1 | `axag.values` |", "| 1 | `axag.values`, `axag.extra` |")
    assert _doc_layers(text) != LAYERS


def test_the_documented_circle_count_is_zero() -> None:
    text = DOC.read_text(encoding="utf-8")
    command = text.split("To count the import circles", 1)[1].split("```sh\n", 1)[1].split("\n```", 1)[0]
    assert command.startswith('python -c "') and command.endswith('"')
    out = subprocess.run([sys.executable, "-c", command[len('python -c "'):-1]], cwd=REPO, capture_output=True,
                         text=True, check=True, timeout=300)
    assert out.stdout == "True 0\nFalse 0\n"


def test_the_rule_recipe_has_one_home() -> None:
    contributing = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert "docs/dev/architecture.md" in contributing
    assert "1. **Declare it**" not in contributing and "## Adding a rule\n" not in contributing
    doc = DOC.read_text(encoding="utf-8")
    assert "## Adding a rule" in doc and "## Adding a fact kind" in doc
