"""The `slow` marker (registered in pyproject.toml, applied by tests/conftest.py) names tests that exist."""

from __future__ import annotations

import ast
import tomllib

from tests.conftest import REPO, SLOW_TESTS


def test_every_slow_entry_names_a_test() -> None:
    for entry in sorted(SLOW_TESTS):
        path, _, name = entry.partition("::")
        file = REPO / path
        assert file.is_file(), entry
        if name:
            tree = ast.parse(file.read_text(encoding="utf-8"))
            names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            assert name in names, entry


def test_the_marker_is_registered() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    markers = config["tool"]["pytest"]["ini_options"]["markers"]
    assert any(m.startswith("slow:") for m in markers)
