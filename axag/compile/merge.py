"""Merge the contracts of a whole run (tool naming and duplicates): identical duplicate intents merge into one tool with
every source; differing ones are 121; tool-name collisions are 122."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import replace
from functools import lru_cache
from typing import Any

from axag.compile.contract import ToolContract
from axag.files.spans import LineIndex, context_rows
from axag.outcome.findings import Finding
from axag.rules.run_level import conflicting_contract, tool_name_collision


def _without_sources(tool: dict[str, Any]) -> dict[str, Any]:
    """The tool without what differs between the pages of one action: its sources and its binding's page."""
    wrapper = tool["_meta"]
    meta = {k: v for k, v in wrapper["org.axag/action"].items() if k != "sources"}
    out = {"org.axag/action": meta}
    http = wrapper.get("org.axag/http")
    if isinstance(http, dict):
        # a form without action submits to its own page: the same action on every page that has it
        own = f"/{str(http.get('page', '')).lstrip('/')}"
        same = {k: v for k, v in http.items() if k != "page" and not (k == "action" and v == own)}
        form = same.get("form")
        if isinstance(form, dict) and form.get("action") == own:  # so is its locator's
            same["form"] = {k: v for k, v in form.items() if k != "action"}
        out["org.axag/http"] = same
    return {**tool, "_meta": out}


def binding_page(tool: dict[str, Any]) -> str | None:
    """The page a tool's HTTP binding names: the one part of a contract that differs between the pages of one
    action and is kept with it. The merged tool takes the contract of its first source (smallest file, line,
    column), whatever order workers deliver contracts in, so a contract with a page is never replaced by
    another page's (`shrink_repeats`, `ContractIndex.add`)."""
    http = tool.get("_meta", {}).get("org.axag/http")
    page = http.get("page") if isinstance(http, dict) else None
    return page if isinstance(page, str) else None


def contract_key(tool: dict[str, Any]) -> str:
    """The identity of a contract: the SHA-256 of its JSON text without sources (equality of JSON values, 1 and
    true differ, in output key order). A digest, not the text: keys travel from worker processes and are kept
    per distinct contract for the whole run."""
    import hashlib  # on use: a run served by the result cache makes no contract (cold start)

    from axag.compile.contract import output_schema

    shared = output_schema()
    bare = _without_sources(tool)
    text = None
    if bare.get("outputSchema") is shared:
        # the text json.dumps gives, the output schema every tool shares (most of a tool's text) written once
        # per run and put in the place of a placeholder
        holed = _compact({**bare, "outputSchema": _SCHEMA_HOLE})
        hole = _compact(_SCHEMA_HOLE)
        if holed.count(hole) == 1:
            before, _hole, after = holed.partition(hole)
            text = before + _shared_text(shared) + after
    if text is None:
        text = _compact(bare)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_SHARED_TEXT: dict[int, tuple[Any, str]] = {}


def _shared_text(value: Any) -> str:
    """`_compact` of the one output schema object (kept with it, so that a reused id never finds it)."""
    got = _SHARED_TEXT.get(id(value))
    if got is None or got[0] is not value:
        got = _SHARED_TEXT[id(value)] = (value, _compact(value))
    return got[1]


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


class ContractIndex:
    """Contracts of a run, folded in file by file so that memory grows with the number of distinct
    contracts, not with the number of pages: per intent, one contract per distinct contract text (kept
    packed, as one pickled string, until the run is merged) and the sources of every element that
    declared it."""

    def __init__(self, fragments: bool = True) -> None:
        self.fragments = fragments  # make the tool texts of the mcp document (compile) when packing
        # intent -> key -> (packed contract, [(source, (display, repo_path))])
        self.by_intent: dict[str, dict[str, tuple[PackedContract, list[tuple[tuple[str, int, int], tuple[str, str]]]]]] = {}

    def add(self, outcome: Any, *, squeeze: bool = True) -> None:
        """``squeeze``: compile compresses the contracts it keeps (`PackedContract.squeezed`); not those of a
        cache hit, which a warm run would otherwise compress all over again."""
        where = (outcome.display, outcome.repo_path)
        for contract, has_errors in outcome.contracts:
            if has_errors:
                continue
            if isinstance(contract, SeenContract):
                # a worker sent this contract in full with an earlier file (outcomes arrive in file order)
                self.by_intent[contract.intent][contract.key][1].append((contract.source, where))
                continue
            if isinstance(contract, PackedContract):
                intent, key, source = contract.intent, contract.key, contract.source
            else:
                intent, source = str(contract.meta["intent"]), contract.sources[0]
                key = contract.key or contract_key(contract.tool)
            variants = self.by_intent.setdefault(intent, {})
            entry = variants.get(key)
            if entry is None:  # a new contract: kept packed (a repeated one only adds its source)
                variants[key] = (self._kept(contract, squeeze), [(source, where)])
            else:
                entry[1].append((source, where))
                if source < entry[0].source:  # the contract of the first source is kept (its binding's page)
                    variants[key] = (self._kept(contract, squeeze), entry[1])
        outcome.contracts = []

    def _kept(self, contract: Any, squeeze: bool) -> PackedContract:
        """A contract as the index keeps it: packed, and for compile (which keeps every distinct tool to the
        end) compressed."""
        packed = contract if isinstance(contract, PackedContract) else PackedContract.pack(
            contract, fragment=self.fragments)
        return packed.squeezed() if self.fragments and squeeze else packed


CONTRACT_CLASSES = frozenset({("axag.compile.contract", "ToolContract"), ("axag.compile.contract", "ManifestParam")})


class PackedContract:
    """A contract as one pickled string (a few hundred bytes instead of a tree of dicts, kept for the whole
    run), with what folding needs in the clear: intent, key and its source. Workers send contracts so. The
    output schema every tool shares is left out of the pickle and of the tool text (put back when they are
    used); compile keeps the contracts it merges compressed (`squeezed`)."""

    __slots__ = ("blob", "fragment", "intent", "key", "name", "page", "source")

    def __init__(self, intent: str, key: str, name: str, source: tuple[str, int, int], blob: bytes,
                 fragment: bytes | None = None, page: str | None = None) -> None:
        self.intent, self.key, self.name, self.source, self.blob = intent, key, name, source, blob
        # the tool as written in an mcp document (`mcp_fragment`): a flag byte (_HOLED, _SQUEEZED), then UTF-8
        self.fragment = fragment
        self.page = page  # the page its HTTP binding names (not part of the key: see `binding_page`)

    @classmethod
    def pack(cls, contract: ToolContract, *, fragment: bool = True) -> PackedContract:
        """``fragment``: also make its tool text (for compile; lint only merges to find 121 and 122)."""
        import pickle

        from axag.compile.contract import output_schema

        key = contract.key or contract_key(contract.tool)
        kept = contract
        if contract.tool.get("outputSchema") is output_schema():  # every tool's: not pickled with each one
            kept = replace(contract, tool={**contract.tool, "outputSchema": _SCHEMA_HOLE})
        text = _fragment(contract) if fragment else None
        return cls(str(contract.meta["intent"]), key, contract.name, contract.sources[0],
                   pickle.dumps(kept, pickle.HIGHEST_PROTOCOL),
                   None if text is None else bytes((_HOLED if text[1] else 0,)) + text[0].encode("utf-8", "surrogatepass"),
                   binding_page(contract.tool))

    def squeezed(self) -> PackedContract:
        """This contract compressed (`squeeze`): how compile keeps the contracts it merges (memory that grows
        with the number of distinct tools)."""
        blob = self.blob if self.blob[:1] == b"x" else squeeze(self.blob)
        fragment = self.fragment
        if fragment is not None and not fragment[0] & _SQUEEZED:
            fragment = bytes((fragment[0] | _SQUEEZED,)) + squeeze(fragment[1:])
        if blob is self.blob and fragment is self.fragment:
            return self
        return PackedContract(self.intent, self.key, self.name, self.source, blob, fragment, self.page)

    def unpack(self) -> ToolContract:
        import pickle
        import zlib

        from axag.files.restricted_pickle import loads_only

        try:  # squeezed (zlib data starts with 0x78) or a plain pickle (protocol 2 and later start with 0x80)
            data = unsqueeze(self.blob) if self.blob[:1] == b"x" else self.blob
        except zlib.error as exc:  # a damaged blob (from a forged cache entry) is refused like a forged pickle
            raise pickle.UnpicklingError(f"not a packed contract: {exc}") from None
        # only contract classes: a packed contract may come from the result cache, a folder of the project
        contract: ToolContract = loads_only(data, CONTRACT_CLASSES)
        contract.tool = _shared_strings(contract.tool)
        if contract.tool.get("outputSchema") == _SCHEMA_HOLE:
            from axag.compile.contract import output_schema

            contract.tool["outputSchema"] = output_schema()
        return contract

    def tool_text(self) -> str | None:
        """The tool text made with the contract (`mcp_fragment`), or None."""
        if self.fragment is None:
            return None
        flags, data = self.fragment[0], self.fragment[1:]
        text = (unsqueeze(data) if flags & _SQUEEZED else data).decode("utf-8", "surrogatepass")
        if not flags & _HOLED:
            return text
        before, _hole, after = text.partition(_schema_hole_text())
        return before + _shared_schema_text() + after

    def __reduce__(self) -> tuple[Any, ...]:
        return PackedContract, (self.intent, self.key, self.name, self.source, self.blob, self.fragment, self.page)


_HOLED, _SQUEEZED = 1, 2  # the flags of a packed tool text: the shared output schema left out; compressed


_ZDICT: bytes | None = None
_PACKER: Any = None  # a compressor primed with the dictionary: each contract gets a copy (cheaper than priming)


def _zdict() -> bytes:
    """The preset dictionary of packed contracts: the pickle and the tool text of a typical tool. Every tool
    repeats the envelope's output schema, the same keys and the same hints, so that with it a packed contract
    takes a sixth of its size (memory that grows with the number of distinct tools)."""
    global _ZDICT
    if _ZDICT is None:
        import pickle

        from axag.compile.contract import INPUT_SCHEMA_URI, output_schema
        from axag.compile.serialize import indented_fragment

        tool = {
            "name": "entity_action", "title": "Entity Action", "description": "Risk level: low.\nScope: user.",
            "inputSchema": {"$schema": INPUT_SCHEMA_URI, "type": "object",
                            "properties": {"name": {"type": "string", "description": "Name"}},
                            "required": ["name"], "additionalProperties": False},
            "outputSchema": output_schema(),
            "annotations": {"title": "Entity Action", "readOnlyHint": False, "destructiveHint": False,
                            "idempotentHint": True, "openWorldHint": True},
            "_meta": {"org.axag/action": {"intent": "entity.action", "entity": "entity", "action_type": "write",
                                          "risk_level": "low", "idempotent": True, "scope": "user",
                                          "sources": _SOURCES_HOLE}},
        }
        text = indented_fragment(tool, _TOOL_NEWLINE, document=True)
        _ZDICT = pickle.dumps(ToolContract(tool=tool), pickle.HIGHEST_PROTOCOL) + text.encode("utf-8")
    return _ZDICT


def squeeze(data: bytes) -> bytes:
    """``data`` compressed (zlib, fastest level) with the preset dictionary of contracts."""
    import zlib

    global _PACKER
    if _PACKER is None:
        _PACKER = zlib.compressobj(1, zdict=_zdict())
    packer = _PACKER.copy()
    out: bytes = packer.compress(data) + packer.flush()
    return out


def unsqueeze(data: bytes) -> bytes:
    import zlib

    unpacker = zlib.decompressobj(zdict=_zdict())
    return unpacker.decompress(data) + unpacker.flush()


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


# The tool text of the default target is made where the contract is built (in parallel, in the workers) with a
# placeholder for its sources; writing the document then only puts each merged tool's sources in.
_TOOL_NEWLINE = "\n    "  # a tool in the "tools" array of an mcp document
_SOURCES_NEWLINE = "\n          "  # its /_meta/org.axag~1action/sources array
_SOURCES_HOLE = [{"file": "\x00axag-sources\x00", "line": 1, "column": 1}]


@lru_cache(maxsize=1)
def _hole_text() -> str:
    """The placeholder's text in a tool text (made once: every tool text is checked for it)."""
    from axag.compile.serialize import indented_fragment

    return indented_fragment(_SOURCES_HOLE, _SOURCES_NEWLINE, document=True)


def mcp_fragment(contract: ToolContract) -> str | None:
    """The contract's tool as `dumps` writes it in the tools array of an mcp document, sources left as a
    placeholder; None when its structure is not valid (then the document is built and checked whole, which
    reports the problem with its place)."""
    made = _fragment(contract)
    if made is None or not made[1]:
        return None if made is None else made[0]
    before, _hole, after = made[0].partition(_schema_hole_text())
    return before + _shared_schema_text() + after


def _fragment(contract: ToolContract) -> tuple[str, bool] | None:
    """`mcp_fragment` as (text, holed): holed, the text has a placeholder where the output schema every tool
    shares goes (`_shared_schema_text`, written once per run; it is most of a tool's text)."""
    from axag.compile.contract import output_schema
    from axag.compile.serialize import indented_fragment
    from axag.compile.targets.mcp import check_mcp_tool

    tool = contract.tool
    meta = tool.get("_meta")
    if not isinstance(meta, dict):
        return None
    action = meta.get("org.axag/action")
    if not isinstance(action, dict) or "sources" not in action:
        return None
    holed = {**tool, "_meta": {**meta, "org.axag/action": {**action, "sources": _SOURCES_HOLE}}}
    if check_mcp_tool(holed, 0):
        return None
    if holed.get("outputSchema") is output_schema():
        text = indented_fragment({**holed, "outputSchema": _SCHEMA_HOLE}, _TOOL_NEWLINE, document=True)
        if text.count(_schema_hole_text()) == 1:
            return (text, True) if text.count(_hole_text()) == 1 else None
    text = indented_fragment(holed, _TOOL_NEWLINE, document=True)
    return (text, False) if text.count(_hole_text()) == 1 else None


_SCHEMA_HOLE = "\x00axag-output-schema\x00"


@lru_cache(maxsize=1)
def _schema_hole_text() -> str:
    from axag.compile.serialize import indented_fragment

    return indented_fragment(_SCHEMA_HOLE, "", document=True)


_SCHEMA_TEXTS: dict[int, tuple[Any, str]] = {}


def _shared_schema_text() -> str:
    """The shared output schema as a member of a tool in an mcp document (the tool's indentation plus one
    level), written once (kept with the object, so that a reused id never finds it)."""
    from axag.compile.contract import output_schema
    from axag.compile.serialize import indented_fragment

    shared = output_schema()
    got = _SCHEMA_TEXTS.get(id(shared))
    if got is None or got[0] is not shared:
        got = _SCHEMA_TEXTS[id(shared)] = (shared, indented_fragment(shared, _TOOL_NEWLINE + "  ", document=True))
    return got[1]


class SeenContract:
    """What a worker process sends for a contract it has sent in full already: intent, key and the source."""

    __slots__ = ("intent", "key", "source")

    def __init__(self, intent: str, key: str, source: tuple[str, int, int]) -> None:
        self.intent, self.key, self.source = intent, key, source

    def __reduce__(self) -> tuple[Any, ...]:
        return SeenContract, (self.intent, self.key, self.source)


def shrink_repeats(outcome: Any, sent: set[tuple[str, str, str | None]], *, fragments: bool = True) -> None:
    """In a worker: contracts go out packed (`PackedContract`), and those this worker has sent before (same
    intent and key) as `SeenContract`s, so that a header repeated on every page crosses the process boundary
    once per worker. Contracts of actions with errors take no part in merging and stay behind."""
    if not outcome.contracts:
        return
    items: list[tuple[Any, bool]] = []
    for contract, has_errors in outcome.contracts:
        if has_errors:
            continue
        packed = isinstance(contract, PackedContract)  # packed already (for the result cache)
        packed_ident = ((contract.intent, contract.key, contract.page) if packed
                        else (str(contract.meta["intent"]), contract.key or contract_key(contract.tool),
                              binding_page(contract.tool)))
        if packed_ident in sent:
            source = contract.source if packed else contract.sources[0]
            items.append((SeenContract(packed_ident[0], packed_ident[1], source), False))
            continue
        sent.add(packed_ident)
        full = contract if packed else PackedContract.pack(contract, fragment=fragments)
        items.append((full.squeezed() if fragments else full, False))  # compressed here, not in the parent
    outcome.contracts = items


class _Where:
    def __init__(self, where: tuple[str, str]) -> None:
        self.display, self.repo_path = where


class MergedTool:
    """One tool of the merged output, still packed: its name, sources and where it was first declared."""

    __slots__ = ("name", "packed", "sources", "where")

    def __init__(self, name: str, packed: PackedContract, sources: list[tuple[str, int, int]], where: _Where) -> None:
        self.name, self.packed, self.sources, self.where = name, packed, sources, where

    def contract(self) -> ToolContract:
        """The merged contract: the tool with every source."""
        first = self.packed.unpack()
        srcs = self.sources
        # a new dict along the path to "sources" only: contracts are never modified in place after they
        # are built (the targets copy what they emit)
        meta = first.tool["_meta"]
        action = {**meta["org.axag/action"], "sources": _source_objects(srcs)}
        tool = {**first.tool, "_meta": {**meta, "org.axag/action": action}}
        return ToolContract(tool=tool, declared_description=first.declared_description,
                            declared_required_parameters=first.declared_required_parameters,
                            params=first.params, sources=srcs, declared=first.declared,
                            origin=(self.where.display, self.where.repo_path))


def _source_objects(srcs: list[tuple[str, int, int]]) -> list[dict[str, Any]]:
    return [{"file": s[0], "line": s[1], "column": s[2]} for s in srcs]


def merge_contracts(run: Any, request: Any, *, want_tools: bool = True) -> tuple[list[Finding], list[ToolContract]]:
    """Returns (121/122 findings, merged tools sorted by name). Contracts of actions with error
    findings take no part (they are reported already). ``want_tools=False`` (lint): only the findings;
    contracts are then unpacked only where two of them differ."""
    findings, merged = merge_index(run)
    return findings, [m.contract() for m in merged] if want_tools else []


def merge_index(run: Any) -> tuple[list[Finding], list[MergedTool]]:
    """`merge_contracts` without unpacking the tools: (121/122 findings, merged tools sorted by name)."""
    index: ContractIndex | None = getattr(run, "contracts", None)
    if index is None:
        index = ContractIndex()
        for outcome in run.outcomes:
            index.add(outcome)
    findings: list[Finding] = []
    merged: list[MergedTool] = []
    for intent, variants in sorted(index.by_intent.items()):
        # the first element: the smallest (file, line, column) of all
        first_key, (packed, first_sources) = min(variants.items(), key=lambda kv: min(s for s, _ in kv[1][1]))
        f_src, f_where = min(first_sources)
        # named as every finding names its place: the display path and the tag name's column
        f = (f_where[0], f_src[1], f_src[2] + 1)
        if len(variants) > 1:
            base = _without_sources(packed.unpack().tool)
            later: list[tuple[tuple[str, int, int], tuple[str, str], str]] = []
            for key, (other, sources) in variants.items():
                if key == first_key:
                    continue
                diff = first_difference(base, _without_sources(other.unpack().tool))
                later.extend((src, where, diff) for src, where in sources)
            for src, where, diff in sorted(later):
                findings.append(conflicting_contract(where[0], where[1], src, intent=intent, first=f,
                                                     first_difference=diff))
            continue
        srcs = sorted({s for s, _ in first_sources})
        merged.append(MergedTool(packed.name, packed, srcs, _Where(min(first_sources)[1])))
    # tool-name collisions (122)
    by_name: dict[str, list[MergedTool]] = {}
    for item in merged:
        by_name.setdefault(item.name.replace("-", "_"), []).append(item)
    tools: list[MergedTool] = []
    for items in by_name.values():
        if len(items) == 1:
            tools.append(items[0])
            continue
        items.sort(key=lambda it: it.sources[0])
        fs = (items[0].where.display, items[0].sources[0][1], items[0].sources[0][2] + 1)
        for item in items[1:]:
            findings.append(tool_name_collision(item.where.display, item.where.repo_path, item.sources[0],
                                                name=item.name, intent=item.packed.intent,
                                                other=items[0].packed.intent, first=fs))
    tools.sort(key=lambda m: m.name)
    return declaration_spans(findings), tools


_TAG_NAME = re.compile(r"[^\s/>]+")


def declaration_spans(findings: list[Finding]) -> list[Finding]:
    """121/122 underline the tag name of the later declaration and carry its lines (for `full`). Merging sees
    only (file, line, column) of each source, so the few files named by a finding are read again here."""
    if not findings:
        return findings
    indexes: dict[str, LineIndex | None] = {}
    out = []
    for f in findings:
        if f.path not in indexes:
            indexes[f.path] = _line_index(f.path)
        lines = indexes[f.path]
        m = _TAG_NAME.match(lines.line_text(f.line), f.column - 1) if lines is not None and f.line >= 1 else None
        if lines is None or m is None:
            out.append(f)
            continue
        out.append(replace(f, end_line=f.line, end_column=m.end() + 1, context=context_rows(lines, f.line, f.line)))
    return out


def _line_index(path: str) -> LineIndex | None:
    from pathlib import Path

    from axag.files.source import load

    try:
        src = load(Path(path), Path(path).read_bytes())
    except OSError:
        return None
    return None if isinstance(src, str) else LineIndex(src.text)


def mcp_pieces(tools: list[MergedTool], version: str) -> list[str] | None:
    """The text of the mcp document of ``tools`` (as `dumps` of `targets.mcp.render` writes it), in pieces,
    from the tool texts made with the contracts: only the sources are put in here. None when some tool has no
    text or the document would not pass `validate.check_structure` (the caller then builds it whole)."""
    from axag.compile.serialize import dumps_pieces, indented_fragment
    from axag.compile.targets.mcp import SCHEMA_ID, envelope
    from axag.compile.validate import check_names, check_sources

    if not tools or any(m.packed.fragment is None for m in tools):
        return None
    if check_names([m.name for m in tools], "mcp"):
        return None
    hole = "\x00axag-tools\x00"
    placeholder: list[Any] = [hole]
    head, found, tail = "".join(dumps_pieces(envelope(SCHEMA_ID, version, placeholder))).partition(
        indented_fragment([hole], "\n  ", document=True))
    if not found:
        return None
    hole_text = _hole_text()
    pieces = [head, "["]
    sep = _TOOL_NEWLINE
    for i, m in enumerate(tools):
        objects = _source_objects(m.sources)
        if check_sources(objects, i):
            return None
        fragment = m.packed.tool_text()
        assert fragment is not None
        pieces.append(sep)
        pieces.append(fragment.replace(hole_text, indented_fragment(objects, _SOURCES_NEWLINE, document=True)))
        sep = "," + _TOOL_NEWLINE
    pieces.append("\n  ]")
    pieces.append(tail)
    return pieces
