"""The model records facts (`axag.model.facts`); the rules judge them (`axag.rules.facts`). The model's own uses
of the facts (which make a parameter unusable) agree with the rules that judge them."""

from __future__ import annotations

from axag.model.facts import HARMLESS, VALUE_DEFECTS, Kind
from axag.outcome.findings import Severity
from axag.rules import load_rules
from axag.rules.catalogue import RULES
from axag.rules.facts import FACT_RULES
from tests.conftest import build_model_from, model_problems


def _codes_of() -> dict[Kind, set[int]]:
    load_rules()
    out: dict[Kind, set[int]] = {}
    for code, entries in FACT_RULES.items():
        for kind, _ in entries:
            out.setdefault(kind, set()).add(code)
    return out


def test_harmless_facts_are_judged_by_warnings_only() -> None:
    codes = _codes_of()
    for kind in Kind:
        severities = {RULES[c].info.severity for c in codes.get(kind, ())}
        if kind is Kind.HARVESTED_BAD_PATTERN:  # rule 117 reports a control's pattern as a warning
            continue
        if kind in HARMLESS:
            assert Severity.ERROR not in severities, kind
    assert {c for k in HARMLESS for c in codes[k]} == {29, 32, 117, 120, 142}


def test_value_defects_are_the_facts_of_the_value_rules() -> None:
    codes = _codes_of()
    value_rules = {105, 106, 109, 111, 112, 113, 114, 115, 116, 117}
    assert {k for k, cs in codes.items() if cs & value_rules} == VALUE_DEFECTS


def test_a_fact_becomes_a_finding_only_when_its_rule_runs() -> None:
    from axag.rules.base import RuleCtx, run_rules

    _pf, m = build_model_from('<button axag-intent="a.b" axag-risk-level="hihg" axag-action-type="reed">x</button>')
    assert sorted(f.kind.name for f in m.facts) == ["NOT_IN_VOCABULARY", "NOT_IN_VOCABULARY"]
    assert sorted(p.code for p in model_problems(m)) == [4, 5]
    only_5 = run_rules(RuleCtx(m, frozenset({5})))
    assert [(p.code, p.args) for p in only_5] == [(5, {"v": "hihg", "s": "high"})]  # with its did-you-mean
    assert [p.code for p in run_rules(RuleCtx(m, frozenset({2})))] == [2]  # no fact rule ran


def test_the_details_of_facts_are_words() -> None:
    """The model names what it records in words (``written``, ``parameter``, ``suggestion`` …), never by the short
    placeholders the rule messages show (``{v}``, ``{p}``, ``{s}`` …): `axag.rules.facts.PLACEHOLDERS` maps the
    one to the other. Over the failing fixture of every rule, each detail is a word, and the table maps only
    words the model records."""
    import re

    from axag.files.source import SourceText, load
    from axag.model.actions import build_model
    from axag.parse.document import parse_source
    from axag.rules.facts import PLACEHOLDERS
    from tests.conftest import FIXTURES

    recorded: dict[str, set[str]] = {}
    for fail in sorted(FIXTURES.glob("rules/*/fail.html")):
        src = load(fail, fail.read_bytes())
        if not isinstance(src, SourceText):  # the binary file of rule 190
            continue
        for fact in build_model(parse_source(src)).facts:
            for name in fact.args:
                recorded.setdefault(name, set()).add(fact.kind.name)
    assert len(recorded) > 30
    short = set(PLACEHOLDERS.values())
    assert sorted(n for n in recorded if not re.fullmatch(r"_?[a-z]{3,}(_[a-z]+)*", n) or n in short) == []
    assert sorted(set(PLACEHOLDERS) - set(recorded)) == []


def test_a_fact_is_worded_with_the_placeholders_of_its_message() -> None:
    """A fact's details reach its rule's message under the message's placeholders: the finding of rule 112 for
    ``"format": "emial"`` carries ``p``, ``v`` and ``s``, as its template names them."""
    _pf, m = build_model_from('<form axag-intent="a.b" axag-optional-parameters=\'[{"name": "b", "type": "string", '
                              '"format": "emial"}]\'><button type="submit">x</button></form>')
    fact = next(f for f in m.facts if f.kind is Kind.UNKNOWN_FORMAT)
    assert fact.args == {"parameter": "b", "written": "emial", "suggestion": "email"}
    assert [(p.code, p.args) for p in model_problems(m) if p.code == 112] == [
        (112, {"p": "b", "v": "emial", "s": "email"})]
