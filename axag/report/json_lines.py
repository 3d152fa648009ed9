"""`json-lines` format (output formats): one finding object (as in `json`) per line, no summary.

Besides the escapes JSON requires, U+0085, U+2028 and U+2029 are written as ``\\uXXXX`` so that readers
splitting on any Unicode line break (Python's ``str.splitlines``) still see one object per line.
"""

from __future__ import annotations

import json

from axag.outcome.findings import RunReport
from axag.report import sorted_findings
from axag.report.json_ import finding_object

_LINE_BREAKS = {"\u0085": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _line(obj: object) -> str:
    text = json.dumps(obj, ensure_ascii=False)
    for ch, esc in _LINE_BREAKS.items():
        text = text.replace(ch, esc)
    return text + "\n"


def render(run: RunReport, *, color: bool = False, quiet: bool = False) -> str:
    return "".join(_line(finding_object(run, f)) for f in sorted_findings(run.findings))
