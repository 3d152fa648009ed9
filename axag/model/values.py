"""Typed attribute values (value syntax): every attribute string is interpreted exactly once, here.

A `Value` has a status (OK, ABSENT, INVALID, DYNAMIC); rules read `.value`, which is None unless OK.
What is wrong with a value is recorded as a `Fact` (its kind, span and repairing edit); the rules judge it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from axag import vocabulary as V
from axag.files.spans import Span
from axag.model import forms
from axag.model.facts import Fact, Kind
from axag.parse.document import Attr, Element
from axag.parse.edits import fix, replace_value
from axag.values.jsonspan import JsonDoc, JsonError
from axag.values.jsonspan import parse as parse_json


class Status(Enum):
    ABSENT = "absent"
    OK = "ok"
    INVALID = "invalid"
    DYNAMIC = "dynamic"


@dataclass(slots=True, eq=False)
class Value:
    status: Status
    value: Any = None
    attr: Attr | None = None
    doc: JsonDoc | None = None
    from_macro: bool = False
    # for macro-derived values: the span inside the macro value the part came from
    macro_span: Span | None = None

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    @property
    def declared(self) -> bool:
        return self.status is not Status.ABSENT

    @property
    def raw(self) -> str:
        return self.attr.value if self.attr is not None else ""

    def value_span(self) -> Span:
        if self.macro_span is not None:
            return self.macro_span
        assert self.attr is not None
        if self.attr.valueless:
            return self.attr.name_span
        return self.attr.value_span

    def name_span(self) -> Span:
        if self.macro_span is not None:
            return self.macro_span
        assert self.attr is not None
        return self.attr.name_span

    def json_span(self, path: tuple[str | int, ...], key: bool = False) -> Span:
        """Source span of the JSON token at ``path`` (the key token with ``key=True``)."""
        if self.macro_span is not None or self.doc is None or self.attr is None:
            return self.value_span()
        try:
            s, e = self.doc.key_span(path) if key else self.doc.span(path)
        except (KeyError, ValueError):
            return self.value_span()
        return self.attr.value_sub_span(s, e)


ABSENT = Value(Status.ABSENT)



# value kind (`vocabulary` attribute specs) -> the ValueReader method that reads a value of that kind
_READERS: dict[str, Callable[[ValueReader, Attr, Value], Value]] = {}


class ValueReader:
    """Interprets the attributes of one element, appending what is wrong to ``facts``."""

    def __init__(self, element: Element, facts: list[Fact], kind: str) -> None:
        self.element = element
        self.facts = facts
        self.kind = kind
        # id(attr) -> the JSON document of its value, parsed already (the damage check); each is used once
        self.parsed: dict[int, JsonDoc] = {}

    # ------------------------------------------------------------------ helpers
    def note(self, kind: Kind, span: Span, attribute: str | None, /, *, fix: Any = None, help: str | None = None,
             vocabulary: str | None = None, **args: Any) -> Fact:
        f = Fact(kind, span, self.element, attribute, args, fix, help, vocabulary)
        self.facts.append(f)
        return f

    def read(self, attr: Attr, from_macro: bool = False, macro_span: Span | None = None) -> Value:
        spec = V.ATTRIBUTES.get(attr.name)
        if spec is None:
            return Value(Status.OK, attr.value, attr)
        if attr.dynamic:
            return Value(Status.DYNAMIC, None, attr, from_macro=from_macro, macro_span=macro_span)
        reader = _READERS.get(spec.kind)
        if reader is None:  # the method of each kind is looked up once per process, not once per value
            reader = _READERS[spec.kind] = getattr(ValueReader, "_" + spec.kind)
        base = Value(Status.OK, None, attr, None, from_macro, macro_span)  # status, value, attr, doc, …
        return reader(self, attr, base)

    def _invalid(self, base: Value) -> Value:
        base.status = Status.INVALID
        base.value = None
        return base

    def _ok(self, base: Value, value: Any) -> Value:
        base.value = value
        return base

    def _fixable(self, base: Value, new: str | None, description: str, *, unsafe: bool = False) -> Any:
        if new is None or base.from_macro or base.attr is None:
            return None
        return fix(description, replace_value(base.attr, new), unsafe=unsafe)

    # ------------------------------------------------------------------ kinds
    def _macro(self, attr: Attr, base: Value) -> Value:
        return self._ok(base, attr.value)

    def _enum(self, attr: Attr, base: Value) -> Value:
        spec = V.ATTRIBUTES[attr.name]
        assert spec.enum is not None
        allowed = V.ENUMS[spec.enum]
        v = attr.value
        if v in allowed:
            if spec.enum == "parameter_format":
                return self._ok(base, V.FORMAT_ALIASES.get(v, v))
            return self._ok(base, v)
        span = base.value_span()
        if spec.enum == "action_type" and v.strip().lower() in V.LEGACY_ACTION_TYPES:
            self.note(Kind.LEGACY_ACTION_TYPE, span, attr.name, written=v, fix=self._fixable(
                base, V.LEGACY_ACTION_TYPE_REPLACEMENT, f'Replace with "{V.LEGACY_ACTION_TYPE_REPLACEMENT}"'))
            return self._invalid(base)
        new = forms.fix_enum(v, allowed)
        sugg = V.did_you_mean(v.strip().lower(), allowed) if new is None and v.strip() else None
        args: dict[str, Any] = {"written": v, "suggestion": sugg}
        if spec.enum in ("parameter_type", "parameter_format"):
            args = {"parameter": self.element_param_name(), "written": v}
            if spec.enum == "parameter_format":
                args["suggestion"] = sugg
        fx = self._fixable(base, new, f'Replace with "{new}"')
        if fx is None and sugg is not None:  # a did-you-mean: the closest value, applied with --unsafe-fixes
            fx = self._fixable(base, sugg, f'Replace with "{sugg}"', unsafe=True)
        self.note(Kind.NOT_IN_VOCABULARY, span, attr.name, fix=fx,
                  help=f"allowed values: {', '.join(allowed)}", vocabulary=spec.enum, **args)
        return self._invalid(base)

    def element_param_name(self) -> str:
        a = self.element.first.get("axag-parameter")
        if a is not None and a.value:
            return a.value
        el = self.element.el
        if el is not None:
            return str(el.get("name") or el.get("id") or self.element.tag)
        return self.element.tag

    def _boolean(self, attr: Attr, base: Value) -> Value:
        if attr.value in ("true", "false"):
            return self._ok(base, attr.value == "true")
        new = forms.fix_boolean(attr.value, attr.valueless)
        shown = attr.value
        self.note(Kind.NOT_BOOLEAN, base.value_span(), attr.name, attr=attr.name, written=shown,
                     fix=self._fixable(base, new, f'Replace with "{new}"'))
        return self._invalid(base)

    def _text(self, attr: Attr, base: Value) -> Value:
        collapsed = V.collapse_ws(attr.value)
        if not collapsed:
            self.note(Kind.UNEXPECTED_VALUE, base.value_span(), attr.name, attr=attr.name, written=attr.value,
                         expectation="a non-empty text")
            return self._invalid(base)
        return self._ok(base, collapsed)

    def _intent(self, attr: Attr, base: Value) -> Value:
        if V.INTENT_RE.fullmatch(attr.value):
            return self._ok(base, attr.value)
        if not base.from_macro:
            self.note(Kind.BAD_INTENT, base.value_span(), attr.name, intent_value=attr.value)
        return self._invalid(base)

    def _intent_ref(self, attr: Attr, base: Value) -> Value:
        if V.INTENT_RE.fullmatch(attr.value):
            return self._ok(base, attr.value)
        self.note(Kind.UNEXPECTED_VALUE, base.value_span(), attr.name, attr=attr.name, written=attr.value,
                     expectation='an intent (entity.verb in lower case, e.g. "cart.add_item")')
        return self._invalid(base)

    def _entity(self, attr: Attr, base: Value) -> Value:
        if V.ENTITY_RE.fullmatch(attr.value):
            return self._ok(base, attr.value)
        self.note(Kind.BAD_ENTITY, base.value_span(), attr.name, entity=attr.value)
        return self._invalid(base)

    def _tool_name(self, attr: Attr, base: Value) -> Value:
        if V.TOOL_NAME_RE.fullmatch(attr.value):
            return self._ok(base, attr.value)
        self.note(Kind.BAD_TOOL_NAME, base.value_span(), attr.name, name=attr.value)
        return self._invalid(base)

    def _param_name(self, attr: Attr, base: Value) -> Value:
        if V.is_param_name(attr.value):
            return self._ok(base, attr.value)
        problem = "is reserved" if attr.value.startswith("_axag") else "must match ^[A-Za-z_][A-Za-z0-9_]{0,63}$"
        self.note(Kind.BAD_CONTROL_PARAMETER_NAME, base.value_span(), attr.name, parameter_name=attr.value, control=self.element.tag,
                     problem=problem)
        return self._invalid(base)

    def _json(self, attr: Attr, base: Value, syntax: Kind) -> JsonDoc | None:
        try:
            doc = self.parsed.pop(id(attr), None) or parse_json(attr.value)
        except JsonError as exc:
            span = attr.value_sub_span(exc.offset, exc.offset + 1) if base.macro_span is None else base.value_span()
            if base.macro_span is None and exc.offset >= len(attr.value):
                span = base.value_span()
            self.note(syntax, span, attr.name, attr=attr.name, detail=exc.message)
            return None
        base.doc = doc
        return doc

    def _param_list(self, attr: Attr, base: Value) -> Value:
        doc = self._json(attr, base, Kind.PARAMETER_LIST_SYNTAX)
        if doc is None:
            return self._invalid(base)
        if not isinstance(doc.value, list):
            self.note(Kind.PARAMETER_LIST_NOT_ARRAY, base.value_span(), attr.name, attr=attr.name)
            return self._invalid(base)
        ok = True
        for i, item in enumerate(doc.value):
            if not isinstance(item, (str, dict)):
                self.note(Kind.PARAMETER_LIST_ITEM, base.json_span((i,)), attr.name, attr=attr.name, position=i + 1)
                ok = False
        if not ok:
            return self._invalid(base)
        return self._ok(base, doc.value)

    def _string_array(self, attr: Attr, base: Value) -> Value:
        doc = self._json(attr, base, Kind.JSON_SYNTAX)
        if doc is None:
            self._plain_list_fix(attr, base)
            return self._invalid(base)
        items = doc.value
        if not isinstance(items, list) or not all(isinstance(x, str) and V.collapse_ws(x) for x in items):
            self.note(Kind.JSON_SHAPE, base.value_span(), attr.name, attr=attr.name, shape="a JSON array of non-empty strings")
            return self._invalid(base)
        out: list[str] = []
        seen: set[str] = set()
        removal: Any = None  # one edit removing every repeat, made once (an edit per repeat was quadratic)
        for i, item in enumerate(items):
            c = V.collapse_ws(item)
            if c in seen:
                fx = None
                if not base.from_macro:
                    if removal is None:
                        from axag.values.jsontext import dumps_compact

                        firsts: dict[str, str] = {}  # collapsed item -> its first occurrence, in order
                        for x in items:
                            firsts.setdefault(V.collapse_ws(x), x)
                        removal = replace_value(attr, dumps_compact(list(firsts.values())))
                    fx = fix(f'Remove the repeated "{c}"', removal)
                self.note(Kind.REPEATED_ITEM, base.json_span((i,)), attr.name, attr=attr.name, item=c, fix=fx)
                continue
            seen.add(c)
            out.append(c)
        return self._ok(base, out)

    def _plain_list_fix(self, attr: Attr, base: Value) -> None:
        """A string array written as plain text (``admin, owner``): the syntax fact just recorded gets the JSON array as
        its help and, when the reading is certain, as its fix."""
        items = forms.plain_string_list(attr.value, names=attr.name in V.NAME_LIST_ATTRIBUTES)
        if items is None or base.from_macro:
            return
        from axag.values.jsontext import dumps_compact

        new = dumps_compact(items)
        p = self.facts[-1]
        p.help = f"write it as a JSON array: {new}"
        # requoted: JSON in single quotes reads as written (in double quotes it would need &quot;)
        p.fix = fix(f"Replace with {new}", replace_value(attr, new, requote=True))

    def _json_array(self, attr: Attr, base: Value) -> Value:
        doc = self._json(attr, base, Kind.JSON_SYNTAX)
        if doc is None:
            return self._invalid(base)
        if not isinstance(doc.value, list):
            self.note(Kind.JSON_SHAPE, base.value_span(), attr.name, attr=attr.name, shape="a JSON array")
            return self._invalid(base)
        return self._ok(base, doc.value)

    def _json_object(self, attr: Attr, base: Value) -> Value:
        doc = self._json(attr, base, Kind.JSON_SYNTAX)
        if doc is None:
            return self._invalid(base)
        if not isinstance(doc.value, dict):
            self.note(Kind.JSON_SHAPE, base.value_span(), attr.name, attr=attr.name, shape="a JSON object")
            return self._invalid(base)
        return self._ok(base, doc.value)

    def _json_or_text(self, attr: Attr, base: Value) -> Value:
        # interpreted by harvesting, which knows the parameter type (the attribute table)
        return self._ok(base, attr.value)

    def _number(self, attr: Attr, base: Value) -> Value:
        try:
            doc = parse_json(attr.value)
            ok = isinstance(doc.value, (int, float)) and not isinstance(doc.value, bool)
        except JsonError:
            ok = False
        if ok and math.isfinite(float(doc.value)):  # type: ignore[arg-type]
            return self._ok(base, doc.value)
        key = attr.name.removeprefix("axag-parameter-")
        self.note(Kind.BAD_KEY_VALUE, base.value_span(), attr.name, parameter=self.element_param_name(), parameter_key=key,
                     expectation="a JSON number")
        return self._invalid(base)

    def _nonneg_int(self, attr: Attr, base: Value) -> Value:
        if V.NONNEG_INT_RE.fullmatch(attr.value):
            return self._ok(base, int(attr.value))
        key = attr.name.removeprefix("axag-parameter-")
        self.note(Kind.BAD_KEY_VALUE, base.value_span(), attr.name, parameter=self.element_param_name(), parameter_key=key,
                     expectation="a non-negative integer")
        return self._invalid(base)

    def _positive_int(self, attr: Attr, base: Value) -> Value:
        if V.POSITIVE_INT_RE.fullmatch(attr.value):
            return self._ok(base, int(attr.value))
        if attr.name == "axag-approval-count":
            self.note(Kind.BAD_APPROVAL_COUNT, base.value_span(), attr.name, written=attr.value)
        else:
            self.note(Kind.UNEXPECTED_VALUE, base.value_span(), attr.name, attr=attr.name, written=attr.value,
                         expectation="a positive integer")
        return self._invalid(base)

    def _regex(self, attr: Attr, base: Value) -> Value:
        from axag.values.pattern import check_pattern

        problem = check_pattern(attr.value)
        if problem is None:
            return self._ok(base, attr.value)
        self.note(Kind.BAD_PATTERN, base.value_span(), attr.name, parameter=self.element_param_name(), problem=problem)
        return self._invalid(base)

    def _rate(self, attr: Attr, base: Value) -> Value:
        parsed = forms.parse_rate(attr.value)
        if parsed is not None:
            return self._ok(base, parsed)
        new = forms.fix_rate(attr.value)
        self.note(Kind.BAD_RATE, base.value_span(), attr.name, written=attr.value,
                     fix=self._fixable(base, new, f'Replace with "{new}"'))
        return self._invalid(base)

    def _duration(self, attr: Attr, base: Value) -> Value:
        parsed = forms.parse_cooldown(attr.value)
        if parsed is not None:
            return self._ok(base, parsed)
        new = forms.fix_cooldown(attr.value)
        self.note(Kind.BAD_DURATION, base.value_span(), attr.name, written=attr.value,
                     fix=self._fixable(base, new, f'Replace with "{new}"'))
        return self._invalid(base)

    def _params_from(self, attr: Attr, base: Value) -> Value:
        # the id lookup needs the whole file: done by the action builder
        return self._ok(base, attr.value)

    def _schema_ref(self, attr: Attr, base: Value) -> Value:
        if forms.check_schema_ref(attr.value):
            return self._ok(base, attr.value)
        self.note(Kind.BAD_SCHEMA_REF, base.value_span(), attr.name, written=attr.value)
        return self._invalid(base)

    def _workflow_id(self, attr: Attr, base: Value) -> Value:
        if V.WORKFLOW_ID_RE.fullmatch(attr.value):
            return self._ok(base, attr.value)
        self.note(Kind.UNEXPECTED_VALUE, base.value_span(), attr.name, attr=attr.name, written=attr.value,
                     expectation="a token of letters, digits and _ . : -")
        return self._invalid(base)

    def _version(self, attr: Attr, base: Value) -> Value:
        if V.VERSION_RE.fullmatch(attr.value):
            return self._ok(base, attr.value)
        self.note(Kind.UNEXPECTED_VALUE, base.value_span(), attr.name, attr=attr.name, written=attr.value,
                     expectation='a version such as "1.2" or "1.2.3"')
        return self._invalid(base)
