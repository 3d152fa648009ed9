"""A contract's key (`compile.merge.contract_key`) is the SHA-256 of its JSON text without sources, however the
text is made (the output schema every tool shares is written once per run, issue 17)."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from axag.compile.build import output_schema
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
    for tool in (shared, copied, other, truthy):
        assert contract_key(tool) == _expected(tool)
    assert contract_key(shared) == contract_key(copied)  # equal JSON values, one key
    assert contract_key(other) != contract_key(truthy)  # 1 and true differ
    moved = copy.deepcopy(shared)
    moved["_meta"]["org.axag/action"]["sources"] = [{"file": "b.html", "line": 9}]
    moved["_meta"]["org.axag/http"].update(page="/b.html", action="/b.html")
    assert contract_key(moved) == contract_key(shared)  # sources and the own page are not part of it
