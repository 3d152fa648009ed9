"""`axag vocabulary`: the vocabulary of `axag.vocabulary` as a table, as VS Code's HTML custom
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


# ------------------------------------------------------------------ the documentation page docs/vocabulary.md
DOC_CATEGORIES = (
    ("action", "Action attributes",
     "On the element that performs the action: a `<button>`, `<a>`, `<form>`, `<input type=\"submit\">`, …"),
    ("context", "Context attributes",
     "On an action or on any element around actions: every action inside inherits them."),
    ("control", "Form-control attributes",
     "On `<input>`, `<select>` and `<textarea>` controls whose values become parameters (harvesting)."),
)

DOC_ENUM_TITLES = {
    "action_type": "Action types (`axag-action-type`)",
    "risk_level": "Risk levels (`axag-risk-level`), lowest first",
    "scope": "Scopes (`axag-scope`), least privileged first",
    "tenant_boundary": "Tenant boundaries (`axag-tenant-boundary`)",
    "parameter_type": "Parameter types (`type`, `axag-parameter-type`)",
    "parameter_format": "Formats (`format`, `axag-parameter-format`)",
}


def _doc_value(spec: V.AttrSpec) -> str:
    if spec.kind == "enum" and spec.enum is not None:
        return ", ".join(f"`{v}`" for v in V.ENUMS[spec.enum])
    return V.VALUE_FORMS[spec.kind]


def markdown() -> str:
    """docs/vocabulary.md: every attribute with its meaning and values, the enumerations, rates, parameter keys,
    the macro and what is not in the vocabulary (written by `python scripts/generate_docs.py`)."""
    out = [
        "# The AXAG 1.1 vocabulary",
        "",
        "Every attribute axag reads, what it means and the values it accepts. This page is generated from",
        "`axag/vocabulary/__init__.py` (`python scripts/generate_docs.py`); `axag rule CODE` explains each lint rule.",
        "Values are case-sensitive: `High` is not a risk level (`axag lint --fix` writes `high`).",
        "",
    ]
    for category, title, intro in DOC_CATEGORIES:
        out += [f"## {title}", "", intro, "", "| Attribute | Meaning | Value |", "|---|---|---|"]
        for name, spec in V.ATTRIBUTES.items():
            if spec.category == category:
                out.append(f"| `{name}` | {V.MEANINGS[name]} | {_doc_value(spec)} |")
        out.append("")
    out += ["## Enumerations", ""]
    for key, title in DOC_ENUM_TITLES.items():
        values = ", ".join(f"`{v}`" for v in V.ENUMS[key])
        out.append(f"- {title}: {values}.")
    aliases = ", ".join(f"`{a}` means `{b}`" for a, b in V.FORMAT_ALIASES.items())
    out += [f"- Format aliases: {aliases} (outputs use the second spelling).", ""]
    periods = ", ".join(f"`{p}`" for p in V.RATE_PERIODS)
    units = ", ".join(f"`{u}`" for u in V.COOLDOWN_MS)
    out += [
        "## Rates and durations",
        "",
        f"`axag-rate-limit` is `COUNT/PERIOD` with a period of {periods}; outputs write the long singular form",
        "(`100/h` becomes `100/hour`).",
        f"`axag-cooldown` is a whole number ≥ 1 followed by a unit: {units} (`30s`, `500ms`).",
        "",
        "## Parameters",
        "",
        "`axag-required-parameters` and `axag-optional-parameters` hold JSON arrays. An item is a parameter name",
        "(`\"email\"`, a string parameter) or a parameter object with these keys:",
        "",
        ", ".join(f"`{k}`" for k in V.PARAMETER_KEYS) + ".",
        "",
        "`min`/`max`/`exclusiveMin`/`exclusiveMax` become the JSON Schema keywords `minimum`, `maximum`,",
        "`exclusiveMinimum`, `exclusiveMaximum`. `items` and each value of `properties` are fragments: the same",
        "keys without `name`. The form controls of an action's form add parameters of their own (harvesting),",
        "described by the form-control attributes above. Spellings that lint fixes for you: "
        + ", ".join(f"`{a}` → `{b}`" for a, b in V.PARAMETER_KEY_ALIASES.items()) + ".",
        "",
        "```html",
        "<form axag-intent=\"booking.create\" axag-action-type=\"write\" axag-risk-level=\"medium\"",
        ("      axag-required-parameters='[\"check_in\", {\"name\": \"guests\", \"type\": \"integer\", "
         "\"min\": 1, \"max\": 10}]'>"),
        "```",
        "",
        "## The `axag` macro",
        "",
        "`axag=\"ACTION_TYPE:INTENT!RISK?key=value&key\"` stands for several attributes at once, without spaces:",
        "`axag=\"write:booking.create!medium?confirm&effects=email&req=check_in,guests\"`. Keys: `approval`,",
        "`confirm`, `idempotent`, `async` (booleans: bare means `true`), `scope`, `tenant` (enumerations),",
        "`roles`, `effects`, `req`, `opt` (comma-separated lists). An attribute written out on the same element",
        "wins over the macro.",
        "",
        "## Not in the vocabulary",
        "",
        f"- `{V.LEGACY_CONSTRAINTS}` was never part of AXAG: it is always an error, and `axag lint --fix` moves",
        "  what it can into parameters and [preconditions](preconditions.md).",
        "- " + ", ".join(f"`{a}`" for a in V.REMOVED_ATTRIBUTES) + " were removed in 1.1: use `axag-scope` and",
        "  `axag-tenant-boundary`.",
        f"- `{V.SKIP_ATTRIBUTE}` has no effect: silence a finding with a suppression comment",
        "  (`<!-- axag-disable-next-line AXAG-LINT-006 -- reason -->`).",
        "- " + ", ".join(f"`{a}`" for a in V.LEGACY_ACTION_TYPES) + " are 1.0 draft action types: write `write`.",
        f"- `{V.EXTENSION_PREFIX}<namespace>-<name>` attributes are yours: never an error, copied to the tool's",
        "  metadata under `extensions`.",
        "",
    ]
    return "\n".join(out)
