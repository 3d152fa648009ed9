"""What `axag compile --check` says about a stale tools file: which tools changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["changed_tools"]


def _by_name(text: str) -> dict[str, str] | None:
    """Tool name -> its canonical JSON text, for every target's document; None when ``text`` is not one."""
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    items = doc.get("tools", doc.get("actions"))
    if not isinstance(items, list):
        return None
    named: dict[str, str] = {}
    for item in items:
        if not isinstance(item, dict):
            return None
        inner: Any = item.get("function")
        name = item.get("name") or (inner.get("name") if isinstance(inner, dict) else None) or item.get("intent")
        named[str(name)] = json.dumps(item, sort_keys=True)
    return named


def changed_tools(path: str, new_text: str) -> str:
    """``"changed: a, b; added: c; removed: d"`` between the file at ``path`` and ``new_text``, or what else
    differs (the file is missing, not a tools document, or only its header changed)."""
    try:
        old_text = Path(path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return "it does not exist"
    old, new = _by_name(old_text), _by_name(new_text)
    if old is None or new is None:
        return "it is not a tools document"
    parts = [(what, sorted(names)) for what, names in (
        ("changed", {n for n in old.keys() & new.keys() if old[n] != new[n]}),
        ("added", new.keys() - old.keys()),
        ("removed", old.keys() - new.keys()),
    ) if names]
    if not parts:
        return "no tool changed; the rest of the document did"
    return "; ".join(f"{what}: {', '.join(names)}" for what, names in parts)
