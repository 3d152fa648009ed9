"""Strict RFC 8259 JSON with source spans (JSON values, finding positions).

``parse(text)`` returns a :class:`JsonDoc` holding the Python value (``int`` for integers of any size,
``float`` for other numbers, ``str``, ``bool``, ``None``, ``list``, ``dict``) and the code-point span of every
value and object key, so findings can point at the JSON token inside an attribute value.

Strictness: ``NaN``/``Infinity``, trailing commas, comments, single quotes, leading zeros, control characters in
strings, invalid escapes, a repeated key in one object, non-finite numbers (``1e999``) and text after the value
are all rejected with :class:`JsonError` (a short human ``message`` and the code-point ``offset`` of the
problem; the caller turns the offset into a column). The parser is an iterative scanner (no recursion), linear
in the input, and refuses nesting deeper than :data:`MAX_DEPTH` so that no consumer of the value can hit
``RecursionError``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Final

__all__ = ["MAX_DEPTH", "JsonDoc", "JsonError", "JsonPath", "parse", "parse_number"]

MAX_DEPTH: Final = 256

JsonPath = tuple[str | int, ...]


class JsonError(ValueError):
    """Invalid JSON: ``message`` is short and human, ``offset`` is a code-point offset into the text."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} (offset {offset})")
        self.message = message
        self.offset = offset


class _Node:
    """Span of one value; ``items`` holds child nodes for arrays, ``(key_start, key_end, node)`` for objects."""

    __slots__ = ("end", "items", "start")

    def __init__(self, start: int, end: int, items: list[_Node] | dict[str, tuple[int, int, _Node]] | None) -> None:
        self.start = start
        self.end = end
        self.items = items


@dataclass(frozen=True)
class JsonDoc:
    """A parsed JSON text: the value plus the spans of every value and key."""

    text: str
    value: object
    _root: _Node = field(repr=False, compare=False)

    def _node(self, path: JsonPath) -> _Node:
        node = self._root
        for step in path:
            items = node.items
            if isinstance(items, list) and isinstance(step, int) and not isinstance(step, bool):
                if not 0 <= step < len(items):
                    raise KeyError(path)
                node = items[step]
            elif isinstance(items, dict) and isinstance(step, str):
                if step not in items:
                    raise KeyError(path)
                node = items[step][2]
            else:
                raise KeyError(path)
        return node

    def span(self, path: JsonPath = ()) -> tuple[int, int]:
        """``(start, end)`` of the value at ``path`` (keys and indexes); ``KeyError`` if there is none."""
        node = self._node(path)
        return node.start, node.end

    def key_span(self, path: JsonPath) -> tuple[int, int]:
        """``(start, end)`` of the key token (quotes included) of the object member ``path`` names."""
        if not path or not isinstance(path[-1], str):
            raise KeyError(path)
        items = self._node(path[:-1]).items
        if not isinstance(items, dict) or path[-1] not in items:
            raise KeyError(path)
        start, end, _ = items[path[-1]]
        return start, end

    def has(self, path: JsonPath) -> bool:
        try:
            self._node(path)
        except KeyError:
            return False
        return True


_WS: Final = re.compile(r"[ \t\n\r]*")
_PLAIN_STRING: Final = re.compile(r'"[^"\\\x00-\x1f]*"')
_STRING: Final = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"')
_ESCAPE: Final = re.compile(
    r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})|\\(.)"
)
_SIMPLE_ESCAPES: Final = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_BIG_DIGITS: Final = 4000


def _skip(text: str, pos: int) -> int:
    m = _WS.match(text, pos)
    return pos if m is None else m.end()


def _unescape(m: re.Match[str]) -> str:
    hi, lo, single, simple = m.groups()
    if hi is not None:
        return chr(0x10000 + ((int(hi, 16) - 0xD800) << 10) + (int(lo, 16) - 0xDC00))
    if single is not None:
        return chr(int(single, 16))
    return _SIMPLE_ESCAPES[simple]


def _int(digits: str) -> int:
    """Exact ``int`` of a decimal string of any length (avoids the int/str digit limit)."""
    if len(digits) <= _BIG_DIGITS:
        return int(digits)
    half = len(digits) // 2
    scale: int = 10 ** (len(digits) - half)
    return _int(digits[:half]) * scale + _int(digits[half:])


def _string_error(text: str, start: int) -> JsonError:
    """Locate the problem in a string token starting at ``start`` that ``_STRING`` did not match."""
    i = start + 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':  # pragma: no cover - _STRING would have matched
            break
        if c == "\\":
            nxt = text[i + 1 : i + 2]
            if nxt and nxt in _SIMPLE_ESCAPES:
                i += 2
                continue
            if nxt == "u":
                hexes = text[i + 2 : i + 6]
                if len(hexes) == 4 and all(h in "0123456789abcdefABCDEF" for h in hexes):
                    i += 6
                    continue
                return JsonError("invalid \\u escape in string", i)
            if not nxt:
                break
            return JsonError("invalid escape in string", i)
        if c < " ":
            return JsonError("control character in string", i)
        i += 1
    return JsonError("unterminated string", start)


def _scan_string(text: str, pos: int) -> tuple[str, int]:
    m = _PLAIN_STRING.match(text, pos)
    if m is not None:
        return text[pos + 1 : m.end() - 1], m.end()
    m = _STRING.match(text, pos)
    if m is None:
        raise _string_error(text, pos)
    return _ESCAPE.sub(_unescape, text[pos + 1 : m.end() - 1]), m.end()


def parse_number(token: str, offset: int = 0) -> int | float:
    """A JSON number token (already matched) as ``int`` (no fraction/exponent) or finite ``float``."""
    if "." in token or "e" in token or "E" in token:
        value = float(token)
        if math.isinf(value):
            raise JsonError("number out of range", offset)
        return value
    if token.startswith("-"):
        return -_int(token[1:])
    return _int(token)


def _bad_value(text: str, pos: int) -> JsonError:
    if pos >= len(text):
        return JsonError("unexpected end of input", pos)
    c = text[pos]
    rest = text[pos : pos + 9]
    if c == "'":
        return JsonError("strings must use double quotes", pos)
    if c == "/" and text[pos + 1 : pos + 2] in ("/", "*"):
        return JsonError("comments are not allowed", pos)
    if rest.startswith("NaN"):
        return JsonError("NaN is not allowed", pos)
    if rest.startswith(("Infinity", "-Infinity", "+Infinity")):
        return JsonError("Infinity is not allowed", pos)
    if c == "-" or c == "+" or c == "." or c.isdigit():
        return JsonError("invalid number", pos)
    return JsonError("expected a value", pos)


_LITERALS: Final[dict[str, tuple[str, object]]] = {"t": ("true", True), "f": ("false", False), "n": ("null", None)}


# Attribute values repeat across the pages of a site: results of short texts are kept (per process), the value
# copied on the way in and out so that callers may change theirs; node spans are offsets into the text only.
_CACHE: dict[str, JsonDoc | tuple[str, int]] = {}
_CACHE_ENTRIES: Final = 4096
_CACHE_TEXT: Final = 2048


def _copy(value: object) -> object:
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def parse(text: str) -> JsonDoc:
    """Parse ``text`` as one strict JSON value; raise :class:`JsonError` on any deviation."""
    hit = _CACHE.get(text)
    if hit is not None:
        if isinstance(hit, tuple):
            raise JsonError(*hit)
        return JsonDoc(text, _copy(hit.value), hit._root)
    if len(text) > _CACHE_TEXT:
        return _parse(text)
    if len(_CACHE) >= _CACHE_ENTRIES:
        _CACHE.clear()
    try:
        doc = _parse(text)
    except JsonError as exc:
        _CACHE[text] = (exc.message, exc.offset)
        raise
    _CACHE[text] = JsonDoc(text, _copy(doc.value), doc._root)
    return doc


def _parse(text: str) -> JsonDoc:
    ws = _skip
    n = len(text)
    # Each frame: [container, node, pending key, pending key start, pending key end]
    stack: list[list[object]] = []
    pos = ws(text, 0)
    value: object
    node: _Node
    while True:
        # ---- parse one value at pos (opening containers push a frame and loop back here)
        c = text[pos] if pos < n else ""
        if c == "[" or c == "{":
            if len(stack) >= MAX_DEPTH:
                raise JsonError("nesting too deep", pos)
            start = pos
            pos = ws(text, pos + 1)
            if c == "[":
                if pos < n and text[pos] == "]":
                    pos += 1
                    value, node = [], _Node(start, pos, [])
                else:
                    stack.append([[], _Node(start, -1, []), None, 0, 0])
                    continue
            else:
                if pos < n and text[pos] == "}":
                    pos += 1
                    value, node = {}, _Node(start, pos, {})
                else:
                    frame: list[object] = [{}, _Node(start, -1, {}), None, 0, 0]
                    stack.append(frame)
                    pos = _member_key(text, pos, frame)
                    continue
        elif c == '"':
            start = pos
            value, pos = _scan_string(text, pos)
            node = _Node(start, pos, None)
        elif c in _LITERALS:
            word, lit = _LITERALS[c]
            if not text.startswith(word, pos):
                raise _bad_value(text, pos)
            value, node = lit, _Node(pos, pos + len(word), None)
            pos += len(word)
        else:
            m = _NUMBER.match(text, pos)
            if m is None:
                raise _bad_value(text, pos)
            end = m.end()
            token = m.group()
            if end < n and text[end].isdigit() and token.lstrip("-") == "0":
                raise JsonError("leading zeros are not allowed", pos)
            if end < n and text[end] in ".eE":
                raise JsonError("invalid number", pos)
            value, node = parse_number(token, pos), _Node(pos, end, None)
            pos = end
        # ---- attach the finished value to its container, closing containers as they end
        while True:
            pos = ws(text, pos)
            if not stack:
                if pos < n:
                    raise JsonError("unexpected text after the value", pos)
                return JsonDoc(text, value, node)
            frame = stack[-1]
            container = frame[0]
            cnode = frame[1]
            assert isinstance(cnode, _Node)
            c = text[pos] if pos < n else ""
            if isinstance(container, list):
                container.append(value)
                assert isinstance(cnode.items, list)
                cnode.items.append(node)
                close = "]"
            else:
                assert isinstance(container, dict) and isinstance(cnode.items, dict)
                key = frame[2]
                assert isinstance(key, str)
                container[key] = value
                ks, ke = frame[3], frame[4]
                assert isinstance(ks, int) and isinstance(ke, int)
                cnode.items[key] = (ks, ke, node)
                close = "}"
            if c == ",":
                comma = pos
                pos = ws(text, pos + 1)
                if pos < n and text[pos] == close:
                    raise JsonError("trailing comma", comma)
                if close == "}":
                    pos = _member_key(text, pos, frame)
                break
            if c == close:
                pos += 1
                stack.pop()
                cnode.end = pos
                value, node = container, cnode
                continue
            if not c:
                raise JsonError("unexpected end of input", pos)
            raise JsonError(f"expected ',' or '{close}'", pos)


def _member_key(text: str, pos: int, frame: list[object]) -> int:
    """Read ``"key" :`` at ``pos`` into ``frame``; return the offset of the member value."""
    if pos >= len(text):
        raise JsonError("unexpected end of input", pos)
    if text[pos] != '"':
        if text[pos] == "'":
            raise JsonError("strings must use double quotes", pos)
        if text[pos] == "/" and text[pos + 1 : pos + 2] in ("/", "*"):
            raise JsonError("comments are not allowed", pos)
        raise JsonError("expected a string key", pos)
    key, end = _scan_string(text, pos)
    container = frame[0]
    assert isinstance(container, dict)
    if key in container:
        raise JsonError(f'repeated key "{key}"', pos)
    frame[2], frame[3], frame[4] = key, pos, end
    end = _skip(text, end)
    if end >= len(text):
        raise JsonError("unexpected end of input", end)
    if text[end] != ":":
        raise JsonError("expected ':'", end)
    return _skip(text, end + 1)
