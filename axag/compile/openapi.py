"""OpenAPI bindings: a tool whose action declares `axag-operation-id` and has no form binding is bound to that
operation of an OpenAPI 3.0/3.1 document (JSON or YAML, validated with `openapi-spec-validator`):
`_meta["org.axag/http"] = {"openapi": {"operation_id", "method", "path", "in": {param: location}}, "page"}`.

Drift between the operation and the annotation is reported: an operation parameter (path, query, header, or a
property of a JSON request body) that the annotation does not declare, or declares with another type.

References resolve offline only: within the document, or to YAML/JSON files beside it (in its folder
or below). Any other `$ref` (a URL, a `file://` URI, a path leaving the folder, a missing file) is an input error
naming the file and the reference, before anything is validated: nothing is ever fetched, in every command.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from axag.outcome.errors import InputError

__all__ = ["bind_openapi", "bind_operations", "load_openapi", "load_operations", "operations"]

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


_REF_FILES = "_axag_ref_files"  # where `load_openapi` keeps the files a document refers to (key: resolved path)


def _parse(p: Path, what: str) -> Any:
    try:
        data = p.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {what} {p}: {exc}") from exc
    from axag.files.depends import note

    note(p, data)  # the operations bound depend on it, and so on every file its refs name
    try:
        if p.suffix.lower() in (".yaml", ".yml"):
            import yaml

            return yaml.safe_load(text)
        return json.loads(text)
    except Exception as exc:  # every parser error is the same problem for the user
        raise InputError(f"{p} is not valid {'YAML' if p.suffix.lower() in ('.yaml', '.yml') else 'JSON'}: "
                         f"{exc}") from exc


def _refs(node: Any, at: str = "") -> Iterator[tuple[str, str]]:
    """(JSON pointer, reference) of every `$ref` string in ``node``."""
    stack = [(at, node)]
    while stack:
        where, cur = stack.pop()
        if isinstance(cur, dict):
            ref = cur.get("$ref")
            if isinstance(ref, str):
                yield f"{where}/$ref", ref
            stack.extend((f"{where}/{str(k).replace('~', '~0').replace('/', '~1')}", v) for k, v in cur.items()
                         if k != "$ref")
        elif isinstance(cur, list):
            stack.extend((f"{where}/{i}", v) for i, v in enumerate(cur))


def _ref_file(ref: str, base: Path, root: Path, p: Path, where: str) -> Path | None:
    """The file a `$ref` names (None: within its own document); `InputError` for any reference that would
    need a fetch or leave ``root``."""
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(ref)
    if parts.scheme or parts.netloc or ref.startswith("//"):
        raise InputError(f"{p}: the $ref {ref!r} at {where} is not followed: references resolve offline only, "
                         "within the document or to files beside it (nothing is fetched)")
    if not parts.path:
        return None
    target = (base / unquote(parts.path)).resolve()
    if target != root and root not in target.parents:
        raise InputError(f"{p}: the $ref {ref!r} at {where} leaves the folder of the OpenAPI document "
                         f"({root}); only files beside it are read")
    if not target.is_file():
        raise InputError(f"{p}: the $ref {ref!r} at {where} names {target}, which is not a file")
    return target


def _load_refs(doc: Any, p: Path) -> dict[str, Any]:
    """The files ``doc`` (read from ``p``) refers to, transitively: {resolved path: parsed content}."""
    root = p.resolve().parent
    files: dict[str, Any] = {}
    todo = [(doc, p.resolve())]
    while todo:
        node, source = todo.pop()
        for where, ref in _refs(node):
            target = _ref_file(ref, source.parent, root, source if source != p.resolve() else p, where)
            if target is not None and str(target) not in files:
                files[str(target)] = _parse(target, "the referenced file")
                todo.append((files[str(target)], target))
    return files


def _offline(files: Mapping[str, Any]) -> Any:
    def handler(uri: str) -> Any:
        from urllib.parse import unquote, urlsplit

        parts = urlsplit(uri)
        key = str(Path(unquote(parts.path)).resolve()) if parts.scheme == "file" else None
        if key is None or key not in files:
            raise InputError(f"the reference {uri} is not one of the document's files; nothing is fetched")
        return files[key]

    return handler


def load_openapi(path: str | Path) -> dict[str, Any]:
    """The parsed and validated OpenAPI document; `InputError` when unreadable or invalid, or when a `$ref`
    would need a fetch. The files it refers to are kept under ``"_axag_ref_files"`` for `operations`."""
    p = Path(path)
    doc = _parse(p, "the OpenAPI document")
    if not isinstance(doc, dict):
        raise InputError(f"{p} is not an OpenAPI document (not an object)")
    files = _load_refs(doc, p)
    from jsonschema_path import SchemaPath
    from openapi_spec_validator.shortcuts import get_validator_cls

    handler = _offline(files)
    handlers = {"file": handler, "http": handler, "https": handler, "<all_urls>": handler}
    try:
        spec = SchemaPath.from_dict(doc, base_uri=p.resolve().as_uri(), handlers=handlers)
        get_validator_cls(doc)(spec).validate()
    except Exception as exc:  # the validator raises several error types
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"{p} is not a valid OpenAPI 3.0/3.1 document: {first}") from exc
    out = dict(doc)
    out[_REF_FILES] = {"": (str(p.resolve()), doc), **{k: (k, v) for k, v in files.items()}}
    return out


def _resolve(doc: Mapping[str, Any], node: Any, home: str = "") -> tuple[Any, str]:
    """Follow a `$ref` chain from ``node`` of the file ``home`` ("" is the document itself): (the node, the file
    it is in). References to files beside the document are followed when `load_openapi` read them; an
    unresolvable one is ``{}``."""
    from urllib.parse import unquote, urlsplit

    files: Mapping[str, tuple[str, Any]] = doc.get(_REF_FILES) or {"": ("", doc)}
    seen = 0
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and seen < 32:
        parts = urlsplit(node["$ref"])
        if parts.path:
            here = files.get(home, files[""])[0]
            home = str((Path(here).parent / unquote(parts.path)).resolve()) if here else "?"
        entry = files.get(home)
        if entry is None or parts.scheme or parts.netloc:
            return {}, home
        target: Any = entry[1]
        pointer = unquote(parts.fragment)
        for part in (pointer[1:].split("/") if pointer.startswith("/") else []):
            part = part.replace("~1", "/").replace("~0", "~")
            target = target.get(part, {}) if isinstance(target, dict) else {}
        node = target
        seen += 1
    return node, home


def operations(doc: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """operationId -> {"method", "path", "params": {name: (location, schema)}}."""
    out: dict[str, dict[str, Any]] = {}
    for path, raw_item in (doc.get("paths") or {}).items():
        item, home = _resolve(doc, raw_item)
        if not isinstance(item, dict):
            continue
        shared = [_resolve(doc, p, home) for p in item.get("parameters", [])]
        for method in _METHODS:
            op = item.get(method)
            if not isinstance(op, dict) or not isinstance(op.get("operationId"), str):
                continue
            params: dict[str, tuple[str, dict[str, Any]]] = {}
            for p, at in [*shared, *(_resolve(doc, x, home) for x in op.get("parameters", []))]:
                if isinstance(p, dict) and p.get("in") in ("path", "query", "header") and isinstance(p.get("name"), str):
                    params[p["name"]] = (p["in"], _resolve(doc, p.get("schema", {}), at)[0] or {})
            body, at = _resolve(doc, op.get("requestBody", {}), home)
            content = body.get("content", {}) if isinstance(body, dict) else {}
            schema, at = _resolve(doc, (content.get("application/json") or {}).get("schema", {}), at)
            if isinstance(schema, dict):
                for name, sub in (schema.get("properties") or {}).items():
                    params.setdefault(name, ("body", _resolve(doc, sub, at)[0] or {}))
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
