"""Fixtures shared by the page tests (tests/report/test_html_pages.py, tests/report/test_html_browser.py): a lint tree with
hostile file names and values, hostile and ordinary tools documents."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

PWN = "window.__pwned=1"
# file names (no "/" possible), attribute values, descriptions ...: each would run PWN if it became markup
HOSTILE_FILES = [f"<svg onload={PWN}>.html", f"javascript:{PWN}.html", f"'\"><img src=x onerror={PWN}>.html"]
HOSTILE_VALUE = f"</title><script>{PWN}</script>"
HOSTILE_ATTR = f"\"><img src=x onerror={PWN}>"

OK_PAGE = """<main axag-scope="user">
<button axag-intent="cart.clear" axag-action-type="reed">Clear</button>
<button axag-intent="account.delete" axag-action-type="delete" axag-risk-level="high"
  axag-description="Delete the account.">Delete</button>
<form axag-intent="search.run" axag-action-type="read" axag-risk-level="medium"
  axag-description="Search.">
  <input name="q">
</form>
</main>
"""


def lint_tree(root: Path) -> Path:
    """A folder whose lint run has errors, warnings and infos in several files, some with hostile names."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "ok.html").write_text(OK_PAGE, encoding="utf-8")
    (root / HOSTILE_FILES[0]).write_text(
        f"<button axag-intent=\"cart.clear\" axag-action-type='{HOSTILE_VALUE}'>x</button>\n", encoding="utf-8")
    (root / HOSTILE_FILES[1]).write_text(
        f"<button axag-intent=\"a.b\" axag-action-type=\"read\" axag-risk-level='{HOSTILE_ATTR}'>x</button>\n",
        encoding="utf-8")
    (root / HOSTILE_FILES[2]).write_text(
        f"<a href=\"javascript:{PWN}\" axag-intent=\"{HOSTILE_ATTR}\" axag-action-type=\"navigate\">x</a>\n",
        encoding="utf-8")
    return root


def tool(name: str, **over: Any) -> dict[str, Any]:
    """An MCP tool object of tool naming and duplicates with a few parameters and the usual metadata."""
    t: dict[str, Any] = {
        "name": name,
        "title": name.replace("_", " ").title(),
        "description": f"Do {name}.\nRisk level: high.",
        "inputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "check_in": {"type": "string", "format": "date"},
                "check_out": {"type": "string", "format": "date"},
                "guests": {"type": "integer", "description": "How many", "minimum": 1, "maximum": 10},
                "room": {"type": "string", "enum": ["single", "double"]},
            },
            "required": ["check_in", "check_out"],
            "additionalProperties": False,
        },
        "annotations": {"title": name.replace("_", " ").title(), "readOnlyHint": False, "destructiveHint": True, "idempotentHint": False,
                        "openWorldHint": True},
        "_meta": {"org.axag/action": {
            "intent": name.replace("_", "."), "entity": name.split("_")[0], "action_type": "write",
            "risk_level": "high", "confirmation_required": True, "confirmation_message": "Sure?",
            "approval_required": True, "approval_roles": ["manager"], "approval_count": 2,
            "scope": "user", "preconditions": [
                {"text": "room_available", "kind": "state"},
                {"text": "check_out is after check_in", "kind": "relational", "form": "greater_than",
                 "params": ["check_out", "check_in"]}],
            "rate_limit": {"count": 10, "period": "minute", "window_seconds": 60},
            "sources": [{"file": "site/booking.html", "line": 12, "column": 3}]}},
    }
    t.update(over)
    return t


def document(tools: list[dict[str, Any]]) -> dict[str, Any]:
    return {"$schema": "https://axag.org/schema/tools/v1/tools.schema.json", "axag": "1.1",
            "generator": {"name": "axag", "version": "0.1.0"}, "tools": tools}


def hostile_tool() -> dict[str, Any]:
    t = tool("booking_create")
    t["name"] = HOSTILE_ATTR
    t["title"] = HOSTILE_VALUE
    t["description"] = f"{HOSTILE_VALUE}\n<a href=\"javascript:{PWN}\">click</a>"
    props = t["inputSchema"]["properties"]
    props["room"]["enum"] = [HOSTILE_VALUE, f"javascript:{PWN}"]
    props[HOSTILE_ATTR] = {"type": "string", "description": HOSTILE_VALUE, "pattern": f"</style><script>{PWN}"}
    meta = t["_meta"]["org.axag/action"]
    meta["confirmation_message"] = HOSTILE_VALUE
    meta["sources"] = [{"file": f"javascript:{PWN}", "line": 1, "column": 1},
                       {"file": f"//evil.example/{HOSTILE_ATTR}", "line": 2, "column": 1}]
    t["_meta"]["org.axag/http"] = {"method": "POST", "action": f"javascript:{PWN}", "enctype": HOSTILE_VALUE,
                                   "fields": {"check_in": HOSTILE_ATTR}, "constants": [["csrf", HOSTILE_VALUE]],
                                   "checkbox": {}, "refresh": True, "page": HOSTILE_FILES[0]}
    return t


def old_and_new() -> tuple[dict[str, Any], dict[str, Any]]:
    """OLD/NEW documents: one tool removed, one added, one changed in ways agents feel, one reworded."""
    old = document([tool("booking_create"), tool("booking_cancel"), tool("room_list"), tool("site_search")])
    new = copy.deepcopy(old)
    tools = {t["name"]: t for t in new["tools"]}
    changed = tools["booking_create"]
    props = changed["inputSchema"]["properties"]
    props["coupon"] = {"type": "string", "maxLength": 20}  # new required parameter
    changed["inputSchema"]["required"].append("coupon")
    props["guests"]["maximum"] = 4  # tighter
    props["room"]["enum"] = ["single"]  # a value removed
    meta = changed["_meta"]["org.axag/action"]
    meta["risk_level"] = "low"  # lower risk
    del meta["confirmation_required"], meta["confirmation_message"]  # confirmation removed
    tools["site_search"]["description"] = "Search the site, better."  # wording only
    new["tools"] = [t for t in new["tools"] if t["name"] != "booking_cancel"] + [tool("room_book")]
    new["tools"].sort(key=lambda t: t["name"])
    return old, new


def write_json(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def big_run(n: int) -> Any:
    """A lint report of ``n`` findings over ``n // 100`` files and five rules (the size of a big legacy site)."""
    from axag.outcome.findings import Edit, Finding, Fix, RunReport
    from axag.rules.catalogue import RULES

    codes = (4, 6, 9, 25, 20)
    line_text = '  <button axag-intent="cart.clear" axag-action-type="reed">Clear</button>'
    findings = []
    for i in range(n):
        code = codes[i % 5]
        info = RULES[code].info
        path = f"site/page{i // 100:04d}.html"
        line = i % 100 + 2
        fix = Fix('Replace "reed" with "read"', (Edit(0, 4, "read", line, 52, line, 56),)) if code == 4 else None
        findings.append(Finding(code, info.severity, f'finding {i}: axag-action-type="reed" is not valid', path,
                                line, 52, line, 56, name=info.name, repo_path=path,
                                help='did you mean "read"?' if code == 4 else None, fix=fix,
                                fingerprint=f"{i:016x}",
                                context=((line - 1, "<form>"), (line, line_text), (line + 1, "</form>"))))
    return RunReport(findings=findings, rules=[RULES[c].info for c in sorted(codes)], files=max(1, n // 100),
                     exit_code=1, tool_version="0.1.0")
