"""Guard objects built in process from the contract (an MCP tools document): the same `ToolGuard`s, with the
same arguments, that the generated Python package's ``make_guards`` returns, without writing or importing code.
`axag serve` runs these unless ``--guards DIR`` names a generated package (with the user's `preconditions.py`).

Both read the same `axag.guards.guard_spec.GuardSpec` and the same views (`axag.guards.views`); every value the
generated package writes as a Python literal is passed here as the value that literal evaluates to
(`literal_value`), and an opaque precondition is its unimplemented stub (it refuses the call), as in a package
whose `preconditions.py` axag has just created."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from axag.guards import guard_spec
from axag.guards.guard_spec import GuardSpecError
from axag.guards.views import guard_view, stub_views
from axag.outcome.errors import InputError
from axag.values import pyruntime as rt

__all__ = ["build_guards", "literal_value"]

_EXACT = 2**53  # `guard_spec.number_text`: integral floats below this are written without a fraction


def literal_value(value: object) -> Any:
    """The value that `guard_spec.py_literal(value)` evaluates to (tuples become lists, integral floats below 2^53
    ints); the same values are refused (`GuardSpecError`)."""
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        guard_spec.number_text(value)  # a non-finite number is refused, as by the literal encoder
        return int(value) if value.is_integer() and abs(value) < _EXACT else float(value)
    if isinstance(value, (list, tuple)):
        return [literal_value(v) for v in value]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise GuardSpecError(f"object key is not a string: {k!r}")
            out[str(k)] = literal_value(v)
        return out
    raise GuardSpecError(f"cannot encode {type(value).__name__} as a literal")


Call = Callable[[list[rt.Violation], Mapping[str, object], frozenset[str]], None]


def _relation_call(view: Mapping[str, Any]) -> Call:
    """One line of the generated ``_relations_<tool>``: the runtime function and its literal arguments."""
    name = guard_spec.identifier(view["fn"])
    fn: Callable[..., None] = getattr(rt, name)
    text, a, b = literal_value(view["text"]), literal_value(view["a"]), literal_value(view["b"])
    if name == "rel_compare":
        value = literal_value(view["value"]) if view["has_value"] else rt.NO_VALUE
        form, kind = literal_value(view["form"]), literal_value(view["kind"])
        return lambda out, arguments, ok: fn(out, arguments, ok, form, text, a, b, value, kind)
    if name in ("rel_exactly_one_of", "rel_at_least_one_of"):
        names = literal_value(view["names"])
        return lambda out, arguments, ok: fn(out, arguments, text, names)
    if name == "rel_required_when_equal":
        value = literal_value(view["value"])
        return lambda out, arguments, ok: fn(out, arguments, text, a, b, value)
    return lambda out, arguments, ok: fn(out, arguments, text, a, b)


def _relations(views: list[Mapping[str, Any]]) -> rt.RelationsFn:
    calls = [_relation_call(v) for v in views]

    def relations(arguments: Mapping[str, object], ok: frozenset[str]) -> list[rt.Violation]:
        out: list[rt.Violation] = []
        for call in calls:
            call(out, arguments, ok)
        return out

    return relations


def _stub(message: str) -> Callable[[Mapping[str, object], rt.GuardContext, str], bool]:
    """The function axag writes into a new `preconditions.py`: not implemented, so the call is refused."""

    def stub(arguments: Mapping[str, object], context: rt.GuardContext, tool: str) -> bool:
        raise NotImplementedError(message)

    return stub


def _preconditions(opaque: list[guard_spec.Opaque], stubs: Mapping[str, Callable[..., object]]) -> rt.PreconditionsFn:
    checks: list[tuple[Callable[..., object], str]] = [(stubs[guard_spec.identifier(p.stub)], literal_value(p.text))
                                                        for p in opaque]

    def preconditions(arguments: Mapping[str, object], context: rt.GuardContext, tool: str) -> str | None:
        for check, text in checks:
            if check(arguments, context, tool) is not True:
                return text
        return None

    return preconditions


# the keyword arguments of `ToolGuard` that the generated package writes as a literal of the view's value
_LITERALS = ("tool", "intent", "required_roles", "confirmation_required", "confirmation_message",
             "approval_required", "approval_roles", "approval_count", "rate_limit", "rate_count",
             "rate_window_seconds", "cooldown", "cooldown_seconds", "active_constraints")


def _guard(view: Mapping[str, Any], stubs: Mapping[str, Callable[..., object]], store: rt.GuardStore,
           null_as_absent: bool) -> rt.ToolGuard:
    lit = literal_value
    return rt.ToolGuard(
        **{key: lit(view[key]) for key in _LITERALS},
        schema=lit(view["input_schema"]),
        relations=_relations(view["relations"]),
        bounds=tuple((lit(b.param), lit(b.kind), lit(b.minimum), lit(b.maximum)) for b in view["bounds"]),
        preconditions=_preconditions(list(view["preconditions"]), stubs),
        store=store,
        null_as_absent=null_as_absent,
    )


def build_guards(doc: Mapping[str, Any], store: rt.GuardStore | None = None, *,
                 null_as_absent: bool = False) -> dict[str, rt.ToolGuard]:
    """One guard per tool of ``doc``, all sharing ``store`` (a new ``InMemoryStore`` by default): what
    ``make_guards(store)`` of the package `axag guards` writes for ``doc`` returns. Raises ``InputError`` on a
    document guards cannot be made from, with the message `axag guards` gives."""
    try:
        specs = guard_spec.extract_specs(doc)
        stubs = {guard_spec.identifier(s["name"]): _stub(s["message"]) for s in stub_views(guard_spec.collect_stubs(doc))}
        views = [guard_view(s) for s in specs]
        for view in views:
            guard_spec.identifier(view["ident"])
        shared: rt.GuardStore = store if store is not None else rt.InMemoryStore()
        return {literal_value(v["tool"]): _guard(v, stubs, shared, null_as_absent) for v in views}
    except GuardSpecError as exc:
        raise InputError(f"cannot generate guards: {exc}") from exc
