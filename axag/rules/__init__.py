"""CHECK: lint rules. Metadata lives in `catalogue.py`; checks live in one module per rule family,
registered with `axag.rules.base.rule`. `load_rules()` imports them once."""

from __future__ import annotations

import importlib

RULE_MODULES: tuple[str, ...] = (
    "axag.rules.identity",
    "axag.rules.safety",
    "axag.rules.scope",
    "axag.rules.external",
    "axag.rules.binding",
    "axag.rules.values",
    "axag.rules.parameters",
    "axag.rules.markup",
    "axag.rules.context",
    "axag.rules.suppression",
)

_loaded = False


def load_rules() -> None:
    global _loaded
    if _loaded:
        return
    for name in RULE_MODULES:
        importlib.import_module(name)
    _loaded = True
