"""Merge the contracts of a whole run (SPEC §9.2): identical duplicate intents merge into one tool with
every source; differing ones are 121; tool-name collisions are 122."""

from __future__ import annotations

import copy
import json
from typing import Any

from axag.compile.contract import ToolContract
from axag.findings import Finding, Severity, fingerprint
from axag.rules.catalogue import RULES, format_message


def _without_sources(tool: dict[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in tool["_meta"]["org.axag/action"].items() if k != "sources"}
    return {**tool, "_meta": {"org.axag/action": meta}}


def _contract_key(tool: dict[str, Any]) -> str:
    """The contract as JSON text: equality of JSON values (1 and true differ), in output key order."""
    return json.dumps(_without_sources(tool), ensure_ascii=False, separators=(",", ":"))


def first_difference(a: Any, b: Any, pointer: str = "") -> str:
    """JSON Pointer of the first key (in output key order) at which ``a`` and ``b`` differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = list(a) + [k for k in b if k not in a]
        for k in keys:
            esc = str(k).replace("~", "~0").replace("/", "~1")
            if k not in a or k not in b:
                return f"{pointer}/{esc}"
            if json.dumps(a[k]) != json.dumps(b[k]):
                return first_difference(a[k], b[k], f"{pointer}/{esc}")
        return pointer or "/"
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if json.dumps(x) != json.dumps(y):
                return first_difference(x, y, f"{pointer}/{i}")
        return f"{pointer}/{min(len(a), len(b))}"
    return pointer or "/"


def _finding(code: int, outcome: Any, src: tuple[str, int, int], **args: Any) -> Finding:
    meta = RULES[code]
    line, col = src[1], src[2] + 1  # the tag name after '<'
    anchor = args.pop("_anchor", "")
    return Finding(code=code, severity=Severity.ERROR, message=format_message(code, **args), path=outcome.display,
                   repo_path=outcome.repo_path, line=line, column=col, end_line=line, end_column=col,
                   name=meta.info.name, anchor=anchor,
                   fingerprint=fingerprint(code, outcome.repo_path, anchor, None, 0))


def merge_contracts(run: Any, request: Any) -> tuple[list[Finding], list[ToolContract]]:
    """Returns (121/122 findings, merged tools sorted by name). Contracts of actions with error
    findings take no part (they are reported already)."""
    by_intent: dict[str, list[tuple[ToolContract, Any]]] = {}
    for outcome in run.outcomes:
        for contract, has_errors in outcome.contracts:
            if has_errors:
                continue
            by_intent.setdefault(contract.meta["intent"], []).append((contract, outcome))
    findings: list[Finding] = []
    merged: list[tuple[ToolContract, Any]] = []
    for intent, items in sorted(by_intent.items()):
        items.sort(key=lambda it: it[0].sources[0])
        first, first_out = items[0]
        base_key = _contract_key(first.tool)
        sources = list(first.sources)
        conflict = False
        for contract, outcome in items[1:]:
            if _contract_key(contract.tool) == base_key:
                sources.extend(contract.sources)
                continue
            conflict = True
            f = first.sources[0]
            diff = first_difference(_without_sources(first.tool), _without_sources(contract.tool))
            findings.append(_finding(121, outcome, contract.sources[0], intent=intent, file=f[0], line=f[1],
                                     col=f[2], _anchor=intent, first_difference=diff))
        if conflict:
            continue
        tool = copy.deepcopy(first.tool)
        srcs = sorted(set(sources))
        tool["_meta"]["org.axag/action"]["sources"] = [{"file": s[0], "line": s[1], "column": s[2]} for s in srcs]
        result = ToolContract(tool=tool, declared_description=first.declared_description,
                              declared_required_parameters=first.declared_required_parameters,
                              params=first.params, sources=srcs, declared=first.declared)
        merged.append((result, first_out))
    # tool-name collisions (122)
    by_name: dict[str, list[tuple[ToolContract, Any]]] = {}
    for contract, outcome in merged:
        by_name.setdefault(contract.name.replace("-", "_"), []).append((contract, outcome))
    tools: list[ToolContract] = []
    for items in by_name.values():
        if len(items) == 1:
            tools.append(items[0][0])
            continue
        items.sort(key=lambda it: it[0].sources[0])
        first = items[0][0]
        fs = first.sources[0]
        for contract, outcome in items[1:]:
            findings.append(_finding(122, outcome, contract.sources[0], name=contract.name,
                                     other=first.meta["intent"], file=fs[0], line=fs[1], col=fs[2],
                                     _anchor=contract.meta["intent"]))
    tools.sort(key=lambda c: c.name)
    return findings, tools
