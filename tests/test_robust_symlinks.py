"""Outputs and symbolic links (issue 12 item 14): a committed link at `-o tools.json` or inside the guards folder
cannot make axag write outside the output's own directory or the guards folder; a link that stays inside is
written through (and kept). All through `fsio.write_atomic`, so every output gets it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from axag.errors import InputError
from axag.fsio import create_only, write_atomic
from tests.conftest import run_axag

_PAGE = ('<button axag-intent="cart.view" axag-action-type="read" axag-risk-level="none" '
         'axag-description="Show the cart.">Cart</button>\n')


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "site").mkdir(parents=True)
    (work / "site" / "a.html").write_text(_PAGE, encoding="utf-8")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "victim.txt").write_text("precious\n", encoding="utf-8")
    return work


def test_output_link_leading_outside_is_refused(project: Path) -> None:
    victim = project.parent / "outside" / "victim.txt"
    (project / "tools.json").symlink_to(victim)
    res = run_axag(["compile", "--isolated", "site", "-o", "tools.json"], cwd=project)
    assert res.exit_code == 2
    assert res.stderr == f"Error: refusing to write tools.json: it is a symbolic link to {victim}, outside .\n"
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert (project / "tools.json").is_symlink()


def test_output_link_staying_inside_is_written_through(project: Path) -> None:
    (project / "build").mkdir()
    (project / "build" / "tools.json").write_text("old", encoding="utf-8")
    (project / "tools.json").symlink_to("build/tools.json")
    res = run_axag(["compile", "--isolated", "site", "-o", "tools.json"], cwd=project)
    assert res.exit_code == 0, res.output
    assert (project / "tools.json").is_symlink()
    assert [t["name"] for t in json.loads((project / "build" / "tools.json").read_text("utf-8"))["tools"]] == [
        "cart_view"]


def test_dangling_link_leading_outside_creates_nothing(project: Path) -> None:
    target = project.parent / "outside" / "new.json"
    (project / "tools.json").symlink_to(target)
    res = run_axag(["compile", "--isolated", "site", "-o", "tools.json"], cwd=project)
    assert res.exit_code == 2
    assert "refusing to write tools.json" in res.stderr
    assert not target.exists()


def _tools(project: Path) -> Path:
    res = run_axag(["compile", "--isolated", "site", "-o", "tools.json"], cwd=project)
    assert res.exit_code == 0, res.output
    return project / "tools.json"


def test_guards_runtime_link_leading_outside_is_refused(project: Path) -> None:
    _tools(project)
    guards = project / "server" / "guards"
    guards.mkdir(parents=True)
    victim = project.parent / "outside" / "victim.txt"
    (guards / "_runtime.py").symlink_to(victim)
    res = run_axag(["guards", "--isolated", "tools.json", "-o", "server/guards"], cwd=project)
    assert res.exit_code == 2
    assert res.stderr == (f"Error: refusing to write server/guards/_runtime.py: it is a symbolic link to {victim}, "
                          "outside server/guards\n")
    assert victim.read_text(encoding="utf-8") == "precious\n"


def test_guards_link_staying_inside_is_written_through(project: Path) -> None:
    _tools(project)
    guards = project / "server" / "guards"
    (guards / "real").mkdir(parents=True)
    (guards / "real" / "runtime_copy.py").write_text("old", encoding="utf-8")
    (guards / "_runtime.py").symlink_to("real/runtime_copy.py")
    res = run_axag(["guards", "--isolated", "tools.json", "-o", "server/guards"], cwd=project)
    assert res.exit_code == 0, res.output
    assert (guards / "_runtime.py").is_symlink()
    assert (guards / "real" / "runtime_copy.py").read_text(encoding="utf-8") != "old"


def test_guards_folder_itself_a_link_is_fine(project: Path) -> None:
    _tools(project)
    (project / "real_guards").mkdir()
    (project / "server").mkdir()
    (project / "server" / "guards").symlink_to(project / "real_guards")
    res = run_axag(["guards", "--isolated", "tools.json", "-o", "server/guards"], cwd=project)
    assert res.exit_code == 0, res.output
    assert (project / "real_guards" / "_runtime.py").is_file()


def test_write_atomic_within(tmp_path: Path) -> None:
    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "d" / "sub" / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(InputError, match="reached through a symbolic link"):
        write_atomic(tmp_path / "d" / "sub" / "link" / "f.txt", "x", within=tmp_path / "d")
    assert not (tmp_path / "elsewhere" / "f.txt").exists()
    write_atomic(tmp_path / "d" / "sub" / "g.txt", "y", within=tmp_path / "d")
    assert (tmp_path / "d" / "sub" / "g.txt").read_text(encoding="utf-8") == "y"
    (tmp_path / "d" / "user.py").symlink_to(tmp_path / "elsewhere" / "user.py")
    with pytest.raises(InputError, match="refusing to write"):
        create_only(tmp_path / "d" / "user.py", "z", within=tmp_path / "d")
    assert not (tmp_path / "elsewhere" / "user.py").exists()


def test_fix_does_not_write_through_a_link_leading_outside(project: Path) -> None:
    outside_page = project.parent / "outside" / "page.html"
    outside_page.write_text(_PAGE.replace('"read"', '"Read"'), encoding="utf-8")
    (project / "site" / "linked.html").symlink_to(outside_page)
    res = run_axag(["lint", "--isolated", "--fix", "--output-format", "concise", "site/linked.html"], cwd=project)
    assert "refusing to write" in res.stdout
    assert outside_page.read_text(encoding="utf-8") == _PAGE.replace('"read"', '"Read"')
    assert os.path.islink(project / "site" / "linked.html")
