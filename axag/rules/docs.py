"""Rule documentation generated from the declarations: `axag rule CODE`, `axag rule --all` and the rule
reference docs/rules.md (`tests/docs/test_rules_page.py` keeps it equal to `markdown()`)."""

from __future__ import annotations

from axag.rules.catalogue import RULES
from axag.rules.declare import Rule

__all__ = ["LEGEND", "explain", "listing", "markdown"]

LEGEND = """
Columns: code, default severity, level, flags, name.
Level: B basic, I intermediate, F full (the rule runs at that --level and above), - compile only.
Flags: C compile check (an error stops axag compile), * fixable with axag lint --fix.
Run axag rule CODE for what a rule checks, with a failing and a passing example.
"""


_FIX_WORDS = {"never": "no", "sometimes": "sometimes", "always": "yes"}


def _severity(r: Rule) -> str:
    return r.info.severity.value + (f"/{r.alt_severity.value}" if r.alt_severity else "")


def _fix(r: Rule) -> str:
    fix = _FIX_WORDS[r.info.fix.value]
    return fix + (f" ({r.fix_text})" if r.fix_text else "")


def explain(code: int) -> str:
    """The explanation of a rule as `axag rule CODE` prints it (also shown by the html report)."""
    r = RULES[code]
    info = r.info
    level = info.level.value if info.level is not None else "compile only"
    if info.off_by_default:
        level += " (off by default)"
    lines = [
        f"{info.id} ({info.name})",
        f"  severity:      {_severity(r)}",
        f"  level:         {level}",
        f"  compile check: {'yes' if info.compile_check else 'no'}",
        f"  fix:           {_fix(r)}",
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


_MD_SPECIAL = str.maketrans({"|": "\\|", "\\": "\\\\", "*": "\\*", "_": "\\_", "<": "&lt;", ">": "&gt;",
                             "&": "&amp;"})


def _cell(text: str) -> str:
    """``text`` in a Markdown table cell: `code` spans kept (their | escaped, as tables need), the rest escaped."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans
        return text.translate(_MD_SPECIAL).replace("`", "\\`")
    return "`".join(p.replace("|", "\\|") if i % 2 else p.translate(_MD_SPECIAL) for i, p in enumerate(parts))


def markdown() -> str:
    """docs/rules.md: every rule in one table, as `axag rule` describes it."""
    rows = [
        "# Rules",
        "",
        "<!-- Generated from the rule declarations (axag/rules/); do not edit. Rewrite it with",
        "     python scripts/generate_docs.py -->",
        "",
        "`axag rule CODE` prints one rule with its messages and a failing and a passing example. Level: the",
        "`--level` from which the rule runs (compile only: `axag compile` and its targets). Compile check: an",
        "error stops `axag compile`. Below the table, each rule with its messages and examples.",
        "",
        "| Code | Name | Severity | Level | Compile check | Fix | Reports |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in RULES.values():
        info = r.info
        level = info.level.value if info.level is not None else "compile only"
        if info.off_by_default:
            level += " (off by default)"
        if info.needs:
            level += f", needs --{info.needs}"
        cells = [info.id, info.name, _severity(r), level, "yes" if info.compile_check else "no", _fix(r),
                 r.explanation]
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    for r in RULES.values():
        rows += _section(r)
    return "\n".join(rows) + "\n"


def _section(r: Rule) -> list[str]:
    """One rule's section of docs/rules.md: what it reports, its messages, a failing and a passing example."""
    info = r.info
    out = ["", f"## {info.id} {info.name}", "", "Reports: " + _cell(r.explanation) + ".", ""]
    messages = list(r.messages.values())
    if messages:
        out += ["Messages:" if len(messages) > 1 else "Message:", ""]
        out += ["- `" + m.replace("`", "'") + "`" for m in messages]
        out.append("")
    for title, example in (("Fails", r.fails), ("Passes", r.passes)):
        if example:
            out += [f"{title}:", "", "```html", *example.splitlines(), "```", ""]
    return out[:-1] if out[-1] == "" else out
