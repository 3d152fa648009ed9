"""What an agent's call can carry to the site: 148 and 149 (not in SPEC.md's tables yet), 151 (an
action serve cannot run by itself); and,
from the facts the model records, 140 (axag-params-from), 141 (axag-schema).

149 needs ``--openapi``. Actions that a form submits are bound to the form, not to the operation, and are not
compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from axag.model.facts import Kind
from axag.outcome.findings import Level, Severity
from axag.rules.base import RuleCtx
from axag.rules.declare import Rule
from axag.rules.facts import judge

if TYPE_CHECKING:
    from axag.model.types import Action

__all__ = ["Drift", "operation_drift"]


UNSUPPORTED_FILE_INPUT = Rule(
    code=148,
    name="unsupported-file-input",
    severity=Severity.INFO,
    level=Level.INTERMEDIATE,
    trigger="a file input in the action's parameter scope: an agent cannot supply a file",
    plain=('an <input type="file"> that the browser submits with an action\'s form (or its '
           "axag-params-from region): an agent cannot supply a file, so the tool is called without it; "
           "compile lists it under unsupported in the tool's HTTP binding, and axag serve sends the form "
           "without it"),
    messages={
        "default": ('<input type="file"> "{control}" cannot be supplied by an agent; "{intent}" is '
                    "called without it"),
    },
    fails=(
        '<form action="/claims" method="post" enctype="multipart/form-data" axag-intent="claim.submit"\n'
        '      axag-action-type="write" axag-risk-level="low" axag-description="Submit a claim">\n'
        '  <label>Amount <input name="amount" type="number"></label>\n'
        '  <label>Receipt <input type="file" name="receipt"></label>\n'
        "  <button>Submit</button>\n"
        "</form>\n"
        '<form id="avatar" action="/avatar" method="post" enctype="multipart/form-data">\n'
        '  <button axag-intent="profile.update_avatar" axag-action-type="write" axag-risk-level="low"\n'
        '          axag-description="Change the avatar">Upload</button>\n'
        "</form>\n"
        '<input type="file" name="photo" form="avatar">'
    ),
    passes=(
        '<form action="/claims" method="post" axag-intent="claim.submit" axag-action-type="write" axag-risk-level="low"\n'
        '      axag-description="Submit a claim">\n'
        '  <label>Amount <input name="amount" type="number"></label>\n'
        '  <label>Receipt <input type="file" name="receipt" disabled></label>\n'
        '  <fieldset disabled><input type="file" name="scan"></fieldset>\n'
        '  <input type="file" name="elsewhere" form="other">\n'
        "  <button>Submit</button>\n"
        "</form>\n"
        '<form id="other" method="dialog"><input type="file" name="attachment"></form>\n'
        '<button type="button" axag-intent="claim.list" axag-action-type="read" axag-risk-level="none"\n'
        '        axag-description="List the claims">Claims</button>'
    ),
)


@UNSUPPORTED_FILE_INPUT.check()
def unsupported_file_input(ctx: RuleCtx, act: Action) -> None:
    """A file input the browser submits with the action: the tool is called without it."""
    if act.intent is None:
        return
    from axag.model import harvest as H  # (the rules are declared without the model)

    for element in act.file_inputs:
        UNSUPPORTED_FILE_INPUT.report(ctx, element.tag_span, element, control=H.file_input_name(element.el),
                                      intent=act.intent)


UNBOUND_ACTION = Rule(
    code=151,
    name="unbound-action",
    severity=Severity.INFO,
    level=Level.INTERMEDIATE,
    compile=True,  # info: compile prints it and still writes (as 033)
    trigger=("an action compile gives no HTTP binding (no form submits it, and it is no navigate link to a page "
             "of the site) and no axag-operation-id: axag serve runs it only with a handler"),
    plain=("an action that axag serve cannot run by itself: no form submits it (or its form sends nothing), it is "
           "not an <a href> navigate link to a page of the site, and it names no axag-operation-id; serve refuses "
           "to start with it unless --handlers gives it a handler, --openapi binds it, or --allow-unbound serves "
           "it as a refusal"),
    messages={
        "default": ('"{intent}" has no HTTP binding: {why}; axag serve runs it only with a handler (--handlers) '
                    "or an OpenAPI operation (axag-operation-id with --openapi)"),
    },
    fails=(
        '<button type="button" axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="high"\n'
        '        axag-confirmation-required="true" axag-description="Empty the cart">Clear</button>\n'
        '<a href="https://help.example.com/cart" axag-intent="help.open" axag-action-type="navigate" axag-risk-level="none"\n'
        '   axag-description="Open the help">Help</a>\n'
        '<form method="dialog" axag-intent="dialog.close" axag-action-type="read" axag-risk-level="none"\n'
        '      axag-description="Close the dialog"><button>Close</button></form>'
    ),
    passes=(
        '<form action="/cart/clear" method="post" axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="high"\n'
        '      axag-confirmation-required="true" axag-description="Empty the cart"><button>Clear</button></form>\n'
        '<a href="/orders?status=open" axag-intent="order.list_open" axag-action-type="navigate" axag-risk-level="none"\n'
        '   axag-description="List the open orders">Open orders</a>\n'
        '<button type="button" axag-intent="cart.sync" axag-action-type="write" axag-risk-level="low"\n'
        '        axag-operation-id="syncCart" axag-description="Sync the cart">Sync</button>'
    ),
)


@UNBOUND_ACTION.check()
def unbound_action(ctx: RuleCtx, act: Action) -> None:
    """An action without an HTTP binding and without an operation id, with the reason compile gives."""
    if act.intent is None or act.v("axag-operation-id").declared:
        return
    from axag.model.reach import unbound_reason  # (the rules are declared without the model)

    why = unbound_reason(ctx.model, act)
    if why is not None:
        UNBOUND_ACTION.report(ctx, act.element.tag_span, act.element, intent=act.intent, why=why)


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


OPENAPI_DRIFT = Rule(
    code=149,
    name="openapi-drift",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    compile=True,
    needs="openapi",
    trigger=("needs --openapi; the operation named by axag-operation-id has a parameter the annotation "
             "does not declare or declares with another type (number≈integer), or the document has no "
             "such operation"),
    plain=("with --openapi: an action with axag-operation-id that no form submits is bound to that "
           "operation; a path, query or header parameter or JSON body property of the operation that the "
           "action does not declare, a parameter declared with another type than the operation's (number "
           "and integer agree), or an operation id that the document does not have"),
    messages={
        "default": 'Operation "{op}" has the {location} parameter "{p}", which "{intent}" does not declare',
        "type": 'Parameter "{p}" is {t1} in "{intent}" but {t2} in operation "{op}"',
        "no_operation": 'axag-operation-id="{op}" names no operation of the OpenAPI document {file}',
    },
    fails=(
        "<!-- openapi.yaml: getOrder takes order_id (path, integer) and expand (query, boolean); createOrder takes sku (string) and quantity (integer) in its JSON body; there is no cancelOrder -->\n"
        '<button type="button" axag-intent="order.view" axag-action-type="read" axag-risk-level="none"\n'
        '        axag-operation-id="getOrder" axag-description="Show an order"\n'
        '        axag-required-parameters=\'[{"name":"order_id","type":"string"}]\'>Show</button>\n'
        '<button type="button" axag-intent="order.create" axag-action-type="write" axag-risk-level="low"\n'
        '        axag-operation-id="createOrder" axag-description="Order an article"\n'
        '        axag-required-parameters=\'[{"name":"sku","type":"string"},{"name":"quantity","type":"number"}]\'>Order</button>\n'
        '<button type="button" axag-intent="order.cancel" axag-action-type="write" axag-risk-level="low"\n'
        '        axag-operation-id="cancelOrder" axag-description="Cancel an order">Cancel</button>'
    ),
    passes=(
        '<button type="button" axag-intent="order.view" axag-action-type="read" axag-risk-level="none"\n'
        '        axag-operation-id="getOrder" axag-description="Show an order"\n'
        '        axag-required-parameters=\'[{"name":"order_id","type":"integer"}]\'\n'
        '        axag-optional-parameters=\'[{"name":"expand","type":"boolean"}]\'>Show</button>\n'
        "<!-- submitted by its form: bound to the form, not to the operation -->\n"
        '<form action="/orders" method="post" axag-intent="order.create" axag-action-type="write" axag-risk-level="low"\n'
        '      axag-operation-id="createOrder" axag-description="Order an article">\n'
        '  <label>Article <input name="sku"></label>\n'
        "  <button>Order</button>\n"
        "</form>"
    ),
)


@OPENAPI_DRIFT.check()
def openapi_drift(ctx: RuleCtx, act: Action) -> None:
    """The action's operation in the --openapi document disagrees with its parameters."""
    if ctx.openapi is None or act.intent is None:
        return
    op_value = act.v("axag-operation-id")
    if not op_value.ok:
        return
    from axag.model import harvest as H  # (the rules are declared without the model)

    scope = H.scope_of(ctx.model, act)
    if scope is not None and H.submitting_form(ctx.model, act, scope) is not None:
        return  # bound to its form (org.axag/http), not to the operation
    op_id = str(op_value.value)
    span = op_value.value_span()
    op = ctx.openapi.get(op_id)
    if op is None:
        OPENAPI_DRIFT.report(ctx, span, act.element, "axag-operation-id", msg="no_operation", op=op_id,
                             file=ctx.openapi_name)
        return
    by_name = {p.name: p for p in act.parameters}
    for d in operation_drift(op["params"], {p.name: p.schema for p in act.parameters}):
        if d.declared is None:
            OPENAPI_DRIFT.report(ctx, span, act.element, "axag-operation-id", op=op_id, location=d.location,
                                 p=d.name,
                       intent=act.intent, pair=d.name)
        else:
            p = by_name[d.name]
            OPENAPI_DRIFT.report(ctx, p.span or span, act.element, msg="type", p=d.name, t1=d.declared,
                                 t2=d.theirs,
                       op=op_id, intent=act.intent, pair=d.name)


# ------------------------------------------------------------------------------------------------
# The model records what it observes as facts (`axag.model.facts`); the checks below judge them.

INVALID_PARAMS_FROM = Rule(
    code=140,
    name="invalid-params-from",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="§5.1",
    plain='an axag-params-from that is not "#" followed by the id of an element in the same file',
    messages={
        "default": 'axag-params-from="{v}" must be "#id" of an element in this file',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" type="button" axag-params-from="filters">Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" type="button" axag-params-from="#missing">Add</button>'
    ),
    passes=(
        '<div id="filters"><input name="q"></div>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" type="button" axag-params-from="#filters">Add</button>'
    ),
)


INVALID_SCHEMA_REF = Rule(
    code=141,
    name="invalid-schema-ref",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="§3.7",
    plain="an axag-schema that is not zod:PATH[#EXPORT] or openapi:[PATH#]OPERATION_ID",
    messages={
        "default": 'axag-schema="{v}" must be zod:PATH[#EXPORT] or openapi:[PATH#]OPERATION_ID',
    },
    fails=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-schema="zod:">Add</button>\n'
        '<button axag-intent="cart.add" axag-action-type="write" axag-schema="graphql:AddItem">Add</button>'
    ),
    passes=(
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-schema="zod:src/schemas/cart.ts#AddItem">Add</button>\n'
        '<button axag-intent="cart.put" axag-action-type="write" axag-risk-level="low" axag-schema="openapi:addItem">Put</button>'
    ),
)


# the facts the model records about axag-params-from and axag-schema (`axag.model.actions`, `values`)
judge(INVALID_PARAMS_FROM, Kind.PARAMS_FROM_NOT_FOUND)
judge(INVALID_SCHEMA_REF, Kind.BAD_SCHEMA_REF)
