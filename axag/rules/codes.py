"""Rule codes from what users write (``AXAG-LINT-006``, ``006``, ``6``, a rule name, a group or ``ALL``), in
the configuration and on the command line; an unknown one is an error with the closest rule name."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from axag.outcome.errors import ConfigError
from axag.rules.catalogue import GROUPS, RULES, lookup
from axag.vocabulary import did_you_mean

_ALL_NAMES: Final = tuple(m.info.name for m in sorted(RULES.values(), key=lambda m: m.info.code))


def _suggest(text: str) -> str:
    s = did_you_mean(text.lower(), _ALL_NAMES) if not text.strip().isdigit() else None
    return f'; did you mean "{s}"?' if s else ""


def parse_code(token: str) -> int | None:
    """``AXAG-LINT-006``, ``006``, ``6`` or a rule name → code; ``None`` when unknown (``ALL`` included)."""
    meta = lookup(token)
    return meta.info.code if meta is not None else None


def code_error(token: str, where: str) -> str:
    """``unknown rule "X" in "where"[; did you mean "Y"?]`` (the text of ConfigError/UsageError)."""
    return f'unknown rule "{token}" in "{where}"{_suggest(token)}'


def resolve_codes(tokens: Iterable[str], where: str, *, error: type[Exception] = ConfigError) -> frozenset[int]:
    """Resolve codes, names and ``ALL``; comma-separated tokens are split. Unknown → ``error``."""
    out: set[int] = set()
    for item in tokens:
        for token in re.split(r"[,\s]+", item.strip()):
            if not token:
                continue
            if token.upper() == "ALL":
                out.update(RULES)
                continue
            if token.lower() in GROUPS:  # a rule group: `--select webmcp`
                out.update(GROUPS[token.lower()])
                continue
            code = parse_code(token)
            if code is None:
                raise error(code_error(token, where))
            out.add(code)
    return frozenset(out)
