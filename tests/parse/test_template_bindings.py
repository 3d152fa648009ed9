"""Run-time bindings that can override annotations make them dynamic (dynamic values): a Vue object or
dynamic-name binding, a template expression where an attribute name may stand, and the alternatives of an
`{% if %}`/`{% else %}`. Each element gets one 033 and compile leaves its action out, without an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import lint_json, run_axag

STATIC = ('axag-intent="order.refresh" axag-action-type="read" axag-risk-level="none" axag-scope="user" '
          'axag-description="Refresh the list"')
ALL = "axag-intent, axag-action-type, axag-risk-level, axag-scope, axag-description"


def lint_and_compile(tmp_path: Path, name: str, text: str) -> tuple[list[tuple[str, int, int, str]], int, list[str]]:
    (tmp_path / name).write_text(text, encoding="utf-8")
    _, findings = lint_json(["--ignore", "unbound-action", name], cwd=tmp_path)  # these buttons have no form (151)
    res = run_axag(["compile", "--isolated", name, "-o", "-"], cwd=tmp_path)
    tools = [t["name"] for t in json.loads(res.stdout)["tools"]] if res.stdout.strip() else []
    return [(f["code"], f["line"], f["column"], f["message"]) for f in findings], res.exit_code, tools


def dynamic(column: int, attrs: str) -> tuple[str, int, int, str]:
    message = (f"<button> has dynamic values in {attrs}; they cannot be checked or compiled at build time; "
               "compile leaves this action out")
    return ("AXAG-LINT-033", 1, column, message)


@pytest.mark.parametrize(("name", "binding"), [
    ("c.vue", 'v-bind="extra"'),
    ("c.vue", 'v-bind:[attr]="value"'),
    ("c.vue", ':[attr]="value"'),
    ("c.jinja", "{{ attrs|xmlattr }}"),
    ("c.njk", "{{ attrs }}"),
    ("c.liquid", "{% include 'attrs' %}"),
    ("c.hbs", "{{attrs}}"),
])
def test_a_binding_that_can_set_any_attribute_makes_every_annotation_dynamic(
        tmp_path: Path, name: str, binding: str) -> None:
    tag = f"<button {STATIC} {binding}>Refresh</button>"
    text = f"<template>{tag}</template>\n" if name.endswith(".vue") else tag + "\n"
    column = 12 if name.endswith(".vue") else 2
    assert lint_and_compile(tmp_path, name, text) == ([dynamic(column, ALL)], 0, [])


def test_a_binding_after_the_annotations_also_counts(tmp_path: Path) -> None:
    text = f'<template><button v-bind="extra" {STATIC}>Refresh</button></template>\n'
    assert lint_and_compile(tmp_path, "c.vue", text) == ([dynamic(12, ALL)], 0, [])


def test_if_else_alternatives_of_one_attribute_are_dynamic_not_repeated(tmp_path: Path) -> None:
    static = STATIC.replace(' axag-risk-level="none"', "")
    text = (f'<button {static} {{% if admin %}}axag-risk-level="high"{{% else %}}axag-risk-level="low"'
            "{% endif %}>Refresh</button>\n")
    assert lint_and_compile(tmp_path, "c.jinja", text) == ([dynamic(2, "axag-risk-level")], 0, [])


def test_plain_vue_attributes_and_comments_in_tags_stay_static(tmp_path: Path) -> None:
    text = f'<template><button {STATIC} v-on:click="go" :title="t">Refresh</button></template>\n'
    assert lint_and_compile(tmp_path, "c.vue", text) == ([], 0, ["order_refresh"])
    text = f"<button {STATIC} {{# a note #}}>Refresh</button>\n"
    assert lint_and_compile(tmp_path, "c.jinja", text) == ([], 0, ["order_refresh"])
