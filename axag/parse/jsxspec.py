"""`axag={spec}` in JSX: the spec object resolved as the reference implementation does.

An object literal, ``defineAction({...})``, ``as const`` / ``satisfies`` wrappers, or an identifier bound to a
module-level ``const`` of the same file or reached through a relative named import (TypeScript's ``./x.js`` ->
``x.ts`` rule; never ``node_modules``). camelCase keys map to ``axag-*`` attributes; ``handler`` is ignored.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from axag.files.depends import note
from axag.parse import jsxtree as T

Node = Any
_IMPORT_HOPS = 4
_SOURCE_EXTS = (".tsx", ".ts", ".jsx", ".js", ".mts", ".mjs", ".cts", ".cjs")
_TS_FOR_JS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
IGNORED_KEYS = frozenset({"handler"})


@dataclass
class Module:
    """One parsed source file the spec may live in."""

    path: Path
    text: str
    data: bytes
    root: Node
    grammar: str
    offsets: T.Offsets
    consts: dict[str, Node] | None = None

    def cp(self, byte: int) -> int:
        return self.offsets.cp(byte)


@dataclass
class SpecEntry:
    """One key of a resolved spec: the attribute it becomes and where its parts are."""

    name: str  # axag-* meaning name
    value: str | None  # None: dynamic (not a literal)
    key_span: tuple[int, int]  # code points, in `module`
    value_span: tuple[int, int]
    literal_body: bool  # value_span covers exactly the value's characters (a string without escapes)
    module: Module


def attribute_name(key: str) -> str:
    """``riskLevel`` -> ``axag-risk-level``; ``action-type`` and ``axag-action-type`` keep their form."""
    if key.lower().startswith("axag-"):
        return key.lower()
    kebab = re.sub(r"(?<!^)([A-Z])", r"-\1", key).lower()
    return "axag-" + kebab.replace("_", "-")


def module_of(path: Path, text: str, grammar: str, data: bytes | None = None) -> Module:
    data = T.source_bytes(text) if data is None else data
    tree = T.parse(data, grammar)
    return Module(path, text, data, tree.root_node, grammar, T.Offsets(text))


def resolve(module: Module, node: Node, loader: Loader, hops: int = 0) -> tuple[Module, Node] | None:
    """The object literal a spec expression stands for, with the module it is in; None when unresolvable."""
    node = T.unwrap(node)
    if node is None:
        return None
    if node.type == "object":
        return module, node
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is not None and fn.type == "identifier" and T.node_text(module.data, fn) == "defineAction" \
                and args is not None and args.named_children:
            return resolve(module, args.named_children[0], loader, hops)
        return None
    if node.type == "identifier" and hops <= _IMPORT_HOPS:
        return _binding(module, T.node_text(module.data, node), loader, hops)
    return None


def _consts(module: Module) -> dict[str, Node]:
    """The module-level ``const`` bindings (exported or not) and their value nodes (first one wins)."""
    if module.consts is not None:
        return module.consts
    found: dict[str, Node] = {}
    for stmt in module.root.named_children:
        decl = stmt
        if stmt.type == "export_statement":
            inner = stmt.child_by_field_name("declaration")
            if inner is None:
                continue
            decl = inner
        if decl.type == "lexical_declaration" and decl.children and decl.children[0].type == "const":
            for d in decl.named_children:
                if d.type != "variable_declarator":
                    continue
                ident = d.child_by_field_name("name")
                value = d.child_by_field_name("value")
                if ident is not None and value is not None:
                    found.setdefault(T.node_text(module.data, ident), value)
    module.consts = found
    return found


def _binding(module: Module, name: str, loader: Loader, hops: int) -> tuple[Module, Node] | None:
    value = _consts(module).get(name)
    if value is not None:
        return resolve(module, value, loader, hops)
    for stmt in module.root.named_children:
        if stmt.type in ("import_statement", "export_statement") and hops < _IMPORT_HOPS:
            found = _imported(module, stmt, name, loader, hops)
            if found is not None:
                return found
    return None


def _imported(module: Module, stmt: Node, name: str, loader: Loader, hops: int) -> tuple[Module, Node] | None:
    source = stmt.child_by_field_name("source")
    if source is None:
        return None
    spec = T.literal(module.data, source)
    if spec is None or not spec[0].startswith(("./", "../")):
        return None
    for clause in stmt.named_children:
        if clause.type == "export_clause":  # export { a as b } from "./x"
            lists = [clause]
        elif clause.type == "import_clause":
            lists = [n for n in clause.named_children if n.type == "named_imports"]
        else:
            continue
        for named in lists:
            for item in named.named_children:
                if item.type not in ("import_specifier", "export_specifier"):
                    continue
                orig = item.child_by_field_name("name")
                alias = item.child_by_field_name("alias")
                local = alias if alias is not None else orig
                if orig is None or local is None or T.node_text(module.data, local) != name:
                    continue
                other = loader.load(module.path.parent, spec[0])
                if other is None:
                    return None
                return _binding(other, T.node_text(module.data, orig), loader, hops + 1)
    return None


class Loader:
    """Reads and parses the files relative imports name (each once per linted file)."""

    def __init__(self) -> None:
        self._cache: dict[Path, Module | None] = {}

    def load(self, directory: Path, spec: str) -> Module | None:
        """The module ``spec`` names from ``directory``; each candidate looked at is noted (`axag.files.depends`),
        found or not, so that a result made from it is a cache miss once it changes or appears."""
        for cand in candidates(directory, spec):
            if cand in self._cache:
                return self._cache[cand]
            if cand.is_file():
                try:
                    data = cand.read_bytes()
                except OSError:
                    note(cand, None)
                    self._cache[cand] = None
                    return None
                note(cand, data)
                mod = module_of(cand, data.decode("utf-8", "replace"), T.grammar_for(cand))
                self._cache[cand] = mod
                return mod
            note(cand, None)
        return None


def candidates(directory: Path, spec: str) -> list[Path]:
    """Files an import specifier may name, in TypeScript's order (``./x.js`` is ``x.ts`` first)."""
    if "node_modules" in spec.split("/"):
        return []
    base = directory / spec
    out: list[Path] = []
    suffix = base.suffix.lower()
    if suffix in _TS_FOR_JS:
        out.extend(base.with_suffix(s) for s in _TS_FOR_JS[suffix])
    if suffix in _SOURCE_EXTS:
        out.append(base)
    else:
        out.extend(Path(str(base) + s) for s in _SOURCE_EXTS)
        out.extend(base / ("index" + s) for s in _SOURCE_EXTS)
    return out


def entries(module: Module, obj: Node) -> list[SpecEntry] | None:
    """The keys of a spec object in source order; None when it has a spread or computed key."""
    out: list[SpecEntry] = []
    data = module.data
    for prop in obj.named_children:
        if prop.type == "comment":
            continue
        if prop.type == "shorthand_property_identifier":
            key = T.node_text(data, prop)
            if key in IGNORED_KEYS:
                continue
            span = (module.cp(prop.start_byte), module.cp(prop.end_byte))
            out.append(SpecEntry(attribute_name(key), None, span, span, False, module))
            continue
        if prop.type == "method_definition":
            continue
        if prop.type != "pair":
            return None
        knode = prop.child_by_field_name("key")
        vnode = prop.child_by_field_name("value")
        if knode is None or vnode is None:
            return None
        if knode.type in ("string",):
            lit = T.literal(data, knode)
            if lit is None:
                return None
            key = lit[0]
        elif knode.type in ("property_identifier", "number"):
            key = T.node_text(data, knode)
        else:
            return None
        if key in IGNORED_KEYS:
            continue
        kspan = (module.cp(knode.start_byte), module.cp(knode.end_byte))
        value, body, exact = _value(data, T.unwrap(vnode) or vnode)
        vspan = (module.cp(body[0]), module.cp(body[1]))
        out.append(SpecEntry(attribute_name(key), value, kspan, vspan, exact, module))
    return out


def _value(data: bytes, node: Node) -> tuple[str | None, tuple[int, int], bool]:
    """(attribute value or None when dynamic, byte range of the value, range is exactly its characters)."""
    lit = T.literal(data, node)
    if lit is not None:
        raw = data[lit[1]:lit[2]].decode("utf-8", "replace")
        return lit[0], (lit[1], lit[2]), raw == lit[0]
    if node.type in ("array", "object"):
        try:
            return json.dumps(_json(data, node), ensure_ascii=False, separators=(",", ":")), \
                (node.start_byte, node.end_byte), False
        except ValueError:
            pass
    return None, (node.start_byte, node.end_byte), False


def _json(data: bytes, node: Node) -> Any:
    node = T.unwrap(node)
    if node is None:
        raise ValueError
    t = node.type
    if t == "array":
        return [_json(data, c) for c in node.named_children if c.type != "comment"]
    if t == "object":
        out: dict[str, Any] = {}
        for prop in node.named_children:
            if prop.type == "comment":
                continue
            if prop.type != "pair":
                raise ValueError
            k = prop.child_by_field_name("key")
            v = prop.child_by_field_name("value")
            if k is None or v is None:
                raise ValueError
            lit = T.literal(data, k) if k.type == "string" else None
            key = lit[0] if lit is not None else T.node_text(data, k)
            out[key] = _json(data, v)
        return out
    if t in ("true", "false"):
        return t == "true"
    if t == "null":
        return None
    if t in ("number", "unary_expression"):
        text = T.node_text(data, node).replace("_", "")
        try:
            return json.loads(text)
        except ValueError:
            return float(text)
    lit = T.literal(data, node)
    if lit is None:
        raise ValueError
    return lit[0]
