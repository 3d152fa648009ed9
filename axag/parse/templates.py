"""Template constructs inside start tags (dynamic values, parsing of elements): blanking and dynamic attribute ranges."""

from __future__ import annotations

import re
from collections.abc import Callable

_OPEN_JINJA = re.compile(r"\{%-?\s*(if|for|unless|with|macro|call|filter|block|case|capture|raw)\b")
_CLOSE_JINJA = re.compile(r"\{%-?\s*end")
_CONSTRUCT_END = {"{{": "}}", "{%": "%}", "{#": "#}"}
# statements that write markup where they stand (an include or macro call can write any attribute)
_OUTPUT_STATEMENT = re.compile(r"\{%-?\s*(include|call|render|echo)\b")


def _blank(chars: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        if chars[i] not in "\r\n":
            chars[i] = " "


def next_start_tag(text: str, i: int) -> int:
    """Offset of the ``<`` of the next start tag at or after ``i`` (comments skipped), or -1."""
    n = len(text)
    while True:
        lt = text.find("<", i)
        if lt < 0 or lt + 1 >= n:
            return -1
        if text[lt + 1].isalpha():
            return lt
        if text.startswith("<!--", lt):
            end = text.find("-->", lt + 4)
            i = n if end < 0 else end + 3
        else:
            i = lt + 1


def after_equals(text: str, lt: int, j: int) -> bool:
    """Whether the last character before ``j`` (spaces and line breaks skipped, not before the tag's ``<`` at
    ``lt``) is ``=``: a quote at ``j`` starts an attribute value, a ``{`` there is one."""
    k = j - 1
    while k > lt and text[k] in " \t\r\n":
        k -= 1
    return text[k] == "="


def walk_start_tags(text: str, on_brace: Callable[[int, int], int],
                    on_end: Callable[[int, int], None] | None = None) -> None:
    """Walk each start tag of ``text`` (comments skipped) to its unquoted ``>``. ``on_brace(lt, j)`` is called at
    every ``{`` outside a quoted value (``lt``: the tag's ``<``) and returns the offset the walk goes on from;
    ``on_end(lt, end)`` once the tag is walked (``end``: its ``>``, or the text's end)."""
    n = len(text)
    i = 0
    while (lt := next_start_tag(text, i)) >= 0:
        j = lt + 1
        quote = ""
        while j < n:
            c = text[j]
            if quote:
                if c == quote:
                    quote = ""
                j += 1
                continue
            if c == ">":
                break
            if c in "\"'":
                if after_equals(text, lt, j):  # a quote starts a value only after '=' (possibly with spaces)
                    quote = c
                j += 1
                continue
            j = on_brace(lt, j) if c == "{" else j + 1
        if on_end is not None:
            on_end(lt, j)
        i = j + 1


def blank_template_tags(text: str, kind: str) -> tuple[str, list[tuple[int, int]]]:
    """Blank template constructs that sit inside start tags but outside attribute values.

    Returns (blanked text, dynamic ranges): the ranges between an opening construct
    (`{% if … %}`, `{% for … %}`, `{{#…}}`) and its closing construct within the same start tag;
    annotation attributes whose names start inside a range are dynamic. A construct that writes
    attributes itself (`{{ attrs|xmlattr }}`, `{{ attrs }}`, `{% include %}`: an expression where an
    attribute name may stand) can override every annotation of the tag: the whole tag is one range.
    """
    if "{" not in text:
        return text, []
    chars: list[str] | None = None
    ranges: list[tuple[int, int]] = []
    n = len(text)
    stack: list[int] = []  # of the tag being walked
    spread = False

    def construct(lt: int, j: int) -> int:
        nonlocal chars, spread
        two = text[j:j + 2]
        if two not in _CONSTRUCT_END or (kind == "hbs" and two != "{{"):
            return j + 1
        close = _CONSTRUCT_END[two]
        if kind == "hbs" and text.startswith("{{!--", j):
            close = "--}}"
        end = text.find(close, j + 2)
        end = n if end < 0 else end + len(close)
        body = text[j:end]
        if chars is None:
            chars = list(text)
        _blank(chars, j, end)
        if kind == "hbs":
            if body.startswith("{{#"):
                stack.append(end)
            elif body.startswith("{{/") and stack:
                ranges.append((stack.pop(), j))
            elif not body.startswith(("{{!", "{{else", "{{^")):
                spread = True
        else:
            if _OPEN_JINJA.match(body):
                stack.append(end)
            elif _CLOSE_JINJA.match(body) and stack:
                ranges.append((stack.pop(), j))
            elif two == "{{" or _OUTPUT_STATEMENT.match(body):
                spread = True
        return end

    def tag_end(lt: int, end: int) -> None:
        nonlocal spread
        ranges.extend((s, end) for s in stack)  # unclosed construct: dynamic to the end of the tag
        if spread:
            ranges.append((lt, end))
        stack.clear()
        spread = False

    walk_start_tags(text, construct, tag_end)
    return ("".join(chars) if chars is not None else text), sorted(ranges)


_DYNAMIC_MARKERS = {
    "html": ("{%", "${", "{{"),
    "jinja": ("{{", "{%", "{#"),
    "liquid": ("{{", "{%", "{#"),
    "hbs": ("{{",),
    "vue": (),
    "svelte": ("{",),
    "astro": ("{",),
}
_RAW_PLACEHOLDER = re.compile(r"\{%-?\s*raw\s*-?%\}(\{\{ *[A-Za-z_][A-Za-z0-9_]{0,63} *\}\})\{%-?\s*endraw\s*-?%\}")
_HBS_ESCAPED = re.compile(r"\\(\{\{ *[A-Za-z_][A-Za-z0-9_]{0,63} *\}\})")
_PLACEHOLDER = re.compile(r"\{\{ *[A-Za-z_][A-Za-z0-9_]{0,63} *\}\}")


def markers(kind: str) -> tuple[str, ...]:
    return _DYNAMIC_MARKERS.get(kind, _DYNAMIC_MARKERS["html"])


def is_dynamic_value(value: str, kind: str, attr: str) -> tuple[bool, str]:
    """(dynamic?, value with escaped static placeholders unwrapped) per dynamic values."""
    if "{" not in value:
        return False, value  # every marker of every kind holds a "{" (the common case: hot)
    if attr == "axag-confirmation-message":
        if kind in ("jinja", "liquid"):
            value = _RAW_PLACEHOLDER.sub(lambda m: m.group(1), value)
            probe = value
            probe = _PLACEHOLDER.sub("", probe)
            return any(mk in probe for mk in markers(kind)), value
        if kind == "hbs":
            unwrapped = _HBS_ESCAPED.sub(lambda m: m.group(1), value)
            probe = _HBS_ESCAPED.sub("", value)
            return "{{" in probe, unwrapped
        if kind == "html":
            probe = _PLACEHOLDER.sub("", value)
            return any(mk in probe for mk in markers(kind)), value
    return any(mk in value for mk in markers(kind)), value


_BINDINGS = ((":", "vue"), ("v-bind:", "vue"), ("[attr.", "]"), ("[", "]"), ("bind-attr.", ""), ("bind-", ""))


def unbound_name(low: str, kind: str) -> str | None:
    """The annotation attribute a bound attribute name stands for (lower-case ``low``), or None: Vue ``:name``
    and ``v-bind:name`` (in .vue files), Angular ``[name]``, ``[attr.name]``, ``bind-name`` and
    ``bind-attr.name`` (in any file; Angular templates are .html)."""
    for prefix, rule in _BINDINGS:
        if not low.startswith(prefix):
            continue
        if rule == "vue":
            if kind != "vue":
                continue
            name = low[len(prefix):]
        elif rule == "]":
            if not low.endswith("]"):
                continue
            name = low[len(prefix):-1]
        else:
            name = low[len(prefix):]
        if name == "axag" or name.startswith("axag-"):
            return name
    return None
