"""`axag compile … --guards DIR` renders guards from the MCP form of the same run (the guards command and files)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import FIXTURES, run_axag


def test_compile_writes_guards_and_checks_them(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "site", tmp_path / "site")
    res = run_axag(["compile", "--isolated", "site", "-o", "tools.json", "--guards", "guards"], cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    files = sorted(p.name for p in (tmp_path / "guards").iterdir())
    assert files == ["__init__.py", "_guards.py", "_runtime.py", "preconditions.py"]
    # the generated package runs: a constraint violation is answered with the envelope
    code = (
        "import json, guards\n"
        "r = guards.GUARDS['booking_create'].check({'check_in': '2026-05-03', 'check_out': '2026-05-01',"
        " 'guests': 12, 'email': 'a@b.c', 'board': 'room_only'})\n"
        "print(json.dumps(r.for_model()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert '"permission": "constraint_violated"' in out.stdout
    assert "guests must be at most 10; got 12." in out.stdout
    assert "check_out must be after check_in." in out.stdout
    # --check compares the generated guard files too; the user-owned module is never touched
    (tmp_path / "guards" / "preconditions.py").write_text("# mine\n", encoding="utf-8")
    res = run_axag(["compile", "--isolated", "site", "-o", "tools.json", "--guards", "guards", "--check"],
                   cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    assert (tmp_path / "guards" / "preconditions.py").read_text(encoding="utf-8") == "# mine\n"
    (tmp_path / "guards" / "_guards.py").write_text("stale\n", encoding="utf-8")
    res = run_axag(["compile", "--isolated", "site", "-o", "tools.json", "--guards", "guards", "--check"],
                   cwd=tmp_path)
    assert res.exit_code == 1
    assert (tmp_path / "guards" / "_guards.py").read_text(encoding="utf-8") == "stale\n"


def test_guards_with_another_target_use_the_mcp_form(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "site", tmp_path / "site")
    res = run_axag(["compile", "--isolated", "site", "--target", "openai", "-o", "tools.json", "--guards", "g"],
                   cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    assert "guard_booking_create" in (tmp_path / "g" / "_guards.py").read_text(encoding="utf-8")


def test_guards_accept_a_tools_file_with_reordered_keys(tmp_path: Path) -> None:
    import json

    res = run_axag(["compile", "--isolated", "site/booking.html", "-o", str(tmp_path / "t.json")],
                   cwd=FIXTURES / "spec")
    assert res.exit_code == 0, res.stderr
    doc = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    (tmp_path / "sorted.json").write_text(json.dumps(doc, sort_keys=True, indent=1), encoding="utf-8")
    res = run_axag(["guards", "sorted.json", "-o", "g"], cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    assert (tmp_path / "g" / "_guards.py").exists()
    (tmp_path / "bad.json").write_text(json.dumps({**doc, "tools": [{"name": "x"}]}), encoding="utf-8")
    assert run_axag(["guards", "bad.json", "-o", "g2"], cwd=tmp_path).exit_code == 2


def test_guards_language_from_the_configuration(tmp_path: Path) -> None:
    res = run_axag(["compile", "--isolated", "site/booking.html", "-o", str(tmp_path / "t.json")],
                   cwd=FIXTURES / "spec")
    assert res.exit_code == 0, res.stderr
    (tmp_path / "axag.toml").write_text('[compile]\nguards-lang = "typescript"\n', encoding="utf-8")
    assert run_axag(["guards", "t.json", "-o", "ts"], cwd=tmp_path).exit_code == 0
    assert (tmp_path / "ts" / "guards.ts").exists()
    assert run_axag(["guards", "t.json", "-o", "py", "--isolated"], cwd=tmp_path).exit_code == 0
    assert (tmp_path / "py" / "_guards.py").exists()
    assert run_axag(["context", "t.json", "--isolated", "--color", "never"], cwd=tmp_path).exit_code == 0
