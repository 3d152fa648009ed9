"""CHECK: lint rules. A rule is one declaration (`axag.rules.declare.Rule`) next to its check, in the module of
its family; `axag.rules.catalogue` indexes them. `load_rules()` makes sure every check is registered."""

from __future__ import annotations


def load_rules() -> None:
    """Import every rule module (the catalogue does), which registers their checks."""
    import axag.rules.catalogue  # noqa: F401
