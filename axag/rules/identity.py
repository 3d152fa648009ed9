"""Identity rules: 001 (missing intent, with element selection and interactivity and coverage), 002 (missing entity),
003 (missing action type), 031 (missing accessible name); and, from the
facts the model records, 034, 035 (intent and entity syntax), 123 (tool name), 139 (entity prefix).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from axag import vocabulary as V
from axag.model.facts import Kind
from axag.outcome.findings import Level, Severity
from axag.rules.base import RuleCtx
from axag.rules.declare import Rule
from axag.rules.facts import judge

if TYPE_CHECKING:
    from axag.model.types import Action, Annotated

_CLICK_ATTRS = ("onclick", "@click", "v-on:click", "x-on:click", "(click)")
_CLICK_MODIFIED = ("@click.", "v-on:click.", "x-on:click.")
_HX_ATTRS = ("hx-post", "hx-put", "hx-patch", "hx-delete")
_TOGGLE_ATTRS = ("aria-expanded", "aria-pressed", "aria-haspopup", "popovertarget")
_ACTION_ATTRS = frozenset(V.ACTION_ATTRIBUTES)


# `axag.parse.document.tag_name` and `attribute`, without importing the parser where the rules are declared
def _tag(el: Any) -> str:
    return el.tag.lower() if isinstance(el.tag, str) else ""


def _attr(el: Any, name: str) -> str | None:
    v = el.get(name)
    return None if v is None else str(v)


def _input_type(el: Any) -> str:
    return (_attr(el, "type") or "text").strip().lower()


def _is_dialog_form(form: Any) -> bool:
    return (_attr(form, "method") or "").strip().lower() == "dialog"


# the attributes whose mere presence makes an element interactive (element selection and interactivity), looked up in one set operation
_LISTENER_ATTRS = frozenset(_CLICK_ATTRS + _HX_ATTRS)


def is_interactive(el: Any, owner_of: Callable[[Any], Any]) -> bool:
    """element selection and interactivity: whether ``el`` is an interactive element (click listeners with modifiers count as listeners);
    ``owner_of`` gives the form a button belongs to (`axag.model.submit.form_owner`)."""
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
            form = owner_of(el)
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
    # element selection and interactivity toggle exclusion applies to button-role elements as well)
    return not any(el.get(a) is not None for a in _TOGGLE_ATTRS)


def _candidates(ctx: RuleCtx) -> Iterator[Any]:
    """Elements that may be interactive (element selection and interactivity), found without walking the tree in Python: the
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
    """lxml elements that are the parameter scope of some action (harvesting: the parameter scope)."""
    from axag.model.harvest import scope_of

    scopes = (scope_of(ctx.model, act) for act in ctx.model.actions)
    return {scope for scope in scopes if scope is not None}


def _has_action_attrs(ann: Annotated) -> bool:
    return any(n in _ACTION_ATTRS for n in ann.values)


MISSING_INTENT = Rule(
    code=1,
    name="missing-intent",
    severity=Severity.ERROR,
    level=Level.BASIC,
    trigger=("interactive, uncovered element without intent/macro; or any element with action attributes "
             "but no intent/macro"),
    messages={
        "default": "Interactive <{tag}> has no axag-intent, so agents cannot see this action",
        "attributes_only": "<{tag}> has axag-* attributes but no axag-intent",
    },
    fails=(
        '<form action="/search">\n'
        '  <input name="q">\n'
        "  <button>Search</button>\n"
        "</form>\n"
        '<form action="/x"><input name="a"><input type="submit" value="Go"></form>\n'
        '<div onclick="open()">Open</div>\n'
        '<button type="button">Toggle nothing</button>\n'
        '<a href="javascript:void(0)">Run</a>\n'
        '<span role="button">Press</span>\n'
        '<div hx-post="/save">Save</div>\n'
        '<input type="button" value="Go">\n'
        '<section axag-risk-level="high">No intent</section>\n'
        "…"
    ),
    passes=(
        '<form axag-intent="search.run" axag-action-type="read">\n'
        '  <input name="q">\n'
        "  <button>Search</button>\n"
        "</form>\n"
        '<form id="f1"><input name="a"><button axag-intent="item.save" axag-action-type="write" axag-risk-level="low">Save</button></form>\n'
        '<div id="panel"><input name="x"></div>\n'
        '<form id="f2"><input name="x"></form>\n'
        '<button type="button" axag-intent="item.load" axag-action-type="read" axag-params-from="#f2">Load</button>\n'
        '<button type="reset">Reset</button>\n'
        '<button type="button" aria-expanded="false">Menu</button>\n'
        "<button disabled>Later</button>\n"
        '<form method="dialog"><button>Close</button></form>\n'
        "…"
    ),
)


@MISSING_INTENT.check("file")
def missing_intent(ctx: RuleCtx) -> None:
    """Interactive, uncovered element without intent/macro; or an element with action attributes but no
    intent/macro (element selection and interactivity, the reference rules)."""
    model = ctx.model
    reported: set[int] = set()
    for ann in model.annotated:
        if ann.action is None and ann.macro_attr is None and _has_action_attrs(ann):
            MISSING_INTENT.report(ctx, ann.element.tag_span, ann.element, msg="attributes_only",
                                  tag=ann.element.tag)
            reported.add(id(ann.element))
    scopes: set[Any] | None = None
    action_starts = {a.element.start for a in model.annotated
                     if (a.action is not None or a.macro_attr is not None) and a.element.el is None}
    from axag.model.harvest import element_by_id
    from axag.model.submit import form_owner, is_submit_control

    owners: dict[Any, Any] = {}  # a submit button's form is asked for twice (interactive? covered?): found once

    def owner_of(el: Any) -> Any:
        if el in owners:
            return owners[el]
        found = owners[el] = form_owner(el, lambda ident: element_by_id(model, ident))
        return found

    for el in _candidates(ctx):
        owner = model.annotated_of(el)
        if owner is not None and (owner.action is not None or owner.macro_attr is not None):
            continue  # an action (or a macro) covers itself, interactive or not
        if not is_interactive(el, owner_of):
            continue
        if is_submit_control(el):
            form = owner_of(el)
            if form is not None and not _is_dialog_form(form):
                # covered by its form (an action or a parameter scope), or its form gets the 001 (one finding per problem)
                continue
        if _tag(el) == "form":
            if scopes is None:
                scopes = _scope_elements(ctx)
            if el in scopes:
                continue
        element = model.pf.element_of(el)
        if id(element) in reported or element.start in action_starts:
            continue  # reported already, or an action whose start tag lxml did not match (parsing: which start tags are elements)
        reported.add(id(element))
        MISSING_INTENT.report(ctx, element.tag_span, element, tag=element.tag)


MISSING_ENTITY = Rule(
    code=2,
    name="missing-entity",
    severity=Severity.WARNING,
    level=Level.BASIC,
    off=True,
    trigger="longhand action without `axag-entity`",
    messages={
        "default": '"{intent}" does not declare axag-entity (derived: "{entity}")',
    },
    fails=(
        '<button axag-intent="cart.add_item" axag-action-type="write">Add</button>\n'
        '<a href="/o" axag-intent="order.view" axag-action-type="navigate">Order</a>'
    ),
    passes=(
        '<button axag-intent="cart.add_item" axag-entity="cart" axag-action-type="write" axag-risk-level="low">Add</button>\n'
        '<button axag="write:cart.clear!low">Clear</button>'
    ),
)


@MISSING_ENTITY.check()
def missing_entity(ctx: RuleCtx, act: Action) -> None:
    """Longhand action (declared ``axag-intent``) without ``axag-entity``."""
    if act.intent is None or act.intent_value.from_macro or not act.intent_value.declared:
        return
    if act.v("axag-entity").declared:
        return
    MISSING_ENTITY.report(ctx, act.element.tag_span, act.element, intent=act.intent,
                          entity=act.derived_entity)


def _intent_text(act: Action) -> str:
    if act.intent is not None:
        return act.intent
    return act.intent_value.raw if act.intent_value.declared else ""


MISSING_ACTION_TYPE = Rule(
    code=3,
    name="missing-action-type",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="action without `axag-action-type`",
    messages={
        "default": 'Action "{intent}" has no axag-action-type; no default is applied',
    },
    fails=(
        '<button axag-intent="cart.view">View</button>\n'
        "<div>\n"
        '  <form axag-intent="search.run" axag-risk-level="none"><input name="q"></form>\n'
        "</div>"
    ),
    passes=(
        '<button axag-intent="cart.view" axag-action-type="read">View</button>\n'
        '<button axag="read:cart.list">List</button>'
    ),
)


@MISSING_ACTION_TYPE.check()
def missing_action_type(ctx: RuleCtx, act: Action) -> None:
    """Action without ``axag-action-type`` (a macro that stopped already reported 027)."""
    if act.v("axag-action-type").declared:
        return
    if act.ann.macro is not None and act.ann.macro.stopped:
        return
    MISSING_ACTION_TYPE.report(ctx, act.element.tag_span, act.element, intent=_intent_text(act))


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
    """Whether any source of the reference rules order gives a non-empty name: ``aria-labelledby`` text,
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


MISSING_ACCESSIBLE_NAME = Rule(
    code=31,
    name="missing-accessible-name",
    severity=Severity.ERROR,
    level=Level.INTERMEDIATE,
    trigger=("action that is a button, link, submit/button/image input, or has role "
             "button/link/menuitem/tab/switch/checkbox, without accessible name"),
    messages={
        "default": '<{tag}> for "{intent}" has no accessible name; add text, aria-label or aria-labelledby',
    },
    fails=(
        '<button axag-intent="cart.clear" axag-action-type="delete"></button>\n'
        '<a href="/x" axag-intent="cart.open" axag-action-type="navigate"><img src="i.png"></a>\n'
        '<input type="submit" axag-intent="cart.pay" axag-action-type="write">\n'
        '<div role="switch" axag-intent="cart.toggle" axag-action-type="write"> </div>\n'
        '<button axag-intent="cart.ref" axag-action-type="read" aria-labelledby="missing"></button>'
    ),
    passes=(
        '<button axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="low">Clear</button>\n'
        '<button axag-intent="cart.close" axag-action-type="write" axag-risk-level="low" aria-label="Close"></button>\n'
        '<span id="lbl">Refresh</span>\n'
        '<button axag-intent="cart.ref" axag-action-type="read" aria-labelledby="lbl"></button>\n'
        '<label for="pay">Pay now</label>\n'
        '<input id="pay" type="submit" axag-intent="cart.pay" axag-action-type="write" axag-risk-level="low">\n'
        '<label>Buy <input type="button" axag-intent="cart.buy" axag-action-type="write" axag-risk-level="low"></label>\n'
        '<input type="image" alt="Go" axag-intent="cart.go" axag-action-type="write" axag-risk-level="low">\n'
        '<a href="/x" axag-intent="cart.open" axag-action-type="navigate"><img src="i.png" alt="Open cart"></a>\n'
        '<button axag-intent="cart.help" axag-action-type="read" title="Help"></button>\n'
        '<div axag-intent="cart.panel" axag-action-type="read"></div>'
    ),
)


@MISSING_ACCESSIBLE_NAME.check()
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
    MISSING_ACCESSIBLE_NAME.report(ctx, act.element.tag_span, act.element, tag=act.element.tag,
                                   intent=_intent_text(act))


# ------------------------------------------------------------------------------------------------
# The model records what it observes as facts (`axag.model.facts`); the checks below judge them.

INVALID_INTENT = Rule(
    code=34,
    name="invalid-intent",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="intent (also empty) fails INTENT",
    messages={
        "default": 'axag-intent="{i}" must be entity.verb in lower case, e.g. "cart.add_item"',
    },
    fails=(
        '<button axag-intent="Cart.Add" axag-action-type="write">Add</button>\n'
        '<button axag-intent="cart" axag-action-type="write">Cart</button>\n'
        '<button axag-intent="" axag-action-type="write">Empty</button>\n'
        '<button axag-intent="cart._add" axag-action-type="write">Underscore</button>'
    ),
    passes=(
        '<button axag-intent="cart.add_item" axag-action-type="write" axag-risk-level="low">Add</button>\n'
        '<button axag-intent="report.export_v2" axag-action-type="read">Export</button>'
    ),
)


INVALID_ENTITY = Rule(
    code=35,
    name="invalid-entity",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="entity fails ENTITY",
    messages={
        "default": ('axag-entity="{e}" must be lower case letters, digits and underscores, e.g. '
                    '"purchase_order"'),
    },
    fails=(
        '<button axag-intent="cart.add" axag-entity="Cart" axag-action-type="write">Add</button>\n'
        '<button axag-intent="cart.drop" axag-entity="cart-item" axag-action-type="write">Drop</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-entity="cart" axag-action-type="write" axag-risk-level="low">Add</button>\n'
        '<button axag-intent="cart.fill" axag-entity="purchase_order" axag-action-type="write" axag-risk-level="low">Fill (139)</button>'
    ),
)


INVALID_TOOL_NAME = Rule(
    code=123,
    name="invalid-tool-name",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="§9.2",
    plain=("a tool name that is not 1 to 64 letters, digits, _ or - starting with a letter or _: an "
           "axag-operation-id with spaces, or an intent longer than 64 characters"),
    messages={
        "default": 'Tool name "{name}" must match ^[A-Za-z_][A-Za-z0-9_-]{0,63}$',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-operation-id="add item">Add</button>\n'
        '<button axag-intent="cccccccccccccccccccccccccccccccccccccccc.vvvvvvvvvvvvvvvvvvvvvvvvvvvvvv" axag-action-type="read">Long</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-operation-id="addItem-v2">Add</button>'
    ),
)


ENTITY_PREFIX_MISMATCH = Rule(
    code=139,
    name="entity-prefix-mismatch",
    severity=Severity.WARNING,
    level=Level.BASIC,
    compile=True,
    trigger="declared entity ≠ intent prefix",
    messages={
        "default": 'axag-entity="{e}" differs from the intent prefix "{p}"',
    },
    fails='<button axag-intent="cart.add" axag-entity="basket" axag-action-type="write">Add</button>',
    passes=(
        '<button axag-intent="cart.add" axag-entity="cart" axag-action-type="write" axag-risk-level="low">Add</button>'
    ),
)


# the facts the model records about intents, entities and tool names (`axag.model.values`, `actions`)
judge(INVALID_INTENT, Kind.BAD_INTENT)
judge(INVALID_ENTITY, Kind.BAD_ENTITY)
judge(INVALID_TOOL_NAME, Kind.BAD_TOOL_NAME)
judge(ENTITY_PREFIX_MISMATCH, Kind.ENTITY_NOT_INTENT_PREFIX)
