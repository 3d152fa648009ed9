"""`--statistics` (lint options): one line per rule with findings: count, code, name, ``[*]`` when fixable;
sorted by count descending, then code; then the summary."""

from __future__ import annotations

from axag.outcome.findings import RunReport, full_code
from axag.report import Line, emit, rule_name, summary_lines


def rows(run: RunReport) -> list[tuple[int, int, str, bool]]:
    """``(count, code, name, fixable)`` per rule; fixable when at least one of its findings has a fix."""
    count: dict[int, int] = {}
    fixable: dict[int, bool] = {}
    names: dict[int, str] = {}
    for f in run.findings:
        count[f.code] = count.get(f.code, 0) + 1
        fixable[f.code] = fixable.get(f.code, False) or f.fixable
        names.setdefault(f.code, rule_name(run, f))
    return sorted(
        ((n, code, names[code], fixable[code]) for code, n in count.items()),
        key=lambda r: (-r[0], r[1]),
    )


def render(run: RunReport, *, color: bool = False, quiet: bool = False) -> str:
    table = rows(run)
    count_width = max((len(str(n)) for n, *_ in table), default=1)
    name_width = max((len(name) for _, _, name, fix in table if fix), default=0)
    lines: list[Line] = []
    for n, code, name, fix in table:
        line: Line = [(f"{n:>{count_width}}", "bold"), ("  ", ""), (full_code(code), "bold red"), ("  ", "")]
        if fix:
            line += [(f"{name:<{name_width}}", ""), ("  ", ""), ("[*]", "cyan")]
        else:
            line.append((name, ""))
        lines.append(line)
    if not quiet:
        if lines:
            lines.append([])
        lines.extend([(s, "bold")] for s in summary_lines(run))
    return emit(lines, color=color)
