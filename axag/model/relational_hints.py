"""Rewrites for preconditions that name a parameter but are not in the relational grammar (rule ``135``).

``suggest(item, params)`` reads an item written in everyday words (``end_date is later than start_date``,
``nights at least 1``, ``nights must be at least 1``, ``coupon needs customer_id``) and returns the item of the
grammar (the relational grammar) that says the same thing (``end_date is after start_date``, ``nights >= 1``,
``coupon requires customer_id``), or ``None`` when no reading is certain. A suggestion is always accepted by
:func:`axag.model.relational.parse_relation` and names only parameters of the action.
"""

from __future__ import annotations

import re
from typing import Final

from axag.model.relational import parse_relation
from axag.vocabulary import collapse_ws

__all__ = ["suggest"]

_NAME: Final = r"[A-Za-z_][A-Za-z0-9_]*"

# comparison phrases -> the grammar's words; temporal words keep the ordering templates (R2-R5)
_PHRASES: Final[dict[str, str]] = {
    # R2-R5
    "later than": "is after", "after": "is after", "comes after": "is after", "follows": "is after",
    "earlier than": "is before", "before": "is before", "comes before": "is before", "precedes": "is before",
    "on or after": "is on or after", "not before": "is on or after", "no earlier than": "is on or after",
    "not earlier than": "is on or after", "the same as or after": "is on or after",
    "on or before": "is on or before", "not after": "is on or before", "no later than": "is on or before",
    "not later than": "is on or before", "the same as or before": "is on or before",
    # R1
    "greater than": ">", "more than": ">", "larger than": ">", "bigger than": ">", "higher than": ">",
    "above": ">", "over": ">", "exceeds": ">", "exceed": ">",
    "less than": "<", "fewer than": "<", "smaller than": "<", "lower than": "<", "below": "<", "under": "<",
    "at least": ">=", "no less than": ">=", "not less than": ">=", "no fewer than": ">=", "minimum": ">=",
    "min": ">=", "greater than or equal to": ">=", "more than or equal to": ">=", "bigger than or equal to": ">=",
    "at most": "<=", "no more than": "<=", "not more than": "<=", "maximum": "<=", "max": "<=", "up to": "<=",
    "less than or equal to": "<=", "smaller than or equal to": "<=", "not greater than": "<=",
    "not above": "<=", "not over": "<=",
    "equal to": "==", "equals": "==", "equal": "==", "the same as": "==", "identical to": "==",
    "not equal to": "!=", "unequal to": "!=", "different from": "!=", "different than": "!=",
    "other than": "!=", "not the same as": "!=",
    # symbols the grammar spells otherwise
    "=": "==", "=>": ">=", "=<": "<=", "\u2265": ">=", "\u2264": "<=", "\u2260": "!=", "<>": "!=",
    ">": ">", ">=": ">=", "<": "<", "<=": "<=", "==": "==", "!=": "!=",
}
# what may stand between the parameter and the phrase ("must be", "should be", ...)
_MODALS: Final = (
    "must be", "should be", "shall be", "has to be", "needs to be", "need to be", "must always be", "is always",
    "can be", "may be", "is", "are", "be", "must", "should", "shall", "has to", "needs to", "need to", "",
)
_SYMBOLS_RE: Final = re.compile(r"\s*(>=|<=|==|!=|=>|=<|<>|[\u2265\u2264\u2260=<>])\s*")
_OPERAND: Final = r"(?P<b>[A-Za-z_][A-Za-z0-9_]*|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|\"[^\"]*\"|'[^']*')"


def _alternatives(words: list[str] | tuple[str, ...]) -> str:
    # the longest first, so that "at least" wins over "at" and "less than or equal to" over "less than"
    return "|".join(re.escape(w).replace(r"\ ", " ") for w in sorted(words, key=len, reverse=True))


_COMPARE_RE: Final = re.compile(
    rf"(?P<a>{_NAME}) (?:(?P<modal>{_alternatives([m for m in _MODALS if m])}) )?"
    rf"(?P<phrase>{_alternatives(list(_PHRASES))}) (?:to )?{_OPERAND}",
    re.IGNORECASE,
)
_PRESENCE: Final[tuple[tuple[re.Pattern[str], str], ...]] = tuple(
    (re.compile(pattern, re.IGNORECASE), template) for pattern, template in (
        ((rf"(?P<a>{_NAME}) (?:needs|depends on|requires that|must come with|can only be (?:given|used|set) "
         rf"with|only with|needs to come with|implies) (?P<b>{_NAME})"
         r"(?: (?:to be |is |be )?(?:given|set|present|provided))?"), "{a} requires {b}"),
        (rf"(?P<a>{_NAME}) requires (?P<b>{_NAME}) (?:to be |be |is )?(?:given|set|present|provided)",
         "{a} requires {b}"),
        ((rf"(?P<a>{_NAME}) (?:and|&) (?P<b>{_NAME}) (?:cannot|can't|can not|must not|may not|should not) "
         r"(?:both )?be (?:given|set|used|provided|present|combined)(?: together)?"), "{a} and {b} are mutually exclusive"),
        (rf"(?P<a>{_NAME}) (?:and|&) (?P<b>{_NAME}) (?:are )?(?:mutually )?exclusive", "{a} and {b} are mutually exclusive"),
        (rf"(?:either )?(?P<a>{_NAME}) or (?P<b>{_NAME}),? but not both", "{a} and {b} are mutually exclusive"),
        (rf"(?:only one of|one of|exactly one of:) (?P<list>{_NAME}(?:(?:, | or |, or | and |, and ){_NAME})+)",
         "exactly one of {list}"),
        (rf"(?:at least one of:|one or more of) (?P<list>{_NAME}(?:(?:, | or |, or | and |, and ){_NAME})+)",
         "at least one of {list}"),
        (rf"(?:either )?(?P<list>{_NAME}(?:(?:, | or |, or ){_NAME})+) (?:is|must be|are) (?:required|given|needed)",
         "at least one of {list}"),
        ((rf"(?P<a>{_NAME}) (?:is |must be )?(?:required|mandatory|needed|given) (?:only )?(?:when|if) "
         rf"(?P<b>{_NAME}) (?:is |==? ?|equals )(?P<v>-?[0-9][0-9.eE+-]*|\"[^\"]*\"|'[^']*'|true|false)"),
         "{a} is required when {b} is {v}"),
        ((rf"(?P<a>{_NAME}) (?:is |must be )?(?:required|mandatory|needed|given) (?:only )?(?:when|if) "
         rf"(?P<b>{_NAME}) (?:is )?(?:given|set|present|provided)"), "{a} is required when {b} is given"),
        (rf"(?P<a>{_NAME}) (?:must|should|has to|needs to) (?:be )?(?:different|differ) from (?P<b>{_NAME})",
         "{a} differs from {b}"),
        (rf"(?P<a>{_NAME}) (?:is|must be|should be) different from (?P<b>{_NAME})", "{a} differs from {b}"),
        (rf"(?P<a>{_NAME}) (?:must be |should be |is |must |be )?(?:a )?positive(?: number| integer| value| amount)?",
         "{a} > 0"),
        ((rf"(?P<a>{_NAME}) (?:must be |should be |is |must |be )?(?:a )?(?:non-negative|nonnegative|not negative|"
         r"zero or more|0 or more)(?: number| integer| value| amount)?"), "{a} >= 0"),
    )
)
_NEGATED_RE: Final = re.compile(
    rf"(?P<a>{_NAME}) (?:must not|must never|should not|should never|shall not|cannot|can not|can't|may not|"
    rf"is not|is never) (?:be )?(?P<phrase>{_alternatives(list(_PHRASES))}) (?:to )?{_OPERAND}",
    re.IGNORECASE,
)
_NEGATION: Final = {
    ">": "<=", "<": ">=", ">=": "<", "<=": ">", "==": "!=", "!=": "==",
    "is after": "is on or before", "is before": "is on or after", "is on or after": "is before",
    "is on or before": "is after",
}


def suggest(item: str, params: set[str] | frozenset[str]) -> str | None:
    """The grammatical item closest to ``item``, naming only ``params``; None when there is no certain one."""
    text = collapse_ws(item)
    if text.endswith("."):
        text = text[:-1].rstrip(" ")
    if not text or parse_relation(text) is not None:
        return None
    for candidate in _candidates(text):
        rel = parse_relation(candidate)
        if rel is not None and rel.names and all(n in params for n in rel.names):
            return candidate
    return None


def _candidates(text: str) -> list[str]:
    out: list[str] = []
    spaced = text if ('"' in text or "'" in text) else _SYMBOLS_RE.sub(r" \1 ", text).strip()
    m = _COMPARE_RE.fullmatch(spaced)
    if m is not None:
        word = _PHRASES[m["phrase"].lower()]
        if (m["modal"] or "").lower().startswith("must") and word.startswith("is "):
            word = "must be " + word[3:]  # "must be later than" -> "must be after"
        out.append(f"{m['a']} {word} {m['b']}")
    n = _NEGATED_RE.fullmatch(spaced)
    if n is not None:  # "nights must not be more than 5" -> "nights <= 5"
        out.append(f"{n['a']} {_NEGATION[_PHRASES[n['phrase'].lower()]]} {n['b']}")
    for pattern, template in _PRESENCE:
        p = pattern.fullmatch(text)
        if p is not None:
            out.append(template.format(**{k: v for k, v in p.groupdict().items() if v is not None}))
    return out
