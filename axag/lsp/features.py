"""Completion and hover of the server, in plain data (the server turns them into protocol types): what to
offer at a cursor and what to show over it, from the vocabulary (`axag.vocabulary`, `axag.vocabulary.export`)
and the rule catalogue."""

from __future__ import annotations

from dataclasses import dataclass

from axag import vocabulary as V
from axag.lsp import context as C
from axag.vocabulary.export import attribute_doc

PARAM_LISTS = frozenset({"axag-required-parameters", "axag-optional-parameters"})
INTENT_KINDS = frozenset({"intent", "intent_ref"})
_SPEC_KEYS = {V.spec_key(n): n for n in V.ATTRIBUTES if n != "axag"}


@dataclass
class Item:
    """One completion: ``label`` shown, ``insert`` written over [start, end) (code-point offsets)."""

    label: str
    kind: str  # "property" | "value" | "key" | "reference"
    doc: str
    insert: str
    start: int
    end: int
    detail: str = ""


def _attr_items(prefix: str, start: int, end: int, jsx: bool) -> list[Item]:
    out = []
    for name, spec in V.ATTRIBUTES.items():
        if not name.startswith(prefix.lower()) and prefix:
            continue
        values = V.attribute_values(spec)
        if spec.kind == "boolean" and jsx:
            insert = f"{name}={{true}}"
        elif name == "axag" and jsx:
            insert = "axag={{}}"
        else:
            insert = f'{name}="{values[0] if len(values) == 2 and spec.kind == "boolean" else ""}"'
        out.append(Item(name, "property", attribute_doc(name), insert, start, end, V.MEANINGS[name]))
    return out


def _value_items(values: list[tuple[str, str]], prefix: str, start: int, end: int, kind: str = "value",
                 quote: str = "") -> list[Item]:
    return [Item(v, kind, doc, f"{quote}{v}{quote}", start, end, doc) for v, doc in values if v.startswith(prefix)]


def _enum_values(spec: V.AttrSpec) -> list[tuple[str, str]]:
    return [(v, V.value_meaning(spec, v) or "") for v in V.attribute_values(spec)]


def _json_items(spot: C.JsonSpot, offset: int, controls: list[str], js: bool) -> list[Item]:
    start = offset - len(spot.prefix)
    if spot.mode == "key":
        keys = [(k, f"parameter key `{k}`") for k in V.PARAMETER_KEYS]
        if spot.quoted:
            return _value_items(keys, spot.prefix, start, offset, "key")
        return [Item(k, "key", d, f'{k}: ' if js else f'"{k}": ', start, offset, d) for k, d in keys
                if k.startswith(spot.prefix)]
    if spot.mode == "value" and spot.key in ("type", "format"):
        enum = V.PARAMETER_TYPES if spot.key == "type" else V.FORMATS
        table = V.VALUE_MEANINGS["parameter_type" if spot.key == "type" else "parameter_format"]
        return _value_items([(v, table.get(v, "")) for v in enum], spot.prefix, start, offset,
                            quote="" if spot.quoted else '"')
    if spot.mode == "value" and spot.key == "name" or spot.mode == "item" and spot.depth == 1:
        return _value_items([(c, "a control of the form") for c in controls], spot.prefix, start, offset,
                            "reference", "" if spot.quoted else '"')
    return []


def _spec_items(spot: C.JsonSpot, offset: int, intents: list[str]) -> list[Item]:
    """Inside an ``axag={{…}}`` spec object: its camelCase keys, and the values of the key being written."""
    start = offset - len(spot.prefix)
    if spot.depth == 1 and spot.mode == "key":
        out = []
        for key, name in _SPEC_KEYS.items():
            if key.startswith(spot.prefix):
                out.append(Item(key, "key", attribute_doc(name), key if spot.quoted else f"{key}: ", start, offset,
                                V.MEANINGS[name]))
        return out
    if spot.depth == 1 and spot.mode == "value" and spot.key is not None:
        attr_name = _SPEC_KEYS.get(spot.key) or _spec_attribute(spot.key)
        spec = V.ATTRIBUTES.get(attr_name) if attr_name else None
        if spec is None:
            return []
        if spec.kind in INTENT_KINDS:
            return _value_items([(i, "used in the workspace") for i in intents], spot.prefix, start, offset,
                                "reference", "" if spot.quoted else '"')
        values = _enum_values(spec)
        if spec.kind == "boolean" and not spot.quoted:
            return _value_items(values, spot.prefix, start, offset)
        return _value_items(values, spot.prefix, start, offset, quote="" if spot.quoted else '"')
    return []


def _spec_attribute(key: str) -> str | None:
    """The attribute a spec key stands for (the JSX reader's rule), None when not in the vocabulary."""
    from axag.parse.jsxspec import attribute_name

    name = attribute_name(key)
    return name if name in V.ATTRIBUTES else None


def complete(text: str, offset: int, *, jsx: bool, intents: list[str]) -> list[Item]:
    """The completions at ``offset`` (a code-point offset into ``text``)."""
    tag = C.tag_at(text, offset)
    if tag is None:
        return []
    attr, where = C.attr_at(tag, offset)
    if attr is None:
        return _attr_items("", offset, offset, jsx)
    if where == "name":
        prefix = text[attr.name_start:offset]
        if not ("axag".startswith(prefix.lower()) or prefix.lower().startswith("axag")):
            return []
        return _attr_items(prefix, attr.name_start, attr.name_end, jsx)
    name = attr.name.lower()
    value = text[attr.value_start:offset]
    if attr.delimiter == "{":
        if name == "axag":
            return _spec_items(C.json_spot(value), offset, intents)
        spot = C.json_spot(value)  # `axag-risk-level={"hi` or `{'…'}`: a string in braces
        if not spot.quoted:
            return []
        value = spot.prefix
    spec = V.ATTRIBUTES.get(name)
    if spec is None:
        return []
    start = offset - len(value)
    if name in PARAM_LISTS:
        return _json_items(C.json_spot(text[attr.value_start:offset]), offset,
                           C.form_controls(text, tag.start), js=False)
    if spec.kind in INTENT_KINDS:
        return _value_items([(i, "used in the workspace") for i in intents], value, start, offset, "reference")
    return _value_items(_enum_values(spec), value, start, offset)


def hover(text: str, offset: int) -> tuple[str, int, int] | None:
    """(Markdown, start, end) of what is under the cursor: an attribute, its value, a spec key or value, or a
    rule code of a suppression comment."""
    code = C.directive_code_at(text, offset)
    if code is not None:
        from axag.rules.catalogue import lookup
        from axag.rules.docs import explain

        meta = lookup(code)
        if meta is None:
            return None
        s, e = C.word_around(text, offset)
        return "```text\n" + explain(meta.info.code).rstrip("\n") + "\n```", s, e
    tag = C.tag_at(text, offset)
    if tag is None:
        return None
    attr, where = C.attr_at(tag, offset)
    if attr is None:
        return None
    name = attr.name.lower()
    if where == "name":
        if name in V.ATTRIBUTES:
            return attribute_doc(name), attr.name_start, attr.name_end
        return None
    if name == "axag" and attr.delimiter == "{":
        return _spec_hover(text, attr, offset)
    spec = V.ATTRIBUTES.get(name)
    if spec is None:
        return None
    raw = text[attr.value_start:attr.value_end]
    value = raw.strip().strip("\"'`") if attr.delimiter == "{" else raw
    return _value_hover(name, spec, value), attr.value_start, attr.value_end


def _value_hover(name: str, spec: V.AttrSpec, value: str) -> str:
    meaning = V.value_meaning(spec, value)
    if meaning is not None:
        return f"`{value}`: {meaning}.\n\n---\n\n{attribute_doc(name)}"
    values = V.attribute_values(spec)
    if values:
        return f"`{value}` is not a value of {name}.\n\n---\n\n{attribute_doc(name)}"
    return attribute_doc(name)


def _spec_hover(text: str, attr: C.Attr, offset: int) -> tuple[str, int, int] | None:
    s, e = C.word_around(text, offset, "A-Za-z0-9_$-")
    word = text[s:e]
    if not word:
        return None
    rest = text[e:attr.value_end].lstrip(" \t\r\n\"'")
    before = C.json_spot(text[attr.value_start:s])
    if rest.startswith(":") and before.mode == "key":
        name = _SPEC_KEYS.get(word) or _spec_attribute(word)
        return (attribute_doc(name), s, e) if name is not None else None
    if before.mode == "value" and before.key is not None:
        name = _SPEC_KEYS.get(before.key) or _spec_attribute(before.key)
        spec = V.ATTRIBUTES.get(name) if name else None
        if spec is not None and name is not None:
            return _value_hover(name, spec, word), s, e
    return None
