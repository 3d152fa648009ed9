"""`gitlab` format (output formats): a GitLab Code Quality report (JSON array)."""

from __future__ import annotations

from typing import Any

from axag.outcome.findings import Finding, RunReport
from axag.report import machine_path, sorted_findings
from axag.report.json_ import dumps

_SEVERITY = {"info": "info", "warning": "minor", "error": "major"}


def issue(f: Finding) -> dict[str, Any]:
    return {
        "description": f"{f.id} {f.message}",
        "check_name": f.id,
        "fingerprint": f.fingerprint,
        "severity": _SEVERITY[f.severity.value],
        "location": {
            "path": machine_path(f),
            "positions": {
                "begin": {"line": f.line, "column": f.column},
                "end": {"line": f.end_line, "column": f.end_column},
            },
        },
    }


def render(run: RunReport, *, color: bool = False, quiet: bool = False) -> str:
    return dumps([issue(f) for f in sorted_findings(run.findings)])
