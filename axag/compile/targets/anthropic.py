"""Target ``anthropic`` (SPEC §9.8): ``{"name", "description", "input_schema"}`` tools."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from axag.compile.contract import ToolContract
from axag.compile.targets import SCHEMA_IDS
from axag.compile.targets.mcp import envelope, sorted_contracts

__all__ = ["SCHEMA_ID", "render", "tool"]

SCHEMA_ID = SCHEMA_IDS["anthropic"]


def tool(contract: ToolContract) -> dict[str, Any]:
    """One Anthropic tool; ``input_schema`` is the MCP ``inputSchema`` without ``$schema``."""
    mcp = contract.tool
    schema = {k: copy.deepcopy(v) for k, v in mcp["inputSchema"].items() if k != "$schema"}
    return {"name": mcp["name"], "description": mcp["description"], "input_schema": schema}


def render(contracts: Sequence[ToolContract], version: str) -> dict[str, Any]:
    """The anthropic document: the MCP envelope with this target's ``$schema`` and tool objects."""
    return envelope(SCHEMA_ID, version, [tool(c) for c in sorted_contracts(contracts)])
