"""`axag vocabulary` (issue 30 §3): the vocabulary of `axag.vocabulary` as a table, as VS Code's HTML custom
data and as TypeScript declarations for React's JSX. Everything here is made from that single declaration
(attribute table, value kinds, enumerations, meanings); nothing is kept by hand.
"""

from __future__ import annotations

import json
from typing import Any

from axag import vocabulary as V

FORMATS = ("table", "vscode-html-data", "typescript")
DOCS_URL = "https://axag.org/vocabulary"


def value_text(spec: V.AttrSpec) -> str:
    """The values an attribute takes, in Markdown: its listed values, else the form of its values."""
    values = V.attribute_values(spec)
    if values:
        return ", ".join(f"`{v}`" for v in values)
    return V.VALUE_FORMS[spec.kind]


def attribute_doc(name: str) -> str:
    """An attribute's documentation in Markdown (completion, hover, VS Code data): meaning, then values."""
    spec = V.ATTRIBUTES[name]
    lines = [f"**{name}**: {V.MEANINGS[name]}.", "", f"Value: {value_text(spec)}."]
    if spec.category == "context":
        lines += ["", "Context attribute: inherited by every action inside the element."]
    elif spec.category == "control":
        lines += ["", "Form-control attribute: describes the parameter the control's value becomes."]
    return "\n".join(lines)


def _plain(markdown: str) -> str:
    return markdown.replace("`", "")


# ---------------------------------------------------------------------------------------------- table
def table_rows() -> list[tuple[str, str, str, str]]:
    """(attribute, value form, values, meaning) per attribute, in vocabulary order."""
    rows = []
    for name, spec in V.ATTRIBUTES.items():
        values = V.attribute_values(spec)
        form = "enumeration" if spec.kind == "enum" else _plain(V.VALUE_FORMS[spec.kind])
        rows.append((name, form, ", ".join(values), _plain(V.MEANINGS[name])))
    return rows


def render_table(width: int = 0) -> str:
    """The vocabulary as a plain-text table (deterministic: no terminal styling); ``width`` > 0 wraps the
    meaning column to fit."""
    import textwrap

    head = ("ATTRIBUTE", "VALUE FORM", "VALUES", "MEANING")
    rows = table_rows()
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(3)]
    indent = sum(widths) + 6
    room = width - indent if width > 0 and width - indent >= 20 else 0
    out = []
    for row in [head, *rows]:
        meaning = textwrap.wrap(row[3], room) or [""] if room else [row[3]]
        cells = "  ".join(c.ljust(w) for c, w in zip(row[:3], widths, strict=True))
        out.append(f"{cells}  {meaning[0]}".rstrip())
        out.extend(" " * indent + more for more in meaning[1:])
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------- VS Code
def _value_set_name(spec: V.AttrSpec) -> str | None:
    if spec.kind == "enum" and spec.enum is not None:
        return "axag-" + spec.enum.replace("_", "-")
    return "axag-boolean" if spec.kind == "boolean" else None


def vscode_html_data() -> dict[str, Any]:
    """VS Code's HTML custom data (``html.customData``, version 1.1): one global attribute per vocabulary
    attribute, and one value set per enumeration (plus the booleans), every value with its meaning."""
    attributes: list[dict[str, Any]] = []
    sets: dict[str, dict[str, Any]] = {}
    for name, spec in V.ATTRIBUTES.items():
        item: dict[str, Any] = {"name": name, "description": {"kind": "markdown", "value": attribute_doc(name)}}
        set_name = _value_set_name(spec)
        if set_name is not None:
            item["valueSet"] = set_name
            if set_name not in sets:
                sets[set_name] = {"name": set_name, "values": [
                    {"name": v, "description": V.value_meaning(spec, v) or v} for v in V.attribute_values(spec)]}
        item["references"] = [{"name": "AXAG vocabulary", "url": DOCS_URL}]
        attributes.append(item)
    return {"version": 1.1, "globalAttributes": attributes, "valueSets": list(sets.values())}


def render_vscode_html_data() -> str:
    return json.dumps(vscode_html_data(), indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------------------------- TypeScript
_TS_KINDS: dict[str, str] = {
    "boolean": 'AxagBoolean',
    "number": "number | `${number}`",
    "nonneg_int": "number | `${number}`",
    "positive_int": "number | `${number}`",
    "param_list": "string",
    "string_array": "string",
    "json_array": "string",
    "json_object": "string",
    "json_or_text": "string | number | boolean",
    "macro": "string | AxagSpec",
}
# in a spec object, JSON values may be written as JavaScript arrays and objects
_TS_SPEC_KINDS: dict[str, str] = {
    "param_list": "string | ReadonlyArray<string | AxagParameter>",
    "string_array": "string | readonly string[]",
    "json_array": "string | readonly unknown[]",
    "json_object": "string | Readonly<Record<string, unknown>>",
}


def _enum_type(key: str) -> str:
    return "Axag" + "".join(w.capitalize() for w in key.split("_"))


def _ts_type(spec: V.AttrSpec, *, in_spec: bool = False) -> str:
    if spec.kind == "enum" and spec.enum is not None:
        return _enum_type(spec.enum)
    if in_spec and spec.kind in _TS_SPEC_KINDS:
        return _TS_SPEC_KINDS[spec.kind]
    return _TS_KINDS.get(spec.kind, "string")


def _ts_doc(text: str, indent: str) -> list[str]:
    body = text.replace("*/", "*\u200b/").splitlines()
    return [f"{indent}/**", *(f"{indent} * {line}".rstrip() for line in body), f"{indent} */"]


def render_typescript() -> str:
    """Declarations (a module file: ``import "./axag"`` or list it in tsconfig ``include``) that add the
    ``axag-*`` attributes, with literal-union value types, and the ``axag`` spec object to the attributes of
    React's intrinsic elements, so that ``tsc`` rejects ``axag-risk-level="hgih"``."""
    out = ["// Generated by `axag vocabulary --format typescript` from the AXAG 1.1 vocabulary: do not edit.",
           "// Adds the axag-* attributes (and `axag={…}` spec objects) to React's JSX intrinsic elements.",
           "", 'import "react";', ""]
    for key, values in V.ENUMS.items():
        out += _ts_doc(f"AXAG {key.replace('_', ' ')}.", "")
        out.append(f"export type {_enum_type(key)} = {' | '.join(json.dumps(v) for v in values)};")
    out += ['export type AxagBoolean = boolean | "true" | "false";', ""]
    out += _ts_doc("A parameter object of axag-required-parameters / axag-optional-parameters.", "")
    out.append("export interface AxagParameter {")
    for key in V.PARAMETER_KEYS:
        ts = {"name": "string", "type": "AxagParameterType", "format": "AxagParameterFormat",
              "description": "string", "pattern": "string", "required": "boolean | readonly string[]",
              "uniqueItems": "boolean"}.get(key, "unknown")
        if key in ("min", "max", "exclusiveMin", "exclusiveMax", "multipleOf", "minLength", "maxLength",
                   "minItems", "maxItems"):
            ts = "number"
        out.append(f"  {key}?: {ts};")
    out += ["}", ""]
    out += _ts_doc("An `axag={…}` spec object: camelCase keys for the axag-* attributes.", "")
    out.append("export interface AxagSpec {")
    for name, spec in V.ATTRIBUTES.items():
        if name == "axag":
            continue
        out += _ts_doc(attribute_doc(name), "  ")
        out.append(f"  {V.spec_key(name)}?: {_ts_type(spec, in_spec=True)};")
    out += ["  handler?: unknown;", "}", ""]
    out += ["export interface AxagAttributes {"]
    for name, spec in V.ATTRIBUTES.items():
        doc = attribute_doc(name) if name != "axag" else (
            "**axag**: " + V.MEANINGS[name] + ": a macro string, or in JSX a spec object (`axag={{…}}`).")
        out += _ts_doc(doc, "  ")
        out.append(f"  {json.dumps(name)}?: {_ts_type(spec)};")
    out += ["}", "", 'declare module "react" {',
            "  // every intrinsic element's attributes extend HTMLAttributes",
            "  // eslint-disable-next-line @typescript-eslint/no-unused-vars",
            "  interface HTMLAttributes<T> extends AxagAttributes {}",
            "  // eslint-disable-next-line @typescript-eslint/no-unused-vars",
            "  interface SVGAttributes<T> extends AxagAttributes {}", "}", ""]
    return "\n".join(out)


def render(fmt: str, width: int = 0) -> str:
    if fmt == "table":
        return render_table(width)
    if fmt == "vscode-html-data":
        return render_vscode_html_data()
    if fmt == "typescript":
        return render_typescript()
    raise ValueError(fmt)
