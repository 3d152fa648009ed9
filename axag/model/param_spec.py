"""MODEL: parameter specs: the `Spec` a parameter or fragment is read into, the `Loc` that maps each of
its keys and values back to the source, and the `Sink` that records the facts about an action's parameters.

The jobs built on it, one module each: `axag.model.spec_read` reads a parameter object or fragment into a Spec
(with the fixes of unknown parameter keys, type and format values); `axag.model.spec_checks` checks merged specs (coherence, values, pattern costs)
and compiles their property schemas (the property schema); `axag.model.declared` reads the declared lists and merges them with
the parameters `axag.model.harvest` reads from form controls (merging declared and harvested parameters).

A Spec holds validated values under their parameter keys and their JSON Schema mapping key names, each with a `Loc` (a JSON token inside a list
attribute, an `axag-parameter-*` attribute, or a form control).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from axag import vocabulary as V
from axag.files.spans import Span
from axag.model.facts import HARMLESS, Fact, Kind
from axag.model.values import Value
from axag.outcome.findings import Fix
from axag.parse.document import Element
from axag.values.jsontext import is_number as _is_number

if TYPE_CHECKING:
    from axag.model.types import Action, FileModel

__all__ = ["Loc", "Sink", "Spec", "SpecCtx"]

LISTS = ("axag-required-parameters", "axag-optional-parameters")
NUMERIC = frozenset({"number", "integer"})
NUMBER_KEYS = ("min", "max", "exclusiveMin", "exclusiveMax", "multipleOf")
COUNT_KEYS = ("minLength", "maxLength", "minItems", "maxItems")
APPLIES: dict[str, frozenset[str]] = {
    "format": frozenset({"string"}),
    "min": NUMERIC, "max": NUMERIC, "exclusiveMin": NUMERIC, "exclusiveMax": NUMERIC, "multipleOf": NUMERIC,
    "minLength": frozenset({"string"}), "maxLength": frozenset({"string"}), "pattern": frozenset({"string"}),
    "items": frozenset({"array"}), "minItems": frozenset({"array"}), "maxItems": frozenset({"array"}),
    "uniqueItems": frozenset({"array"}),
    "properties": frozenset({"object"}), "required": frozenset({"object"}),
}
KEY_TO_SCHEMA = {
    "min": "minimum", "max": "maximum", "exclusiveMin": "exclusiveMinimum", "exclusiveMax": "exclusiveMaximum",
}
FRAGMENT_KEYS = tuple(k for k in V.PARAMETER_KEYS if k != "name")
MAX_NESTING = 10
DATE_FORMATS = ("date", "date-time", "time")
HARVEST_KINDS = ("local-datetime", "time-of-day", "month", "week")


# ---------------------------------------------------------------------------------------------- data
@dataclass(frozen=True)
class Loc:
    """Where a parameter, fragment, key or value came from.

    ``value`` + ``path``: a JSON token inside an attribute value (``key_span`` gives the key token of an object
    member); ``fixed``: a span used for everything (a form control, an attribute without JSON).
    """

    value: Value | None = None
    path: tuple[str | int, ...] = ()
    fixed: Span | None = None
    fixed_key: Span | None = None
    attribute: str | None = None  # the axag-parameter-* attribute a harvested override came from

    def span(self) -> Span:
        if self.fixed is not None:
            return self.fixed
        assert self.value is not None
        return self.value.json_span(self.path)

    def key_span(self) -> Span:
        if self.fixed_key is not None:
            return self.fixed_key
        if self.fixed is None and self.path and isinstance(self.path[-1], str):
            assert self.value is not None
            return self.value.json_span(self.path, key=True)
        return self.span()

    def sub(self, *steps: str | int) -> Loc:
        if self.value is None:
            return Loc(fixed=self.fixed, fixed_key=self.fixed_key, attribute=self.attribute)
        return Loc(self.value, self.path + steps, attribute=self.attribute)

    @property
    def fixable(self) -> bool:
        v = self.value
        return (v is not None and v.attr is not None and v.doc is not None and not v.from_macro
                and v.macro_span is None)


@dataclass
class Spec:
    """A parameter or fragment: validated values by parameter keys and their JSON Schema mapping key (``items`` a Spec, ``properties`` a dict of Specs)."""

    loc: Loc
    keys: dict[str, Any] = field(default_factory=dict)
    locs: dict[str, Loc] = field(default_factory=dict)
    explicit_type: bool = False
    type_invalid: bool = False
    depth: int = 0
    incoherent: bool = False
    dropped: set[str] = field(default_factory=set)  # keys that do not apply to the type (115)
    bad_values: set[tuple[str, int]] = field(default_factory=set)  # enum items / const with a 115 type problem
    empty_range: bool = False  # no number satisfies the bounds (115): values are not checked against them

    @property
    def type(self) -> str:
        return str(self.keys.get("type", "string"))

    def key_loc(self, key: str) -> Loc:
        return self.locs.get(key, self.loc)

    def copy(self) -> Spec:
        return Spec(self.loc, dict(self.keys), dict(self.locs), self.explicit_type, self.type_invalid, self.depth)


class Sink:
    """Records the facts about one action's parameters; remembers whether one made them unusable.

    Harvest facts can be found twice (a form and its submit button share a scope): identical facts are recorded
    once per file."""

    def __init__(self, model: FileModel, act: Action | None) -> None:
        self.model = model
        self.act = act
        self.errors = 0
        self.seen = model.parameter_facts

    @property
    def text(self) -> str:
        return self.model.pf.text

    def add(self, kind: Kind, span: Span, attribute: str | None, /, *, element: Element | None = None,
            fix: Fix | None = None, help: str | None = None, **args: Any) -> None:
        if kind not in HARMLESS:
            self.errors += 1
        key = (kind, span.start, span.end, attribute, repr(sorted(args.items())))
        if key in self.seen:
            return
        self.seen.add(key)
        anchor = element if element is not None else (self.act.element if self.act is not None else None)
        self.model.facts.append(Fact(kind, span, anchor, attribute, args, fix, help))


@dataclass
class SpecCtx:
    """What a spec is read and checked for: the sink, the parameter's name and its list attribute."""

    sink: Sink
    pname: str
    list_attr: str | None  # the parameter list of a top-level declared item


# ---------------------------------------------------------------------------------------------- helpers
def is_integral(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) or isinstance(v, float) and v.is_integer()


def type_matches(value: object, type_: str) -> bool:
    if type_ == "string":
        return isinstance(value, str)
    if type_ == "number":
        return _is_number(value)
    if type_ == "integer":
        return _is_number(value) and is_integral(value)
    if type_ == "boolean":
        return isinstance(value, bool)
    if type_ == "array":
        return isinstance(value, list)
    if type_ == "object":
        return isinstance(value, dict)
    return True


def finite(number: Any) -> bool:
    try:
        return math.isfinite(float(number))
    except OverflowError:
        return True  # a big integer


def compact(value: Any) -> str:
    from axag.values.jsontext import dumps_compact

    try:
        return dumps_compact(value)
    except (TypeError, ValueError):  # e.g. an integer with more digits than Python converts to text
        return "…" if isinstance(value, int) else "(value)"


def json_key(value: object) -> object:
    """A hashable canonical key: ``json_key(a) == json_key(b)`` exactly when ``a`` and ``b`` are equal as JSON
    values (``1`` and ``1.0`` equal, ``1`` and ``true`` not, objects regardless of key order), so repeats are
    found with a set in linear time instead of comparing every pair."""
    if value is True or value is False:
        return ("b", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, list):
        return ("l", tuple(json_key(v) for v in value))
    if isinstance(value, dict):
        return ("o", frozenset((k, json_key(v)) for k, v in value.items()))
    return ("n", value)  # numbers: 1 == 1.0 and hash(1) == hash(1.0)
