"""Identity rules: 001 (missing intent, with §12.2 interactivity and coverage), 002 (missing entity),
003 (missing action type), 031 (missing accessible name).

001 — fails: ``<button onclick="save()">Save</button>``; passes: the same with ``axag-intent`` and friends.
002 — fails: ``<button axag-intent="cart.add_item" …>``; passes: with ``axag-entity="cart"`` (rule off by default).
003 — fails: ``<button axag-intent="cart.add_item">Add</button>``; passes: with ``axag-action-type="write"``.
031 — fails: ``<button axag-intent="cart.clear" axag-action-type="delete"></button>``; passes: with text or
``aria-label``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from axag import vocabulary as V
from axag.model.actions import Action, Annotated
from axag.model.harvest import element_by_id, scope_of
from axag.model.submit import form_owner, is_submit_control
from axag.parse.document import attribute as _attr
from axag.parse.document import tag_name as _tag
from axag.rules.base import RuleCtx, rule

_CLICK_ATTRS = ("onclick", "@click", "v-on:click", "x-on:click", "(click)")
_CLICK_MODIFIED = ("@click.", "v-on:click.", "x-on:click.")
_HX_ATTRS = ("hx-post", "hx-put", "hx-patch", "hx-delete")
_TOGGLE_ATTRS = ("aria-expanded", "aria-pressed", "aria-haspopup", "popovertarget")
_ACTION_ATTRS = frozenset(V.ACTION_ATTRIBUTES)


def _input_type(el: Any) -> str:
    return (_attr(el, "type") or "text").strip().lower()


def _is_dialog_form(form: Any) -> bool:
    return (_attr(form, "method") or "").strip().lower() == "dialog"


# the attributes whose mere presence makes an element interactive (§12.2), looked up in one set operation
_LISTENER_ATTRS = frozenset(_CLICK_ATTRS + _HX_ATTRS)


def is_interactive(el: Any, by_id: Callable[[str], Any]) -> bool:
    """§12.2: whether ``el`` is an interactive element (click listeners with modifiers count as listeners);
    ``by_id`` finds the form a `form` attribute names."""
    names = el.keys()  # the attribute names, read once (each `el.get` is a lookup in C)
    if "disabled" in names:
        return False
    tag = _tag(el)
    if tag == "button":
        if (_attr(el, "type") or "").strip().lower() == "reset":
            return False
        if any(el.get(a) is not None for a in _TOGGLE_ATTRS):
            pass
        else:
            form = form_owner(el, by_id)
            if form is None or not _is_dialog_form(form):
                return True
    elif tag == "input":
        if _input_type(el) in ("submit", "image", "button"):
            return True
    elif tag == "form":
        if not _is_dialog_form(el):
            return True
    elif tag == "a":
        href = _attr(el, "href")
        if href is not None and href.strip().lower().startswith("javascript:"):
            return True
    if not _LISTENER_ATTRS.isdisjoint(names):
        return True
    if any(str(name).startswith(_CLICK_MODIFIED) for name in names):
        return True  # a click listener with modifiers: @click.prevent, v-on:click.stop, x-on:click.outside
    if "role" not in names:
        return False
    role = _attr(el, "role")
    if role is None or role.strip().lower() != "button":
        return False
    # a role="button" element that is a UI-state toggle is treated like a toggle <button> (decision: the
    # §12.2 toggle exclusion applies to button-role elements as well)
    return not any(el.get(a) is not None for a in _TOGGLE_ATTRS)


def _candidates(ctx: RuleCtx) -> Iterator[Any]:
    """Elements that may be interactive (§12.2), found without walking the tree in Python: the
    interactive tags (iterated in C) plus the elements the parser found with an interactive attribute
    (click listeners, htmx verbs, role=button)."""
    pf = ctx.model.pf
    if pf.root is None:
        return
    found: list[Any] = [*pf.named("button"), *pf.named("input"), *pf.named("form"), *pf.named("a")]
    found.extend(ctx.model.pf.interactive)
    found.extend(a.element.el for a in ctx.model.annotated if a.element.el is not None)
    # order does not matter: findings are sorted by position afterwards
    for el in dict.fromkeys(found):
        if isinstance(el.tag, str):
            yield el


def _scope_elements(ctx: RuleCtx) -> set[Any]:
    """lxml elements that are the parameter scope of some action (§5.1)."""
    scopes = (scope_of(ctx.model, act) for act in ctx.model.actions)
    return {scope for scope in scopes if scope is not None}


def _has_action_attrs(ann: Annotated) -> bool:
    return any(n in _ACTION_ATTRS for n in ann.values)


@rule(1, "file")
def missing_intent(ctx: RuleCtx) -> None:
    """Interactive, uncovered element without intent/macro; or an element with action attributes but no
    intent/macro (§12.2, §12.3)."""
    model = ctx.model
    reported: set[int] = set()
    for ann in model.annotated:
        if ann.action is None and ann.macro_attr is None and _has_action_attrs(ann):
            ctx.report(1, ann.element.tag_span, ann.element, index=1, tag=ann.element.tag)
            reported.add(id(ann.element))
    scopes: set[Any] | None = None
    action_starts = {a.element.start for a in model.annotated
                     if (a.action is not None or a.macro_attr is not None) and a.element.el is None}
    def by_id(ident: str) -> Any:
        return element_by_id(model, ident)

    for el in _candidates(ctx):
        if not is_interactive(el, by_id):
            continue
        owner = model.annotated_of(el)
        if owner is not None and (owner.action is not None or owner.macro_attr is not None):
            continue
        if is_submit_control(el):
            form = form_owner(el, by_id)
            if form is not None and not _is_dialog_form(form):
                # covered by its form (an action or a parameter scope), or its form gets the 001 (§12.6)
                continue
        if _tag(el) == "form":
            if scopes is None:
                scopes = _scope_elements(ctx)
            if el in scopes:
                continue
        element = model.pf.element_of(el)
        if id(element) in reported or element.start in action_starts:
            continue  # reported already, or an action whose start tag lxml did not match (§14.2)
        reported.add(id(element))
        ctx.report(1, element.tag_span, element, tag=element.tag)


@rule(2, "action")
def missing_entity(ctx: RuleCtx, act: Action) -> None:
    """Longhand action (declared ``axag-intent``) without ``axag-entity``."""
    if act.intent is None or act.intent_value.from_macro or not act.intent_value.declared:
        return
    if act.v("axag-entity").declared:
        return
    ctx.report(2, act.element.tag_span, act.element, intent=act.intent, entity=act.derived_entity)


def _intent_text(act: Action) -> str:
    if act.intent is not None:
        return act.intent
    return act.intent_value.raw if act.intent_value.declared else ""


@rule(3, "action")
def missing_action_type(ctx: RuleCtx, act: Action) -> None:
    """Action without ``axag-action-type`` (a macro that stopped already reported 027)."""
    if act.v("axag-action-type").declared:
        return
    if act.ann.macro is not None and act.ann.macro.stopped:
        return
    ctx.report(3, act.element.tag_span, act.element, intent=_intent_text(act))


# ---------------------------------------------------------------- 031 accessible name
_NAMED_ROLES = ("button", "link", "menuitem", "tab", "switch", "checkbox")


def _text(el: Any) -> str:
    return " ".join("".join(str(t) for t in el.itertext()).split())


def needs_name(el: Any) -> bool:
    tag = _tag(el)
    if tag in ("button", "a"):
        return True
    if tag == "input" and _input_type(el) in ("submit", "button", "image"):
        return True
    role = (_attr(el, "role") or "").strip().lower()
    return role in _NAMED_ROLES


def _labelled_ids(labels: Any) -> dict[str, bool]:
    """id -> whether some ``<label for=id>`` of the document has text (``labels``: its labels)."""
    out: dict[str, bool] = {}
    for lab in labels:
        target = _attr(lab, "for")
        if target is not None:
            out[target] = out.get(target, False) or bool(_text(lab))
    return out


def has_accessible_name(el: Any, labels: dict[str, bool] | None = None) -> bool:
    """Whether any source of the §12.3 order gives a non-empty name: ``aria-labelledby`` text,
    ``aria-label``, ``<label for>``, wrapping label, input ``value``/``alt``, text content, descendant
    ``img[alt]``, ``title``. Only existence matters here, so the cheap sources are tried first. ``labels`` is
    the `_labelled_ids` map of the document when the caller keeps one."""
    if (_attr(el, "aria-label") or "").strip() or (_attr(el, "title") or "").strip():
        return True
    if _tag(el) == "input" and any((_attr(el, a) or "").strip() for a in ("value", "alt")):
        return True
    if _text(el):
        return True
    if any((_attr(img, "alt") or "").strip() for img in el.iter("img")):
        return True
    for anc in el.iterancestors():
        if _tag(anc) == "label":
            if _text(anc):
                return True
            break
    root = el.getroottree().getroot()
    own_id = _attr(el, "id")
    if own_id and (labels if labels is not None else _labelled_ids(root.iter("label"))).get(own_id, False):
        return True
    for ident in (_attr(el, "aria-labelledby") or "").split():
        found = root.xpath("//*[@id=$id]", id=ident)
        if found and _text(found[0]):
            return True
    return False


@rule(31, "action")
def missing_accessible_name(ctx: RuleCtx, act: Action) -> None:
    """Button, link, submit/button/image input or element with a widget role, without accessible name."""
    el = act.element.el
    if el is None or not needs_name(el):
        return
    # the <label for> map is built once per file and kept on the context (released with it)
    state = vars(ctx)
    if "_axag_labels" not in state:
        state["_axag_labels"] = _labelled_ids(ctx.model.pf.named("label"))
    if has_accessible_name(el, state["_axag_labels"]):
        return
    ctx.report(31, act.element.tag_span, act.element, tag=act.element.tag, intent=_intent_text(act))
