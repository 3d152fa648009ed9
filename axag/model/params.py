"""MODEL: declared parameter lists, validation, merging with harvested data, compiled property schemas
(SPEC §4, §5.8, §4.10; rules 008, 110-118, 142; fixes §4.4, §4.5, §13.5).

`axag.model.declared` reads the declared lists and merges them with the harvested parameters
(`build_parameters`, `finish_file`); `axag.model.harvest` reads form controls. Both build on this module.

Parameters and fragments are first read into `Spec`s: validated values under their §4.2 key names, each with a
`Loc` that maps the key and its value back to the source (a JSON token inside a list attribute, an
`axag-parameter-*` attribute, or a form control). Coherence (115) and value checks (116) run on merged specs.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from axag import vocabulary as V
from axag.edits import fix, insert_attribute_after, render_json, replace_value
from axag.findings import Edit, Fix, Severity
from axag.jsontext import is_number as _is_number
from axag.model import forms
from axag.model.jsonspan import JsonError
from axag.model.jsonspan import parse as parse_json
from axag.model.problems import Problem
from axag.model.values import ABSENT, Value
from axag.parse.document import Element
from axag.spans import Span

if TYPE_CHECKING:
    from axag.model.actions import Action, FileModel

__all__ = [
    "Loc",
    "Sink",
    "Spec",
    "compile_schema",
    "kind_of",
    "read_object",
]

LISTS = ("axag-required-parameters", "axag-optional-parameters")
NUMERIC = frozenset({"number", "integer"})
NUMBER_KEYS = ("min", "max", "exclusiveMin", "exclusiveMax", "multipleOf")
COUNT_KEYS = ("minLength", "maxLength", "minItems", "maxItems")
APPLIES: dict[str, frozenset[str]] = {
    "format": frozenset({"string"}),
    "min": NUMERIC, "max": NUMERIC, "exclusiveMin": NUMERIC, "exclusiveMax": NUMERIC, "multipleOf": NUMERIC,
    "minLength": frozenset({"string"}), "maxLength": frozenset({"string"}), "pattern": frozenset({"string"}),
    "items": frozenset({"array"}), "minItems": frozenset({"array"}), "maxItems": frozenset({"array"}),
    "uniqueItems": frozenset({"array"}),
    "properties": frozenset({"object"}), "required": frozenset({"object"}),
}
KEY_TO_SCHEMA = {
    "min": "minimum", "max": "maximum", "exclusiveMin": "exclusiveMinimum", "exclusiveMax": "exclusiveMaximum",
}
SCHEMA_TO_KEY = {v: k for k, v in KEY_TO_SCHEMA.items()}
FRAGMENT_KEYS = tuple(k for k in V.PARAMETER_KEYS if k != "name")
MAX_NESTING = 10
DATE_FORMATS = ("date", "date-time", "time")
HARVEST_KINDS = ("local-datetime", "time-of-day", "month", "week")
# problems recorded by the value reader on axag-parameter-* attributes that make the parameters unusable
CONTROL_ERROR_CODES = frozenset({105, 106, 109, 111, 112, 113, 114, 115, 116, 117})
_WARNINGS = frozenset({29, 32, 120, 142})


# ---------------------------------------------------------------------------------------------- data
@dataclass(frozen=True)
class Loc:
    """Where a parameter, fragment, key or value came from.

    ``value`` + ``path``: a JSON token inside an attribute value (``key_span`` gives the key token of an object
    member); ``fixed``: a span used for everything (a form control, an attribute without JSON).
    """

    value: Value | None = None
    path: tuple[str | int, ...] = ()
    fixed: Span | None = None
    fixed_key: Span | None = None
    attribute: str | None = None  # the axag-parameter-* attribute a harvested override came from

    def span(self) -> Span:
        if self.fixed is not None:
            return self.fixed
        assert self.value is not None
        return self.value.json_span(self.path)

    def key_span(self) -> Span:
        if self.fixed_key is not None:
            return self.fixed_key
        if self.fixed is None and self.path and isinstance(self.path[-1], str):
            assert self.value is not None
            return self.value.json_span(self.path, key=True)
        return self.span()

    def sub(self, *steps: str | int) -> Loc:
        if self.value is None:
            return Loc(fixed=self.fixed, fixed_key=self.fixed_key, attribute=self.attribute)
        return Loc(self.value, self.path + steps, attribute=self.attribute)

    @property
    def fixable(self) -> bool:
        v = self.value
        return (v is not None and v.attr is not None and v.doc is not None and not v.from_macro
                and v.macro_span is None)


@dataclass
class Spec:
    """A parameter or fragment: validated values by §4.2 key (``items`` a Spec, ``properties`` a dict of Specs)."""

    loc: Loc
    keys: dict[str, Any] = field(default_factory=dict)
    locs: dict[str, Loc] = field(default_factory=dict)
    explicit_type: bool = False
    type_invalid: bool = False
    depth: int = 0
    incoherent: bool = False
    dropped: set[str] = field(default_factory=set)  # keys that do not apply to the type (115)
    bad_values: set[tuple[str, int]] = field(default_factory=set)  # enum items / const with a 115 type problem
    empty_range: bool = False  # no number satisfies the bounds (115): values are not checked against them

    @property
    def type(self) -> str:
        return str(self.keys.get("type", "string"))

    def key_loc(self, key: str) -> Loc:
        return self.locs.get(key, self.loc)

    def copy(self) -> Spec:
        return Spec(self.loc, dict(self.keys), dict(self.locs), self.explicit_type, self.type_invalid, self.depth)


class Sink:
    """Records problems for one action; remembers whether an error-level parameter problem occurred.

    Harvest problems can be found twice (a form and its submit button share a scope): identical problems are
    recorded once per file."""

    def __init__(self, model: FileModel, act: Action | None) -> None:
        self.model = model
        self.act = act
        self.errors = 0
        seen = model.__dict__.get("_axag_param_seen")
        if seen is None:
            seen = set()
            model.__dict__["_axag_param_seen"] = seen
        self.seen: set[tuple[Any, ...]] = seen

    @property
    def text(self) -> str:
        return self.model.pf.text

    def add(self, code: int, span: Span, attribute: str | None, /, *, element: Element | None = None,
            fix: Fix | None = None, help: str | None = None, index: int = 0,
            severity: Severity | None = None, message: str | None = None, **args: Any) -> None:
        if code not in _WARNINGS and severity is not Severity.WARNING:
            self.errors += 1
        key = (code, span.start, span.end, index, attribute, repr(sorted(args.items())))
        if key in self.seen:
            return
        self.seen.add(key)
        anchor = element if element is not None else (self.act.element if self.act is not None else None)
        self.model.problems.append(Problem(code, span, args, anchor, attribute, fix, help, index, severity,
                                           message))


@dataclass
class _Ctx:
    sink: Sink
    pname: str
    list_attr: str | None  # the parameter list of a top-level declared item


# ---------------------------------------------------------------------------------------------- helpers
def _is_integral(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) or isinstance(v, float) and v.is_integer()


def type_matches(value: object, type_: str) -> bool:
    if type_ == "string":
        return isinstance(value, str)
    if type_ == "number":
        return _is_number(value)
    if type_ == "integer":
        return _is_number(value) and _is_integral(value)
    if type_ == "boolean":
        return isinstance(value, bool)
    if type_ == "array":
        return isinstance(value, list)
    if type_ == "object":
        return isinstance(value, dict)
    return True


def _finite(number: Any) -> bool:
    try:
        return math.isfinite(float(number))
    except OverflowError:
        return True  # a big integer


def _compact(value: Any) -> str:
    from axag.jsontext import dumps_compact

    try:
        return dumps_compact(value)
    except (TypeError, ValueError):  # e.g. an integer with more digits than Python converts to text
        return "…" if isinstance(value, int) else "(value)"


def json_key(value: object) -> object:
    """A hashable canonical key: ``json_key(a) == json_key(b)`` exactly when ``a`` and ``b`` are equal as JSON
    values (``1`` and ``1.0`` equal, ``1`` and ``true`` not, objects regardless of key order), so repeats are
    found with a set in linear time instead of comparing every pair."""
    if value is True or value is False:
        return ("b", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, list):
        return ("l", tuple(json_key(v) for v in value))
    if isinstance(value, dict):
        return ("o", frozenset((k, json_key(v)) for k, v in value.items()))
    return ("n", value)  # numbers: 1 == 1.0 and hash(1) == hash(1.0)


# ---------------------------------------------------------------------------------------------- fixes
def _navigate(doc: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def _render(model: FileModel, val: Value, doc: Any) -> str:
    """Rewritten JSON text of an attribute value (§13.5, `edits.render_json`): compact, or one top-level
    item per line when the original value had a line break (arrays only)."""
    from axag.jsontext import dumps_compact

    assert val.attr is not None
    return render_json(model.pf.text, model.pf.lines.line_ending(), val.attr, doc, val.doc, dumps_compact,
                       objects=False)


def _rewrite(model: FileModel, loc: Loc, description: str, mutate: Callable[[Any], None]) -> Fix | None:
    """A fix rewriting the attribute that holds ``loc`` after ``mutate`` changed a copy of its JSON."""
    if not loc.fixable:
        return None
    val = loc.value
    assert val is not None and val.doc is not None and val.attr is not None
    doc = copy.deepcopy(val.doc.value)
    try:
        mutate(doc)
        text = _render(model, val, doc)
    except (KeyError, IndexError, TypeError, ValueError):  # ValueError: an integer too long to write
        return None
    return fix(description, replace_value(val.attr, text))


def _rename_key(obj: dict[str, Any], old: str, new: str) -> None:
    items = [(new if k == old else k, v) for k, v in obj.items()]
    obj.clear()
    obj.update(items)


def _insert_after(obj: dict[str, Any], after: str, new: str, value: Any) -> None:
    items: list[tuple[str, Any]] = []
    for k, v in obj.items():
        items.append((k, v))
        if k == after:
            items.append((new, value))
    obj.clear()
    obj.update(items)


# ---------------------------------------------------------------------------------------------- reading
def read_object(obj: dict[str, Any], loc: Loc, ctx: _Ctx, depth: int = 0, fragment: bool = False) -> Spec:
    """Validate one parameter object or fragment (110-112, 114, 117; nesting 115) into a Spec."""
    spec = Spec(loc, depth=depth)
    sink = ctx.sink
    p = ctx.pname
    if depth > MAX_NESTING:
        sink.add(115, loc.span(), ctx.list_attr, p=p, problem=f"nesting is deeper than {MAX_NESTING} levels")
        spec.incoherent = True
        return spec
    model = sink.model
    for key, value in obj.items():
        kl = loc.sub(key)
        if key == "name" and not fragment:
            continue
        if key == "required" and isinstance(value, bool):
            flag = bool(value)
            sink.add(110, kl.key_span(), ctx.list_attr, p=p, k=key, s=None,
                     fix=_safe(lambda: _required_fix(model, ctx, loc, "required", flag, fragment)),  # noqa: B023
                     help='list the parameter in axag-required-parameters or axag-optional-parameters instead'
                     if not fragment else 'use a "required" list on the parent object')
            continue
        candidates = FRAGMENT_KEYS if fragment else V.PARAMETER_KEYS
        if key not in candidates:
            sugg = V.did_you_mean(key, candidates, V.PARAMETER_KEY_ALIASES)
            fx = None
            if key in V.PARAMETER_KEY_ALIASES and V.PARAMETER_KEY_ALIASES[key] not in obj:
                new = V.PARAMETER_KEY_ALIASES[key]
                fx = _rewrite(model, loc, f'Rename "{key}" to "{new}"', _renamer(loc.path, key, new))
            sink.add(110, kl.key_span(), ctx.list_attr, p=p, k=key, s=sugg, fix=fx)
            continue
        _read_key(spec, key, value, kl, ctx, depth)
    return spec


def _safe(make: Callable[[], Fix | None]) -> Fix | None:
    try:
        return make()
    except (KeyError, IndexError, TypeError, ValueError):  # ValueError: an integer too long to write
        return None


def _renamer(path: tuple[str | int, ...], old: str, new: str) -> Callable[[Any], None]:
    def mutate(d: Any) -> None:
        _rename_key(_navigate(d, path), old, new)

    return mutate


def _setter(path: tuple[str | int, ...], key: str, value: Any) -> Callable[[Any], None]:
    def mutate(d: Any) -> None:
        _navigate(d, path)[key] = value

    return mutate


def _required_fix(model: FileModel, ctx: _Ctx, loc: Loc, key: str, value: bool, fragment: bool) -> Fix | None:
    """§4.4 fixes for a boolean ``required``."""
    if not loc.fixable:
        return None
    val = loc.value
    assert val is not None
    path = loc.path
    if fragment:
        # a property fragment: drop the key, and for true list the name in the parent's "required"
        if len(path) < 2 or path[-2] != "properties" or not isinstance(path[-1], str):
            return None
        prop = path[-1]
        parent_path = path[:-2]

        def mutate(d: Any) -> None:
            del _navigate(d, path)[key]
            if value:
                parent = _navigate(d, parent_path)
                req = parent.get("required")
                if isinstance(req, list):
                    if prop not in req:
                        req.append(prop)
                elif req is None:
                    parent["required"] = [prop]
                else:
                    raise TypeError

        return _rewrite(model, loc, 'Move "required" to the parent object' if value else 'Remove "required"',
                        mutate)
    if ctx.list_attr is None or len(path) != 1 or not isinstance(path[0], int):
        return None
    index = path[0]
    here = ctx.list_attr
    wanted = LISTS[0] if value else LISTS[1]
    if here == wanted:
        def drop(d: Any) -> None:
            del _navigate(d, path)[key]

        return _rewrite(model, loc, f'Remove "required": {str(value).lower()}', drop)
    # move the item to the other list
    act = ctx.sink.act
    assert act is not None
    target = act.v(wanted)
    if target.declared and (not target.ok or not isinstance(target.value, list) or target.from_macro
                            or target.attr is None or target.doc is None):
        return None
    item = copy.deepcopy(_navigate(val.doc.value if val.doc is not None else [], path))
    item.pop(key, None)
    source_doc: Any = copy.deepcopy(val.doc.value if val.doc is not None else [])
    del source_doc[index]
    assert val.attr is not None
    edits: list[Edit] = [replace_value(val.attr, _render(model, val, source_doc))]
    if target.declared:
        assert target.attr is not None
        new_target = copy.deepcopy(target.value) + [item]
        edits.append(replace_value(target.attr, _render(model, target, new_target)))
    else:
        from axag.jsontext import dumps_compact

        edits.append(insert_attribute_after(act.element, val.attr, wanted, dumps_compact([item]), model.pf.src.text,
                                            model.pf.lines.line_ending()))
    return fix(f"Move the parameter to {wanted}", *edits)


def _bad_value(spec: Spec, key: str, value: Any, kl: Loc, ctx: _Ctx, expectation: str,
               numeric: bool = False) -> None:
    fx = None
    if numeric and isinstance(value, str):
        try:
            number = parse_json(value).value
        except JsonError:
            number = None
        usable = _is_number(number) and _finite(number)
        if usable and key in COUNT_KEYS:
            usable = _is_integral(number) and number >= 0  # type: ignore[operator]
        elif usable and key == "multipleOf":
            usable = number > 0  # type: ignore[operator]
        if usable:
            fx = _rewrite(ctx.sink.model, kl, f"Replace with {_compact(number)}", _setter(kl.path[:-1], key, number))
    ctx.sink.add(114, kl.span(), ctx.list_attr, p=ctx.pname, k=key, expectation=expectation, fix=fx)
    spec.incoherent = True


def _read_key(spec: Spec, key: str, value: Any, kl: Loc, ctx: _Ctx, depth: int) -> None:  # noqa: C901 - one step per keyword; to be split (issue 13)
    sink = ctx.sink
    p = ctx.pname
    model = sink.model
    store = True
    if key == "type":
        spec.explicit_type = True
        if not isinstance(value, str):
            _bad_value(spec, key, value, kl, ctx, "a string")
            spec.type_invalid = True
            return
        if value not in V.PARAMETER_TYPES:
            fixed = forms.fix_parameter_type(value)
            fx = None
            if fixed is not None:
                t, fmt = fixed
                path = kl.path[:-1]

                def mutate(d: Any, t: str = t, fmt: str | None = fmt) -> None:
                    obj = _navigate(d, path)
                    obj["type"] = t
                    if fmt is not None:
                        if "format" in obj:
                            obj["format"] = fmt
                        else:
                            _insert_after(obj, "type", "format", fmt)

                shown = f'"type":"{t}"' + (f',"format":"{fmt}"' if fmt else "")
                fx = _rewrite(model, kl, f"Replace with {shown}", mutate)
            sink.add(111, kl.span(), ctx.list_attr, p=p, v=value, fix=fx,
                     help="allowed values: " + ", ".join(V.PARAMETER_TYPES))
            spec.type_invalid = True
            spec.incoherent = True
            return
    elif key == "description":
        if not isinstance(value, str) or not V.collapse_ws(value):
            _bad_value(spec, key, value, kl, ctx, "a non-empty string")
            return
        value = V.collapse_ws(value)
    elif key == "format":
        if not isinstance(value, str):
            _bad_value(spec, key, value, kl, ctx, "a string")
            return
        if value not in V.FORMATS:
            new = forms.fix_format(value)
            fx = None
            if new is not None:
                fx = _rewrite(model, kl, f'Replace with "{new}"', _setter(kl.path[:-1], "format", new))
            low = value.strip().lower()
            phone = low in ("phone", "tel", "telephone")
            sugg = None
            if not phone and new is None and value.strip():
                sugg = V.did_you_mean(low, V.FORMATS)
            sink.add(112, kl.span(), ctx.list_attr, p=p, v=value, s=sugg, fix=fx,
                     index=1 if phone else 0,  # message "phone" or "default"
                     help="allowed values: " + ", ".join(V.FORMATS))
            spec.incoherent = True
            return
        value = V.FORMAT_ALIASES.get(value, value)
    elif key == "enum":
        if not isinstance(value, list):
            _bad_value(spec, key, value, kl, ctx, "a non-empty array")
            return
    elif key == "examples":
        if not isinstance(value, list):
            _bad_value(spec, key, value, kl, ctx, "an array")
            return
    elif key in NUMBER_KEYS:
        if not _is_number(value):
            _bad_value(spec, key, value, kl, ctx, "a number" if key != "multipleOf" else "a number greater than 0",
                       numeric=True)
            return
        if key == "multipleOf" and not value > 0:
            _bad_value(spec, key, value, kl, ctx, "a number greater than 0")
            return
    elif key in COUNT_KEYS:
        if not (_is_number(value) and _is_integral(value) and value >= 0):
            _bad_value(spec, key, value, kl, ctx, "a non-negative integer", numeric=True)
            return
        value = int(value)
    elif key == "pattern":
        if not isinstance(value, str):
            _bad_value(spec, key, value, kl, ctx, "a string")
            return
        problem = _check_pattern(value)
        if problem is not None:
            sink.add(117, kl.span(), ctx.list_attr, p=p, problem=problem)
            spec.incoherent = True
            return
    elif key == "items":
        if not isinstance(value, dict):
            _bad_value(spec, key, value, kl, ctx, "an object")
            return
        value = read_object(value, kl, ctx, depth + 1, fragment=True)
    elif key == "uniqueItems":
        if not isinstance(value, bool):
            _bad_value(spec, key, value, kl, ctx, "a boolean")
            return
    elif key == "properties":
        if not isinstance(value, dict):
            _bad_value(spec, key, value, kl, ctx, "an object")
            return
        props: dict[str, Spec] = {}
        for name, sub in value.items():
            sl = kl.sub(name)
            if not V.is_param_name(name):
                sink.add(114, sl.key_span(), ctx.list_attr, p=p, k=key,
                         expectation="an object whose keys are parameter names")
                spec.incoherent = True
                continue
            if not isinstance(sub, dict):
                sink.add(114, sl.span(), ctx.list_attr, p=p, k=key,
                         expectation="an object whose values are objects")
                spec.incoherent = True
                continue
            props[name] = read_object(sub, sl, ctx, depth + 1, fragment=True)
        value = props
    elif key == "required" and (not isinstance(value, list) or not all(isinstance(x, str) for x in value)
                                or len(set(value)) != len(value)):
            _bad_value(spec, key, value, kl, ctx, "an array of unique names")
            return
    if store:
        spec.keys[key] = value
        spec.locs[key] = kl


def _check_pattern(pattern: str) -> str | None:
    from axag.model.pattern import check_pattern

    return check_pattern(pattern)


# ---------------------------------------------------------------------------------------------- coherence
def _describe(v: Any) -> str:
    return _compact(v)


def coherence(spec: Spec, ctx: _Ctx) -> bool:  # noqa: C901 - one step per keyword; to be split (issue 13)
    """§4.6 coherence (115) of a merged parameter or fragment, recursively. Returns True when coherent."""
    sink = ctx.sink
    p = ctx.pname
    ok = not spec.incoherent

    def bad(loc: Loc, problem: str, key_span: bool = False) -> None:
        nonlocal ok
        ok = False
        sink.add(115, loc.key_span() if key_span else loc.span(), ctx.list_attr or loc.attribute, p=p,
                 problem=problem)

    if spec.type_invalid:
        return False
    t = spec.type
    keys = spec.keys
    for key in list(keys):
        allowed = APPLIES.get(key)
        if allowed is not None and t not in allowed:
            bad(spec.key_loc(key), f'"{key}" does not apply to type "{t}"', key_span=True)
            spec.dropped.add(key)

    def has(k: str) -> bool:
        return k in keys and k not in spec.dropped

    def pair(a: str, b: str, strict: bool) -> bool:
        if has(a) and has(b):
            va, vb = keys[a], keys[b]
            if (va >= vb) if strict else (va > vb):
                rel = "not less than" if strict else "greater than"
                bad(spec.key_loc(b), f'"{a}" {_describe(va)} is {rel} "{b}" {_describe(vb)}', key_span=True)
                return True
        return False

    ranged = False
    ranged |= pair("min", "max", False)
    ranged |= pair("exclusiveMin", "exclusiveMax", True)
    ranged |= pair("min", "exclusiveMax", True)
    ranged |= pair("exclusiveMin", "max", True)
    spec.empty_range = ranged
    if t == "integer" and not ranged:
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
            spec.empty_range = True
            last = max((k for k in ("min", "max", "exclusiveMin", "exclusiveMax") if has(k)),
                       key=lambda k: spec.key_loc(k).key_span().start)
            bad(spec.key_loc(last), "the range contains no integer", key_span=True)
    pair("minLength", "maxLength", False)
    pair("minItems", "maxItems", False)
    if has("enum"):
        items = keys["enum"]
        el = spec.key_loc("enum")
        if not items:
            bad(el, "enum is empty")
            spec.dropped.add("enum")
        seen_items: set[object] = set()
        for i, item in enumerate(items):
            if not type_matches(item, t):
                bad(el.sub(i), f'enum item {_describe(item)} is not of type "{t}"')
                spec.bad_values.add(("enum", i))
                continue
            item_key = json_key(item)
            if item_key in seen_items:
                bad(el.sub(i), f"enum repeats {_describe(item)}")
            seen_items.add(item_key)
    if has("const") and not type_matches(keys["const"], t):
        bad(spec.key_loc("const"), f'const {_describe(keys["const"])} is not of type "{t}"')
        spec.bad_values.add(("const", 0))
    if has("required"):
        props = keys["properties"] if has("properties") else {}
        rl = spec.key_loc("required")
        for i, name in enumerate(keys["required"]):
            if name not in props:
                bad(rl.sub(i), f'required name "{name}" is not in "properties"')
    if has("items"):
        ok &= coherence(keys["items"], ctx)
    if has("properties"):
        for sub in keys["properties"].values():
            ok &= coherence(sub, ctx)
    if not ok:
        spec.incoherent = True
    return ok


# ---------------------------------------------------------------------------------------------- schema
def compile_schema(spec: Spec) -> dict[str, Any]:
    """The §4.10 property schema (applicable keys only, aliases normalised)."""
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


def value_checks(spec: Spec, ctx: _Ctx) -> None:
    """§4.6 rule 116: default, const, examples and enum items against the spec's own compiled schema."""
    if spec.type_invalid or spec.empty_range:
        return
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
    from axag.guards.pyruntime import (
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
            shown = _compact(value) if not where else f"{_compact(value)} (at {where})"
            ctx.sink.add(116, loc.span(), ctx.list_attr or loc.attribute, p=ctx.pname, key=label, value=shown, keyword=keyword,
                         limit=_compact(limit))
    if "items" in spec.keys and "items" not in spec.dropped:
        value_checks(spec.keys["items"], ctx)
    if "properties" in spec.keys and "properties" not in spec.dropped:
        for sub in spec.keys["properties"].values():
            value_checks(sub, ctx)


def kind_of(spec: Spec, harvested_kind: str | None = None) -> str:
    """Operand kind for relations (§7.3)."""
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


def pattern_costs(spec: Spec, ctx: _Ctx) -> None:
    """§4.7 rule 117: a super-linear pattern needs a maxLength that keeps the guard's worst case in budget."""
    pattern = spec.keys.get("pattern")
    if isinstance(pattern, str) and "pattern" not in spec.dropped:
        from axag.model.pattern import cost_problem

        problem = cost_problem(pattern, spec.keys.get("maxLength"))
        if problem is not None:
            loc = spec.key_loc("pattern")
            ctx.sink.add(117, loc.span(), ctx.list_attr or loc.attribute, p=ctx.pname, problem=problem)
            spec.incoherent = True
    if "items" in spec.keys and "items" not in spec.dropped:
        pattern_costs(spec.keys["items"], ctx)
    if "properties" in spec.keys and "properties" not in spec.dropped:
        for sub in spec.keys["properties"].values():
            pattern_costs(sub, ctx)


def override_value(ann: Any, name: str) -> Value:
    return ann.v(name) if ann is not None else ABSENT
