"""Keep the pipeline's arrows honest (STYLE.md §2): which modules may import what."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.conftest import REPO

PKG = REPO / "axag"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _modules() -> dict[str, set[str]]:
    out = {}
    for p in PKG.rglob("*.py"):
        if "templates" in p.parts:
            continue
        name = ".".join(p.relative_to(REPO).with_suffix("").parts)
        out[name] = _imports(p)
    return out


def test_only_the_cli_layer_imports_click() -> None:
    for name, imports in _modules().items():
        if any(i == "click" or i.startswith("click.") for i in imports):
            assert name == "axag.cli" or name.startswith("axag.commands."), name


def test_leaf_modules_import_nothing_from_axag() -> None:
    mods = _modules()
    for leaf in ("axag.vocabulary", "axag.spans", "axag.errors", "axag.plural", "axag.guards.pyruntime"):
        assert not [i for i in mods[leaf] if i.startswith("axag")], leaf


def test_generated_runtime_uses_only_the_standard_library() -> None:
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for i in _imports(PKG / "guards" / "pyruntime.py"):
        assert i.split(".")[0] in stdlib, i


def test_reporters_see_only_findings() -> None:
    for name, imports in _modules().items():
        if name.startswith("axag.report"):
            allowed = ("axag.findings", "axag.report", "axag.rules.catalogue", "axag.compile.serialize", "axag.plural",
                       "axag.rules.explain")
            assert all(i == "axag" or i.startswith(allowed) for i in imports if i.startswith("axag")), name


def test_core_does_not_import_the_cli() -> None:
    for name, imports in _modules().items():
        if not (name == "axag.cli" or name.startswith("axag.commands") or name == "axag.__main__"):
            assert not [i for i in imports if i == "axag.cli" or i.startswith("axag.commands")], name
