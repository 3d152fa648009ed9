"""MODEL: form harvesting (form harvesting, harvesting in template files): scope, controls, names and groups, mapping, labels,
required-ness and `axag-parameter-*` overrides. Rules 029, 032, 113 (long names), 117 (warning), 119, 120.

`harvest_action(model, act, sink)` returns one `Harvested` per parameter group in document order; merging with
declared parameters, coherence and schemas are done by `axag.model.param_spec`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final

from lxml import etree

from axag import vocabulary as V
from axag.model.facts import Kind
from axag.model.harvest_state import HarvestState, LxmlElement
from axag.model.param_spec import Loc, Sink, Spec, SpecCtx
from axag.model.spec_read import read_object
from axag.model.submit import form_owner, is_submit_control
from axag.model.values import ABSENT, Value
from axag.parse.document import Element
from axag.parse.document import attribute as _attr
from axag.parse.document import tag_name as _tag
from axag.values.jsonspan import JsonError
from axag.values.jsonspan import parse as parse_json

if TYPE_CHECKING:
    from axag.model.types import Action, FileModel

__all__ = ["Harvested", "all_scope_controls", "control_category", "document_order", "element_by_id", "exclusion",
           "file_input_name", "harvest_action", "is_unknown", "note_file_inputs", "scope_controls",
           "scope_file_inputs", "scope_of", "submitting_form", "value_of"]

NOT_CONTROLS = frozenset({"submit", "button", "reset", "image", "file"})
INPUT_TYPES = frozenset({
    "text", "search", "password", "tel", "email", "url", "date", "datetime-local", "time", "month", "week",
    "color", "number", "range", "checkbox", "radio", "hidden", *NOT_CONTROLS,
})
CONTROL_ROLES = frozenset({"textbox", "searchbox", "combobox", "switch", "checkbox", "slider", "spinbutton"})

DATETIME_LOCAL = (r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]"
                  r"(:[0-5][0-9](\.[0-9]{1,3})?)?$")
TIME_OF_DAY = r"^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,3})?)?$"
MONTH = r"^[0-9]{4}-(0[1-9]|1[0-2])$"
WEEK = r"^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$"
COLOR = r"^#[0-9A-Fa-f]{6}$"
PATTERNS = {"datetime-local": DATETIME_LOCAL, "time": TIME_OF_DAY, "month": MONTH, "week": WEEK, "color": COLOR}
KINDS = {"date": "date", "datetime-local": "local-datetime", "time": "time-of-day", "month": "month",
         "week": "week"}
NOTES = {
    "email-multiple": "One or more email addresses separated by commas.",
    "datetime-local": "Local date and time without time zone, as YYYY-MM-DDTHH:MM or YYYY-MM-DDTHH:MM:SS.",
    "time": "Time of day as HH:MM or HH:MM:SS.",
    "month": "Month as YYYY-MM.",
    "week": "ISO week as YYYY-Www.",
    "color": "Colour as #rrggbb.",
}
_HTML_NUMBER = re.compile(r"-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_WS = " \t\n\r\f"

# override attribute -> parameter keys and their JSON Schema mapping key (harvesting: required and overrides)
OVERRIDES = {
    "axag-parameter-type": "type",
    "axag-parameter-description": "description",
    "axag-parameter-format": "format",
    "axag-parameter-enum": "enum",
    "axag-parameter-const": "const",
    "axag-parameter-default": "default",
    "axag-parameter-examples": "examples",
    "axag-parameter-min": "min",
    "axag-parameter-max": "max",
    "axag-parameter-exclusive-min": "exclusiveMin",
    "axag-parameter-exclusive-max": "exclusiveMax",
    "axag-parameter-multiple-of": "multipleOf",
    "axag-parameter-min-length": "minLength",
    "axag-parameter-max-length": "maxLength",
    "axag-parameter-min-items": "minItems",
    "axag-parameter-max-items": "maxItems",
    "axag-parameter-unique-items": "uniqueItems",
    "axag-parameter-pattern": "pattern",
    "axag-parameter-items": "items",
}
REQUIRED = "axag-parameter-required"


@dataclass
class Harvested:
    name: str
    spec: Spec
    required: bool
    kind: str
    bounds: dict[str, str] | None
    control: Element
    controls: list[Element] = field(default_factory=list)


@dataclass
class _Control:
    el: LxmlElement
    element: Element
    category: str  # input type (text, email, ...), "select", "textarea", "role:<role>", "other"
    group_kind: str  # radio | checkbox | other
    raw: str = ""
    name: str = ""


# ---------------------------------------------------------------------------------------------- file state
def is_unknown(model: FileModel, text: str) -> bool:
    """Whether ``text`` holds a template construct of the file's kind (its value is known only once rendered)."""
    return _state(model).unknown(text)


def _state(model: FileModel) -> HarvestState:
    st = model.harvest_state
    if st is None:
        st = model.harvest_state = HarvestState(model.pf, model.facts)
    return st


# ---------------------------------------------------------------------------------------------- harvesting: the parameter scope
def element_by_id(model: FileModel, ident: str) -> LxmlElement | None:
    """The first element of the file with id ``ident`` (looked up once per file)."""
    return _state(model).by_id(ident)


def scope_of(model: FileModel, act: Action) -> LxmlElement | None:
    """The parameter scope of an action (harvesting: the parameter scope), or None."""
    st = _state(model)
    key = id(act)
    if key in st.action_scopes:
        return st.action_scopes[key]
    found = _find_scope(model, act, st)
    st.action_scopes[key] = found
    return found


def _find_scope(model: FileModel, act: Action, st: HarvestState) -> LxmlElement | None:
    el = act.element.el
    if el is None:
        return None
    pv = act.v("axag-params-from")
    if pv.declared:
        if not pv.ok:
            return None
        v = str(pv.value)
        if not v.startswith("#") or len(v) < 2:
            return None
        return st.by_id(v[1:])
    if _tag(el) == "form":
        return el
    if is_submit_control(el):
        return form_owner(el, st.by_id)
    return None


def submitting_form(model: FileModel, act: Action, scope: LxmlElement) -> LxmlElement | None:
    """The form that submits the action whose parameter scope is ``scope``: the scope itself, the action
    element's form (its ancestor or its `form=` owner), or the scope's form; None when no form submits it."""
    if _tag(scope) == "form":
        return scope
    el = act.element.el
    for start in (el, scope):
        if start is None:
            continue
        owner = _attr(start, "form")
        if owner is not None and is_submit_control(start):
            target = _state(model).by_id(owner)
            if target is not None and _tag(target) == "form":
                return target
        # lxml filters the ancestors by name in C (libxml2 lower-cases ASCII tag names, so this is `_tag`)
        form = next(start.iterancestors("form"), None)
        if form is not None:
            return form
    return None


def _may_have_templates(model: FileModel) -> bool:
    """False when the file holds no ``<template`` (in any case) at all, so that its tree has no `<template>`
    element (`SourceText.mentions`, once per file)."""
    return model.pf.src.mentions("<template")


def _template_of(model: FileModel, el: LxmlElement) -> LxmlElement | None:
    """The nearest `<template>` holding ``el``; None at once in a file without templates (`_may_have_templates`)."""
    if not _may_have_templates(model):
        return None
    return next(el.iterancestors("template"), None)  # filtered in C; libxml2 lower-cases ASCII tag names


def control_category(model: FileModel, el: LxmlElement) -> str | None:
    """The control category of ``el`` (harvesting: controls and exclusions), or None; found once per element and
    file (a control is asked for when its scope is listed, when it is harvested, bound and labelled)."""
    known = _state(model).categories
    if el in known:
        return known[el]
    found = known[el] = _control_category(el)
    return found


def _control_category(el: LxmlElement) -> str | None:
    """`control_category`, computed."""
    tag = _tag(el)
    if not tag:
        return None
    if tag == "input":
        t = (_attr(el, "type") or "text").strip().lower()
        if t not in INPUT_TYPES:
            t = "text"
        if t not in NOT_CONTROLS:
            return t
    elif tag in ("select", "textarea"):
        return tag
    role = (_attr(el, "role") or "").strip().lower().split()
    if role and role[0] in CONTROL_ROLES:
        return "role:" + role[0]
    if el.get("axag-parameter") is not None:
        return "other" if tag != "input" else "text"
    return None


_FORM_OWNED = etree.XPath("//*[@form=$id]")
_FORM_ATTRIBUTE = re.compile(r"[\s\"'/]form\s*=", re.IGNORECASE)
_FORM_ATTRIBUTE_BYTES = re.compile(rb"form[ \t\r\n\f]*=")


def _mentions_form_attribute(model: FileModel) -> bool:
    """Whether any start tag may carry a `form` attribute (a byte search, cached per file), so that the
    document-wide search for `form="id"` controls runs only in files that use them."""
    st = _state(model)
    if st.form_attr is None:
        src = model.pf.src
        if src.encoding.startswith("utf-16"):
            # a UTF-16 file has NUL bytes between the letters: search the decoded text
            st.form_attr = _FORM_ATTRIBUTE.search(model.pf.text) is not None
        else:
            # ASCII-compatible bytes: a literal-prefixed search on the lower-cased bytes (fast); it may
            # also match "inform=" and the like, which only costs the document-wide lookup
            st.form_attr = _FORM_ATTRIBUTE_BYTES.search(src.lower_data) is not None
    return st.form_attr


def scope_controls(model: FileModel, scope: LxmlElement) -> list[LxmlElement]:
    """Candidate controls of a scope in document order (harvesting: the parameter scope), excluded ones included."""
    st = _state(model)
    key = id(scope)
    cached = st.scopes.get(key)
    if cached is not None and cached[0] is scope:
        return cached[1]
    home = _template_of(model, scope)
    out: list[LxmlElement] = []
    is_form = _tag(scope) == "form"
    form_id = _attr(scope, "id") if is_form else None
    for el in scope.iterdescendants():
        if control_category(model, el) is None:
            continue
        if is_form:
            owner = _attr(el, "form")
            if owner is not None and owner != form_id:
                continue
        if _template_of(model, el) is not home:
            continue
        out.append(el)
    if is_form and form_id and _mentions_form_attribute(model):
        root = model.pf.root
        extra = [el for el in _FORM_OWNED(root, id=form_id)
                 if control_category(model, el) is not None and _template_of(model, el) is home] if root is not None else []
        if extra and root is not None:
            inside = set(out)
            out.extend(el for el in extra if el not in inside)
            out.sort(key=document_order(model))
    st.scopes[key] = (scope, out)
    return out


def _is_file_input(el: LxmlElement) -> bool:
    return _tag(el) == "input" and (_attr(el, "type") or "").strip().lower() == "file"


def scope_file_inputs(model: FileModel, scope: LxmlElement) -> list[LxmlElement]:
    """The file inputs a browser submits with ``scope`` (ownership of the parameter scope in harvesting, as `scope_controls`), in document
    order; disabled ones are left out (a browser does not submit them). An agent cannot supply a file."""
    if not _has_file_inputs(model):
        return []
    home = _template_of(model, scope)
    is_form = _tag(scope) == "form"
    form_id = _attr(scope, "id") if is_form else None
    out = []
    for el in scope.iterdescendants("input"):
        if not _is_file_input(el) or _template_of(model, el) is not home:
            continue
        owner = _attr(el, "form") if is_form else None
        if owner is not None and owner != form_id:
            continue
        out.append(el)
    if is_form and form_id and _mentions_form_attribute(model) and model.pf.root is not None:
        root = model.pf.root
        extra = [el for el in _FORM_OWNED(root, id=form_id)
                 if _is_file_input(el) and _template_of(model, el) is home and el not in out]
        if extra:
            order = {el: i for i, el in enumerate(root.iter())}
            out = sorted([*out, *extra], key=lambda e: order.get(e, 0))
    return [el for el in out if "disabled" not in (exclusion(el, "file") or "")]


def _has_file_inputs(model: FileModel) -> bool:
    """Whether the file has a file input anywhere (answered once per file): without one, no scope has any."""
    found: bool | None = model.memo.get("file_inputs")
    if found is None:  # the file's inputs are listed once per file (`ParsedFile.named`; rule 001 lists them too)
        found = model.memo["file_inputs"] = any(_is_file_input(el) for el in model.pf.named("input"))
    return found


def file_input_name(el: LxmlElement) -> str:
    """How a file input is named to the user: its name, else its id."""
    return _attr(el, "name") or _attr(el, "id") or "(unnamed)"


def note_file_inputs(model: FileModel, act: Action) -> None:
    """Record the file inputs of the action's parameter scope on ``act.file_inputs`` (rule 148 reports them)."""
    scope = scope_of(model, act)
    if scope is not None:
        act.file_inputs = [model.pf.element_of(el) for el in scope_file_inputs(model, scope)]


def document_order(model: FileModel) -> Callable[[LxmlElement], tuple[int, ...]]:
    """A key that orders elements of the file's tree as a walk of the root element does (the child indexes
    from the root: a parent's path is a prefix of its children's). Elements outside the root element (libxml2
    puts what follows a self-closed ``<html/>`` in a second top-level element) come first, in the order given.
    The children of each parent are numbered once per file (`FileModel.memo`), not counted with
    ``parent.index(el)`` at each call: a page of a thousand forms in one ``<body>`` asks for a position per form;
    whether the top-level element a walk up ends at is the root element is asked once per file, too."""
    numbered: dict[LxmlElement, dict[LxmlElement, int]] = model.memo.setdefault("child_numbers", {})
    # top-level element -> whether it is the root element (asked once per top-level element and file)
    tops: dict[LxmlElement, bool] = model.memo.setdefault("top_is_root", {})

    def position(el: LxmlElement) -> tuple[int, ...]:
        path: list[int] = []
        parent = el.getparent()
        while parent is not None:
            children = numbered.get(parent)
            if children is None:
                children = numbered[parent] = {child: i for i, child in enumerate(parent)}
            path.append(children[el])
            el, parent = parent, parent.getparent()
        is_root = tops.get(el)
        if is_root is None:
            is_root = tops[el] = el is el.getroottree().getroot()
        if not is_root:
            return ()
        path.reverse()
        return tuple(path)

    return position


def all_scope_controls(model: FileModel) -> set[LxmlElement]:
    out: set[LxmlElement] = set()
    for act in model.actions:
        scope = scope_of(model, act)
        if scope is not None:
            out.update(scope_controls(model, scope))
    return out


# ---------------------------------------------------------------------------------------------- harvesting: controls and exclusions
def exclusion(el: LxmlElement, category: str) -> str | None:
    """Why a control of ``category`` is not harvested (harvesting: controls and exclusions), or None when it is."""
    tag = _tag(el)
    if tag == "input" and category == "hidden":
        return "hidden inputs are not harvested"
    if el.get("disabled") is not None:
        return "the control is disabled"
    for anc in el.iterancestors("fieldset"):  # filtered in C; libxml2 lower-cases ASCII tag names
        if anc.get("disabled") is not None:
            legend = next((c for c in anc if _tag(c) == "legend"), None)
            if legend is None or not _inside(el, legend):
                return "the control is inside a disabled <fieldset>"
    if tag in ("input", "textarea") and el.get("readonly") is not None:
        return "the control is read-only"
    if (_attr(el, "aria-disabled") or "") == "true":
        return "the control is disabled"
    if (_attr(el, "aria-readonly") or "") == "true":
        return "the control is read-only"
    return None


def _inside(el: LxmlElement, anc: LxmlElement) -> bool:
    """``el`` is ``anc`` or lies within it."""
    return el is anc or any(a is anc for a in el.iterancestors())


# ---------------------------------------------------------------------------------------------- text
def _skip_subtree(model: FileModel, el: LxmlElement) -> bool:
    tag = _tag(el)
    if tag in ("script", "style", "template", "select", "textarea"):
        return True
    return tag != "label" and control_category(model, el) is not None


def text_of(model: FileModel, el: LxmlElement) -> str:
    """Whitespace-collapsed text content without nested controls, one trailing ':' removed (harvesting: labels and descriptions)."""
    parts: list[str] = []
    if el.text:
        parts.append(el.text)
    stack: list[tuple[LxmlElement, bool]] = [(c, False) for c in reversed(list(el))]
    while stack:
        node, done = stack.pop()
        if done:
            if node.tail:
                parts.append(node.tail)
            continue
        stack.append((node, True))
        if not isinstance(node.tag, str) or _skip_subtree(model, node):
            continue
        if node.text:
            parts.append(node.text)
        stack.extend((c, False) for c in reversed(list(node)))
    text = V.collapse_ws("".join(parts))
    if text.endswith(":"):
        text = text[:-1].rstrip(" ")
    return text


def _known_text(model: FileModel, el: LxmlElement) -> str:
    t = text_of(model, el)
    return "" if _state(model).unknown(t) else t


def _ids_text(model: FileModel, value: str | None) -> str:
    if not value:
        return ""
    st = _state(model)
    out: list[str] = []
    for ident in value.split():
        target = st.by_id(ident)
        if target is not None:
            t = _known_text(model, target)
            if t:
                out.append(t)
    return " ".join(out)


def _own_label(model: FileModel, el: LxmlElement) -> str:
    t = _ids_text(model, _attr(el, "aria-labelledby"))
    if t:
        return t
    st = _state(model)
    aria = V.collapse_ws(_attr(el, "aria-label") or "")
    if aria and not st.unknown(aria):
        return aria
    ident = _attr(el, "id")
    if ident:
        for lab in st.labels_for(ident)[:1]:
            t = _known_text(model, lab)
            if t:
                return t
    label = next(el.iterancestors("label"), None)  # filtered in C; libxml2 lower-cases ASCII tag names
    return _known_text(model, label) if label is not None else ""


def _group_label(model: FileModel, el: LxmlElement) -> str | None:
    """Label of the nearest role radiogroup/group ancestor, else the first legend of the nearest fieldset;
    None when there is no such container."""
    for anc in el.iterancestors():
        role = (_attr(anc, "role") or "").strip().lower().split()
        if role and role[0] in ("radiogroup", "group"):
            t = _ids_text(model, _attr(anc, "aria-labelledby"))
            if t:
                return t
            aria = V.collapse_ws(_attr(anc, "aria-label") or "")
            return "" if _state(model).unknown(aria) else aria
    fieldset = next(el.iterancestors("fieldset"), None)  # filtered in C; libxml2 lower-cases ASCII tag names
    if fieldset is None:
        return None
    legend = next((c for c in fieldset if _tag(c) == "legend"), None)
    return _known_text(model, legend) if legend is not None else ""


def compose(parts: list[str]) -> str:
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return parts[0] if parts else ""
    return " ".join(p if p.endswith((".", "!", "?")) else p + "." for p in parts)


# ---------------------------------------------------------------------------------------------- values
def value_of(model: FileModel, el: LxmlElement, name: str) -> tuple[str | None, bool]:
    """(value, unknown) of a non-annotation attribute (harvesting in template files)."""
    st = _state(model)
    if st.vue and (el.get(":" + name) is not None or el.get("v-bind:" + name) is not None):
        return None, True
    v = _attr(el, name)
    if v is None:
        return None, False
    return v, st.unknown(v)


def _in_vfor(model: FileModel, el: LxmlElement) -> bool:
    if not _state(model).vue:
        return False
    if el.get("v-for") is not None:
        return True
    return any(a.get("v-for") is not None for a in el.iterancestors())


def _html_fraction(text: str | None) -> Fraction | None:
    """The exact value of an HTML floating-point number; None when invalid or out of float range."""
    if text is None or not _HTML_NUMBER.fullmatch(text) or len(text) > 400:
        return None
    try:
        d = Decimal(text)
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        return None
    if d and abs(d.adjusted()) > 300:
        return None
    return Fraction(d)


def _to_json_number(fr: Fraction) -> int | float:
    if fr.denominator == 1 and abs(fr) < 2**53:
        return int(fr)
    return float(fr)


def _number_attr(model: FileModel, el: LxmlElement, name: str) -> Fraction | None:
    v, unknown = value_of(model, el, name)
    return None if unknown else _html_fraction(v)


def _count_attr(model: FileModel, el: LxmlElement, name: str) -> int | None:
    v, unknown = value_of(model, el, name)
    if unknown or v is None or not re.fullmatch(r"[0-9]+", v) or len(v) > 15:
        return None
    return int(v)


# ---------------------------------------------------------------------------------------------- harvesting: control-to-schema mapping
SINGLE_LINE: Final = "^[^\\r\\n]*$"  # the pattern of a single-line control's value (no CR, no LF)
@dataclass
class _Mapped:
    keys: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    bounds: dict[str, str] | None = None
    kind: str | None = None
    items: dict[str, Any] | None = None  # for arrays: the items keys


def _text_keys(model: FileModel, c: _Control, sink: Sink, pname: str, keys: dict[str, Any],
               pattern: bool = True) -> None:
    el = c.el
    lo = _count_attr(model, el, "minlength")
    hi = _count_attr(model, el, "maxlength")
    if lo is not None:
        keys["minLength"] = lo
    if hi is not None:
        keys["maxLength"] = hi
    if not pattern:
        return
    p, unknown = value_of(model, el, "pattern")
    if p is None or unknown:
        return
    wrapped = f"^(?:{p})$"
    from axag.values.pattern import check_pattern

    problem = check_pattern(wrapped)
    if problem is not None:
        sink.add(Kind.HARVESTED_BAD_PATTERN, c.element.tag_span, None, parameter=pname, problem=problem)
        return
    keys["pattern"] = wrapped


def _date_bounds(model: FileModel, c: _Control, category: str) -> dict[str, str] | None:
    out: dict[str, str] = {}
    for attr, key in (("min", "formatMinimum"), ("max", "formatMaximum")):
        v, unknown = value_of(model, c.el, attr)
        if v is None or unknown:
            continue
        from axag.values.pyruntime import check_format, ecma_search

        # ECMA-262 reading, as the guards: "$" is the end of the value (not before a final newline)
        ok = check_format("date", v) if category == "date" else ecma_search(PATTERNS[category], v)
        if ok:
            out[key] = v
    return out or None


def _numeric(model: FileModel, c: _Control, slider: bool) -> dict[str, Any]:
    el = c.el
    keys: dict[str, Any] = {}
    step_text, unknown = value_of(model, el, "step")
    step: Fraction | None = None
    any_step = False
    if step_text is not None and not unknown:
        if step_text.strip(_WS).lower() == "any":
            any_step = True
        else:
            fr = _html_fraction(step_text)
            if fr is not None and fr > 0:
                step = fr
    integer = not any_step and (step is None or step.denominator == 1)
    keys["type"] = "integer" if integer else "number"
    lo = _number_attr(model, el, "min")
    if lo is None:
        lo = _number_attr(model, el, "aria-valuemin")
    hi = _number_attr(model, el, "max")
    if hi is None:
        hi = _number_attr(model, el, "aria-valuemax")
    if slider:
        lo = Fraction(0) if lo is None else lo
        hi = Fraction(100) if hi is None else hi
    if lo is not None:
        keys["min"] = _to_json_number(lo)
    if hi is not None:
        keys["max"] = _to_json_number(hi)
    if step is not None and step != 1 and (lo is None or (lo / step).denominator == 1):
        keys["multipleOf"] = _to_json_number(step)
    return keys


def _single_line(keys: dict[str, Any]) -> dict[str, Any]:
    """A single-line control's value never holds CR or LF (browsers strip them from `<input>` values, and a
    newline would inject fields into a `text/plain` submission): the pattern says so."""
    html = keys.get("pattern")
    keys["pattern"] = SINGLE_LINE if html is None else "^(?=[^\\r\\n]*$)" + str(html)[1:]
    return keys


def _map_single(model: FileModel, c: _Control, sink: Sink, pname: str, required: bool) -> _Mapped:
    cat = c.category
    el = c.el
    if cat in ("textarea",) or cat in ("text", "search", "password", "tel"):
        keys: dict[str, Any] = {"type": "string"}
        _text_keys(model, c, sink, pname, keys)
        return _Mapped(keys if cat == "textarea" else _single_line(keys))
    if cat == "email":
        keys = {"type": "string"}
        if el.get("multiple") is not None:
            _text_keys(model, c, sink, pname, keys, pattern=False)
            return _Mapped(_single_line(keys), [NOTES["email-multiple"]])
        keys["format"] = "email"
        _text_keys(model, c, sink, pname, keys)
        return _Mapped(_single_line(keys))
    if cat == "url":
        keys = {"type": "string", "format": "uri"}
        _text_keys(model, c, sink, pname, keys)
        return _Mapped(_single_line(keys))
    if cat == "date":
        return _Mapped({"type": "string", "format": "date"}, bounds=_date_bounds(model, c, cat), kind="date")
    if cat in ("datetime-local", "time", "month", "week"):
        return _Mapped({"type": "string", "pattern": PATTERNS[cat]}, [NOTES[cat]],
                       _date_bounds(model, c, cat), KINDS[cat])
    if cat == "color":
        return _Mapped({"type": "string", "pattern": COLOR}, [NOTES["color"]])
    if cat in ("number", "role:spinbutton"):
        return _Mapped(_numeric(model, c, slider=False))
    if cat in ("range", "role:slider"):
        return _Mapped(_numeric(model, c, slider=True))
    if cat in ("checkbox", "role:switch", "role:checkbox"):
        keys = {"type": "boolean"}
        if required:
            keys["const"] = True
        return _Mapped(keys)
    if cat == "select":
        values = _options(model, el)
        multiple = el.get("multiple") is not None
        item: dict[str, Any] = {"type": "string"}
        if values:
            item["enum"] = values
        if multiple:
            keys = {"type": "array", "uniqueItems": True}
            if required:
                keys["minItems"] = 1
            return _Mapped(keys, items=item)
        return _Mapped(item)
    return _Mapped({"type": "string"})


def _options(model: FileModel, sel: LxmlElement) -> list[str] | None:
    """Option values of a select (harvesting: control-to-schema mapping); None when one is unknown (harvesting in template files)."""
    out: list[str] = []
    seen: set[str] = set()  # a set beside the list: `v not in out` made 4k options take seconds
    for opt in sel.iter("option"):
        if opt.get("disabled") is not None:
            continue
        parent = opt.getparent()
        if parent is not None and _tag(parent) == "optgroup" and parent.get("disabled") is not None:
            continue
        if _in_vfor(model, opt):
            return None
        v, unknown = value_of(model, opt, "value")
        if unknown:
            return None
        if v is None:
            v = V.collapse_ws("".join(opt.itertext()))
            if _state(model).unknown(v):
                return None
        if v and v not in seen:
            seen.add(v)
            out.append(v)
    return out


def _choice_values(model: FileModel, controls: list[_Control]) -> list[str] | None:
    out: dict[str, None] = {}  # insertion-ordered set of the values
    for c in controls:
        if _in_vfor(model, c.el):
            return None
        v, unknown = value_of(model, c.el, "value")
        if unknown:
            return None
        out.setdefault("on" if v is None else v)
    return list(out)


# ---------------------------------------------------------------------------------------------- main
def _ann_value(model: FileModel, el: LxmlElement, name: str) -> Value:
    ann = model.annotated_of(el)
    return ann.v(name) if ann is not None else ABSENT


def _control_attrs(element: Element) -> list[Any]:
    return [a for a in element.attrs if a.name in V.CONTROL_ATTRIBUTES and not element.is_repeat(a)]


def harvest_action(model: FileModel, act: Action, sink: Sink) -> list[Harvested]:
    scope = scope_of(model, act)
    if scope is None:
        return []
    pf = model.pf
    intent = act.intent or ""
    controls: list[_Control] = []
    for el in scope_controls(model, scope):
        category = control_category(model, el)
        assert category is not None
        element = pf.element_of(el)
        why = exclusion(el, category)
        if why is not None:
            for attr in _control_attrs(element):
                sink.add(Kind.UNUSED_CONTROL_ATTRIBUTE, attr.name_span, attr.name, attr=attr.name, reason=why)
            _note_unharvested(model, act, el, element, why)
            continue
        group_kind = category if category in ("radio", "checkbox") else "other"
        c = _Control(el, element, category, group_kind)
        pv = _ann_value(model, el, "axag-parameter")
        name_attr, name_unknown = value_of(model, el, "name")
        id_attr = _attr(el, "id")
        if pv.ok:
            c.raw = c.name = str(pv.value)
        elif name_attr is not None and not name_unknown and V.snake_case(name_attr):
            c.raw, c.name = name_attr, V.snake_case(name_attr)
        elif name_unknown:
            continue  # a name produced by the template: not knowable
        elif id_attr and V.snake_case(id_attr):
            c.raw, c.name = id_attr, V.snake_case(id_attr)
            sink.add(Kind.CONTROL_NAMED_BY_ID, element.tag_span, None, control=element.tag)
        else:
            sink.add(Kind.CONTROL_WITHOUT_NAME, element.tag_span, None, control=element.tag, intent=intent)
            continue
        if len(c.name) > 64:
            sink.add(Kind.BAD_CONTROL_PARAMETER_NAME, element.tag_span, None, parameter_name=c.name, control=element.tag,
                     problem="is longer than 64 characters")
            continue
        if _state(model).has_control_errors(element):
            sink.errors += 1
        controls.append(c)
    groups: dict[str, list[_Control]] = {}
    for c in controls:
        groups.setdefault(c.name, []).append(c)
    out: list[Harvested] = []
    for name, members in groups.items():
        first = members[0]
        kept = [first]
        for c in members[1:]:
            if c.raw != first.raw or c.group_kind != first.group_kind:
                line = pf.lines.position(first.element.tag_span.start)[0]
                sink.add(Kind.CONTROL_NAME_CONFLICT, c.element.tag_span, None, control=c.element.tag, parameter=name, other_control=first.element.tag, other_line=line)
                continue
            kept.append(c)
        out.append(_harvest_group(model, act, sink, name, kept))
    return out


def _note_unharvested(model: FileModel, act: Action, el: LxmlElement, element: Any, why: str) -> None:
    """Remember the parameter name an excluded control would have had, and why it has none (for 129)."""
    pv = _ann_value(model, el, "axag-parameter")
    name_attr, _unknown = value_of(model, el, "name")
    raw = str(pv.value) if pv.ok else name_attr or _attr(el, "id") or ""
    name = raw if pv.ok else V.snake_case(raw) if raw else None
    if not name or name in act.unharvested:
        return
    line = model.pf.lines.position(element.tag_span.start)[0]
    shown = f'<{element.tag} name="{name_attr}">' if name_attr else f"<{element.tag}>"
    act.unharvested[name] = f"{shown} at line {line} is not harvested as a parameter: {why}"


def _harvest_group(model: FileModel, act: Action, sink: Sink, name: str, group: list[_Control]) -> Harvested:
    first = group[0]
    span = first.element.tag_span
    # required (harvesting: required and overrides)
    required: bool | None = None
    for c in group:
        rv = _ann_value(model, c.el, "axag-parameter-required")
        if rv.ok:
            required = bool(rv.value)
            break
    if required is None:
        required = any(
            (c.el.get("required") is not None and c.category not in ("range", "color"))
            or (_attr(c.el, "aria-required") or "") == "true"
            for c in group
        )
    # mapping (harvesting: control-to-schema mapping)
    label: str
    kind = first.group_kind
    if kind == "radio":
        values = _choice_values(model, group)
        keys: dict[str, Any] = {"type": "string"}
        if values:
            keys["enum"] = values
        mapped = _Mapped(keys)
        label = _group_label(model, first.el) or ""
    elif kind == "checkbox" and (len(group) > 1 or _choice_values(model, group) is None):
        values = _choice_values(model, group)
        item: dict[str, Any] = {"type": "string"}
        if values:
            item["enum"] = values
        keys = {"type": "array", "uniqueItems": True}
        if required:
            keys["minItems"] = 1
        mapped = _Mapped(keys, items=item)
        label = _group_label(model, first.el) or ""
    elif len(group) > 1:
        single = _map_single(model, first, sink, name, required=False)
        item = dict(single.keys)
        keys = {"type": "array"}
        if required:
            keys["minItems"] = 1
        mapped = _Mapped(keys, single.notes, None, None, items=item if single.items is None else None)
        if single.items is not None:  # repeated <select multiple>: arrays of arrays
            mapped.items = dict(single.keys)
        label = _own_label(model, first.el)
    else:
        mapped = _map_single(model, first, sink, name, required)
        label = _own_label(model, first.el)
    described = _ids_text(model, _attr(first.el, "aria-describedby"))
    bound_parts: list[str] = []
    if mapped.bounds:
        if "formatMinimum" in mapped.bounds:
            bound_parts.append(f"Earliest: {mapped.bounds['formatMinimum']}.")
        if "formatMaximum" in mapped.bounds:
            bound_parts.append(f"Latest: {mapped.bounds['formatMaximum']}.")
    description = compose([label, described, *mapped.notes, *bound_parts])
    ctl_loc = Loc(fixed=span)
    spec = Spec(ctl_loc)
    keys = dict(mapped.keys)
    if description:
        keys = {"type": keys["type"], "description": description,
                **{k: v for k, v in keys.items() if k != "type"}}
    for k, v in keys.items():
        spec.keys[k] = v
        spec.locs[k] = ctl_loc
    if mapped.items is not None:
        sub = Spec(ctl_loc, depth=1)
        for k, v in mapped.items.items():
            sub.keys[k] = v
            sub.locs[k] = ctl_loc
        spec.keys["items"] = sub
        spec.locs["items"] = ctl_loc
    harvested_kind = mapped.kind
    bounds = mapped.bounds
    # overrides (harvesting: required and overrides)
    carrier = next((c for c in group if c.element.attrs and any(a.name in OVERRIDES or a.name == REQUIRED
                                                                for a in _control_attrs(c.element))), None)
    if carrier is not None:
        spec, harvested_kind, bounds = _apply_overrides(model, sink, name, carrier, spec, harvested_kind, bounds)
        # the deciding control per attribute: the carrier, except for axag-parameter-required (the first that has it)
        deciders: dict[str, _Control] = {n: carrier for n in OVERRIDES}
        deciders[REQUIRED] = next((c for c in group if REQUIRED in c.element.first), carrier)
        for c in group:
            for a in _control_attrs(c.element):
                decider = deciders.get(a.name)
                if decider is None or decider is c:
                    continue
                ref = decider.element.first.get(a.name)
                if ref is None or ref.value != a.value:
                    line = model.pf.lines.position(decider.element.tag_span.start)[0]
                    sink.add(Kind.UNUSED_CONTROL_ATTRIBUTE, a.name_span, a.name, attr=a.name,
                             reason=f"it differs from the override on <{decider.element.tag}> at line {line};"
                                    " the first control with overrides decides")
    if "description" not in spec.keys:
        sink.add(Kind.HARVESTED_WITHOUT_DESCRIPTION, span, None, parameter=name)
    return Harvested(name, spec, required, harvested_kind or spec.type, bounds, first.element,
                     [c.element for c in group])


def _apply_overrides(model: FileModel, sink: Sink, name: str, carrier: _Control, spec: Spec,
                     harvested_kind: str | None, bounds: dict[str, str] | None
                     ) -> tuple[Spec, str | None, dict[str, str] | None]:
    ann = model.annotated_of(carrier.el)
    if ann is None:  # pragma: no cover - carriers are annotated
        return spec, harvested_kind, bounds
    tv = ann.v("axag-parameter-type")
    if tv.ok and tv.value != spec.type:
        # a different type: derived keys that describe the old type no longer apply
        kept = Spec(spec.loc, depth=spec.depth)
        kept.keys["type"] = tv.value
        kept.locs["type"] = _attr_loc(tv)
        if "description" in spec.keys:
            kept.keys["description"] = spec.keys["description"]
            kept.locs["description"] = spec.locs["description"]
        spec = kept
        harvested_kind, bounds = None, None
    elif tv.ok:
        spec.locs["type"] = _attr_loc(tv)
    if tv.ok:
        spec.explicit_type = True
    for attr_name, key in OVERRIDES.items():
        if key == "type":
            continue
        val = ann.v(attr_name)
        if not val.ok:
            continue
        loc = _attr_loc(val)
        value: Any = val.value
        if key in ("const", "default"):
            if spec.type == "string":
                value = val.raw
            else:
                try:
                    doc = parse_json(val.raw)
                except JsonError as exc:
                    assert val.attr is not None
                    sink.add(Kind.JSON_SYNTAX, val.value_span(), attr_name, element=carrier.element, attr=attr_name,
                             detail=exc.message)
                    continue
                value = doc.value
        elif key == "items":
            value = read_object(value, Loc(val, ()), SpecCtx(sink, name, attr_name), 1, fragment=True)
        elif key in ("format", "pattern") and harvested_kind in ("local-datetime", "time-of-day", "month",
                                                                "week"):
            harvested_kind = None
        spec.keys[key] = value
        spec.locs[key] = loc
    dv = ann.v("axag-parameter-description")
    if dv.ok:
        spec.keys["description"] = dv.value
    return spec, harvested_kind, bounds


def _attr_loc(val: Value) -> Loc:
    name = val.attr.name if val.attr is not None else None
    if val.doc is not None:
        return Loc(val, (), fixed_key=val.name_span(), attribute=name)
    return Loc(fixed=val.value_span(), fixed_key=val.name_span(), attribute=name)
