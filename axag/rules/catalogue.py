"""The rule index: every rule's declaration (`axag.rules.declare.Rule`) by code and by name.

A rule is declared next to its check, in the module of its family; this module only imports those modules
and indexes what they declare (no per-rule data lives here). Where each code is declared:

- `identity`: 001, 002, 003, 031, 034, 035, 123, 139
- `safety`: 006, 007, 012, 013, 014, 015, 017, 023, 024, 025, 026, 128, 129, 150
- `scope`: 011, 016, 018, 019, 020, 021, 022, 036, 130, 137, 138, 147
- `external`: 010, 030, 037
- `binding`: 140, 141, 148, 149, 151
- `values`: 004, 005, 033, 103, 105, 106, 107, 108, 109, 125, 126, 127, 134, 144, 152
- `attributes`: 100, 101, 102, 104, 131, 132, 153
- `macro`: 027, 028
- `parameters`: 008, 009, 110, 111, 112, 113, 114, 115, 116, 117, 118, 120, 142
- `harvest`: 029, 032, 119
- `preconditions`: 124, 135, 136
- `webmcp`: 160, 161, 162, 163, 164 (the group `webmcp`: declarative WebMCP attributes on annotated forms)
- `run_level`: 121, 122, 133, 143, 145, 146, 190, 191, 192, 193, 199 (raised by compile, lint and the commands)

Every finding is made by these modules: the model records facts (`axag.model.facts`) that the rules judge
(`axag.rules.facts`), and the run rules' findings are made by `run_level` for the engine, compile and the commands.
`tests/rules/test_catalogue.py` compares the declarations with the SPEC tables.
"""

from __future__ import annotations

from axag.outcome.findings import RuleInfo
from axag.rules import (  # noqa: F401 - each module declares its rules on import
    attributes,
    binding,
    external,
    harvest,
    identity,
    macro,
    parameters,
    preconditions,
    run_level,
    safety,
    scope,
    values,
    webmcp,
)
from axag.rules.declare import DECLARED, Rule

__all__ = ["BY_NAME", "GROUPS", "RULES", "format_message", "lookup", "rule_infos"]

RULES: dict[int, Rule] = dict(sorted(DECLARED.items()))
BY_NAME: dict[str, Rule] = {r.name: r for r in RULES.values()}
GROUPS: dict[str, frozenset[int]] = {webmcp.GROUP: frozenset(webmcp.GROUP_CODES)}  # selectable by name


def rule_infos() -> list[RuleInfo]:
    return [r.info for r in RULES.values()]


def lookup(code_or_name: str) -> Rule | None:
    """Resolve `AXAG-LINT-006`, `006`, `6` or `high-risk-without-confirmation`."""
    s = code_or_name.strip()
    if s.upper().startswith("AXAG-LINT-"):
        s = s[10:]
    if s.isdigit():
        return RULES.get(int(s))
    return BY_NAME.get(s.lower())


def format_message(code: int, key: str | int = 0, /, **args: object) -> str:
    """Render message ``key`` of rule ``code`` (`Rule.format`)."""
    return RULES[code].format(key, **args)
