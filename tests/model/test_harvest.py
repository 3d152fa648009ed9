"""Form harvesting (form harvesting): scope, controls, exclusions, names and groups, mapping, labels, required-ness,
overrides, template files; rules 029, 032, 113, 117 (warning), 119, 120."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from axag.files.source import SourceText, load
from axag.model.actions import build_model
from axag.model.types import FileModel
from axag.outcome.findings import Severity
from axag.parse.document import parse_source
from tests.conftest import build_model_from, model_problems, problems_at

DATA = Path(__file__).parents[1] / "data" / "params"


build = build_model_from
found = problems_at


def pos(text: str, token: str, nth: int = 1) -> tuple[int, int]:
    i = -1
    for _ in range(nth):
        i = text.index(token, i + 1)
    return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1) + 1


def schemas(m: FileModel, index: int = 0) -> dict[str, Any]:
    return {p.name: p.schema for p in m.actions[index].parameters}


def form(body: str, attrs: str = "") -> str:
    return f'<form axag-intent="a.do" axag-action-type="write"{attrs}>\n{body}\n</form>'


def one(body: str, name: str = "t.html") -> dict[str, Any]:
    """The schema of the only harvested parameter of ``body``."""
    _pf, m = build(form(body), name)
    params = m.actions[0].parameters
    assert len(params) == 1, params
    return params[0].schema


# ------------------------------------------------------------------------------------------ the harvesting example
def test_section_5_9_example() -> None:
    html = (DATA / "example_5_9.html").read_text()
    pf, m = build(html)
    assert model_problems(m) == []
    act = m.actions[0]
    assert act.params_ok
    assert json.dumps(schemas(m)) == json.dumps({
        "email": {"type": "string", "description": "Email for the receipt", "format": "email", "pattern": SINGLE_LINE},
        "shipping": {"type": "string", "description": "Delivery speed", "enum": ["standard", "express"]},
        "quantity": {"type": "integer", "description": "Quantity", "minimum": 1, "maximum": 10},
        "deliver_on": {"type": "string", "description": "Deliver on. Earliest: 2026-01-01.", "format": "date"},
    })
    assert [p.name for p in act.parameters if p.required] == ["email", "shipping", "quantity"]
    assert {p.name: p.format_bounds for p in act.parameters if p.format_bounds} == {
        "deliver_on": {"formatMinimum": "2026-01-01"}}
    assert all(p.harvested and not p.declared for p in act.parameters)
    assert "csrf" not in act.param_names()
    assert [(p.name, p.kind) for p in act.parameters] == [
        ("email", "string"), ("shipping", "string"), ("quantity", "integer"), ("deliver_on", "date")]
    # the parameter points at its control
    assert pf.lines.position(act.parameters[0].span.start) == (5, 4)  # type: ignore[union-attr]


def test_a_form_with_every_common_control() -> None:
    _pf, m = build(form("""<label>Email <input type="email" name="email" required></label>
<label>Guests <input type="number" name="guests" min="1" max="8" step="1"></label>
<label>Room <select name="room"><option value="">Pick one</option><option>Single  room</option>
  <option value="dbl">Double</option><option value="x" disabled>X</option><option value="dbl">Again</option></select></label>
<label><input type="checkbox" name="terms" required> I accept the terms:</label>
<label>Starts <input type="datetime-local" name="startsAt" min="2026-01-01T09:00" max="soon"></label>
<input type="hidden" name="csrf" value="t">"""))
    assert model_problems(m) == []
    act = m.actions[0]
    dt = ("^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]"
          "(:[0-5][0-9](\\.[0-9]{1,3})?)?$")
    assert json.dumps(schemas(m)) == json.dumps({
        "email": {"type": "string", "description": "Email", "format": "email", "pattern": SINGLE_LINE},
        "terms": {"type": "boolean", "description": "I accept the terms", "const": True},
        "guests": {"type": "integer", "description": "Guests", "minimum": 1, "maximum": 8},
        "room": {"type": "string", "description": "Room", "enum": ["Single room", "dbl"]},
        "starts_at": {"type": "string", "description": "Starts. Local date and time without time zone, as "
                      "YYYY-MM-DDTHH:MM or YYYY-MM-DDTHH:MM:SS. Earliest: 2026-01-01T09:00.", "pattern": dt},
    })
    assert [(p.name, p.required, p.kind, p.format_bounds) for p in act.parameters] == [
        ("email", True, "string", None), ("terms", True, "boolean", None), ("guests", False, "integer", None),
        ("room", False, "string", None),
        ("starts_at", False, "local-datetime", {"formatMinimum": "2026-01-01T09:00"}),
    ]


def test_controls_fixture_golden() -> None:
    """Declared + harvested parameters of tests/data/params/controls.html, pinned in controls.expected.json."""
    path = DATA / "controls.html"
    _pf, m = build(path.read_text())
    assert model_problems(m) == []
    got = [{"name": p.name, "required": p.required, "kind": p.kind, "declared": p.declared, "harvested": p.harvested,
            "format_bounds": p.format_bounds, "schema": p.schema} for p in m.actions[0].parameters]
    expected = json.loads((DATA / "controls.expected.json").read_text())
    assert json.dumps(got) == json.dumps(expected)


# ------------------------------------------------------------------------------------------ harvesting: control-to-schema mapping
SINGLE_LINE = "^[^\\r\\n]*$"  # single-line controls never take CR or LF
TOD = "^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$"


@pytest.mark.parametrize(
    ("control", "schema"),
    [
        ('<input name="q" aria-label="Q" minlength="2" maxlength="9" pattern="[a-z]+">',
         {"type": "string", "description": "Q", "minLength": 2, "maxLength": 9, "pattern": "^(?=[^\\r\\n]*$)(?:[a-z]+)$"}),
        ('<input type="search" name="q" aria-label="Q" maxlength="x">', {"type": "string", "description": "Q", "pattern": SINGLE_LINE}),
        ('<input type="password" name="q" aria-label="Q" minlength="8">',
         {"type": "string", "description": "Q", "minLength": 8, "pattern": SINGLE_LINE}),
        ('<input type="tel" name="q" aria-label="Q" pattern="[0-9 ]+">',
         {"type": "string", "description": "Q", "pattern": "^(?=[^\\r\\n]*$)(?:[0-9 ]+)$"}),
        ('<input type="bogus" name="q" aria-label="Q" maxlength="3">',
         {"type": "string", "description": "Q", "maxLength": 3, "pattern": SINGLE_LINE}),
        ('<textarea name="q" aria-label="Q" maxlength="500">hi</textarea>',
         {"type": "string", "description": "Q", "maxLength": 500}),
        ('<div role="textbox" name="q" aria-label="Q"></div>', {"type": "string", "description": "Q"}),
        ('<div role="combobox" id="q" aria-label="Q"></div>', {"type": "string", "description": "Q"}),
        ('<input type="email" name="q" aria-label="Q" maxlength="99">',
         {"type": "string", "description": "Q", "format": "email", "maxLength": 99, "pattern": SINGLE_LINE}),
        ('<input type="email" multiple name="q" aria-label="To">',
         {"type": "string", "description": "To. One or more email addresses separated by commas.", "pattern": SINGLE_LINE}),
        ('<input type="url" name="q" aria-label="Q">', {"type": "string", "description": "Q", "format": "uri", "pattern": SINGLE_LINE}),
        ('<input type="date" name="q" aria-label="Day" min="2026-02-30" max="2026-12-31">',
         {"type": "string", "description": "Day. Latest: 2026-12-31.", "format": "date"}),
        ('<input type="time" name="q" aria-label="At" min="09:00" max="17:30:00">',
         {"type": "string", "description": "At. Time of day as HH:MM or HH:MM:SS. Earliest: 09:00. Latest: 17:30:00.",
          "pattern": TOD}),
        ('<input type="month" name="q" aria-label="M">',
         {"type": "string", "description": "M. Month as YYYY-MM.", "pattern": "^[0-9]{4}-(0[1-9]|1[0-2])$"}),
        ('<input type="week" name="q" aria-label="W" min="2026-W01">',
         {"type": "string", "description": "W. ISO week as YYYY-Www. Earliest: 2026-W01.",
          "pattern": "^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$"}),
        ('<input type="color" name="q" aria-label="Tint" required>',
         {"type": "string", "description": "Tint. Colour as #rrggbb.", "pattern": "^#[0-9A-Fa-f]{6}$"}),
        ('<input type="number" name="q" aria-label="N">', {"type": "integer", "description": "N"}),
        ('<input type="number" name="q" aria-label="N" step="any" min="0">',
         {"type": "number", "description": "N", "minimum": 0}),
        ('<input type="number" name="q" aria-label="N" step="0.01" min="0" max="1e3">',
         {"type": "number", "description": "N", "minimum": 0, "maximum": 1000, "multipleOf": 0.01}),
        ('<input type="number" name="q" aria-label="N" step="5">',
         {"type": "integer", "description": "N", "multipleOf": 5}),
        ('<input type="number" name="q" aria-label="N" step="5" min="10">',
         {"type": "integer", "description": "N", "minimum": 10, "multipleOf": 5}),
        ('<input type="number" name="q" aria-label="N" step="5" min="2">',
         {"type": "integer", "description": "N", "minimum": 2}),
        ('<input type="number" name="q" aria-label="N" step="0" min="one" max="7">',
         {"type": "integer", "description": "N", "maximum": 7}),
        ('<div role="spinbutton" id="q" aria-label="N" aria-valuemin="1" aria-valuemax="3"></div>',
         {"type": "integer", "description": "N", "minimum": 1, "maximum": 3}),
        ('<input type="range" name="q" aria-label="Vol" required>',
         {"type": "integer", "description": "Vol", "minimum": 0, "maximum": 100}),
        ('<input type="range" name="q" aria-label="Vol" min="-5" step="0.5">',
         {"type": "number", "description": "Vol", "minimum": -5, "maximum": 100, "multipleOf": 0.5}),
        ('<div role="slider" id="q" aria-label="S"></div>',
         {"type": "integer", "description": "S", "minimum": 0, "maximum": 100}),
        ('<input type="checkbox" name="q" aria-label="C">', {"type": "boolean", "description": "C"}),
        ('<input type="checkbox" name="q" aria-label="C" aria-required="true">',
         {"type": "boolean", "description": "C", "const": True}),
        ('<div role="switch" id="q" aria-label="On"></div>', {"type": "boolean", "description": "On"}),
        (('<fieldset><legend>Pick</legend><input type="checkbox" name="q" value="a" required>'
         '<input type="checkbox" name="q"><input type="checkbox" name="q" value="a"></fieldset>'),
         {"type": "array", "description": "Pick", "items": {"type": "string", "enum": ["a", "on"]}, "minItems": 1,
          "uniqueItems": True}),
        (('<div role="radiogroup" aria-label="Size"><input type="radio" name="q" value="s">'
         '<input type="radio" name="q"></div>'),
         {"type": "string", "description": "Size", "enum": ["s", "on"]}),
        (('<select name="q" aria-label="S"><optgroup label="g" disabled><option>x</option></optgroup>'
         '<option value="">none</option><option> a  b </option></select>'),
         {"type": "string", "description": "S", "enum": ["a b"]}),
        ('<select name="q" aria-label="S"><option value="" disabled>x</option></select>',
         {"type": "string", "description": "S"}),
        ('<select name="q" aria-label="S" multiple required><option>a</option><option>b</option></select>',
         {"type": "array", "description": "S", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 1,
          "uniqueItems": True}),
        ('<select name="q" aria-label="S" multiple></select>',
         {"type": "array", "description": "S", "items": {"type": "string"}, "uniqueItems": True}),
        ('<span axag-parameter="q" aria-label="Q"></span>', {"type": "string", "description": "Q"}),
    ],
)
def test_control_mapping(control: str, schema: dict[str, Any]) -> None:
    assert json.dumps(one(control)) == json.dumps(schema)


def test_repeated_controls_form_an_array() -> None:
    _pf, m = build(form('<label>Phone <input type="tel" name="phone[]" maxlength="20" required></label>\n'
                       '<input type="tel" name="phone[]">'))
    assert model_problems(m) == []
    p = m.actions[0].parameters[0]
    assert (p.name, p.required, p.kind) == ("phone", True, "array")
    assert p.schema == {"type": "array", "description": "Phone", "items": {"type": "string", "maxLength": 20,
                                                                           "pattern": SINGLE_LINE}, "minItems": 1}


def test_required_sources() -> None:
    _pf, m = build(form('<input name="a" aria-label="A" required="false">\n'
                       '<input name="b" aria-label="B" aria-required="true">\n'
                       '<input name="c" aria-label="C" required axag-parameter-required="false">\n'
                       '<input name="d" aria-label="D" axag-parameter-required="true">\n'
                       '<input type="range" name="e" aria-label="E" required>\n'
                       '<input name="f" aria-label="F" aria-required="TRUE">'))
    assert model_problems(m) == []
    assert [(p.name, p.required) for p in m.actions[0].parameters] == [
        ("a", True), ("b", True), ("d", True), ("c", False), ("e", False), ("f", False)]


# ------------------------------------------------------------------------------------------ harvesting: labels and descriptions labels
def test_label_sources_in_order() -> None:
    pf, m = build(form('<span id="l1">First</span><span id="l2"> part: </span><span id="d1">Help</span>\n'
                       '<label for="b">For label</label>\n'
                       '<label>Wrap <input name="a" aria-labelledby="l1 missing l2" aria-label="no" id="a"></label>\n'
                       '<label>Wrap <input name="b" aria-label="Aria" id="b" aria-describedby="d1"></label>\n'
                       '<label>Wrapping <select name="c"><option>Opt</option></select>:</label>\n'
                       '<input name="d" id="d" placeholder="Not a label"><label for="d">  </label>'))
    s = schemas(m)
    assert s["a"]["description"] == "First part"
    assert s["b"]["description"] == "Aria. Help."
    assert s["c"]["description"] == "Wrapping"
    assert "description" not in s["d"]
    assert found(pf, m) == [(32, 7, 2)]
    assert model_problems(m)[0].args == {"p": "d"}


def test_group_label_from_fieldset_legend_and_no_fallback() -> None:
    html = form('<fieldset><legend>Delivery <b>speed</b>:</legend>\n'
                '<label><input type="radio" name="s" value="a"> A</label></fieldset>\n'
                '<label><input type="radio" name="t" value="a"> Own label</label>')
    pf, m = build(html)
    s = schemas(m)
    assert s["s"]["description"] == "Delivery speed"
    assert "description" not in s["t"]
    assert found(pf, m) == [(32, *pos(html, "input", 2))]
    assert model_problems(m)[0].args == {"p": "t"}
    assert model_problems(m)[0].element is m.actions[0].element


# ------------------------------------------------------------------------------------------ harvesting: the parameter scope
def test_params_from_container() -> None:
    html = ('<div id="box"><label>Q <input name="q"></label></div>\n'
            '<button type="button" axag-intent="s.find" axag-action-type="read" axag-params-from="#box">Go</button>\n'
            '<button type="button" axag-intent="s.other" axag-action-type="read" axag-params-from="box">Go</button>\n'
            '<button type="button" axag-intent="s.none" axag-action-type="read">Go</button>\n'
            '<a href="/x" axag-intent="s.nav" axag-action-type="navigate">X</a>')
    pf, m = build(html)
    assert [a.param_names() for a in m.actions] == [["q"], [], [], []]
    assert found(pf, m) == [(140, 3, 87)]


def test_submit_controls_and_form_attribute() -> None:
    html = ('<form id="f"><label>A <input name="a"></label>\n'
            '<input name="other" form="g" aria-label="O"></form>\n'
            '<label>B <input name="b" form="f"></label>\n'
            '<button axag-intent="s.send" axag-action-type="write" form="f">Send</button>\n'
            '<form><input type="image" alt="Go" axag-intent="s.img" axag-action-type="write">\n'
            '<label>C <input name="c"></label></form>\n'
            '<form id="g"><button type="submit" axag-intent="s.sub" axag-action-type="write">Go</button></form>\n'
            '<button axag-intent="s.lost" axag-action-type="write" form="nowhere">X</button>')
    _pf, m = build(html)
    assert {a.intent: a.param_names() for a in m.actions} == {
        "s.send": ["a", "b"], "s.img": ["c"], "s.sub": ["other"], "s.lost": []}


def test_template_isolation() -> None:
    html = form('<label>A <input name="a"></label>\n'
                '<template><label>B <input name="b"></label>\n'
                '<form axag-intent="t.inner" axag-action-type="write"><label>C <input name="c"></label></form>'
                '</template>')
    _pf, m = build(html)
    assert [a.param_names() for a in m.actions] == [["a"], ["c"]]


def test_form_and_its_submit_button_report_once() -> None:
    html = form('<input name="x">\n<button axag-intent="a.btn" axag-action-type="write">Go</button>')
    pf, m = build(html)
    assert [a.param_names() for a in m.actions] == [["x"], ["x"]]
    assert found(pf, m) == [(32, 2, 2)]


# ------------------------------------------------------------------------------------------ harvesting: controls and exclusions, 120
def test_excluded_controls_and_120() -> None:
    html = form('<input type="hidden" name="h" axag-parameter-type="integer">\n'
                '<input name="d" disabled axag-parameter-description="x">\n'
                '<fieldset disabled><legend>\n'
                '<input name="inlegend" aria-label="L"></legend>\n'
                '<input name="infs" aria-label="F" axag-parameter="zz"></fieldset>\n'
                '<input name="r" readonly axag-parameter-min="3">\n'
                '<select name="s" readonly aria-label="S"></select>\n'
                '<input name="ad" aria-disabled="true" aria-label="A">\n'
                '<textarea name="ar" aria-readonly="true" axag-parameter="ar"></textarea>\n'
                '<input type="submit" name="go"><input type="file" name="f"><input type="reset" name="x">')
    pf, m = build(html)
    assert m.actions[0].param_names() == ["inlegend", "s"]
    probs = [p for p in model_problems(m) if p.code == 120]
    assert [(pf.lines.position(p.span.start), p.args) for p in probs] == [
        (pos(html, "axag-parameter-type"),
         {"attr": "axag-parameter-type", "reason": "hidden inputs are not harvested"}),
        (pos(html, "axag-parameter-description"),
         {"attr": "axag-parameter-description", "reason": "the control is disabled"}),
        (pos(html, 'axag-parameter="zz"'),
         {"attr": "axag-parameter", "reason": "the control is inside a disabled <fieldset>"}),
        (pos(html, "axag-parameter-min"), {"attr": "axag-parameter-min", "reason": "the control is read-only"}),
        (pos(html, 'axag-parameter="ar"'), {"attr": "axag-parameter", "reason": "the control is read-only"}),
    ]
    assert all(p.severity is None for p in probs)
    assert m.actions[0].params_ok


def test_120_outside_every_scope() -> None:
    html = ('<div axag-parameter-type="integer"></div>\n'
            '<input name="o" axag-parameter-required="true" axag-parameter="o">\n'
            '<button type="button" axag-intent="a.b" axag-action-type="read">B</button>')
    pf, m = build(html)
    assert found(pf, m) == [(120, 1, 6), (120, 2, 17), (120, 2, 48)]
    assert model_problems(m)[0].args == {
        "attr": "axag-parameter-type", "reason": "the element is not a control in the parameter scope of any action"}
    assert model_problems(m)[0].element is not None and model_problems(m)[0].element.tag == "div"
    _pf, m = build(html, harvest=False)
    assert model_problems(m) == []


# ------------------------------------------------------------------------------------------ harvesting: names and groups names
def test_names_029_and_113() -> None:
    long = "x" * 65
    html = form(f'<input type="text">\n<input id="onlyId" aria-label="I">\n<input name="{long}" aria-label="L">\n'
                '<input name="Nights #" aria-label="N" axag-parameter="nightCount">\n'
                '<input name="displayName" aria-label="D">')
    pf, m = build(html)
    assert m.actions[0].param_names() == ["only_id", "nightCount", "display_name"]
    assert found(pf, m) == [(29, 2, 2), (29, 3, 2), (113, 4, 2)]
    a, b, c = model_problems(m)
    assert (a.index, a.args) == (0, {"ctl": "input", "intent": "a.do"})
    assert (b.index, b.args) == (1, {"ctl": "input"})
    assert (c.index, c.args) == (1, {"n": long, "ctl": "input", "problem": "is longer than 64 characters"})
    assert not m.actions[0].params_ok  # 113 is an error


def test_119_collisions() -> None:
    html = form('<input name="displayName" aria-label="D">\n<input name="display-name" aria-label="D2">\n'
                '<input type="radio" name="kind" value="x">\n<input type="checkbox" name="kind" value="y">')
    pf, m = build(html)
    probs = [p for p in model_problems(m) if p.code == 119]
    assert [(pf.lines.position(p.span.start), p.args) for p in probs] == [
        ((3, 2), {"ctl": "input", "p": "display_name", "ctl2": "input", "n": 2}),
        ((5, 2), {"ctl": "input", "p": "kind", "ctl2": "input", "n": 4}),
    ]
    assert schemas(m)["display_name"] == {"type": "string", "description": "D", "pattern": SINGLE_LINE}
    assert not m.actions[0].params_ok


# ------------------------------------------------------------------------------------------ harvesting: required and overrides
def test_overrides_key_by_key() -> None:
    _pf, m = build(form(
        '<input name="size" aria-label="Size" axag-parameter-type="integer" axag-parameter-min="1"'
        ' axag-parameter-default="2" maxlength="4">\n'
        '<select name="lvl" aria-label="Lvl" axag-parameter-description="Level  to use"'
        ' axag-parameter-default="b"><option>a</option><option>b</option></select>\n'
        '<input name="tags" aria-label="Tags" axag-parameter-type="array"'
        ' axag-parameter-items=\'{"type":"string","format":"url"}\' axag-parameter-unique-items="true">\n'
        '<input type="datetime-local" name="at" aria-label="At" axag-parameter-format="date-time">\n'
        '<input name="code" aria-label="Code" axag-parameter-pattern="^[A-Z]{3}$" axag-parameter-examples=\'["ABC"]\''
        ' axag-parameter-const="ABC">'))
    assert model_problems(m) == []
    s = schemas(m)
    assert s["size"] == {"type": "integer", "description": "Size", "default": 2, "minimum": 1}
    assert s["lvl"] == {"type": "string", "description": "Level to use", "enum": ["a", "b"], "default": "b"}
    assert s["tags"] == {"type": "array", "description": "Tags", "items": {"type": "string", "format": "uri"},
                         "uniqueItems": True}
    assert s["code"] == {"type": "string", "description": "Code", "const": "ABC", "examples": ["ABC"],
                         "pattern": "^[A-Z]{3}$"}
    at = m.actions[0].parameters[3]
    assert (at.kind, at.schema["format"]) == ("date-time", "date-time")


def test_override_problems() -> None:
    html = form('<input name="n" aria-label="N" axag-parameter-type="integer" axag-parameter-min="10"'
                ' axag-parameter-max="5" axag-parameter-const="x">\n'
                '<input name="e" aria-label="E" axag-parameter-enum=\'["a","bb"]\' axag-parameter-max-length="1">')
    pf, m = build(html)
    assert found(pf, m) == [(106, *pos(html, 'x">')), (115, *pos(html, "axag-parameter-max=")),
                            (116, *pos(html, '"bb"'))]
    assert model_problems(m)[0].args == {"attr": "axag-parameter-const", "detail": "expected a value"}
    assert [p.attribute for p in model_problems(m)] == ["axag-parameter-const", "axag-parameter-max",
                                                 "axag-parameter-enum"]
    assert model_problems(m)[2].args == {"p": "e", "key": "enum value", "value": '"bb"', "keyword": "maxLength",
                                  "limit": "1"}
    assert not m.actions[0].params_ok


def test_override_value_problems_make_parameters_unusable() -> None:
    _pf, m = build(form('<input name="n" aria-label="N" axag-parameter-min="x">'))
    assert [p.code for p in model_problems(m)] == [114]
    assert not m.actions[0].params_ok


def test_120_for_differing_overrides_in_a_group() -> None:
    html = form('<fieldset><legend>R</legend>\n'
                '<input type="radio" name="r" value="1" axag-parameter-description="Pick">\n'
                '<input type="radio" name="r" value="2" axag-parameter-description="Pick">\n'
                '<input type="radio" name="r" value="3" axag-parameter-description="Other"'
                ' axag-parameter-required="true">\n'
                '<input type="radio" name="r" value="4" axag-parameter-required="false">\n'
                '<input type="radio" name="r" value="5" axag-parameter-required="true"></fieldset>')
    pf, m = build(html)
    assert found(pf, m) == [(120, *pos(html, "axag-parameter-description", 3)),
                            (120, *pos(html, "axag-parameter-required", 2))]
    assert model_problems(m)[0].args["reason"] == ("it differs from the override on <input> at line 3; the first control"
                                            " with overrides decides")
    assert model_problems(m)[1].args["reason"] == ("it differs from the override on <input> at line 5; the first control"
                                            " with overrides decides")
    assert schemas(m)["r"]["description"] == "Pick"
    # axag-parameter-required is read from the first control of the group that has it
    assert m.actions[0].parameters[0].required


# ------------------------------------------------------------------------------------------ 117 (warning)
def test_117_harvested_html_pattern_is_ignored_with_a_warning() -> None:
    html = form('<input name="p" aria-label="P" pattern="(?<=a)b">')
    pf, m = build(html)
    assert found(pf, m) == [(117, 2, 2)]
    p = model_problems(m)[0]
    assert p.severity is Severity.WARNING
    assert p.args["p"] == "p"
    assert schemas(m)["p"] == {"type": "string", "description": "P", "pattern": SINGLE_LINE}
    assert m.actions[0].params_ok


# ------------------------------------------------------------------------------------------ harvesting in template files templates
def test_jinja_unknown_values() -> None:
    html = form('<label>{{ lbl }} <input name="a"></label>\n'
                '<select name="s" aria-label="S"><option value="{{ v }}">x</option><option>b</option></select>\n'
                '<select name="m" aria-label="M" multiple><option>{% if x %}a{% endif %}</option></select>\n'
                '<label>C <input type="checkbox" name="c" value="{{ x }}"></label>\n'
                '<input type="number" name="n" min="{{ lo }}" max="5" aria-label="N">\n'
                '<input name="{{ dyn }}" aria-label="Dyn">')
    pf, m = build(html, "t.jinja")
    assert json.dumps(schemas(m)) == json.dumps({
        "a": {"type": "string", "pattern": SINGLE_LINE},
        "s": {"type": "string", "description": "S"},
        "m": {"type": "array", "description": "M", "items": {"type": "string"}, "uniqueItems": True},
        "c": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "n": {"type": "integer", "description": "N", "maximum": 5},
    })
    assert found(pf, m) == [(32, 2, 19), (32, 5, 11)]


def test_html_markers_and_vue_bindings() -> None:
    _pf, m = build(form('<select name="s" aria-label="S"><option value="${v}">x</option></select>'))
    assert schemas(m)["s"] == {"type": "string", "description": "S"}
    vue = ('<template>' + form(
        '<select name="s" aria-label="S"><option v-for="o in opts" value="x">{{ o }}</option></select>\n'
        '<input type="radio" name="r" :value="x" aria-label="R">\n'
        '<input type="number" name="n" :min="lo" max="5" aria-label="N">') + '</template>')
    _pf, m = build(vue, "t.vue")
    s = schemas(m)
    assert s["s"] == {"type": "string", "description": "S"}
    assert s["r"] == {"type": "string"}
    assert s["n"] == {"type": "integer", "description": "N", "maximum": 5}


def test_hostile_numbers_are_ignored_quickly() -> None:
    s = one('<input type="number" name="q" aria-label="N" min="1e999999999" max="-1e-999999999" step="1e-99999"'
            f' maxlength="{"9" * 5000}">')
    assert s == {"type": "integer", "description": "N"}
    s = one('<input type="number" name="q" aria-label="N" min="0.3" step="0.1">')
    assert s == {"type": "number", "description": "N", "minimum": 0.3, "multipleOf": 0.1}


@pytest.mark.parametrize(
    ("name", "option", "known"),
    [
        ("t.html", "{{ v }}", False), ("t.html", "{% v %}", False), ("t.html", "{# v #}", True),
        ("t.jinja", "{# v #}", False), ("t.jinja2", "{{ v }}", False), ("t.j2", "{% v %}", False),
        ("t.njk", "{{ v }}", False), ("t.liquid", "{{ v }}", False), ("t.hbs", "{{ v }}", False),
        ("t.hbs", "{% v %}", True), ("t.vue", "{{ v }}", False), ("t.vue", "${ v }", True),
    ],
)
def test_unknown_option_text_per_file_type(name: str, option: str, known: bool) -> None:
    body = f'<select name="s" aria-label="S"><option>{option}</option><option>b</option></select>'
    html = f"<template>{form(body)}</template>" if name.endswith(".vue") else form(body)
    _pf, m = build(html, name)
    s = schemas(m)["s"]
    assert s == ({"type": "string", "description": "S", "enum": [option, "b"]} if known
                 else {"type": "string", "description": "S"})


def test_form_attribute_controls_in_a_utf16_file() -> None:
    html = ('<form id="f" axag-intent="a.do" axag-action-type="write"></form>'
            '<label>B <input name="b" form="F"></label><label>C <input name="c" FORM="f"></label>')
    src = load(Path("t.html"), html.encode("utf-16"))
    assert isinstance(src, SourceText)
    pf = parse_source(src)
    m = build_model(pf)
    assert m.actions[0].param_names() == ["c"]


def test_ancestors_matched_by_lower_cased_name_only() -> None:
    """Form, fieldset, legend, label and template ancestors are found whatever their case (libxml2 lower-cases
    tag names), never by a prefixed name (``x:fieldset``); a control inside a disabled fieldset's first legend
    (at any depth) is harvested, one elsewhere in it is not."""
    html = ('<FORM id="f">\n'
            '<FieldSet disabled><Legend><span><input name="inlegend" aria-label="L"></span></Legend>\n'
            '<div><input name="deep" axag-parameter-description="D"></div></FieldSet>\n'
            '<x:fieldset disabled><input name="prefixed" aria-label="P"></x:fieldset>\n'
            '<LABEL>Quantity <input name="q"></LABEL>\n'
            '<TEMPLATE><input name="tpl" aria-label="T"></TEMPLATE>\n'
            '<BUTTON axag-intent="a.do" axag-action-type="write">Go</BUTTON>\n'
            '</FORM>')
    pf, m = build(html)
    assert m.actions[0].param_names() == ["inlegend", "prefixed", "q"]
    assert schemas(m)["q"] == {"type": "string", "description": "Quantity", "pattern": SINGLE_LINE}
    assert [(p.code, pf.lines.position(p.span.start), p.args.get("reason")) for p in model_problems(m)] == [
        (120, pos(html, 'axag-parameter-description'), "the control is inside a disabled <fieldset>")]
