"""Compare two tools.json documents the way an agent would notice: tools added, removed and changed, and for
a changed tool each part of its contract that changed.

A change is *felt* (highlighted) when a call that worked may now fail or a safety gate got weaker or
stronger: a new required parameter, a removed parameter, a narrower type or constraint, a changed risk level,
an added or removed confirmation or approval, changed roles, scope, rate limit, preconditions or hints.
Wording (description, titles), parameter descriptions and moved sources are listed but not highlighted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from axag.catalogue.model import RISK_ORDER, ToolView
from axag.catalogue.words import precondition_text, value_text


@dataclass
class Change:
    part: str  # "parameter guests", "risk level", "description", ...
    what: str  # a sentence saying what changed
    felt: bool
    old: str = ""
    new: str = ""


@dataclass
class ToolDiff:
    name: str
    title: str
    changes: list[Change]
    old: ToolView
    new: ToolView

    @property
    def felt(self) -> int:
        return sum(1 for c in self.changes if c.felt)


@dataclass
class CatalogueDiff:
    added: list[ToolView] = field(default_factory=list)
    removed: list[ToolView] = field(default_factory=list)
    changed: list[ToolDiff] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)


def _text(value: Any) -> str:
    if value is None:
        return "(absent)"
    return value if isinstance(value, str) else value_text(value)


# bounds: keyword -> True when a larger value is tighter
_TIGHTER_WHEN_LARGER = {"minimum": True, "exclusiveMinimum": True, "minLength": True, "minItems": True,
                        "maximum": False, "exclusiveMaximum": False, "maxLength": False, "maxItems": False}
_PARAM_NOTE_KEYS = {"description", "examples", "default"}


def _param_changes(name: str, old: dict[str, Any], new: dict[str, Any], old_req: bool, new_req: bool) -> list[Change]:
    part = f"parameter {name}"
    out: list[Change] = []
    if old_req != new_req:
        out.append(Change(part, "now required" if new_req else "now optional", new_req,
                          "required" if old_req else "optional", "required" if new_req else "optional"))
    for key in [*old, *(k for k in new if k not in old)]:
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if key in _TIGHTER_WHEN_LARGER and isinstance(a, (int, float)) and isinstance(b, (int, float)):
            tighter = (b > a) == _TIGHTER_WHEN_LARGER[key]
            out.append(Change(part, f"{key} {'tightened' if tighter else 'relaxed'}", tighter, _text(a), _text(b)))
        elif key in _TIGHTER_WHEN_LARGER:
            out.append(Change(part, f"{key} {'added' if a is None else 'removed' if b is None else 'changed'}",
                              b is not None, _text(a), _text(b)))
        elif key == "enum" and isinstance(a, list) and isinstance(b, list):
            lost = [v for v in a if v not in b]
            gained = [v for v in b if v not in a]
            words = []
            if lost:
                words.append("values removed: " + ", ".join(value_text(v) for v in lost))
            if gained:
                words.append("values added: " + ", ".join(value_text(v) for v in gained))
            out.append(Change(part, "; ".join(words) or "values reordered", bool(lost), _text(a), _text(b)))
        elif key in _PARAM_NOTE_KEYS:
            out.append(Change(part, f"{key} changed", False, _text(a), _text(b)))
        else:
            word = "added" if a is None else "removed" if b is None else "changed"
            out.append(Change(part, f"{key} {word}", True, _text(a), _text(b)))
    return out


def _params(old: ToolView, new: ToolView) -> list[Change]:
    out: list[Change] = []
    before = {p.name: p for p in old.params}
    after = {p.name: p for p in new.params}
    for name, p in before.items():
        if name not in after:
            out.append(Change(f"parameter {name}", "removed: calls that pass it fail", True,
                              "; ".join([p.type, *p.constraints]), "(absent)"))
    for name, p in after.items():
        if name not in before:
            out.append(Change(f"parameter {name}", f"new {'required' if p.required else 'optional'} parameter",
                              p.required, "(absent)", "; ".join([p.type, *p.constraints])))
        else:
            q = before[name]
            a = q.schema if isinstance(q.schema, dict) else {}
            b = p.schema if isinstance(p.schema, dict) else {}
            out += _param_changes(name, a, b, q.required, p.required)
    return out


def _risk(old: Any, new: Any) -> Change:
    def rank(v: Any) -> int:
        return RISK_ORDER.index(v) if v in RISK_ORDER else -1

    if rank(new) < rank(old):
        what = "risk level lowered: agents may call it with less care"
    elif old is None:
        what = "risk level declared"
    elif new is None:
        what = "risk level removed"
    else:
        what = "risk level raised"
    return Change("risk level", what, True, _text(old), _text(new))


def _flag(part: str, old: Any, new: Any, added: str, removed: str) -> Change:
    on_before, on_after = old is True, new is True
    if on_before != on_after:
        return Change(part, added if on_after else removed, True, _text(old), _text(new))
    return Change(part, f"{part} changed", True, _text(old), _text(new))


# metadata keys whose changes agents feel (everything else is listed as a note)
_FELT_META = {"action_type", "required_roles", "scope", "tenant_boundary", "side_effects", "rate_limit", "cooldown",
              "async", "idempotent", "approval_roles", "approval_count", "role_escalation", "visibility",
              "format_bounds", "workflow", "versioning"}
_META_LABEL = {"action_type": "action type", "required_roles": "required roles", "side_effects": "side effects",
               "rate_limit": "rate limit", "tenant_boundary": "tenant boundary", "approval_roles": "approval roles",
               "approval_count": "approval count", "confirmation_message": "confirmation message",
               "operation_id": "operation id"}


def _meta(old: ToolView, new: ToolView) -> list[Change]:
    a, b = old.meta, new.meta
    out: list[Change] = []
    for key in [*a, *(k for k in b if k not in a)]:
        x, y = a.get(key), b.get(key)
        if x == y:
            continue
        if key == "risk_level":
            out.append(_risk(x, y))
        elif key == "confirmation_required":
            out.append(_flag("confirmation", x, y, "confirmation added", "confirmation removed: the user is no "
                             "longer asked before it runs"))
        elif key == "approval_required":
            out.append(_flag("approval", x, y, "approval added", "approval removed: no approver is needed any more"))
        elif key == "approval_count" and isinstance(x, int) and isinstance(y, int):
            out.append(Change("approval count", "fewer approvers" if y < x else "more approvers", True,
                              _text(x), _text(y)))
        elif key == "preconditions":
            out += _list_changes("precondition", [precondition_text(p, {}) for p in x or []],
                                 [precondition_text(p, {}) for p in y or []], True)
        elif key == "postconditions":
            out += _list_changes("postcondition", [_text(p) for p in x or []], [_text(p) for p in y or []], False)
        elif key == "sources":
            out.append(Change("sources", "source location changed", False, _sources(x), _sources(y)))
        else:
            label = _META_LABEL.get(key, key.replace("_", " "))
            word = "added" if x is None else "removed" if y is None else "changed"
            out.append(Change(label, f"{label} {word}", key in _FELT_META, _text(x), _text(y)))
    return out


def _sources(value: Any) -> str:
    if not isinstance(value, list):
        return _text(value)
    return ", ".join(f"{s.get('file')}:{s.get('line')}" if isinstance(s, dict) else _text(s) for s in value)


def _list_changes(part: str, old: list[str], new: list[str], felt: bool) -> list[Change]:
    out = [Change(part, f"{part} removed", felt, t, "(absent)") for t in old if t not in new]
    out += [Change(part, f"{part} added", felt, "(absent)", t) for t in new if t not in old]
    return out


_HINTS = {"readOnlyHint": "read-only", "destructiveHint": "destructive", "idempotentHint": "idempotent",
          "openWorldHint": "open world"}


def _annotations(old: ToolView, new: ToolView) -> list[Change]:
    out = []
    for key, label in _HINTS.items():
        x, y = old.annotations.get(key), new.annotations.get(key)
        if x != y:
            out.append(Change(f"hint {label}", f"{'now' if y is True else 'no longer'} {label}", True,
                              _text(x), _text(y)))
    return out


def tool_changes(old: ToolView, new: ToolView) -> list[Change]:
    out: list[Change] = []
    if old.title != new.title:
        out.append(Change("title", "title changed", False, old.title, new.title))
    if old.description != new.description:
        out.append(Change("description", "the description the model reads changed", False, old.description,
                          new.description))
    out += _params(old, new)
    out += _meta(old, new)
    out += _annotations(old, new)
    if old.http != new.http:
        out.append(Change("HTTP binding", "HTTP binding changed", False, _text(old.http), _text(new.http)))
    return out


def compare(old: list[ToolView], new: list[ToolView]) -> CatalogueDiff:
    """Tools matched by name; each list in name order."""
    before = {t.name: t for t in old}
    after = {t.name: t for t in new}
    out = CatalogueDiff()
    for name in sorted(set(before) | set(after)):
        if name not in after:
            out.removed.append(before[name])
        elif name not in before:
            out.added.append(after[name])
        else:
            changes = tool_changes(before[name], after[name])
            if changes:
                out.changed.append(ToolDiff(name, after[name].title, changes, before[name], after[name]))
            else:
                out.unchanged.append(name)
    return out


__all__ = ["CatalogueDiff", "Change", "ToolDiff", "compare"]
