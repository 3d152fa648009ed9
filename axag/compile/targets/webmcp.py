"""Target ``webmcp`` (issue 29): the site's tools in the shape a page registers with WebMCP
(``document.modelContext.registerTool``), one entry per tool of the ``mcp`` target with the same name.

Each tool keeps the MCP tool's ``name``, ``title``, ``description`` and ``inputSchema``; ``annotations`` holds only
the members the WebMCP draft defines (``readOnlyHint``, and ``untrustedContentHint`` for tools whose answer is a
backend's body: it may carry what other people wrote); ``_meta`` keeps axag's own blocks and adds
``org.axag/element``, where the element is: for a static page its URL path and the element's position among
the page's elements with the same ``axag-intent``, for a template or a component the source file (such a tool
registers on any page that renders an element with that intent). The ``axag webmcp`` runtime reads this shape.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from axag.compile.contract import ToolContract
from axag.compile.targets import SCHEMA_IDS
from axag.compile.targets.mcp import envelope, sorted_contracts

__all__ = ["ELEMENT_KEY", "SCHEMA_ID", "from_mcp", "locations", "render", "tool"]

SCHEMA_ID = SCHEMA_IDS["webmcp"]
ELEMENT_KEY = "org.axag/element"


def _static_page(file: str) -> bool:
    return os.path.splitext(file)[1].lower() in (".html", ".htm")


def locations(action: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Where the tool's elements are: ``{"page", "index"}`` on a static page (``index`` counts the elements with
    the same intent before it in that file, in source order), ``{"source"}`` in a template or component."""
    from axag.compile.http import page_url

    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for src in action.get("sources") or ():
        file = str(src["file"])
        if _static_page(file):
            index = seen.get(file, 0)
            seen[file] = index + 1
            out.append({"page": page_url(file), "index": index})
        elif {"source": file} not in out:
            out.append({"source": file})
    return out


def tool(mcp: Mapping[str, Any]) -> dict[str, Any]:
    """The WebMCP tool of one MCP tool (its objects are shared, not copied: nothing modifies them)."""
    meta: dict[str, Any] = dict(mcp["_meta"])
    action = meta["org.axag/action"]
    bound = "org.axag/http" in meta
    meta[ELEMENT_KEY] = {"intent": action["intent"], "locations": locations(action)}
    return {
        "name": mcp["name"],
        "title": mcp["title"],
        "description": mcp["description"],
        "inputSchema": mcp["inputSchema"],
        "annotations": {"readOnlyHint": mcp["annotations"]["readOnlyHint"], "untrustedContentHint": bound},
        "_meta": meta,
    }


def from_mcp(doc: Mapping[str, Any], version: str) -> dict[str, Any]:
    """The webmcp document of an MCP tools document (``axag webmcp tools.json``)."""
    return envelope(SCHEMA_ID, version, [tool(t) for t in sorted(doc["tools"], key=lambda t: str(t["name"]))])


def render(contracts: Sequence[ToolContract], version: str) -> dict[str, Any]:
    """The webmcp document: the MCP envelope with this target's ``$schema`` and WebMCP tools."""
    return envelope(SCHEMA_ID, version, [tool(c.tool) for c in sorted_contracts(contracts)])
