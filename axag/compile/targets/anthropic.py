"""Target ``anthropic`` (the other compile targets): ``{"name", "description", "input_schema"}`` tools."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Final

from axag.compile.contract import ToolContract
from axag.compile.targets import Rendered, Target, tool_schemas
from axag.compile.targets.mcp import envelope, sorted_contracts
from axag.compile.validate import Checker, Path, is_text, matches
from axag.vocabulary import TOOL_NAME_RE

__all__ = ["SCHEMA_ID", "TARGETS", "check_tool", "render", "tool"]

SCHEMA_ID = "https://axag.org/schema/tools/v1/anthropic-tools.schema.json"


def tool(contract: ToolContract) -> dict[str, Any]:
    """One Anthropic tool; ``input_schema`` is the MCP ``inputSchema`` without ``$schema``."""
    mcp = contract.tool
    schema = {k: copy.deepcopy(v) for k, v in mcp["inputSchema"].items() if k != "$schema"}
    return {"name": mcp["name"], "description": mcp["description"], "input_schema": schema}


def render(contracts: Sequence[ToolContract], version: str) -> dict[str, Any]:
    """The anthropic document: the MCP envelope with this target's ``$schema`` and tool objects."""
    return envelope(SCHEMA_ID, version, [tool(c) for c in sorted_contracts(contracts)])


def check_tool(c: Checker, v: Any, path: Path) -> str | None:
    keys = ("name", "description", "input_schema")
    t = c.obj(v, path, keys, keys)
    if t is None:
        return None
    c.val(t, "name", path, matches(TOOL_NAME_RE), "a tool name")
    c.val(t, "description", path, is_text, "a non-empty string")
    c.root_schema(t.get("input_schema"), (*path, "input_schema"), with_schema=False, strict=False)
    name = t.get("name")
    return name if isinstance(name, str) else None


TARGETS: Final[tuple[Target, ...]] = (
    Target(
        name="anthropic",
        summary="Anthropic tools",
        schema_file="anthropic-tools.schema.json",
        schema_id=SCHEMA_ID,
        render=lambda contracts, o: Rendered(render(contracts, o.version)),
        check=lambda c, doc: c.tools(doc, TARGETS[0], check_tool),
        schemas=tool_schemas("input_schema"),
    ),
)
