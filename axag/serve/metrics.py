"""Prometheus metrics of `axag serve` (``--metrics``): every metric lives in the server's own
`CollectorRegistry` (never prometheus-client's global one), so two servers in one process count apart.

- ``axag_serve_calls_total{tool, permission, backend_status}``: finished `tools/call` requests of served tools
  (``request_permission`` included) by the permission of the answer (``not_required``, ``constraint_violated``,
  ``approval_required``, … or ``input_required`` / ``cancelled`` when no envelope was made) and the backend's
  HTTP status (``none`` when the backend was not called or gave no status);
- ``axag_serve_unknown_tool_calls_total``: calls naming no served tool (not labelled by the name: a caller
  choosing names must not choose the metric's series);
- ``axag_serve_call_duration_seconds{tool}``: a histogram of the calls' time in the server, backend included;
- ``axag_serve_calls_in_flight``: calls being handled now;
- ``axag_serve_pending_approvals``: approval requests in the state database waiting for a decision.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

__all__ = ["CONTENT_TYPE", "ServeMetrics", "metrics_app"]

log = logging.getLogger("axag.serve")

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# seconds: a guarded loopback call takes a few milliseconds; a call waiting for approval can take minutes
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0)


def _guarded(read: Callable[[], float], what: str) -> Callable[[], float]:
    """``read``, answering NaN (and logging why) when it fails: a scrape never fails on one gauge."""

    def value() -> float:
        try:
            return float(read())
        except Exception as exc:  # noqa: BLE001 - any failure of the store behind a gauge, logged
            log.warning("axag serve: metrics: %s could not be read: %s: %s", what, type(exc).__name__, exc)
            return float("nan")

    return value


class ServeMetrics:
    """The counters, histogram and gauges of one server."""

    def __init__(self, in_flight: Callable[[], float], pending: Callable[[], float]) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = CollectorRegistry(auto_describe=True)
        self.calls = Counter("axag_serve_calls", "Finished tool calls by tool, permission and backend HTTP status.",
                             ("tool", "permission", "backend_status"), registry=self.registry)
        self.unknown = Counter("axag_serve_unknown_tool_calls", "Calls naming no served tool.",
                               registry=self.registry)
        self.duration = Histogram("axag_serve_call_duration_seconds", "Time of a tool call in the server, the "
                                  "backend call included.", ("tool",), buckets=BUCKETS, registry=self.registry)
        Gauge("axag_serve_calls_in_flight", "Tool calls being handled now.", registry=self.registry).set_function(
            _guarded(in_flight, "calls in flight"))
        Gauge("axag_serve_pending_approvals", "Approval requests waiting for a decision.",
              registry=self.registry).set_function(_guarded(pending, "pending approvals"))

    def observe(self, tool: str, permission: str, backend_status: int | None, seconds: float) -> None:
        self.calls.labels(tool, permission, "none" if backend_status is None else str(backend_status)).inc()
        self.duration.labels(tool).observe(seconds)

    def text(self) -> bytes:
        from prometheus_client import generate_latest

        return bytes(generate_latest(self.registry))


def metrics_app(metrics: ServeMetrics) -> Any:
    """An ASGI app answering ``GET /metrics`` (and HEAD) with the exposition text; 404 elsewhere, 405 for other
    methods."""
    from starlette.responses import PlainTextResponse, Response

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if scope.get("path") != "/metrics":
            response: Response = PlainTextResponse("not found", status_code=404)
        elif scope.get("method") not in ("GET", "HEAD"):
            response = PlainTextResponse("method not allowed", status_code=405, headers={"allow": "GET, HEAD"})
        else:
            response = Response(metrics.text(), media_type=CONTENT_TYPE)
        await response(scope, receive, send)

    return app
