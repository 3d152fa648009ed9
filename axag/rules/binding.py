"""What an agent's call can carry to the site (issue 14 §1): 148 and 149 (not in SPEC.md's tables yet).

148 — fails: ``<input type="file">`` in the form an action submits (an agent cannot supply a file).
149 — fails (needs ``--openapi``): the operation named by ``axag-operation-id`` has a parameter the annotation
does not declare, or declares with another type; or the document has no such operation. Actions that a form
submits are bound to the form, not to the operation, and are not compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from axag.model import harvest as H
from axag.model.actions import Action
from axag.rules.base import RuleCtx, rule

__all__ = ["Drift", "operation_drift"]


@rule(148)
def unsupported_file_input(ctx: RuleCtx, act: Action) -> None:
    """A file input the browser submits with the action: the tool is called without it."""
    if act.intent is None:
        return
    for element in act.file_inputs:
        ctx.report(148, element.tag_span, element, control=H.file_input_name(element.el), intent=act.intent)


@dataclass(frozen=True, slots=True)
class Drift:
    """An operation parameter the annotation does not declare (``declared`` None), or declares with another type."""

    name: str
    location: str  # path | query | header | body
    declared: str | None
    theirs: str | None


def _type_of(schema: Mapping[str, Any]) -> str | None:
    t = schema.get("type")
    return t if isinstance(t, str) else None


def operation_drift(params: Mapping[str, tuple[str, Mapping[str, Any]]],
                    declared: Mapping[str, Mapping[str, Any]]) -> list[Drift]:
    """The drift between an operation's parameters (name -> (location, schema)) and the declared parameter
    schemas (name -> schema), in the operation's order; number and integer agree."""
    out: list[Drift] = []
    for name, (location, schema) in params.items():
        if name not in declared:
            out.append(Drift(name, location, None, _type_of(schema)))
            continue
        ours, theirs = _type_of(declared[name]), _type_of(schema)
        if ours is not None and theirs is not None and ours != theirs and {ours, theirs} != {"integer", "number"}:
            out.append(Drift(name, location, ours, theirs))
    return out


@rule(149)
def openapi_drift(ctx: RuleCtx, act: Action) -> None:
    """The action's operation in the --openapi document disagrees with its parameters."""
    if ctx.openapi is None or act.intent is None:
        return
    op_value = act.v("axag-operation-id")
    if not op_value.ok:
        return
    scope = H.scope_of(ctx.model, act)
    if scope is not None and H.submitting_form(ctx.model, act, scope) is not None:
        return  # bound to its form (org.axag/http), not to the operation
    op_id = str(op_value.value)
    span = op_value.value_span()
    op = ctx.openapi.get(op_id)
    if op is None:
        ctx.report(149, span, act.element, "axag-operation-id", index=2, op=op_id, file=ctx.openapi_name)
        return
    by_name = {p.name: p for p in act.parameters}
    for d in operation_drift(op["params"], {p.name: p.schema for p in act.parameters}):
        if d.declared is None:
            ctx.report(149, span, act.element, "axag-operation-id", op=op_id, location=d.location, p=d.name,
                       intent=act.intent, key=d.name)
        else:
            p = by_name[d.name]
            ctx.report(149, p.span or span, act.element, index=1, p=d.name, t1=d.declared, t2=d.theirs,
                       op=op_id, intent=act.intent, key=d.name)
