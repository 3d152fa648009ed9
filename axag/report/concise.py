"""`concise` format (output formats): ``{path}:{line}:{col}: {code} [*] {message}`` per finding, then the summary."""

from __future__ import annotations

from axag.outcome.findings import Finding, RunReport
from axag.report import SEVERITY_STYLE, Line, emit, escape_text, sorted_findings, summary_lines


def render(run: RunReport, *, color: bool = False, quiet: bool = False) -> str:
    lines: list[Line] = [finding_line(f) for f in sorted_findings(run.findings)]
    if not quiet:
        lines.extend([(s, "bold")] for s in summary_lines(run))
    return emit(lines, color=color)


def finding_line(f: Finding) -> Line:
    line: Line = [(f"{escape_text(f.path)}:{f.line}:{f.column}:", "bold"), (" ", "")]
    line.append((f.id, SEVERITY_STYLE[f.severity.value]))
    if f.fixable:
        line.append((" [*]", "cyan"))
    line.append((f" {escape_text(f.message)}", ""))
    return line
