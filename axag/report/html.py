"""`html` format: one self-contained page (inline CSS and script, no external assets).

The page shows a summary by severity, rule and file, then every finding with the code frame of `full`, its
help and fix hint and the rule's explanation (as `axag rule` prints it). Filters (severity, rule, file, text),
sorting and paging are a progressive enhancement: the findings are embedded once as JSON (escaped for a
``<script>`` element) and drawn a page at a time with DOM text nodes, so that a report of 50,000 findings
opens quickly and its size grows linearly. Without JavaScript the summary tables and the first
``NOSCRIPT_LIMIT`` findings are rendered on the server.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from axag.outcome.findings import Finding, RunReport
from axag.report import escape_text, machine_path, rule_name, sorted_findings, summary_lines, tool_version
from axag.report.full import finding_block

# findings drawn on the server (visible without JavaScript); the script draws pages of PAGE_SIZE
NOSCRIPT_LIMIT = 200
PAGE_SIZE = 100
SEVERITIES = ("error", "warning", "info")


def frame(f: Finding) -> list[list[Any]]:
    """The code frame of `full` as ``[gutter, text, is_caret]`` rows (the carets' row is marked)."""
    block = finding_block(f)
    notes = (1 if f.help else 0) + (1 if f.fix is not None else 0)
    out: list[list[Any]] = []
    for line in block[2:len(block) - notes]:
        rest = "".join(t for t, _ in line[1:])
        out.append([line[0][0], rest, 1 if rest.strip().startswith("^") else 0])
    return out


def finding_data(run: RunReport, f: Finding) -> dict[str, Any]:
    """One finding for the page (short keys: the list may hold 50,000 of them)."""
    return {
        "s": f.severity.value,
        "c": f.id,
        "n": rule_name(run, f),
        "m": escape_text(f.message),
        "p": escape_text(f.path),
        "r": machine_path(f),
        "l": f.line,
        "k": f.column,
        "h": escape_text(f.help or ""),
        "x": escape_text(f"{f.fix.description} (run axag lint --fix{' --unsafe-fixes' if f.fix.unsafe else ''})")
        if f.fix is not None else "",
        "f": frame(f),
    }


def explanations(codes: list[int]) -> dict[str, str]:
    """`axag rule CODE` text for each code the catalogue knows (a report may name rules it does not)."""
    from axag.rules.catalogue import RULES
    from axag.rules.docs import explain

    return {RULES[c].info.id: explain(c) for c in codes if c in RULES}


def context(run: RunReport) -> dict[str, Any]:
    findings = sorted_findings(run.findings)
    data = [finding_data(run, f) for f in findings]
    c = run.counts()
    by_rule: dict[str, dict[str, Any]] = {}
    for f, d in zip(findings, data, strict=False):
        entry = by_rule.setdefault(f.id, {"code": f.id, "name": d["n"], "severity": d["s"], "count": 0})
        entry["count"] += 1
    by_file: dict[str, Counter[str]] = {}
    for f in findings:
        by_file.setdefault(escape_text(f.path), Counter())[f.severity.value] += 1
    explain_text = explanations(sorted({f.code for f in findings}))
    return {
        "version": tool_version(run),
        "summary": summary_lines(run),
        "counts": {"errors": c["errors"], "warnings": c["warnings"], "infos": c["infos"], "fixable": c["fixable"],
                   "files": run.files, "elements": run.elements, "actions": run.actions,
                   "suppressed": len(run.suppressed)},
        "total": len(data),
        "severities": [(s, sum(1 for d in data if d["s"] == s)) for s in SEVERITIES],
        "rules": [by_rule[k] for k in sorted(by_rule)],
        "files": [{"path": p, "error": n["error"], "warning": n["warning"], "info": n["info"],
                   "total": sum(n.values())} for p, n in sorted(by_file.items())],
        "first": data[:NOSCRIPT_LIMIT],
        "explain": explain_text,
        "page_size": PAGE_SIZE,
        "payload": {"findings": data, "explain": explain_text, "pageSize": PAGE_SIZE},
    }


def render_chunks(run: RunReport, *, color: bool = False, quiet: bool = False) -> Iterator[str]:
    from axag.report.htmlkit import render_pieces

    yield from render_pieces("lint.html.j2", **context(run))


def render(run: RunReport, *, color: bool = False, quiet: bool = False) -> str:
    return "".join(render_chunks(run))
