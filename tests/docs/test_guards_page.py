"""The guarded round trip (on the site's guards page, docs/compile/guards.md): its Python blocks run, in
order, against generated guards."""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path

from axag.guards.render import write_guards

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "compile" / "guards.md"
SECTION = "## The guarded round trip"


def readme_blocks() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start)
    section = text[start:end if end >= 0 else None]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)


def test_readme_round_trip_runs(tmp_path: Path) -> None:
    blocks = readme_blocks()
    assert len(blocks) == 4
    doc = json.loads((ROOT / "tests" / "data" / "readme.tools.json").read_text(encoding="utf-8"))
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "__init__.py").write_text("", encoding="utf-8")
    write_guards(doc, tmp_path / "server" / "guards")
    (tmp_path / "server" / "guards" / "preconditions.py").write_text(
        "def room_available(arguments, context, tool):\n    return True\n", encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        namespace: dict[str, object] = {"__name__": "readme"}
        for block in blocks:
            exec(compile(block, str(PAGE), "exec"), namespace)  # noqa: S102 - the page's own code
        assert namespace["question"] == "Book 2 guests from 2026-05-01 to 2026-05-03?"
    finally:
        sys.path.remove(str(tmp_path))
        for key in [k for k in sys.modules if k == "server" or k.startswith("server.")]:
            del sys.modules[key]
        importlib.invalidate_caches()
