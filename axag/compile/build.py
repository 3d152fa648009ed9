"""Action -> ToolContract (the tools.json output and its tool objects): the MCP tool object every target maps from."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from axag import vocabulary as V
from axag.compile.contract import INPUT_SCHEMA_URI, ManifestParam, ToolContract, output_schema
from axag.compile.sentence import as_sentence
from axag.model.types import Action, FileModel
from axag.model.values import Status


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def _roles_phrase(roles: list[str], one: str, many: str) -> str:
    if len(roles) == 1:
        return f"{one} {roles[0]}"
    return f"{many} {', '.join(roles)}"


def describe(act: Action) -> list[str]:
    """The description lines of description composition."""
    lines: list[str] = []
    desc = act.v("axag-description")
    intent = act.intent or ""
    lines.append(as_sentence(str(desc.value)) if desc.ok else V.humanise_intent(intent) + ".")
    if act.flag("axag-deprecated"):
        rep = act.v("axag-deprecated-replacement")
        lines.append(f"Deprecated; use {rep.value} instead." if rep.ok else "Deprecated.")
    if act.risk is not None:
        lines.append(f"Risk level: {act.risk}.")
    if act.flag("axag-confirmation-required"):
        line = "Requires explicit confirmation by the user before it runs."
        msg = act.v("axag-confirmation-message")
        if msg.ok:
            line += f' The user is asked: "{msg.value}"'
        lines.append(line)
    if act.flag("axag-approval-required"):
        roles = act.v("axag-approval-roles")
        count = approval_count(act)
        if roles.ok and roles.value:
            phrase = _roles_phrase(roles.value, "the role", "one of the roles")
            lines.append(f"Requires approval by {count} {_plural(count, 'approver', 'approvers')} holding "
                         f"{phrase}; a requester cannot approve their own call.")
    if act.required_roles:
        lines.append(f"The caller must hold {_roles_phrase(act.required_roles, 'the role', 'all of the roles')}.")
    if act.scope and act.tenant_boundary:
        lines.append(f"Scope: {act.scope}; tenant boundary: {act.tenant_boundary}.")
    elif act.scope:
        lines.append(f"Scope: {act.scope}.")
    elif act.tenant_boundary:
        lines.append(f"Tenant boundary: {act.tenant_boundary}.")
    effects = act.v("axag-side-effects")
    if effects.ok and effects.value:
        lines.append(f"Side effects: {', '.join(effects.value)}.")
    rate = act.v("axag-rate-limit")
    cool = act.v("axag-cooldown")
    rate_text = None
    if rate.ok:
        count_, period, _ = rate.value
        rate_text = f"at most {count_} {_plural(count_, 'call', 'calls')} per {period}"
    cool_text = f"at least {cool.value[0]} between calls" if cool.ok else None
    if rate_text and cool_text:
        lines.append(f"Rate limit: {rate_text}; cooldown: {cool_text}.")
    elif rate_text:
        lines.append(f"Rate limit: {rate_text}.")
    elif cool_text:
        lines.append(f"Cooldown: {cool_text}.")
    if act.flag("axag-async"):
        lines.append("Runs asynchronously: a successful call means the work was accepted, not finished.")
    if act.preconditions:
        lines.append("Preconditions:")
        lines.extend(f"- {p.text}" for p in act.preconditions)
    post = act.v("axag-postconditions")
    if post.ok and post.value:
        lines.append("Postconditions:")
        lines.extend(f"- {t}" for t in post.value)
    return lines


def approval_count(act: Action) -> int:
    c = act.v("axag-approval-count")
    return int(c.value) if c.ok else 1


def hints(act: Action, title: str) -> dict[str, Any]:
    at = act.action_type
    kind, risk = V.action_type(at), V.risk_level(act.risk)
    read_only = kind is not None and kind.read_only
    risk_declared = act.v("axag-risk-level").declared
    destructive = (kind is not None and kind.destructive) or (
        not read_only and (not risk_declared or (risk is not None and risk.confirm)))
    effects = act.v("axag-side-effects")
    open_world = not (effects.ok and read_only)
    return {
        "title": title,
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": act.flag("axag-idempotent") is True,
        "openWorldHint": open_world,
    }


def meta(act: Action, sources: list[dict[str, Any]]) -> dict[str, Any]:
    m: dict[str, Any] = {}
    m["intent"] = act.intent
    m["entity"] = act.effective_entity
    m["action_type"] = act.action_type
    if act.risk is not None:
        m["risk_level"] = act.risk
    m.update(_declared(act, (("idempotent", "axag-idempotent"),
                             ("confirmation_required", "axag-confirmation-required"),
                             ("confirmation_message", "axag-confirmation-message"),
                             ("approval_required", "axag-approval-required"))))
    roles = act.v("axag-approval-roles")
    if roles.ok:
        m["approval_roles"] = list(roles.value)
    if m.get("approval_required"):
        m["approval_count"] = approval_count(act)
    if act.required_roles:
        m["required_roles"] = list(act.required_roles)
    if act.scope:
        m["scope"] = act.scope
    if act.tenant_boundary:
        m["tenant_boundary"] = act.tenant_boundary
    effects = act.v("axag-side-effects")
    if effects.ok:
        m["side_effects"] = list(effects.value)
    if act.preconditions:
        pres = []
        for p in act.preconditions:
            item: dict[str, Any] = {"text": p.text, "kind": p.kind}
            if p.relation is not None:
                item["form"] = p.relation.form
                item["params"] = list(p.relation.names)
                if p.relation.has_value:
                    item["value"] = p.relation.value
            pres.append(item)
        m["preconditions"] = pres
    post = act.v("axag-postconditions")
    if post.ok:
        m["postconditions"] = list(post.value)
    rate = act.v("axag-rate-limit")
    if rate.ok:
        count_, period, window = rate.value
        m["rate_limit"] = {"count": count_, "period": period, "window_seconds": window}
    cool = act.v("axag-cooldown")
    if cool.ok:
        m["cooldown"] = {"duration": cool.value[0], "milliseconds": cool.value[1]}
    m.update(_declared(act, (("async", "axag-async"), ("operation_id", "axag-operation-id"),
                             ("role_escalation", "axag-role-escalation"))))
    bounds = {p.name: p.format_bounds for p in act.parameters if p.format_bounds}
    if bounds:
        m["format_bounds"] = bounds
    sch = act.v("axag-schema")
    if sch.ok:
        m["schema"] = sch.value
    for key, pairs in _GROUPS:
        group = _declared(act, pairs)
        if group:
            m[key] = group
    m["sources"] = sources
    if act.ann.extensions:
        m["extensions"] = {k: act.ann.extensions[k] for k in sorted(act.ann.extensions)}
    return m


# the org.axag/action metadata objects made of several attributes: (meta key, ((member, attribute), ...)), members in output order
_GROUPS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("workflow", (("id", "axag-workflow-id"), ("step", "axag-workflow-step"),
                  ("total_steps", "axag-workflow-total-steps"), ("next", "axag-workflow-next"),
                  ("previous", "axag-workflow-previous"))),
    ("visibility", (("visible", "axag-visible"), ("operable", "axag-operable"),
                    ("operability_reason", "axag-operability-reason"))),
    ("versioning", (("version", "axag-version"), ("since", "axag-since"), ("deprecated", "axag-deprecated"),
                    ("deprecated_replacement", "axag-deprecated-replacement"))),
)


def _declared(act: Action, pairs: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """The valid declared values among ``pairs`` as {member: value}, in the order of ``pairs``."""
    out: dict[str, Any] = {}
    values = act.ann.values  # = act.v(attr).ok without the calls (hot: five groups per action)
    for key, attr in pairs:
        v = values.get(attr)
        if v is not None and v.status is Status.OK:
            out[key] = v.value
    return out


def tool_name(act: Action) -> str:
    op = act.v("axag-operation-id")
    if op.ok:
        return str(op.value)
    return (act.intent or "").replace(".", "_")


def input_schema(act: Action) -> dict[str, Any]:
    return {
        "$schema": INPUT_SCHEMA_URI,
        "type": "object",
        "properties": {p.name: p.schema for p in act.parameters},
        "required": [p.name for p in act.parameters if p.required],
        "additionalProperties": False,
    }


def contract_for(act: Action, source: dict[str, Any], binding: dict[str, Any] | None = None) -> ToolContract:
    title = V.humanise_intent(act.intent or "")
    meta_: dict[str, Any] = {"org.axag/action": meta(act, [source])}
    if binding is not None:
        from axag.compile.http import BINDING_KEY

        meta_[BINDING_KEY] = binding
    tool = {
        "name": tool_name(act),
        "title": title,
        "description": "\n".join(describe(act)),
        "inputSchema": input_schema(act),
        "outputSchema": output_schema(),
        "annotations": hints(act, title),
        "_meta": meta_,
    }
    desc = act.v("axag-description")
    return ToolContract(
        tool=tool,
        declared_description=str(desc.value) if desc.ok else None,
        declared_required_parameters=act.v("axag-required-parameters").ok,
        params=[ManifestParam(p.name, p.required, p.harvested and not p.declared, p.harvested) for p in act.parameters],
        sources=[(source["file"], source["line"], source["column"])],
        declared=_shared_names(frozenset(n for n, v in act.ann.values.items() if v.ok)),
    )


_NAME_SETS: dict[frozenset[str], frozenset[str]] = {}


def _shared_names(names: frozenset[str]) -> frozenset[str]:
    """One object per distinct set of declared attribute names (contracts are kept for the whole run)."""
    return _NAME_SETS.setdefault(names, names)


def _has_contract(act: Action) -> bool:
    """Whether `build_contracts` makes a contract of the action (with or without errors)."""
    return not act.dynamic and act.intent is not None and act.action_type is not None


def declared_tools(model: FileModel) -> list[tuple[str, str]]:
    """(intent, tool name) of each action of the file that `build_contracts` makes a contract of, without building
    it: what the run-wide checks (duplicate intents, tool-name collisions) compare."""
    return [(act.intent, tool_name(act)) for act in model.actions if _has_contract(act) and act.intent is not None]


def build_contracts(model: FileModel, out: Any, request: Any, error_elements: set[int],
                    only: Collection[tuple[str, str]] | None = None) -> tuple[
        list[tuple[ToolContract, bool]], list[tuple[str, int, str]]]:
    """Contracts of the file's actions as (contract, has_errors); and the dynamic actions. ``only``: the contracts
    of the actions with these (intent, tool name) only (`declared_tools`)."""
    import os
    from pathlib import Path

    root = request.compile_root or Path.cwd()
    try:
        rel = Path(os.path.relpath(out.path, root)).as_posix()
    except ValueError:
        rel = Path(out.path).as_posix()
    contracts: list[tuple[ToolContract, bool]] = []
    dynamic: list[tuple[str, int, str]] = []
    lines = model.pf.lines
    only_intents = None if only is None else {intent for intent, _ in only}
    for act in model.actions:
        if act.dynamic:
            line = lines.position(act.element.start)[0]
            attrs = ", ".join(dict.fromkeys(a for a in act.ann.dynamic_attrs if not a.startswith("axag-x-")))
            dynamic.append((rel, line, f"dynamic values in {attrs}"))
            continue
        if not _has_contract(act) or (only is not None and only_intents is not None and (
                act.intent not in only_intents or (act.intent, tool_name(act)) not in only)):
            continue
        line, col = lines.position(act.element.start)
        has_errors = id(act.element) in error_elements
        from axag.compile.http import http_binding

        contract = contract_for(act, {"file": rel, "line": line, "column": col}, http_binding(model, act, rel))
        if not has_errors:
            from axag.compile.merge import contract_key

            contract.key = contract_key(contract.tool)
        contracts.append((contract, has_errors))
    return contracts, dynamic
