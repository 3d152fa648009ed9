"""`axag context` (the constraint context block): the constraint context block, pinned exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from axag.cli.group import main
from axag.guards.context import block
from axag.outcome.errors import InputError

DATA = Path(__file__).resolve().parents[1] / "data" / "guards"
BOOKING = DATA / "booking.tools.json"

BOOKING_BLOCK = """\
You can call the tools below. The application checks every rule listed here on every call.
When a call is refused, the tool returns "success": false with a "permission" status, "violations" (field, \
constraint, expected, actual, message) and "guidance". Follow the guidance; never repeat a refused call with the \
same arguments.
People handle confirmations and approvals in the application. Never confirm or approve a call yourself and never \
ask for approval links or codes.

Active constraints:

- booking_create (Booking Create):
    kind: write, risk medium, not idempotent
    parameters:
      check_in (required): string, format date
      check_out (required): string, format date
      guests (required): integer, at least 1, at most 10
      note (optional): string, at most 200 characters
    rules between parameters:
      check_out is after check_in
    preconditions checked by the application:
      room_available
    confirmation: the user must confirm each call; they are asked: "Book {{guests}} guests from {{check_in}} to \
{{check_out}}?"
    scope: user
    rate limit: at most 10 calls per minute
    side effects: email_notification
"""


def test_context_cli_booking_exact() -> None:
    result = CliRunner().invoke(main, ["context", str(BOOKING)], catch_exceptions=False)
    assert result.exit_code == 0
    assert result.output == BOOKING_BLOCK


def test_context_cli_tool_filter_and_unknown() -> None:
    ok = CliRunner().invoke(main, ["context", str(BOOKING), "--tool", "booking_create"])
    assert ok.exit_code == 0 and ok.output == BOOKING_BLOCK
    bad = CliRunner().invoke(main, ["context", str(BOOKING), "--tool", "nope"])
    assert bad.exit_code == 2
    assert "unknown tool nope" in bad.output


def test_context_cli_invalid_file(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('{"tools": []}')
    assert CliRunner().invoke(main, ["context", str(path)]).exit_code == 2
    path.write_text("not json")
    assert CliRunner().invoke(main, ["context", str(path)]).exit_code == 2
    assert CliRunner().invoke(main, ["context", str(tmp_path / "missing.json")]).exit_code == 2


def _tool(name: str, meta: dict[str, object], properties: dict[str, object], required: list[str]) -> dict[str, object]:
    return {
        "name": name,
        "title": name.title(),
        "inputSchema": {"type": "object", "properties": properties, "required": required,
                        "additionalProperties": False},
        "_meta": {"org.axag/action": {"intent": "x.y", "action_type": "delete", **meta}},
    }


def test_context_all_lines() -> None:
    doc = {
        "tools": [
            _tool("zeta", {}, {}, []),
            _tool(
                "alpha",
                {
                    "risk_level": "critical",
                    "idempotent": True,
                    "approval_required": True,
                    "approval_roles": ["manager", "director"],
                    "approval_count": 2,
                    "required_roles": ["admin", "ops"],
                    "scope": "tenant",
                    "tenant_boundary": "strict",
                    "rate_limit": {"count": 1, "period": "hour", "window_seconds": 3600},
                    "cooldown": {"duration": "30s", "milliseconds": 30000},
                    "side_effects": ["email", "audit_log"],
                    "confirmation_required": True,
                    "format_bounds": {"day": {"formatMinimum": "2026-01-01", "formatMaximum": "2026-12-31"}},
                },
                {
                    "day": {"type": "string", "description": "Day.", "format": "date"},
                    "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 1,
                             "maxItems": 3, "uniqueItems": True},
                    "any": {"type": "array"},
                    "n": {"type": "number", "const": 1.5, "default": 2, "exclusiveMinimum": 0,
                          "exclusiveMaximum": 10.0, "multipleOf": 0.5},
                    "code": {"type": "string", "minLength": 2, "pattern": "^[A-Z]\"+$"},
                    "addr": {"type": "object", "properties": {"city": {"type": "string"},
                                                             "geo": {"type": "object", "properties": {
                                                                 "lat": {"type": "number"}}}},
                             "required": ["city"], "additionalProperties": False},
                },
                ["day"],
            ),
            _tool("mid", {"cooldown": {"duration": "5m", "milliseconds": 300000}, "tenant_boundary": "relaxed",
                          "approval_required": True, "approval_count": 1, "required_roles": ["x"]}, {}, []),
        ]
    }
    assert block(doc) == block(doc, ["zeta", "alpha", "mid"])
    text = block(doc)
    assert text.split("Active constraints:\n", 1)[1] == """
- alpha (Alpha):
    kind: delete, risk critical, idempotent
    parameters:
      day (required): string, format date, not before 2026-01-01, not after 2026-12-31
      tags (optional): array of string, at least 1 items, at most 3 items, unique items
      any (optional): array
      n (optional): number, exactly 1.5, default 2, greater than 0, less than 10, a multiple of 0.5
      code (optional): string, at least 2 characters, matching the regular expression "^[A-Z]\\"+$"
      addr (optional): object
        city (required): string
        geo (optional): object
          lat (optional): number
    confirmation: the user must confirm each call
    approval: 2 approvers holding one of the roles manager, director must approve each call; no self-approval; ask for it with the request_permission tool (tool, arguments, reason) when the server lists it
    required roles: the caller must hold all of the roles admin, ops
    scope: tenant; tenant boundary: strict
    rate limit: at most 1 call per hour; cooldown 30s between calls
    side effects: email, audit_log

- mid (Mid):
    kind: delete
    parameters: none
    approval: 1 approver holding any role must approve each call; no self-approval; ask for it with the request_permission tool (tool, arguments, reason) when the server lists it
    required roles: the caller must hold the role x
    tenant boundary: relaxed
    cooldown: at least 5m between calls

- zeta (Zeta):
    kind: delete
    parameters: none
"""
    assert block(doc, ["mid"]).endswith("- mid (Mid):\n    kind: delete\n    parameters: none\n"
                                        "    approval: 1 approver holding any role must approve each call; "
                                        "no self-approval; ask for it with the request_permission tool (tool, "
                                        "arguments, reason) when the server lists it\n"
                                        "    required roles: the caller must hold the role x\n"
                                        "    tenant boundary: relaxed\n    cooldown: at least 5m between calls\n")
    with pytest.raises(InputError):
        block(doc, ["alpha", "nope"])


def test_context_deterministic() -> None:
    doc = json.loads(BOOKING.read_text(encoding="utf-8"))
    assert block(doc) == block(json.loads(json.dumps(doc)))
