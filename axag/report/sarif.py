"""`sarif` format (output formats): SARIF 2.1.0, one run; suppressed findings included with ``suppressions``."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from axag.outcome.findings import Edit, Finding, RuleInfo, RunReport
from axag.report import INFORMATION_URI, all_findings, machine_path, rule_url, tool_version
from axag.report.json_ import dumps
from axag.rules.catalogue import RULES

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def rule_descriptor(info: RuleInfo) -> dict[str, Any]:
    declared = RULES.get(info.code)
    trigger = (declared.plain if declared is not None else "") or info.trigger  # plain words, citing no SPEC section
    help_text = trigger or info.message or info.name
    if info.fails:
        help_text += f"\nFails: {info.fails}"
    if info.passes:
        help_text += f"\nPasses: {info.passes}"
    tags = [info.level.value] if info.level is not None else []
    if info.compile_check:
        tags.append("compile-check")
    return {
        "id": info.id,
        "name": info.name,
        "shortDescription": {"text": info.message or trigger or info.name},
        "fullDescription": {"text": trigger or info.message or info.name},
        "help": {"text": help_text},
        "helpUri": rule_url(info.code),
        "defaultConfiguration": {"level": _LEVEL[info.severity.value]},
        "properties": {"tags": tags},
    }


def artifact(path: str) -> dict[str, Any]:
    return {"uri": quote(path, safe="/"), "uriBaseId": "%SRCROOT%"}


def _region(line: int, column: int, end_line: int, end_column: int) -> dict[str, int]:
    region = {"startLine": max(line, 1)}
    if column >= 1:
        region["startColumn"] = column
    if end_line >= 1:
        region["endLine"] = max(end_line, region["startLine"])
        if end_column >= 1:
            region["endColumn"] = end_column
    return region


def _replacement(e: Edit) -> dict[str, Any]:
    return {
        "deletedRegion": _region(e.start_line, e.start_column, e.end_line, e.end_column),
        "insertedContent": {"text": e.content},
    }


def result(f: Finding, index: dict[int, int]) -> dict[str, Any]:
    out: dict[str, Any] = {"ruleId": f.id}
    if f.code in index:
        out["ruleIndex"] = index[f.code]
    out["level"] = _LEVEL[f.severity.value]
    out["message"] = {"text": f.message}
    location: dict[str, Any] = {"artifactLocation": artifact(machine_path(f))}
    if f.line >= 1:
        location["region"] = _region(f.line, f.column, f.end_line, f.end_column)
    out["locations"] = [{"physicalLocation": location}]
    out["partialFingerprints"] = {"primaryLocationLineHash": f.fingerprint, "axagFingerprint/v1": f.fingerprint}
    if f.fix is not None:
        out["fixes"] = [
            {
                "description": {"text": f.fix.description},
                "artifactChanges": [
                    {
                        "artifactLocation": artifact(machine_path(f)),
                        "replacements": [_replacement(e) for e in f.fix.edits],
                    }
                ],
            }
        ]
    if f.suppression is not None:
        out["suppressions"] = [{"kind": f.suppression, "justification": f.justification}]
    return out


def document(run: RunReport) -> dict[str, Any]:
    rules = sorted(run.rules, key=lambda r: r.code)
    index = {info.code: i for i, info in enumerate(rules)}
    version = tool_version(run)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "axag",
                        "version": version,
                        "semanticVersion": version,
                        "informationUri": INFORMATION_URI,
                        "rules": [rule_descriptor(info) for info in rules],
                    }
                },
                "invocations": [{"executionSuccessful": run.exit_code in (0, 1), "exitCode": run.exit_code}],
                "columnKind": "unicodeCodePoints",
                "results": [result(f, index) for f in all_findings(run)],
            }
        ],
    }


def render(run: RunReport, *, color: bool = False, quiet: bool = False) -> str:
    return dumps(document(run))
