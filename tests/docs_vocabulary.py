"""docs/vocabulary.md, made from the vocabulary data of `axag/vocabulary.py` (attribute names, value kinds,
enumerations, parameter keys, rate periods, aliases) plus a one-line meaning per attribute. `tests/test_docs.py`
checks that the committed page is this text; regenerate it with `python -m tests.docs_vocabulary`."""

from __future__ import annotations

from pathlib import Path

from axag import vocabulary as V

DOC = Path(__file__).resolve().parents[1] / "docs" / "vocabulary.md"

# value kind of axag/vocabulary.py -> what to write
KINDS: dict[str, str] = {
    "macro": "macro (see below)",
    "intent": "intent: `entity.action` in lower case letters, digits and `_` (`cart.add_item`)",
    "entity": "entity: lower case letters, digits and `_`",
    "enum": "one of the values below",
    "text": "text (not empty)",
    "tool_name": "tool name: a letter or `_`, then up to 63 letters, digits, `_` or `-`",
    "param_list": "JSON array of parameter names or parameter objects",
    "params_from": "`#` and the id of an element in the same file",
    "schema_ref": "`zod:PATH[#EXPORT]`, `openapi:PATH#OPERATION_ID` or `openapi:OPERATION_ID`",
    "param_name": "parameter name: a letter or `_`, then up to 63 letters, digits or `_`",
    "boolean": "`true` or `false`",
    "json_array": "JSON array",
    "json_or_text": "text for a `string` parameter, else a JSON value",
    "number": "JSON number",
    "nonneg_int": "whole number ≥ 0",
    "positive_int": "whole number ≥ 1",
    "regex": "regular expression (the subset Python and JavaScript read alike)",
    "json_object": "JSON object (a parameter fragment)",
    "string_array": "JSON array of non-empty strings",
    "rate": "`COUNT/PERIOD`, e.g. `100/minute`",
    "duration": "number and unit `ms`, `s`, `m`, `h` or `d`, e.g. `30s`",
    "workflow_id": "a letter or digit, then letters, digits, `_`, `.`, `:` or `-`",
    "intent_ref": "an intent",
    "version": "`MAJOR.MINOR` or `MAJOR.MINOR.PATCH`",
}

MEANINGS: dict[str, str] = {
    "axag": "shorthand for several attributes at once",
    "axag-intent": "what the action does; names the tool (`.` becomes `_`)",
    "axag-entity": "the thing acted on; defaults to the part of the intent before the `.`",
    "axag-action-type": "kind of action; always required",
    "axag-description": "first line of the tool description",
    "axag-operation-id": "tool name instead of the one made from the intent",
    "axag-required-parameters": "parameters the caller must give",
    "axag-optional-parameters": "parameters the caller may give",
    "axag-params-from": "the form or container whose controls become parameters",
    "axag-schema": "reference to a Zod or OpenAPI definition (copied to the tool metadata)",
    "axag-parameter": "parameter name of a form control (instead of `name` or `id`)",
    "axag-parameter-type": "parameter type of a form control",
    "axag-parameter-required": "whether the control's parameter is required",
    "axag-parameter-description": "description of the control's parameter",
    "axag-parameter-format": "string format of the control's parameter",
    "axag-parameter-enum": "allowed values",
    "axag-parameter-const": "the only allowed value",
    "axag-parameter-default": "default value",
    "axag-parameter-examples": "example values",
    "axag-parameter-min": "smallest allowed number",
    "axag-parameter-max": "largest allowed number",
    "axag-parameter-exclusive-min": "the number must be greater than this",
    "axag-parameter-exclusive-max": "the number must be less than this",
    "axag-parameter-multiple-of": "the number must be a multiple of this",
    "axag-parameter-min-length": "shortest allowed text",
    "axag-parameter-max-length": "longest allowed text",
    "axag-parameter-min-items": "fewest list items",
    "axag-parameter-max-items": "most list items",
    "axag-parameter-unique-items": "list items must differ",
    "axag-parameter-pattern": "regular expression the text must match (not anchored)",
    "axag-parameter-items": "schema of each list item",
    "axag-preconditions": "what must hold before the call; relations between parameters are checked "
                          "(see [preconditions](preconditions.md))",
    "axag-postconditions": "what holds after the call",
    "axag-side-effects": "effects outside the application (emails, payments, …)",
    "axag-risk-level": "how much harm a wrong call can do",
    "axag-confirmation-required": "the user must confirm each call",
    "axag-confirmation-message": "question shown to the user; `{{param}}` inserts a parameter",
    "axag-approval-required": "another person must approve each call",
    "axag-approval-roles": "roles that can approve (any one of them)",
    "axag-approval-count": "number of approvers needed (default 1)",
    "axag-idempotent": "calling twice has the same effect as calling once",
    "axag-async": "a successful call means the work was accepted, not finished",
    "axag-rate-limit": "most calls per period",
    "axag-cooldown": "least time between calls",
    "axag-scope": "whose data the action touches; inherited by contained actions",
    "axag-tenant-boundary": "whether the action may cross tenants; inherited",
    "axag-required-roles": "roles the caller must hold (all of them); inherited",
    "axag-role-escalation": "the action grants roles",
    "axag-visible": "whether the control is visible",
    "axag-operable": "whether the control can be used now",
    "axag-operability-reason": "why it cannot be used",
    "axag-workflow-id": "workflow the action belongs to",
    "axag-workflow-step": "its step in the workflow",
    "axag-workflow-total-steps": "number of steps of the workflow",
    "axag-workflow-next": "intent of the next step",
    "axag-workflow-previous": "intent of the previous step",
    "axag-version": "version of the action",
    "axag-since": "version that introduced it",
    "axag-deprecated": "the action is deprecated",
    "axag-deprecated-replacement": "intent to use instead",
}

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
