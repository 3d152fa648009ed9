"""Schemas as every MCP host reads them: no boolean schema where a host expects a schema object.

JSON Schema allows ``true`` and ``false`` wherever a schema goes, but the TypeScript MCP SDK (and every host
built on it, the MCP Inspector included) refuses a tool list whose ``outputSchema`` or ``inputSchema`` has a
boolean as the schema of a property or an item. `object_subschemas` writes them as the equivalent objects:
``true`` as ``{}``, ``false`` as ``{"not": {}}``. ``additionalProperties``, ``unevaluatedProperties`` and
``unevaluatedItems`` keep their booleans (strict hosts require ``additionalProperties: false``).
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["object_subschemas"]

# keywords whose value is one schema, a list of schemas, or an object of schemas (JSON Schema 2020-12)
_ONE: Final = frozenset({"items", "contains", "not", "if", "then", "else", "propertyNames", "additionalItems",
                         "contentSchema"})
_LIST: Final = frozenset({"prefixItems", "allOf", "anyOf", "oneOf"})
_MAP: Final = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
# subschema keywords left as they are: hosts' strict modes require `additionalProperties: false`
_KEPT: Final = frozenset({"additionalProperties", "unevaluatedProperties", "unevaluatedItems"})


def _as_object(schema: Any) -> Any:
    if schema is True:
        return {}
    if schema is False:
        return {"not": {}}
    return object_subschemas(schema)


def object_subschemas(schema: Any) -> Any:
    """`schema` with every boolean subschema (but those of `_KEPT`) written as an object; a new value where
    anything changed (`schema` itself is never modified), `schema` itself otherwise."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    changed = False
    for key, value in schema.items():
        new = value
        if key in _ONE:
            new = _as_object(value)
        elif key in _LIST and isinstance(value, list):
            items = [_as_object(v) for v in value]
            new = items if any(a is not b for a, b in zip(items, value, strict=True)) else value
        elif key in _MAP and isinstance(value, dict):
            subs = {k: _as_object(v) for k, v in value.items()}
            new = subs if any(subs[k] is not value[k] for k in value) else value
        elif key in _KEPT and isinstance(value, dict):
            new = object_subschemas(value)
        out[key] = new
        changed = changed or new is not value
    return out if changed else schema

