"""Text that came from a caller (an agent's `reason`, argument values, names), made safe to show a person.

Control characters (C0, DEL, C1), bidirectional and other invisible format characters, and line or paragraph
separators are shown escaped (`\\x1b`, `\\u202e`), so that an agent cannot erase or reorder what an approver
reads in a terminal or on the approval page. JSON output escapes them as JSON does (`\\u001b`, `\\u202e`), so a
reader still decodes the exact text.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable

__all__ = ["shown", "shown_json"]

_UNSAFE = frozenset(("Cc", "Cf", "Zl", "Zp"))


def _escaped(ch: str) -> str:
    n = ord(ch)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def _json_escaped(ch: str) -> str:
    n = ord(ch)
    if n < 0x10000:
        return f"\\u{n:04x}"
    n -= 0x10000  # a UTF-16 surrogate pair, as JSON writes characters beyond the BMP
    return f"\\u{0xD800 + (n >> 10):04x}\\u{0xDC00 + (n & 0x3FF):04x}"


def _sub(text: str, escape: Callable[[str], str], keep: str = "") -> str:
    if text.isascii() and text.isprintable():
        return text
    return "".join(escape(c) if unicodedata.category(c) in _UNSAFE and c not in keep else c for c in text)


def shown(text: str) -> str:
    """``text`` with every control, bidi/format and separator character written as an escape (``\\x1b``)."""
    return _sub(text, _escaped)


def shown_json(value: object, *, indent: int | None = None) -> str:
    """Sorted-key JSON of ``value`` (not ASCII-only) with those characters as JSON escapes (``\\u202e``); they
    occur only inside strings (JSON escapes C0 there itself, so a raw line break is the indentation's)."""
    return _sub(json.dumps(value, ensure_ascii=False, sort_keys=True, indent=indent), _json_escaped, "\n")
