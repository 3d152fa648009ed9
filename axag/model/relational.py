"""The relational precondition grammar.

``parse_relation(item)`` matches one precondition item against the templates R1-R12 and returns a
:class:`Relation` (form name, parameter names in order of occurrence, the literal if any, the comparison operator
for comparison/ordering forms, the template id) or ``None``. The item is whitespace-collapsed and one trailing
``.`` is removed first. Keywords are case-insensitive; names are case-sensitive; ``true``/``false`` (any case)
are values, never names.

``looks_relational(item, params)`` is the trigger of rule ``135`` for items that do not match (every item
that names a parameter; ``relational_hints.suggest`` gives the rewrite).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from axag.values.jsonspan import JsonError, parse_number
from axag.vocabulary import collapse_ws

__all__ = ["FORMS", "Relation", "looks_relational", "parse_relation"]

_OP_FORMS: Final = {
    ">": "greater_than",
    ">=": "greater_than_or_equal",
    "<": "less_than",
    "<=": "less_than_or_equal",
    "==": "equal",
    "!=": "not_equal",
}
FORMS: Final = (
    "greater_than", "greater_than_or_equal", "less_than", "less_than_or_equal", "equal", "not_equal",
    "requires", "mutually_exclusive", "exactly_one_of", "at_least_one_of", "required_when_equal",
    "required_when_present",
)


@dataclass(frozen=True, slots=True)
class Relation:
    """A matched relational item. ``op`` is the comparison operator for R1-R5 and R12 (``!=``), else None."""

    form: str
    names: tuple[str, ...]
    value: object | None
    has_value: bool
    op: str | None
    template: str


# ---------------------------------------------------------------- tokens
# kinds: "w" word, "n" number, "s" string, "o" operator, ","
_TOKEN_RE: Final = re.compile(
    r"""(?P<s>"[^"]*"|'[^']*')
      |(?P<n>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)(?![A-Za-z0-9_.])
      |(?P<o>>=|<=|==|!=|>|<)
      |(?P<c>,)
      |(?P<w>[A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_])
    """,
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str  # "w" | "n" | "s" | "o" | ","
    text: str
    spaced: bool  # preceded by a space (or at the start)

    @property
    def kw(self) -> str:
        return self.text.lower() if self.kind == "w" else ""


def _tokenize(text: str) -> list[_Tok] | None:
    toks: list[_Tok] = []
    pos = 0
    n = len(text)
    spaced = True
    while pos < n:
        if text[pos] == " ":
            pos += 1
            spaced = True
            continue
        m = _TOKEN_RE.match(text, pos)
        if m is None:
            return None
        kind = m.lastgroup or ""
        kind = "," if kind == "c" else kind
        tok = _Tok(kind, m.group(), spaced)
        # words, numbers and strings must be separated from each other by a space
        if toks and not spaced and tok.kind in "wns" and toks[-1].kind in "wns":
            return None
        toks.append(tok)
        pos = m.end()
        spaced = False
    return toks


def _is_name(t: _Tok) -> bool:
    return t.kind == "w" and t.kw not in ("true", "false")


def _is_value(t: _Tok) -> bool:
    return t.kind in "ns" or (t.kind == "w" and t.kw in ("true", "false"))


def _value(t: _Tok) -> object:
    if t.kind == "s":
        return t.text[1:-1]
    if t.kind == "w":
        return t.kw == "true"
    return parse_number(t.text)


class _NoMatch(Exception):
    pass


def _operand(t: _Tok) -> tuple[tuple[str, ...], object | None, bool]:
    if _is_name(t):
        return (t.text,), None, False
    if _is_value(t):
        return (), _value(t), True
    raise _NoMatch


def _kws(toks: list[_Tok], words: str) -> bool:
    ws = words.split()
    return len(toks) == len(ws) and all(t.kw == w for t, w in zip(toks, ws, strict=False))


def _list(toks: list[_Tok]) -> tuple[str, ...]:
    """LIST = NAME followed by one or more (, | , or | , and | or | and) NAME."""
    if not toks or not _is_name(toks[0]):
        raise _NoMatch
    names = [toks[0].text]
    i = 1
    while i < len(toks):
        sep = 0
        if toks[i].kind == ",":
            sep = 1
            if i + 1 < len(toks) and toks[i + 1].kw in ("or", "and"):
                sep = 2
        elif toks[i].kw in ("or", "and"):
            sep = 1
        if not sep:
            raise _NoMatch
        i += sep
        if i >= len(toks) or not _is_name(toks[i]):
            raise _NoMatch
        names.append(toks[i].text)
        i += 1
    if len(names) < 2:
        raise _NoMatch
    return tuple(names)


_ORDERING: Final = {
    "after": ("R2", ">"), "before": ("R3", "<"), "on or after": ("R4", ">="), "on or before": ("R5", "<="),
}


def _match(t: list[_Tok]) -> Relation | None:
    n = len(t)
    if n == 0:
        return None
    # R8 / R9
    if n >= 3 and _kws(t[:3], "exactly one of"):
        return Relation("exactly_one_of", _list(t[3:]), None, False, None, "R8")
    if n >= 4 and _kws(t[:4], "at least one of"):
        return Relation("at_least_one_of", _list(t[4:]), None, False, None, "R9")
    if not _is_name(t[0]):
        return None
    a = t[0].text
    rest = t[1:]
    # R1: NAME [must [be]] OP OPERAND
    k = 0
    if rest and rest[0].kw == "must":
        k = 1
        if len(rest) > 1 and rest[1].kw == "be":
            k = 2
    if len(rest) == k + 2 and rest[k].kind == "o":
        op = rest[k].text
        names, value, has = _operand(rest[k + 1])
        return Relation(_OP_FORMS[op], (a, *names), value, has, op, "R1")
    # R2-R5: NAME (is | must be) [on] (after | before) OPERAND
    k = 1 if rest and rest[0].kw == "is" else 2 if _kws(rest[:2], "must be") else 0
    if k:
        body = rest[k:]
        for words, (template, op) in _ORDERING.items():
            w = len(words.split())
            if len(body) == w + 1 and _kws(body[:w], words):
                names, value, has = _operand(body[w])
                return Relation(_OP_FORMS[op], (a, *names), value, has, op, template)
    # R6: NAME requires NAME
    if n == 3 and t[1].kw == "requires" and _is_name(t[2]):
        return Relation("requires", (a, t[2].text), None, False, None, "R6")
    # R7: NAME and NAME are mutually exclusive
    if n == 6 and t[1].kw == "and" and _is_name(t[2]) and _kws(t[3:], "are mutually exclusive"):
        return Relation("mutually_exclusive", (a, t[2].text), None, False, None, "R7")
    # R10 / R11: NAME is required when NAME is (VALUE | given)
    if n == 7 and _kws(t[1:4], "is required when") and _is_name(t[4]) and t[5].kw == "is":
        b = t[4].text
        if _is_value(t[6]):
            return Relation("required_when_equal", (a, b), _value(t[6]), True, None, "R10")
        if t[6].kw == "given":
            return Relation("required_when_present", (a, b), None, False, None, "R11")
        return None
    # R12: NAME (differs | must differ) from NAME
    if (n == 4 and t[1].kw == "differs" and t[2].kw == "from" and _is_name(t[3])) or (
        n == 5 and _kws(t[1:4], "must differ from") and _is_name(t[4])
    ):
        return Relation("not_equal", (a, t[-1].text), None, False, "!=", "R12")
    return None


@lru_cache(maxsize=4096)
def parse_relation(text: str) -> Relation | None:
    """Match one precondition item against R1-R12; ``None`` when it is not in the grammar.

    Cached: a pure function of the text whose result is immutable (precondition items repeat across pages)."""
    item = collapse_ws(text)
    if item.endswith("."):
        item = item[:-1].rstrip(" ")
    toks = _tokenize(item)
    if toks is None:
        return None
    try:
        return _match(toks)
    except (_NoMatch, JsonError):
        return None


def looks_relational(text: str, param_names: set[str] | frozenset[str]) -> bool:
    """Rule ``135``: the item is not in the grammar but names a parameter of the action as a whole word (a token
    delimited by the ends of the item or by characters outside ``[A-Za-z0-9_]``). Items that match the grammar
    give False."""
    words = _words_outside_grammar(text)
    return words is not None and any(p in words for p in param_names)


@lru_cache(maxsize=4096)
def _words_outside_grammar(text: str) -> frozenset[str] | None:
    """The words of an item that is not in the grammar; None for an item of the grammar."""
    item = collapse_ws(text)
    if parse_relation(item) is not None:
        return None
    return frozenset(re.findall(r"[A-Za-z0-9_]+", item))
