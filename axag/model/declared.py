"""MODEL: declared parameter lists and their merge with the harvested parameters (parameters, merging declared and harvested parameters).

`build_parameters(model, act, harvest=...)` returns the merged `Parameter`s of one action (declared required,
declared optional, harvested required, harvested optional) and records every problem as a fact.
`finish_file(model, harvest=...)` notes `axag-parameter*` attributes outside every parameter scope.
Specs are read by `axag.model.spec_read` and checked by `axag.model.spec_checks`; form controls are harvested by
`axag.model.harvest`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from axag import vocabulary as V
from axag.files.spans import Span
from axag.model.facts import Kind
from axag.model.param_spec import APPLIES, LISTS, Loc, Sink, Spec, SpecCtx
from axag.model.parameter import Parameter
from axag.model.spec_checks import coherence, compile_schema, kind_of, pattern_costs, value_checks
from axag.model.spec_read import read_object

if TYPE_CHECKING:
    from axag.model.types import Action, FileModel

__all__ = ["build_parameters", "finish_file"]


# ---------------------------------------------------------------------------------------------- declared lists
@dataclass
class _Declared:
    name: str
    required: bool
    spec: Spec
    span: Span
    list_attr: str
    string_form: bool


def _read_lists(model: FileModel, act: Action, sink: Sink) -> list[_Declared]:
    out: list[_Declared] = []
    by_exact: dict[str, tuple[str, int]] = {}  # name -> (list attr, index in out)
    by_snake: dict[str, str] = {}
    for attr_name in LISTS:
        val = act.v(attr_name)
        if not val.declared:
            continue
        if not val.ok:
            sink.errors += 1  # the list is no JSON list of parameters (or a dynamic value): already recorded
            continue
        items = val.value
        assert isinstance(items, list)
        required = attr_name == LISTS[0]
        for i, item in enumerate(items):
            loc = Loc(val, (i,))
            name, spec = _read_item(model, item, loc, i, attr_name, sink)
            if name is None or spec is None:
                continue
            span = loc.span() if isinstance(item, str) else loc.sub("name").span()
            if name in by_exact:
                first_list, _ = by_exact[name]
                if first_list != attr_name:
                    sink.add(Kind.IN_BOTH_LISTS, span, attr_name, parameter=name)
                else:
                    sink.add(Kind.REPEATED_PARAMETER, span, attr_name, parameter=name, variant=None)
                continue
            snake = V.snake_case(name)
            if snake in by_snake:
                sink.add(Kind.REPEATED_PARAMETER, span, attr_name, parameter=by_snake[snake], variant=name)
                continue
            by_exact[name] = (attr_name, len(out))
            by_snake[snake] = name
            out.append(_Declared(name, required, spec, span, attr_name, isinstance(item, str)))
    return out


def _read_item(model: FileModel, item: Any, loc: Loc, i: int, attr_name: str, sink: Sink
               ) -> tuple[str | None, Spec | None]:
    def bad_name(span: Span, problem: str) -> tuple[None, None]:
        sink.add(Kind.BAD_LIST_ITEM_NAME, span, attr_name, position=i + 1, attr=attr_name, problem=problem)
        return None, None

    if isinstance(item, str):
        problem = _name_problem(item)
        if problem is not None:
            return bad_name(loc.span(), problem)
        return item, Spec(loc)
    if not isinstance(item, dict):  # reported by 009
        return None, None
    if "name" not in item:
        return bad_name(loc.span(), "is missing")
    name = item["name"]
    if not isinstance(name, str):
        return bad_name(loc.sub("name").span(), "must be a string")
    problem = _name_problem(name)
    if problem is not None:
        return bad_name(loc.sub("name").span(), problem)
    ctx = SpecCtx(sink, name, attr_name)
    return name, read_object(item, loc, ctx)


def _name_problem(name: str) -> str | None:
    if name == "":
        return "is empty"
    if name.startswith("_axag") and V.PARAM_NAME_RE.fullmatch(name):
        return "is reserved"
    if not V.PARAM_NAME_RE.fullmatch(name):
        return f'"{name}" must match ^[A-Za-z_][A-Za-z0-9_]{{0,63}}$'
    return None


# ---------------------------------------------------------------------------------------------- merging
def _merge(model: FileModel, d: _Declared, h: Any, sink: Sink) -> tuple[Spec, str | None, dict[str, str] | None]:
    """merging declared and harvested parameters steps 3-4: returns the merged spec, the harvested kind that applies, and the bounds."""
    merged = d.spec.copy()
    hspec: Spec = h.spec
    if not d.spec.explicit_type:
        for key, value in hspec.keys.items():
            if key not in merged.keys:
                merged.keys[key] = value
                merged.locs[key] = hspec.key_loc(key)
        return merged, (h.kind if "pattern" not in d.spec.keys else None), h.bounds
    dt = d.spec.type
    ht = hspec.type
    if d.spec.type_invalid:
        return merged, None, None
    if dt == ht or (dt == "number" and ht == "integer"):
        for key, value in hspec.keys.items():
            if key in merged.keys or key == "type":
                continue
            allowed = APPLIES.get(key)
            if allowed is not None and dt not in allowed:
                continue
            merged.keys[key] = value
            merged.locs[key] = hspec.key_loc(key)
        return merged, (h.kind if "pattern" not in d.spec.keys and dt == "string" else None), h.bounds
    if "description" in hspec.keys and "description" not in merged.keys:
        merged.keys["description"] = hspec.keys["description"]
        merged.locs["description"] = hspec.key_loc("description")
    sink.add(Kind.TYPE_CONFLICT, d.spec.key_loc("type").span(), d.list_attr, parameter=d.name, declared_type=dt, harvested_type=ht)
    return merged, None, None


def _finish(spec: Spec, ctx: SpecCtx) -> None:
    coherence(spec, ctx)
    value_checks(spec, ctx)
    pattern_costs(spec, ctx)


def build_parameters(model: FileModel, act: Action, *, harvest: bool = True) -> list[Parameter]:
    """Declared + harvested parameters of ``act``, merged (merging declared and harvested parameters), with all parameter problems recorded."""
    sink = Sink(model, act)
    declared = _read_lists(model, act, sink)
    harvested: list[Any] = []
    if harvest:
        from axag.model.harvest import harvest_action

        harvested = harvest_action(model, act, sink)
    by_snake: dict[str, Any] = {}
    for h in harvested:
        by_snake.setdefault(V.snake_case(h.name), h)
    used: set[int] = set()
    params: list[Parameter] = []
    for d in declared:
        h = by_snake.get(V.snake_case(d.name))
        ctx = SpecCtx(sink, d.name, d.list_attr)
        if h is not None:
            used.add(id(h))
            spec, hkind, bounds = _merge(model, d, h, sink)
        else:
            spec, hkind, bounds = d.spec, None, None
        _finish(spec, ctx)
        params.append(Parameter(
            name=d.name, required=d.required, schema=compile_schema(spec), kind=kind_of(spec, hkind),
            declared=True, harvested=h is not None, format_bounds=bounds if _bounds_apply(spec, hkind) else None,
            span=d.span, control=h.control if h is not None else None,
        ))
    _described_by_declaration(model, declared, by_snake)
    rest = [h for h in harvested if id(h) not in used]
    for h in [h for h in rest if h.required] + [h for h in rest if not h.required]:
        ctx = SpecCtx(sink, h.name, None)
        _finish(h.spec, ctx)
        params.append(Parameter(
            name=h.name, required=h.required, schema=compile_schema(h.spec), kind=kind_of(h.spec, h.kind),
            declared=False, harvested=True, format_bounds=h.bounds, span=h.control.tag_span, control=h.control,
        ))
    if sink.errors:
        act.params_ok = False
    return params


def _described_by_declaration(model: FileModel, declared: list[Any], by_snake: dict[str, Any]) -> None:
    """A harvested parameter that its declaration describes has a description in the schema: the control's
    missing label is no finding then (032)."""
    described = {(h.name, h.control.tag_span.start) for d in declared if "description" in d.spec.keys
                 for h in [by_snake.get(V.snake_case(d.name))] if h is not None}
    if described:
        model.facts[:] = [f for f in model.facts if not (f.kind is Kind.HARVESTED_WITHOUT_DESCRIPTION
                                                         and (f.args.get("parameter"), f.span.start) in described)]


def _bounds_apply(spec: Spec, hkind: str | None) -> bool:
    return spec.type == "string"


# ---------------------------------------------------------------------------------------------- file level
def finish_file(model: FileModel, *, harvest: bool = True) -> None:
    """Notes the `axag-parameter*` attributes of elements that are no control of any parameter scope."""
    if not harvest:
        return
    from axag.model.harvest import all_scope_controls

    inside = all_scope_controls(model)
    sink = Sink(model, None)
    for ann in model.annotated:
        el = ann.element
        if el.el is None or el.el in inside:
            continue
        for attr in el.attrs:
            if el.is_repeat(attr) or attr.name not in V.CONTROL_ATTRIBUTES:
                continue
            sink.add(Kind.UNUSED_CONTROL_ATTRIBUTE, attr.name_span, attr.name, element=el, attr=attr.name,
                     reason="the element is not a control in the parameter scope of any action")
