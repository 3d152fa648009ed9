"""A vocabulary value carries its meaning.

Each action type and risk level is declared once in axag/vocabulary/__init__.py with its properties (mutating,
destructive, navigation; a risk level's order and what it calls for); the rules, the compiled hints and the
manifest read those properties, and the enums of the shipped schemas are written from the vocabulary by
scripts/generate-schemas.py. The last test adds an action type for real, in a copy of the package, the way
docs/dev/extending.md says: one line in the vocabulary, then the script.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from axag import vocabulary as V
from axag.compile import schema_enums
from tests.conftest import REPO


def test_the_shipped_schemas_enums_are_the_vocabulary() -> None:
    assert schema_enums.stale(REPO / "schemas") == []
    tools = json.loads((REPO / "schemas" / "tools.schema.json").read_text(encoding="utf-8"))
    assert tools["$defs"]["action"]["properties"]["action_type"]["enum"] == list(V.ACTION_TYPES)
    manifest = json.loads((REPO / "schemas" / "axag-manifest-1.1.schema.json").read_text(encoding="utf-8"))
    assert manifest["definitions"]["action"]["properties"]["risk_level"]["enum"] == list(V.RISK_LEVELS)


def test_a_schema_that_differs_from_the_vocabulary_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for f in (REPO / "schemas").glob("*.json"):
        shutil.copy(f, tmp_path / f.name)
    monkeypatch.setattr(V, "SCOPES", (*V.SCOPES, "galaxy"))
    assert schema_enums.stale(tmp_path) == ["axag-manifest-1.1.schema.json", "tools.schema.json"]
    schema_enums.stale(tmp_path, write=True)
    assert schema_enums.stale(tmp_path) == []
    doc = json.loads((tmp_path / "tools.schema.json").read_text(encoding="utf-8"))
    assert doc["$defs"]["action"]["properties"]["scope"]["enum"] == ["public", "user", "tenant", "global", "galaxy"]


def test_the_declarations_say_what_each_value_means() -> None:
    assert V.MUTATING_ACTION_TYPES == ("write", "delete")
    assert [t.name for t in V.ACTION_TYPE_VALUES if t.destructive] == ["delete"]
    assert [t.name for t in V.ACTION_TYPE_VALUES if t.read_only] == ["read", "navigate"]
    assert [r.name for r in V.RISK_LEVEL_VALUES if r.confirm] == ["high", "critical"]
    assert [V.risk_rank(r) for r in V.RISK_LEVELS] == [0, 1, 2, 3, 4] and V.risk_rank("huge") == -1
    assert V.VALUE_MEANINGS["action_type"]["delete"] == "removes data"


ARCHIVE_LINE = '    ActionType("archive", "moves data out of sight; it can be brought back", mutating=True),\n'
PAGE = """<!doctype html><html><body>
<form action="/notes/archive" method="post" axag-intent="note.archive" axag-action-type="archive"
      axag-description="Archive the note">
  <input name="note_id" required>
  <button>Archive</button>
</form>
<form action="/notes/hide" method="post" axag-intent="note.hide" axag-action-type="archive" axag-risk-level="high"
      axag-idempotent="true" axag-side-effects='[]' axag-description="Hide the note">
  <input name="note_id" required>
  <button>Hide</button>
</form>
</body></html>
"""


def _copy_of_the_package(tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    for part in ("axag", "schemas", "scripts"):
        shutil.copytree(REPO / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _axag(copy: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(copy), "NO_COLOR": "1", "AXAG_CACHE_DIR": str(cwd / ".cache")}
    return subprocess.run([sys.executable, "-m", "axag", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def _codes(report: str, intent_line: int) -> set[int]:
    data: Any = json.loads(report)
    findings = data["findings"] if isinstance(data, dict) else data
    return {int(str(f["code"]).rsplit("-", 1)[-1]) for f in findings if f["line"] == intent_line}


@pytest.mark.slow  # a copy of the package and five runs of axag
def test_a_new_mutating_action_type_gets_the_safety_rules_and_a_schema_that_accepts_it(tmp_path: Path) -> None:
    copy = _copy_of_the_package(tmp_path)
    vocab = copy / "axag" / "vocabulary" / "__init__.py"
    text = vocab.read_text(encoding="utf-8")
    anchor = '    ActionType("write", "creates or changes data", mutating=True),\n'
    assert anchor in text
    vocab.write_text(text.replace(anchor, anchor + ARCHIVE_LINE), encoding="utf-8")  # the one line
    site = tmp_path / "site"
    site.mkdir()
    (site / "notes.html").write_text(PAGE, encoding="utf-8")

    # the safety rules for changes apply: no risk level (023), no idempotence (007), at the action type
    lint = _axag(copy, site, "lint", "notes.html", "--isolated", "--no-cache", "--output-format", "json",
                 "--exit-zero")
    assert lint.returncode == 0, lint.stderr
    first = _codes(lint.stdout, 2)
    assert {7, 23} <= first, first
    assert not {7, 23} & _codes(lint.stdout, 7)

    # before the schemas are regenerated the shipped schema rejects what compile writes; after, it accepts it
    keep = ["compile", "notes.html", "--isolated", "--no-cache", "--keep-going", "--self-check", "-o", "-"]
    stale = _axag(copy, site, *keep)
    assert stale.returncode != 0 and "'archive' is not one of" in stale.stderr, stale.stderr
    gen = subprocess.run([sys.executable, str(copy / "scripts" / "generate-schemas.py")], capture_output=True,
                         text=True, timeout=60, check=False)
    assert gen.returncode == 0 and "tools.schema.json" in gen.stderr, gen.stderr
    for target in ("mcp", "manifest", "webmcp"):
        done = _axag(copy, site, *keep, "--target", target)
        assert done.returncode in (0, 1) and "self-validation" not in done.stderr, (target, done.stderr)
        doc = json.loads(done.stdout)
        if target == "mcp":
            hide = next(t for t in doc["tools"] if t["name"] == "note_hide")
            assert hide["_meta"]["org.axag/action"]["action_type"] == "archive"
            assert hide["annotations"]["readOnlyHint"] is False and hide["annotations"]["destructiveHint"] is True
        if target == "manifest":
            assert {a["action_type"] for a in doc["actions"]} == {"archive"}
