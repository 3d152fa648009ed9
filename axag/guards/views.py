"""The guard views shared by the Python and the TypeScript renderers (`axag.guards.render`,
`axag.guards.typescript`): the jinja2 environment with its filters, the views of a guard, a relation and a
stub, and the `RenderedGuards` result. jinja2 is imported lazily, inside :func:`environment`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from axag.guards import guard_spec
from axag.guards.guard_spec import GuardSpec, GuardSpecError, Stub

if TYPE_CHECKING:
    import jinja2

_TEMPLATES = Path(__file__).resolve().parent / "templates"
_VERSION_RE = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+-]*")


@dataclass
class RenderedGuards:
    """Generated files (relative path -> text), the user-owned module and the missing stubs (or None)."""

    files: dict[str, str]
    user_module_path: str
    user_module: str
    missing_path: str
    missing_stubs: str | None = None
    missing_names: list[str] = field(default_factory=list)


class Code(str):
    """Text produced by a literal or identifier filter; the only values the finalize hook lets through."""

    __slots__ = ()


def _finalize(value: object) -> object:
    if isinstance(value, Code):
        return value
    raise TypeError(f"guard templates may only print filtered values, got {type(value).__name__}")


def defined(value: object) -> object:
    """Raise jinja2's UndefinedError for an undefined value (StrictUndefined fails on ``str``)."""
    import jinja2

    if isinstance(value, jinja2.Undefined):
        str(value)
    return value


def _lit(value: object) -> Code:
    return Code(guard_spec.py_literal(defined(value)))


def _ident(value: object) -> Code:
    name = defined(value)
    if not isinstance(name, str):
        raise GuardSpecError(f"not a safe identifier: {name!r}")
    return Code(guard_spec.identifier(name))


def _version(value: object) -> Code:
    if not isinstance(value, str) or not _VERSION_RE.fullmatch(value):
        raise GuardSpecError(f"bad generator version {value!r}")
    return Code(value)


def environment(lang: str) -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_TEMPLATES / lang)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        finalize=_finalize,
        keep_trailing_newline=True,
        trim_blocks=False,
        lstrip_blocks=False,
    )
    env.filters["lit"] = _lit
    env.filters["ident"] = _ident
    env.filters["version"] = _version
    return env


def relation_view(spec: GuardSpec, rel: guard_spec.Relation) -> dict[str, Any]:
    form, params = rel.form, rel.params

    def need(count: int) -> None:
        if len(params) != count:
            raise GuardSpecError(f"tool {spec.tool!r}: {form} precondition {rel.text!r} needs {count} parameters")

    view: dict[str, Any] = {"form": form, "text": rel.text, "kind": rel.kind, "has_value": rel.has_value,
                            "value": rel.value, "a": params[0], "b": None, "names": list(params)}
    if form in guard_spec.COMPARISON_FORMS:
        need(1 if rel.has_value else 2)
        view["fn"] = "rel_compare"
        view["b"] = None if rel.has_value else params[1]
    elif form in ("exactly_one_of", "at_least_one_of"):
        if len(params) < 2:
            raise GuardSpecError(f"tool {spec.tool!r}: {form} precondition {rel.text!r} needs 2+ parameters")
        view["fn"] = "rel_" + form
    elif form == "required_when_equal":
        need(2)
        if not rel.has_value:
            raise GuardSpecError(f"tool {spec.tool!r}: {form} precondition {rel.text!r} needs a value")
        view["fn"] = "rel_required_when_equal"
        view["b"] = params[1]
    else:
        need(2)
        view["fn"] = "rel_" + form
        view["b"] = params[1]
    return view


def guard_view(spec: GuardSpec) -> dict[str, Any]:
    return {
        "ident": spec.ident,
        "tool": spec.tool,
        "intent": spec.intent,
        "input_schema": spec.input_schema,
        "active_constraints": spec.active_constraints,
        "relations": [relation_view(spec, r) for r in spec.relations],
        "preconditions": spec.preconditions,
        "bounds": spec.bounds,
        "required_roles": list(spec.required_roles),
        "confirmation_required": spec.confirmation_required,
        "confirmation_message": spec.confirmation_message,
        "approval_required": spec.approval_required,
        "approval_roles": list(spec.approval_roles),
        "approval_count": spec.approval_count,
        "rate_limit": spec.rate_limit,
        "rate_count": spec.rate_count,
        "rate_window_seconds": spec.rate_window_seconds,
        "cooldown": spec.cooldown,
        "cooldown_seconds": spec.cooldown_seconds,
    }


def stub_views(stubs: Sequence[Stub]) -> list[dict[str, Any]]:
    return [
        {
            "name": s.name,
            "message": f'precondition "{s.text}" (used by {", ".join(s.tools)}) is not implemented',
        }
        for s in stubs
    ]
