"""OpenAPI bindings: a tool whose action declares `axag-operation-id` and has no form binding is bound to that
operation of an OpenAPI 3.0/3.1 document (JSON or YAML, validated with `openapi-spec-validator`):
`_meta["org.axag/http"] = {"openapi": {"operation_id", "method", "path", "in": {param: location}}, "page"}`.

Drift between the operation and the annotation is reported: an operation parameter (path, query, header, or a
property of a JSON request body) that the annotation does not declare, or declares with another type.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from axag.errors import InputError

__all__ = ["bind_openapi", "bind_operations", "load_openapi", "load_operations", "operations"]

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def load_openapi(path: str | Path) -> dict[str, Any]:
    """The parsed and validated OpenAPI document; `InputError` when unreadable or invalid."""
    p = Path(path)
    try:
        data = p.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the OpenAPI document {p}: {exc}") from exc
    from axag.depends import note

    note(p, data)  # the operations bound depend on it (issue 25)
    try:
        if p.suffix.lower() in (".yaml", ".yml"):
            import yaml

            doc = yaml.safe_load(text)
        else:
            doc = json.loads(text)
    except Exception as exc:  # every parser error is the same problem for the user
        raise InputError(f"{p} is not valid {'YAML' if p.suffix.lower() in ('.yaml', '.yml') else 'JSON'}: "
                         f"{exc}") from exc
    if not isinstance(doc, dict):
        raise InputError(f"{p} is not an OpenAPI document (not an object)")
    from openapi_spec_validator import validate

    try:
        validate(doc)
    except Exception as exc:  # the validator raises several error types
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"{p} is not a valid OpenAPI 3.0/3.1 document: {first}") from exc
    return doc


def _resolve(doc: Mapping[str, Any], node: Any) -> Any:
    """Follow a local `$ref` (``#/components/...``) chain."""
    seen = 0
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and seen < 32:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            return {}
        target: Any = doc
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            target = target.get(part, {}) if isinstance(target, dict) else {}
        node = target
        seen += 1
    return node


def operations(doc: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """operationId -> {"method", "path", "params": {name: (location, schema)}}."""
    out: dict[str, dict[str, Any]] = {}
    for path, item in (doc.get("paths") or {}).items():
        item = _resolve(doc, item)
        if not isinstance(item, dict):
            continue
        shared = [_resolve(doc, p) for p in item.get("parameters", [])]
        for method in _METHODS:
            op = item.get(method)
            if not isinstance(op, dict) or not isinstance(op.get("operationId"), str):
                continue
            params: dict[str, tuple[str, dict[str, Any]]] = {}
            for p in [*shared, *(_resolve(doc, x) for x in op.get("parameters", []))]:
                if isinstance(p, dict) and p.get("in") in ("path", "query", "header") and isinstance(p.get("name"), str):
                    params[p["name"]] = (p["in"], _resolve(doc, p.get("schema", {})) or {})
            body = _resolve(doc, op.get("requestBody", {}))
            content = body.get("content", {}) if isinstance(body, dict) else {}
            schema = _resolve(doc, (content.get("application/json") or {}).get("schema", {}))
            if isinstance(schema, dict):
                for name, sub in (schema.get("properties") or {}).items():
                    params.setdefault(name, ("body", _resolve(doc, sub) or {}))
            out[op["operationId"]] = {"method": method.upper(), "path": path, "params": params}
    return out


def load_operations(path: str | Path) -> dict[str, dict[str, Any]]:
    """The operations of the OpenAPI document at ``path`` (`InputError` when unreadable or invalid)."""
    return operations(load_openapi(path))


def bind_openapi(tools_doc: dict[str, Any], path: str | Path) -> list[str]:
    """Bind the tools of ``tools_doc`` that declare an operation id to the document at ``path`` (in place);
    returns the drift problems as text (lint and compile report them as findings of rule 149 instead)."""
    return bind_operations(tools_doc, load_operations(path))


def bind_operations(tools_doc: dict[str, Any], ops: Mapping[str, dict[str, Any]]) -> list[str]:
    """`bind_openapi` with the document's operations already read."""
    from axag.rules.binding import operation_drift

    problems: list[str] = []
    for tool in tools_doc["tools"]:
        meta = tool["_meta"]
        action = meta["org.axag/action"]
        op_id = action.get("operation_id")
        if not isinstance(op_id, str) or "org.axag/http" in meta:
            continue
        op = ops.get(op_id)
        if op is None:
            problems.append(f"{tool['name']}: the OpenAPI document has no operation {op_id!r}")
            continue
        props: Mapping[str, Any] = tool["inputSchema"].get("properties", {})
        for d in operation_drift(op["params"], props):
            if d.declared is None:
                problems.append(f"{tool['name']}: operation {op_id} has the {d.location} parameter {d.name!r}, "
                                "which the annotation does not declare")
            else:
                problems.append(f"{tool['name']}: parameter {d.name!r} is {d.declared} in the annotation but "
                                f"{d.theirs} in operation {op_id}")
        where = {name: location for name, (location, _schema) in op["params"].items() if name in props}
        for name in props:
            where.setdefault(name, "body")
        source = action["sources"][0]["file"] if action.get("sources") else ""
        meta["org.axag/http"] = {"openapi": {"operation_id": op_id, "method": op["method"], "path": op["path"],
                                             "in": where}, "page": source}
    return problems
