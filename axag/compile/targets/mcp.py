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


def _copy(value: Any) -> Any:
    """A copy of JSON data: dicts and lists are new, the other values (str, numbers, bool, None) are immutable
    and shared (several times faster than copy.deepcopy on a thousand tools)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def render(contracts: Sequence[ToolContract], version: str) -> dict[str, Any]:
    """The §9.1 document; `version` is the installed axag version. The contracts are not modified."""
    return envelope(SCHEMA_ID, version, [_copy(c.tool) for c in sorted_contracts(contracts)])
