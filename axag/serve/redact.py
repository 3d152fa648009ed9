"""Secrets of `--base-url` never reach the model, a log line or an audit row: the userinfo of a URL
and the values of secret-looking query parameters are replaced by ``***`` wherever they would be shown."""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

__all__ = ["Redactor", "redact_url"]

MASK = "***"
_SECRET_KEY = re.compile(r"(?i)token|secret|key|pass|pwd|auth|sig|session|cred|jwt|bearer|code|otp")


def _secret_query(query: str) -> bool:
    return any(_SECRET_KEY.search(k) for k, _ in parse_qsl(query, keep_blank_values=True))


def redact_url(url: str) -> str:
    """``url`` without its userinfo and with the values of secret-looking query parameters masked."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return MASK
    netloc = parts.netloc
    if "@" in netloc:
        host_text = f"[{host}]" if ":" in host else host
        netloc = host_text + (f":{port}" if port is not None else "")
    query = parts.query
    if query and _secret_query(query):
        out = []
        for piece in query.split("&"):
            key, eq, _value = piece.partition("=")
            out.append(f"{key}={MASK}" if eq and _SECRET_KEY.search(key) else piece)
        query = "&".join(out)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


class Redactor:
    """Masks the secrets of one base URL (its userinfo, its user and password, its secret query values) in any
    text or JSON-like value."""

    def __init__(self, base_url: str | None) -> None:
        secrets: set[str] = set()
        if base_url:
            try:
                parts = urlsplit(base_url)
                user, password = parts.username, parts.password
            except ValueError:
                parts, user, password = None, None, None
            if parts is not None and "@" in parts.netloc:
                secrets.add(parts.netloc.rsplit("@", 1)[0])
            for value in (user, password):
                if value and len(value) >= 4:  # shorter parts alone would mask ordinary text; the whole
                    secrets.update((value, unquote(value)))  # userinfo is always masked
            if parts is not None:
                for key, value in parse_qsl(parts.query, keep_blank_values=True):
                    if value and _SECRET_KEY.search(key):
                        secrets.update((value, quote(value, safe=""), quote(value)))
        # the longest first, so that "user:pass" is masked whole before "pass"
        self.secrets = sorted(secrets, key=len, reverse=True)

    def text(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        return text

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(k) if isinstance(k, str) else k: self.value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value

    def install(self, logger: logging.Logger) -> None:
        """Mask the secrets in every record ``logger`` and its children emit (message, arguments, traceback)."""
        if not self.secrets:
            return
        redactor = self

        class _Filter(logging.Filter):
            def filter(self, record: logging.LogRecord) -> bool:
                record.msg = redactor.text(record.getMessage())
                record.args = None
                if record.exc_info:
                    record.exc_text = redactor.text(logging.Formatter().formatException(record.exc_info))
                    record.exc_info = None
                return True

        for handler in logging.getLogger().handlers + logger.handlers:
            handler.addFilter(_Filter())
        logger.addFilter(_Filter())
