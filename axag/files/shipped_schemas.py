"""Where the shipped JSON Schemas are (repository layout, self-validation and shipped schemas).

A wheel carries them as package data in ``axag/schemas/`` (hatchling force-include); an editable install or a
source checkout reads the repository's top-level ``schemas/``, which holds the canonical copies.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["load_schema", "schema_dir", "schema_path"]

_PACKAGE_DIR = Path(__file__).resolve().parents[1]  # axag/, one folder up from axag/files/


def schema_dir() -> Path:
    """The directory holding the schemas: the installed copy if present, else the repository's ``schemas/``."""
    installed = _PACKAGE_DIR / "schemas"
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parent / "schemas"


def _shipped() -> tuple[str, ...]:
    """The names of the shipped schema files: every ``*.schema.json`` of the directory (each compile target
    declares its own, axag/compile/targets/; ``envelope.schema.json`` describes what `axag serve` answers)."""
    return tuple(sorted(p.name for p in schema_dir().glob("*.schema.json")))


def __getattr__(name: str) -> tuple[str, ...]:
    """``SCHEMA_FILES``: the names of the shipped schema files, listed on use."""
    if name == "SCHEMA_FILES":
        return _shipped()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def schema_path(name: str) -> Path:
    """The path of the shipped schema file `name` (e.g. ``"tools.schema.json"``): a file name ending in
    ``.schema.json`` (KeyError otherwise)."""
    if not name.endswith(".schema.json") or Path(name).name != name or name.startswith("."):
        raise KeyError(f"unknown schema {name!r}; expected one of: {', '.join(_shipped())}")
    return schema_dir() / name


@cache
def _text(name: str) -> str:
    return schema_path(name).read_text(encoding="utf-8")


def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema `name` (a fresh object on every call; callers may modify it)."""
    doc: dict[str, Any] = json.loads(_text(name))
    return doc
