"""`full` format (output formats): a code frame per finding, then the summary.

    error[AXAG-LINT-004]: Invalid axag-action-type="reed". Must be one of: read, write, delete, navigate
     --> pages/cart.html:3:48
      |
    2 | <form>
    3 |   <button axag-intent="cart.clear" axag-action-type="reed">Clear</button>
      |                                                     ^^^^
    4 | </form>
      |
      = help: did you mean "read"?
      = fix: Replace "reed" with "read" (run axag lint --fix)
"""

from __future__ import annotations

from collections.abc import Iterator

from axag.outcome.findings import Finding, RunReport
from axag.report import (
    SEVERITY_STYLE,
    Line,
    display_source,
    emit,
    escape_text,
    sorted_findings,
    summary_lines,
)

GUTTER = "bold blue"


def render(run: RunReport, *, color: bool = False, quiet: bool = False) -> str:
    blocks: list[list[Line]] = [finding_block(f) for f in sorted_findings(run.findings)]
    if not quiet:
        blocks.append([[(s, "bold")] for s in summary_lines(run)])
    lines: list[Line] = []
    for i, block in enumerate(blocks):
        if i:
            lines.append([])
        lines.extend(block)
    return emit(lines, color=color)


def render_chunks(run: RunReport, *, color: bool = False, quiet: bool = False) -> Iterator[str]:
    """The text of `render`, block by block when plain (a long report is never held whole in memory)."""
    if color:
        yield render(run, color=color, quiet=quiet)
        return
    first = True
    for f in sorted_findings(run.findings):
        yield ("" if first else "\n") + emit(finding_block(f), color=False)
        first = False
    if not quiet:
        yield ("" if first else "\n") + emit([[(s, "bold")] for s in summary_lines(run)], color=False)


def _frame_rows(f: Finding) -> list[tuple[int, str]]:
    """Context rows to show: one line before the span, its first line, and one line after that."""
    if f.line < 1:
        return []
    return [(n, text) for n, text in f.context if f.line - 1 <= n <= f.line + 1]


def finding_block(f: Finding) -> list[Line]:
    sev = f.severity.value
    style = SEVERITY_STYLE[sev]
    out: list[Line] = [[(sev, style), (f"[{f.id}]", style), (": ", ""), (escape_text(f.message), "bold")]]
    where = escape_text(f.path)
    if f.line >= 1:
        where += f":{f.line}:{f.column}"
    out.append([(" --> ", GUTTER), (where, "")])

    rows = _frame_rows(f)
    notes: list[Line] = []
    width = max((len(str(n)) for n, _ in rows), default=1)
    pad = " " * width
    if f.help:
        notes.append([(f"{pad} = ", GUTTER), ("help", "bold"), (f": {escape_text(f.help)}", "")])
    if f.fix is not None:
        desc = escape_text(f.fix.description)
        how = "--fix --unsafe-fixes" if f.fix.unsafe else "--fix"
        notes.append([(f"{pad} = ", GUTTER), ("fix", "bold"), (f": {desc} (run axag lint {how})", "")])
    if rows:
        out.append([(f"{pad} |", GUTTER)])
        for n, text in rows:
            shown, starts = display_source(text)
            out.append([(f"{n:>{width}} |", GUTTER), ((" " + shown) if shown else "", "")])
            if n == f.line:
                out.append([(f"{pad} |", GUTTER), *_underline(f, text, starts, style)])
        if notes:
            out.append([(f"{pad} |", GUTTER)])
    out.extend(notes)
    return out


def _underline(f: Finding, text: str, starts: list[int], style: str) -> Line:
    """Carets under columns ``[column, end_column)`` of the first line, ``…`` when the span goes on."""
    n = len(text)
    first = min(max(f.column, 1), n + 1) - 1  # 0-based code point index, clamped to the line
    multi = f.end_line > f.line
    last = n if multi else min(max(f.end_column - 1, first), n)
    indent = starts[first]
    carets = max(starts[last] - indent, 1)
    segs: Line = [(" " + " " * indent, ""), ("^" * carets, style)]
    if multi:
        segs.append(("…", style))
    return segs
