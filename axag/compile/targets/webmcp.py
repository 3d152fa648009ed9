"""Target ``webmcp``: the site's tools in the shape a page registers with WebMCP
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
from typing import Any, Final

from axag.compile.contract import ToolContract
from axag.compile.targets import Rendered, Target, tool_schemas
from axag.compile.targets.mcp import envelope, sorted_contracts
from axag.compile.validate import Checker, Path, is_bool, is_nonneg_int, is_text, matches, short
from axag.vocabulary import INTENT_RE

__all__ = ["ELEMENT_KEY", "SCHEMA_ID", "TARGETS", "check_tool", "from_mcp", "locations", "render", "tool"]

SCHEMA_ID = "https://axag.org/schema/tools/v1/webmcp-tools.schema.json"
WEBMCP_TOOL_KEYS: Final = ("name", "title", "description", "inputSchema", "annotations", "_meta")
WEBMCP_ANNOTATION_KEYS: Final = ("readOnlyHint", "untrustedContentHint")  # the members the WebMCP draft defines
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


def check_tool(c: Checker, v: Any, path: Path) -> str | None:
    """A tool of the webmcp target (axag/compile/targets/webmcp.py)."""
    t = c.obj(v, path, WEBMCP_TOOL_KEYS, WEBMCP_TOOL_KEYS)
    if t is None:
        return None
    c.tool_head(t, path)
    apath = (*path, "annotations")
    ann = c.obj(t.get("annotations"), apath, WEBMCP_ANNOTATION_KEYS, WEBMCP_ANNOTATION_KEYS)
    if ann is not None:
        for hint in WEBMCP_ANNOTATION_KEYS:
            c.val(ann, hint, apath, is_bool, "a boolean")
    mpath = (*path, "_meta")
    wrapper = c.obj(t.get("_meta"), mpath, ("org.axag/action", "org.axag/http", "org.axag/element"),
                       ("org.axag/action", "org.axag/element"))
    if wrapper is not None:
        c.meta(wrapper.get("org.axag/action"), (*mpath, "org.axag/action"))
        if "org.axag/http" in wrapper:
            c.http(wrapper["org.axag/http"], (*mpath, "org.axag/http"))
        _check_element(c, wrapper.get("org.axag/element"), (*mpath, "org.axag/element"))
    name = t.get("name")
    return name if isinstance(name, str) else None


def _check_element(c: Checker, v: Any, path: Path) -> None:
    e = c.obj(v, path, ("intent", "locations"), ("intent", "locations"))
    if e is None:
        return
    c.val(e, "intent", path, matches(INTENT_RE), "an intent")
    places = e.get("locations")
    if not isinstance(places, list) or not places:
        c.err((*path, "locations"), f"expected a non-empty array, got {short(places)}")
        return
    for i, place in enumerate(places):
        ipath = (*path, "locations", i)
        static = isinstance(place, dict) and "page" in place
        p = c.obj(place, ipath, ("page", "index") if static else ("source",),
                     ("page", "index") if static else ("source",))
        if p is None:
            continue
        c.fields(p, ipath, {
            "page": (lambda x: is_text(x) and x.startswith("/"), "a URL path"),
            "index": (is_nonneg_int, "an integer >= 0"),
            "source": (is_text, "a non-empty string"),
        })


TARGETS: Final[tuple[Target, ...]] = (
    Target(
        name="webmcp",
        summary="WebMCP tools, as a page registers them",
        schema_file="webmcp-tools.schema.json",
        schema_id=SCHEMA_ID,
        render=lambda contracts, o: Rendered(render(contracts, o.version)),
        check=lambda c, doc: c.tools(doc, TARGETS[0], check_tool),
        schemas=tool_schemas("inputSchema"),
    ),
)
