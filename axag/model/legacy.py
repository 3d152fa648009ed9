"""MODEL: the shapes of legacy `axag-constraints` entries (legacy axag-constraints migration, rule 101): a parameter object, or an
expression ``param OP literal`` / ``paramA OP paramB``. The model records how many entries there are
(`entry_count`); `axag.lint.migrate`, the fix provider of rule 101, plans and verifies the migration."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from axag.parse.document import Attr
from axag.values.jsonspan import JsonDoc, JsonError, parse_number
from axag.values.jsonspan import parse as parse_json

__all__ = ["Expression", "entries", "entry_count", "parse_expression"]

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_EXPR = re.compile(
    rf"""\s*(?P<a>{_NAME})\s*(?P<op><=|>=|==|!=|<|>)\s*
         (?:(?P<num>{_NUMBER})|"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<b>{_NAME}))\s*""",
    re.VERBOSE,
)

@dataclass
class Expression:
    """A parsed shape-(b) entry: ``a OP b`` with ``b`` a parameter name or a literal."""

    a: str
    op: str
    b: str | None = None  # a second parameter
    literal: Any = None
    literal_text: str = ""  # the literal as it goes into a precondition
    is_string: bool = False

    @property
    def has_literal(self) -> bool:
        return self.b is None


def parse_expression(text: str) -> Expression | None:
    """``param OP literal`` or ``paramA OP paramB`` (OP in < <= > >= == !=); None for anything else."""
    m = _EXPR.fullmatch(text)
    if m is None:
        return None
    a, op = m.group("a"), m.group("op")
    if a.lower() in ("true", "false"):
        return None
    if m.group("b") is not None:
        b = m.group("b")
        if b.lower() in ("true", "false"):
            return None
        return Expression(a, op, b=b)
    if m.group("num") is not None:
        try:
            number = parse_number(m.group("num"))
        except JsonError:
            return None
        return Expression(a, op, literal=number, literal_text=m.group("num"))
    s = m.group("dq") if m.group("dq") is not None else m.group("sq")
    assert s is not None
    quoted = f'"{s}"' if '"' not in s else f"'{s}'"
    return Expression(a, op, literal=s, literal_text=quoted, is_string=True)


def entries(attr: Attr) -> tuple[JsonDoc, dict[str, Any]] | None:
    """The parsed value of an `axag-constraints` attribute and its entries; None unless it is a JSON object."""
    try:
        doc = parse_json(attr.value)
    except JsonError:
        return None
    if not isinstance(doc.value, dict):
        return None
    return doc, doc.value


def entry_count(attr: Attr) -> int:
    """The number of entries of a legacy `axag-constraints` value (M of rule 101's "N of M"; 0 unless it is a
    JSON object). N, the entries the verified migration moves, is the fix provider's (`axag.lint.migrate`)."""
    parsed = entries(attr)
    return 0 if parsed is None else len(parsed[1])
