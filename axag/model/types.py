"""The model's data: an annotated element (`Annotated`), the action it declares (`Action`, with its parameters and
preconditions) and the file's model (`FileModel`), built by `axag.model.actions.build_model`. The builders
(`actions`, `declared`, `harvest`, `params`, …) import these; this module imports none of them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from axag.files.spans import Span
from axag.model.facts import Fact
from axag.model.macro import MacroResult
from axag.model.parameter import Parameter
from axag.model.relational import Relation
from axag.model.values import ABSENT, Status, Value
from axag.parse.document import Attr, Element, ParsedFile

if TYPE_CHECKING:
    from axag.model.harvest_state import HarvestState

__all__ = ["Action", "Annotated", "FileModel", "Precondition"]


@dataclass
class Precondition:
    text: str
    kind: str  # "relational" | "state"
    relation: Relation | None
    span: Span


@dataclass
class Annotated:
    """An element carrying annotation attributes."""

    element: Element
    values: dict[str, Value] = field(default_factory=dict)
    macro: MacroResult | None = None
    macro_attr: Attr | None = None
    extensions: dict[str, str] = field(default_factory=dict)
    dynamic_attrs: list[str] = field(default_factory=list)
    legacy: list[Attr] = field(default_factory=list)  # axag-constraints, removed, skip
    unknown: list[Attr] = field(default_factory=list)
    action: Action | None = None

    def v(self, name: str) -> Value:
        return self.values.get(name, ABSENT)

    @property
    def is_action(self) -> bool:
        return self.action is not None


@dataclass
class Action:
    ann: Annotated
    intent: str | None = None  # valid effective intent
    intent_value: Value = field(default_factory=lambda: ABSENT)
    entity: str | None = None  # declared valid entity
    derived_entity: str | None = None
    scope: str | None = None  # effective
    scope_source: Annotated | None = None
    tenant_boundary: str | None = None
    tenant_source: Annotated | None = None
    required_roles: list[str] = field(default_factory=list)  # effective
    parameters: list[Parameter] = field(default_factory=list)
    preconditions: list[Precondition] = field(default_factory=list)
    dynamic: bool = False  # excluded from compile (dynamic values)
    params_ok: bool = True  # parameter lists valid (nothing recorded that makes a parameter unusable)
    # name -> why a control of the action's scope that would be that parameter is not harvested (harvesting: controls and exclusions)
    unharvested: dict[str, str] = field(default_factory=dict)
    # the file inputs the browser submits with the action's parameter scope: an agent cannot supply them (148)
    file_inputs: list[Element] = field(default_factory=list)

    @property
    def element(self) -> Element:
        return self.ann.element

    def v(self, name: str) -> Value:
        return self.ann.values.get(name, ABSENT)  # = self.ann.v(name), without the extra call (hot)

    @property
    def effective_entity(self) -> str | None:
        return self.entity or self.derived_entity

    # the three below read `ann.values` directly: = self.v(name) and .ok, without the calls (hot: rules ask often)
    @property
    def action_type(self) -> str | None:
        val = self.ann.values.get("axag-action-type")
        return str(val.value) if val is not None and val.status is Status.OK else None

    @property
    def risk(self) -> str | None:
        val = self.ann.values.get("axag-risk-level")
        return str(val.value) if val is not None and val.status is Status.OK else None

    def flag(self, name: str) -> bool | None:
        val = self.ann.values.get(name)
        return bool(val.value) if val is not None and val.status is Status.OK else None

    def param_names(self) -> list[str]:
        return [p.name for p in self.parameters]


@dataclass
class FileModel:
    pf: ParsedFile
    annotated: list[Annotated]
    actions: list[Action]
    facts: list[Fact]
    by_element: dict[int, Annotated] = field(default_factory=dict)  # id(Element) -> Annotated
    # the parameter facts recorded so far (a form and its submit button share a scope: each is recorded once)
    parameter_facts: set[tuple[Any, ...]] = field(default_factory=set)
    harvest_state: HarvestState | None = None  # what harvesting looked up in the file, made on first use
    memo: dict[str, Any] = field(default_factory=dict)  # lookups of later layers over the file, made once

    def annotated_of(self, el: Any) -> Annotated | None:
        e = self.pf._by_el.get(el)
        return self.by_element.get(id(e)) if e is not None else None
