"""CHECK: lint rules. Metadata lives in `catalogue.py`; checks live in one module per rule family,
registered with `axag.rules.base.rule`. `load_rules()` imports them once."""

from __future__ import annotations

import importlib

RULE_MODULES: tuple[str, ...] = (
    "axag.rules.identity",
    "axag.rules.safety",
    "axag.rules.scope",
    "axag.rules.forms",
    "axag.rules.external",
    "axag.rules.context",
)

_loaded = False


def load_rules() -> None:
    global _loaded
    if _loaded:
        return
    for name in RULE_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a family not written yet
            if exc.name != name:
                raise
    _loaded = True
