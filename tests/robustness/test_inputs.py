"""Files handed to axag that are deeply nested, not UTF-8 or not JSON give one message naming the file (with the
line and column where known) and exit 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from axag.files.read_json import MAX_DEPTH, nesting_error
from tests.conftest import run_axag

_PAGE = '<button axag-intent="a.b" axag-action-type="read">x</button>\n'


def _deep(levels: int) -> str:
    return "{\n" + '"a": ' + "[" * levels + "]" * levels + "\n}\n"


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["guards", "deep.json", "-o", "g"], "tools file"),
        (["context", "deep.json"], "tools file"),
        (["lint", "--baseline", "deep.json", "a.html"], "malformed baseline file"),
        (["lint", "--manifest", "deep.json", "a.html"], "manifest"),
        (["lint", "--enforced-intents", "deep.json", "a.html"], "enforced intents"),
    ],
)
@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 100_000])
def test_deeply_nested_json_is_a_usage_error(tmp_path: Path, args: list[str], what: str, levels: int) -> None:
    (tmp_path / "deep.json").write_text(_deep(levels), encoding="utf-8")
    (tmp_path / "a.html").write_text(_PAGE, encoding="utf-8")
    res = run_axag([args[0], "--isolated", *args[1:]], cwd=tmp_path)
    assert res.exit_code == 2
    assert res.stderr == (f"Error: {what} deep.json is nested too deeply: more than {MAX_DEPTH} levels at line 2, "
                          f"column {5 + MAX_DEPTH}\n")  # the {, then the 500th [
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["guards", "bad.json", "-o", "g"], "tools file"),
        (["lint", "--manifest", "bad.json", "a.html"], "manifest"),
        (["lint", "--enforced-intents", "bad.json", "a.html"], "enforced intents"),
    ],
)
def test_not_utf8_or_not_json(tmp_path: Path, args: list[str], what: str) -> None:
    (tmp_path / "a.html").write_text(_PAGE, encoding="utf-8")
    (tmp_path / "bad.json").write_bytes(b'{\n  "x": "\xff"\n}\n')
    res = run_axag([args[0], "--isolated", *args[1:]], cwd=tmp_path)
    assert (res.exit_code, res.stderr) == (
        2, f"Error: {what} bad.json is not UTF-8: byte 0xff at line 2, column 9 cannot be decoded\n")
    (tmp_path / "bad.json").write_text('{\n  "x": NaN\n}\n', encoding="utf-8")
    res = run_axag([args[0], "--isolated", *args[1:]], cwd=tmp_path)
    assert (res.exit_code, res.stderr) == (2, f"Error: {what} bad.json is not valid JSON: NaN is not valid JSON\n")
    (tmp_path / "bad.json").write_text('{\n  "x": [1,]\n}\n', encoding="utf-8")
    res = run_axag([args[0], "--isolated", *args[1:]], cwd=tmp_path)
    assert (res.exit_code, res.stderr) == (
        2, f"Error: {what} bad.json is not valid JSON: Expecting value at line 2, column 11\n")


@pytest.mark.parametrize("name", ["pyproject.toml", "axag.toml"])
def test_config_not_utf8(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(b'[tool.axag]\n# caf\xe9\n' if name == "pyproject.toml" else b"# caf\xe9\n")
    (tmp_path / "a.html").write_text(_PAGE, encoding="utf-8")
    for cmd in (["lint", "a.html"], ["compile", "a.html"]):
        res = run_axag(cmd, cwd=tmp_path)
        line = 2 if name == "pyproject.toml" else 1
        assert res.exit_code == 2
        assert res.stderr == (f"Error: configuration file {tmp_path / name} is not UTF-8: byte 0xe9 at line {line}, "
                              "column 6 cannot be decoded\n")


def test_config_nested_too_deeply(tmp_path: Path) -> None:
    (tmp_path / "axag.toml").write_text("x = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    (tmp_path / "a.html").write_text(_PAGE, encoding="utf-8")
    res = run_axag(["lint", "a.html"], cwd=tmp_path)
    assert res.exit_code == 2
    assert res.stderr.startswith(f"Error: {tmp_path / 'axag.toml'}: invalid TOML")


def test_nesting_error_ignores_brackets_in_strings() -> None:
    assert nesting_error('["[[[[", "\\"[[[["]', limit=1) is None
    assert nesting_error('[["x"]]', limit=1) == (1, 2)
    assert nesting_error('{"a":\n [[1]]}', limit=2) == (2, 3)


def test_not_utf8_column_counts_characters(tmp_path: Path) -> None:
    (tmp_path / "axag.toml").write_bytes("# été \xff\n".encode("utf-8", "surrogateescape").replace(b"\xc3\xbf", b"\xff"))
    (tmp_path / "a.html").write_text(_PAGE, encoding="utf-8")
    res = run_axag(["lint", "a.html"], cwd=tmp_path)
    assert res.stderr.endswith("byte 0xff at line 1, column 7 cannot be decoded\n")
