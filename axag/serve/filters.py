"""Which compiled tools `axag serve` exposes: ``--read-only``, ``--max-risk``, ``--tools`` and
``--exclude-tools``, from flags or ``[tool.axag.serve]``.

The filter is applied to the tools document before the server is built, so a tool it leaves out does not exist
for the server: `tools/list` does not show it, `tools/call` answers it as an unknown tool (the same answer as a
name that was never compiled, so a caller learns nothing about what is hidden), `request_permission` does not
accept it, no guard is loaded for it and it needs no binding.

A tool is served when all of these hold:
- ``--tools`` is not given, or its name matches at least one ``--tools`` glob;
- its name matches no ``--exclude-tools`` glob (an exclusion beats an inclusion);
- without ``--read-only``, or its action type is a read-only one (`read_only_action`);
- without ``--max-risk``, or its declared risk level is at most that level (an undeclared risk counts as the
  highest level, ``critical``: what a wrong call does is unknown).
Globs are shell-style (``*``, ``?``, ``[…]``), matched case-sensitively against the whole tool name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

import axag.vocabulary as V

__all__ = ["ToolFilter", "read_only_action", "risk_rank"]


def read_only_action(action_type: object) -> bool:
    """Whether an action of ``action_type`` changes nothing (``read``, ``navigate``): the vocabulary's own
    property of the value (`axag.vocabulary.ActionType.read_only`, the one the compiler's ``readOnlyHint``
    reads); False for a value that is not an action type."""
    declared = V.action_type(action_type)
    return declared is not None and declared.read_only


def risk_rank(level: object) -> int:
    """The position of ``level`` in the vocabulary's risk order (none < low < … < critical); an undeclared or
    unknown level ranks as ``critical``."""
    rank = V.risk_rank(level) if isinstance(level, str) else -1
    return rank if rank >= 0 else len(V.RISK_LEVELS) - 1


def _action(tool: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = tool.get("_meta")
    action = meta.get("org.axag/action") if isinstance(meta, Mapping) else None
    return action if isinstance(action, Mapping) else {}


@dataclass(frozen=True)
class ToolFilter:
    read_only: bool = False
    max_risk: str | None = None
    tools: tuple[str, ...] = ()
    exclude_tools: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        return self.read_only or self.max_risk is not None or bool(self.tools) or bool(self.exclude_tools)

    def admits(self, tool: Mapping[str, Any]) -> bool:
        name = str(tool.get("name", ""))
        if self.tools and not any(fnmatchcase(name, g) for g in self.tools):
            return False
        if any(fnmatchcase(name, g) for g in self.exclude_tools):
            return False
        action = _action(tool)
        if self.read_only and not read_only_action(action.get("action_type")):
            return False
        return self.max_risk is None or risk_rank(action.get("risk_level")) <= risk_rank(self.max_risk)

    def unmatched(self, names: Sequence[str]) -> list[str]:
        """The ``--tools`` and ``--exclude-tools`` globs that match none of ``names`` (most likely mistyped)."""
        flags = [("--tools", g) for g in self.tools] + [("--exclude-tools", g) for g in self.exclude_tools]
        return [f"{flag} {g}" for flag, g in flags if not any(fnmatchcase(n, g) for n in names)]

    def apply(self, doc: Mapping[str, Any]) -> dict[str, Any]:
        """``doc`` with only the tools this filter admits (the document itself when the filter is inactive)."""
        if not self.active:
            return dict(doc)
        return {**doc, "tools": [t for t in doc["tools"] if self.admits(t)]}

    def summary(self) -> str:
        parts = []
        if self.read_only:
            parts.append("--read-only")
        if self.max_risk is not None:
            parts.append(f"--max-risk {self.max_risk}")
        parts += [f"--tools {g}" for g in self.tools] + [f"--exclude-tools {g}" for g in self.exclude_tools]
        return " ".join(parts)
