"""The merged parameter of an action (parameters, merging declared and harvested parameters): what compile, rules and guards read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from axag.files.spans import Span
from axag.parse.document import Element


@dataclass
class Parameter:
    name: str  # property name (declared spelling when declared)
    required: bool
    schema: dict[str, Any]  # compiled property schema, keys in property-schema order
    # operand kind for relations (relational classification and validation): number, integer, date, date-time, time, local-datetime,
    # time-of-day, month, week, string, boolean, array, object
    kind: str
    declared: bool = False
    harvested: bool = False  # harvested data contributed
    format_bounds: dict[str, str] | None = None  # {"formatMinimum": …, "formatMaximum": …}
    span: Span | None = None  # declaration (list item) or the control's tag name
    control: Element | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def type(self) -> str:
        return str(self.schema.get("type", "string"))
