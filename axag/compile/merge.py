"""Merge the contracts of a whole run (SPEC §9.2): identical duplicate intents merge into one tool with
every source; differing ones are 121; tool-name collisions are 122."""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

from axag.compile.contract import ToolContract
from axag.findings import Finding, Severity, fingerprint
from axag.rules.catalogue import RULES, format_message


def _without_sources(tool: dict[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in tool["_meta"]["org.axag/action"].items() if k != "sources"}
    return {**tool, "_meta": {"org.axag/action": meta}}


def contract_key(tool: dict[str, Any]) -> str:
    """The identity of a contract: the SHA-256 of its JSON text without sources (equality of JSON values, 1 and
    true differ, in output key order). A digest, not the text: keys travel from worker processes and are kept
    per distinct contract for the whole run."""
    text = json.dumps(_without_sources(tool), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


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


class ContractIndex:
    """Contracts of a run, folded in file by file so that memory grows with the number of distinct
    contracts, not with the number of pages: per intent, one contract per distinct contract text (kept
    packed, as one pickled string, until the run is merged) and the sources of every element that
    declared it."""

    def __init__(self) -> None:
        # intent -> key -> (packed contract, [(source, (display, repo_path))])
        self.by_intent: dict[str, dict[str, tuple[PackedContract, list[tuple[tuple[str, int, int], tuple[str, str]]]]]] = {}

    def add(self, outcome: Any) -> None:
        where = (outcome.display, outcome.repo_path)
        for contract, has_errors in outcome.contracts:
            if has_errors:
                continue
            if isinstance(contract, SeenContract):
                # a worker sent this contract in full with an earlier file (outcomes arrive in file order)
                self.by_intent[contract.intent][contract.key][1].append((contract.source, where))
                continue
            packed = contract if isinstance(contract, PackedContract) else PackedContract.pack(contract)
            variants = self.by_intent.setdefault(packed.intent, {})
            entry = variants.get(packed.key)
            if entry is None:
                variants[packed.key] = (packed, [(packed.source, where)])
            else:
                entry[1].append((packed.source, where))
        outcome.contracts = []


class PackedContract:
    """A contract as one pickled string (a few hundred bytes instead of a tree of dicts, kept for the whole
    run), with what folding needs in the clear: intent, key and its source. Workers send contracts so."""

    __slots__ = ("blob", "intent", "key", "name", "source")

    def __init__(self, intent: str, key: str, name: str, source: tuple[str, int, int], blob: bytes) -> None:
        self.intent, self.key, self.name, self.source, self.blob = intent, key, name, source, blob

    @classmethod
    def pack(cls, contract: ToolContract) -> PackedContract:
        import pickle

        key = contract.key or contract_key(contract.tool)
        return cls(str(contract.meta["intent"]), key, contract.name, contract.sources[0],
                   pickle.dumps(contract, pickle.HIGHEST_PROTOCOL))

    def unpack(self) -> ToolContract:
        import pickle

        contract: ToolContract = pickle.loads(self.blob)
        contract.tool = _shared_strings(contract.tool)
        return contract


def _shared_strings(value: Any) -> Any:
    """JSON data with its keys and short string values interned: unpickled contracts would otherwise each
    hold their own copies of "type", "description", "string", ... (a thousand tools hold them once)."""
    if isinstance(value, dict):
        return {sys.intern(k): _shared_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shared_strings(v) for v in value]
    if isinstance(value, str) and len(value) <= 32:
        return sys.intern(value)
    return value

    def __reduce__(self) -> tuple[Any, ...]:
        return PackedContract, (self.intent, self.key, self.name, self.source, self.blob)


class SeenContract:
    """What a worker process sends for a contract it has sent in full already: intent, key and the source."""

    __slots__ = ("intent", "key", "source")

    def __init__(self, intent: str, key: str, source: tuple[str, int, int]) -> None:
        self.intent, self.key, self.source = intent, key, source

    def __reduce__(self) -> tuple[Any, ...]:
        return SeenContract, (self.intent, self.key, self.source)


def shrink_repeats(outcome: Any, sent: set[tuple[str, str]]) -> None:
    """In a worker: contracts go out packed (`PackedContract`), and those this worker has sent before (same
    intent and key) as `SeenContract`s, so that a header repeated on every page crosses the process boundary
    once per worker. Contracts of actions with errors take no part in merging and stay behind."""
    if not outcome.contracts:
        return
    items: list[tuple[Any, bool]] = []
    for contract, has_errors in outcome.contracts:
        if has_errors:
            continue
        packed_ident = (str(contract.meta["intent"]), contract.key or contract_key(contract.tool))
        if packed_ident in sent:
            items.append((SeenContract(packed_ident[0], packed_ident[1], contract.sources[0]), False))
            continue
        sent.add(packed_ident)
        items.append((PackedContract.pack(contract), False))
    outcome.contracts = items


class _Where:
    def __init__(self, where: tuple[str, str]) -> None:
        self.display, self.repo_path = where


def merge_contracts(run: Any, request: Any, *, want_tools: bool = True) -> tuple[list[Finding], list[ToolContract]]:
    """Returns (121/122 findings, merged tools sorted by name). Contracts of actions with error
    findings take no part (they are reported already). ``want_tools=False`` (lint): only the findings;
    contracts are then unpacked only where two of them differ."""
    index: ContractIndex | None = getattr(run, "contracts", None)
    if index is None:
        index = ContractIndex()
        for outcome in run.outcomes:
            index.add(outcome)
    findings: list[Finding] = []
    # (name, first source, intent, merged contract or None, where)
    merged: list[tuple[str, tuple[str, int, int], str, ToolContract | None, _Where]] = []
    for intent, variants in sorted(index.by_intent.items()):
        # the first element: the smallest (file, line, column) of all
        first_key, (packed, first_sources) = min(variants.items(), key=lambda kv: min(s for s, _ in kv[1][1]))
        f = min(s for s, _ in first_sources)
        if len(variants) > 1:
            base = _without_sources(packed.unpack().tool)
            later: list[tuple[tuple[str, int, int], tuple[str, str], str]] = []
            for key, (other, sources) in variants.items():
                if key == first_key:
                    continue
                diff = first_difference(base, _without_sources(other.unpack().tool))
                later.extend((src, where, diff) for src, where in sources)
            for src, where, diff in sorted(later):
                findings.append(_finding(121, _Where(where), src, intent=intent, file=f[0], line=f[1], col=f[2],
                                         _anchor=intent, first_difference=diff))
            continue
        srcs = sorted({s for s, _ in first_sources})
        where = min(first_sources)[1]
        result = None
        if want_tools:
            first = packed.unpack()
            # a new dict along the path to "sources" only: contracts are never modified in place after they
            # are built (the targets copy what they emit)
            meta = first.tool["_meta"]
            action = {**meta["org.axag/action"],
                      "sources": [{"file": s[0], "line": s[1], "column": s[2]} for s in srcs]}
            tool = {**first.tool, "_meta": {**meta, "org.axag/action": action}}
            result = ToolContract(tool=tool, declared_description=first.declared_description,
                                  declared_required_parameters=first.declared_required_parameters,
                                  params=first.params, sources=srcs, declared=first.declared, origin=where)
        merged.append((packed.name, srcs[0], intent, result, _Where(where)))
    # tool-name collisions (122)
    by_name: dict[str, list[tuple[str, tuple[str, int, int], str, ToolContract | None, _Where]]] = {}
    for item in merged:
        by_name.setdefault(item[0].replace("-", "_"), []).append(item)
    tools: list[ToolContract] = []
    for items in by_name.values():
        if len(items) == 1:
            if items[0][3] is not None:
                tools.append(items[0][3])
            continue
        items.sort(key=lambda it: it[1])
        _, fs, first_intent, _, _ = items[0]
        for name, source, intent, _, where_ in items[1:]:
            findings.append(_finding(122, where_, source, name=name, other=first_intent, file=fs[0], line=fs[1],
                                     col=fs[2], _anchor=intent))
    tools.sort(key=lambda c: c.name)
    return findings, tools
