"""`json` format (output formats): one document with the tool, the findings and the summary (determinism and serialisation)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from axag.compile.serialize import dumps_indented, indented_fragment
from axag.outcome.findings import Finding, RunReport
from axag.report import machine_path, rule_name, rule_url, sorted_findings, tool_version


def dumps(doc: Any) -> str:
    """determinism and serialisation: UTF-8 text, 2-space indentation, ``": "`` after keys, non-ASCII as is, one trailing newline."""
    return dumps_indented(doc) + "\n"


def finding_object(run: RunReport, f: Finding) -> dict[str, Any]:
    """The finding object shared by `json` and `json-lines`, keys in SPEC order."""
    path = machine_path(f)
    fix: dict[str, Any] | None = None
    if f.fix is not None:
        fix = {
            "description": f.fix.description,
            "edits": [
                {
                    "path": path,
                    "start": {"line": e.start_line, "column": e.start_column},
                    "end": {"line": e.end_line, "column": e.end_column},
                    "content": e.content,
                }
                for e in f.fix.edits
            ],
        }
        if f.fix.unsafe:  # a did-you-mean fix: applied with --unsafe-fixes only
            fix["applicability"] = "unsafe"
    return {
        "code": f.id,
        "name": rule_name(run, f),
        "severity": f.severity.value,
        "message": f.message,
        "path": path,
        "line": f.line,
        "column": f.column,
        "end_line": f.end_line,
        "end_column": f.end_column,
        "attribute": f.attribute,
        "fingerprint": f.fingerprint,
        "url": rule_url(f.code),
        "fix": fix,
    }


def document(run: RunReport, findings: Any = None) -> dict[str, Any]:
    """The whole document; ``findings``: a value to put in place of the finding list (`render_chunks`)."""
    c = run.counts()
    return {
        "version": 1,
        "tool": {"name": "axag", "version": tool_version(run)},
        "findings": [finding_object(run, f) for f in sorted_findings(run.findings)] if findings is None else findings,
        "summary": {
            "errors": c["errors"],
            "warnings": c["warnings"],
            "infos": c["infos"],
            "fixable": c["fixable"],
            "files": run.files,
            "elements": run.elements,
            "actions": run.actions,
            "suppressed": len(run.suppressed),
        },
    }


def render(run: RunReport, *, color: bool = False, quiet: bool = False) -> str:
    return "".join(render_chunks(run))


_HOLE = "\x00axag-findings\x00"


def render_chunks(run: RunReport, *, color: bool = False, quiet: bool = False) -> Iterator[str]:
    """The text of `render`, finding by finding: a report of many findings is never held whole in memory
    (its objects are built one at a time). The text is that of ``dumps(document(run))``."""
    head, hole, tail = dumps(document(run, findings=_HOLE)).partition(dumps_indented(_HOLE))
    assert hole, "the placeholder is in the document"
    yield head
    findings = sorted_findings(run.findings)
    if not findings:
        yield "[]"
    else:
        inner = "\n    "  # the finding list is a member of the top-level object
        sep = "[" + inner
        for f in findings:
            yield sep + indented_fragment(finding_object(run, f), inner)
            sep = "," + inner
        yield "\n  ]"
    yield tail
