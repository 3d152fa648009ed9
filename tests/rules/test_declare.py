"""Rule declarations (axag/rules/declare.py): one declaration per rule, keyed message templates whose
placeholders are checked when a rule is declared and, in development, when it reports."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from axag import vocabulary as V
from axag.files.spans import Span
from axag.outcome.findings import Fixable, Level, Severity
from axag.rules import base
from axag.rules.catalogue import RULES, format_message
from axag.rules.declare import DECLARED, STRICT_ENV, MessageError, Rule


@contextmanager
def declared(**kw: Any) -> Iterator[Rule]:
    """A throw-away declaration (code 900), forgotten afterwards."""
    args: dict[str, Any] = {"code": 900, "name": "test-rule", "severity": Severity.WARNING, "level": Level.BASIC,
                            "trigger": "a test", **kw}
    try:
        yield Rule(**args)
    finally:
        DECLARED.pop(900, None)


def test_every_declared_template_parses_and_renders() -> None:
    assert sorted(RULES) == sorted(DECLARED)
    for r in RULES.values():
        for key in r.messages:
            names: dict[str, object] = {n: f"<{n}>" for n in r.placeholders(key)}
            if "opt" in names:
                names["opt"] = True
            r.check_args(key, names)
            out = r.format(key, **names)
            assert "{" not in out.replace("{0,63}", ""), (r.code, key, out)


def test_every_check_and_primary_belongs_to_a_declared_rule() -> None:
    checks = {**base.ACTION_RULES, **base.ELEMENT_RULES, **base.FILE_RULES}
    assert checks and set(checks) <= set(RULES)
    for r in RULES.values():
        assert set(r.primary_to) <= set(RULES), r.code


def test_names_and_first_messages() -> None:
    r = RULES[1]
    assert (r.name, r.info.id, list(r.messages)) == ("missing-intent", "AXAG-LINT-001", ["default", "attributes_only"])
    assert r.info.message == r.messages["default"]
    assert format_message(1, "attributes_only", tag="div") == "<div> has axag-* attributes but no axag-intent"
    assert format_message(1, 1, tag="div") == "<div> has axag-* attributes but no axag-intent"
    assert RULES[4].format(v="update") == ('Invalid axag-action-type="update". Must be one of: '
                                           + ", ".join(V.ACTION_TYPES))  # the vocabulary's list
    assert V.ACTION_TYPES[:2] == ("read", "write")


@pytest.mark.parametrize(("template", "why"), [
    ("Parameter {Name}", "'{Name}' is not a placeholder"),
    ("Parameter {first difference}", "'{first difference}' is not a placeholder"),
    ("Parameter {p", "'{p' is not a placeholder"),
    ("Parameter {p}[; did you mean {s}?", "an optional segment is not closed"),
])
def test_a_malformed_template_is_refused_when_declared(template: str, why: str) -> None:
    with pytest.raises(MessageError, match="AXAG-LINT-900 message 'default': " + why.replace("{", r"\{")
                       .replace("?", r"\?")), declared(messages={"default": template}):
        pass
    assert 900 not in DECLARED


def test_a_declaration_is_refused_twice_and_with_an_unknown_match() -> None:
    with declared(), pytest.raises(RuntimeError, match="rule 900 declared twice"):
        Rule(code=900, name="again", severity=Severity.INFO, level=None, trigger="")
    with pytest.raises(ValueError, match="unknown match 'near'"), declared(primary_to={4: "near"}):
        pass


def test_strict_reports_name_every_placeholder(monkeypatch: pytest.MonkeyPatch) -> None:
    from axag.rules.base import RuleCtx

    monkeypatch.setenv(STRICT_ENV, "1")
    msgs = {"default": 'Parameter "{p}" is declared twice[ (as "{q}")]', "other": "{p} again[; compile stops]"}
    with declared(messages=msgs, fix=Fixable.NEVER) as r:
        ctx = RuleCtx(model=None, enabled=frozenset({900}))  # type: ignore[arg-type]
        r.report(ctx, Span(1, 2), None, p="a")  # the optional segment may go without its placeholder
        r.report(ctx, Span(1, 2), None, p="a", q=None)  # None is "not given"
        r.report(ctx, Span(1, 2), None, msg="other", p="a", opt=True)
        assert [p.index for p in ctx.problems] == [0, 0, 1]
        with pytest.raises(MessageError, match=r"AXAG-LINT-900 message 'default': missing \['p'\]"):
            r.report(ctx, Span(1, 2), None, q="b")
        with pytest.raises(MessageError, match=r"message 'default': unknown \['x'\]"):
            r.report(ctx, Span(1, 2), None, p="a", x=1)
        with pytest.raises(MessageError, match=r"message 'default': missing \['p'\]; unknown \['opt'\]"):
            r.format(0, opt=True)
        with pytest.raises(MessageError, match="AXAG-LINT-900 has no message 'nope'"):
            r.report(ctx, Span(1, 2), None, msg="nope", p="a")
        assert r.format("default", p="a", q="b") == 'Parameter "a" is declared twice (as "b")'
        assert r.format("other", p="a") == "a again"
        monkeypatch.delenv(STRICT_ENV)
        assert r.format("default") == 'Parameter "{p}" is declared twice'  # lenient outside development


def test_pair_is_the_key_primaries_match_on() -> None:
    from axag.rules.base import RuleCtx

    ctx = RuleCtx(model=None, enabled=frozenset())  # type: ignore[arg-type]
    RULES[12].report(ctx, Span(0, 1), None, "axag-approval-required", pair="approval-roles")
    assert ctx.problems[0].args == {"_key": "approval-roles"}
    assert RULES[12].primary_to == {26: "key"}


def test_messages_take_enumerations_from_the_vocabulary() -> None:
    """No rule module spells out a list that axag/vocabulary/__init__.py holds (004, 005, 107, 108, 111, 125, 126)."""
    from axag import vocabulary as V
    from axag.rules.declare import or_list
    from tests.conftest import REPO

    lists = [v for v in vars(V).values() if isinstance(v, tuple | dict) and len(v) > 1
             and all(isinstance(x, str) for x in v)]
    spelt = {sep.join(v) for v in lists for sep in (", ", "|", " or ")} | {or_list(v) for v in lists}
    for path in sorted((REPO / "axag" / "rules").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert [s for s in spelt if s in text] == [], path.name
    assert RULES[126].format(v="5 sec") == 'axag-cooldown="5 sec" must be a number followed by ms, s, m, h or d'
    assert RULES[125].format(v="5") == 'axag-rate-limit="5" must be N/second|minute|hour|day'
    assert RULES[108].format(v="x") == 'Invalid axag-tenant-boundary="x". Must be strict or relaxed'


def test_the_engine_primaries_are_the_declared_ones() -> None:
    from axag.lint.engine import PRIMARIES

    assert sorted(PRIMARIES) == sorted([
        (6, 26, "key"), (7, 26, "key"), (8, 118, "key"), (12, 26, "key"), (13, 25, "element"), (27, 34, "element"),
        (101, 100, "attr"), (102, 100, "attr"), (103, 4, "attr"), (104, 100, "attr"), (110, 114, "key"),
        (110, 115, "key"), (110, 116, "key"), (110, 117, "key"), (132, 131, "span"), (134, 9, "attr"),
        (134, 106, "attr"),
        # the critical ungated action, JSX in markup, a comment inside a start tag
        (13, 150, "element"), (150, 6, "element"), (150, 26, "key"), (152, 33, "element"), (153, 1, "element"),
    ])


def test_a_report_that_does_not_fit_its_message_stops_a_development_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from axag.api import lint_text

    def wrong(ctx: Any, act: Any) -> None:
        RULES[13].report(ctx, act.element.tag_span, act.element, risk="critical")

    page = '<button axag-intent="secret.view" axag-action-type="read" axag-risk-level="critical">View</button>'
    monkeypatch.setitem(base.ACTION_RULES, 13, wrong)
    with pytest.raises(MessageError, match=r"AXAG-LINT-013 message 'default': unknown \['risk'\]"):
        lint_text(page, select="013")
    monkeypatch.delenv(STRICT_ENV)
    assert [(f.code, f.message) for f in lint_text(page, select="013")] == [
        (13, "A read action cannot be critical risk")]
