"""Declared parameters (parameters, merging declared and harvested parameters): lists, keys, validation rules 008 and 110-118, 142, fixes (unknown parameter keys, type and format values,
fixes), the compiled property schema (the property schema) and operand kinds (relational classification and validation)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from axag.model.types import FileModel
from axag.parse.document import ParsedFile
from tests.conftest import build_model_from, model_problems, problems_at

build = build_model_from
found = problems_at


def only(pf: ParsedFile, m: FileModel, code: int) -> Any:
    ps = [p for p in model_problems(m) if p.code == code]
    assert len(ps) == 1, ps
    return ps[0]


def fixed(pf: ParsedFile, problem: Any) -> str:
    assert problem.fix is not None
    text = pf.text
    for e in sorted(problem.fix.edits, key=lambda e: -e.start):
        text = text[: e.start] + e.content + text[e.end :]
    return text


def pos(text: str, token: str, nth: int = 1) -> tuple[int, int]:
    """1-based (line, column) of the nth occurrence of ``token`` in ``text``."""
    i = -1
    for _ in range(nth):
        i = text.index(token, i + 1)
    line = text.count("\n", 0, i) + 1
    return line, i - (text.rfind("\n", 0, i) + 1) + 1


def schemas(m: FileModel, index: int = 0) -> dict[str, Any]:
    return {p.name: p.schema for p in m.actions[index].parameters}


def button(req: str | None = None, opt: str | None = None) -> str:
    attrs = ""
    if req is not None:
        attrs += f" axag-required-parameters='{req}'"
    if opt is not None:
        attrs += f" axag-optional-parameters='{opt}'"
    return f'<button type="button" axag-intent="a.do" axag-action-type="read"{attrs}>Do</button>'


# ------------------------------------------------------------------------------------------ forms and schema
def test_string_and_object_forms_compile_in_list_order() -> None:
    _pf, m = build(button('["q", {"name":"limit","type":"integer","min":1,"max":50,"default":10}]',
                         '[{"name":"sort","enum":["asc","desc"],"description":"  Sort\\norder "}]'))
    act = m.actions[0]
    assert model_problems(m) == []
    assert act.params_ok
    assert [(p.name, p.required, p.declared, p.harvested) for p in act.parameters] == [
        ("q", True, True, False), ("limit", True, True, False), ("sort", False, True, False)]
    assert json.dumps(schemas(m)) == json.dumps({
        "q": {"type": "string"},
        "limit": {"type": "integer", "default": 10, "minimum": 1, "maximum": 50},
        "sort": {"type": "string", "description": "Sort order", "enum": ["asc", "desc"]},
    })


def test_property_schema_key_order_and_closed_objects() -> None:
    item = ('{"required":["b"],"properties":{"b":{"type":"boolean"},"a":{"type":"object"}},"type":"object",'
            '"description":"Addr","default":{"b":true},"examples":[{"b":false}]}')
    _pf, m = build(button(f'[{{"name":"o",{item[1:]}, {{"name":"t","pattern":"^u","maxLength":9,"minLength":1,'
                         '"format":"url","examples":["u:x"],"const":"u:x","enum":["u:x"],"description":"T"}]'))
    assert model_problems(m) == []
    s = schemas(m)
    assert list(s["o"]) == ["type", "description", "default", "examples", "properties", "required",
                            "additionalProperties"]
    assert s["o"]["properties"] == {"b": {"type": "boolean"}, "a": {"type": "object"}}
    assert s["o"]["additionalProperties"] is False
    assert list(s["t"]) == ["type", "description", "format", "enum", "const", "examples", "minLength", "maxLength",
                            "pattern"]
    assert s["t"]["format"] == "uri"  # alias normalised


def test_array_items_and_numbers_per_4_9() -> None:
    _pf, m = build(button('[{"name":"tags","type":"array","items":{"type":"string","maxLength":20},"minItems":1.0,'
                         '"uniqueItems":true}, {"name":"x","type":"number","multipleOf":0.5,"min":1.0,'
                         '"exclusiveMax":1e2}]'))
    assert model_problems(m) == []
    s = schemas(m)
    assert s["tags"] == {"type": "array", "items": {"type": "string", "maxLength": 20}, "minItems": 1,
                         "uniqueItems": True}
    from axag.compile.serialize import dumps_compact

    assert dumps_compact(s["x"]) == '{"type":"number","minimum":1,"exclusiveMaximum":100,"multipleOf":0.5}'


@pytest.mark.parametrize(
    ("item", "kind"),
    [
        ('"p"', "string"),
        ('{"name":"p","type":"integer"}', "integer"),
        ('{"name":"p","type":"number"}', "number"),
        ('{"name":"p","format":"date"}', "date"),
        ('{"name":"p","format":"datetime"}', "date-time"),
        ('{"name":"p","format":"time"}', "time"),
        ('{"name":"p","format":"email"}', "string"),
        ('{"name":"p","type":"boolean"}', "boolean"),
        ('{"name":"p","type":"array"}', "array"),
        ('{"name":"p","type":"object"}', "object"),
    ],
)
def test_operand_kind(item: str, kind: str) -> None:
    _pf, m = build(button(f"[{item}]"))
    assert m.actions[0].parameters[0].kind == kind


# ------------------------------------------------------------------------------------------ names: 113, 008, 118
def test_113_invalid_names() -> None:
    html = button('["ok", "1bad", {"type":"string"}, {"name":3}, {"name":""}, "_axag_x"]')
    pf, m = build(html)
    probs = [p for p in model_problems(m) if p.code == 113]
    assert [(pf.lines.position(p.span.start), p.args["i"], p.args["problem"]) for p in probs] == [
        (pos(html, '"1bad"'), 2, '"1bad" must match ^[A-Za-z_][A-Za-z0-9_]{0,63}$'),
        (pos(html, '{"type"'), 3, "is missing"),
        (pos(html, "3}"), 4, "must be a string"),
        (pos(html, '""'), 5, "is empty"),
        (pos(html, '"_axag_x"'), 6, "is reserved"),
    ]
    assert probs[0].args["attr"] == "axag-required-parameters"
    assert [p.name for p in m.actions[0].parameters] == ["ok"]
    assert not m.actions[0].params_ok


def test_008_same_name_in_both_lists_is_primary_over_118() -> None:
    html = button('["a", "b"]', '["c", "a"]')
    pf, m = build(html)
    assert found(pf, m) == [(8, *pos(html, '"a"', 2))]
    assert only(pf, m, 8).args == {"p": "a"}
    assert [(p.name, p.required) for p in m.actions[0].parameters] == [("a", True), ("b", True), ("c", False)]
    assert not m.actions[0].params_ok


def test_118_repeated_and_snake_case_equal_names() -> None:
    html = button('["userId", {"name":"userId"}]', '["user_id"]')
    pf, m = build(html)
    assert found(pf, m) == [(118, *pos(html, '"userId"', 2)), (118, *pos(html, '"user_id"'))]
    assert [p.args for p in model_problems(m)] == [{"p": "userId", "q": None}, {"p": "userId", "q": "user_id"}]
    from axag.rules.catalogue import format_message

    assert format_message(118, **model_problems(m)[0].args) == 'Parameter "userId" is declared twice'
    assert format_message(118, **model_problems(m)[1].args) == 'Parameter "userId" is declared twice (as "user_id")'


def test_invalid_list_makes_parameters_unusable() -> None:
    html = button('["a", 5]')
    pf, m = build(html)
    assert found(pf, m) == [(9, *pos(html, "5]"))]
    assert m.actions[0].parameters == []
    assert not m.actions[0].params_ok


def test_macro_lists() -> None:
    _pf, m = build('<button type="button" axag="read:a.do?req=a,b&opt=c">Do</button>')
    assert model_problems(m) == []
    assert [(p.name, p.required) for p in m.actions[0].parameters] == [("a", True), ("b", True), ("c", False)]


# ------------------------------------------------------------------------------------------ 110 and its fixes
def test_110_unknown_key_with_suggestion_and_rename_fix() -> None:
    html = button('[{"name":"n","type":"integer","minimum":1,"maximum":9}]')
    pf, m = build(html)
    probs = [p for p in model_problems(m) if p.code == 110]
    assert [(pf.lines.position(p.span.start), p.args) for p in probs] == [
        (pos(html, '"minimum"'), {"p": "n", "k": "minimum", "s": "min"}),
        (pos(html, '"maximum"'), {"p": "n", "k": "maximum", "s": "max"}),
    ]
    assert fixed(pf, probs[0]) == button('[{"name":"n","type":"integer","min":1,"maximum":9}]')
    # the keys are ignored by every other check
    assert schemas(m)["n"] == {"type": "integer"}


def test_110_suggestions_and_no_fix() -> None:
    _pf, m = build(button('[{"name":"n","descripton":"x","enums":["a"],"zzz":1}]'))
    # the suggestions are unsafe fixes (applied with --unsafe-fixes only)
    assert [(p.args["k"], p.args["s"], p.fix and p.fix.unsafe) for p in model_problems(m)] == [
        ("descripton", "description", True), ("enums", "enum", True), ("zzz", None, None)]


def test_110_name_inside_a_fragment() -> None:
    html = button('[{"name":"n","type":"array","items":{"name":"x"}}]')
    pf, m = build(html)
    assert found(pf, m) == [(110, *pos(html, '"name"', 2))]


def test_110_rename_not_offered_when_the_target_key_exists() -> None:
    pf, m = build(button('[{"name":"n","type":"integer","min":1,"minimum":2}]'))
    assert only(pf, m, 110).fix is None


@pytest.mark.parametrize(
    ("req", "opt", "after"),
    [
        # required true on a required item: drop the key
        ('[{"name":"a","required":true}]', None, button('[{"name":"a"}]')),
        # required false on an optional item: drop the key
        (None, '[{"name":"a","required":false,"type":"integer"}]', button(None, '[{"name":"a","type":"integer"}]')),
        # required false on a required item: move to the end of the optional list
        ('["x", {"name":"a","required":false}]', '["y"]', button('["x"]', '["y",{"name":"a"}]')),
        # required true on an optional item: move to the end of the required list, created if absent
        (None, '[{"name":"a","required":true}, "y"]',
         ('<button type="button" axag-intent="a.do" axag-action-type="read" axag-optional-parameters=\'["y"]\''
         " axag-required-parameters='[{\"name\":\"a\"}]'>Do</button>")),
    ],
)
def test_110_boolean_required_fixes(req: str | None, opt: str | None, after: str) -> None:
    pf, m = build(button(req, opt))
    p = only(pf, m, 110)
    assert p.args["k"] == "required"
    assert fixed(pf, p) == after


def test_110_required_move_keeps_one_item_per_line() -> None:
    html = ('<button type="button" axag-intent="a.do" axag-action-type="read"\n'
            "        axag-required-parameters='[\n"
            '          "x",\n'
            '          {"name": "a", "required": false}\n'
            "        ]'\n"
            "        axag-optional-parameters='[\"y\"]'>Do</button>")
    pf, m = build(html)
    assert fixed(pf, only(pf, m, 110)) == (
        '<button type="button" axag-intent="a.do" axag-action-type="read"\n'
        "        axag-required-parameters='[\n"
        '          "x"\n'
        "        ]'\n"
        "        axag-optional-parameters='[\"y\",{\"name\":\"a\"}]'>Do</button>")


def test_110_required_in_a_property_fragment_moves_to_the_parent_list() -> None:
    pf, m = build(button('[{"name":"o","type":"object","properties":{"x":{"type":"integer","required":true}}}]'))
    assert fixed(pf, only(pf, m, 110)) == button(
        '[{"name":"o","type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}]')


def test_110_move_not_offered_for_macro_lists() -> None:
    pf, m = build('<button type="button" axag="read:a.do?opt=y"'
                  " axag-required-parameters='[{\"name\":\"a\",\"required\":false}]'>Do</button>")
    assert only(pf, m, 110).fix is None


# ------------------------------------------------------------------------------------------ 111, 112 and fixes
@pytest.mark.parametrize(
    ("written", "after"),
    [
        ('"type":"date"', '"type":"string","format":"date"'),
        ('"type":"datetime"', '"type":"string","format":"date-time"'),
        ('"type":"date-time"', '"type":"string","format":"date-time"'),
        ('"type":"enum","enum":["a"]', '"type":"string","enum":["a"]'),
        ('"type":"int"', '"type":"integer"'),
        ('"type":"float"', '"type":"number"'),
        ('"type":"double"', '"type":"number"'),
        ('"type":"bool"', '"type":"boolean"'),
        ('"type":"str"', '"type":"string"'),
        ('"type":"Integer"', '"type":"integer"'),
    ],
)
def test_111_type_fixes(written: str, after: str) -> None:
    html = button(f'[{{"name":"p",{written}}}]')
    pf, m = build(html)
    p = only(pf, m, 111)
    assert pf.lines.position(p.span.start) == pos(html, written.split(":")[1].split(",")[0])
    assert p.args["p"] == "p"
    assert fixed(pf, p) == button(f'[{{"name":"p",{after}}}]')
    assert not m.actions[0].params_ok


def test_111_without_fix() -> None:
    pf, m = build(button('[{"name":"p","type":"decimal"}]'))
    p = only(pf, m, 111)
    assert (p.args, p.fix) == ({"p": "p", "v": "decimal"}, None)


def test_112_format_fix_and_suggestions() -> None:
    html = button('[{"name":"a","format":"Date_Time"}, {"name":"b","format":"emial"}, {"name":"c","format":"tel"}]')
    pf, m = build(html)
    a, b, c = [p for p in model_problems(m) if p.code == 112]
    assert pf.lines.position(a.span.start) == pos(html, '"Date_Time"')
    assert fixed(pf, a) == button('[{"name":"a","format":"date-time"},{"name":"b","format":"emial"},'
                                  '{"name":"c","format":"tel"}]')
    assert (b.args, b.fix) == ({"p": "b", "v": "emial", "s": "email"}, None)
    from axag.rules.catalogue import RULES

    assert c.fix is None and c.index == RULES[112].position("phone")
    assert RULES[112].format(c.index, **c.args) == ('Parameter "c": unknown format "tel"; phone numbers have no '
                                                    'format, use a "pattern"')


# ------------------------------------------------------------------------------------------ 114
@pytest.mark.parametrize(
    ("kv", "expectation", "after"),
    [
        ('"min":"1"', "a number", '"min":1'),
        ('"max":" 2.50 "', "a number", '"max":2.5'),
        ('"multipleOf":0', "a number greater than 0", None),
        ('"minLength":1.5', "a non-negative integer", None),
        ('"maxLength":"7"', "a non-negative integer", '"maxLength":7'),
        ('"enum":"a"', "a non-empty array", None),
        ('"examples":{}', "an array", None),
        ('"description":""', "a non-empty string", None),
        ('"pattern":1', "a string", None),
        ('"uniqueItems":"yes"', "a boolean", None),
        ('"required":"x"', "an array of unique names", None),
        ('"required":["a","a"]', "an array of unique names", None),
        ('"items":[]', "an object", None),
        ('"type":1', "a string", None),
        ('"min":"x"', "a number", None),
    ],
)
def test_114_wrong_value_types(kv: str, expectation: str, after: str | None) -> None:
    html = button(f'[{{"name":"p",{kv}}}]')
    pf, m = build(html)
    p = only(pf, m, 114)
    key, value = kv.split(":", 1)
    assert pf.lines.position(p.span.start) == pos(html, f"{key}:{value}")[:1] + (pos(html, key)[1] + len(key) + 1,)
    assert p.args == {"p": "p", "k": kv.split(":", 1)[0].strip('"'), "expectation": expectation}
    if after is None:
        assert p.fix is None
    else:
        assert fixed(pf, p) == button(f'[{{"name":"p",{after}}}]')
    assert not m.actions[0].params_ok


# ------------------------------------------------------------------------------------------ 115
@pytest.mark.parametrize(
    ("item", "problem", "token"),
    [
        ('"type":"number","minLength":1', '"minLength" does not apply to type "number"', '"minLength"'),
        ('"min":1', '"min" does not apply to type "string"', '"min"'),
        ('"items":{}', '"items" does not apply to type "string"', '"items"'),
        ('"type":"integer","format":"email"', '"format" does not apply to type "integer"', '"format"'),
        ('"type":"array","required":["a"]', '"required" does not apply to type "array"', '"required"'),
        ('"type":"number","min":5,"max":1', '"min" 5 is greater than "max" 1', '"max"'),
        ('"type":"number","exclusiveMin":1,"exclusiveMax":1', '"exclusiveMin" 1 is not less than "exclusiveMax" 1',
         '"exclusiveMax"'),
        ('"type":"number","min":1,"exclusiveMax":1', '"min" 1 is not less than "exclusiveMax" 1', '"exclusiveMax"'),
        ('"type":"number","exclusiveMin":3,"max":3', '"exclusiveMin" 3 is not less than "max" 3', '"max"'),
        ('"type":"integer","min":1.2,"max":1.8', "the range contains no integer", '"max"'),
        ('"type":"integer","exclusiveMin":1,"exclusiveMax":2', "the range contains no integer", '"exclusiveMax"'),
        ('"minLength":3,"maxLength":2', '"minLength" 3 is greater than "maxLength" 2', '"maxLength"'),
        ('"type":"array","minItems":3,"maxItems":2', '"minItems" 3 is greater than "maxItems" 2', '"maxItems"'),
        ('"enum":[]', "enum is empty", "[]"),
        ('"enum":["a",1]', 'enum item 1 is not of type "string"', "1]"),
        ('"type":"integer","enum":[1,2.5]', 'enum item 2.5 is not of type "integer"', "2.5"),
        ('"type":"number","enum":[true]', 'enum item true is not of type "number"', "true"),
        ('"enum":["a","b","a"]', 'enum repeats "a"', '"a"]'),
        ('"type":"number","enum":[1,1.0]', "enum repeats 1", "1.0"),
        ('"type":"boolean","const":1', 'const 1 is not of type "boolean"', "1}"),
        ('"type":"object","properties":{"a":{}},"required":["b"]', 'required name "b" is not in "properties"',
         '"b"'),
    ],
)
def test_115_coherence(item: str, problem: str, token: str) -> None:
    html = button(f'[{{"name":"p",{item}}}]')
    pf, m = build(html)
    p = only(pf, m, 115)
    assert p.args == {"p": "p", "problem": problem}
    assert pf.lines.position(p.span.start) == pos(html, token)
    assert not m.actions[0].params_ok


def test_115_integer_range_with_an_integer_is_fine() -> None:
    _pf, m = build(button('[{"name":"p","type":"integer","min":1.5,"max":2}]'))
    assert model_problems(m) == []


def test_115_nesting_deeper_than_ten_levels() -> None:
    def nest(n: int) -> str:
        return '{"type":"array","items":' * n + '{"type":"string"}' + "}" * n

    pf, m = build(button(f'[{{"name":"p","type":"array","items":{nest(9)}}}]'))
    assert model_problems(m) == []
    html = button(f'[{{"name":"p","type":"array","items":{nest(10)}}}]')
    pf, m = build(html)
    p = only(pf, m, 115)
    assert p.args["problem"] == "nesting is deeper than 10 levels"
    assert pf.lines.position(p.span.start) == pos(html, '{"type":"string"}')


def test_115_in_fragments() -> None:
    pf, m = build(button('[{"name":"p","type":"array","items":{"type":"integer","min":3,"max":1}}]'))
    assert only(pf, m, 115).args["problem"] == '"min" 3 is greater than "max" 1'


# ------------------------------------------------------------------------------------------ 116
@pytest.mark.parametrize(
    ("item", "args", "token"),
    [
        ('"type":"integer","min":1,"default":0',
         {"key": "default", "value": "0", "keyword": "minimum", "limit": "1"}, "0}"),
        ('"maxLength":2,"enum":["ab","abc"]',
         {"key": "enum value", "value": '"abc"', "keyword": "maxLength", "limit": "2"}, '"abc"'),
        ('"format":"email","examples":["a@b","nope"]',
         {"key": "example", "value": '"nope"', "keyword": "format", "limit": '"email"'}, '"nope"'),
        ('"enum":["a","b"],"const":"c"', {"key": "const", "value": '"c"', "keyword": "enum", "limit": '["a","b"]'},
         '"c"'),
        ('"type":"integer","multipleOf":5,"examples":[7]',
         {"key": "example", "value": "7", "keyword": "multipleOf", "limit": "5"}, "7]"),
        ('"pattern":"^[a-z]+$","default":"A"',
         {"key": "default", "value": '"A"', "keyword": "pattern", "limit": '"^[a-z]+$"'}, '"A"'),
        ('"type":"array","items":{"type":"integer"},"default":[1,"x"]',
         {"key": "default", "value": '[1,"x"] (at [1])', "keyword": "type", "limit": '"integer"'}, '[1,"x"]'),
        ('"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"default":{}',
         {"key": "default", "value": "{}", "keyword": "required", "limit": '["a"]'}, "{}}"),
        ('"type":"number","default":"1"', {"key": "default", "value": '"1"', "keyword": "type", "limit": '"number"'},
         '"1"'),
    ],
)
def test_116_values_against_the_own_schema(item: str, args: dict[str, str], token: str) -> None:
    html = button(f'[{{"name":"p",{item}}}]')
    pf, m = build(html)
    p = only(pf, m, 116)
    assert p.args == {"p": "p", **args}
    assert pf.lines.position(p.span.start) == pos(html, token)
    assert not m.actions[0].params_ok


def test_116_valid_values() -> None:
    _pf, m = build(button('[{"name":"p","type":"integer","min":1,"default":1,"enum":[1,2],"const":1,'
                         '"examples":[1.0]}]'))
    assert model_problems(m) == []


# ------------------------------------------------------------------------------------------ 117
def test_117_pattern_subset() -> None:
    html = button('[{"name":"p","pattern":"(?<=a)b"}, {"name":"q","pattern":"^[a-z]{2,}$"}]')
    pf, m = build(html)
    p = only(pf, m, 117)
    assert pf.lines.position(p.span.start) == pos(html, '"(?<=a)b"')
    assert p.args["p"] == "p" and p.severity is None
    assert schemas(m)["q"]["pattern"] == "^[a-z]{2,}$"
    assert "pattern" not in schemas(m)["p"]


# ------------------------------------------------------------------------------------------ merge merging declared and harvested parameters, 142
FORM = """<form axag-intent="a.do" axag-action-type="write" axag-required-parameters='{req}'>
<label>Qty <input type="number" name="qty" min="1" max="9"></label>
<label>When <input type="date" name="whenDate" max="2026-12-31"></label>
<label>Note <input name="note" minlength="2" required></label>
<label>Extra <input name="extra"></label>
</form>"""


def test_merge_string_form_takes_harvested_type_keys_and_bounds() -> None:
    _pf, m = build(FORM.format(req='["when_date", "qty"]'))
    assert model_problems(m) == []
    act = m.actions[0]
    assert [(p.name, p.required, p.declared, p.harvested) for p in act.parameters] == [
        ("when_date", True, True, True), ("qty", True, True, True), ("note", True, False, True),
        ("extra", False, False, True)]
    s = schemas(m)
    assert s["qty"] == {"type": "integer", "description": "Qty", "minimum": 1, "maximum": 9}
    assert s["when_date"] == {"type": "string", "description": "When. Latest: 2026-12-31.", "format": "date"}
    assert act.parameters[0].format_bounds == {"formatMaximum": "2026-12-31"}
    assert act.parameters[0].kind == "date"


def test_merge_declared_spelling_and_own_keys_win() -> None:
    _pf, m = build(FORM.format(req='[{"name":"whenDate","description":"Day"}, {"name":"qty","max":5}]'))
    assert model_problems(m) == []
    s = schemas(m)
    assert list(s)[:2] == ["whenDate", "qty"]
    assert s["whenDate"]["description"] == "Day"
    assert s["qty"] == {"type": "integer", "description": "Qty", "minimum": 1, "maximum": 5}


def test_merge_explicit_type_equal_or_number_with_integer() -> None:
    _pf, m = build(FORM.format(req='[{"name":"qty","type":"number"}, {"name":"note","type":"string"}]'))
    assert model_problems(m) == []
    s = schemas(m)
    assert s["qty"] == {"type": "number", "description": "Qty", "minimum": 1, "maximum": 9}
    assert s["note"] == {"type": "string", "description": "Note", "minLength": 2, "pattern": "^[^\\r\\n]*$"}


def test_merge_without_explicit_type_runs_coherence_on_the_result() -> None:
    html = FORM.format(req='[{"name":"qty","maxLength":3}]')
    pf, m = build(html)
    p = only(pf, m, 115)
    assert p.args == {"p": "qty", "problem": '"maxLength" does not apply to type "integer"'}
    assert pf.lines.position(p.span.start) == pos(html, '"maxLength"')


def test_142_type_mismatch_takes_only_the_description() -> None:
    html = FORM.format(req='[{"name":"qty","type":"string"}, {"name":"whenDate","type":"integer"}]')
    pf, m = build(html)
    probs = [p for p in model_problems(m) if p.code == 142]
    assert [(pf.lines.position(p.span.start), p.args) for p in probs] == [
        (pos(html, '"string"'), {"p": "qty", "t1": "string", "t2": "integer"}),
        (pos(html, '"integer"'), {"p": "whenDate", "t1": "integer", "t2": "string"}),
    ]
    s = schemas(m)
    assert s["qty"] == {"type": "string", "description": "Qty"}
    assert s["whenDate"] == {"type": "integer", "description": "When. Latest: 2026-12-31."}
    assert m.actions[0].parameters[1].format_bounds is None
    assert m.actions[0].params_ok  # 142 is a warning


def test_no_harvest_keeps_declared_only() -> None:
    _pf, m = build(FORM.format(req='["qty"]'), harvest=False)
    assert model_problems(m) == []
    assert schemas(m) == {"qty": {"type": "string"}}


def test_big_integers_do_not_break_messages() -> None:
    big = "9" * 5000
    _pf, m = build(button(f'[{{"name":"p","type":"integer","min":{big},"max":1}}, {{"name":"q","min":"{big}"}}]'))
    assert [(p.code, p.args.get("problem"), p.fix is not None) for p in model_problems(m)] == [
        (114, None, False), (115, '"min" … is greater than "max" 1', False)]


def test_no_116_against_an_empty_range() -> None:
    _pf, m = build(button('[{"name":"p","type":"integer","min":10,"max":5,"default":20}]'))
    assert [p.code for p in model_problems(m)] == [115]


def test_fix_keeps_entities_line_endings_and_item_lines() -> None:
    html = ('<button type="button" axag-intent="a.do" axag-action-type="read"\r\n'
            '  axag-optional-parameters="[\r\n    &quot;y&quot;,\r\n'
            '    {&quot;name&quot;:&quot;a&quot;,&quot;minimum&quot;:1,&quot;type&quot;:&quot;integer&quot;}\r\n'
            '  ]">Do</button>')
    pf, m = build(html)
    p = only(pf, m, 110)
    assert pf.lines.position(p.span.start) == (4, 37)
    assert fixed(pf, p) == (
        '<button type="button" axag-intent="a.do" axag-action-type="read"\r\n'
        '  axag-optional-parameters="[\r\n    &quot;y&quot;,\r\n'
        '    {&quot;name&quot;:&quot;a&quot;,&quot;min&quot;:1,&quot;type&quot;:&quot;integer&quot;}\r\n'
        '  ]">Do</button>')
