"""Punctuation of composed descriptions (description composition, the other compile targets): a declared text that is followed by another
sentence ends with one, so that a model reads "Note to the hotel. Constraints: maxLength 500." rather than
"Note to the hotel Constraints: …"."""

from __future__ import annotations

__all__ = ["as_sentence"]

_TERMINAL = frozenset(".!?…。！？")
_CLOSING = frozenset("\"')]}»”’")
_SEPARATORS = frozenset(",;:")


def as_sentence(text: str) -> str:
    """``text`` ending with a full stop: kept when it already ends a sentence (also before a closing quote or
    bracket: ``(see the FAQ.)``), a trailing ``,``/``;``/``:`` becomes ``.``, else ``.`` is appended. Trailing
    whitespace is dropped; an empty text stays empty."""
    text = text.rstrip()
    if not text:
        return text
    end = len(text)
    while end > 0 and text[end - 1] in _CLOSING:
        end -= 1
    if end > 0 and text[end - 1] in _TERMINAL:
        return text
    if text[-1] in _SEPARATORS:
        return text[:-1].rstrip() + "."
    return text + "."
