"""`{expression}` inside start tags of .svelte and .astro markup.

An unquoted ``name={expr}`` value keeps its braces and its length, with the expression's characters replaced,
so the start-tag scan reads one unquoted value (whatever spaces, quotes or ``>`` the expression holds) that is
dynamic (dynamic values: it contains ``{``). A bare ``{expr}`` or ``{...props}`` in a start tag is blanked. Line breaks
are kept, so positions do not move.
"""

from __future__ import annotations

from axag.parse.templates import after_equals, walk_start_tags

_FILL = "_"


def _close(text: str, i: int) -> int:
    """Offset after the ``}`` matching the ``{`` at ``i`` (strings and template literals skipped)."""
    depth = 0
    n = len(text)
    j = i
    while j < n:
        c = text[j]
        if c in "\"'`":
            k = j + 1
            while k < n and text[k] != c:
                k += 2 if text[k] == "\\" else 1
            j = k + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return n


def neutralize_braces(text: str) -> str:
    if "{" not in text:
        return text
    chars: list[str] | None = None
    n = len(text)

    def expression(lt: int, j: int) -> int:
        nonlocal chars
        end = _close(text, j)
        if chars is None:
            chars = list(text)
        valued = after_equals(text, lt, j)
        for m in range(j + (1 if valued else 0), end - (1 if valued and end <= n and text[end - 1] == "}"
                                                        else 0)):
            if chars[m] not in "\r\n":
                chars[m] = _FILL if valued else " "
        return end

    walk_start_tags(text, expression)
    return "".join(chars) if chars is not None else text
