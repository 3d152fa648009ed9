"""MODEL: submit controls and the form they submit (rule 3 of the parameter scope in harvesting, HTML form owners), shared by harvesting
(`axag.model.harvest`), the HTTP binding of compile and rule 001."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from axag.parse.document import attribute as _attr
from axag.parse.document import tag_name as _tag

LxmlElement = Any


def is_submit_control(el: LxmlElement) -> bool:
    """`<button>` without a type (or an empty one) or with type=submit, `<input type=submit|image>`."""
    tag = _tag(el)
    t = (_attr(el, "type") or "").strip().lower()
    if tag == "button":
        return t in ("", "submit")
    return tag == "input" and t in ("submit", "image")


def form_owner(el: LxmlElement, by_id: Callable[[str], LxmlElement | None]) -> LxmlElement | None:
    """The form ``el`` belongs to: the element its ``form`` attribute names (by id; None unless a `<form>`),
    else its nearest ancestor `<form>`. ``by_id`` finds the first element with an id in the file."""
    owner = _attr(el, "form")
    if owner is not None:
        target = by_id(owner)
        return target if target is not None and _tag(target) == "form" else None
    return next(el.iterancestors("form"), None)  # filtered in C; libxml2 lower-cases ASCII tag names
