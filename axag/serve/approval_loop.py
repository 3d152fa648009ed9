"""The human approval loop of `axag serve`: the `request_permission` tool, waiting for or telling the
outcome, and reaching a person (webhook, command, MCP URL-mode elicitation).

An approval link is a bearer capability: it goes to the calling client's user (URL elicitation), to the notifier
and into the guard's `caller_only` (which never leaves the server), never into anything the model reads, the
audit log or the log at the default level.
"""

from __future__ import annotations

import json
import logging
import math
import shlex
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from axag.outcome.errors import InputError
from axag.serve.app import (
    Caller,
    ServeConfig,
    ToolServer,
    _envelope_result,
    checked_call,
    listed_tool,
    nulls_as_absent,
)
from axag.serve.approvals import ApprovalDesk, ApprovalRequest
from axag.serve.state import SqlStore

__all__ = ["ARGUMENTS_DESCRIPTION", "REQUEST_PERMISSION", "DeskConfig", "DeskToolServer", "arguments_of",
           "permission_tool"]

log = logging.getLogger("axag.serve")

REQUEST_PERMISSION = "request_permission"
_LINK_KEY = "approval_link"
_WEBHOOK_DELAYS = (0.5, 1.0, 2.0)  # backoff between the webhook's attempts (4 attempts in all)


@dataclass
class DeskConfig:
    mode: str = "wait"  # wait | tell
    ttl: float = 900.0
    notify_webhook: str | None = None
    notify_command: str | None = None
    page_url: str | None = None  # origin of the approval page, e.g. http://127.0.0.1:8765; None: no page
    poll: float = 0.2
    value_ttl: float = 86400.0  # how long "approve these values" lasts, for the actor who asked
    max_pending: int = 5  # distinct pending requests per actor


ARGUMENTS_DESCRIPTION = ('The exact arguments of the call, written as a JSON object in a string, e.g. '
                         '{"order_id": "A1", "amount": 20}.')


def arguments_of(value: object) -> dict[str, Any] | None:
    """The arguments of a `request_permission` call: the JSON object text the tool asks for, or the object itself
    (the shape before arguments became a JSON text, still accepted); None when it is neither."""
    if isinstance(value, str):
        try:  # JSON proper: no NaN or Infinity (a JSON-RPC object cannot hold them either)
            value = json.loads(value, parse_constant=_no_constant, parse_float=_finite)
        except (ValueError, RecursionError):  # RecursionError: nested too deeply for the parser
            return None
    return dict(value) if isinstance(value, dict) else None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):  # 1e999
        raise ValueError(f"{text} is out of range")
    return number


def permission_tool(gated: list[str]) -> dict[str, Any]:
    """The `request_permission` tool as tools/list shows it."""
    tool: dict[str, Any] = {"type": "string", "description": "The tool that needs approval."}
    if gated:
        tool["enum"] = gated
    return {
        "name": REQUEST_PERMISSION,
        "title": "Request permission",
        "description": ("Ask a person to approve a call of a tool that needs approval. Give the tool, the exact "
                        "arguments of the call and why it is needed. The values are checked first; an approver "
                        "cannot make invalid values valid."),
        "inputSchema": {"type": "object", "properties": {
            "tool": tool,
            # a JSON text, not an object: strict-mode hosts (OpenAI, openai-agents) cannot express "any object";
            # an object is still accepted from clients that send one
            "arguments": {"type": "string", "description": ARGUMENTS_DESCRIPTION},
            "reason": {"type": "string", "minLength": 1, "maxLength": 500,
                       "description": "Why the call is needed, for the approver."}},
            "required": ["tool", "arguments", "reason"], "additionalProperties": False},
        "annotations": {"title": "Request permission", "readOnlyHint": False, "destructiveHint": False,
                        "idempotentHint": False, "openWorldHint": True},
    }


def _plain(tool: str, success: bool, permission: str, guidance: str) -> dict[str, Any]:
    return {"success": success, "permission": permission, "violations": [], "guidance": guidance, "tool": tool}


class DeskToolServer(ToolServer):
    """`ToolServer` with the approval workflow: `request_permission`, approvals from the state database."""

    def __init__(self, config: ServeConfig, store: SqlStore, desk_config: DeskConfig) -> None:
        super().__init__(config, store)
        if REQUEST_PERMISSION in self.tools:
            raise InputError(f"a served tool is named {REQUEST_PERMISSION}, the name of the approval tool")
        self.desk_config = desk_config
        self.desk = ApprovalDesk(store)
        self.gated = sorted(name for name, g in self.guards.items() if g.approval_required)
        self._listed.append(types.Tool.model_validate(listed_tool(permission_tool(self.gated)), by_alias=True))
        self.desk_http: tuple[str, int] | None = None  # stdio mode: where the approval page listens
        if desk_config.page_url is not None:  # `axag approvals link` makes its links from it
            store.set_setting("page_url", desk_config.page_url)

    def _context(self, caller: Caller, confirmation: Any, **extra: Any) -> Any:
        return super()._context(caller, confirmation, remember_seconds=self.desk_config.value_ttl, **extra)

    def wrap_asgi(self, app: Any) -> Any:
        """HTTP mode: the approval page on the server's own port."""
        from axag.serve.approval_page import desk_app, with_desk

        return with_desk(app, desk_app(self))

    # ------------------------------------------------------------------ approvals of direct calls
    def _approvals(self, req: ApprovalRequest) -> tuple[Any, ...]:
        """The request's decisions as the guard's approvals, until a call ran on them; approved values last no
        longer than --value-approval-ttl."""
        if req.spent:
            return ()
        return tuple(self.guard_module.Approval(
            d.approver, d.roles, req.fingerprint, d.granted, d.scope, id=req.id,
            expires=req.approvals_valid_until if d.scope == "call" else min(
                req.approvals_valid_until, d.at + self.desk_config.value_ttl)) for d in req.decisions)

    async def _guarded(self, ctx: Any, params: types.CallToolRequestParams, tool: Mapping[str, Any], guard: Any,
                       caller: Caller, arguments: dict[str, Any]
                       ) -> types.InputRequiredResult | tuple[dict[str, Any], int | None]:
        outcome = await super()._guarded(ctx, params, tool, guard, caller, arguments)
        if guard.approval_required and isinstance(outcome, tuple) and "result" in outcome[0]:
            req = self.desk.latest(guard.tool, self.guard_module.fingerprint(guard.tool, arguments), caller.actor)
            if req is not None and req.status == "approved":
                self.desk.spend(req.id)
        return outcome

    def _info(self, req: ApprovalRequest, link: str | None = None) -> dict[str, Any]:
        status = req.status
        if status == "approved" and time.time() >= req.approvals_valid_until:
            status = "expired"
        info: dict[str, Any] = {"request_id": req.id, "status": status, "notified": req.notified,
                                "approvals": req.granted, "needed": req.count,
                                "expires": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(req.expires))}
        if link is not None:
            info["link"] = link
        return info

    def _approval_context(self, guard: Any, arguments: dict[str, Any], caller: Caller) -> dict[str, Any]:
        if not guard.approval_required or not isinstance(arguments, dict):
            return {}
        req = self.desk.latest(guard.tool, self.guard_module.fingerprint(guard.tool, arguments), caller.actor)
        if req is None:
            return {}
        info = self._info(req)
        return {"approvals": self._approvals(req), "request_approval": lambda ticket: info}

    def _refusal(self, guard: Any, result: Any) -> dict[str, Any]:
        envelope: dict[str, Any] = result.for_model()
        permission = envelope["permission"]
        info = result.caller_only.get("approval")
        rid = info.get("request_id") if isinstance(info, Mapping) else None
        if permission == "approval_required" and rid is None:
            head = str(envelope["guidance"]).split(". ", 1)[0]
            envelope["guidance"] = (f"{head}. Nobody has been asked yet: call {REQUEST_PERMISSION} with this tool, "
                                    "the same arguments as a JSON text and a reason (1-500 characters) to ask an "
                                    "approver. Do not try to approve it yourself.")
        elif (rid is not None and permission == "approval_required" and isinstance(info, Mapping)
              and info.get("status") == "approved"):  # approved, and the approved call has run: used up
            head = str(envelope["guidance"]).split(". ", 1)[0]
            envelope["guidance"] = (f"{head}. (Approval request {rid}: its {info['approvals']} of {info['needed']} "
                                    "approvals were used by the call they approved; an approval lets a call run "
                                    f"once. To run it again, call {REQUEST_PERMISSION} with this tool, the same "
                                    "arguments and a reason, and an approver decides again.)")
        elif rid is not None and permission in ("approval_required", "expired", "denied") and isinstance(info,
                                                                                                        Mapping):
            envelope["guidance"] = (f"{envelope['guidance']} (Approval request {rid}: {info['approvals']} of "
                                    f"{info['needed']} approvals given.)")
        return envelope

    # ------------------------------------------------------------------ request_permission
    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        if params.name != REQUEST_PERMISSION:
            return await super()._call_tool(ctx, params)
        self.in_flight += 1
        started = time.monotonic()
        caller = self._caller(ctx)
        args = dict(params.arguments or {})
        envelope: dict[str, Any] | None = None
        status: int | None = None
        fp: str | None = None
        try:
            problem = self._bad_request(args)
            if problem is not None:
                envelope = _plain(REQUEST_PERMISSION, False, "constraint_violated", problem)
                return _envelope_result(envelope)
            name, given = str(args["tool"]), arguments_of(args["arguments"])
            assert given is not None  # _bad_request checked it
            arguments = nulls_as_absent(self.tools[name]["inputSchema"], given)
            guard = self.guards[name]
            if not guard.approval_required:
                envelope = _plain(name, True, "not_required", f"{name} needs no approval: call it directly. "
                                  "Nothing was requested.")
                return _envelope_result(envelope)
            fp = str(self.guard_module.fingerprint(name, arguments))
            outcome = await self._as_envelope(guard, REQUEST_PERMISSION, self._request(
                ctx, params, caller, name, guard, arguments, str(args["reason"]), fp))
            if isinstance(outcome, types.InputRequiredResult):
                return outcome
            envelope, status = outcome
            return _envelope_result(envelope)
        finally:
            self.in_flight -= 1
            permission = str(envelope["permission"]) if envelope else "error"
            seconds = time.monotonic() - started
            await self._audit(actor=caller.actor, tool=str(args.get("tool", REQUEST_PERMISSION)), fingerprint=fp,
                              permission=permission, backend_status=status, duration_ms=seconds * 1000.0,
                              arguments=args if self.config.audit_arguments else None)
            self._finished(REQUEST_PERMISSION, True, caller, permission, status, seconds)

    def _bad_request(self, args: Mapping[str, Any]) -> str | None:
        extra = sorted(set(args) - {"tool", "arguments", "reason"})
        if extra:
            return f"{REQUEST_PERMISSION} takes tool, arguments and reason; not {', '.join(extra)}."
        tool, arguments, reason = args.get("tool"), args.get("arguments"), args.get("reason")
        if not isinstance(tool, str) or tool not in self.tools:
            return (f"{REQUEST_PERMISSION}: tool must name a served tool"
                    + (f" (these need approval: {', '.join(self.gated)})." if self.gated else "."))
        if arguments_of(arguments) is None:
            return (f"{REQUEST_PERMISSION}: arguments must be the text of a JSON object holding the arguments of the "
                    "call.")
        if not isinstance(reason, str) or not 1 <= len(reason) <= 500:
            return f"{REQUEST_PERMISSION}: reason must be a text of 1 to 500 characters saying why the call is needed."
        return None

    def _bypass(self, caller: Caller, fp: str, req: ApprovalRequest | None, link: str | None = None,
                approvals: bool = True) -> Any:
        """A context that passes the confirmation gate (never consumed: the call does not run) with the request's
        approvals (when ``approvals``) and its state as the approval hook's answer."""
        extra: dict[str, Any] = {}
        if req is not None:
            info = self._info(req, link)
            extra = {"approvals": self._approvals(req) if approvals else (), "request_approval": lambda ticket: info}
        confirmation = self.guard_module.Confirmation(fingerprint=fp, by=caller.actor, id=uuid.uuid4().hex)
        return self._context(caller, confirmation, **extra)

    async def _request(self, ctx: Any, asked: types.CallToolRequestParams, caller: Caller, name: str, guard: Any,
                       arguments: dict[str, Any], reason: str, fp: str
                       ) -> types.InputRequiredResult | tuple[dict[str, Any], int | None]:
        checked = await checked_call(guard, arguments, self._bypass(caller, fp, None))
        if checked.permission == "approved" and self.desk_config.mode == "tell":
            return _plain(name, True, "approved", f"{name} with these values is already approved: call it again "
                          "with the same arguments. Nothing was requested."), None
        if checked.permission not in ("approval_required", "approved"):
            return self._refusal(guard, checked), None  # an approver cannot make invalid values valid
        params = types.CallToolRequestParams(name=name, arguments=arguments)
        if checked.permission == "approved":
            return await self._run_now(ctx, params, guard, caller, arguments)
        req = self.desk.latest(name, fp, caller.actor)
        link = None
        answered = self._answered_elicitation(asked, req) if req is not None else None
        if req is not None and answered is not None:  # the retry of a 2026 call that carried the link
            if answered:
                self.desk.mark_notified(req.id)  # the client's user was shown the link
            req = self.desk.get(req.id) or req
        elif req is None or req.status != "pending":  # else: the same call's pending request, asked again
            pending = self.desk.pending_count(caller.actor)
            if pending >= self.desk_config.max_pending:
                return self._too_many(name, pending), None
            req = self.desk.create(tool=name, arguments=arguments, fingerprint=fp, reason=reason, actor=caller.actor,
                                   ttl=self.desk_config.ttl, count=guard.approval_count, roles=guard.approval_roles)
            modern = self._url_elicits(ctx) and ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
            link = None if modern else self._link(req)
            if await self._reach_people(ctx, req, guard, link):
                self.desk.mark_notified(req.id)
            if modern:
                return self._input_required(req, str(self._link(req)))
            req = self.desk.get(req.id) or req
        if self.desk_config.mode == "tell":
            told = await guard.arun(_never, arguments, self._bypass(caller, fp, req, link, approvals=False))
            return self._refusal(guard, told), None
        req = await self._wait(ctx, req)
        if req.status == "approved":
            return await self._run_now(ctx, params, guard, caller, arguments)
        return self._refusal(guard, await guard.arun(_never, arguments, self._bypass(caller, fp, req))), None

    def _too_many(self, name: str, pending: int) -> dict[str, Any]:
        limit = self.desk_config.max_pending
        message = (f"{REQUEST_PERMISSION} allows at most {limit} pending approval requests per caller; {pending} are "
                   "pending.")
        violation = {"field": None, "constraint": "max_pending", "expected": limit, "actual": pending,
                     "message": message}
        return {"success": False, "permission": "rate_limited", "violations": [violation],
                "guidance": (f"{message} Nothing was requested and nobody was notified. Wait until an approver has "
                             "decided on the pending requests (or they expire) before asking for more; do not "
                             "repeat the request."), "tool": name}

    async def _run_now(self, ctx: Any, params: types.CallToolRequestParams, guard: Any, caller: Caller,
                       arguments: dict[str, Any]) -> tuple[dict[str, Any], int | None]:
        tool = self.tools[params.name]
        outcome = await self._guarded(ctx, params, tool, guard, caller, arguments)
        if isinstance(outcome, types.InputRequiredResult):  # a 2026 session must confirm: it calls the tool itself
            return _plain(params.name, False, "confirmation_required", f"{params.name} is approved but needs the "
                          "user's confirmation: call it again with the same arguments."), None
        return outcome

    async def _wait(self, ctx: Any, req: ApprovalRequest) -> ApprovalRequest:
        """Poll the request until it is decided or expires, reporting progress (k of n approvals)."""
        shown = -1
        last = 0.0
        while True:
            current = self.desk.get(req.id) or req
            if current.status != "pending":
                return current
            now = time.monotonic()
            if current.granted != shown or now - last > 10.0:
                shown, last = current.granted, now
                await _progress(ctx, current.granted, current.count,
                                f"waiting for approval: {current.granted} of {current.count}")
            await anyio.sleep(min(self.desk_config.poll, max(0.01, current.expires - time.time())))

    # ------------------------------------------------------------------ reaching a person
    def _link(self, req: ApprovalRequest) -> str | None:
        if self.desk_config.page_url is None:
            return None
        return f"{self.desk_config.page_url}/approvals/{req.id}?code={self.desk.mint_code(req.id)}"

    def _message(self, req: ApprovalRequest, guard: Any) -> dict[str, Any]:
        summary = req.summary()
        return {"event": "approval_requested", "summary": f"{req.actor or 'An agent'} asks to run {req.tool}: "
                f"{req.reason}", "request": summary,
                "cli": f"axag approvals show {req.id}", "approvals_needed": guard.approval_count}

    async def _reach_people(self, ctx: Any, req: ApprovalRequest, guard: Any, link: str | None) -> bool:
        notified = False
        if self.desk_config.notify_webhook:
            notified |= await self._webhook(req, guard)
        if self.desk_config.notify_command:
            notified |= await self._command(req, guard)
        if link is not None:
            notified |= await self._elicit_url(ctx, req, link)
        return notified

    async def _webhook(self, req: ApprovalRequest, guard: Any) -> bool:
        url = str(self.desk_config.notify_webhook)
        body = self._message(req, guard)
        body["link"] = self._link(req)
        problem = ""
        async with httpx.AsyncClient(timeout=10.0) as client:
            for attempt, delay in enumerate((0.0, *_WEBHOOK_DELAYS)):
                await anyio.sleep(delay)
                try:
                    answer = await client.post(url, json=body)
                except httpx.HTTPError as exc:
                    problem = type(exc).__name__
                    continue
                if answer.is_success:
                    return True
                problem = f"HTTP {answer.status_code}"
                if 400 <= answer.status_code < 500 and answer.status_code not in (408, 429):
                    break
                log.info("axag serve: approval webhook attempt %d failed (%s)", attempt + 1, problem)
        log.warning("axag serve: the approval webhook failed for request %s (%s); approvers can use "
                    "`axag approvals list`", req.id, problem)
        return False

    async def _command(self, req: ApprovalRequest, guard: Any) -> bool:
        body = self._message(req, guard)
        body["link"] = self._link(req)
        try:
            with anyio.fail_after(30):
                done = await anyio.run_process(shlex.split(str(self.desk_config.notify_command)),
                                               input=json.dumps(body).encode(), check=False)
        except (OSError, TimeoutError) as exc:
            log.warning("axag serve: the approval notify command failed for request %s (%s)", req.id,
                        type(exc).__name__)
            return False
        if done.returncode != 0:
            log.warning("axag serve: the approval notify command exited %d for request %s", done.returncode, req.id)
            return False
        return True

    def _url_elicits(self, ctx: Any) -> bool:
        """The page exists and the calling client declared URL-mode elicitation."""
        caps = ctx.session.client_capabilities
        elicitation = getattr(caps, "elicitation", None) if caps is not None else None
        return self.desk_config.page_url is not None and elicitation is not None and elicitation.url is not None

    @staticmethod
    def _elicit_message(req: ApprovalRequest) -> str:
        return (f"{req.tool} needs approval by {req.count} approver(s). Open the approval page, or pass it to an "
                "approver.")

    def _input_required(self, req: ApprovalRequest, link: str) -> types.InputRequiredResult:
        """2026-07-28 sessions (no mid-call requests): the URL elicitation travels in an `InputRequiredResult`; the
        retried call, carrying the signed state, then waits (or tells) on the same request."""
        params = types.ElicitRequestURLParams(mode="url", message=self._elicit_message(req), url=link)
        return types.InputRequiredResult(input_requests={_LINK_KEY: types.ElicitRequest(params=params)},
                                         request_state=self._make_state(f"{REQUEST_PERMISSION}:{req.id}",
                                                                        req.fingerprint))

    def _answered_elicitation(self, asked: types.CallToolRequestParams, req: ApprovalRequest) -> bool | None:
        """None when the call is not the retry of `_input_required` for ``req``; else whether the user accepted."""
        if self._read_state(asked.request_state, f"{REQUEST_PERMISSION}:{req.id}", req.fingerprint) is None:
            return None
        reply = (asked.input_responses or {}).get(_LINK_KEY)
        action = reply.get("action") if isinstance(reply, dict) else getattr(reply, "action", None)
        return action == "accept"

    async def _elicit_url(self, ctx: Any, req: ApprovalRequest, link: str) -> bool:
        """URL-mode elicitation to the calling client's user, mid-call (handshake sessions)."""
        if not self._url_elicits(ctx) or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return False
        try:
            reply = await ctx.session.elicit_url(
                message=self._elicit_message(req), url=link, elicitation_id=req.id, related_request_id=ctx.request_id)
        except Exception:  # noqa: BLE001 - a client that fails the elicitation does not stop the request
            log.warning("axag serve: the URL elicitation for request %s failed", req.id)
            return False
        return getattr(reply, "action", None) == "accept"


async def _progress(ctx: Any, progress: int, total: int, message: str) -> None:
    """A progress notification, when the client gave the call a progress token."""
    meta = getattr(ctx, "meta", None)
    token = meta.get("progress_token", meta.get("progressToken")) if isinstance(meta, dict) else \
        getattr(meta, "progress_token", None)
    if token is None:
        return
    try:
        await ctx.session.send_progress_notification(token, progress, total, message,
                                                     related_request_id=ctx.request_id)
    except Exception:
        log.debug("axag serve: progress notification failed", exc_info=True)


async def _never(arguments: Mapping[str, object]) -> object:
    """The handler of envelopes built for a refused call: the gates refuse before it (no approvals count)."""
    return None  # pragma: no cover
