"""What harvesting looks up in a file (ids, labels, scopes, …), made once per file on first use and kept on
`axag.model.types.FileModel.harvest_state` (`axag.model.harvest` makes and reads it)."""

from __future__ import annotations

from typing import Any

from lxml import etree

from axag import vocabulary as V
from axag.model.facts import VALUE_DEFECTS, Fact
from axag.parse.document import Element, ParsedFile

__all__ = ["HarvestState", "LxmlElement"]

LxmlElement = Any

_WITH_ID = etree.XPath("//*[@id]")


class HarvestState:
    """What harvesting looks up in a file (ids, labels, scopes, …), made once per file on first use."""

    def __init__(self, pf: ParsedFile, facts: list[Fact]) -> None:
        self.pf = pf
        self.facts = facts  # the model's facts (the list it keeps recording into)
        self.ids: dict[str, LxmlElement] | None = None
        self.label_for: dict[str, list[LxmlElement]] | None = None
        self.action_scopes: dict[int, LxmlElement | None] = {}
        self.bad_controls: set[int] | None = None  # ids of Elements with parameter errors on control attributes
        self.scopes: dict[int, tuple[LxmlElement | None, list[LxmlElement]]] = {}
        self.form_attr: bool | None = None  # whether the file's bytes mention a `form=` attribute
        self.categories: dict[LxmlElement, str | None] = {}  # element -> its control category, or None
        kind = pf.src.kind
        from axag.parse.templates import markers

        self.markers: tuple[str, ...] = ("{{",) if kind == "vue" else markers(kind)
        self.vue = kind == "vue"

    def by_id(self, ident: str) -> LxmlElement | None:
        if self.ids is None:
            self.ids = {}
            root = self.pf.root
            if root is not None:
                for el in _WITH_ID(root):  # elements with an id, in document order (found in C)
                    i = el.get("id")
                    if i is not None and i not in self.ids:
                        self.ids[i] = el
        return self.ids.get(ident)

    def labels_for(self, ident: str) -> list[LxmlElement]:
        if self.label_for is None:
            self.label_for = {}
            if self.pf.root is not None:
                for lab in self.pf.named("label"):
                    target = lab.get("for")
                    if target is not None:
                        self.label_for.setdefault(target, []).append(lab)
        return self.label_for.get(ident, [])

    def has_control_errors(self, element: Element) -> bool:
        if self.bad_controls is None:
            self.bad_controls = {id(f.element) for f in self.facts
                                 if f.attribute in V.CONTROL_ATTRIBUTES and f.kind in VALUE_DEFECTS}
        return id(element) in self.bad_controls

    def unknown(self, text: str) -> bool:
        return any(m in text for m in self.markers)
