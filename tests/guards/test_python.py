"""Python guards: guard_spec, literals, generated modules, envelopes."""

from __future__ import annotations

import ast
import asyncio
import hashlib
import importlib
import itertools
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner

from axag.cli.group import main
from axag.guards import guard_spec
from axag.guards.render import render_guards, write_guards
from axag.outcome.errors import InputError


def test_stub_names_basic_and_reserved() -> None:
    names = guard_spec.stub_names(["room_available", "User is authenticated!", "import", "pass", "delete", "new",
                               "", "3 rooms", "eval", "arguments", "x" * 50])
    assert names == {
        "room_available": "room_available",
        "User is authenticated!": "user_is_authenticated",
        "import": "pre_import",
        "pass": "pre_pass",
        "delete": "pre_delete",
        "new": "pre_new",
        "": "pre_",
        "3 rooms": "pre_3_rooms",
        "eval": "pre_eval",
        "arguments": "pre_arguments",
        "x" * 50: "x" * 40,
    }


def test_stub_names_ecmascript_reserved() -> None:
    words = ["let", "static", "yield", "await", "enum", "implements", "typeof", "class", "lambda", "match", "ok"]
    assert list(guard_spec.stub_names(words).values()) == [
        "pre_let", "pre_static", "pre_yield", "pre_await", "pre_enum", "pre_implements", "pre_typeof", "pre_class",
        "pre_lambda", "match", "ok"]


def test_bad_pattern_is_an_input_error() -> None:
    doc = json.loads(json.dumps(BOOKING))
    doc["tools"][0]["inputSchema"]["properties"]["note"]["pattern"] = "(["
    with pytest.raises(InputError, match="is not a valid regular expression"):
        render_guards(doc, "python", None)


@pytest.mark.parametrize(
    ("path", "value"),
    [(("_meta", "org.axag/action", "rate_limit"), {"count": 1}),
     (("_meta", "org.axag/action", "cooldown"), {"duration": "1s", "milliseconds": "x"}),
     (("_meta", "org.axag/action", "approval_count"), 0),
     (("_meta", "org.axag/action", "preconditions"), [{"text": "a", "kind": "relational", "form": "nope",
                                                       "params": ["guests"]}]),
     (("_meta", "org.axag/action", "preconditions"), [{"text": "a", "kind": "relational", "form": "requires",
                                                       "params": ["guests", "zzz"]}]),
     (("_meta", "org.axag/action", "preconditions"), [{"text": "a", "kind": "relational", "form": "requires",
                                                       "params": ["guests"]}]),
     (("_meta", "org.axag/action", "format_bounds"), {"zzz": {"formatMinimum": "1"}}),
     (("_meta", "org.axag/action", "required_roles"), "admin"),
     (("inputSchema",), []),
     (("name",), "a.b")],
)
def test_malformed_documents_are_input_errors(path: tuple[str, ...], value: object) -> None:
    doc = json.loads(json.dumps(BOOKING))
    target = doc["tools"][0]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(InputError):
        render_guards(doc, "python", None)
    with pytest.raises(InputError):
        render_guards({"tools": "x"}, "python", None)
    with pytest.raises(InputError):
        render_guards(BOOKING, "cobol", None)


def test_stub_name_collisions_get_sha_suffix() -> None:
    names = guard_spec.stub_names(["a b", "a-b", "c"])
    assert names == {"a b": "a_b_c8687a08", "a-b": "a_b_d44362d6", "c": "c"}


def test_guard_identifier() -> None:
    assert guard_spec.guard_identifier("booking-create") == "guard_booking_create"
    with pytest.raises(guard_spec.GuardSpecError):
        guard_spec.guard_identifier("a.b")


@pytest.mark.parametrize(
    "value",
    ["", 'q"uote', "back\\slash", '"""', "*/", "${x}", "{{y}}", "line\nbreak", "\u2028", "\x00", "\U0001f600",
     "\ud800", 0, -0.0, 10.0, 1.5, 1e20, 2**80, -(2**60), True, False, None, [1, "a", [None]],
     {"__proto__": {"a": [1.25]}}],
)
def test_py_literal_round_trip(value: object) -> None:
    text = guard_spec.py_literal(value)
    assert text.isascii() and "\n" not in text
    assert ast.literal_eval(text) == value


def test_py_literal_exact() -> None:
    assert guard_spec.py_literal("a\"\\\x00\xe9\u2028\U0001f600") == '"a\\"\\\\\\x00\\xe9\\u2028\\U0001f600"'
    assert guard_spec.py_literal(10.0) == "10"
    assert guard_spec.py_literal(1e20) == "1e+20"
    assert guard_spec.py_literal({"a": [1, 2.5]}) == '{"a": [1, 2.5]}'


# ---------------------------------------------------------------------------------------------- generated guards
DATA = Path(__file__).resolve().parents[1] / "data" / "guards"
BOOKING = json.loads((DATA / "booking.tools.json").read_text(encoding="utf-8"))
FEATURES = json.loads((DATA / "features.tools.json").read_text(encoding="utf-8"))
_SEQ = itertools.count()

BOOKING_PRE = '''
from collections.abc import Mapping
from ._runtime import GuardContext
STATE: dict[str, object] = {"room": True}
def room_available(arguments: Mapping[str, object], context: GuardContext, tool: str) -> bool:
    value = STATE["room"]
    if isinstance(value, Exception):
        raise value
    return value  # type: ignore[return-value]
'''

FEATURES_PRE = '''
from collections.abc import Mapping
from ._runtime import GuardContext
def calendar_is_open(arguments: Mapping[str, object], context: GuardContext, tool: str) -> bool:
    return True
def pre_import(arguments: Mapping[str, object], context: GuardContext, tool: str) -> bool:
    return True
'''


def build(doc: dict[str, Any], root: Path, pre: str | None = None) -> ModuleType:
    """Generate guards for ``doc`` into a fresh package under ``root`` and import it."""
    name = f"axag_guards_{next(_SEQ)}"
    pkg = root / name
    if pre is not None:
        pkg.mkdir(parents=True)
        (pkg / "preconditions.py").write_text(pre, encoding="utf-8")
    write_guards(doc, pkg)
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(root))


def _book(arguments: object) -> str:
    return "booked"


EXAMPLE_10_11 = {
    "success": False, "permission": "constraint_violated",
    "violations": [
        {"field": "guests", "constraint": "maximum", "expected": 10, "actual": 12,
         "message": "guests must be at most 10; got 12."},
        {"field": "check_out", "constraint": "greater_than", "expected": "check_out is after check_in",
         "actual": {"check_out": "2026-05-01", "check_in": "2026-05-03"},
         "message": "check_out must be after check_in."}],
    "guidance": "The arguments break 2 constraints of booking_create: guests must be at most 10; got 12. check_out "
                "must be after check_in. Correct the arguments and call booking_create again; do not repeat the same "
                "values.",
    "tool": "booking_create",
    "active_constraints": {
        "required": ["check_in", "check_out", "guests"],
        "parameters": {"check_in": {"type": "string", "format": "date"},
                       "check_out": {"type": "string", "format": "date"},
                       "guests": {"type": "integer", "minimum": 1, "maximum": 10},
                       "note": {"type": "string", "maxLength": 200}},
        "relations": ["check_out is after check_in"], "preconditions": ["room_available"],
        "confirmation_required": True, "rate_limit": "10/minute"}}

VALID = {"check_in": "2026-05-01", "check_out": "2026-05-03", "guests": 2}


def test_example_10_11_exact(tmp_path: Path) -> None:
    mod = build(BOOKING, tmp_path, BOOKING_PRE)
    result = mod.GUARDS["booking_create"].run(_book, {"check_in": "2026-05-03", "check_out": "2026-05-01",
                                                      "guests": 12})
    assert result.for_model() == EXAMPLE_10_11
    assert list(result.for_model()) == ["success", "permission", "violations", "guidance", "tool",
                                        "active_constraints"]
    assert result.to_dict() == EXAMPLE_10_11  # no caller_only


def test_confirmation_flow_single_use(tmp_path: Path) -> None:
    mod = build(BOOKING, tmp_path, BOOKING_PRE)
    guard = mod.GUARDS["booking_create"]
    first = guard.run(_book, VALID)
    fp = mod.fingerprint("booking_create", VALID)
    assert first.to_dict() == {
        "success": False, "permission": "confirmation_required", "violations": [],
        "guidance": 'booking_create needs the user\'s explicit confirmation. A person is being asked: "Book 2 guests '
                    'from 2026-05-01 to 2026-05-03?". Do not repeat the call and do not confirm it yourself; wait for '
                    "the outcome.",
        "tool": "booking_create", "active_constraints": EXAMPLE_10_11["active_constraints"],
        "caller_only": {"fingerprint": fp, "confirmation_message": "Book 2 guests from 2026-05-01 to 2026-05-03?"}}
    assert fp not in json.dumps(first.for_model())
    ctx = mod.GuardContext(confirmation=mod.Confirmation(fingerprint=fp, by="u-17", id="c-1"))
    assert guard.check(VALID, ctx).to_dict() == {
        "success": True, "permission": "not_required", "confirmed": True, "violations": [],
        "guidance": "The call is allowed.", "tool": "booking_create"}
    done = guard.run(_book, VALID, ctx)
    assert done.to_dict() == {"success": True, "result": "booked", "permission": "not_required", "confirmed": True,
                              "violations": [], "guidance": "The call succeeded.", "tool": "booking_create"}
    again = guard.run(_book, VALID, ctx)  # the confirmation was used
    assert again.permission == "confirmation_required"
    fresh = mod.GuardContext(confirmation=mod.Confirmation(fingerprint=fp, by="u-17", id="c-2"))
    assert guard.run(_book, VALID, fresh).success
    other = mod.GuardContext(confirmation=mod.Confirmation(fingerprint="0" * 64, by="u-17", id="c-3"))
    assert guard.run(_book, VALID, other).permission == "confirmation_required"


def test_fingerprint_canonical(tmp_path: Path) -> None:
    mod = build(BOOKING, tmp_path, BOOKING_PRE)
    text = '{"arguments":{"a":1,"b":[2.5,"\\u00e9"],"\\u00e9":null},"tool":"t"}'
    assert mod.fingerprint("t", {"\u00e9": None, "b": [2.5, "\u00e9"], "a": 1.0}) == hashlib.sha256(
        text.encode()).hexdigest()


def test_preconditions_and_exceptions(tmp_path: Path) -> None:
    mod = build(BOOKING, tmp_path, BOOKING_PRE)
    pre = importlib.import_module(mod.__name__ + ".preconditions")
    guard = mod.GUARDS["booking_create"]
    for value in (False, "yes", 1, None):
        pre.STATE["room"] = value
        res = guard.check(VALID)
        assert res.for_model() == {
            "success": False, "permission": "precondition_failed",
            "violations": [{"field": None, "constraint": "precondition", "expected": "room_available",
                            "actual": False, "message": 'The precondition "room_available" does not hold.'}],
            "guidance": 'booking_create cannot run now: the precondition "room_available" does not hold. Do not '
                        "retry until it holds; tell the user what is missing.",
            "tool": "booking_create", "active_constraints": EXAMPLE_10_11["active_constraints"]}
    pre.STATE["room"] = LookupError("db down")
    try:
        guard.check(VALID)
    except LookupError as exc:
        assert str(exc) == "db down"
    else:  # pragma: no cover
        raise AssertionError("precondition exception swallowed")
    pre.STATE["room"] = True
    fp = mod.fingerprint("booking_create", VALID)
    ctx = mod.GuardContext(confirmation=mod.Confirmation(fp, "u", "x"))

    def boom(arguments: object) -> None:
        raise KeyError("handler")

    try:
        guard.run(boom, VALID, ctx)
    except KeyError:
        pass
    else:  # pragma: no cover
        raise AssertionError("handler exception swallowed")


def test_null_as_absent_and_handler_arguments(tmp_path: Path) -> None:
    mod = build(BOOKING, tmp_path, BOOKING_PRE)
    guard = mod.GUARDS["booking_create"]
    args = {**VALID, "note": None}
    assert [v.constraint for v in guard.check(args).violations] == ["type"]
    assert guard.check(args).violations[0].message == "note must be a string; got null."
    fp = mod.fingerprint("booking_create", VALID)
    seen: list[object] = []
    ctx = mod.GuardContext(confirmation=mod.Confirmation(fp, "u", "n1"), null_as_absent=True)
    res = guard.run(lambda a: seen.append(a) or "ok", args, ctx)
    assert res.success and seen == [VALID]
    # required members stay and fail
    res = guard.check({**VALID, "guests": None}, mod.GuardContext(null_as_absent=True))
    assert [(v.field, v.constraint) for v in res.violations] == [("guests", "type")]


def test_arun_and_wrap(tmp_path: Path) -> None:
    mod = build(BOOKING, tmp_path, BOOKING_PRE)
    guard = mod.GUARDS["booking_create"]
    fp = mod.fingerprint("booking_create", VALID)

    async def handler(arguments: object) -> str:
        return "async-booked"

    ctx = mod.GuardContext(confirmation=mod.Confirmation(fp, "u", "a1"))
    res = asyncio.run(guard.arun(handler, VALID, ctx))
    assert res.success and res.result == "async-booked"
    wrapped = guard.wrap(_book)
    assert wrapped(VALID, None).permission == "confirmation_required"
    assert wrapped(VALID, mod.GuardContext(confirmation=mod.Confirmation(fp, "u", "w1"))).result == "booked"


def test_values_outside_json_domain(tmp_path: Path) -> None:
    mod = build(BOOKING, tmp_path, BOOKING_PRE)
    guard = mod.GUARDS["booking_create"]
    res = guard.check([1])
    assert [(v.field, v.constraint, v.message) for v in res.violations] == [
        ("", "type", "arguments must be an object; got array.")]
    res = guard.check({**VALID, "guests": float("nan")})
    assert [(v.field, v.constraint) for v in res.violations] == [("guests", "type")]
    res = guard.check({**VALID, "guests": (2,)})
    assert [(v.field, v.constraint) for v in res.violations] == [("guests", "type")]
    res = guard.check({**VALID, "extra": 1, "guests": True})
    assert [(v.field, v.constraint, v.message) for v in res.violations] == [
        ("guests", "type", "guests must be an integer; got boolean."),
        ("extra", "additionalProperties", "extra is not a parameter of booking_create."),
    ]
    res = guard.check({"check_in": "2026-02-30"})
    assert [(v.field, v.constraint, v.expected, v.actual, v.message) for v in res.violations] == [
        ("check_in", "format", "date", "2026-02-30", "check_in must be a valid date."),
        ("check_out", "required", True, None, "check_out is required."),
        ("guests", "required", True, None, "guests is required."),
    ]


# ---------------------------------------------------------------------------------------------- roles, approvals
def _approval(mod: ModuleType, fp: str, who: str, roles: tuple[str, ...] = ("manager",), **kw: Any) -> Any:
    return mod.Approval(approver=who, roles=frozenset(roles), fingerprint=fp, **kw)


CLOSE = {"account_id": "DE123"}


def test_roles_denied(tmp_path: Path) -> None:
    mod = build(FEATURES, tmp_path, FEATURES_PRE)
    guard = mod.GUARDS["account-close"]
    res = guard.run(_book, CLOSE, mod.GuardContext(roles=frozenset({"user"})))
    assert res.for_model() == {
        "success": False, "permission": "denied", "violations": [],
        "guidance": "account-close was refused: the caller lacks the role admin. Do not retry; tell the user it was "
                    "refused.",
        "tool": "account-close",
        "active_constraints": {
            "required": ["account_id"],
            "parameters": {"account_id": {"type": "string", "pattern": "^[A-Z]{2}[0-9]+$"},
                           "reason": {"type": "string", "enum": ["fraud", "request"]}},
            "required_roles": ["admin"], "approval": {"roles": ["manager", "director"], "count": 2},
            "rate_limit": "2/minute", "cooldown": "10s"}}
    # roles come before value checks
    assert guard.check({"bad": 1}).permission == "denied"


def test_approvals(tmp_path: Path) -> None:
    mod = build(FEATURES, tmp_path, FEATURES_PRE)
    guard = mod.GUARDS["account-close"]
    fp = mod.fingerprint("account-close", CLOSE)
    calls: list[Any] = []

    def hook(ticket: Any) -> dict[str, object]:
        calls.append(ticket)
        return {"url": "https://approve.example/SECRET-TOKEN", "code": "C0DE-77"}

    base = {"actor": "alice", "roles": frozenset({"admin"}), "request_approval": hook}
    t = [0.0]

    def ctx(*approvals: Any) -> Any:
        t[0] += 100  # keep clear of rate limit and cooldown
        return mod.GuardContext(approvals=tuple(approvals), now=t[0], **base)

    # check: no hook, approval null
    res = guard.check(CLOSE, ctx())
    assert res.permission == "approval_required" and calls == []
    assert res.to_dict()["caller_only"] == {"fingerprint": fp, "approval": None}
    assert res.guidance == ("account-close needs approval by 2 approvers holding one of the roles manager, director. "
                            "Nobody has been asked yet: running the call will request approval. Do not try to approve "
                            "it yourself.")
    # run: the hook is called with a ticket; its result travels only in caller_only
    res = guard.run(_book, CLOSE, ctx())
    assert res.guidance == ("account-close needs approval by 2 approvers holding one of the roles manager, director. "
                            "A person is handling the request. Do not repeat the call or try to approve it yourself; "
                            "tell the user approval is pending or continue with other work.")
    assert res.caller_only == {"fingerprint": fp,
                               "approval": {"url": "https://approve.example/SECRET-TOKEN", "code": "C0DE-77"}}
    assert len(calls) == 1
    ticket = calls[0]
    assert (ticket.tool, ticket.intent, ticket.fingerprint, ticket.roles, ticket.count, dict(ticket.arguments)) == (
        "account-close", "account.close", fp, ("manager", "director"), 2, CLOSE)
    model_text = json.dumps(res.for_model())
    for secret in ("SECRET-TOKEN", "C0DE-77", fp):
        assert secret not in model_text
    # self-approval, wrong role, other fingerprint and the same approver twice do not count
    res = guard.run(_book, CLOSE, ctx(_approval(mod, fp, "alice"), _approval(mod, fp, "bob"),
                                      _approval(mod, fp, "carol", ("intern",)), _approval(mod, "f" * 64, "dave"),
                                      _approval(mod, fp, "bob", id="2")))
    assert res.permission == "approval_required"
    # a counting refusal denies
    res = guard.run(_book, CLOSE, ctx(_approval(mod, fp, "bob"), _approval(mod, fp, "erin", granted=False)))
    assert res.for_model()["permission"] == "denied"
    assert res.guidance == ("account-close was refused: an approver refused the call. Do not retry; tell the user it "
                            "was refused.")
    # a refusal by someone who does not count is ignored
    res = guard.check(CLOSE, ctx(_approval(mod, fp, "alice", granted=False)))
    assert res.permission == "approval_required"
    # two call-scoped approvals: approved once
    pair = (_approval(mod, fp, "bob", id="b1"), _approval(mod, fp, "erin", ("director",), id="e1"))
    assert guard.check(CLOSE, ctx(*pair)).to_dict() == {
        "success": True, "permission": "approved", "violations": [], "guidance": "The call is allowed.",
        "tool": "account-close"}
    res = guard.run(_book, CLOSE, ctx(*pair))
    assert res.to_dict() == {"success": True, "result": "booked", "permission": "approved", "violations": [],
                             "guidance": "The call was approved and has run.", "tool": "account-close"}
    calls.clear()
    res = guard.run(_book, CLOSE, ctx(*pair))  # both approvals used
    assert res.permission == "approval_required" and len(calls) == 1
    # one fresh, one used: fewer than 2 remain
    res = guard.run(_book, CLOSE, ctx(_approval(mod, fp, "bob", id="b2"), pair[1]))
    assert res.permission == "approval_required"
    # bob's b2 was consumed by that refused call; fresh ids work
    res = guard.run(_book, CLOSE, ctx(_approval(mod, fp, "bob", id="b3"),
                                      _approval(mod, fp, "erin", ("director",), id="e3")))
    assert res.permission == "approved" and res.success


def test_approval_guidance_is_honest_and_not_counted_explains(tmp_path: Path) -> None:
    """`approval_required` says a person handles it only when a request was made and someone notified;
    an approval past its `expires` does not count and the call is `expired`; `caller_only.not_counted` says why
    each offered approval did not count."""
    mod = build(FEATURES, tmp_path, FEATURES_PRE)
    guard = mod.GUARDS["account-close"]
    fp = mod.fingerprint("account-close", CLOSE)
    head = "account-close needs approval by 2 approvers holding one of the roles manager, director. "
    t = [0.0]

    def ctx(*approvals: Any, hook: Any = None) -> Any:
        t[0] += 100
        return mod.GuardContext(actor="alice", roles=frozenset({"admin"}), approvals=tuple(approvals), now=t[0],
                                request_approval=hook)

    res = guard.run(_book, CLOSE, ctx())
    assert res.guidance == head + ("No approval channel is configured, so nobody has been asked and the call cannot "
                                   "proceed from here. Do not repeat the call or try to approve it yourself; tell the "
                                   "user.")
    res = guard.run(_book, CLOSE, ctx(hook=lambda t: {"request_id": "r1", "notified": False}))
    assert res.guidance == head + ("The request was recorded, but nobody could be notified, so it waits until an "
                                   "approver looks for it. Do not repeat the call or try to approve it yourself; tell "
                                   "the user approval is pending.")
    res = guard.run(_book, CLOSE, ctx(hook=lambda t: {"request_id": "r1", "status": "expired"}))
    assert res.to_dict() == {
        "success": False, "permission": "expired", "violations": [],
        "guidance": "account-close's request for approval expired before it was decided, so the call did not run. "
                    "Do not repeat the call by yourself; tell the user, who can ask for approval again.",
        "tool": "account-close", "active_constraints": dict(guard.active_constraints),
        "caller_only": {"fingerprint": fp, "approval": {"request_id": "r1", "status": "expired"}}}
    now = t[0] + 100
    offered = (_approval(mod, fp, "alice"), _approval(mod, fp, "carol", ("intern",)),
               _approval(mod, "f" * 64, "dave"), mod.Approval("bob", ("manager",), fp, id="b", expires=now - 1))
    res = guard.check(CLOSE, ctx(*offered))
    assert res.permission == "expired"
    assert res.caller_only["not_counted"] == [
        {"approver": "alice", "id": "", "reason": "self-approval"},
        {"approver": "carol", "id": "", "reason": "roles"},
        {"approver": "dave", "id": "", "reason": "different arguments"},
        {"approver": "bob", "id": "b", "reason": "expired"}]
    pair = (mod.Approval("bob", ("manager",), fp, id="b2", expires=now + 1000),
            mod.Approval("erin", ("director",), fp, id="e2", expires=now + 1000))
    assert guard.run(_book, CLOSE, ctx(*pair)).permission == "approved"
    res = guard.run(_book, CLOSE, ctx(*pair))
    assert res.permission == "approval_required"
    assert res.caller_only["not_counted"] == [{"approver": "bob", "id": "b2", "reason": "already used"},
                                              {"approver": "erin", "id": "e2", "reason": "already used"}]


def test_value_scoped_approval_remembered_not_by_check(tmp_path: Path) -> None:
    mod = build(FEATURES, tmp_path, FEATURES_PRE)
    guard = mod.GUARDS["account-close"]
    fp = mod.fingerprint("account-close", CLOSE)
    value_pair = (_approval(mod, fp, "bob", scope="value"), _approval(mod, fp, "erin", scope="value"))
    admin = frozenset({"admin"})
    assert guard.check(CLOSE, mod.GuardContext(actor="ann", roles=admin, approvals=value_pair, now=0)).permission == "approved"
    assert guard.check(CLOSE, mod.GuardContext(actor="ann", roles=admin, now=0)).permission == "approval_required"
    assert guard.run(_book, CLOSE, mod.GuardContext(actor="ann", roles=admin, approvals=value_pair, now=0)).success
    later = guard.run(_book, CLOSE, mod.GuardContext(actor="ann", roles=admin, now=100))
    assert later.success and later.permission == "approved"
    other = guard.check({"account_id": "DE999"}, mod.GuardContext(actor="ann", roles=admin, now=200))
    assert other.permission == "approval_required"


# ---------------------------------------------------------------------------------------------- rate limit, cooldown
def test_rate_limit_and_cooldown(tmp_path: Path) -> None:
    mod = build(FEATURES, tmp_path, FEATURES_PRE)
    store = mod.InMemoryStore()
    guard = mod.make_guards(store)["account-close"]
    fp = mod.fingerprint("account-close", CLOSE)

    def at(now: float) -> Any:
        approvals = (_approval(mod, fp, "bob", scope="value"), _approval(mod, fp, "erin", scope="value"))
        return mod.GuardContext(roles=frozenset({"admin"}), approvals=approvals, now=now)

    for _ in range(3):  # check never records
        assert guard.check(CLOSE, at(0)).success
    assert guard.run(_book, CLOSE, at(0)).success
    res = guard.run(_book, CLOSE, at(4.2))
    assert res.for_model()["violations"] == [
        {"field": None, "constraint": "cooldown", "expected": "10s", "actual": {"retry_after_seconds": 6},
         "message": "account-close needs a cooldown of 10s between calls; retry after 6 seconds."}]
    assert res.guidance == "account-close is rate limited (10s). Try again in 6 seconds."
    assert guard.check(CLOSE, at(4.2)).permission == "rate_limited"
    assert guard.run(_book, CLOSE, at(10)).success
    res = guard.run(_book, CLOSE, at(25))
    assert res.permission == "rate_limited"
    assert res.violations[0].to_dict() == {
        "field": None, "constraint": "rate_limit", "expected": "2/minute", "actual": {"retry_after_seconds": 35},
        "message": "account-close is rate limited (2/minute); retry after 35 seconds."}
    assert res.guidance == "account-close is rate limited (2/minute). Try again in 35 seconds."
    res = guard.run(_book, CLOSE, at(59.9))
    assert res.violations[0].actual == {"retry_after_seconds": 1}
    assert guard.run(_book, CLOSE, at(60)).success  # t=0 left the window
    # another guard set with its own store is independent; GUARDS shares one default store
    assert mod.make_guards()["account-close"].run(_book, CLOSE, at(61)).success


# ---------------------------------------------------------------------------------------------- relations, bounds
def _fails(guard: Any, args: dict[str, object]) -> list[tuple[object, str]]:
    return [(v.field, v.constraint) for v in guard.check(args).violations]


def test_relations_and_bounds(tmp_path: Path) -> None:
    mod = build(FEATURES, tmp_path, FEATURES_PRE)
    g = mod.GUARDS["event_schedule"]
    base: dict[str, object] = {"email": "a@b", "coupon": "C", "customer_id": "c"}
    assert _fails(g, base) == []
    # date-time as instants (offsets normalised, second 60)
    assert _fails(g, {**base, "start": "2026-01-01T10:00:00+02:00", "end": "2026-01-01T08:30:00Z"}) == []
    res = g.check({**base, "start": "2026-01-01T10:00:00Z", "end": "2026-01-01T11:00:00+02:00"})
    assert [v.to_dict() for v in res.violations] == [
        {"field": "end", "constraint": "greater_than", "expected": "end is after start",
         "actual": {"end": "2026-01-01T11:00:00+02:00", "start": "2026-01-01T10:00:00Z"},
         "message": "end must be after start."}]
    assert _fails(g, {**base, "start": "2026-01-01T23:59:60Z", "end": "2026-01-01T23:59:59.9999999z"}) == []
    # time as seconds since midnight UTC, no wrapping
    assert _fails(g, {**base, "t1": "23:00:00-02:00", "t2": "00:30:00Z"}) == [("t2", "greater_than_or_equal")]
    assert _fails(g, {**base, "t1": "01:00:00+02:00", "t2": "00:30:00Z"}) == []
    # local date-time normalised before comparing with the literal and the bound
    assert _fails(g, {**base, "local": "2030-01-01T00:00:00.000"}) == [("local", "less_than")]
    assert _fails(g, {**base, "local": "2029-12-31T23:59"}) == []
    assert g.check({**base, "local": "2026-01-01T07:59:59.9"}).violations[0].to_dict() == {
        "field": "local", "constraint": "formatMinimum", "expected": "2026-01-01T08:00",
        "actual": "2026-01-01T07:59:59.9", "message": "local must not be before 2026-01-01T08:00."}
    assert _fails(g, {**base, "local": "2026-01-01T08:00:00"}) == []
    # numeric comparisons, literal and parameter
    assert _fails(g, {**base, "amount": 5, "limit": 5}) == []
    assert [v.message for v in g.check({**base, "amount": 6.5, "limit": 5}).violations] == [
        "amount must be at most limit."]
    assert [v.message for v in g.check({**base, "amount": 0}).violations] == ["amount must be greater than 0."]
    # an invalid operand makes the relation vacuous
    assert _fails(g, {**base, "amount": "x", "limit": 1}) == [("amount", "type")]
    # equality is JSON equality
    assert _fails(g, {**base, "tags": ["a"], "other_tags": ["a"]}) == []
    assert [v.message for v in g.check({**base, "tags": ["a"], "other_tags": ["b"]}).violations] == [
        "tags must equal other_tags."]
    phone = {"coupon": "C", "customer_id": "c", "phone": "1", "user_id": "1"}
    assert [v.message for v in g.check(phone).violations] == [
        "phone must differ from user_id.", "Give exactly one of email, phone, user_id; got 2."]
    # presence forms
    assert [v.message for v in g.check({"email": "a@b", "coupon": "C"}).violations] == [
        "customer_id is required when coupon is given.",
        "customer_id is required when coupon is given.",
    ]
    res = g.check({"email": "a@b", "phone": "2", "vat_id": "V", "country": "DE"})
    assert [(v.constraint, v.actual, v.message) for v in res.violations] == [
        ("mutually_exclusive", {"email": "a@b", "phone": "2"}, "email and phone cannot both be given."),
        ("exactly_one_of", {"email": "a@b", "phone": "2"}, "Give exactly one of email, phone, user_id; got 2."),
    ]
    res = g.check({"country": "DE", "user_id": "u"})
    assert [(v.field, v.constraint, v.message) for v in res.violations] == [
        ("coupon", "at_least_one_of", "Give at least one of coupon, vat_id."),
        ("vat_id", "required_when_equal", 'vat_id is required when country is "DE".'),
    ]
    assert _fails(g, {"user_id": "u", "vat_id": "V", "country": "FR"}) == []
    assert [v.message for v in g.check({"vat_id": "V"}).violations] == ["Give exactly one of email, phone, user_id; got 0."]
    # bounds: date, overnight time window, month, week
    assert [v.to_dict() for v in g.check({**base, "day": "2027-01-01"}).violations] == [
        {"field": "day", "constraint": "formatMaximum", "expected": "2026-12-31", "actual": "2027-01-01",
         "message": "day must not be after 2026-12-31."}]
    for ok in ("22:00", "23:59:59", "00:00", "06:00:00.000"):
        assert _fails(g, {**base, "slot": ok}) == [], ok
    assert [v.to_dict() for v in g.check({**base, "slot": "06:00:00.001"}).violations] == [
        {"field": "slot", "constraint": "formatMinimum", "expected": "22:00", "actual": "06:00:00.001",
         "message": "slot must be 22:00 or later, or 06:00 or earlier."}]
    assert _fails(g, {**base, "month": "2026-07", "week": "2026-W09"}) == [
        ("month", "formatMaximum"), ("week", "formatMinimum")]
    assert _fails(g, {**base, "month": "2026-06", "week": "2026-W10"}) == []
    # a value that failed its own checks is not bound-checked
    assert _fails(g, {**base, "day": "2027-02-30"}) == [("day", "format")]


def test_report_export_no_parameters(tmp_path: Path) -> None:
    mod = build(FEATURES, tmp_path, FEATURES_PRE)
    g = mod.GUARDS["report_export"]
    assert g.run(lambda a: dict(a), {}).to_dict() == {
        "success": True, "result": {}, "permission": "not_required", "violations": [],
        "guidance": "The call succeeded.", "tool": "report_export"}
    assert g.check({"x": 1}).violations[0].message == "x is not a parameter of report_export."


# ---------------------------------------------------------------------------------------------- files and CLI
def test_user_module_created_once_and_missing_stubs(tmp_path: Path) -> None:
    out = tmp_path / "g"
    warnings, stale = write_guards(FEATURES, out)
    assert warnings == [] and stale == []
    user = (out / "preconditions.py").read_text(encoding="utf-8")
    assert "def calendar_is_open(" in user and "def pre_import(" in user
    assert 'raise NotImplementedError("precondition \\"import\\" (used by event_schedule) is not implemented")' in user
    assert 'precondition \\"calendar is open\\" (used by event_schedule, report_export)' in user
    custom = "def calendar_is_open(arguments, context, tool):\n    return True\n"
    (out / "preconditions.py").write_text(custom, encoding="utf-8")
    warnings, _ = write_guards(FEATURES, out)
    assert (out / "preconditions.py").read_text(encoding="utf-8") == custom
    assert warnings == [(f"{out / 'preconditions.py'} lacks precondition functions pre_import; their source is in "
                         f"{out / 'preconditions.missing.txt'}")]
    missing = (out / "preconditions.missing.txt").read_text(encoding="utf-8")
    assert "def pre_import(arguments: Mapping[str, object], context: GuardContext, tool: str) -> bool:" in missing
    assert "calendar_is_open" not in missing
    (out / "preconditions.py").write_text(custom + "\n\ndef pre_import(a, c, t):\n    return True\n")
    warnings, _ = write_guards(FEATURES, out)
    assert warnings == [] and not (out / "preconditions.missing.txt").exists()
    # check mode compares generated files only
    assert write_guards(FEATURES, out, check=True)[1] == []
    (out / "_guards.py").write_text("changed\n")
    stale = write_guards(FEATURES, out, check=True)[1]
    assert [p for p, _ in stale] == ["_guards.py"]
    assert (out / "_guards.py").read_text() == "changed\n"


def test_deterministic_output(tmp_path: Path) -> None:
    one = render_guards(FEATURES, "python", None)
    two = render_guards(json.loads(json.dumps(FEATURES)), "python", None)
    assert one == two
    assert one.files["_runtime.py"] == (Path(__file__).resolve().parents[2] / "axag" / "values" /
                                        "pyruntime.py").read_text(encoding="utf-8")
    assert one.files["_guards.py"].startswith("# Generated by axag ")
    write_guards(FEATURES, tmp_path / "a")
    write_guards(FEATURES, tmp_path / "b")
    for name in ("__init__.py", "_runtime.py", "_guards.py", "preconditions.py"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_cli_guards(tmp_path: Path) -> None:
    runner = CliRunner()
    booking = str(DATA / "booking.tools.json")
    res = runner.invoke(main, ["guards", booking, "-o", str(tmp_path / "out")], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "__init__.py", "_guards.py", "_runtime.py", "preconditions.py"]
    assert runner.invoke(main, ["guards", booking]).exit_code == 2  # -o is required
    bad = tmp_path / "bad.json"
    for text in ("{", '{"tools": []}', "[]"):
        bad.write_text(text)
        assert runner.invoke(main, ["guards", str(bad), "-o", str(tmp_path / "x")]).exit_code == 2
    other = json.loads(json.dumps(BOOKING))
    other["$schema"] = "https://axag.org/schema/tools/v1/openai-tools.schema.json"
    bad.write_text(json.dumps(other))
    res = runner.invoke(main, ["guards", str(bad), "-o", str(tmp_path / "x")])
    assert res.exit_code == 2 and "not a valid MCP tools file" in res.output
    assert runner.invoke(main, ["guards", str(tmp_path / "nope.json"), "-o", str(tmp_path / "x")]).exit_code == 2


# ---------------------------------------------------------------------------------------------- code quality
def test_generated_python_passes_ruff_mypy_and_parses_as_3_10(tmp_path: Path) -> None:
    injection = json.loads((DATA / "injection.tools.json").read_text(encoding="utf-8"))
    for name, doc in (("features", FEATURES), ("booking", BOOKING), ("injection", injection),
                      ("empty", {"tools": []})):
        write_guards(doc, tmp_path / name)
        for path in (tmp_path / name).glob("*.py"):
            ast.parse(path.read_text(encoding="utf-8"), feature_version=(3, 10))
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "."],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--python-version", "3.10", "--no-incremental",
         "--cache-dir", str(tmp_path / ".mypy_cache"), "features", "booking", "injection", "empty"],
        cwd=tmp_path, capture_output=True, text=True, check=False)
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr


def test_rate_limit_is_atomic_across_threads(tmp_path: Path) -> None:
    import threading

    mod = build(BOOKING, tmp_path, BOOKING_PRE)
    guard = mod.make_guards()["booking_create"]
    results: list[str] = []
    lock = threading.Lock()

    def worker(i: int) -> None:
        args = {**VALID, "note": str(i)}
        fp = mod.fingerprint("booking_create", args)
        ctx = mod.GuardContext(confirmation=mod.Confirmation(fp, "u", str(i)), now=1000.0)
        res = guard.run(_book, args, ctx)
        with lock:
            results.append(res.permission)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["not_required"] * 10 + ["rate_limited"] * 30


def test_custom_store_receives_protocol_calls(tmp_path: Path) -> None:
    mod = build(FEATURES, tmp_path, FEATURES_PRE)

    class PerActorStore:
        def __init__(self) -> None:
            self.inner: dict[str | None, Any] = {}
            self.calls: list[tuple[str, ...]] = []

        def _for(self, actor: str | None) -> Any:
            return self.inner.setdefault(actor, mod.InMemoryStore())

        def acquire(self, intent: str, actor: str | None, now: float, limit: int | None,
                    window_seconds: float | None, cooldown_seconds: float | None, record: bool) -> float | None:
            self.calls.append(("acquire", intent, str(actor), str(record)))
            return self._for(actor).acquire(intent, actor, now, limit, window_seconds, cooldown_seconds, record)

        def remember_approval(self, tool: str, fingerprint: str, actor: str, approvers: Any, expires: float) -> None:
            self.calls.append(("remember", tool))
            self._for(None).remember_approval(tool, fingerprint, actor, approvers, expires)

        def approved_before(self, tool: str, fingerprint: str, actor: str, now: float) -> Any:
            return self._for(None).approved_before(tool, fingerprint, actor, now)

        def consume(self, tool: str, fingerprint: str, key: str) -> bool:
            self.calls.append(("consume", tool, key))
            return bool(self._for(None).consume(tool, fingerprint, key))

    store = PerActorStore()
    guard = mod.make_guards(store)["account-close"]
    fp = mod.fingerprint("account-close", CLOSE)
    approvals = (_approval(mod, fp, "bob", id="1"), _approval(mod, fp, "erin", scope="value", id="2"))
    # erin's remembered approval is alice's; for zoe, bob's call approval is spent
    for actor, permission in (("alice", "approved"), ("zoe", "approval_required")):
        ctx = mod.GuardContext(actor=actor, roles=frozenset({"admin"}), approvals=approvals, now=0)
        res = guard.run(_book, CLOSE, ctx)
        assert res.permission == permission, res.to_dict()
    assert store.calls == [
        ("acquire", "account.close", "alice", "True"), ("consume", "account-close", "approval:bob:1"),
        ("remember", "account-close"),
        ("acquire", "account.close", "zoe", "True"), ("consume", "account-close", "approval:bob:1"),
    ]
