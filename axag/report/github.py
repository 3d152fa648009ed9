"""`github` format (output formats): GitHub Actions workflow commands, one per finding.

``::error file={path},line={l},endLine={el},col={c},endColumn={ec},title=axag ({code})::{path}:{l}:{c}: {code} {message}``
"""

from __future__ import annotations

from axag.outcome.findings import Finding, RunReport
from axag.report import machine_path, sorted_findings

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """The message part: ``%``, CR and LF."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value: as data, plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(f: Finding) -> str:
    path = machine_path(f)
    props = [("file", path)]
    if f.line >= 1:
        props += [("line", str(f.line)), ("endLine", str(f.end_line))]
        if f.end_line == f.line:
            props += [("col", str(f.column)), ("endColumn", str(f.end_column))]
    props.append(("title", f"axag ({f.id})"))
    head = ",".join(f"{k}={escape_property(v)}" for k, v in props)
    message = f"{path}:{f.line}:{f.column}: {f.id} {f.message}"
    return f"::{_LEVEL[f.severity.value]} {head}::{escape_data(message)}\n"


def render(run: RunReport, *, color: bool = False, quiet: bool = False) -> str:
    return "".join(command(f) for f in sorted_findings(run.findings))
