"""Target ``mcp`` (the default): the ``tools.json`` document of the tools.json output."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from axag.compile.contract import ToolContract
from axag.compile.targets import Rendered, Target, tool_schemas
from axag.compile.validate import ANNOTATION_KEYS, TOOL_KEYS, TOOL_REQUIRED, Checker, Path, is_bool, short

__all__ = ["AXAG_VERSION", "SCHEMA_ID", "TARGETS", "check_mcp_tool", "check_tool", "envelope", "render",
           "sorted_contracts"]

SCHEMA_ID = "https://axag.org/schema/tools/v2/tools.schema.json"
# earlier document versions still accepted as input (`axag guards`, `axag context`, `axag serve`): v2 added
# outputSchema and _meta["org.axag/http"], so every v1 document is a valid v2 document but not the reverse
LEGACY_SCHEMA_IDS = ("https://axag.org/schema/tools/v1/tools.schema.json",)
AXAG_VERSION = "1.1"


def sorted_contracts(contracts: Sequence[ToolContract]) -> list[ToolContract]:
    """The contracts in output order: by tool name, code-point order (the tools.json output)."""
    return sorted(contracts, key=lambda c: c.name)


def envelope(schema_id: str, version: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"$schema", "axag", "generator", "tools"}``, shared by the mcp, openai and anthropic targets (the other compile targets)."""
    return {
        "$schema": schema_id,
        "axag": AXAG_VERSION,
        "generator": {"name": "axag", "version": version},
        "tools": tools,
    }


def render(contracts: Sequence[ToolContract], version: str) -> dict[str, Any]:
    """The tools.json output document; `version` is the installed axag version. The tools are the contracts' own objects
    (shared, not copied: a thousand tools are not held twice); nothing modifies either afterwards."""
    return envelope(SCHEMA_ID, version, [c.tool for c in sorted_contracts(contracts)])


def check_tool(c: Checker, v: Any, path: Path) -> str | None:
    t = c.obj(v, path, TOOL_KEYS, TOOL_REQUIRED)
    if t is None:
        return None
    c.tool_head(t, path)
    ann = c.obj(t.get("annotations"), (*path, "annotations"), ANNOTATION_KEYS, ANNOTATION_KEYS)
    if ann is not None:
        apath = (*path, "annotations")
        c.val(ann, "title", apath, lambda x: x == t.get("title"), "the tool title")
        for hint in ANNOTATION_KEYS[1:]:
            c.val(ann, hint, apath, is_bool, "a boolean")
    out = t.get("outputSchema", {"type": "object"})
    if not isinstance(out, dict) or out.get("type") != "object":
        c.err((*path, "outputSchema"), f"expected an object schema, got {short(out)}")
    wrapper = c.obj(t.get("_meta"), (*path, "_meta"), ("org.axag/action", "org.axag/http"),
                       ("org.axag/action",))
    if wrapper is not None:
        c.meta(wrapper.get("org.axag/action"), (*path, "_meta", "org.axag/action"))
        if "org.axag/http" in wrapper:
            c.http(wrapper["org.axag/http"], (*path, "_meta", "org.axag/http"))
    name = t.get("name")
    return name if isinstance(name, str) else None


def check_mcp_tool(tool: Any, index: int) -> list[str]:
    """`axag.compile.validate.check_structure`'s problems of one tool of an mcp document (at ``/tools/index``)."""
    c = Checker(True)
    check_tool(c, tool, ("tools", index))
    return c.errors


TARGETS: Final[tuple[Target, ...]] = (
    Target(
        name="mcp",
        summary="MCP tools, the tools.json that axag serve, the guards and the catalogue read",
        schema_file="tools.schema.json",
        schema_id=SCHEMA_ID,
        render=lambda contracts, o: Rendered(render(contracts, o.version)),
        check=lambda c, doc: c.tools(doc, TARGETS[0], check_tool),
        schemas=tool_schemas("inputSchema"),
        legacy_schema_ids=LEGACY_SCHEMA_IDS,
    ),
)
