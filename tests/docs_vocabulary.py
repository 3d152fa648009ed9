"""docs/vocabulary.md, made from the vocabulary data of `axag/vocabulary.py` (attribute names, value kinds,
enumerations, parameter keys, rate periods, aliases) plus a one-line meaning per attribute. `tests/test_docs.py`
checks that the committed page is this text; regenerate it with `python -m tests.docs_vocabulary`."""

from __future__ import annotations

from pathlib import Path

from axag import vocabulary as V

DOC = Path(__file__).resolve().parents[1] / "docs" / "vocabulary.md"

# value kind of axag/vocabulary.py -> what to write
KINDS = V.VALUE_FORMS

MEANINGS = V.MEANINGS

CATEGORIES = (
    ("action", "Action attributes",
     "On the element that performs the action: a `<button>`, `<a>`, `<form>`, `<input type=\"submit\">`, …"),
    ("context", "Context attributes",
     "On an action or on any element around actions: every action inside inherits them."),
    ("control", "Form-control attributes",
     "On `<input>`, `<select>` and `<textarea>` controls whose values become parameters (harvesting)."),
)

ENUM_TITLES = {
    "action_type": "Action types (`axag-action-type`)",
    "risk_level": "Risk levels (`axag-risk-level`), lowest first",
    "scope": "Scopes (`axag-scope`), least privileged first",
    "tenant_boundary": "Tenant boundaries (`axag-tenant-boundary`)",
    "parameter_type": "Parameter types (`type`, `axag-parameter-type`)",
    "parameter_format": "Formats (`format`, `axag-parameter-format`)",
}


def _value(spec: V.AttrSpec) -> str:
    if spec.kind == "enum" and spec.enum is not None:
        return ", ".join(f"`{v}`" for v in V.ENUMS[spec.enum])
    return KINDS[spec.kind]


def render() -> str:
    out = [
        "# The AXAG 1.1 vocabulary",
        "",
        "Every attribute axag reads, what it means and the values it accepts. This page is generated from",
        "`axag/vocabulary.py` (`python -m tests.docs_vocabulary`); `axag rule CODE` explains each lint rule.",
        "Values are case-sensitive: `High` is not a risk level (`axag lint --fix` writes `high`).",
        "",
    ]
    for category, title, intro in CATEGORIES:
        out += [f"## {title}", "", intro, "", "| Attribute | Meaning | Value |", "|---|---|---|"]
        for name, spec in V.ATTRIBUTES.items():
            if spec.category == category:
                out.append(f"| `{name}` | {MEANINGS[name]} | {_value(spec)} |")
        out.append("")
    out += ["## Enumerations", ""]
    for key, title in ENUM_TITLES.items():
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


if __name__ == "__main__":  # pragma: no cover - regenerating the page
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text(render(), encoding="utf-8", newline="\n")
