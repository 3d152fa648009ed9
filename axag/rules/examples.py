"""A failing and a passing example per rule, printed by `axag rule` (kept in sync with
fixtures/rules/<code>/ by tests/test_rule_examples.py)."""

from __future__ import annotations

EXAMPLES: dict[int, tuple[str, str]] = {}
