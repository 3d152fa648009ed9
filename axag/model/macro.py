"""Expansion of the ``axag`` macro attribute into longhand attributes (the axag macro).

``expand("write:cart.add_item!low?confirm&roles=admin,ops")`` gives the longhand values exactly as the longhand
attributes would be written (booleans ``true``/``false``, lists as compact JSON string arrays), the span of each
part inside the macro value (so findings on expanded attributes can point into it), and the syntax errors as
``(1-based column, detail)`` pairs for ``AXAG-LINT-027``.

Error semantics: an empty value, a missing ``:``, a bad action type or a bad intent stop the expansion (nothing
is produced); a bad risk, unknown key, repeated key, bad boolean, empty value, bad enum value or bad list token
drops only that part. ``intent_error`` tells the caller that ``034`` must stay silent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Final

from axag.vocabulary import (
    ACTION_TYPES,
    INTENT_RE,
    LEGACY_ACTION_TYPE_REPLACEMENT,
    LEGACY_ACTION_TYPES,
    RISK_LEVELS,
    SCOPES,
    TENANT_BOUNDARIES,
    did_you_mean,
)

__all__ = ["MACRO_KEYS", "MacroResult", "expand"]

# key -> (longhand attribute, kind, allowed values for enums)
MACRO_KEYS: Final[dict[str, tuple[str, str, tuple[str, ...]]]] = {
    "approval": ("axag-approval-required", "boolean", ()),
    "confirm": ("axag-confirmation-required", "boolean", ()),
    "idempotent": ("axag-idempotent", "boolean", ()),
    "async": ("axag-async", "boolean", ()),
    "scope": ("axag-scope", "enum", SCOPES),
    "tenant": ("axag-tenant-boundary", "enum", TENANT_BOUNDARIES),
    "roles": ("axag-approval-roles", "list", ()),
    "effects": ("axag-side-effects", "list", ()),
    "req": ("axag-required-parameters", "list", ()),
    "opt": ("axag-optional-parameters", "list", ()),
}
_ENUM_NAMES: Final = {"scope": "scope", "tenant": "tenant boundary"}
_TOKEN: Final = re.compile(r"[A-Za-z0-9_-]+")


@dataclass
class MacroResult:
    """``attrs``: longhand name -> value; ``parts``: longhand name -> ``(start, end)`` in the macro value
    (the value after ``=`` for keys with a value, else the key); ``errors``: ``(column, detail)``."""

    attrs: dict[str, str] = field(default_factory=dict)
    parts: dict[str, tuple[int, int]] = field(default_factory=dict)
    errors: list[tuple[int, str]] = field(default_factory=list)
    # the width of each error's span in code points (the word it is about; 1 for a missing or stray character)
    widths: list[int] = field(default_factory=list)
    intent_error: bool = False
    stopped: bool = False

    def error(self, column: int, detail: str, width: int = 1) -> None:
        self.errors.append((column, detail))
        self.widths.append(max(width, 1))

    def _stop(self, column: int, detail: str, width: int = 1) -> MacroResult:
        self.error(column, detail, width)
        self.attrs.clear()
        self.parts.clear()
        self.stopped = True
        return self


def expand(value: str) -> MacroResult:
    """Expand one macro value (already entity-decoded)."""
    res = MacroResult()
    if not value.strip():
        return res._stop(1, "empty macro")
    colon = value.find(":")
    if colon < 0:
        return res._stop(1, "missing ':' after the action type")
    action = value[:colon]
    if action not in ACTION_TYPES:
        if action.lower() in LEGACY_ACTION_TYPES:
            return res._stop(1, f'action type "{action}" is not accepted; use "{LEGACY_ACTION_TYPE_REPLACEMENT}"', len(action))
        return res._stop(1, f'invalid action type "{action}"; must be one of: {", ".join(ACTION_TYPES)}',
                         len(action))
    res.attrs["axag-action-type"] = action
    res.parts["axag-action-type"] = (0, colon)

    start = colon + 1
    end = _find_any(value, "!?", start)
    intent = value[start:end]
    if not INTENT_RE.fullmatch(intent):
        res.intent_error = True
        detail = "missing intent" if not intent else f'invalid intent "{intent}"; must be entity.verb in lower case'
        return res._stop(start + 1, detail, len(intent))
    res.attrs["axag-intent"] = intent
    res.parts["axag-intent"] = (start, end)

    pos = end
    if pos < len(value) and value[pos] == "!":
        rstart = pos + 1
        rend = _find_any(value, "?", rstart)
        risk = value[rstart:rend]
        if not risk:
            res.error(pos + 1, "missing risk level after '!'")
        elif risk in RISK_LEVELS:
            res.attrs["axag-risk-level"] = risk
            res.parts["axag-risk-level"] = (rstart, rend)
        else:
            res.error(rstart + 1, f'invalid risk level "{risk}"; must be one of: {", ".join(RISK_LEVELS)}', len(risk))
        pos = rend
    if pos < len(value):  # value[pos] == "?"
        _pairs(value, pos + 1, res)
    return res


def _find_any(text: str, chars: str, start: int) -> int:
    for i in range(start, len(text)):
        if text[i] in chars:
            return i
    return len(text)


def _pairs(value: str, pos: int, res: MacroResult) -> None:
    seen: set[str] = set()
    n = len(value)
    while True:
        end = _find_any(value, "&", pos)
        _pair(value, pos, end, res, seen)
        if end >= n:
            return
        pos = end + 1


def _pair(value: str, start: int, end: int, res: MacroResult, seen: set[str]) -> None:
    eq = value.find("=", start, end)
    key_end = eq if eq >= 0 else end
    key = value[start:key_end]
    col = start + 1
    if not key:
        if eq >= 0:
            res.error(col, "missing key before '='")
        else:  # nothing between two separators, or after the last one: point at the separator
            res.error(start, f"empty pair after '{value[start - 1]}'")
        return
    spec = MACRO_KEYS.get(key)
    if spec is None:
        hint = did_you_mean(key, tuple(MACRO_KEYS))
        res.error(col, f'unknown key "{key}"' + (f'; did you mean "{hint}"?' if hint else ""), len(key))
        return
    if key in seen:
        res.error(col, f'repeated key "{key}"', len(key))
        return
    seen.add(key)
    attr, kind, allowed = spec
    if eq < 0:
        if kind == "boolean":
            res.attrs[attr] = "true"
            res.parts[attr] = (start, end)
        else:
            res.error(col, f'"{key}" needs a value', len(key))
        return
    vstart = eq + 1
    raw = value[vstart:end]
    vcol = vstart + 1
    if not raw:
        res.error(eq + 1, f'empty value for "{key}"')
        return
    if kind == "boolean":
        if raw not in ("true", "false"):
            res.error(vcol, f'"{key}" must be true or false, not "{raw}"', len(raw))
            return
        out = raw
    elif kind == "enum":
        if raw not in allowed:
            res.error(vcol, f'invalid {_ENUM_NAMES[key]} "{raw}"; must be one of: {", ".join(allowed)}', len(raw))
            return
        out = raw
    else:
        items: list[str] = []
        bad = False
        tstart = vstart
        for token in raw.split(","):
            tend = tstart + len(token)
            if not token:
                # point at the comma next to the empty item
                at = tend if tend < end else tstart - 1
                res.error(at + 1, f'empty item in "{key}"')
                bad = True
            elif not _TOKEN.fullmatch(token):
                res.error(tstart + 1, f'invalid item "{token}" in "{key}"', len(token))
                bad = True
            items.append(token)
            tstart = tend + 1
        if bad:
            return
        out = json.dumps(items, separators=(",", ":"))
    res.attrs[attr] = out
    res.parts[attr] = (vstart, end)
