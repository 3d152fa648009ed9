"""MODEL: checks of a merged parameter spec (parameter coherence and values, the pattern subset pattern costs), its compiled
property schema (the property schema) and its operand kind for relations (relational classification and validation). Each problem is recorded as a fact."""

from __future__ import annotations

import math
from typing import Any

from axag import vocabulary as V
from axag.model.facts import Kind
from axag.model.param_spec import (
    APPLIES,
    DATE_FORMATS,
    HARVEST_KINDS,
    KEY_TO_SCHEMA,
    NUMERIC,
    Loc,
    Spec,
    SpecCtx,
    compact,
    json_key,
    type_matches,
)

__all__ = ["coherence", "compile_schema", "kind_of", "pattern_costs", "value_checks"]


# ---------------------------------------------------------------------------------------------- coherence
def _describe(v: Any) -> str:
    return compact(v)


class _Coherence:
    """The parameter coherence checks of one spec (not of its items and properties): each incoherence is recorded as a fact."""

    def __init__(self, spec: Spec, ctx: SpecCtx) -> None:
        self.spec = spec
        self.ctx = ctx
        self.keys = spec.keys
        self.t = spec.type
        self.ok = not spec.incoherent

    def bad(self, loc: Loc, problem: str, key_span: bool = False) -> None:
        self.ok = False
        self.ctx.sink.add(Kind.INCOHERENT, loc.key_span() if key_span else loc.span(),
                          self.ctx.list_attr or loc.attribute, parameter=self.ctx.pname, problem=problem)

    def has(self, k: str) -> bool:
        return k in self.keys and k not in self.spec.dropped

    def pair(self, a: str, b: str, strict: bool) -> bool:
        if self.has(a) and self.has(b):
            va, vb = self.keys[a], self.keys[b]
            if (va >= vb) if strict else (va > vb):
                rel = "not less than" if strict else "greater than"
                self.bad(self.spec.key_loc(b), f'"{a}" {_describe(va)} is {rel} "{b}" {_describe(vb)}', key_span=True)
                return True
        return False

    def applicable(self) -> None:
        for key in list(self.keys):
            allowed = APPLIES.get(key)
            if allowed is not None and self.t not in allowed:
                self.bad(self.spec.key_loc(key), f'"{key}" does not apply to type "{self.t}"', key_span=True)
                self.spec.dropped.add(key)

    def ranges(self) -> None:
        ranged = False
        ranged |= self.pair("min", "max", False)
        ranged |= self.pair("exclusiveMin", "exclusiveMax", True)
        ranged |= self.pair("min", "exclusiveMax", True)
        ranged |= self.pair("exclusiveMin", "max", True)
        self.spec.empty_range = ranged
        if self.t == "integer" and not ranged:
            self.integer_range()
        self.pair("minLength", "maxLength", False)
        self.pair("minItems", "maxItems", False)

    def integer_range(self) -> None:
        keys, has = self.keys, self.has
        lo: int | None = None
        hi: int | None = None
        if has("min"):
            lo = math.ceil(keys["min"])
        if has("exclusiveMin"):
            c = math.floor(keys["exclusiveMin"]) + 1
            lo = c if lo is None else max(lo, c)
        if has("max"):
            hi = math.floor(keys["max"])
        if has("exclusiveMax"):
            c = math.ceil(keys["exclusiveMax"]) - 1
            hi = c if hi is None else min(hi, c)
        if lo is not None and hi is not None and lo > hi:
            self.spec.empty_range = True
            last = max((k for k in ("min", "max", "exclusiveMin", "exclusiveMax") if has(k)),
                       key=lambda k: self.spec.key_loc(k).key_span().start)
            self.bad(self.spec.key_loc(last), "the range contains no integer", key_span=True)

    def enum(self) -> None:
        if not self.has("enum"):
            return
        spec, t = self.spec, self.t
        items = self.keys["enum"]
        el = spec.key_loc("enum")
        if not items:
            self.bad(el, "enum is empty")
            spec.dropped.add("enum")
        seen_items: set[object] = set()
        for i, item in enumerate(items):
            if not type_matches(item, t):
                self.bad(el.sub(i), f'enum item {_describe(item)} is not of type "{t}"')
                spec.bad_values.add(("enum", i))
                continue
            item_key = json_key(item)
            if item_key in seen_items:
                self.bad(el.sub(i), f"enum repeats {_describe(item)}")
            seen_items.add(item_key)

    def const_and_required(self) -> None:
        keys, spec = self.keys, self.spec
        if self.has("const") and not type_matches(keys["const"], self.t):
            self.bad(spec.key_loc("const"), f'const {_describe(keys["const"])} is not of type "{self.t}"')
            spec.bad_values.add(("const", 0))
        if self.has("required"):
            props = keys["properties"] if self.has("properties") else {}
            rl = spec.key_loc("required")
            for i, name in enumerate(keys["required"]):
                if name not in props:
                    self.bad(rl.sub(i), f'required name "{name}" is not in "properties"')


def coherence(spec: Spec, ctx: SpecCtx) -> bool:
    """parameter coherence of a merged parameter or fragment, recursively. Returns True when coherent."""
    if spec.type_invalid:
        return False
    check = _Coherence(spec, ctx)
    check.applicable()
    check.ranges()
    check.enum()
    check.const_and_required()
    ok = check.ok
    if check.has("items"):
        ok &= coherence(spec.keys["items"], ctx)
    if check.has("properties"):
        for sub in spec.keys["properties"].values():
            ok &= coherence(sub, ctx)
    if not ok:
        spec.incoherent = True
    return ok


# ---------------------------------------------------------------------------------------------- schema
def compile_schema(spec: Spec) -> dict[str, Any]:
    """The property schema (applicable keys only, aliases normalised)."""
    t = spec.type if not spec.type_invalid else "string"
    out: dict[str, Any] = {}
    src: dict[str, Any] = {}
    for key, value in spec.keys.items():
        if key in spec.dropped or key == "type":
            continue
        allowed = APPLIES.get(key)
        if allowed is not None and t not in allowed:
            continue
        if key == "items":
            value = compile_schema(value)
        elif key == "properties":
            value = {name: compile_schema(sub) for name, sub in value.items()}
        src[KEY_TO_SCHEMA.get(key, key)] = value
    src["type"] = t
    if "properties" in src:
        src["additionalProperties"] = False
    for key in V.SCHEMA_KEY_ORDER:
        if key in src:
            out[key] = src[key]
    return out


def _resolve(schema: dict[str, Any], path: str, keyword: str) -> Any:
    """The limit of ``keyword`` for a violation at ``path`` ("", "[2]", "member", "member[1].x")."""
    import re

    node: Any = schema
    for m in re.finditer(r"\[(\d+)\]|\.?([^.\[]+)", path):
        if not isinstance(node, dict):
            return None
        if m.group(1) is not None:
            node = node.get("items", {})
        else:
            props = node.get("properties", {})
            if keyword in ("required", "additionalProperties") and m.end() == len(path):
                break
            node = props.get(m.group(2), {})
    if not isinstance(node, dict):
        return None
    return node.get(keyword)


def value_checks(spec: Spec, ctx: SpecCtx) -> None:
    """parameter coherence: default, const, examples and enum items against the spec's own compiled schema."""
    if spec.type_invalid or spec.empty_range:
        return
    keys = spec.keys
    if "default" not in keys and "const" not in keys and "examples" not in keys and "enum" not in keys:
        return  # no value to check (the common case), as `not checks` below: no schema compiled for it
    schema = compile_schema(spec)
    # enum values are not checked against the const (a const outside the enum is reported on the const), nor
    # against the enum they are in (each check would scan the whole enum: quadratic for long enums)
    enum_schema = {k: v for k, v in schema.items() if k not in ("const", "enum")}
    checks: list[tuple[str, Any, Loc, dict[str, Any]]] = []
    if "default" in spec.keys:
        checks.append(("default", spec.keys["default"], spec.key_loc("default"), schema))
    if "const" in spec.keys and ("const", 0) not in spec.bad_values:
        checks.append(("const", spec.keys["const"], spec.key_loc("const"), schema))
    for name, label in (("examples", "example"), ("enum", "enum value")):
        if name in spec.keys and name not in spec.dropped:
            loc = spec.key_loc(name)
            for i, item in enumerate(spec.keys[name]):
                if (name, i) not in spec.bad_values:
                    checks.append((label, item, loc.sub(i), enum_schema if name == "enum" else schema))
    if not checks:
        return
    from axag.values.pyruntime import (
        validate_value,  # imported when there is something to validate (cold start)
    )

    for label, value, loc, schema in checks:
        seen: set[tuple[str, str]] = set()
        for path, keyword in validate_value(schema, value):
            if (path, keyword) in seen:
                continue
            seen.add((path, keyword))
            limit = _resolve(schema, path, keyword)
            where = path
            if keyword in ("required", "additionalProperties"):  # the path names the member, show its object
                cut = max(where.rfind("."), where.rfind("["))
                where = where[:cut] if cut > 0 else ""
            shown = compact(value) if not where else f"{compact(value)} (at {where})"
            ctx.sink.add(Kind.VALUE_OUTSIDE_SCHEMA, loc.span(), ctx.list_attr or loc.attribute, parameter=ctx.pname, key=label, value=shown, keyword=keyword,
                         limit=compact(limit))
    if "items" in spec.keys and "items" not in spec.dropped:
        value_checks(spec.keys["items"], ctx)
    if "properties" in spec.keys and "properties" not in spec.dropped:
        for sub in spec.keys["properties"].values():
            value_checks(sub, ctx)


def kind_of(spec: Spec, harvested_kind: str | None = None) -> str:
    """Operand kind for relations (relational classification and validation)."""
    t = spec.type
    if t in NUMERIC:
        return t
    if t == "string":
        fmt = spec.keys.get("format")
        if fmt in DATE_FORMATS:
            return str(fmt)
        if harvested_kind in HARVEST_KINDS:
            return harvested_kind
    return t


def pattern_costs(spec: Spec, ctx: SpecCtx) -> None:
    """the pattern subset: a super-linear pattern needs a maxLength that keeps the guard's worst case in budget."""
    pattern = spec.keys.get("pattern")
    if isinstance(pattern, str) and "pattern" not in spec.dropped:
        from axag.values.pattern import cost_problem

        problem = cost_problem(pattern, spec.keys.get("maxLength"))
        if problem is not None:
            loc = spec.key_loc("pattern")
            ctx.sink.add(Kind.BAD_PATTERN, loc.span(), ctx.list_attr or loc.attribute, parameter=ctx.pname, problem=problem)
            spec.incoherent = True
    if "items" in spec.keys and "items" not in spec.dropped:
        pattern_costs(spec.keys["items"], ctx)
    if "properties" in spec.keys and "properties" not in spec.dropped:
        for sub in spec.keys["properties"].values():
            pattern_costs(sub, ctx)
