"""RENDER the constraint context block (the constraint context block): an MCP tools document -> model-readable text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from axag.compile.serialize import canonical_number, dumps_compact
from axag.outcome.errors import InputError

__all__ = ["HEADER", "block"]

HEADER = (
    "You can call the tools below. The application checks every rule listed here on every call.\n"
    'When a call is refused, the tool returns "success": false with a "permission" status, "violations" '
    '(field, constraint, expected, actual, message) and "guidance". Follow the guidance; never repeat a refused '
    "call with the same arguments.\n"
    "People handle confirmations and approvals in the application. Never confirm or approve a call yourself and "
    "never ask for approval links or codes.\n"
    "\n"
    "Active constraints:\n"
)


def _num(value: Any) -> str:
    try:
        return canonical_number(value)
    except (TypeError, ValueError):
        return dumps_compact(value)


def _type_phrase(schema: Mapping[str, Any]) -> str:
    t = schema.get("type")
    if isinstance(t, list):
        t = " or ".join(str(x) for x in t)
    if t == "array":
        items = schema.get("items")
        return "array of " + _type_phrase(items) if isinstance(items, Mapping) else "array"
    return str(t)


def _constraint_phrases(schema: Mapping[str, Any], bounds: Mapping[str, Any] | None) -> list[str]:
    out: list[str] = []
    if "format" in schema:
        out.append(f"format {schema['format']}")
    if "enum" in schema:
        out.append(f"one of {dumps_compact(schema['enum'])}")
    if "const" in schema:
        out.append(f"exactly {dumps_compact(schema['const'])}")
    if "default" in schema:
        out.append(f"default {dumps_compact(schema['default'])}")
    words = (
        ("minimum", "at least {}"),
        ("exclusiveMinimum", "greater than {}"),
        ("maximum", "at most {}"),
        ("exclusiveMaximum", "less than {}"),
        ("multipleOf", "a multiple of {}"),
        ("minLength", "at least {} characters"),
        ("maxLength", "at most {} characters"),
    )
    for key, template in words:
        if key in schema:
            out.append(template.format(_num(schema[key])))
    if "pattern" in schema:
        out.append(f"matching the regular expression {dumps_compact(schema['pattern'])}")
    if "minItems" in schema:
        out.append(f"at least {_num(schema['minItems'])} items")
    if "maxItems" in schema:
        out.append(f"at most {_num(schema['maxItems'])} items")
    if schema.get("uniqueItems") is True:
        out.append("unique items")
    if bounds:
        if isinstance(bounds.get("formatMinimum"), str):
            out.append(f"not before {bounds['formatMinimum']}")
        if isinstance(bounds.get("formatMaximum"), str):
            out.append(f"not after {bounds['formatMaximum']}")
    return out


def _parameter_lines(
    properties: Mapping[str, Any], required: Sequence[str], bounds: Mapping[str, Any], indent: str
) -> list[str]:
    lines: list[str] = []
    for name, schema in properties.items():
        if not isinstance(schema, Mapping):
            continue
        flag = "required" if name in required else "optional"
        phrases = [_type_phrase(schema), *_constraint_phrases(schema, bounds.get(name))]
        lines.append(f"{indent}{name} ({flag}): {', '.join(phrases)}")
        members = schema.get("properties")
        if schema.get("type") == "object" and isinstance(members, Mapping) and members:
            member_required = schema.get("required")
            lines.extend(
                _parameter_lines(
                    members, member_required if isinstance(member_required, list) else [], {}, indent + "  "
                )
            )
    return lines


def _roles_all(roles: Sequence[str]) -> str:
    return f"the role {roles[0]}" if len(roles) == 1 else "all of the roles " + ", ".join(roles)


def _roles_any(roles: Sequence[str]) -> str:
    if not roles:
        return "any role"
    return f"the role {roles[0]}" if len(roles) == 1 else "one of the roles " + ", ".join(roles)


def _tool_block(tool: Mapping[str, Any]) -> list[str]:
    meta: Mapping[str, Any] = tool["_meta"]["org.axag/action"]
    schema: Mapping[str, Any] = tool.get("inputSchema") or {}
    lines = [f"- {tool['name']} ({tool.get('title', tool['name'])}):"]
    kind = f"    kind: {meta.get('action_type')}"
    if "risk_level" in meta:
        kind += f", risk {meta['risk_level']}"
    if meta.get("idempotent") is True:
        kind += ", idempotent"
    elif meta.get("idempotent") is False:
        kind += ", not idempotent"
    lines.append(kind)
    properties = schema.get("properties") or {}
    if not properties:
        lines.append("    parameters: none")
    else:
        lines.append("    parameters:")
        lines.extend(
            _parameter_lines(properties, schema.get("required") or [], meta.get("format_bounds") or {}, "      ")
        )
    preconditions = [p for p in meta.get("preconditions") or [] if isinstance(p, Mapping)]
    relational = [p["text"] for p in preconditions if p.get("kind") == "relational"]
    opaque = [p["text"] for p in preconditions if p.get("kind") != "relational"]
    if relational:
        lines.append("    rules between parameters:")
        lines.extend(f"      {t}" for t in relational)
    if opaque:
        lines.append("    preconditions checked by the application:")
        lines.extend(f"      {t}" for t in opaque)
    if meta.get("confirmation_required") is True:
        line = "    confirmation: the user must confirm each call"
        if isinstance(meta.get("confirmation_message"), str):
            line += f'; they are asked: "{meta["confirmation_message"]}"'
        lines.append(line)
    if meta.get("approval_required") is True:
        n = meta.get("approval_count", 1)
        lines.append(
            f"    approval: {n} {'approver' if n == 1 else 'approvers'} holding "
            f"{_roles_any(meta.get('approval_roles') or [])} must approve each call; no self-approval; "
            "ask for it with the request_permission tool (tool, arguments, reason) when the server lists it"
        )
    if meta.get("required_roles"):
        lines.append(f"    required roles: the caller must hold {_roles_all(meta['required_roles'])}")
    if "scope" in meta:
        line = f"    scope: {meta['scope']}"
        if "tenant_boundary" in meta:
            line += f"; tenant boundary: {meta['tenant_boundary']}"
        lines.append(line)
    elif "tenant_boundary" in meta:
        lines.append(f"    tenant boundary: {meta['tenant_boundary']}")
    rate, cooldown = meta.get("rate_limit"), meta.get("cooldown")
    if isinstance(rate, Mapping):
        count = rate["count"]
        line = f"    rate limit: at most {count} {'call' if count == 1 else 'calls'} per {rate['period']}"
        if isinstance(cooldown, Mapping):
            line += f"; cooldown {cooldown['duration']} between calls"
        lines.append(line)
    elif isinstance(cooldown, Mapping):
        lines.append(f"    cooldown: at least {cooldown['duration']} between calls")
    if meta.get("side_effects"):
        lines.append(f"    side effects: {', '.join(meta['side_effects'])}")
    return lines


def block(doc: Mapping[str, Any], tools: Sequence[str] | None = None) -> str:
    """The constraint context block for ``doc`` (all tools, or only ``tools``), sorted by name.

    Raises ``InputError`` for unknown tool names.
    """
    available = {str(t["name"]): t for t in doc.get("tools") or []}
    if tools:
        unknown = [name for name in dict.fromkeys(tools) if name not in available]
        if unknown:
            raise InputError(f"unknown tool {', '.join(unknown)} (known: {', '.join(sorted(available)) or 'none'})")
        names = sorted(set(tools))
    else:
        names = sorted(available)
    text = HEADER
    for name in names:
        text += "\n" + "\n".join(_tool_block(available[name])) + "\n"
    return text
