"""`junit` format (output formats): ``<testsuites>`` with one ``<testsuite>`` per file with findings.

Built with ``xml.etree`` (which escapes ``&``, ``<``, ``>``, quotes and line breaks in attributes);
characters XML 1.0 cannot carry at all (C0 controls other than TAB/LF/CR, surrogates, U+FFFE, U+FFFF)
are written as visible ``\\x1b``-style escapes, so the document is well-formed for any message.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import groupby

from axag.outcome.findings import RunReport
from axag.report import escape_char, machine_path, sorted_findings

_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    return _ILLEGAL.sub(lambda m: escape_char(m.group(0)), text)


def render(run: RunReport, *, color: bool = False, quiet: bool = False) -> str:
    findings = sorted_findings(run.findings)
    root = ET.Element("testsuites", {"name": "axag", "tests": "0", "failures": str(len(findings))})
    tests = 0
    for _, group in groupby(findings, key=lambda f: f.path):
        items = list(group)
        path = machine_path(items[0])
        suite = ET.SubElement(
            root,
            "testsuite",
            {"name": xml_text(path), "tests": str(len(items)), "failures": str(len(items))},
        )
        for f in items:
            case = ET.SubElement(
                suite, "testcase", {"classname": xml_text(path), "name": f"{f.id} {f.line}:{f.column}"}
            )
            failure = ET.SubElement(
                case, "failure", {"type": f.severity.value, "message": xml_text(f.message)}
            )
            failure.text = xml_text(f"{path}:{f.line}:{f.column}: {f.id} {f.message}")
            tests += 1
    if not findings:
        # No file names reach the reporter for clean files: one passing case stands for the clean run.
        suite = ET.SubElement(root, "testsuite", {"name": "axag", "tests": "1", "failures": "0"})
        ET.SubElement(suite, "testcase", {"classname": "axag", "name": "axag"})
        tests = 1
    root.set("tests", str(tests))
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
