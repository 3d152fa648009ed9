"""The logs of `axag serve` on stderr (stdout carries the protocol in stdio mode): ``--log-format text`` (the
default: the message alone, one line) or ``json`` (one JSON object per line).

A JSON line has ``time`` (UTC, ISO 8601 with milliseconds), ``level``, ``logger``, ``message`` and, when the record
carries them, ``event`` with its fields (a finished call: ``event: "call"``, ``tool``, ``actor``, ``permission``,
``backend_status``, ``duration_ms``; never argument values, tokens or approval links) and ``exception`` (the
traceback). In JSON mode the ``axag.serve`` logger logs at INFO (the call events, the start-up line, notifier
retries); other loggers, uvicorn's included, at WARNING as in text mode. The secret masking of
`axag.serve.redact.Redactor` runs on every record before either format sees it.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

__all__ = ["EVENT", "JsonFormatter", "configure_logging", "json_logs", "uvicorn_log_config"]

EVENT = "axag_event"  # the LogRecord attribute holding an event's fields (``extra={EVENT: {...}}``)
_format = "text"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, EVENT, None)
        if isinstance(fields, dict):
            out.update({k: v for k, v in fields.items() if k not in out})
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:  # the redactor has already formatted (and masked) the traceback
            out["exception"] = record.exc_text
        return json.dumps(out, ensure_ascii=False, default=str)


def configure_logging(log_format: str) -> None:
    """Log to stderr in ``log_format`` (text | json)."""
    global _format
    _format = log_format
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter("%(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    if log_format == "json":
        logging.getLogger("axag.serve").setLevel(logging.INFO)


def json_logs() -> bool:
    return _format == "json"


def uvicorn_log_config() -> dict[str, Any] | None:
    """uvicorn's own text logging, or none in JSON mode (its records then reach the JSON handler)."""
    if _format == "json":
        return None
    from uvicorn.config import LOGGING_CONFIG

    return LOGGING_CONFIG
