"""MODEL: annotated elements -> actions with typed values, macro expansion, context inheritance,
parameters and preconditions (the vocabulary, value syntax, context inheritance, preconditions). What is wrong is recorded as `Fact`s, judged by the rules."""

from __future__ import annotations

from typing import Any

from axag import vocabulary as V
from axag.files.spans import Span
from axag.model import forms
from axag.model.facts import Fact, Kind
from axag.model.legacy import entry_count
from axag.model.macro import expand
from axag.model.parameter import Parameter
from axag.model.relational import Relation, looks_relational, parse_relation
from axag.model.types import Action, Annotated, FileModel, Precondition
from axag.model.values import Status, Value, ValueReader
from axag.outcome.plural import plural
from axag.parse.document import Attr, Element, ParsedFile
from axag.parse.edits import fix, remove_attribute, replace_value
from axag.values.jsonspan import JsonError
from axag.values.jsonspan import parse as parse_json

JSON_KINDS = {"param_list", "string_array", "json_array", "json_object"}
# the attributes whose values are JSON (what quoting can cut): those of the JSON kinds and the legacy constraints
_JSON_VALUED = frozenset({name for name, spec in V.ATTRIBUTES.items() if spec.kind in JSON_KINDS}
                         | {V.LEGACY_CONSTRAINTS})
_DAMAGE_CHARS = set("\"'[]{},:")


# ---------------------------------------------------------------------- building
def build_model(pf: ParsedFile, *, harvest: bool = True) -> FileModel:
    facts: list[Fact] = []
    model = FileModel(pf, [], [], facts)
    for element in pf.elements:
        ann = _read_element(pf, element, facts)
        model.annotated.append(ann)
        model.by_element[id(element)] = ann
    _inherit(model)
    for ann in model.annotated:
        if ann.action is not None:
            _finish_action(model, ann.action, harvest)
            model.actions.append(ann.action)
    from axag.model.declared import finish_file

    finish_file(model, harvest=harvest)
    return model


def _read_element(pf: ParsedFile, element: Element, facts: list[Fact]) -> Annotated:
    kind = pf.src.kind
    reader = ValueReader(element, facts, kind)
    ann = Annotated(element)
    fragments = _damaged(pf, element, reader)
    damaged = fragments.get("damaged", ())
    # names: case, repeats, unknown/legacy
    for attr in element.attrs:
        if id(attr) in fragments:
            continue
        written_low = attr.written.lower()
        is_dup = element.is_repeat(attr)
        if is_dup:
            first = element.first[attr.name]
            fx = None
            if attr.value == first.value and (attr.quote is not None) == (first.quote is not None):
                fx = fix(f"Remove the repeated {attr.name}", remove_attribute(attr, pf.src.text))
            reader.note(Kind.REPEATED_ATTRIBUTE, attr.name_span, attr.name, attr=attr.name, written=first.value, fix=fx)
            continue
        if attr.written != written_low and not written_low.startswith((":", "v-bind:")):
            reader.note(Kind.ATTRIBUTE_CASE, attr.name_span, attr.name, lower=attr.name,
                           fix=fix(f'Write "{attr.name}"', _rename(attr, attr.name)))
        name = attr.name
        if name.startswith(V.EXTENSION_PREFIX):
            if attr.dynamic:
                ann.dynamic_attrs.append(name)
            else:
                ann.extensions[name[len(V.EXTENSION_PREFIX):]] = attr.value
            continue
        if name == V.LEGACY_CONSTRAINTS:
            ann.legacy.append(attr)
            continue
        if name in V.REMOVED_ATTRIBUTES:
            ann.legacy.append(attr)
            reader.note(Kind.REMOVED_ATTRIBUTE, attr.name_span, name, attr=name)
            continue
        if name == V.SKIP_ATTRIBUTE:
            ann.legacy.append(attr)
            reader.note(Kind.SKIP_ATTRIBUTE, attr.name_span, name)
            continue
        if name not in V.ATTRIBUTES:
            ann.unknown.append(attr)
            sugg = V.attribute_suggestion(name)
            fx = None
            if sugg is not None and sugg not in element.first and attr.written.lower() == name:
                fx = fix(f'Rename to "{sugg}"', _rename(attr, sugg), unsafe=True)
            reader.note(Kind.UNKNOWN_ATTRIBUTE, attr.name_span, name, name=attr.written, suggestion=sugg,
                        help=f'did you mean "{sugg}"?' if sugg else None, fix=fx)
            continue
        if attr.dynamic:
            ann.dynamic_attrs.append(name)
        if name == "axag":
            ann.macro_attr = attr
            continue
        if id(attr) in damaged:
            ann.values[name] = Value(Status.INVALID, None, attr)
            continue
        ann.values[name] = reader.read(attr)
    for attr in ann.legacy:
        if attr.name == V.LEGACY_CONSTRAINTS:
            # the fact: M entries; N (what the fix migrates) is the fix provider's (lint.migrate.provide)
            reader.note(Kind.LEGACY_CONSTRAINTS, attr.name_span, attr.name,
                        entries=plural(entry_count(attr), "entry", "entries"))
    if ann.macro_attr is not None and not ann.macro_attr.dynamic:
        _expand_macro(ann, reader)
    _misspelt_count_as_declared(ann)
    intent = ann.v("axag-intent")
    if intent.declared or ann.macro is not None or (ann.macro_attr is not None and ann.macro_attr.dynamic):
        ann.action = Action(ann, intent_value=intent)
    return ann


def _misspelt_count_as_declared(ann: Annotated) -> None:
    """An unknown attribute whose name is a typo of a known one (`axag-aproval-required`) makes that attribute
    declared but unknown, as an invalid value does (one finding per problem): the rules reading it stay silent (no 128, 026,
    011, 021 next to the 100). Not for the intent and the macro: they make the element an action."""
    for attr in ann.unknown:
        sugg = V.attribute_suggestion(attr.name)
        if sugg is not None and sugg not in ann.values and sugg not in ("axag", "axag-intent"):
            ann.values[sugg] = Value(Status.INVALID, None, attr)


def _rename(attr: Attr, new_name: str) -> Any:
    from axag.outcome.findings import Edit

    return Edit(attr.name_span.start, attr.name_span.end, new_name)


def _damaged(pf: ParsedFile, element: Element, reader: ValueReader) -> dict[Any, Any]:
    """Find JSON values cut at a quote or space (quoting damage). Returns ids of fragment attributes to ignore,
    and under "damaged" the ids of the damaged attributes."""
    out: dict[Any, Any] = {}
    damaged: set[int] = set()
    raw = element.raw
    if raw is None:
        return out
    if not any(a.name in _JSON_VALUED for a in element.attrs):
        out["damaged"] = damaged  # no JSON value to be damaged (most elements): the start tag is not read again
        return out
    text = pf.text
    attrs = raw.attrs
    by_start = {a.name_span.start: a for a in element.attrs}
    for i, ra in enumerate(attrs):
        a = by_start.get(ra.name_start)
        if a is None or a.dynamic or element.is_repeat(a):
            continue
        spec = V.ATTRIBUTES.get(a.name)
        if a.name != V.LEGACY_CONSTRAINTS and (spec is None or spec.kind not in JSON_KINDS):
            continue
        if a.quote is None:
            continue
        try:
            reader.parsed[id(a)] = parse_json(a.value)  # the reader takes it instead of parsing again
            continue
        except JsonError:
            pass
        frags = []
        for rb in attrs[i + 1:]:
            if any(c in _DAMAGE_CHARS for c in rb.written):
                frags.append(rb)
            else:
                break
        if not frags:
            continue
        last = frags[-1]
        end = last.value_end + (1 if last.quote in ('"', "'") and last.closed else 0) if last.quote is not None \
            else last.name_end
        joined = text[ra.value_start:end]
        if joined and joined[-1] in "\"'":
            joined = joined[:-1]
        from axag.parse.entities import decode_attribute

        decoded, _ = decode_attribute(joined)
        try:
            parse_json(decoded)
        except JsonError:
            continue
        from axag.outcome.findings import Edit
        from axag.values.jsontext import dumps_compact

        # the JSON goes inside single quotes, as the message says (unless it holds a single quote)
        edits = [replace_value(a, dumps_compact(parse_json(decoded).value), requote=True)]
        for rb in frags:
            fa = by_start.get(rb.name_start)
            s = rb.name_start
            while s > 0 and text[s - 1] in " \t\r\n":
                s -= 1
            e2 = rb.value_end + (1 if rb.quote in ('"', "'") and rb.closed else 0) if rb.quote is not None \
                else rb.name_end
            edits.append(Edit(s, e2, ""))
            out[id(fa) if fa is not None else ("raw", rb.name_start)] = True
        # replace_value on the cut attribute ends at its own closing quote; fragments follow it
        reader.note(Kind.DAMAGED_JSON, a.name_span, a.name, attr=a.name, fix=fix(f"Rejoin {a.name}", *edits))
        damaged.add(id(a))
    out["damaged"] = damaged
    return out


def _expand_macro(ann: Annotated, reader: ValueReader) -> None:
    attr = ann.macro_attr
    assert attr is not None
    res = expand(attr.value)
    ann.macro = res
    for (column, detail), width in zip(res.errors, res.widths, strict=True):
        reader.note(Kind.MACRO_SYNTAX, attr.value_sub_span(column - 1, column - 1 + width), "axag", column=column, detail=detail)
    if res.stopped:
        return
    for name, mvalue in res.attrs.items():
        s, e = res.parts.get(name, (0, len(attr.value)))
        span = attr.value_sub_span(s, e)
        longhand = ann.values.get(name)
        if longhand is not None and longhand.status is not Status.ABSENT:
            same = longhand.raw == mvalue
            if not same and V.ATTRIBUTES[name].kind in JSON_KINDS | {"param_list"}:
                try:
                    same = parse_json(longhand.raw).value == parse_json(mvalue).value
                except JsonError:
                    same = False
            if not same:
                reader.note(Kind.MACRO_CONFLICT, longhand.value_span(), name, attr=name, shorthand=mvalue, longhand=longhand.raw)
            continue
        synthetic = Attr(name=name, written=name, value=mvalue, raw=mvalue, quote='"', name_span=span,
                         value_span=span, offsets=None)
        ann.values[name] = reader.read(synthetic, from_macro=True, macro_span=span)


# ---------------------------------------------------------------------- context (context inheritance)
_CONTEXT = ("axag-scope", "axag-tenant-boundary", "axag-required-roles")


_Context = tuple[tuple[str, Annotated] | None, tuple[str, Annotated] | None, list[str]]  # scope, boundary, roles


def _inherit(model: FileModel) -> None:
    """Effective scope / tenant boundary / roles per annotated element; notes a scope wider than an ancestor's
    and a relaxed tenant boundary under a strict one."""
    cache: dict[int, _Context] = {}
    for ann in model.annotated:
        if ann.action is None:
            if any(ann.v(n).declared for n in _CONTEXT):
                _context_of(model, cache, ann)
            continue
        scope, tb, roles = _context_of(model, cache, ann)
        act = ann.action
        if scope is not None:
            act.scope, act.scope_source = scope
        if tb is not None:
            act.tenant_boundary, act.tenant_source = tb
        act.required_roles = roles


def _parent_context(model: FileModel, cache: dict[int, _Context], ann: Annotated) -> _Context:
    el = ann.element.el
    if el is None:
        return None, None, []
    for anc in el.iterancestors():
        a = model.annotated_of(anc)
        if a is not None and any(a.v(n).declared for n in _CONTEXT):
            return _context_of(model, cache, a)
    return None, None, []


def _context_of(model: FileModel, cache: dict[int, _Context], ann: Annotated) -> _Context:
    key = id(ann)
    if key in cache:
        return cache[key]
    scope, tb, roles = _parent_context(model, cache, ann)
    own_scope = ann.v("axag-scope")
    if own_scope.ok:
        if scope is not None and V.SCOPES.index(own_scope.value) < V.SCOPES.index(scope[0]):
            line = model.pf.lines.position(scope[1].element.start)[0]
            note(model, ann, Kind.SCOPE_WIDER_THAN_ANCESTOR, own_scope.value_span(), "axag-scope",
                 scope=own_scope.value, ancestor_scope=scope[0], ancestor_line=line)
        scope = (own_scope.value, ann)
    own_tb = ann.v("axag-tenant-boundary")
    if own_tb.ok:
        if tb is not None and tb[0] == "strict" and own_tb.value == "relaxed":
            line = model.pf.lines.position(tb[1].element.start)[0]
            note(model, ann, Kind.TENANT_BOUNDARY_RELAXED, own_tb.value_span(), "axag-tenant-boundary", ancestor_line=line)
        else:
            tb = (own_tb.value, ann)
    own_roles = ann.v("axag-required-roles")
    if own_roles.ok:
        merged = list(roles)
        for r in own_roles.value:
            if r not in merged:
                merged.append(r)
        roles = merged
    result = (scope, tb, roles)
    cache[key] = result
    return result


def note(model: FileModel, ann: Annotated, kind: Kind, span: Span, attribute: str | None, /, **args: Any) -> Fact:
    fact = Fact(kind, span, ann.element, attribute, args)
    model.facts.append(fact)
    return fact


# ---------------------------------------------------------------------- actions
def _finish_action(model: FileModel, act: Action, harvest: bool) -> None:
    ann = act.ann
    iv = ann.v("axag-intent")
    act.intent = iv.value if iv.ok else None
    ent = ann.v("axag-entity")
    act.entity = ent.value if ent.ok else None
    if act.intent is not None:
        prefix = act.intent.split(".", 1)[0]
        act.derived_entity = prefix
        if ent.ok and ent.value != prefix:
            note(model, ann, Kind.ENTITY_NOT_INTENT_PREFIX, ent.value_span(), "axag-entity", entity=ent.value, prefix=prefix)
        op = ann.v("axag-operation-id")
        if not op.declared:
            name = act.intent.replace(".", "_")
            if not V.TOOL_NAME_RE.fullmatch(name):  # e.g. an intent longer than 64 characters (tool naming and duplicates)
                note(model, ann, Kind.BAD_TOOL_NAME, iv.value_span(), "axag-intent", name=name)
    step, total = ann.v("axag-workflow-step"), ann.v("axag-workflow-total-steps")
    if step.ok and total.ok and step.value > total.value:
        note(model, ann, Kind.UNEXPECTED_VALUE, step.value_span(), "axag-workflow-step", attr="axag-workflow-step",
                    written=step.raw, expectation=f"at most axag-workflow-total-steps ({total.value})")
    act.dynamic = any(not n.startswith("axag-x-") for n in ann.dynamic_attrs)
    # parameters (declared + harvested, merged) — parameters, form harvesting
    from axag.model.declared import build_parameters

    if act.dynamic:
        # its contract is unknown at build time (dynamic values): parameters, preconditions and placeholders are
        # not evaluated, so that nothing is reported about values that may differ once rendered
        return
    act.parameters = build_parameters(model, act, harvest=harvest)
    from axag.model.harvest import note_file_inputs

    note_file_inputs(model, act)
    _params_from(model, act)
    _preconditions(model, act)
    _placeholders(model, act)


def _params_from(model: FileModel, act: Action) -> None:
    pv = act.v("axag-params-from")
    if not pv.ok:
        return
    v = str(pv.value)
    root = model.pf.root
    found = v.startswith("#") and len(v) > 1 and root is not None and bool(
        root.xpath("//*[@id=$id]", id=v[1:])
    )
    if not found:
        note(model, act.ann, Kind.PARAMS_FROM_NOT_FOUND, pv.value_span(), "axag-params-from", written=v)
        pv.status = Status.INVALID
        pv.value = None


def _preconditions(model: FileModel, act: Action) -> None:
    pv = act.v("axag-preconditions")
    if not pv.ok:
        return
    names = set(act.param_names())
    kinds = {p.name: p for p in act.parameters}
    for i, text in enumerate(pv.value):
        span = pv.json_span((i,))
        item = V.collapse_ws(text)
        rel = parse_relation(item)
        if rel is not None and any(n in names for n in rel.names):
            missing = [n for n in rel.names if n not in names]
            for n in missing:
                note(model, act.ann, Kind.PRECONDITION_UNKNOWN_PARAMETER, span, "axag-preconditions", text=item, unknown_name=n,
                            intent=act.intent or "")
            if not missing:
                _check_operands(model, act, rel, item, span, kinds)
            act.preconditions.append(Precondition(item, "relational", rel, span))
        else:
            if rel is None and looks_relational(item, names):
                _unparsed_relation(model, act, pv, i, item, span, names)
            act.preconditions.append(Precondition(item, "state", None, span))


def _unparsed_relation(model: FileModel, act: Action, pv: Value, index: int, item: str, span: Span,
                       names: set[str]) -> None:
    """A precondition that reads as a relation but is none, with the grammatical item closest to it as help and
    fix (the fix rewrites that one JSON string)."""
    from axag.model.relational_hints import suggest

    p = note(model, act.ann, Kind.UNPARSED_RELATION, span, "axag-preconditions", text=item)
    new = suggest(item, names)
    if new is None:
        return
    p.help = f'write "{new}"'
    attr = pv.attr
    if attr is not None and attr.quote in ('"', "'") and not pv.from_macro and span != pv.value_span():
        from axag.outcome.findings import Edit
        from axag.parse.edits import escape_in_value
        from axag.values.jsontext import dumps_compact

        p.fix = fix(f'Rewrite as "{new}"', Edit(span.start, span.end, escape_in_value(dumps_compact(new), attr.quote)))


_NUMERIC = {"number", "integer"}
_DATELIKE = {"date", "date-time", "time", "local-datetime", "time-of-day", "month", "week"}
_ORDERING = {"greater_than", "greater_than_or_equal", "less_than", "less_than_or_equal"}


def _check_operands(model: FileModel, act: Action, rel: Relation, item: str, span: Span,
                    params: dict[str, Parameter]) -> None:
    """relational classification and validation operand compatibility."""

    def kind_label(p: Parameter) -> str:
        return p.kind

    def bad(a: str, ta: str, b: str, tb: str) -> None:
        note(model, act.ann, Kind.OPERAND_MISMATCH, span, "axag-preconditions", text=item, left=a, left_type=ta, right=b, right_type=tb)

    form = rel.form
    is_order = form in _ORDERING and rel.template != "R12"
    if form in _ORDERING or (rel.template == "R1" and rel.op in ("==", "!=")) or rel.template == "R12" \
            or form == "required_when_equal":
        first = params[rel.names[0]]
        if len(rel.names) >= 2 and form != "required_when_equal":
            second = params[rel.names[1]]
            ka, kb = kind_label(first), kind_label(second)
            if is_order:
                ok = (ka in _NUMERIC and kb in _NUMERIC) or (ka in _DATELIKE and ka == kb)
            else:
                ok = first.type == second.type or (first.type in _NUMERIC and second.type in _NUMERIC)
            if not ok:
                bad(first.name, ka, second.name, kb)
        elif rel.has_value:
            target = params[rel.names[1]] if form == "required_when_equal" else first
            if not _literal_ok(target, rel.value, ordering=is_order):
                lit = rel.value
                from axag.values.jsontext import dumps_compact

                bad(target.name, target.kind, dumps_compact(lit), _json_type(lit))


def _json_type(v: object) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    return "null"


def _literal_ok(p: Parameter, value: object, ordering: bool) -> bool:
    if p.kind in _NUMERIC:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if p.kind in _DATELIKE:
        if not isinstance(value, str):
            return False
        from axag.values.pyruntime import validate_value

        return not validate_value({k: v for k, v in p.schema.items() if k in ("type", "format", "pattern")}, value)
    if ordering:
        return False
    t = p.type
    if t == "boolean":
        return isinstance(value, bool)
    if t == "string":
        return isinstance(value, str)
    return False


def _placeholders(model: FileModel, act: Action) -> None:
    mv = act.v("axag-confirmation-message")
    if not mv.ok or mv.attr is None:
        return
    found, malformed = forms.placeholders(mv.attr.value)
    names = set(act.param_names())
    for name, (start, end) in found:
        if name not in names:
            span = mv.attr.value_sub_span(start, end) if not mv.from_macro else mv.value_span()
            p = note(model, act.ann, Kind.UNKNOWN_PLACEHOLDER, span, "axag-confirmation-message", unknown_name=name,
                     intent=act.intent or "")
            why = act.unharvested.get(name)
            if why is not None:  # why the control of that name is no parameter
                p.args["_why"] = why
                p.help = (f'declare "{name}" in axag-required-parameters or axag-optional-parameters if the '
                          "caller sets it, or remove the placeholder")
    for col in malformed:
        note(model, act.ann, Kind.MALFORMED_PLACEHOLDER, mv.attr.value_sub_span(col - 1, col + 1),
             "axag-confirmation-message", column=col)
