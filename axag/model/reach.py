"""How an action reaches the site: the form submission that carries it (method, action URL, submit
control) or the navigate link it follows, or, in words, why it reaches nothing. `axag.compile.http` builds
the HTTP binding from these; rule 151 reports the actions that have none (`unbound_reason`).
"""

from __future__ import annotations

from dataclasses import dataclass
from posixpath import normpath
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urljoin, urlsplit

from axag import vocabulary as V
from axag.model import harvest as H
from axag.model.submit import is_submit_control
from axag.parse.document import attribute as _attr
from axag.parse.document import tag_name as _tag

if TYPE_CHECKING:
    from axag.model.types import Action, FileModel
    from axag.parse.document import LxmlElement

__all__ = ["Link", "Submission", "form_of", "page_url", "reach", "unbound_reason"]


def page_url(page: str) -> str:
    """The URL path of a page file relative to the compile root (the site root): ``"a/b.html"`` -> ``/a/b.html``."""
    return "/" + page.lstrip("/")


@dataclass(frozen=True, slots=True)
class Submission:
    """The form that submits the action: its parameter scope, the submit control, the method and action URL."""

    scope: LxmlElement
    form: LxmlElement
    sub: LxmlElement | None
    method: str  # get | post
    action: str


@dataclass(frozen=True, slots=True)
class Link:
    """A navigate link to a page of the site: the GET of ``path`` with the href's query pairs."""

    path: str
    query: list[tuple[str, str]]


def reach(model: FileModel, act: Action, page: str) -> Submission | Link | str:
    """How ``act`` on the page file ``page`` reaches the site, or why it does not."""
    scope, form, sub = form_of(model, act)
    if scope is None or form is None:
        return _link(model, act, page)
    method = form_method(form, sub)
    if method == "dialog":
        return 'its form has method="dialog", which sends nothing to the site'
    action = form_action(model, form, sub, page)
    if action is None:
        return "the template writes its form's action, which is only known on the live page"
    return Submission(scope, form, sub, method, action)


_FormOf = tuple["LxmlElement | None", "LxmlElement | None", "LxmlElement | None"]


def form_of(model: FileModel, act: Action) -> _FormOf:
    """(parameter scope, submitting form, submit control) of ``act``, which do not depend on the page: found once
    per action and file (`FileModel.memo`), for rule 151 and the HTTP binding of compile alike."""
    found: dict[int, tuple[Action, _FormOf]] = model.memo.setdefault("form_of", {})
    kept = found.get(id(act))
    if kept is not None and kept[0] is act:
        return kept[1]
    scope = H.scope_of(model, act)
    form = H.submitting_form(model, act, scope) if scope is not None else None
    sub = _submitter(act, form) if scope is not None and form is not None else None
    found[id(act)] = (act, (scope, form, sub))
    return scope, form, sub


def unbound_reason(model: FileModel, act: Action) -> str | None:
    """Why ``act`` reaches nothing on the site (no HTTP binding), in words; None when it has a binding."""
    found = reach(model, act, "index.html")
    return found if isinstance(found, str) else None


def _submitter(act: Action, form: LxmlElement) -> LxmlElement | None:
    """The submit control used: the action element when it is one, else the form's default button."""
    el = act.element.el
    if el is not None and is_submit_control(el):
        return el
    form_id = _attr(form, "id")
    # only a <button> or an <input> submits (`is_submit_control`): lxml filters the others out in C
    for cand in form.iterdescendants("button", "input"):
        if is_submit_control(cand) and (_attr(cand, "form") in (None, form_id)):
            return cand
    return None


def form_method(form: LxmlElement, sub: LxmlElement | None) -> str:
    raw = (_attr(sub, "formmethod") if sub is not None else None)
    if raw is None:
        raw = _attr(form, "method")
    m = (raw or "get").strip().lower()
    return m if m in ("get", "post", "dialog") else "get"


def form_action(model: FileModel, form: LxmlElement, sub: LxmlElement | None, page: str) -> str | None:
    """The resolved action; None for a template action (taken from the live page)."""
    raw, unknown = (H.value_of(model, sub, "formaction") if sub is not None else (None, False))
    if raw is None and not unknown:
        raw, unknown = H.value_of(model, form, "action")
    if unknown:
        return None
    base = page_url(page)
    raw = (raw or "").strip()
    if not raw:
        return base
    if urlsplit(raw).scheme:
        return raw
    parts = urlsplit(urljoin(base, raw))
    return _site_path(parts.path) + (f"?{parts.query}" if parts.query else "")


def _site_path(path: str) -> str:
    """A resolved URL path, normalised (``..`` and ``.`` removed), its trailing slash kept."""
    out = normpath(path) if path else "/"
    return out + "/" if path.endswith("/") and out != "/" else out


def _navigation(action_type: str | None) -> bool:
    t = V.action_type(action_type)
    return t is not None and t.navigation


def _link(model: FileModel, act: Action, page: str) -> Link | str:
    """A navigate link (``<a href>`` with action type navigate) to a page of the site; an off-site href, or
    none, reaches nothing, and why is returned."""
    el = act.element.el
    if el is None or _tag(el) != "a" or not _navigation(act.action_type):
        return "no form submits it and it is not a navigate link (<a href>)"
    raw, unknown = H.value_of(model, el, "href")
    if unknown:
        return "the template writes its href, which is only known on the live page"
    href = (raw or "").strip()
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        where = "leaves the site" if parts.scheme in ("http", "https", "") else "is no page of the site"
        return f'its href "{href}" {where}'
    if not parts.path and not parts.query:
        return f'its href "{href}" stays on the page' if href else "it has no href"
    joined = urlsplit(urljoin(page_url(page), href))
    return Link(_site_path(joined.path), parse_qsl(joined.query, keep_blank_values=True))
