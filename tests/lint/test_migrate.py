"""Legacy `axag-constraints` migration (legacy axag-constraints migration, rule 101): counts, per-entry reasons, the migrated result, and
that a migration never raises a new finding. The fixed bytes of each case are pinned in `fixtures/fix/101-*`
(see test_fix.py); here the findings are pinned."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from axag.cli.group import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "fix"


def axag(args: list[str], cwd: Path) -> tuple[int, str]:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        res = CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)
    return res.exit_code, res.stdout


def lint_101(path: Path) -> list[str]:
    """The 101 lines of the concise report, without the path."""
    _, out = axag(["lint", "--isolated", "-j", "1", "--exit-zero", "--output-format", "concise", path.name],
                  path.parent)
    return [line.split(":", 1)[1] for line in out.splitlines() if "AXAG-LINT-101" in line]


def findings(path: Path) -> list[str]:
    _, out = axag(["lint", "--isolated", "-j", "1", "--exit-zero", "--output-format", "json", path.name],
                  path.parent)
    return [f"{f['code']} {f['message']}" for f in json.loads(out)["findings"]]


def copy_case(tmp: Path, case: str, name: str = "page.html") -> Path:
    target = tmp / name
    shutil.copyfile(FIXTURES / case / "input.html", target)
    return target


def migrated_entries(message: str) -> tuple[int, int]:
    m = re.search(r"; (\d+) of (\d+) entr(?:y|ies) can be migrated", message)
    assert m, message
    return int(m.group(1)), int(m.group(2))


MANUAL = "AXAG-LINT-101 axag-constraints entry"
EXPECTED: dict[str, list[str]] = {
    "101-migrate-parameter-object": [
        "6:3: AXAG-LINT-101 [*] axag-constraints is not part of AXAG 1.1; 1 of 1 entry can be migrated with --fix",
    ],
    "101-migrate-renames-and-conflict": [
        "3:3: AXAG-LINT-101 [*] axag-constraints is not part of AXAG 1.1; 2 of 3 entries can be migrated with --fix",
        f'3:69: {MANUAL} "amount_cap": manual migration needed: "amount" already has "max": 100, the entry says 500',
    ],
    "101-migrate-bounds-and-const": [
        "5:3: AXAG-LINT-101 [*] axag-constraints is not part of AXAG 1.1; 5 of 5 entries can be migrated with --fix",
    ],
    "101-migrate-preconditions": [
        "5:3: AXAG-LINT-101 [*] axag-constraints is not part of AXAG 1.1; 4 of 4 entries can be migrated with --fix",
    ],
    "101-migrate-creates-preconditions": [
        "14:3: AXAG-LINT-101 [*] axag-constraints is not part of AXAG 1.1; 1 of 2 entries can be migrated with --fix",
        (f'14:55: {MANUAL} "max_guests": manual migration needed: a bound needs a number or integer parameter; '
        '"guests" is string (declare its type first)'),
    ],
    "101-migrate-replaces-attribute": [
        ("1:341: AXAG-LINT-101 [*] axag-constraints is not part of AXAG 1.1; 1 of 1 entry can be migrated with "
        "--fix"),
    ],
    "101-migrate-multiline": [
        "13:3: AXAG-LINT-101 [*] axag-constraints is not part of AXAG 1.1; 2 of 3 entries can be migrated with --fix",
        (f'16:5: {MANUAL} "shape": manual migration needed: the expression is not "param OP literal" or '
        '"paramA OP paramB" (OP: < <= > >= == !=)'),
    ],
    "101-migrate-harvested-type": [
        "4:3: AXAG-LINT-101 [*] axag-constraints is not part of AXAG 1.1; 1 of 1 entry can be migrated with --fix",
    ],
    "101-migrate-after-type-fix": [
        "4:3: AXAG-LINT-101 axag-constraints is not part of AXAG 1.1; 0 of 1 entry can be migrated with --fix",
        (f'4:22: {MANUAL} "max_guests": manual migration needed: a bound needs a number or integer parameter; '
        'the type of "guests" ("int") is not valid'),
    ],
    "101-migrate-not-migratable": [
        "4:3: AXAG-LINT-101 axag-constraints is not part of AXAG 1.1; 0 of 8 entries can be migrated with --fix",
        (f'4:22: {MANUAL} "cap": manual migration needed: "guests" is declared by the axag macro (req=/opt=); '
        "declare it in axag-required-parameters or axag-optional-parameters first"),
        (f'4:45: {MANUAL} "who": manual migration needed: "who" is not declared in axag-required-parameters or '
        "axag-optional-parameters"),
        (f'4:71: {MANUAL} "ghost": manual migration needed: "ghost" is not declared in axag-required-parameters or '
        "axag-optional-parameters"),
        (f'4:92: {MANUAL} "odd": manual migration needed: its value is neither an object of parameter keys nor a '
        "string expression"),
        (f'4:103: {MANUAL} "prose": manual migration needed: the expression is not "param OP literal" or '
        '"paramA OP paramB" (OP: < <= > >= == !=)'),
        (f'4:137: {MANUAL} "name_order": manual migration needed: migrating it would raise AXAG-LINT-136 '
        '(Precondition "name > "A"": name (string) and "A" (string) cannot be compared)'),
        (f'4:167: {MANUAL} "age_str": manual migration needed: migrating it would raise AXAG-LINT-115 '
        '(Parameter "age": const "ten" is not of type "integer")'),
        (f'4:196: {MANUAL} "name_bound": manual migration needed: a bound needs a number or integer parameter; '
        '"name" is string (declare its type first)'),
    ],
}
# what remains after --fix (the constraints attribute keeps only the entries that need manual work)
AFTER: dict[str, list[str]] = {
    "101-migrate-renames-and-conflict": [
        "3:3: AXAG-LINT-101 axag-constraints is not part of AXAG 1.1; 0 of 1 entry can be migrated with --fix",
        f'3:22: {MANUAL} "amount_cap": manual migration needed: "amount" already has "max": 100, the entry says 500',
    ],
    "101-migrate-creates-preconditions": [
        "14:3: AXAG-LINT-101 axag-constraints is not part of AXAG 1.1; 0 of 1 entry can be migrated with --fix",
        (f'14:22: {MANUAL} "max_guests": manual migration needed: a bound needs a number or integer parameter; '
        '"guests" is string (declare its type first)'),
    ],
    "101-migrate-multiline": [
        "13:3: AXAG-LINT-101 axag-constraints is not part of AXAG 1.1; 0 of 1 entry can be migrated with --fix",
        (f'14:5: {MANUAL} "shape": manual migration needed: the expression is not "param OP literal" or '
        '"paramA OP paramB" (OP: < <= > >= == !=)'),
    ],
}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_findings_before_and_after(case: str, tmp_path: Path) -> None:
    page = copy_case(tmp_path, case)
    assert lint_101(page) == EXPECTED[case]
    axag(["lint", "--isolated", "-j", "1", "--fix", "--exit-zero", page.name], tmp_path)
    after = AFTER.get(case, EXPECTED[case] if "not-migratable" in case else [])
    assert lint_101(page) == after


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_migration_raises_no_new_finding(case: str, tmp_path: Path) -> None:
    page = copy_case(tmp_path, case)
    before = [f for f in findings(page) if not f.startswith("AXAG-LINT-101 ")]
    axag(["lint", "--isolated", "-j", "1", "--fix", "--exit-zero", page.name], tmp_path)
    after = [f for f in findings(page) if not f.startswith("AXAG-LINT-101 ")]
    assert [f for f in after if f not in before] == []


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_count_matches_what_fix_migrates(case: str, tmp_path: Path) -> None:
    """The count in the message is the number of entries that --fix removes (one pass, nothing else fixable)."""
    page = copy_case(tmp_path, case)
    n, m = migrated_entries(lint_101(page)[0])
    axag(["lint", "--isolated", "-j", "1", "--fix", "--exit-zero", page.name], tmp_path)
    left = lint_101(page)
    remaining = migrated_entries(left[0])[1] if left else 0
    if case == "101-migrate-after-type-fix":  # the type fix makes the entry migratable on a later pass
        assert (n, m, remaining) == (0, 1, 0)
    else:
        assert m - remaining == n


def test_compile_sees_the_migrated_contract(tmp_path: Path) -> None:
    page = copy_case(tmp_path, "101-migrate-bounds-and-const")
    axag(["lint", "--isolated", "-j", "1", "--fix", "--exit-zero", page.name], tmp_path)
    code, out = axag(["compile", "--isolated", "-j", "1", page.name, "-o", "-"], tmp_path)
    assert code == 0
    tool = json.loads(out)["tools"][0]
    props = tool["inputSchema"]["properties"]
    assert props["guests"] == {"type": "integer", "minimum": 1, "maximum": 10}
    assert props["nights"] == {"type": "integer", "exclusiveMaximum": 30}
    assert props["currency"] == {"type": "string", "const": "EUR"}
    assert props["discount"] == {"type": "number", "exclusiveMinimum": 0}


def test_compile_sees_migrated_preconditions(tmp_path: Path) -> None:
    page = copy_case(tmp_path, "101-migrate-preconditions")
    axag(["lint", "--isolated", "-j", "1", "--fix", "--exit-zero", page.name], tmp_path)
    code, out = axag(["compile", "--isolated", "-j", "1", page.name, "-o", "-"], tmp_path)
    assert code == 0
    pre = json.loads(out)["tools"][0]["_meta"]["org.axag/action"]["preconditions"]
    assert [(p["text"], p["kind"], p.get("form")) for p in pre] == [
        ("room_available", "state", None),
        ("check_out is after check_in", "relational", "greater_than"),
        ('check_in >= "2024-01-01"', "relational", "greater_than_or_equal"),
        ('status != "closed"', "relational", "not_equal"),
        ("check_in != check_out", "relational", "not_equal"),
    ]


def test_invalid_json_is_not_migratable(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text('<button axag-intent="a.b" axag-action-type="read" axag-constraints=\'{"a": 1,}\'>x</button>\n')
    assert lint_101(page) == [
        "1:51: AXAG-LINT-101 axag-constraints is not part of AXAG 1.1; 0 of 0 entries can be migrated with --fix"]


def test_constraints_on_a_non_action(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text('<div axag-constraints=\'{"x": "x <= 1"}\'>x</div>\n')
    assert lint_101(page) == [
        "1:6: AXAG-LINT-101 axag-constraints is not part of AXAG 1.1; 0 of 1 entry can be migrated with --fix",
        f'1:25: {MANUAL} "x": manual migration needed: the element is not an action (it has no axag-intent)',
    ]


def test_dynamic_constraints_are_left_alone(tmp_path: Path) -> None:
    page = tmp_path / "p.jinja"
    data = ('<button axag-intent="a.b" axag-action-type="read" axag-required-parameters=\'["n"]\' '
            "axag-constraints='{{ constraints }}'>x</button>\n")
    page.write_text(data)
    axag(["lint", "--isolated", "-j", "1", "--fix", "--exit-zero", page.name], tmp_path)
    assert page.read_text() == data


def test_existing_equivalent_precondition_is_not_repeated(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(
        '<button axag-intent="a.b" axag-action-type="read" '
        'axag-required-parameters=\'[{"name":"lo","type":"integer"},{"name":"hi","type":"integer"}]\' '
        'axag-preconditions=\'["hi must be > lo"]\' axag-constraints=\'{"order": "hi>lo"}\'>x</button>\n')
    axag(["lint", "--isolated", "-j", "1", "--fix", "--exit-zero", page.name], tmp_path)
    assert page.read_text() == (
        '<button axag-intent="a.b" axag-action-type="read" '
        'axag-required-parameters=\'[{"name":"lo","type":"integer"},{"name":"hi","type":"integer"}]\' '
        'axag-preconditions=\'["hi must be > lo"]\'>x</button>\n')


def test_double_quoted_attributes_stay_double_quoted(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(
        '<button axag-intent="a.b" axag-action-type="read" '
        'axag-required-parameters="[&quot;q&quot;]" axag-constraints="{&quot;q&quot;: {&quot;maxLength&quot;: 9}}"'
        ">x</button>\n")
    axag(["lint", "--isolated", "-j", "1", "--fix", "--exit-zero", page.name], tmp_path)
    assert page.read_text() == (
        '<button axag-intent="a.b" axag-action-type="read" '
        'axag-required-parameters="[{&quot;name&quot;:&quot;q&quot;,&quot;maxLength&quot;:9}]">x</button>\n')


def test_new_preconditions_take_the_place_of_a_double_quoted_attribute(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text(
        '<button axag-intent="a.b" axag-action-type="read" '
        'axag-required-parameters=\'[{"name":"lo","type":"integer"},{"name":"hi","type":"integer"}]\' '
        'axag-constraints="{&quot;order&quot;: &quot;hi &gt; lo&quot;}" class="x">x</button>\n')
    axag(["lint", "--isolated", "-j", "1", "--fix", "--exit-zero", page.name], tmp_path)
    assert page.read_text() == (
        '<button axag-intent="a.b" axag-action-type="read" '
        'axag-required-parameters=\'[{"name":"lo","type":"integer"},{"name":"hi","type":"integer"}]\' '
        'axag-preconditions=\'["hi > lo"]\' class="x">x</button>\n')


def _legacy_attr(value: str) -> Any:
    from axag.files.spans import Span
    from axag.parse.document import Attr

    return Attr("axag-constraints", "axag-constraints", value, value, "'", Span(0, 16), Span(18, 18 + len(value)))


def test_library_entry_count_and_expressions() -> None:
    """The model records M, the number of entries (0 unless the value is a JSON object), and reads the shapes."""
    from axag.lint.migrate import parse_expression
    from axag.model.legacy import entry_count

    assert entry_count(_legacy_attr('{"a": {"min": 1}, "b": "x <= 3", "c": "x ~ 3", "d": 4}')) == 4
    assert entry_count(_legacy_attr("[1]")) == 0
    assert entry_count(_legacy_attr("{")) == 0
    e = parse_expression("price<='10'")
    assert e is not None and (e.a, e.op, e.literal, e.literal_text, e.is_string) == ("price", "<=", "10", '"10"', True)
    e = parse_expression(" a != b ")
    assert e is not None and (e.a, e.op, e.b) == ("a", "!=", "b")
    assert parse_expression("a <= true") is None
    assert parse_expression("true == a") is None
    assert parse_expression("a => 3") is None


PROVIDED = (
    '<button axag-intent="a.b" axag-action-type="read" axag-required-parameters=\'[{"name":"q","type":"integer"},'
    '"s"]\' axag-constraints=\'{"q": "q <= 3", "s": "s >= 1", "x": 4}\'>x</button>\n')


def test_building_the_model_plans_no_migration() -> None:
    """The model records the fact of the attribute (M, its number of entries); it neither counts migratable
    entries nor attaches a fix: that is the fix provider's, after the rules. Rule 101 judges the fact with N = 0
    until the provider sets it."""
    from axag.files.source import load
    from axag.model.actions import build_model
    from axag.model.facts import Kind
    from axag.parse.document import parse_source
    from axag.rules import load_rules
    from axag.rules.base import RuleCtx, run_rules

    src = load(Path("p.html"), PROVIDED.encode())
    assert not isinstance(src, str)
    model = build_model(parse_source(src))
    facts = [f for f in model.facts if f.kind is Kind.LEGACY_CONSTRAINTS]
    assert [(f.args, f.fix, f.attribute) for f in facts] == [({"entries": "3 entries"}, None, "axag-constraints")]
    load_rules()
    heads = [p for p in run_rules(RuleCtx(model, frozenset({101}))) if p.code == 101]
    assert [(p.args, p.fix, p.attribute) for p in heads] == [
        ({"entries": "3 entries", "n": 0}, None, "axag-constraints")]


def test_the_fix_provider_sets_the_count_and_the_fix() -> None:
    """`provide` runs on the problems after the rules: N is what its verified fix migrates (one bound of three:
    "s" is a string parameter, "x" is no expression), and each entry left gets its own 101 problem (made by rule 101's module)."""
    from axag.files.source import load
    from axag.lint.migrate import provide
    from axag.model.actions import build_model
    from axag.parse.document import parse_source
    from axag.rules import load_rules
    from axag.rules.base import RuleCtx, run_rules
    from axag.rules.catalogue import RULES, format_message

    load_rules()
    src = load(Path("p.html"), PROVIDED.encode())
    assert not isinstance(src, str)
    model = build_model(parse_source(src))
    problems = run_rules(RuleCtx(model, frozenset(RULES)))
    extra = provide(model, problems)
    head = next(p for p in problems if p.code == 101)
    assert (head.args["n"], head.args["m"]) == (1, 3)
    assert format_message(101, 0, n=head.args["n"], entries=head.args["entries"]) == (
        "axag-constraints is not part of AXAG 1.1; 1 of 3 entries can be migrated with --fix")
    assert head.fix is not None and head.fix.description == "Migrate 1 of 3 entries of axag-constraints"
    assert [(p.code, p.args, p.message) for p in extra] == [
        (101, {"entry": "s"}, ('axag-constraints entry "s": manual migration needed: a bound needs a number or '
                               'integer parameter; "s" is string (declare its type first)')),
        (101, {"entry": "x"}, ('axag-constraints entry "x": manual migration needed: its value is neither an '
                               "object of parameter keys nor a string expression")),
    ]


def test_no_migration_is_planned_when_101_is_not_selected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """The provider serves rule 101 only: with 101 ignored it does not run (its findings would be dropped)."""
    from axag.lint import migrate

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the migration was planned")

    monkeypatch.setattr(migrate, "provide", refuse)
    page = tmp_path / "p.html"
    page.write_text(PROVIDED)
    _, out = axag(["lint", "--isolated", "-j", "1", "--no-cache", "--ignore", "101", "--output-format",
                      "concise", page.name], tmp_path)
    assert "AXAG-LINT-101" not in out and "AXAG-LINT-199" not in out, out


def test_axag_docs_constraints_example(tmp_path: Path) -> None:
    """The AXAG docs example: a string-form `guests` cannot take a numeric bound, and `check_out > check_in`
    between two undeclared-type (string) parameters would raise 136; both stay, with their reasons."""
    from tests.conftest import shared_or_skip

    page = tmp_path / "page.html"
    shutil.copyfile(shared_or_skip("corpus/axag-docs/specification__constraints__00.html"), page)
    original = page.read_bytes()
    assert lint_101(page) == [
        "6:3: AXAG-LINT-101 axag-constraints is not part of AXAG 1.1; 0 of 2 entries can be migrated with --fix",
        (f'6:22: {MANUAL} "check_out_after_check_in": manual migration needed: migrating it would raise '
        'AXAG-LINT-136 (Precondition "check_out > check_in": check_out (string) and check_in (string) cannot be '
        "compared)"),
        (f'6:74: {MANUAL} "max_guests": manual migration needed: a bound needs a number or integer parameter; '
        '"guests" is string (declare its type first)'),
    ]
    axag(["lint", "--isolated", "-j", "1", "--fix", "--exit-zero", "--select", "101", page.name], tmp_path)
    assert page.read_bytes() == original


def test_a_jsx_migration_is_verified_on_the_jsx_parse(tmp_path: Path) -> None:
    """The candidate is re-parsed as the engine parsed the file: a JSX file is not read by the markup parser,
    which would take the button in the JS comment for the first element and compare the wrong one (the
    migration would then be offered although it raises 136)."""
    body = ('export function A() {\n  return <button axag-intent="a.b" axag-action-type="read" '
            'axag-description="Book" axag-required-parameters=\'["check_in","check_out"]\' '
            'axag-constraints=\'{"order": "check_out > check_in"}\'>x</button>;\n}\n')
    page = tmp_path / "a.jsx"
    page.write_text('// <button axag-intent="c.d" axag-action-type="read">old</button>\n' + body)
    reason = ('migrating it would raise AXAG-LINT-136 (Precondition "check_out > check_in": check_out (string) and '
              "check_in (string) cannot be compared)")
    assert lint_101(page) == [
        "3:136: AXAG-LINT-101 axag-constraints is not part of AXAG 1.1; 0 of 1 entry can be migrated with --fix",
        f'3:155: {MANUAL} "order": manual migration needed: {reason}',
    ]
