"""What is at the cursor of a document that may be half-typed (an unclosed quote, an unclosed tag): the start
tag or JSX opening element around it, the attribute, the JSON (or JavaScript object) position inside the value
of ``axag-required-parameters`` / ``axag-optional-parameters`` / ``axag={…}``, and the codes of suppression
comments. Tolerant by construction: every scan is bounded and nothing here raises on any text."""

from __future__ import annotations

import re
from dataclasses import dataclass

_TAG_BACK = 20_000  # how far back a start tag may begin
_TAG_AHEAD = 20_000  # how far past the cursor a tag is read
_NAME_END = frozenset(" \t\n\r\f/>=")
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*$")
_WORD = re.compile(r"[A-Za-z0-9_.:-]*")


@dataclass
class Attr:
    name: str
    name_start: int
    name_end: int
    value_start: int = -1  # first character of the value (inside the quotes / braces); -1: no value
    value_end: int = -1  # end of the value (the closing quote or brace; the end of the scan when unclosed)
    delimiter: str = ""  # '"', "'", "{" or "" (unquoted)


@dataclass
class Tag:
    start: int  # the "<"
    name: str
    attrs: list[Attr]
    end: int  # after ">" (or where the scan stopped)
    closed: bool


def _skip_braces(text: str, i: int, stop: int) -> int:
    """From just after a ``{``: the index of its matching ``}`` (strings and nested braces skipped), or ``stop``."""
    depth = 1
    quote = ""
    while i < stop:
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'`":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return stop


def read_tag(text: str, start: int, stop: int) -> Tag:
    """The start tag (or JSX opening element) that begins at ``text[start] == "<"``, read up to its ``>`` or
    ``stop``."""
    i = start + 1
    n = min(stop, len(text))
    j = i
    while j < n and text[j] not in _NAME_END:
        j += 1
    tag = Tag(start, text[i:j], [], n, False)
    i = j
    while i < n:
        c = text[i]
        if c == ">":
            tag.end, tag.closed = i + 1, True
            return tag
        if c in " \t\n\r\f/":
            i += 1
            continue
        if c == "{":  # a JSX spread or comment between attributes
            i = _skip_braces(text, i + 1, n) + 1
            continue
        j = i
        while j < n and text[j] not in _NAME_END:
            if text[j] in "\"'" and j == i:
                break
            j += 1
        if j == i:  # a stray quote: skip it
            i += 1
            continue
        attr = Attr(text[i:j], i, j)
        tag.attrs.append(attr)
        k = j
        while k < n and text[k] in " \t\n\r\f":
            k += 1
        if k < n and text[k] == "=":
            k += 1
            while k < n and text[k] in " \t\n\r\f":
                k += 1
            if k < n and text[k] in "\"'":
                q = text[k]
                end = text.find(q, k + 1, n)
                attr.delimiter, attr.value_start = q, k + 1
                attr.value_end = end if end >= 0 else n
                i = attr.value_end + 1
            elif k < n and text[k] == "{":
                attr.delimiter, attr.value_start = "{", k + 1
                attr.value_end = _skip_braces(text, k + 1, n)
                i = attr.value_end + 1
            else:
                e = k
                while e < n and text[e] not in " \t\n\r\f>":
                    e += 1
                attr.value_start, attr.value_end = k, e
                i = e
        else:
            i = j
    return tag


def tag_at(text: str, offset: int) -> Tag | None:
    """The start tag the cursor is in (after its name, before its ``>``), or None."""
    lo = max(0, offset - _TAG_BACK)
    i = offset
    while True:
        i = text.rfind("<", lo, i)
        if i < 0:
            return None
        if i + 1 < len(text) and (text[i + 1].isalpha() or text[i + 1] in "_$"):
            tag = read_tag(text, i, offset + _TAG_AHEAD)
            name_end = i + 1 + len(tag.name)
            if offset <= name_end:
                return None  # still in the tag name
            if tag.closed and tag.end <= offset:
                return None  # the cursor is in the content after a closed tag
            return tag
        if i <= lo:
            return None


def attr_at(tag: Tag, offset: int) -> tuple[Attr | None, str]:
    """(the attribute under the cursor, where: "name" | "value" | ""), "" also meaning between attributes."""
    for a in tag.attrs:
        if a.name_start <= offset <= a.name_end:
            return a, "name"
        if a.value_start >= 0 and a.value_start <= offset <= a.value_end:
            return a, "value"
    return None, ""


# ---------------------------------------------------------------------------------------------- JSON values
@dataclass
class JsonSpot:
    """Where a JSON (or JavaScript object) text ends: in a key, in a value of ``key``, or an array item."""

    mode: str  # "key" | "value" | "item" | ""
    key: str | None
    prefix: str
    quoted: bool
    depth: int  # containers open


def json_spot(s: str) -> JsonSpot:
    """The position at the end of the partial JSON (or JS object literal) text ``s``."""
    stack: list[str] = []
    expect = "value"
    last_key: str | None = None
    quote = ""
    str_start = 0
    i = 0
    n = len(s)
    while i < n:
        c = s[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = ""
                if stack and stack[-1] == "{" and expect == "key":
                    last_key = s[str_start + 1:i]
            i += 1
            continue
        if c in "\"'`":
            quote, str_start = c, i
        elif c == "{":
            stack.append("{")
            expect = "key"
        elif c == "[":
            stack.append("[")
            expect = "value"
        elif c in "}]":
            if stack:
                stack.pop()
            expect = "after"
        elif c == ":":
            if expect == "key":
                m = _IDENT.search(s[:i].rstrip())
                if m is not None and not s[:i].rstrip().endswith(("'", '"')):
                    last_key = m.group(0)
            expect = "value"
        elif c == ",":
            expect = "key" if stack and stack[-1] == "{" else "value"
        i += 1
    top = stack[-1] if stack else ""
    if quote:
        prefix = s[str_start + 1:]
        if top == "{":
            return JsonSpot("key" if expect == "key" else "value", last_key, prefix, True, len(stack))
        if top == "[":
            return JsonSpot("item", None, prefix, True, len(stack))
        return JsonSpot("", None, prefix, True, 0)
    m = _IDENT.search(s)
    prefix = m.group(0) if m is not None else ""
    if top == "{" and expect == "key":
        return JsonSpot("key", None, prefix, False, len(stack))
    if top == "{" and expect == "value":
        return JsonSpot("value", last_key, prefix, False, len(stack))
    if top == "[" and expect == "value":
        return JsonSpot("item", None, prefix, False, len(stack))
    return JsonSpot("", None, prefix, False, len(stack))


def word_around(text: str, offset: int, chars: str = "A-Za-z0-9_.:-") -> tuple[int, int]:
    """The [start, end) of the run of ``chars`` around ``offset``."""
    pattern = re.compile(f"[{chars}]*")
    back = re.compile(f"[{chars}]*$")
    m = back.search(text, max(0, offset - 200), offset)
    start = m.start() if m is not None else offset
    m2 = pattern.match(text, offset)
    end = m2.end() if m2 is not None else offset
    return start, end


# ---------------------------------------------------------------------------------------------- directives
_DIRECTIVE = re.compile(r"axag-(?:disable-next-line|disable-file|disable|enable)\b[ \t]+([^\r\n]*)")
_CODE_TOKEN = re.compile(r"[^\s,]+")
_REASON = re.compile(r"(?:^|\s)--(?:\s|$)|-->|\*/|#}|--}}|}}|%}")


def directive_code_at(text: str, offset: int) -> str | None:
    """The code token of a suppression directive under the cursor (``AXAG-LINT-006``, ``006``, a name)."""
    line_start = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
    nl = [p for p in (text.find("\n", offset), text.find("\r", offset)) if p >= 0]
    line_end = min(nl) if nl else len(text)
    line = text[line_start:line_end]
    for m in _DIRECTIVE.finditer(line):
        codes = m.group(1)
        cut = _REASON.search(codes)
        if cut is not None:
            codes = codes[:cut.start()]
        base = line_start + m.start(1)
        for t in _CODE_TOKEN.finditer(codes):
            if base + t.start() <= offset <= base + t.end():
                return t.group(0)
    return None


def form_controls(text: str, offset: int) -> list[str]:
    """The names of the form controls (``name``, ``axag-parameter``) of the form around ``offset`` (the whole
    document when there is none), in document order, without repeats."""
    lo = text.rfind("<form", 0, offset)
    hi = text.find("</form", offset)
    inside = lo >= 0 and text.rfind("</form", 0, offset) < lo
    part = text[lo:hi if hi >= 0 else len(text)] if inside else text
    out: list[str] = []
    for m in re.finditer(r"<(?:input|select|textarea)\b[^>]*", part, re.IGNORECASE):
        tag = m.group(0)
        found = re.search(r"\baxag-parameter\s*=\s*[\"']([^\"']+)", tag) or re.search(
            r"(?<![\w-])name\s*=\s*[\"']([^\"']+)", tag)
        if found is not None and found.group(1) not in out:
            out.append(found.group(1))
    return out
