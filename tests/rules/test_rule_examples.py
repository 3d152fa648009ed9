"""`axag rule` prints a failing and a passing example for every rule; they come from fixtures/rules/<code>/
(the ``fails=`` and ``passes=`` of each declaration are written from them: rerun with AXAG_UPDATE_GOLDENS=1
after changing a fixture)."""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path
from types import ModuleType

from tests.conftest import FIXTURES, run_axag

MAX_LINES = 12

# rules that no single HTML file can trigger: compile-only and run diagnostics
MANUAL: dict[int, tuple[str, str]] = {
    145: (('<button axag-intent="slot.book" axag-action-type="write" axag-risk-level="low"\n'
          '  axag-required-parameters=\'[{"name":"start","type":"string","format":"time"}]\'>Book</button>\n'
          "(axag compile --target manifest)"),
          ('<button axag-intent="slot.book" axag-action-type="write" axag-risk-level="low"\n'
          '  axag-required-parameters=\'[{"name":"start","type":"string","format":"date"}]\'>Book</button>')),
    146: (('<button axag-intent="report.run" axag-action-type="read"\n'
          '  axag-required-parameters=\'[{"name":"filter","type":"object"}]\'>Run</button>\n'
          "(axag compile --target openai --strict)"),
          ('<button axag-intent="report.run" axag-action-type="read"\n'
          '  axag-required-parameters=\'[{"name":"filter","type":"string"}]\'>Run</button>')),
    191: ("a file that cannot be read (permissions, vanished during the run)", "a readable file"),
    192: ("a file from which the HTML parser produces no document", "any HTML document"),
    199: ("an exception inside axag while processing a file (please report it)", "—"),
}


def _clip(text: str) -> str:
    lines = text.strip("\n").splitlines()
    if len(lines) > MAX_LINES:
        lines = [*lines[:MAX_LINES], "…"]
    return "\n".join(lines)


def _example(d: Path, kind: str) -> str:
    single = d / f"{kind}.html"
    if single.exists():
        return _clip(single.read_text(encoding="utf-8", errors="replace"))
    folder = d / kind
    if folder.is_dir():
        parts = []
        for f in sorted(folder.iterdir()):
            if f.suffix in (".html", ".htm", ".jinja", ".j2", ".hbs", ".liquid", ".vue", ".njk"):
                parts.append(f"<!-- {f.name} -->\n" + f.read_text(encoding="utf-8", errors="replace").strip("\n"))
        return _clip("\n".join(parts))
    for f in sorted(d.glob(f"{kind}.*")):
        if f.suffix not in (".json",):
            try:
                return _clip(f.read_text(encoding="utf-8"))
            except UnicodeDecodeError:
                return f"(binary file {f.name})"
    return ""


def expected_examples() -> dict[int, tuple[str, str]]:
    """Every rule's (fails, passes) as the fixtures (or MANUAL) give them."""
    from axag.rules.catalogue import RULES

    out = {}
    for code in RULES:
        d = FIXTURES / "rules" / f"{code:03d}"
        if code in MANUAL:
            out[code] = MANUAL[code]
        elif d.is_dir():
            out[code] = (_example(d, "fail"), _example(d, "pass"))
    return out


def _quote(text: str) -> str:
    r = repr(text)
    if r.startswith("'") and '"' not in text:
        r = '"' + r[1:-1].replace("\\'", "'") + '"'
    return r


def literal(text: str) -> str:
    """``text`` as a declaration writes it: one string per line of the example, in parentheses."""
    if "\n" not in text and len(text) < 90:
        return _quote(text)
    parts = text.split("\n")
    pieces = [_quote(p + "\n") for p in parts[:-1]] + ([_quote(parts[-1])] if parts[-1] else [])
    return "(\n" + "".join(f"        {p}\n" for p in pieces) + "    )"


def _declaring_module(code: int) -> ModuleType:
    from axag.rules.catalogue import RULES

    rule = RULES[code]
    return next(m for name, m in sorted(sys.modules.items()) if name.startswith("axag.rules.")
                and any(v is rule for v in vars(m).values()))


def rewrite_examples(code: int, fails: str, passes: str) -> None:
    """Replace the ``fails=`` and ``passes=`` arguments of rule ``code``'s declaration in its module."""
    path = Path(str(_declaring_module(code).__file__))
    path.write_text(rewritten(path.read_text(encoding="utf-8"), code, fails, passes), encoding="utf-8")


def rewritten(text: str, code: int, fails: str, passes: str) -> str:
    """``text`` (a rule module) with the ``fails=`` and ``passes=`` of rule ``code``'s declaration replaced."""
    offsets = [0]
    for line in text.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    call = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Call) and any(
        k.arg == "code" and isinstance(k.value, ast.Constant) and k.value.value == code for k in n.keywords))
    edits = []
    for kw in call.keywords:
        if kw.arg in ("fails", "passes") and kw.value.end_lineno is not None and kw.value.end_col_offset is not None:
            start = offsets[kw.value.lineno - 1] + kw.value.col_offset
            end = offsets[kw.value.end_lineno - 1] + kw.value.end_col_offset
            while text[:start].rstrip().endswith("(") and text[end:].lstrip().startswith(")"):  # the parentheses
                start = len(text[:start].rstrip()) - 1
                end = len(text) - len(text[end:].lstrip()) + 1
            edits.append((start, end, literal(fails if kw.arg == "fails" else passes)))
    assert len(edits) == 2, f"rule {code}: declare fails= and passes= to rewrite them"
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def test_declared_examples_are_the_fixtures() -> None:
    from axag.rules.catalogue import RULES

    wrong = {code: ex for code, ex in expected_examples().items() if (RULES[code].fails, RULES[code].passes) != ex}
    if os.environ.get("AXAG_UPDATE_GOLDENS"):
        for code, (fails, passes) in wrong.items():
            rewrite_examples(code, fails, passes)
        return
    assert sorted(wrong) == []


def test_examples_are_rewritten_in_place() -> None:
    from axag.rules.catalogue import RULES

    path = Path(str(_declaring_module(6).__file__))
    text = path.read_text(encoding="utf-8")
    r = RULES[6]
    assert rewritten(text, 6, r.fails, r.passes) == text  # the declarations are written as the rewriter writes
    new = rewritten(text, 6, '<a href="/x">one line</a>', "two\nlines")
    assert '    fails=\'<a href="/x">one line</a>\',\n    passes=(\n        "two\\n"\n        "lines"\n    ),\n' in new
    assert rewritten(new, 6, r.fails, r.passes) == text


def test_every_rule_has_examples() -> None:
    from axag.rules.catalogue import RULES

    assert sorted(expected_examples()) == sorted(RULES)
    assert all(r.fails and r.passes for r in RULES.values())


def test_rule_command_prints_examples() -> None:
    res = run_axag(["rule", "AXAG-LINT-006"])
    assert res.exit_code == 0
    assert res.stdout.splitlines()[0] == "AXAG-LINT-006 (high-risk-without-confirmation)"
    assert "  fails:\n    <button axag-intent=\"account.close\"" in res.stdout
    assert "  passes:\n" in res.stdout
    res = run_axag(["rule", "high-risk-without-confirmation"])
    assert res.stdout.startswith("AXAG-LINT-006 ")
    assert run_axag(["rule", "no-such-rule"]).exit_code == 2
    from axag.rules.catalogue import RULES

    listing = run_axag(["rule", "--all"]).stdout.splitlines()
    # one line per rule of the catalogue, in code order, then the legend
    assert [line.split()[0] for line in listing[:len(RULES)]] == [f"AXAG-LINT-{code:03d}" for code in sorted(RULES)]
    assert listing[len(RULES):] == ["", "Columns: code, default severity, level, flags, name.",
                            ("Level: B basic, I intermediate, F full (the rule runs at that --level and above), - "
                             "compile only."),
                            "Flags: C compile check (an error stops axag compile), * fixable with axag lint --fix.",
                            "Run axag rule CODE for what a rule checks, with a failing and a passing example."]
