"""MODEL: reading a parameter object or fragment into a `Spec` (parameters, the pattern subset): one reader per keyword;
what is wrong is recorded as a fact, with the fixes of unknown parameter keys (a boolean "required"), type and format values (aliases) and fixes
(rewritten JSON) where they are certain."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from axag import vocabulary as V
from axag.model import forms
from axag.model.facts import Kind
from axag.model.param_spec import (
    COUNT_KEYS,
    FRAGMENT_KEYS,
    LISTS,
    MAX_NESTING,
    NUMBER_KEYS,
    Loc,
    Spec,
    SpecCtx,
    compact,
    finite,
    is_integral,
)
from axag.model.values import Value
from axag.outcome.findings import Edit, Fix
from axag.parse.edits import fix, insert_attribute_after, render_json, replace_value
from axag.values.jsonspan import JsonError
from axag.values.jsonspan import parse as parse_json
from axag.values.jsontext import is_number as _is_number

if TYPE_CHECKING:
    from axag.model.types import FileModel

__all__ = ["read_object"]


# ---------------------------------------------------------------------------------------------- fixes
def _navigate(doc: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def _render(model: FileModel, val: Value, doc: Any) -> str:
    """Rewritten JSON text of an attribute value (fixes, `edits.render_json`): compact, or one top-level
    item per line when the original value had a line break (arrays only)."""
    from axag.values.jsontext import dumps_compact

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
def read_object(obj: dict[str, Any], loc: Loc, ctx: SpecCtx, depth: int = 0, fragment: bool = False) -> Spec:
    """Validate one parameter object or fragment (keys, types, formats, values, patterns, nesting) into a Spec."""
    spec = Spec(loc, depth=depth)
    sink = ctx.sink
    p = ctx.pname
    if depth > MAX_NESTING:
        sink.add(Kind.INCOHERENT, loc.span(), ctx.list_attr, parameter=p, problem=f"nesting is deeper than {MAX_NESTING} levels")
        spec.incoherent = True
        return spec
    model = sink.model
    for key, value in obj.items():
        kl = loc.sub(key)
        if key == "name" and not fragment:
            continue
        if key == "required" and isinstance(value, bool):
            flag = bool(value)
            sink.add(Kind.BAD_PARAMETER_KEY, kl.key_span(), ctx.list_attr, parameter=p, parameter_key=key, suggestion=None,
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
            elif sugg is not None and sugg not in obj:  # a did-you-mean: applied with --unsafe-fixes
                fx = _rewrite(model, loc, f'Rename "{key}" to "{sugg}"', _renamer(loc.path, key, sugg))
                fx = Fix(fx.description, fx.edits, unsafe=True) if fx is not None else None
            sink.add(Kind.BAD_PARAMETER_KEY, kl.key_span(), ctx.list_attr, parameter=p, parameter_key=key, suggestion=sugg, fix=fx)
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


def _required_fix(model: FileModel, ctx: SpecCtx, loc: Loc, key: str, value: bool, fragment: bool) -> Fix | None:
    """unknown parameter keys fixes for a boolean ``required``."""
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
        from axag.values.jsontext import dumps_compact

        edits.append(insert_attribute_after(act.element, val.attr, wanted, dumps_compact([item]), model.pf.src.text,
                                            model.pf.lines.line_ending()))
    return fix(f"Move the parameter to {wanted}", *edits)


def _bad_value(spec: Spec, key: str, value: Any, kl: Loc, ctx: SpecCtx, expectation: str,
               numeric: bool = False) -> None:
    fx = None
    if numeric and isinstance(value, str):
        try:
            number = parse_json(value).value
        except JsonError:
            number = None
        usable = _is_number(number) and finite(number)
        if usable and key in COUNT_KEYS:
            usable = is_integral(number) and number >= 0  # type: ignore[operator]
        elif usable and key == "multipleOf":
            usable = number > 0  # type: ignore[operator]
        if usable:
            fx = _rewrite(ctx.sink.model, kl, f"Replace with {compact(number)}", _setter(kl.path[:-1], key, number))
    ctx.sink.add(Kind.BAD_KEY_VALUE, kl.span(), ctx.list_attr, parameter=ctx.pname, parameter_key=key, expectation=expectation, fix=fx)
    spec.incoherent = True


_SKIP = object()  # a key reader's answer: the value is not stored (a fact was recorded)
KeyReader = Callable[[Spec, str, Any, Loc, SpecCtx, int], Any]


def _read_key(spec: Spec, key: str, value: Any, kl: Loc, ctx: SpecCtx, depth: int) -> None:
    """Read one key of a parameter object or fragment into ``spec`` (its checks are per keyword)."""
    reader = _KEY_READERS.get(key)
    if reader is None:
        reader = _read_number if key in NUMBER_KEYS else _read_count if key in COUNT_KEYS else None
    if reader is not None:
        value = reader(spec, key, value, kl, ctx, depth)
        if value is _SKIP:
            return
    spec.keys[key] = value
    spec.locs[key] = kl


def _read_type(spec: Spec, key: str, value: Any, kl: Loc, ctx: SpecCtx, depth: int) -> Any:
    spec.explicit_type = True
    if not isinstance(value, str):
        _bad_value(spec, key, value, kl, ctx, "a string")
        spec.type_invalid = True
        return _SKIP
    if value in V.PARAMETER_TYPES:
        return value
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
        fx = _rewrite(ctx.sink.model, kl, f"Replace with {shown}", mutate)
    ctx.sink.add(Kind.UNKNOWN_TYPE, kl.span(), ctx.list_attr, parameter=ctx.pname, written=value, fix=fx,
                 help="allowed values: " + ", ".join(V.PARAMETER_TYPES))
    spec.type_invalid = True
    spec.incoherent = True
    return _SKIP


def _read_description(spec: Spec, key: str, value: Any, kl: Loc, ctx: SpecCtx, depth: int) -> Any:
    if not isinstance(value, str) or not V.collapse_ws(value):
        _bad_value(spec, key, value, kl, ctx, "a non-empty string")
        return _SKIP
    return V.collapse_ws(value)


def _read_format(spec: Spec, key: str, value: Any, kl: Loc, ctx: SpecCtx, depth: int) -> Any:
    if not isinstance(value, str):
        _bad_value(spec, key, value, kl, ctx, "a string")
        return _SKIP
    if value in V.FORMATS:
        return V.FORMAT_ALIASES.get(value, value)
    new = forms.fix_format(value)
    fx = None
    if new is not None:
        fx = _rewrite(ctx.sink.model, kl, f'Replace with "{new}"', _setter(kl.path[:-1], "format", new))
    low = value.strip().lower()
    sugg = None
    if low not in V.PHONE_WORDS and new is None and value.strip():
        sugg = V.did_you_mean(low, V.FORMATS)
    ctx.sink.add(Kind.UNKNOWN_FORMAT, kl.span(), ctx.list_attr, parameter=ctx.pname, written=value, suggestion=sugg, fix=fx,
                 help="allowed values: " + ", ".join(V.FORMATS))
    spec.incoherent = True
    return _SKIP


def _expecting(test: Callable[[Any], bool], expectation: str) -> KeyReader:
    """A key reader that only checks the value's shape."""

    def read(spec: Spec, key: str, value: Any, kl: Loc, ctx: SpecCtx, depth: int) -> Any:
        if not test(value):
            _bad_value(spec, key, value, kl, ctx, expectation)
            return _SKIP
        return value

    return read


def _read_number(spec: Spec, key: str, value: Any, kl: Loc, ctx: SpecCtx, depth: int) -> Any:
    if not _is_number(value):
        _bad_value(spec, key, value, kl, ctx, "a number" if key != "multipleOf" else "a number greater than 0",
                   numeric=True)
        return _SKIP
    if key == "multipleOf" and not value > 0:
        _bad_value(spec, key, value, kl, ctx, "a number greater than 0")
        return _SKIP
    return value


def _read_count(spec: Spec, key: str, value: Any, kl: Loc, ctx: SpecCtx, depth: int) -> Any:
    if not (_is_number(value) and is_integral(value) and value >= 0):
        _bad_value(spec, key, value, kl, ctx, "a non-negative integer", numeric=True)
        return _SKIP
    return int(value)


def _read_pattern(spec: Spec, key: str, value: Any, kl: Loc, ctx: SpecCtx, depth: int) -> Any:
    if not isinstance(value, str):
        _bad_value(spec, key, value, kl, ctx, "a string")
        return _SKIP
    problem = _check_pattern(value)
    if problem is not None:
        ctx.sink.add(Kind.BAD_PATTERN, kl.span(), ctx.list_attr, parameter=ctx.pname, problem=problem)
        spec.incoherent = True
        return _SKIP
    return value


def _read_items(spec: Spec, key: str, value: Any, kl: Loc, ctx: SpecCtx, depth: int) -> Any:
    if not isinstance(value, dict):
        _bad_value(spec, key, value, kl, ctx, "an object")
        return _SKIP
    return read_object(value, kl, ctx, depth + 1, fragment=True)


def _read_properties(spec: Spec, key: str, value: Any, kl: Loc, ctx: SpecCtx, depth: int) -> Any:
    if not isinstance(value, dict):
        _bad_value(spec, key, value, kl, ctx, "an object")
        return _SKIP
    props: dict[str, Spec] = {}
    for name, sub in value.items():
        sl = kl.sub(name)
        if not V.is_param_name(name):
            ctx.sink.add(Kind.BAD_KEY_VALUE, sl.key_span(), ctx.list_attr, parameter=ctx.pname, parameter_key=key,
                         expectation="an object whose keys are parameter names")
            spec.incoherent = True
            continue
        if not isinstance(sub, dict):
            ctx.sink.add(Kind.BAD_KEY_VALUE, sl.span(), ctx.list_attr, parameter=ctx.pname, parameter_key=key,
                         expectation="an object whose values are objects")
            spec.incoherent = True
            continue
        props[name] = read_object(sub, sl, ctx, depth + 1, fragment=True)
    return props


def _unique_names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value) and len(set(value)) == len(value)


_KEY_READERS: dict[str, KeyReader] = {
    "type": _read_type,
    "description": _read_description,
    "format": _read_format,
    "enum": _expecting(lambda v: isinstance(v, list), "a non-empty array"),
    "examples": _expecting(lambda v: isinstance(v, list), "an array"),
    "pattern": _read_pattern,
    "items": _read_items,
    "uniqueItems": _expecting(lambda v: isinstance(v, bool), "a boolean"),
    "properties": _read_properties,
    "required": _expecting(_unique_names, "an array of unique names"),
}


def _check_pattern(pattern: str) -> str | None:
    from axag.values.pattern import check_pattern

    return check_pattern(pattern)
