"""`ToolContract`: everything compile knows about one tool (tool naming and duplicates). Targets are thin mappings of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

INPUT_SCHEMA_URI = "https://json-schema.org/draft/2020-12/schema"


@cache
def output_schema() -> dict[str, Any]:
    """Every tool's `outputSchema`: the envelope's model view (schemas/envelope.schema.json without its
    `$id`, `title` and `description`; no boolean subschemas), one shared object (compile.merge leaves it
    out of packed contracts)."""
    from axag.compile.subschemas import object_subschemas
    from axag.files.shipped_schemas import load_schema

    doc = load_schema("envelope.schema.json")
    schema: dict[str, Any] = object_subschemas({k: v for k, v in doc.items() if k not in ("$id", "title", "description")})
    return schema


@dataclass
class ManifestParam:
    """What the manifest target (the manifest target) needs about one parameter beyond its compiled schema."""

    name: str
    required: bool
    harvested_only: bool  # source "harvested:html"
    # harvesting supplied (part of) this parameter, merged with a declared one or not (manifest conformance, the manifest target)
    harvested: bool = False


@dataclass
class ToolContract:
    """One compiled tool.

    ``tool`` is the complete MCP Tool object of the tools.json output (keys in output order:
    name, title, description, inputSchema, annotations, _meta), with ``_meta["org.axag/action"]["sources"]``.
    The other fields carry what non-MCP targets need and what the MCP object cannot hold.
    """

    tool: dict[str, Any]
    declared_description: str | None = None  # whitespace-collapsed axag-description, if declared
    declared_required_parameters: bool = False  # axag-required-parameters declared (possibly [])
    params: list[ManifestParam] = field(default_factory=list)  # in property order
    # sources as (file relative to compile root, line, column), sorted
    sources: list[tuple[str, int, int]] = field(default_factory=list)
    # declared-ness flags needed by the manifest's conformance (the manifest target)
    declared: frozenset[str] = frozenset()  # longhand attribute names declared on the element (valid ones)
    # (display path, repository-relative path) of the first source, for findings about the tool
    origin: tuple[str, str] | None = None
    # the contract as JSON text without sources (computed where the contract is built, i.e. in workers)
    key: str = ""

    @property
    def name(self) -> str:
        return str(self.tool["name"])

    @property
    def meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = self.tool["_meta"]["org.axag/action"]
        return meta
