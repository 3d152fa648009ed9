"""`_meta["org.axag/http"]`: how a browser submits an action's form, so that `axag serve` can replay it.

For an action whose parameter scope (harvesting: the parameter scope) is submitted by a form, the binding records the method, the
action URL (resolved against the page's own path), the encoding, the control name behind each parameter, the
constant name/value pairs the browser adds (hidden inputs, read-only controls, the submitter), the value a
checked checkbox sends, whether constants must be refreshed from the live page (template values), the page,
and the controls an agent cannot supply (file inputs). A navigate link (``<a href>``) to a page of the site is
bound as the GET of its href; where an action reaches the site is decided by `axag.model.reach`.

So that serve sends what the page declares, the binding also says which form it is (``form``: its
id, else its position among the page's forms of the same action and method), which constants the live page
supplies (``live``: ``[index into constants, control kind, occurrence]``: hidden inputs and template values;
every other constant, the submitter and read-only controls, keeps its compiled value), and which parameters a
browser sends on several lines (``multiline``: textareas; every other value is refused with CR or LF in it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from axag.model import harvest as H
from axag.model.reach import Link, form_action, form_method, page_url, reach
from axag.parse.document import LxmlElement
from axag.parse.document import attribute as _attr
from axag.parse.document import tag_name as _tag

if TYPE_CHECKING:
    from axag.model.types import Action, FileModel

__all__ = ["BINDING_KEY", "ENCTYPES", "http_binding", "page_url"]

BINDING_KEY = "org.axag/http"
URLENCODED = "application/x-www-form-urlencoded"
ENCTYPES = (URLENCODED, "multipart/form-data", "text/plain")


def _enctype(form: LxmlElement, sub: LxmlElement | None, method: str) -> str:
    if method != "post":
        return URLENCODED
    raw = _attr(sub, "formenctype") if sub is not None else None
    if raw is None:
        raw = _attr(form, "enctype")
    e = (raw or "").strip().lower()
    return e if e in ENCTYPES else URLENCODED


def _submitted_value(model: FileModel, el: LxmlElement) -> tuple[str | None, bool]:
    if _tag(el) == "textarea":
        text = "".join(el.itertext())
        return text, H.is_unknown(model, text)
    return H.value_of(model, el, "value")


def http_binding(model: FileModel, act: Action, page: str) -> dict[str, Any] | None:
    """The binding of ``act`` on the page file ``page`` (relative to the compile root), or None (rule 151 says
    why: `axag.model.reach`)."""
    found = reach(model, act, page)
    if isinstance(found, str):
        return None
    if isinstance(found, Link):  # a navigate link to a page of the site: the GET of its href
        return {"method": "GET", "action": found.path, "enctype": URLENCODED,
                "fields": {p.name: p.name for p in act.parameters}, "constants": [list(q) for q in found.query],
                "checkbox": {}, "refresh": False, "live": [], "page": page}
    scope, form, sub, method, action = found.scope, found.form, found.sub, found.method, found.action
    controls = {id(p.control.el): p for p in act.parameters if p.control is not None and p.control.el is not None}
    fields: dict[str, str] = {}
    checkbox: dict[str, str] = {}
    constants: list[list[str | None]] = []
    live: list[list[int | str]] = []
    multiline: list[str] = []
    unsupported: list[str] = []
    refresh = False
    for p in act.parameters:
        name = p.control.get("name") if p.control is not None else None
        fields[p.name] = name if name is not None else p.name
        if p.control is not None and p.control.el is not None and _tag(p.control.el) == "textarea":
            multiline.append(p.name)
    scope_controls = H.scope_controls(model, scope) if scope is form else H.scope_controls(model, form)
    members: list[LxmlElement] | None = None  # the form's named elements, looked up for a live constant only

    def located(el: LxmlElement, name: str) -> tuple[str, int]:
        nonlocal members
        if members is None:
            members = form_members(form, _member_index(model, form))
        return _locate(members, el, name)

    for el in _with_submitter(model, scope_controls, sub):
        if el is sub:
            name, unknown = H.value_of(model, el, "name")
            if name and not unknown:
                value, unknown_value = H.value_of(model, el, "value")
                refresh = refresh or unknown_value
                if unknown_value:
                    live.append([len(constants), *located(el, name)])
                constants.append([name, None if unknown_value else (value or "")])
            continue
        category = H.control_category(model, el)
        if category is None:
            continue
        why = H.exclusion(el, category)
        harvested = controls.get(id(el))
        if harvested is not None and category in ("checkbox", "role:checkbox") and harvested.type == "boolean":
            value, unknown = H.value_of(model, el, "value")
            checkbox[harvested.name] = "on" if value is None or unknown else value
        if why is None or "disabled" in why:
            continue
        name, unknown = H.value_of(model, el, "name")
        if not name or unknown:
            continue
        value, unknown_value = _submitted_value(model, el)
        # a hidden value is what the server rendered into this copy of the page (a CSRF token, a nonce):
        # the browser submits the live page's value, so serve reads it from the page again
        refresh = refresh or unknown_value or category == "hidden"
        if unknown_value or category == "hidden":
            live.append([len(constants), *located(el, name)])
        constants.append([name, None if unknown_value else (value or "")])
    for el in H.scope_file_inputs(model, form):  # lint reports them too (rule 148)
        name = H.file_input_name(el)
        if name not in unsupported:
            unsupported.append(name)
    binding: dict[str, Any] = {
        "method": method.upper(),
        "action": action,
        "enctype": _enctype(form, sub, method),
        "fields": fields,
        "constants": constants,
        "checkbox": checkbox,
        "refresh": refresh,
        "live": live,
        "form": _form_locator(model, form, page),
        "page": page,
    }
    if unsupported:
        binding["unsupported"] = unsupported
    if multiline:
        binding["multiline"] = multiline
    return binding


def control_kind(el: LxmlElement) -> str:
    """What a control is, for finding it again in the live page: ``input:TYPE`` or the tag name."""
    tag = _tag(el)
    if tag == "input":
        return "input:" + (_attr(el, "type") or "text").strip().lower()
    return tag


# the named elements of a document by their form: (document index, element) under the closest `<form>` ancestor,
# and under the value of their own `form=` attribute
MemberIndex = tuple[dict[LxmlElement, list[tuple[int, LxmlElement]]], dict[str, list[tuple[int, LxmlElement]]]]


def member_index(root: Any) -> MemberIndex:
    """One pass over the document ``root`` (an lxml tree) for `form_members` of each of its forms."""
    by_form: dict[LxmlElement, list[tuple[int, LxmlElement]]] = {}
    by_owner: dict[str, list[tuple[int, LxmlElement]]] = {}
    for i, el in enumerate(root.iter()):
        if not isinstance(el.tag, str) or el.get("name") is None:
            continue
        owner = el.get("form")
        if owner is not None:
            by_owner.setdefault(owner, []).append((i, el))
            continue
        parent = next(el.iterancestors("form"), None)
        if parent is not None:
            by_form.setdefault(parent, []).append((i, el))
    return by_form, by_owner


def _member_index(model: FileModel, form: LxmlElement) -> MemberIndex:
    """The file's `member_index`, made once per file (a page of a thousand forms asks for it a thousand times)."""
    root = form.getroottree()
    kept = model.memo.get("form_members")
    if kept is None or kept[0] is not root.getroot():
        kept = model.memo["form_members"] = (root.getroot(), member_index(root))
    return kept[1]


def form_members(form: LxmlElement, index: MemberIndex | None = None) -> list[LxmlElement]:
    """The named elements that belong to ``form`` in document order: its descendants without a `form=` of
    another form, and the elements elsewhere whose `form=` names it (serve reads the live page the same way).
    ``index``: the document's `member_index` (else made here)."""
    by_form, by_owner = member_index(form.getroottree()) if index is None else index
    form_id = _attr(form, "id")
    items = by_form.get(form, []) + (by_owner.get(form_id, []) if form_id is not None else [])
    return [el for _, el in sorted(items, key=lambda t: t[0])]


def _locate(members: list[LxmlElement], el: LxmlElement, name: str) -> tuple[str, int]:
    """(kind, occurrence): ``el`` is the occurrence-th member of its form with this name and kind."""
    kind = control_kind(el)
    k = 0
    for m in members:
        if m is el:
            break
        if m.get("name") == name and control_kind(m) == kind:
            k += 1
    return kind, k


def _form_locator(model: FileModel, form: LxmlElement, page: str) -> dict[str, Any]:
    """How serve finds this form in the live page: by its id; else by its position among the page's forms with
    the same action and method (``index`` of ``count``); else by its field names."""
    form_id, unknown = H.value_of(model, form, "id")
    if form_id and not unknown:
        return {"id": form_id}
    action = form_action(model, form, None, page)
    method = form_method(form, None)
    same = [f for f in form.getroottree().iter("form")
            if form_method(f, None) == method and form_action(model, f, None, page) == action]
    index = next((i for i, f in enumerate(same) if f is form), 0)
    return {"action": action, "method": method.upper(), "index": index, "count": len(same)}


def _with_submitter(model: FileModel, controls: list[LxmlElement], sub: LxmlElement | None) -> list[LxmlElement]:
    """The scope's controls with the submitter inserted at its document position."""
    if sub is None or sub in controls:
        return controls
    return sorted([*controls, sub], key=H.document_order(model))
