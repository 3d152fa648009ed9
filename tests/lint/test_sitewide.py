"""Run-wide 121 findings are the same in `axag lint` and `axag compile`: lint merges the
contracts of exactly the actions that compile merges, whatever other rules are selected, ignored or
suppressed; and the 121 finding underlines the start tag of the later declaration."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, run_axag, shared_or_skip


def _site121(findings: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted((f["code"], f["path"], f["line"], f["column"], f["end_line"], f["end_column"], f["message"])
                  for f in findings if f["code"] == "AXAG-LINT-121")


def _lint121(cwd: Path, *args: str) -> list[tuple[Any, ...]]:
    res = run_axag(["lint", "--isolated", "--output-format", "json", *args, "."], cwd=cwd)
    assert res.exit_code in (0, 1), res.output
    return _site121(json.loads(res.stdout)["findings"])


def _compile121(cwd: Path, out: Path) -> list[tuple[Any, ...]]:
    res = run_axag(["compile", "--isolated", "--output-format", "json", "-o", str(out), "."], cwd=cwd)
    assert res.exit_code in (0, 1), res.output
    return _site121(json.loads(res.stdout)["findings"])


def test_corpus_lint_and_compile_agree(tmp_path: Path) -> None:
    corpus = shared_or_skip("corpus")
    expected = _compile121(corpus, tmp_path / "tools.json")
    assert len(expected) > 40  # the corpus repeats intents with different contracts across pages
    assert _lint121(corpus) == expected
    # the selection of other rules changes nothing (an action with a lint-only error, e.g. 031, still merges)
    assert _lint121(corpus, "--select", "AXAG-LINT-121") == expected
    assert _lint121(corpus, "--level", "full") == expected


def _copy(src: Path, dst: Path) -> Path:
    for f in src.rglob("*"):
        if f.is_file():
            target = dst / f.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(f.read_bytes())
    return dst


def test_fixtures_lint_and_compile_agree(tmp_path: Path) -> None:
    site = _copy(FIXTURES / "rules", tmp_path / "rules")
    expected = _compile121(site, tmp_path / "tools.json")
    assert expected
    assert _lint121(site) == expected
    assert _lint121(site, "--select", "AXAG-LINT-121") == expected


_A = '<button axag-intent="room.book" axag-action-type="write" axag-description="Book a room">Book</button>\n'
# the same intent with another contract, on a button without an accessible name (031, a lint-only error)
_B = ('<p>x</p>\n  <button axag-intent="room.book" axag-action-type="write"\n'
      '          axag-description="Book one room"></button>\n')


@pytest.mark.parametrize("args", [(), ("--select", "AXAG-LINT-121"), ("--ignore", "AXAG-LINT-031")])
def test_lint_only_error_does_not_hide_121(tmp_path: Path, args: tuple[str, ...]) -> None:
    (tmp_path / "a.html").write_text(_A, encoding="utf-8")
    (tmp_path / "b.html").write_text(_B, encoding="utf-8")
    msg = ('"room.book" is also declared at a.html:1:2 with a different contract '
           "(/description)")
    got = _lint121(tmp_path, "--level", "full", *args)
    # the span is the later declaration's tag name (line 2, columns 4-10), so `full` shows a snippet
    assert got == [("AXAG-LINT-121", "b.html", 2, 4, 2, 10, msg)]
    assert _compile121(tmp_path, tmp_path / "tools.json") == got


def test_121_full_format_shows_the_declaration(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(_A, encoding="utf-8")
    (tmp_path / "b.html").write_text(_B, encoding="utf-8")
    res = run_axag(["lint", "--isolated", "--select", "AXAG-LINT-121", "--output-format", "full", "."], cwd=tmp_path)
    assert res.exit_code == 1
    assert "  <button axag-intent" in res.stdout
    assert "^^^^^^" in res.stdout


def test_lint_names_files_relative_to_the_compile_root(tmp_path: Path) -> None:
    (tmp_path / "axag.toml").write_text('[compile]\nroot = "."\n', encoding="utf-8")
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "a.html").write_text(_A, encoding="utf-8")
    (pages / "b.html").write_text(_B, encoding="utf-8")
    lint = run_axag(["lint", "--select", "AXAG-LINT-121", "--output-format", "json", "."], cwd=pages)
    comp = run_axag(["compile", "--output-format", "json", "-o", str(tmp_path / "t.json"), "."], cwd=pages)
    lint_f, comp_f = (_site121(json.loads(r.stdout)["findings"]) for r in (lint, comp))
    assert [f[-1] for f in lint_f] == [
        '"room.book" is also declared at a.html:1:2 with a different contract (/description)']
    assert lint_f == comp_f


@pytest.mark.parametrize(
    ("macro", "column", "end_column"),
    [
        ("cart.add:wrte", 15, 23),  # the unknown action type "cart.add", the whole word
        ("Write:cart.add", 15, 20),
        ("write:Cart.add", 21, 29),  # the intent
        ("write:cart.add!huge", 30, 34),  # the risk level
        ("write:cart.add?color=red", 30, 35),  # the unknown key
        ("write:cart.add?scope=planet", 36, 42),  # the enum value
        ("read-cart.view", 15, 16),  # a missing ':' points at one character
    ],
)
def test_027_underlines_the_word(tmp_path: Path, macro: str, column: int, end_column: int) -> None:
    (tmp_path / "m.html").write_text(f'<button axag="{macro}">Add</button>\n', encoding="utf-8")
    res = run_axag(["lint", "--isolated", "--select", "AXAG-LINT-027", "--output-format", "json", "m.html"],
                   cwd=tmp_path)
    [f] = json.loads(res.stdout)["findings"]
    assert (f["line"], f["column"], f["end_line"], f["end_column"]) == (1, column, 1, end_column)
