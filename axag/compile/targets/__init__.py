"""Compile targets (SPEC §9.1, §9.8, §9.9): pure mappings of `ToolContract` objects to documents.

Each target module has ``render(contracts, version, ...)``; `render` below dispatches by target name and returns
the document together with the compile-only problems the target found as facts (`Kind.LOSSY_MAPPING` for
``manifest``, `Kind.STRICT_MODE_INCOMPATIBLE` for ``openai``/``openai-responses`` with ``--strict``; rules 145 and
146 judge them, `axag.rules.run.target_problem`). Writing is the caller's job (`axag.compile.serialize.dumps`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from axag.facts import Kind

if TYPE_CHECKING:
    from axag.compile.contract import ToolContract
    from axag.compile.targets.manifest import DynamicAction

__all__ = ["LEGACY_SCHEMA_IDS", "SCHEMA_FILES", "SCHEMA_IDS", "STRICT_TARGETS", "TARGETS", "Rendered",
           "render"]

TARGETS: Final = ("mcp", "openai", "openai-responses", "anthropic", "manifest", "webmcp")
STRICT_TARGETS: Final = ("openai", "openai-responses")  # the targets `--strict` applies to
SCHEMA_IDS: Final = {
    "mcp": "https://axag.org/schema/tools/v2/tools.schema.json",
    "openai": "https://axag.org/schema/tools/v1/openai-tools.schema.json",
    "openai-responses": "https://axag.org/schema/tools/v1/openai-responses-tools.schema.json",
    "anthropic": "https://axag.org/schema/tools/v1/anthropic-tools.schema.json",
    "manifest": "https://axag.org/schema/v1.1/axag-manifest.schema.json",
    "webmcp": "https://axag.org/schema/tools/v1/webmcp-tools.schema.json",
}
# earlier document versions still accepted as input (`axag guards`, `axag context`, `axag serve`): v2 added
# outputSchema and _meta["org.axag/http"], so every v1 document is a valid v2 document but not the reverse
LEGACY_SCHEMA_IDS: Final = {"mcp": ("https://axag.org/schema/tools/v1/tools.schema.json",)}
SCHEMA_FILES: Final = {
    "mcp": "tools.schema.json",
    "openai": "openai-tools.schema.json",
    "openai-responses": "openai-responses-tools.schema.json",
    "anthropic": "anthropic-tools.schema.json",
    "manifest": "axag-manifest-1.1.schema.json",
    "webmcp": "webmcp-tools.schema.json",
}


@dataclass
class Rendered:
    """A target document and its compile-only problems.

    `problems` are ``(subject, text)`` pairs of the `kind`: for `Kind.STRICT_MODE_INCOMPATIBLE` the subject is the
    tool name and the text the reason; for `Kind.LOSSY_MAPPING` the subject is the intent and the text what is
    lost.
    """

    doc: dict[str, Any]
    kind: Kind | None = None
    problems: list[tuple[str, str]] = field(default_factory=list)


def render(
    target: str,
    contracts: Sequence[ToolContract],
    version: str,
    *,
    strict: bool = False,
    paths: Sequence[str] = (),
    dynamic_actions: Sequence[DynamicAction] = (),
    environ: Mapping[str, str] | None = None,
) -> Rendered:
    """Render `contracts` for `target`. `strict` is for the two OpenAI targets only; `paths` (inputs relative to the compile
    root), `dynamic_actions` and `environ` (``SOURCE_DATE_EPOCH``; ``None`` = ``os.environ``) for ``manifest``."""
    if target == "mcp":
        from axag.compile.targets import mcp

        return Rendered(mcp.render(contracts, version))
    if target == "webmcp":
        from axag.compile.targets import webmcp

        return Rendered(webmcp.render(contracts, version))
    if target == "anthropic":
        from axag.compile.targets import anthropic

        return Rendered(anthropic.render(contracts, version))
    if target in STRICT_TARGETS:
        from axag.compile.targets import openai

        doc, problems = openai.render(contracts, version, strict=strict, responses=target == "openai-responses")
        return Rendered(doc, Kind.STRICT_MODE_INCOMPATIBLE, problems)
    if target == "manifest":
        from axag.compile.targets import manifest

        doc, drops = manifest.render(
            contracts, version, paths=paths, dynamic_actions=dynamic_actions, environ=environ
        )
        return Rendered(doc, Kind.LOSSY_MAPPING, drops)
    raise ValueError(f"unknown target {target!r}; expected one of: {', '.join(TARGETS)}")
