"""The MCP server of `axag serve` on the official SDK's low-level `Server`.

`tools/list` answers the compiled tools as they are. `tools/call` runs the tool's guard in-process, asks the
user for confirmation through MCP elicitation when the guard needs it, then runs the binding (the page's form,
an OpenAPI operation or a handler) and answers the envelope's model view as `structuredContent` (and as text).

Confirmation, by protocol era (what the SDK offers):
- handshake sessions (2025-11-25 and earlier) whose client declared form elicitation: the server sends
  `elicitation/create` in the middle of the call and, when the user accepts, runs the call with a fresh
  single-use confirmation;
- 2026-07-28 sessions (no server-to-client requests): the call answers `InputRequiredResult` carrying the
  elicitation and a signed `request_state`; the client's retry carries the user's answer;
- clients without elicitation get `confirmation_required` with guidance saying that this client cannot ask
  the user, so the call cannot proceed from here.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import hmac
import inspect
import json
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import httpx
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from axag.compile.subschemas import object_subschemas
from axag.serve.binding import BackendAnswer, path_problem, run_form, run_openapi
from axag.serve.logs import EVENT
from axag.serve.redact import Redactor
from axag.serve.state import SqlStore

if TYPE_CHECKING:
    from axag.serve.metrics import ServeMetrics

__all__ = ["ServeConfig", "ToolServer", "checked_call", "listed_tool", "nulls_as_absent"]

log = logging.getLogger("axag.serve")

CONFIRM_KEY = "confirm"
_STATE_TTL = 600.0
Handler = Callable[[Mapping[str, object]], Any]


@dataclass
class ServeConfig:
    tools_doc: dict[str, Any]
    base_url: str | None = None
    handlers: Mapping[str, Handler] = field(default_factory=dict)
    allow_unbound: bool = False
    actor: str | None = None
    roles: tuple[str, ...] = ()
    timeout: float = 30.0
    max_result_bytes: int = 65536
    audit_arguments: bool = False
    guards_dir: str | None = None


@dataclass(frozen=True)
class Caller:
    actor: str | None
    roles: frozenset[str]


def binding_of(tool: Mapping[str, Any]) -> Mapping[str, Any] | None:
    meta = tool.get("_meta", {})
    b = meta.get("org.axag/http") if isinstance(meta, dict) else None
    return b if isinstance(b, dict) else None


def unbound_tools(doc: Mapping[str, Any], handlers: Mapping[str, Any]) -> list[str]:
    """Tools that have neither an HTTP/OpenAPI binding nor a handler."""
    return [t["name"] for t in doc["tools"] if binding_of(t) is None and t["name"] not in handlers]


def listed_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A tool as tools/list shows it: its schemas without boolean subschemas (tools files compiled
    before boolean subschemas were removed have ``"result": true`` in ``outputSchema``, which the TypeScript MCP SDK refuses)."""
    out = dict(tool)
    for key in ("inputSchema", "outputSchema"):
        if key in out:
            out[key] = object_subschemas(out[key])
    return out


@functools.lru_cache(maxsize=4096)
def _allows_null(schema_text: str) -> bool:
    import jsonschema

    return bool(jsonschema.Draft202012Validator(json.loads(schema_text)).is_valid(None))


def nulls_as_absent(schema: object, value: object) -> Any:
    """`value` without the ``null`` of each optional property whose schema does not allow null, at every level:
    OpenAI strict-mode hosts send ``null`` for every optional parameter they leave out, whatever the
    target the tools were compiled for. A ``null`` a schema allows, of a required property or of a property the
    schema does not declare is kept (the guard judges it)."""
    if not isinstance(schema, Mapping):
        return value
    if isinstance(value, dict):
        props = schema.get("properties")
        if not isinstance(props, Mapping):
            return value
        required = schema.get("required")
        required = required if isinstance(required, list) else ()
        out: dict[str, Any] = {}
        for key, sub in value.items():
            declared = props.get(key)
            if sub is None and declared is not None and key not in required and not _allows_null(
                    json.dumps(declared, sort_keys=True)):
                continue
            out[key] = nulls_as_absent(declared, sub)
        return out
    if isinstance(value, list):
        return [nulls_as_absent(schema.get("items"), v) for v in value]
    return value


async def checked_call(guard: Any, arguments: dict[str, Any], context: Any) -> Any:
    """The guard's verdict on a call without running it: ``acheck`` (the store's coroutine twins awaited), or
    ``check`` for a guard package generated by an axag whose runtime has no ``acheck``."""
    acheck = getattr(guard, "acheck", None)
    return await acheck(arguments, context) if acheck is not None else guard.check(arguments, context)


def _envelope_result(envelope: dict[str, Any]) -> types.CallToolResult:
    text = json.dumps(envelope, ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=envelope,
                                is_error=not envelope.get("success", False))


def _start_of(body: object, limit: int = 200) -> str:
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    text = " ".join(text.split())
    return text[:limit] + ("…" if len(text) > limit else "")


class ToolServer:
    """The tools, their guards, the state store and the backend clients behind one MCP `Server`."""

    def __init__(self, config: ServeConfig, store: SqlStore) -> None:
        from axag.serve.guards import load_guards

        self.config = config
        self.store = store
        self.tools = {t["name"]: t for t in config.tools_doc["tools"]}
        self.guard_module, self.guards = load_guards(config.tools_doc, config.guards_dir, store)
        self.unbound = set(unbound_tools(config.tools_doc, config.handlers))
        self._secret = store.secret()
        self._clients: OrderedDict[str, httpx.AsyncClient] = OrderedDict()
        self._using: dict[str, int] = {}  # calls using each client: eviction never closes one in use
        self.redactor = Redactor(config.base_url)
        self.redactor.install(log)
        self.in_flight = 0  # tools/call handlers running
        self.requests_in_flight = 0  # HTTP POST requests being answered (set by the HTTP transport)
        self.metrics: ServeMetrics | None = None  # `--metrics` (set by the command)
        self.metrics_listen: tuple[str, int] | None = None  # `--metrics-listen`: their own listener
        self.server: Server[Any] = Server("axag", version=_version(), on_list_tools=self._list_tools,
                                          on_call_tool=self._call_tool)
        listed = []
        for t in config.tools_doc["tools"]:
            listed.append(types.Tool.model_validate(listed_tool(t), by_alias=True))
        self._listed = listed

    # ------------------------------------------------------------------ MCP handlers
    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self._listed)

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        self.in_flight += 1
        started = time.monotonic()
        caller = self._caller(ctx)
        tool = self.tools.get(params.name)
        arguments: dict[str, Any] = dict(params.arguments or {})
        if tool is not None:
            arguments = nulls_as_absent(tool["inputSchema"], arguments)
        status: int | None = None
        envelope: dict[str, Any] | None = None
        fp: str | None = None
        pending = "cancelled"  # what the audit records when no envelope was made (the client went away)
        try:
            if tool is None:
                pending = "unknown_tool"
                text = f"unknown tool {params.name!r}"
                return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
            guard = self.guards[params.name]
            fp = self.guard_module.fingerprint(params.name, arguments) if isinstance(arguments, dict) else None
            if params.name in self.unbound:
                envelope = self._unbound_envelope(guard)
                return _envelope_result(envelope)
            outcome = await self._as_envelope(guard, params.name,
                                              self._guarded(ctx, params, tool, guard, caller, arguments))
            if isinstance(outcome, types.InputRequiredResult):
                pending = "input_required"
                return outcome
            envelope, status = outcome
            return _envelope_result(envelope)
        finally:
            self.in_flight -= 1
            permission = str(envelope["permission"]) if envelope else pending
            seconds = time.monotonic() - started
            if tool is not None:
                await self._audit(actor=caller.actor, tool=params.name, fingerprint=fp, permission=permission,
                                  backend_status=status, duration_ms=seconds * 1000.0,
                                  arguments=arguments if self.config.audit_arguments else None)
            self._finished(params.name, tool is not None, caller, permission, status, seconds)

    def _finished(self, tool: str, served: bool, caller: Caller, permission: str, backend_status: int | None,
                  seconds: float) -> None:
        """A call is answered: its metrics (``--metrics``) and its log event (INFO: shown by ``--log-format
        json``), neither with argument values."""
        if self.metrics is not None:
            if served:
                self.metrics.observe(tool, permission, backend_status, seconds)
            else:
                self.metrics.unknown.inc()
        if log.isEnabledFor(logging.INFO):
            log.info("axag serve: %s by %s: %s (backend %s, %.1f ms)", tool, caller.actor or "-", permission,
                     backend_status if backend_status is not None else "not called", seconds * 1000.0,
                     extra={EVENT: {"event": "call", "tool": tool, "actor": caller.actor, "permission": permission,
                                    "backend_status": backend_status, "duration_ms": round(seconds * 1000.0, 3)}})

    async def _audit(self, **row: Any) -> None:
        """One audit row, committed before the call is answered, also when the call was cancelled (the write is
        shielded from the cancellation); a failure to write it (a locked or full database) is logged and never
        replaces the call's result."""
        try:
            with anyio.CancelScope(shield=True):
                await self.store.aaudit(**row)
        except Exception as exc:  # noqa: BLE001 - any failure of the audit store, logged
            log.error("axag serve: the audit row of %s (%s) was not written: %s: %s", row.get("tool"),
                      row.get("permission"), type(exc).__name__, exc)

    async def _as_envelope(self, guard: Any, name: str, work: Awaitable[Any]) -> Any:
        """``work``'s outcome; an unimplemented precondition or a precondition or handler bug becomes the refusal
        envelope (the caller gets an envelope, the log the trace), never a JSON-RPC error."""
        try:
            return await work
        except NotImplementedError as exc:
            return self._unimplemented_envelope(guard, str(exc)), None
        except Exception as exc:
            log.exception("axag serve: %s failed", name)
            return self._internal_error(guard, exc), None

    async def _guarded(self, ctx: Any, params: types.CallToolRequestParams, tool: Mapping[str, Any], guard: Any,
                       caller: Caller, arguments: dict[str, Any]
                       ) -> types.InputRequiredResult | tuple[dict[str, Any], int | None]:
        """Confirmation (when the guard asks for it), then the guard with the binding as its handler:
        an `InputRequiredResult`, or (the envelope's model view, the backend's HTTP status)."""
        op = (binding_of(tool) or {}).get("openapi")
        bad = path_problem(op, arguments) if isinstance(op, Mapping) and params.name not in self.config.handlers \
            else None
        if bad is not None:
            return self._path_refusal(guard, bad, arguments[bad]), None
        confirmation = None
        if guard.confirmation_required:
            checked = await checked_call(guard, arguments, self._context(caller, None))
            if checked.permission == "confirmation_required":
                asked = await self._confirm(ctx, params, guard, checked, caller)
                if isinstance(asked, types.InputRequiredResult):
                    return asked
                if isinstance(asked, dict):
                    return asked, None
                confirmation = asked
            elif not checked.success:
                return self._refusal(guard, checked), None
        answer: list[BackendAnswer] = []

        async def handler(args: Mapping[str, object]) -> object:
            got = await self._execute(ctx, caller, params.name, tool, args)
            answer.append(got)
            return got.result

        try:
            result = await guard.arun(handler, arguments, self._context(
                caller, confirmation, **self._approval_context(guard, arguments, caller)))
            envelope = self._refusal(guard, result)
        except Exception as exc:
            if not answer:
                raise
            # the backend was called: whatever failed afterwards, the caller learns that it ran and its status
            log.exception("axag serve: %s ran, then failed", params.name)
            return self._ran_then_failed(guard, answer[0], exc), answer[0].status
        if not answer:
            return envelope, None
        if not answer[0].ok:
            envelope = self._backend_failure(guard, envelope, answer[0])
        return envelope, answer[0].status

    def _refusal(self, guard: Any, result: Any) -> dict[str, Any]:
        """The model view of a guard result; no approval workflow here, so nobody is said to be asked."""
        envelope: dict[str, Any] = result.for_model()
        if envelope["permission"] == "approval_required":
            envelope["guidance"] = self._no_approvals(guard)
        return envelope

    # ------------------------------------------------------------------ identity
    def _caller(self, ctx: Any) -> Caller:
        request = getattr(ctx, "request", None)
        scope = getattr(request, "scope", None)
        user = scope.get("user") if isinstance(scope, dict) else None
        token = getattr(user, "access_token", None)
        if token is not None:
            roles = (token.claims or {}).get("roles", [])  # the actor is the token's subject (OAuth: `sub`)
            return Caller(token.subject or token.client_id, frozenset(str(r) for r in roles))
        return Caller(self.config.actor, frozenset(self.config.roles))

    def _context(self, caller: Caller, confirmation: Any, **extra: Any) -> Any:
        return self.guard_module.GuardContext(actor=caller.actor, roles=caller.roles, confirmation=confirmation,
                                              **extra)

    def _approval_context(self, guard: Any, arguments: dict[str, Any], caller: Caller) -> dict[str, Any]:
        """Approvals and the approval hook of a call (none here; `axag.serve.approval_loop` has a workflow)."""
        return {}

    # ------------------------------------------------------------------ confirmation
    async def _confirm(self, ctx: Any, params: types.CallToolRequestParams, guard: Any, checked: Any,
                       caller: Caller) -> Any:
        """A confirmation for the call, an `InputRequiredResult`, or a refusal envelope."""
        fp = str(checked.caller_only["fingerprint"])
        message = checked.caller_only.get("confirmation_message") or f"Run {guard.tool} with these arguments?"
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            state = self._read_state(params.request_state, guard.tool, fp)
            reply = (params.input_responses or {}).get(CONFIRM_KEY)
            if state is not None and reply is not None:
                return self._decide(guard, checked, fp, state, caller, reply)
            if not self._client_elicits(ctx):
                return self._cannot_ask(guard, checked)
            return types.InputRequiredResult(
                input_requests={CONFIRM_KEY: types.ElicitRequest(params=self._elicit_params(str(message)))},
                request_state=self._make_state(guard.tool, fp))
        if not self._client_elicits(ctx):
            return self._cannot_ask(guard, checked)
        req = self._elicit_params(str(message))
        reply = await ctx.session.elicit_form(message=req.message, requested_schema=req.requested_schema,
                                              related_request_id=ctx.request_id)
        return self._decide(guard, checked, fp, uuid.uuid4().hex, caller, reply)

    def _decide(self, guard: Any, checked: Any, fp: str, confirmation_id: str, caller: Caller, reply: Any) -> Any:
        content = getattr(reply, "content", None) or {}
        if getattr(reply, "action", None) == "accept" and content.get(CONFIRM_KEY) is True:
            return self.guard_module.Confirmation(fingerprint=fp, by=caller.actor, id=confirmation_id)
        envelope = checked.for_model()
        envelope["guidance"] = (f"{guard.tool} was not run: the user declined to confirm it. Do not repeat the call; "
                                "ask the user what they want instead.")
        return envelope

    @staticmethod
    def _elicit_params(message: str) -> types.ElicitRequestFormParams:
        schema = {"type": "object", "properties": {CONFIRM_KEY: {
            "type": "boolean", "title": "Confirm", "description": "Run this action now?"}},
            "required": [CONFIRM_KEY]}
        return types.ElicitRequestFormParams(mode="form", message=message, requested_schema=schema)

    @staticmethod
    def _client_elicits(ctx: Any) -> bool:
        caps = ctx.session.client_capabilities
        elicitation = getattr(caps, "elicitation", None) if caps is not None else None
        if elicitation is None:
            return False
        # an empty elicitation capability means form mode (2025-06-18 clients)
        return elicitation.form is not None or elicitation.url is None

    def _cannot_ask(self, guard: Any, checked: Any) -> dict[str, Any]:
        envelope: dict[str, Any] = checked.for_model()
        envelope["guidance"] = (f"{guard.tool} needs the user's explicit confirmation, and this client cannot ask the "
                                "user (it does not support MCP elicitation), so the call cannot proceed from here. "
                                "Nobody is being asked. Do not repeat the call and do not confirm it yourself; tell "
                                "the user to run it from a client that can ask them.")
        return envelope

    def _make_state(self, tool: str, fp: str) -> str:
        body = json.dumps({"t": tool, "f": fp, "i": uuid.uuid4().hex, "e": time.time() + _STATE_TTL},
                          separators=(",", ":")).encode()
        mac = hmac.new(self._secret, body, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(body).decode() + "." + base64.urlsafe_b64encode(mac).decode()

    def _read_state(self, state: str | None, tool: str, fp: str) -> str | None:
        """The confirmation id of a valid, unexpired state signed for this tool and these arguments."""
        if not state or "." not in state:
            return None
        try:
            body_text, mac_text = state.split(".", 1)
            body = base64.urlsafe_b64decode(body_text)
            mac = base64.urlsafe_b64decode(mac_text)
            if not hmac.compare_digest(mac, hmac.new(self._secret, body, hashlib.sha256).digest()):
                return None
            data = json.loads(body)
        except (ValueError, TypeError):
            return None
        if data.get("t") != tool or data.get("f") != fp or float(data.get("e", 0)) < time.time():
            return None
        return str(data["i"])

    # ------------------------------------------------------------------ refusals that are not the guard's
    def _unbound_envelope(self, guard: Any) -> dict[str, Any]:
        return {"success": False, "permission": "denied", "violations": [],
                "guidance": f"{guard.tool} is not connected to anything on this server (no HTTP binding and no "
                            "handler), so it cannot run here. Do not retry; tell the user.",
                "tool": guard.tool, "active_constraints": dict(guard.active_constraints)}

    @staticmethod
    def _no_approvals(guard: Any) -> str:
        n = guard.approval_count
        roles = ", ".join(guard.approval_roles)
        return (f"{guard.tool} needs approval by {n} {'approver' if n == 1 else 'approvers'} holding one of the "
                f"roles {roles}, and this server has no approval workflow: nobody has been asked, so the call cannot "
                "proceed from here. Do not repeat the call or try to approve it yourself; tell the user.")

    def _unimplemented_envelope(self, guard: Any, detail: str) -> dict[str, Any]:
        return {"success": False, "permission": "precondition_failed", "violations": [],
                "guidance": f"{guard.tool} cannot run on this server: a precondition has no implementation "
                            f"({detail}). Do not retry; tell the user.",
                "tool": guard.tool, "active_constraints": dict(guard.active_constraints)}

    def _internal_error(self, guard: Any, exc: Exception) -> dict[str, Any]:
        return {"success": False, "permission": "precondition_failed", "violations": [],
                "guidance": f"{guard.tool} failed on this server ({type(exc).__name__}); it may not have run. "
                            "Do not retry; tell the user.",
                "tool": guard.tool, "active_constraints": dict(guard.active_constraints)}

    def _backend_failure(self, guard: Any, envelope: dict[str, Any], answer: BackendAnswer) -> dict[str, Any]:
        detail = answer.result.get("detail", "") if isinstance(answer.result, dict) else ""
        if not answer.sent and answer.error is None:
            what = (f"loading its page answered HTTP {answer.status}: \"{_start_of(answer.result.get('body', ''))}\"; "
                    "the form was not sent")
        elif not answer.sent:
            what = f"it was not sent: {answer.error}: {detail}"
            if answer.error == "page_changed":
                what += ". The page no longer matches the served tools: recompile them from the current pages"
        elif answer.error is not None and answer.status is not None:
            what = (f"the backend call reached the backend (HTTP {answer.status}), so it has run, but then "
                    f"{answer.error}: {detail}")
        elif answer.error is not None:
            what = f"the backend call failed ({answer.error}: {detail}); it may have run"
        else:
            what = (f"the backend answered HTTP {answer.status}: "
                    f"\"{_start_of(answer.result.get('body', ''))}\"")
        out = dict(envelope)
        out["success"] = False
        out["guidance"] = (f"{guard.tool} passed its checks but {what}. It was not retried. Tell the user; do not "
                           "repeat the call unless the user asks.")
        out["active_constraints"] = dict(guard.active_constraints)
        return out

    def _ran_then_failed(self, guard: Any, answer: BackendAnswer, exc: Exception) -> dict[str, Any]:
        status = answer.status
        answered = f"answered HTTP {status}" if status is not None else "was called"
        return {"success": False, "result": {"status": status, "error": "answer_unreadable"},
                "permission": "not_required", "violations": [],
                "guidance": f"{guard.tool} has run: the backend {answered}, but this server could not report the "
                            f"answer ({type(exc).__name__}). Do not repeat the call; tell the user it ran.",
                "tool": guard.tool, "active_constraints": dict(guard.active_constraints)}

    def _path_refusal(self, guard: Any, name: str, value: object) -> dict[str, Any]:
        message = (f"{name} must be one path segment: not empty, '.' or '..' (URL joining would drop it or climb "
                   "out of the operation's path)")
        return {"success": False, "permission": "constraint_violated",
                "violations": [{"field": name, "constraint": "path_segment", "expected": "a value other than '', "
                                "'.' and '..'", "actual": value, "message": message}],
                "guidance": f"{guard.tool} was not run: {message}. Correct the argument and call again.",
                "tool": guard.tool, "active_constraints": dict(guard.active_constraints)}

    # ------------------------------------------------------------------ execution
    def _client_key(self, ctx: Any, caller: Caller) -> str:
        request = getattr(ctx, "request", None)
        headers = getattr(request, "headers", None)
        sid = headers.get("mcp-session-id") if headers is not None else None
        return f"s:{sid}" if sid else f"a:{caller.actor}"

    def _client(self, key: str) -> httpx.AsyncClient:
        """The session's client, marked in use until `_release`."""
        client = self._clients.get(key)
        if client is None:
            client = httpx.AsyncClient(timeout=self.config.timeout,
                                       limits=httpx.Limits(max_connections=100, max_keepalive_connections=20),
                                       transport=httpx.AsyncHTTPTransport(retries=0))
            self._clients[key] = client
        else:
            self._clients.move_to_end(key)
        self._using[key] = self._using.get(key, 0) + 1
        return client

    async def _release(self, key: str) -> None:
        """One call is done with the client of ``key``; the least recently used idle clients beyond 256 are
        closed (a client in use is never closed: the cache may exceed 256 while they are)."""
        left = self._using.get(key, 1) - 1
        if left:
            self._using[key] = left
        else:
            self._using.pop(key, None)
        idle = [k for k in self._clients if k not in self._using]
        closing = [self._clients.pop(k) for k in idle[:max(0, len(self._clients) - 256)]]  # before any await
        for client in closing:
            with contextlib.suppress(Exception):
                await client.aclose()

    async def _execute(self, ctx: Any, caller: Caller, name: str, tool: Mapping[str, Any],
                       arguments: Mapping[str, object]) -> BackendAnswer:
        handler = self.config.handlers.get(name)
        if handler is not None:
            return await _run_handler(handler, arguments)
        binding = binding_of(tool)
        assert binding is not None and self.config.base_url is not None
        key = self._client_key(ctx, caller)
        client = self._client(key)
        try:
            if "openapi" in binding:
                answer = await run_openapi(client, self.config.base_url, binding["openapi"], arguments,
                                           self.config.max_result_bytes, self.config.timeout)
            else:
                answer = await run_form(client, self.config.base_url, binding, arguments,
                                        self.config.max_result_bytes, self.config.timeout)
        finally:
            with anyio.CancelScope(shield=True):
                await self._release(key)
        answer.result = self.redactor.value(answer.result)
        return answer

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()
        await self.store.aclose()


async def _run_handler(handler: Handler, arguments: Mapping[str, object]) -> BackendAnswer:
    if inspect.iscoroutinefunction(handler):
        value = await handler(arguments)
    else:
        value = await anyio.to_thread.run_sync(handler, arguments)
        if inspect.isawaitable(value):
            value = await value
    return BackendAnswer(value)


def _version() -> str:
    from axag import __version__

    return __version__

