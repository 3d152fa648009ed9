"""The only JSON writer of axag (determinism and serialisation, numbers canonical numbers).

`dumps` writes documents (tools.json, manifests, baselines, reports): UTF-8 text, 2-space indentation, `": "`
after keys, non-ASCII as is, control characters escaped, dictionary insertion order kept, one trailing newline.
`dumps_compact` writes values inside messages, descriptions and fixes (`,` and `:` without spaces).
Both write numbers with `canonical_number`.
"""

from __future__ import annotations

import json
import math
from typing import Any

from axag.values.jsontext import canonical_number, dumps_canonical, dumps_compact, normalise
from axag.values.jsontext import escape_surrogates as _escape_surrogates

__all__ = ["canonical_number", "dumps", "dumps_canonical", "dumps_compact", "dumps_indented", "dumps_pieces",
           "indented_fragment", "normalise"]

class _NotPlain(Exception):
    """A value `dumps_indented` leaves to the json module."""


_encode_str = json.encoder.encode_basestring  # the string encoder of ensure_ascii=False (C)


class _Parts(list[str]):
    """The output pieces of `_indented_into`: every few thousand pieces are joined into one (``done``), so
    that a big document is not held as hundreds of thousands of small strings."""

    def __init__(self) -> None:
        super().__init__()
        self.done: list[str] = []

    def spill(self) -> None:
        self.done.append("".join(self))
        self.clear()


_SPILL = 4096


def _indented_into(value: Any, newline: str, parts: list[str], canonical: bool = False) -> None:
    # the checks and their order are those of json's encoder (str, None, True, False, int, float, list/tuple, dict);
    # ``canonical``: floats as `canonical_number` writes them (what `normalise` would have made of them)
    if isinstance(value, str):
        parts.append(_encode_str(value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, int):
        parts.append(int.__repr__(value))
    elif isinstance(value, float):
        if canonical:
            parts.append(canonical_number(value))  # raises ValueError for non-finite numbers, as normalise does
            return
        if not math.isfinite(value):
            raise _NotPlain
        parts.append(float.__repr__(value))
    elif isinstance(value, (list, tuple)):
        if not value:
            parts.append("[]")
            return
        inner = newline + "  "
        sep = "[" + inner
        for item in value:
            parts.append(sep)
            sep = "," + inner
            _indented_into(item, inner, parts, canonical)
            if len(parts) > _SPILL and isinstance(parts, _Parts):
                parts.spill()
        parts.append(newline + "]")
    elif isinstance(value, dict):
        if not value:
            parts.append("{}")
            return
        inner = newline + "  "
        sep = "{" + inner
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NotPlain
            parts.append(sep)
            sep = "," + inner
            parts.append(_encode_str(key))
            parts.append(": ")
            # the common members inline (the same text as the recursive call gives them)
            if type(item) is str:
                parts.append(_encode_str(item))
            elif item is None:
                parts.append("null")
            elif type(item) is int:
                parts.append(int.__repr__(item))
            else:
                _indented_into(item, inner, parts, canonical)
        parts.append(newline + "}")
    else:
        raise _NotPlain


def dumps_indented(value: Any, **fallback: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=2, separators=(",", ": "), **fallback)``, the same text,
    built without the json module's pure-Python indenting encoder (several times faster on large documents).
    Anything but plain JSON data (other types, keys that are not strings, non-finite numbers, cycles, very
    deep nesting) is left to ``json.dumps`` itself, so such values give its text or its error."""
    parts: list[str] = []
    try:
        _indented_into(value, "\n", parts)
    except (_NotPlain, RecursionError):
        return json.dumps(value, ensure_ascii=False, indent=2, separators=(",", ": "), **fallback)
    return "".join(parts)


def indented_fragment(value: Any, newline: str, *, document: bool = False) -> str:
    """``value`` as `dumps_indented` writes it where it is nested with line breaks ``newline`` (a line feed and
    the indentation of its level), for documents written piece by piece. ``document``: as `dumps` writes it
    (canonical numbers, lone surrogates escaped)."""
    parts: list[str] = []
    try:
        _indented_into(value, newline, parts, canonical=document)
        text = "".join(parts)
    except (_NotPlain, RecursionError):
        text = dumps_indented(normalise(value) if document else value).replace("\n", newline)
    return _escape_surrogates(text) if document else text


def dumps(doc: Any) -> str:
    """`doc` as the text of an output file (determinism and serialisation), ending with exactly one newline. Plain JSON data is
    written in one pass (canonical numbers on the way); anything else goes through `normalise` and json."""
    return "".join(dumps_pieces(doc))


def dumps_pieces(doc: Any) -> list[str]:
    """The text of `dumps` as a list of pieces of a few tens of KB (written to a file one after the other, a
    big document is never held twice)."""
    parts = _Parts()
    try:
        _indented_into(doc, "\n", parts, canonical=True)
        parts.spill()
        pieces = [_escape_surrogates(piece) for piece in parts.done]
    except (_NotPlain, RecursionError):
        pieces = [_escape_surrogates(dumps_indented(normalise(doc), allow_nan=False))]
    pieces.append("\n")
    return pieces
