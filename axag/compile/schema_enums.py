"""The enumerations of the shipped JSON Schemas (``schemas/``), made from the vocabulary.

Every ``enum`` of a shipped schema that lists vocabulary values (action types, risk levels, scopes, tenant
boundaries, rate periods, parameter types, conformance levels, manifest formats) is written here from its single
declaration, never by hand: ``python scripts/generate-schemas.py`` rewrites the files and
``python scripts/generate-schemas.py --check`` (and tests/vocabulary/test_meanings.py) fails when one differs.
Adding a value to `axag.vocabulary` and running the script is all a schema needs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from axag import vocabulary as V

__all__ = ["ENUM_SITES", "generated", "stale"]


def _manifest_formats() -> tuple[str, ...]:
    from axag.compile.targets.manifest import MANIFEST_FORMATS

    return MANIFEST_FORMATS


_ACTION: Final = "/$defs/action/properties"
_MANIFEST_ACTION: Final = "/definitions/action/properties"
_MANIFEST_PARAM: Final = "/definitions/parameter/properties"

# (schema file, JSON pointer of the schema object holding the enum, its values)
ENUM_SITES: Final[tuple[tuple[str, str, Callable[[], tuple[Any, ...]]], ...]] = (
    ("tools.schema.json", f"{_ACTION}/action_type", lambda: V.ACTION_TYPES),
    ("tools.schema.json", f"{_ACTION}/risk_level", lambda: V.RISK_LEVELS),
    ("tools.schema.json", f"{_ACTION}/scope", lambda: V.SCOPES),
    ("tools.schema.json", f"{_ACTION}/tenant_boundary", lambda: V.TENANT_BOUNDARIES),
    ("tools.schema.json", f"{_ACTION}/rate_limit/properties/period", lambda: tuple(V.PERIOD_SECONDS)),
    ("tools.schema.json", f"{_ACTION}/rate_limit/properties/window_seconds",
     lambda: tuple(V.PERIOD_SECONDS.values())),
    ("axag-manifest-1.1.schema.json", "/properties/conformance", lambda: V.LINT_LEVELS),
    ("axag-manifest-1.1.schema.json", f"{_MANIFEST_ACTION}/action_type", lambda: V.ACTION_TYPES),
    ("axag-manifest-1.1.schema.json", f"{_MANIFEST_ACTION}/risk_level", lambda: V.RISK_LEVELS),
    ("axag-manifest-1.1.schema.json", f"{_MANIFEST_ACTION}/scope", lambda: V.SCOPES),
    ("axag-manifest-1.1.schema.json", f"{_MANIFEST_ACTION}/tenant_boundary", lambda: V.TENANT_BOUNDARIES),
    ("axag-manifest-1.1.schema.json", f"{_MANIFEST_PARAM}/type", lambda: V.PARAMETER_TYPES),
    ("axag-manifest-1.1.schema.json", f"{_MANIFEST_PARAM}/format", _manifest_formats),
)


def _node(doc: Any, pointer: str, name: str) -> dict[str, Any]:
    node = doc
    for part in pointer.lstrip("/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            raise KeyError(f"{name}: no schema at {pointer}")
        node = node[part]
    if not isinstance(node, dict) or "enum" not in node:
        raise KeyError(f"{name}: no enum at {pointer}")
    return node


def generated(name: str, text: str) -> str:
    """The text of the schema file ``name`` (now ``text``) with its vocabulary enums written from the vocabulary."""
    doc = json.loads(text)
    for file, pointer, values in ENUM_SITES:
        if file == name:
            _node(doc, pointer, name)["enum"] = list(values())
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def stale(schemas: Path, *, write: bool = False) -> list[str]:
    """The schema files in ``schemas`` whose enums differ from the vocabulary (rewritten with ``write``)."""
    out: list[str] = []
    for name in sorted({file for file, _, _ in ENUM_SITES}):
        path = schemas / name
        text = path.read_text(encoding="utf-8")
        new = generated(name, text)
        if new != text:
            out.append(name)
            if write:
                path.write_text(new, encoding="utf-8")
    return out
