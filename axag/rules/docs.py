"""Rule documentation generated from the declarations: `axag rule CODE`, `axag rule --all` and the rule
tables of README.md (`tests/test_rule_docs.py` keeps the README equal to `markdown_tables()`)."""

from __future__ import annotations

from axag.rules.catalogue import RULES

__all__ = ["LEGEND", "explain", "listing"]

LEGEND = """
Columns: code, default severity, level, flags, name.
Level: B basic, I intermediate, F full (the rule runs at that --level and above), - compile only.
Flags: C compile check (an error stops axag compile), * fixable with axag lint --fix.
Run axag rule CODE for what a rule checks, with a failing and a passing example.
"""


def explain(code: int) -> str:
    """The explanation of a rule as `axag rule CODE` prints it (also shown by the html report)."""
    r = RULES[code]
    info = r.info
    level = info.level.value if info.level is not None else "compile only"
    if info.off_by_default:
        level += " (off by default)"
    sev = info.severity.value + (f"/{r.alt_severity.value}" if r.alt_severity else "")
    fix = {"never": "no", "sometimes": "sometimes", "always": "yes"}[info.fix.value]
    if r.fix_text:
        fix += f" ({r.fix_text})"
    lines = [
        f"{info.id} ({info.name})",
        f"  severity:      {sev}",
        f"  level:         {level}",
        f"  compile check: {'yes' if info.compile_check else 'no'}",
        f"  fix:           {fix}",
    ]
    if info.needs:
        lines.append(f"  needs:         --{info.needs}")
    lines.append(f"  trigger:       {r.explanation}")
    for i, m in enumerate(r.messages.values()):
        lines.append(f"  {'message:' if i == 0 else '         '}      {m}")
    if r.fails:
        lines.append("  fails:")
        lines.extend(f"    {x}" for x in r.fails.splitlines())
    if r.passes:
        lines.append("  passes:")
        lines.extend(f"    {x}" for x in r.passes.splitlines())
    return "\n".join(lines) + "\n"


def listing() -> str:
    """`axag rule --all`: one line per rule, then the legend."""
    out = []
    for r in RULES.values():
        info = r.info
        lvl = info.level.value[0].upper() if info.level is not None else "-"
        flags = ("C" if info.compile_check else " ") + ("*" if info.fix.value != "never" else " ")
        out.append(f"{info.id}  {info.severity.value:<7}  {lvl}  {flags}  {info.name}\n")
    return "".join(out) + LEGEND
