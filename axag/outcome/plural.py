"""Counted nouns for messages: ``plural(1, "error")`` is ``1 error``, ``plural(2, "entry", "entries")`` is
``2 entries``. The one place that decides between singular and plural."""

from __future__ import annotations

__all__ = ["plural"]


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``{count} {noun}``: the singular for exactly 1, else ``plural_form`` (default: ``singular + "s"``)."""
    return f"{count} {singular if count == 1 else (plural_form or singular + 's')}"
