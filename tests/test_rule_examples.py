"""`axag rule` prints a failing and a passing example for every rule; they come from fixtures/rules/<code>/
(axag/rules/examples.py is generated from them; rerun with AXAG_UPDATE_GOLDENS=1 after changing a fixture)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import FIXTURES, REPO, run_axag

EXAMPLES_MODULE = REPO / "axag" / "rules" / "examples.py"
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


def generate() -> str:
    from axag.rules.catalogue import RULES

    rows = []
    for code in sorted(RULES):
        d = FIXTURES / "rules" / f"{code:03d}"
        if code in MANUAL:
            fails, passes = MANUAL[code]
        elif d.is_dir():
            fails, passes = _example(d, "fail"), _example(d, "pass")
        else:
            continue
        rows.append(f"    {code}: (\n        {fails!r},\n        {passes!r},\n    ),")
    return (
        '"""A failing and a passing example per rule, printed by `axag rule`.\n\n'
        "Generated from fixtures/rules/<code>/ by tests/test_rule_examples.py (AXAG_UPDATE_GOLDENS=1 rewrites it).\n"
        '"""\n\nfrom __future__ import annotations\n\n'
        "EXAMPLES: dict[int, tuple[str, str]] = {\n" + "\n".join(rows) + "\n}\n"
    )


def test_examples_module_is_generated_from_fixtures() -> None:
    text = generate()
    if os.environ.get("AXAG_UPDATE_GOLDENS"):
        EXAMPLES_MODULE.write_text(text, encoding="utf-8")
    assert EXAMPLES_MODULE.read_text(encoding="utf-8") == text


def test_every_rule_has_examples() -> None:
    from axag.rules.catalogue import RULES
    from axag.rules.examples import EXAMPLES

    assert sorted(EXAMPLES) == sorted(RULES)
    assert all(fails and passes for fails, passes in EXAMPLES.values())


def test_rule_command_prints_examples() -> None:
    res = run_axag(["rule", "AXAG-LINT-006"])
    assert res.exit_code == 0
    assert res.stdout.splitlines()[0] == "AXAG-LINT-006 (high-risk-without-confirmation)"
    assert "  fails:\n    <button axag-intent=\"account.close\"" in res.stdout
    assert "  passes:\n" in res.stdout
    res = run_axag(["rule", "high-risk-without-confirmation"])
    assert res.stdout.startswith("AXAG-LINT-006 ")
    assert run_axag(["rule", "no-such-rule"]).exit_code == 2
    listing = run_axag(["rule", "--all"]).stdout.splitlines()
    assert len(listing) == 97 and listing[0].startswith("AXAG-LINT-001")
    assert listing[92:] == ["", "Columns: code, default severity, level, flags, name.",
                            ("Level: B basic, I intermediate, F full (the rule runs at that --level and above), - "
                             "compile only."),
                            "Flags: C compile check (an error stops axag compile), * fixable with axag lint --fix.",
                            "Run axag rule CODE for what a rule checks, with a failing and a passing example."]
