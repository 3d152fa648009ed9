"""Where the shipped JSON Schemas are (SPEC §1.4, §9.10).

A wheel carries them as package data in ``axag/schemas/`` (hatchling force-include); an editable install or a
source checkout reads the repository's top-level ``schemas/``, which holds the canonical copies.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["SCHEMA_FILES", "load_schema", "schema_dir", "schema_path"]

SCHEMA_FILES = (
    "anthropic-tools.schema.json",
    "axag-manifest-1.1.schema.json",
    "openai-responses-tools.schema.json",
    "envelope.schema.json",
    "openai-tools.schema.json",
    "tools.schema.json",
    "webmcp-tools.schema.json",
)

_PACKAGE_DIR = Path(__file__).resolve().parent


def schema_dir() -> Path:
    """The directory holding the schemas: the installed copy if present, else the repository's ``schemas/``."""
    installed = _PACKAGE_DIR / "schemas"
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parent / "schemas"


def schema_path(name: str) -> Path:
    """The path of the shipped schema file `name` (e.g. ``"tools.schema.json"``)."""
    if name not in SCHEMA_FILES:
        raise KeyError(f"unknown schema {name!r}; expected one of: {', '.join(SCHEMA_FILES)}")
    return schema_dir() / name


@cache
def _text(name: str) -> str:
    return schema_path(name).read_text(encoding="utf-8")


def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema `name` (a fresh object on every call; callers may modify it)."""
    doc: dict[str, Any] = json.loads(_text(name))
    return doc
