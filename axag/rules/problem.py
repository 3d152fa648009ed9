"""A rule's finding before it is placed in a file: rule code, span and message arguments, as data. Only the rules
(`axag/rules/`) make them; the engine turns them into `Finding`s."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from axag.files.spans import Span
from axag.outcome.findings import Fix, Severity

if TYPE_CHECKING:
    from axag.parse.document import Element


@dataclass(slots=True)
class Problem:
    code: int
    span: Span
    args: dict[str, Any] = field(default_factory=dict)
    element: Element | None = None  # anchor element (the action for harvest findings)
    attribute: str | None = None
    fix: Fix | None = None
    help: str | None = None
    index: int = 0  # which message template of the rule: its position among the declaration's messages
    severity: Severity | None = None  # for the two-severity rules 033 and 117
    message: str | None = None  # a fully rendered message (overrides the template)
