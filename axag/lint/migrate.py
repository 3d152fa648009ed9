"""Migration of the legacy `axag-constraints` attribute (legacy axag-constraints migration, rule 101): the fix provider of rule 101.

`axag-constraints` is a JSON object; each entry is planned on its own, in order:

- (a) ``"param": {…keys…}`` merges the keys (after the unknown parameter keys renames) into the parameter's object form;
- (b) ``"label": "param OP literal"`` becomes a bound (``min``/``max``/``exclusiveMin``/``exclusiveMax``), a
  ``const``, or a relational precondition; ``"label": "paramA OP paramB"`` becomes a precondition.

An entry is migrated only when the result raises no new finding: the candidate text is made by the fix loop's
applier (`edits.apply_text`, as `axag.lint.fix` makes a pass), its file model is rebuilt and every rule run,
and the element's problems are compared with those of the text before.

`provide(model, problems)` is the provider the lint engine runs after the rules, on the problems of each file
it checks (never on a model rebuilt for a verification, so there is no recursion and no nesting guard). The model
records only the fact of the attribute (at its name, with its number of entries M), which rule 101 judges; the
provider sets N on that problem, the number of entries its fix migrates (verified), attaches that fix, and has
rule 101 make one problem per entry that needs manual migration, saying why (`rules.attributes.manual_migration`:
no problem is made here). The fix is plain data (`Fix` of `Edit`s) applied by `axag.lint.fix` like every other
fix.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from axag import vocabulary as V
from axag.files.spans import Span
from axag.model.legacy import entries as _entries
from axag.model.legacy import parse_expression
from axag.outcome.findings import Edit, Fix
from axag.outcome.plural import plural
from axag.parse.document import Attr, Element
from axag.parse.edits import (
    apply_text,
    fix,
    insert_attribute_after,
    remove_attribute,
    render_json,
    replace_value,
)
from axag.values.jsonspan import JsonDoc

if TYPE_CHECKING:
    from collections.abc import Callable

    from axag.files.source import SourceText
    from axag.model.types import Annotated, FileModel
    from axag.parse.document import ParsedFile
    from axag.rules.problem import Problem

    Parser = Callable[[SourceText], ParsedFile]

__all__ = ["EntryPlan", "MigrationPlan", "entry_problems", "migration_fix", "parse_expression", "plan_migration",
           "provide"]

PRECONDITIONS = "axag-preconditions"
LISTS = ("axag-required-parameters", "axag-optional-parameters")
_BOUND_KEYS = {"<=": "max", ">=": "min", "<": "exclusiveMax", ">": "exclusiveMin"}
_ORDERING = ("<", "<=", ">", ">=")
_NUMERIC = ("integer", "number")


# ---------------------------------------------------------------------------------------------- plans
@dataclass
class EntryPlan:
    """One entry of the legacy object: migrated (with what it changes) or kept (with the reason)."""

    key: str
    index: int
    span: Span  # the entry's key token in the source
    reason: str | None = None  # None = migratable so far
    params: dict[str, dict[str, Any]] = field(default_factory=dict)  # param name -> keys to merge
    preconditions: list[str] = field(default_factory=list)
    skipped: bool = False  # not planned (verification tries entries one at a time)

    @property
    def ok(self) -> bool:
        return self.reason is None and not self.skipped


@dataclass
class MigrationPlan:
    attr: Attr
    entries: list[EntryPlan]
    total: int
    fix: Fix | None = None

    @property
    def migrated(self) -> list[EntryPlan]:
        return [e for e in self.entries if e.ok]


@dataclass
class _Declared:
    """Where a longhand parameter is declared: list attribute and item index."""

    list_name: str
    index: int


class _State:
    """The element's declarations as the planned migration changes them (entries are cumulative)."""

    def __init__(self, ann: Annotated) -> None:
        from axag.model.values import Status

        self.ann = ann
        self.lists: dict[str, list[Any]] = {}
        self.list_problem: dict[str, str] = {}
        self.macro_names: set[str] = set()
        self.declared: dict[str, _Declared] = {}
        for name in LISTS:
            val = ann.v(name)
            if not val.declared:
                continue
            if val.from_macro:
                if val.ok:
                    self.macro_names.update(_item_name(it) or "" for it in val.value)
                continue
            if val.status is Status.DYNAMIC:
                self.list_problem[name] = f"{name} is dynamic"
                continue
            if not val.ok:
                self.list_problem[name] = f"{name} is not valid"
                continue
            items = copy.deepcopy(val.value)
            self.lists[name] = items
            for i, item in enumerate(items):
                n = _item_name(item)
                if n is not None and n not in self.declared:
                    self.declared[n] = _Declared(name, i)
        self.harvested_type: dict[str, str] = {}
        self.kinds: dict[str, str] = {}
        # the parameters that only a form control declares: their keys migrate onto the control
        self.controls: dict[str, Element] = {}
        self.control_added: dict[str, dict[str, str]] = {}  # param -> control attribute -> value, in order
        names: set[str] = set(self.declared)
        act = ann.action
        if act is not None:
            for p in act.parameters:
                names.add(p.name)
                self.kinds[p.name] = p.type
                if p.harvested:
                    self.harvested_type[p.name] = p.type
                    if not p.declared and p.control is not None and p.name not in self.declared:
                        self.controls[p.name] = p.control
        self.param_names = names
        pre = ann.v(PRECONDITIONS)
        self.pre_problem: str | None = None
        self.preconditions: list[str] = []
        if pre.declared:
            if pre.status is Status.DYNAMIC:
                self.pre_problem = f"{PRECONDITIONS} is dynamic"
            elif not pre.ok:
                self.pre_problem = f"{PRECONDITIONS} is not a valid JSON array of strings"
            else:
                self.preconditions = list(pre.value)
        self.added_preconditions: list[str] = []
        self.touched: set[str] = set()
        self.original_keys: dict[str, list[str]] = {}

    def current(self, param: str) -> dict[str, Any]:
        d = self.declared[param]
        item = self.lists[d.list_name][d.index]
        if isinstance(item, dict):
            return item
        return {"name": item} | ({"type": self.harvested_type[param]} if param in self.harvested_type else {})

    def param_type(self, param: str) -> str:
        cur = self.current(param) if param in self.declared else {}
        t = cur.get("type")
        if isinstance(t, str):
            return t
        return self.kinds.get(param, "string")

    def longhand_problem(self, param: str) -> str | None:
        if param in self.declared or param in self.controls:
            return None
        if param in self.macro_names:
            return (f'"{param}" is declared by the axag macro (req=/opt=); declare it in '
                    "axag-required-parameters or axag-optional-parameters first")
        if self.list_problem:
            return f'"{param}" cannot be located: ' + "; ".join(self.list_problem.values())
        return f'"{param}" is not declared in axag-required-parameters or axag-optional-parameters'

    def merge(self, param: str, keys: dict[str, Any]) -> str | None:
        """Merge ``keys`` into the parameter; a conflict leaves everything unchanged and says why."""
        from axag.values.pyruntime import json_equal  # JSON equality as the guards check it

        if param not in self.declared:
            return self.merge_control(param, keys)
        cur = self.current(param)
        for k, v in keys.items():
            if k in cur and not json_equal(cur[k], v):
                return f'"{param}" already has "{k}": {_compact(cur[k])}, the entry says {_compact(v)}'
        added = {k: v for k, v in keys.items() if k not in cur}
        if not added:
            return None
        # the declaration's own keys keep their order; every key the migration adds follows in parameter keys and their JSON Schema mapping order
        original = self.original_keys.setdefault(param, list(cur))
        combined = cur | added
        merged = {k: combined[k] for k in original}
        merged.update((k, combined[k]) for k in sorted((k for k in combined if k not in original), key=_key_order))
        d = self.declared[param]
        self.lists[d.list_name][d.index] = merged
        self.touched.add(d.list_name)
        return None

    def merge_control(self, param: str, keys: dict[str, Any]) -> str | None:
        """Merge ``keys`` into the form control that declares ``param``, as its ``axag-parameter-*`` overrides
        (harvesting: required and overrides; a fix changes annotation attributes only); a conflict leaves everything unchanged and says
        why."""
        control = self.controls[param]
        added = dict(self.control_added.get(param, {}))
        for k, v in keys.items():
            attr = _control_attribute(k)
            if attr is None:
                return f'"{param}" is a form control, which has no attribute for "{k}"; declare the parameter first'
            text = v if isinstance(v, str) and k in _TEXT_KEYS else _compact(v)
            existing = control.first[attr].value if attr in control.first else None
            if existing is None:
                existing = added.get(attr)
            if existing is not None and existing != text:
                return f'<{control.tag} name="{param}"> already has {attr}="{existing}", the entry says {text}'
            if existing is None:
                added[attr] = text
        self.control_added[param] = added
        return None

    def has_relation(self, text: str) -> bool:
        from axag.model.relational import parse_relation
        from axag.values.pyruntime import json_equal

        new = parse_relation(text)
        for item in self.preconditions + self.added_preconditions:
            if V.collapse_ws(item) == text:
                return True
            old = parse_relation(item)
            if new is not None and old is not None and (old.form, old.names, old.has_value) == (
                    new.form, new.names, new.has_value) and json_equal(old.value, new.value):
                return True
        return False

    def add_precondition(self, text: str) -> str | None:
        if self.pre_problem is not None:
            return self.pre_problem
        if not self.has_relation(text):
            self.added_preconditions.append(text)
        return None


_TEXT_KEYS = frozenset({"description", "format", "pattern"})  # written as they are, not as JSON


def _control_attribute(key: str) -> str | None:
    """The override attribute of a form control that gives the parameter key ``key`` (harvesting: required and overrides)."""
    override = "axag-parameter-" + re.sub(r"([A-Z])", r"-\1", key).lower()
    return override if override in V.CONTROL_ATTRIBUTES else None


def _control_edit(text: str, control: Element, attrs: dict[str, str]) -> Edit:
    """One insertion of ``attrs`` after the control's last attribute (after its tag name when it has none)."""
    from axag.parse.edits import quote_value

    raw = control.raw
    pos = max((a.value_end + (1 if a.quote else 0) for a in raw.attrs), default=control.tag_span.end) \
        if raw is not None else control.tag_span.end
    return Edit(pos, pos, "".join(f" {name}={quote_value(value, None)}" for name, value in attrs.items()))


def _key_order(k: str) -> int:
    try:
        return V.PARAMETER_KEYS.index(k)
    except ValueError:
        return len(V.PARAMETER_KEYS)


def _item_name(item: Any) -> str | None:
    if isinstance(item, str):
        return item
    if isinstance(item, dict) and isinstance(item.get("name"), str):
        return str(item["name"])
    return None


def _compact(value: Any) -> str:
    from axag.values.jsontext import dumps_compact

    try:
        return dumps_compact(value)
    except (TypeError, ValueError):  # pragma: no cover - values come from JSON
        return repr(value)


def _to_precondition(entry: EntryPlan, state: _State, text: str) -> None:
    """The entry becomes the relational precondition ``text``, unless the action's preconditions refuse it."""
    reason = state.add_precondition(text)
    if reason is not None:
        entry.reason = reason
    else:
        entry.preconditions.append(text)


def _plan_entry(state: _State, key: str, value: Any, entry: EntryPlan) -> None:
    """Fill ``entry`` (changes or reason) and apply its changes to ``state``."""
    if isinstance(value, dict):
        problem = state.longhand_problem(key)
        if problem is not None:
            entry.reason = problem
            return
        keys: dict[str, Any] = {str(V.PARAMETER_KEY_ALIASES.get(k, k)): v for k, v in value.items()}
        if "name" in keys and keys["name"] != key:
            entry.reason = f'its "name" ({_compact(keys["name"])}) differs from the entry key'
            return
        keys.pop("name", None)
        reason = state.merge(key, keys)
        if reason is not None:
            entry.reason = reason
            return
        entry.params[key] = keys
        return
    if not isinstance(value, str):
        entry.reason = "its value is neither an object of parameter keys nor a string expression"
        return
    expr = parse_expression(value)
    if expr is None:
        entry.reason = 'the expression is not "param OP literal" or "paramA OP paramB" (OP: < <= > >= == !=)'
        return
    if not expr.has_literal:
        assert expr.b is not None
        for n in (expr.a, expr.b):
            if n not in state.param_names:
                entry.reason = f'"{n}" is not a parameter of this action'
                return
        _to_precondition(entry, state, f"{expr.a} {expr.op} {expr.b}")
        return
    problem = state.longhand_problem(expr.a)
    if problem is not None:
        entry.reason = problem
        return
    if expr.op == "!=" or (expr.op in _ORDERING and expr.is_string):
        _to_precondition(entry, state, f"{expr.a} {expr.op} {expr.literal_text}")
        return
    bound: dict[str, Any]
    if expr.op == "==":
        bound = {"const": expr.literal}
    else:
        ptype = state.param_type(expr.a)
        if ptype not in V.PARAMETER_TYPES:
            entry.reason = (f'a bound needs a number or integer parameter; the type of "{expr.a}" ("{ptype}") is '
                            "not valid")
            return
        if ptype not in _NUMERIC:
            entry.reason = (f'a bound needs a number or integer parameter; "{expr.a}" is {ptype} '
                            "(declare its type first)")
            return
        bound = {_BOUND_KEYS[expr.op]: expr.literal}
    reason = state.merge(expr.a, bound)
    if reason is not None:
        entry.reason = reason
        return
    entry.params[expr.a] = bound


def _key_span(attr: Attr, doc: JsonDoc, key: str) -> Span:
    try:
        s, e = doc.key_span((key,))
    except (KeyError, ValueError):
        return attr.value_span
    return attr.value_sub_span(s, e)


def _static_plan(model: FileModel, ann: Annotated, attr: Attr, allowed: set[int] | None) -> MigrationPlan:
    """Plan the entries in order; only the indexes in ``allowed`` (None = all) are planned, the others are
    marked skipped."""
    parsed = _entries(attr)
    if parsed is None:
        return MigrationPlan(attr, [], 0)
    doc, obj = parsed
    state = _State(ann)
    plans: list[EntryPlan] = []
    for i, (key, value) in enumerate(obj.items()):
        entry = EntryPlan(key, i, _key_span(attr, doc, key))
        plans.append(entry)
        if attr.dynamic:
            entry.reason = "axag-constraints is dynamic"
        elif ann.action is None:
            entry.reason = "the element is not an action (it has no axag-intent)"
        elif ann.action.dynamic:
            entry.reason = "the action has dynamic values"
        elif allowed is not None and i not in allowed:
            entry.skipped = True
        else:
            _plan_entry(state, key, value, entry)
    plan = MigrationPlan(attr, plans, len(obj))
    migrated = [e for e in plans if e.ok]
    if migrated:
        plan.fix = _build_fix(model, ann, attr, state, migrated, obj)
    return plan


def _build_fix(model: FileModel, ann: Annotated, attr: Attr, state: _State, migrated: list[EntryPlan],
               obj: dict[str, Any]) -> Fix:
    text = model.pf.src.text  # edits are computed on the original text (same offsets)
    edits: list[Edit] = []
    for name in LISTS:
        if name in state.touched:
            val = ann.v(name)
            assert val.attr is not None
            edits.append(replace_value(val.attr, _render(model, val.attr, state.lists[name], val.doc)))
    for param, attrs in state.control_added.items():
        if attrs:
            edits.append(_control_edit(text, state.controls[param], attrs))
    done = {e.key for e in migrated}
    rest = {k: v for k, v in obj.items() if k not in done}
    new_pre = state.added_preconditions
    pre_val = ann.v(PRECONDITIONS)
    if new_pre and pre_val.declared:
        assert pre_val.attr is not None
        edits.append(replace_value(pre_val.attr, _render(model, pre_val.attr, state.preconditions + new_pre,
                                                             pre_val.doc)))
    if rest:
        doc = _entries(attr)
        edits.append(replace_value(attr, _render(model, attr, rest, doc[0] if doc else None)))
        if new_pre and not pre_val.declared:
            edits.append(insert_attribute_after(ann.element, attr, PRECONDITIONS, _compact(new_pre), text,
                                                model.pf.lines.line_ending()))
    elif new_pre and not pre_val.declared:
        # the new attribute takes the place of the removed one
        from axag.parse.edits import attribute_extent, quote_value

        start, end = attribute_extent(attr)
        edits.append(Edit(start, end, f"{PRECONDITIONS}={quote_value(_compact(new_pre), None)}"))
    else:
        edits.append(remove_attribute(attr, text))
    n, m = len(migrated), len(obj)
    what = "every entry" if n == m else f"{n} of {plural(m, 'entry', 'entries')}"
    return fix(f"Migrate {what} of axag-constraints", *edits)


def _render(model: FileModel, attr: Attr, value: Any, doc: JsonDoc | None) -> str:
    """Rewritten JSON of an attribute value (fixes, `edits.render_json`) on the original text (same offsets)."""
    return render_json(model.pf.src.text, model.pf.lines.line_ending(), attr, value, doc, _compact)


# ---------------------------------------------------------------------------------------------- verification
ProblemKey = tuple[int, str, int, str]
Problems = dict[ProblemKey, tuple[int, str]]  # key -> (count, rendered message)
_ANY = -1  # problems not tied to one element (a failed rebuild): they count for every element


def _problems_by_element(model: FileModel) -> dict[int, Problems]:
    """Every problem (model and all rules) per annotated element index, without spans."""
    from axag.rules import load_rules
    from axag.rules.base import RuleCtx, run_rules
    from axag.rules.catalogue import RULES, format_message

    load_rules()
    ctx = RuleCtx(model, frozenset(RULES) - {33})  # the model's facts and every rule (33: not a problem here)
    index = {id(e): i for i, e in enumerate(model.pf.elements)}
    out: dict[int, Problems] = {}
    try:
        run_rules(ctx)
    except Exception as exc:  # noqa: BLE001 - a rule failing on the candidate text is a reason, not a crash
        out[_ANY] = {(199, "", 0, "[]"): (1, f"an internal error ({type(exc).__name__})")}
    for p in ctx.problems:
        if p.code == 101:
            continue
        if p.element is None or id(p.element) not in index:
            continue
        else:
            i = index[id(p.element)]
        args = {k: v for k, v in p.args.items() if not k.startswith("_")}
        key = (p.code, p.attribute or "", p.index, repr(sorted((k, str(v)) for k, v in p.args.items())))
        bucket = out.setdefault(i, {})
        count, message = bucket.get(key, (0, ""))
        if not message:
            try:
                message = p.message or format_message(p.code, p.index, **args)
            except (KeyError, IndexError, ValueError):
                message = RULES[p.code].info.name if p.code in RULES else str(p.code)
        bucket[key] = (count + 1, message)
    return out


@dataclass(frozen=True)
class _Rebuild:
    """How a candidate text becomes a file model: as the engine built the file's own (its parser, harvesting or
    not), so that the elements of the candidate are those of the file."""

    harvest: bool = True
    parse: Parser | None = None  # None: the parser of the file's kind (JSX without configured components)

    def parser(self, kind: str) -> Parser:
        if self.parse is not None:
            return self.parse
        if kind == "jsx":
            from axag.parse.jsx import parse_jsx

            return parse_jsx
        from axag.parse.document import parse_source

        return parse_source


def _rebuild(model: FileModel, edits: tuple[Edit, ...], how: _Rebuild) -> FileModel | None:
    from axag.files.source import SourceText, vue_window
    from axag.model.actions import build_model

    src = model.pf.src
    new_text = apply_text(src.text, sorted(edits, key=lambda e: (e.start, e.end)))
    # the bytes matter to the parser's prefilters: the new text in the file's encoding (exact for everything the
    # encoding can represent, which is all the fix applier would write anyway)
    data = src.bom + new_text.encode(src.encoding, "replace")
    nsrc = SourceText(path=src.path, text=new_text, data=data, encoding=src.encoding, bom=src.bom,
                      replaced=src.replaced, kind=src.kind)
    if src.kind == "vue":
        nsrc.window = vue_window(new_text) or (0, 0)
    pf = how.parser(src.kind)(nsrc)
    if pf.root is None:
        return None
    return build_model(pf, harvest=how.harvest)


def _problems_after(model: FileModel, how: _Rebuild, edits: tuple[Edit, ...]) -> dict[int, Problems]:
    try:
        rebuilt = _rebuild(model, edits, how)
    except Exception as exc:  # noqa: BLE001 - a candidate the model cannot read is simply not migrated
        return {_ANY: {(199, "", 0, ""): (1, f"an internal error ({type(exc).__name__})")}}
    if rebuilt is None:
        return {_ANY: {(192, "", 0, ""): (1, "a parse failure")}}
    return _problems_by_element(rebuilt)


def _first_new(base: dict[int, Problems], after: dict[int, Problems], index: int) -> str | None:
    """The message of the first problem of element ``index`` that ``after`` has more often than ``base``."""
    b = {**base.get(_ANY, {}), **base.get(index, {})}
    a = {**after.get(_ANY, {}), **after.get(index, {})}
    for key in sorted(a):
        if a[key][0] > b.get(key, (0, ""))[0]:
            code = key[0]
            return f"AXAG-LINT-{code:03d} ({a[key][1]})" if code not in (192, 199) else a[key][1]
    return None


def _verify(model: FileModel, items: list[tuple[Annotated, Attr, MigrationPlan]], how: _Rebuild
            ) -> list[MigrationPlan]:
    """Verify static plans by rebuilding the model: first with every plan applied at once (elements do not
    affect each other's problems, so this is one rebuild in the common case), then entry by entry for the
    elements whose plan raises a new problem."""
    out = [plan for _, _, plan in items]
    todo = [i for i, (_, _, plan) in enumerate(items) if plan.fix is not None]
    if not todo:
        return out
    index_of = {id(e): i for i, e in enumerate(model.pf.elements)}
    base = _problems_after(model, how, ())
    combined: list[Edit] = []
    for i in todo:
        fx = items[i][2].fix
        combined.extend(fx.edits if fx is not None else ())
    after = _problems_after(model, how, tuple(combined))
    for i in todo:
        ann, attr, plan = items[i]
        index = index_of.get(id(ann.element), _ANY)
        if _first_new(base, after, index) is None:
            continue
        out[i] = _blame(model, ann, attr, plan, index, base, how)
    return out


def _blame(model: FileModel, ann: Annotated, attr: Attr, plan: MigrationPlan, index: int,
           base: dict[int, Problems], how: _Rebuild) -> MigrationPlan:
    """Try the entries one at a time, in order: an entry is kept when it raises a new problem."""
    allowed: set[int] = set()
    reasons: dict[int, str] = {}
    for entry in plan.entries:
        trial = _static_plan(model, ann, attr, allowed | {entry.index})
        tried = trial.entries[entry.index]
        if not tried.ok:
            reasons[entry.index] = tried.reason or "it cannot be migrated"
            continue
        assert trial.fix is not None
        found = _first_new(base, _problems_after(model, how, trial.fix.edits), index)
        if found is None:
            allowed.add(entry.index)
        else:
            reasons[entry.index] = f"migrating it would raise {found}"
    final = _static_plan(model, ann, attr, allowed)
    for e in final.entries:
        if e.skipped:
            e.skipped = False
            e.reason = reasons.get(e.index, "it cannot be migrated")
    return final


def plan_migration(model: FileModel, ann: Annotated, attr: Attr, *, harvest: bool = True) -> MigrationPlan:
    """The verified plan for one `axag-constraints` attribute: entries migrate only when the migration raises
    no new finding on the element (checked by rebuilding the model on the edited text)."""
    return _verify(model, [(ann, attr, _static_plan(model, ann, attr, None))], _Rebuild(harvest))[0]


# ---------------------------------------------------------------------------------------------- fix provider
def provide(model: FileModel, problems: list[Problem], *, harvest: bool = True, parse: Parser | None = None
            ) -> list[Problem]:
    """The fix provider of rule 101, run by the engine after the rules: per `axag-constraints` attribute, set
    the count N of its 101 problem (the entries the verified fix migrates, of the M the object holds; 0 when
    the migration cannot be planned) and attach the fix; returns one 101 problem per entry needing manual
    migration (made by rule 101's module). ``harvest`` and ``parse`` say how the engine built ``model`` (the
    verification builds its candidates the same way)."""
    heads: dict[tuple[int, Span], Problem] = {}
    for p in problems:
        if p.code == 101 and p.attribute == V.LEGACY_CONSTRAINTS and "entry" not in p.args:
            heads.setdefault((id(p.element), p.span), p)
    items: list[tuple[Problem, Annotated, Attr, MigrationPlan]] = []
    for ann in model.annotated:
        for attr in ann.legacy:
            head = heads.get((id(ann.element), attr.name_span)) if attr.name == V.LEGACY_CONSTRAINTS else None
            if head is None:
                continue
            plan = _planned(model, ann, attr)  # N stays 0 (as rule 101 judged it) unless a verified fix migrates
            if plan is not None:
                items.append((head, ann, attr, plan))
    if not items:
        return []
    try:
        plans: list[MigrationPlan | None] = list(_verify(model, [(a, t, p) for _, a, t, p in items],
                                                         _Rebuild(harvest, parse)))
    except Exception:  # noqa: BLE001 - as above
        plans = [None] * len(items)
    out: list[Problem] = []
    for (head, ann, _attr, _), plan in zip(items, plans, strict=True):
        if plan is None:
            continue
        head.args["n"] = len(plan.migrated)
        head.args["m"] = plan.total
        head.fix = plan.fix
        out.extend(entry_problems(ann, plan))
    return out


def _planned(model: FileModel, ann: Annotated, attr: Attr) -> MigrationPlan | None:
    """The static plan, or None when planning fails: the migration never breaks the lint (nothing is offered)."""
    try:
        return _static_plan(model, ann, attr, None)
    except Exception:  # noqa: BLE001 - see above
        return None


def entry_problems(ann: Annotated, plan: MigrationPlan) -> list[Problem]:
    """One 101 problem per entry that stays ("manual migration needed" and why, at the entry's key), made by rule
    101's module."""
    from axag.rules.attributes import manual_migration

    return [manual_migration(e.span, ann.element, e.key, e.reason or "it cannot be migrated") for e in plan.entries if not e.ok]


def migration_fix(model: FileModel, ann: Annotated, *, harvest: bool = True) -> Fix | None:
    """The verified migration fix of the element's `axag-constraints` (None when nothing can migrate)."""
    attr = ann.element.first.get(V.LEGACY_CONSTRAINTS)
    if attr is None:
        return None
    return plan_migration(model, ann, attr, harvest=harvest).fix
