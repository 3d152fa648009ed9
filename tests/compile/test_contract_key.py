"""A contract's key (`compile.merge.contract_key`) is the SHA-256 of its JSON text without sources, however the
text is made (the output schema every tool shares is written once per run)."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

from axag.compile.contract import output_schema
from axag.compile.merge import _without_sources, contract_key


def _expected(tool: dict[str, Any]) -> str:
    text = json.dumps(_without_sources(tool), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _tool(schema: Any) -> dict[str, Any]:
    return {
        "name": "caf\u00e9_order", "title": "Caf\u00e9 \"Order\"", "description": "Line\nbreak \ud83d\ude00 \x00",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}},
        "outputSchema": schema,
        "annotations": {"readOnlyHint": False, "idempotentHint": True},
        "_meta": {"org.axag/action": {"intent": "cafe.order", "sources": [{"file": "a.html", "line": 1}]},
                  "org.axag/http": {"page": "/a.html", "action": "/a.html", "method": "post"}},
    }


def test_the_key_is_the_digest_of_the_json_text_without_sources() -> None:
    shared = _tool(output_schema())
    copied = _tool(copy.deepcopy(output_schema()))
    other = _tool({"type": "object", "properties": {"ok": {"const": 1}}})
    truthy = _tool({"type": "object", "properties": {"ok": {"const": True}}})
    holey = _tool(output_schema())
    holey["description"] = "\x00axag-output-schema\x00"  # the placeholder's own text elsewhere in the tool
    for tool in (shared, copied, other, truthy, holey):
        assert contract_key(tool) == _expected(tool)
    assert contract_key(shared) == contract_key(copied)  # equal JSON values, one key
    assert contract_key(other) != contract_key(truthy)  # 1 and true differ
    moved = copy.deepcopy(shared)
    moved["_meta"]["org.axag/action"]["sources"] = [{"file": "b.html", "line": 9}]
    moved["_meta"]["org.axag/http"].update(page="/b.html", action="/b.html")
    assert contract_key(moved) == contract_key(shared)  # sources and the own page are not part of it


def test_the_tool_text_is_the_whole_tool_written_once(tmp_path: Path) -> None:
    """`mcp_fragment` writes the shared output schema once per run and splices it in: the same text as writing
    the whole tool (`serialize.indented_fragment`), for the shared schema, a copy of it and another one."""
    from dataclasses import replace

    from axag.compile.merge import _SOURCES_HOLE, _TOOL_NEWLINE, mcp_fragment
    from axag.compile.serialize import indented_fragment
    from axag.config.settings import Settings
    from axag.lint.engine import Request, check_file

    page = tmp_path / "page.html"
    page.write_text('<form action="/o" method="post" axag-intent="cafe.order" axag-entity="cafe" '
                    'axag-action-type="write" axag-risk-level="low" axag-idempotent="false" '
                    'axag-description="Order a caf\u00e9 \U0001f600 \\u0000">'
                    '<input name="n" type="number" min="1" required></form>', encoding="utf-8")
    request = Request(mode="compile", want_contracts=True, compile_root=tmp_path)
    (contract, errors), = check_file(page, "page.html", "page.html", Settings(base=tmp_path), request).contracts
    assert not errors
    assert contract.tool["outputSchema"] is output_schema()
    for schema in (output_schema(), copy.deepcopy(output_schema()), {"type": "object", "title": "\x00axag-x\x00"}):
        tool = {**contract.tool, "outputSchema": schema}
        meta = tool["_meta"]
        holed = {**tool, "_meta": {**meta, "org.axag/action": {**meta["org.axag/action"], "sources": _SOURCES_HOLE}}}
        text = mcp_fragment(replace(contract, tool=tool))
        assert text is not None
        assert text == indented_fragment(holed, _TOOL_NEWLINE, document=True)
