"""tree-sitter access for JSX/TSX sources: grammars (imported on first use), parsing, offsets, literals.

Nothing here is imported by an HTML-only run: `axag.parse.jsx` imports this module when the first JSX file
is read, and this module imports ``tree_sitter`` and the grammar packages only then.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

Node = Any  # tree_sitter.Node

MISSING = ("JSX/TSX support needs the tree-sitter grammars: pip install 'axag[jsx]' "
           "(tree-sitter, tree-sitter-typescript, tree-sitter-javascript)")


class GrammarMissing(Exception):
    """tree-sitter or a grammar package is not installed."""


@lru_cache(maxsize=4)
def language(grammar: str) -> Any:
    """The tree-sitter Language ``tsx`` (.tsx, .ts) or ``javascript`` (.jsx, .js)."""
    try:
        from tree_sitter import Language

        if grammar == "tsx":
            import tree_sitter_typescript as ts

            return Language(ts.language_tsx())
        import tree_sitter_javascript as js

        return Language(js.language())
    except ImportError as exc:
        raise GrammarMissing(MISSING) from exc


def grammar_for(path: Path) -> str:
    return "tsx" if path.suffix.lower() in (".ts", ".tsx", ".mts", ".cts") else "javascript"


@lru_cache(maxsize=4)
def _parser(grammar: str) -> Any:
    from tree_sitter import Parser

    return Parser(language(grammar))


@lru_cache(maxsize=8)
def query(grammar: str, source: str) -> Any:
    from tree_sitter import Query

    return Query(language(grammar), source)


def captures(grammar: str, source: str, node: Node) -> dict[str, list[Node]]:
    from tree_sitter import QueryCursor

    found: dict[str, list[Node]] = QueryCursor(query(grammar, source)).captures(node)
    return found


def parse(data: bytes, grammar: str) -> Any:
    return _parser(grammar).parse(data)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


class Offsets:
    """UTF-8 byte offsets of a text -> code-point offsets (identity for ASCII text)."""

    __slots__ = ("_bytes", "_extra")

    def __init__(self, text: str) -> None:
        self._bytes: list[int] = []  # byte offset just after each non-ASCII character
        self._extra: list[int] = []  # extra bytes (beyond one per character) up to and including it
        extra = 0
        if text.isascii():
            return
        for m in _NON_ASCII.finditer(text):
            c = m.group()
            width = 2 if c <= "\u07ff" else 3 if (c <= "\uffff") else 4
            extra += width - 1
            self._bytes.append(m.start() + extra + 1)
            self._extra.append(extra)

    def cp(self, byte: int) -> int:
        if not self._bytes:
            return byte
        k = bisect.bisect_right(self._bytes, byte) - 1
        return byte if k < 0 else byte - self._extra[k]


def source_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def node_text(data: bytes, node: Node) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


_JS_ESCAPE = re.compile(r"\\(u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|\r\n|[\s\S])")
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0", "\n": "", "\r\n": "",
           "\r": ""}


def js_unescape(body: str) -> str:
    """The value of a JavaScript string literal body (without its quotes)."""
    if "\\" not in body:
        return body

    def one(m: re.Match[str]) -> str:
        e = m.group(1)
        if e.startswith("u{"):
            n = int(e[2:-1], 16)
            return chr(n) if n <= 0x10FFFF else "\ufffd"
        if e[0] in "ux" and len(e) > 1:
            return chr(int(e[1:], 16))
        return _SIMPLE.get(e, e)

    return _JS_ESCAPE.sub(one, body)


def unwrap(node: Node) -> Node:
    """The expression inside parentheses, ``as const``, ``satisfies T`` and ``x!`` wrappers."""
    while node is not None and node.type in ("parenthesized_expression", "as_expression", "satisfies_expression",
                                             "non_null_expression"):
        inner = node.named_children
        node = inner[0] if inner else None
    return node


def literal(data: bytes, node: Node) -> tuple[str, int, int] | None:
    """A static scalar literal: (value text, start byte, end byte of the value's characters), else None.
    Strings and template literals without substitutions give their characters (inside the quotes); numbers and
    booleans their source text."""
    t = node.type
    if t == "string":
        body_start, body_end = node.start_byte + 1, node.end_byte - 1
        raw = data[body_start:body_end].decode("utf-8", "replace")
        return js_unescape(raw), body_start, body_end
    if t == "template_string":
        if any(c.type == "template_substitution" for c in node.named_children):
            return None
        body_start, body_end = node.start_byte + 1, node.end_byte - 1
        raw = data[body_start:body_end].decode("utf-8", "replace")
        return js_unescape(raw), body_start, body_end
    if t in ("number", "true", "false"):
        return node_text(data, node), node.start_byte, node.end_byte
    if t == "unary_expression" and node.child_count == 2 and node.children[0].type == "-" \
            and node.children[1].type == "number":
        return node_text(data, node), node.start_byte, node.end_byte
    return None
