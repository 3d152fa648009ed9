"""Strict-mode hosts and `axag serve`, through real MCP sessions (the SDK's client over
stdio) against a real loopback backend.

- openai-agents converts every listed tool with its own `ensure_strict_json_schema` (as its MCP support does,
  rejecting open objects); the tools serve adds (`request_permission`) come out unchanged. Their `arguments` is a
  JSON object text now; the old object shape is still accepted.
- OpenAI strict hosts send ``null`` for every optional parameter they leave out: serve reads it as absent when the
  parameter's schema does not allow null, whatever target the tools or guards came from.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from agents.strict_schema import ensure_strict_json_schema
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import run_axag
from tests.serve.test_approvals import ARGS, TOOL, approvers, env_of
from tests.serve.test_approvals import SITE as APPROVAL_SITE
from tests.serve.test_serve import BOOK, SHOP, SITE, accept, guards_dir, serve_args, stdio_client  # noqa: F401
from tests.serve_backend import Backend, running_backend

OPTIONAL = {k: v for k, v in ARGS.items() if k != "note"}  # refund_issue: order, amount required; note optional


@pytest.fixture(scope="module")
def backend() -> Any:
    with running_backend(SITE, SHOP, APPROVAL_SITE) as b:
        yield b


async def _listed(args: list[str]) -> list[dict[str, Any]]:
    async with stdio_client(args, "legacy") as client:
        return [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in (await client.list_tools()).tools]


def strict(schema: dict[str, Any]) -> dict[str, Any]:
    """openai-agents' conversion, called as its MCP support calls it (MCPUtil.to_function_tool)."""
    return ensure_strict_json_schema(copy.deepcopy(schema), _reject_open_objects=schema != {})


# ---------------------------------------------------------------------- openai-agents' strict conversion
@pytest.mark.parametrize("extra", [[], ["--desk"]], ids=["gated", "desk"])
def test_openai_agents_strict_conversion_takes_every_listed_tool(extra: list[str], backend: Backend,
                                                                  tmp_path: Path) -> None:
    shop = ["-m", "axag", "serve", str(SHOP), "--base-url", backend.url, "--allow-unbound", *extra,
            "--state", str(tmp_path / "s.sqlite")]
    for args in (serve_args(tmp_path / "state.sqlite", str(SITE), "--base-url", backend.url, "--allow-unbound"),
                 serve_args(tmp_path / "state2.sqlite", str(APPROVAL_SITE), "--base-url", backend.url), shop):
        listed = asyncio.run(_listed(args))
        added = [t for t in listed if not t.get("_meta")]  # the compiled tools carry _meta["org.axag/action"]
        if "--desk" in extra or args is not shop:
            assert [t["name"] for t in added] == ["request_permission"]
        for tool in listed:
            converted = strict(tool["inputSchema"])  # raises UserError when it cannot
            if tool in added:
                assert converted == tool["inputSchema"], tool["name"]  # unchanged


def test_request_permission_takes_a_json_text_and_the_old_object(backend: Backend, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state.sqlite"
    tokens = approvers(state)
    args = ["-m", "axag", "serve", str(APPROVAL_SITE), "--base-url", backend.url, "--state", str(state),
            "--actor", "alice", "--roles", "finance", "--approval-mode", "tell"]
    before = len(backend.calls("/refunds"))

    async def go() -> None:
        async with stdio_client(args, "legacy") as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert listed["request_permission"].input_schema["properties"]["arguments"] == {
                "type": "string", "description": "The exact arguments of the call, written as a JSON object in a "
                                                 'string, e.g. {"order_id": "A1", "amount": 20}.'}
            # the new shape, with the null a strict host sends for the optional note
            told = env_of(await client.call_tool("request_permission", {
                "tool": TOOL, "arguments": json.dumps({**OPTIONAL, "note": None}), "reason": "Refund it."}))
            assert told["permission"] == "approval_required", told
            found = re.search(r"Approval request (r[0-9a-f]{12}): 0 of 2 approvals given", told["guidance"])
            assert found is not None, told["guidance"]
            # the old shape reaches the same pending request (same tool, same values)
            again = env_of(await client.call_tool("request_permission", {
                "tool": TOOL, "arguments": OPTIONAL, "reason": "Refund it."}))
            assert again["permission"] == "approval_required"
            assert f"Approval request {found.group(1)}: 0 of 2 approvals given" in again["guidance"]
            for bad in ("not json", "[1, 2]", '"text"', "null", '{"order": NaN}', '{"amount": 1e999}',
                        "[" * 100000):
                refused = env_of(await client.call_tool("request_permission", {
                    "tool": TOOL, "arguments": bad, "reason": "Refund it."}))
                assert refused == {"success": False, "permission": "constraint_violated", "violations": [],
                                   "guidance": "request_permission: arguments must be the text of a JSON object "
                                               "holding the arguments of the call.", "tool": "request_permission"}
            for approver in ("bob", "carol"):
                monkeypatch.setenv("AXAG_APPROVER_TOKEN", tokens[approver])
                res = run_axag(["approvals", "approve", found.group(1), "--as", approver, "--state", str(state)])
                assert res.exit_code == 0, res.output
            # approved for these values: the direct call with the null for note is the same call, and runs
            ran = env_of(await client.call_tool(TOOL, {**OPTIONAL, "note": None}))
            assert ran["success"] is True and ran["permission"] == "approved", ran

    asyncio.run(go())
    posted = backend.calls("/refunds")[before:]
    assert [r.form for r in posted if r.method == "POST"] == [[("order", "O1001"), ("amount", "120")]]


# ------------------------------------------------------------------ null for a left-out optional parameter
def test_null_for_an_optional_parameter_is_absent(backend: Backend, guards_dir: Path,  # noqa: F811
                                                  tmp_path: Path) -> None:
    """The MCP-target guards refuse ``"note": null``; serve reads it as the note left out."""
    args = serve_args(tmp_path / "state.sqlite", str(SITE), "--base-url", backend.url, "--allow-unbound",
                      "--guards", str(guards_dir), "--actor", "ann", "--roles", "guest")

    async def go() -> None:
        elicit = accept()
        async with stdio_client(args, "legacy", elicit) as client:
            before = len(backend.requests)
            res = await client.call_tool("booking_create", {**BOOK, "note": None})
            assert not res.is_error, res.structured_content
            assert res.structured_content["result"]["body"] == {"booking": "B000123", "guests": "2"}
            post = backend.requests[before:][-1]
            assert [k for k, _ in post.form] == ["check_in", "check_out", "guests", "email", "board", "csrf"]
            # a null for a required parameter, or for one the tool does not have, is still refused
            res = await client.call_tool("booking_create", {**BOOK, "board": None})
            assert res.is_error and [(v["field"], v["constraint"]) for v in res.structured_content["violations"]] \
                == [("board", "type"), ("board", "enum")]
            res = await client.call_tool("booking_create", {**BOOK, "extra": None})
            assert res.is_error and res.structured_content["permission"] == "constraint_violated"
            assert len(backend.requests) == before + 2  # the one booking: its page and its POST
            assert elicit.asked == ["Book 2 guests from 2026-05-01 to 2026-05-03?"]

    asyncio.run(go())


_nested = {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "null"}, "w": {"type": "string"}},
           "required": ["x"]}
_sub = st.sampled_from([{"type": "string"}, {"type": ["string", "null"]}, {"type": "integer", "minimum": 0},
                        {"enum": ["a", None]}, {"enum": ["a", "b"]}, {}, {"const": None}, _nested,
                        {"type": "array", "items": _nested}])
_names = st.sampled_from(["a", "b", "c", "d"])
_inner = st.dictionaries(st.sampled_from(["x", "y", "z", "w"]), st.none() | st.just("s"), max_size=4)
_values = st.one_of(st.none(), st.just("a"), st.integers(0, 3), _inner, st.lists(_inner, max_size=2))


def _refuses_null(sub: dict[str, Any]) -> bool:
    return not jsonschema.Draft202012Validator(sub).is_valid(None)


def _expected_inner(value: Any) -> Any:
    """What serve makes of a value of `_nested`: only the null of w (optional, a string) is dropped."""
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if not (v is None and k == "w")}
    return value


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(_names, _sub, max_size=4), st.lists(_names, unique=True, max_size=4),
       st.dictionaries(_names, _values, max_size=4))
def test_only_refused_nulls_of_optional_properties_are_dropped(props: dict[str, Any], required: list[str],
                                                               value: dict[str, Any]) -> None:
    from axag.serve.app import nulls_as_absent

    schema = {"type": "object", "properties": props, "required": [r for r in required if r in props],
              "additionalProperties": False}
    kept = copy.deepcopy(value)
    out = nulls_as_absent(schema, value)
    assert value == kept  # never modified in place
    dropped = {k for k, v in value.items()
               if v is None and k in props and k not in schema["required"] and _refuses_null(props[k])}
    assert list(out) == [k for k in value if k not in dropped]  # order kept, nothing else dropped
    for key, got in out.items():
        sub = props.get(key, {})
        if sub is _nested:
            assert got == _expected_inner(value[key])
        elif sub.get("items") is _nested and isinstance(value[key], list):
            assert got == [_expected_inner(v) for v in value[key]]
        else:
            assert got == value[key]
