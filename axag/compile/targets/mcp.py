"""Target ``mcp`` (the default): the ``tools.json`` document of SPEC §9.1."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from axag.compile.contract import ToolContract
from axag.compile.targets import SCHEMA_IDS

__all__ = ["AXAG_VERSION", "SCHEMA_ID", "envelope", "render", "sorted_contracts"]

SCHEMA_ID = SCHEMA_IDS["mcp"]
AXAG_VERSION = "1.1"


def sorted_contracts(contracts: Sequence[ToolContract]) -> list[ToolContract]:
    """The contracts in output order: by tool name, code-point order (§9.1)."""
    return sorted(contracts, key=lambda c: c.name)


def envelope(schema_id: str, version: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"$schema", "axag", "generator", "tools"}``, shared by the mcp, openai and anthropic targets (§9.8)."""
    return {
        "$schema": schema_id,
        "axag": AXAG_VERSION,
        "generator": {"name": "axag", "version": version},
        "tools": tools,
    }


def render(contracts: Sequence[ToolContract], version: str) -> dict[str, Any]:
    """The §9.1 document; `version` is the installed axag version. The tools are the contracts' own objects
    (shared, not copied: a thousand tools are not held twice); nothing modifies either afterwards."""
    return envelope(SCHEMA_ID, version, [c.tool for c in sorted_contracts(contracts)])
