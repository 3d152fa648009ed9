"""The state of `axag serve` in SQLite: rate limits and cooldowns, single-use keys, remembered approvals,
bearer tokens (hashed), the signing secret of confirmation round trips, and the audit log.

`SqliteStore` satisfies the guard runtime's `GuardStore` protocol (SPEC §10.9): rate limits and cooldowns are
keyed by (intent, actor), so two actors never share a bucket. The database runs in WAL mode and every
read-modify-write is one `BEGIN IMMEDIATE` transaction, so several server processes on one machine can share a
file. Connections are per thread (the guard calls the store from the event loop thread; tests and tools may
call it from others).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["SqliteStore", "hash_token"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (intent TEXT NOT NULL, actor TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS calls_key ON calls (intent, actor, at);
CREATE TABLE IF NOT EXISTS last_call (intent TEXT NOT NULL, actor TEXT NOT NULL, at REAL NOT NULL,
                                      PRIMARY KEY (intent, actor));
CREATE TABLE IF NOT EXISTS approved (tool TEXT NOT NULL, fingerprint TEXT NOT NULL, PRIMARY KEY (tool, fingerprint));
CREATE TABLE IF NOT EXISTS used (tool TEXT NOT NULL, fingerprint TEXT NOT NULL, key TEXT NOT NULL,
                                 at REAL NOT NULL, PRIMARY KEY (tool, fingerprint, key));
CREATE TABLE IF NOT EXISTS tokens (hash TEXT PRIMARY KEY, name TEXT NOT NULL, roles TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS audit (id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, actor TEXT, tool TEXT NOT NULL,
                                  fingerprint TEXT, permission TEXT NOT NULL, backend_status INTEGER,
                                  duration_ms REAL NOT NULL, arguments TEXT);
"""


AUDIT_BUSY_SECONDS = 2.0  # how long an audit row waits for a locked database before it is given up (and logged)


def hash_token(token: str) -> str:
    """Tokens are stored as their SHA-256 (hex); the token itself is shown once, when it is made."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class SqliteStore:
    """Guard store, token table and audit log in one SQLite file (created with its directory when missing; a
    directory axag creates gets a `.gitignore` of `*`, so that hashed tokens and the audit log are never
    committed by accident)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        folder = self.path.parent
        if not folder.exists():
            folder.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(OSError):  # a read-only place fails below with its own message
                (folder / ".gitignore").write_text("# created by axag serve\n*\n", encoding="utf-8")
        self._local = threading.local()
        self._db().executescript(_SCHEMA)

    # ------------------------------------------------------------------ connections
    def _db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA busy_timeout=30000")
            self._local.db = db
        return db

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None

    # ------------------------------------------------------------------ GuardStore (SPEC §10.9)
    def acquire(self, intent: str, actor: str | None, now: float, limit: int | None,
                window_seconds: float | None, cooldown_seconds: float | None, record: bool) -> float | None:
        who = "" if actor is None else "\x00" + actor  # no actor: one shared bucket, never an actor's
        with self._tx() as db:
            wait = 0.0
            if window_seconds is not None:
                if record:
                    db.execute("DELETE FROM calls WHERE intent = ? AND actor = ? AND at <= ?",
                               (intent, who, now - window_seconds))
                if limit is not None:
                    since = (intent, who, now - window_seconds)
                    count = db.execute("SELECT count(*) FROM calls WHERE intent = ? AND actor = ? AND at > ?",
                                       since).fetchone()[0]
                    if count >= limit:  # the call that must leave the window before another is admitted
                        oldest = db.execute("SELECT at FROM calls WHERE intent = ? AND actor = ? AND at > ? "
                                            "ORDER BY at LIMIT 1 OFFSET ?", (*since, count - limit)).fetchone()[0]
                        wait = max(wait, oldest + window_seconds - now)
            last = db.execute("SELECT at FROM last_call WHERE intent = ? AND actor = ?", (intent, who)).fetchone()
            if cooldown_seconds is not None and last is not None:
                wait = max(wait, last[0] + cooldown_seconds - now)
            if wait > 0:
                return wait
            if record:
                if window_seconds is not None:
                    db.execute("INSERT INTO calls (intent, actor, at) VALUES (?, ?, ?)", (intent, who, now))
                at = now if last is None else max(now, last[0])
                db.execute("INSERT OR REPLACE INTO last_call (intent, actor, at) VALUES (?, ?, ?)", (intent, who, at))
            return None

    def remember_approval(self, tool: str, fingerprint: str) -> None:
        with self._tx() as db:
            db.execute("INSERT OR IGNORE INTO approved (tool, fingerprint) VALUES (?, ?)", (tool, fingerprint))

    def approved_before(self, tool: str, fingerprint: str) -> bool:
        row = self._db().execute("SELECT 1 FROM approved WHERE tool = ? AND fingerprint = ?",
                                 (tool, fingerprint)).fetchone()
        return row is not None

    def consume(self, tool: str, fingerprint: str, key: str) -> bool:
        with self._tx() as db:
            cur = db.execute("INSERT OR IGNORE INTO used (tool, fingerprint, key, at) VALUES (?, ?, ?, ?)",
                             (tool, fingerprint, key, time.time()))
            return cur.rowcount == 1

    # ------------------------------------------------------------------ tokens
    def add_token(self, name: str, roles: Sequence[str]) -> str:
        """A new bearer token for ``name`` with ``roles``; only its hash is stored."""
        token = "axag_" + secrets.token_urlsafe(32)
        with self._tx() as db:
            db.execute("INSERT INTO tokens (hash, name, roles, created) VALUES (?, ?, ?, ?)",
                       (hash_token(token), name, json.dumps(list(roles)), time.time()))
        return token

    def token_identity(self, token: str) -> tuple[str, tuple[str, ...]] | None:
        row = self._db().execute("SELECT name, roles FROM tokens WHERE hash = ?", (hash_token(token),)).fetchone()
        if row is None:
            return None
        return str(row[0]), tuple(str(r) for r in json.loads(row[1]))

    def token_count(self) -> int:
        return int(self._db().execute("SELECT count(*) FROM tokens").fetchone()[0])

    # ------------------------------------------------------------------ secret and audit
    def secret(self) -> bytes:
        """The key that signs confirmation round trips; made once per database, shared by its servers."""
        with self._tx() as db:
            row = db.execute("SELECT value FROM settings WHERE key = 'secret'").fetchone()
            if row is None:
                value = secrets.token_hex(32)
                db.execute("INSERT INTO settings (key, value) VALUES ('secret', ?)", (value,))
            else:
                value = str(row[0])
        return bytes.fromhex(value)

    def audit(self, *, actor: str | None, tool: str, fingerprint: str | None, permission: str,
              backend_status: int | None, duration_ms: float, arguments: Mapping[str, Any] | None) -> None:
        text = None if arguments is None else json.dumps(arguments, sort_keys=True, ensure_ascii=False)
        db = self._db()
        db.execute(f"PRAGMA busy_timeout={int(AUDIT_BUSY_SECONDS * 1000)}")  # the call's answer waits for this
        try:
            with self._tx() as db:
                db.execute("INSERT INTO audit (at, actor, tool, fingerprint, permission, backend_status, "
                           "duration_ms, arguments) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           (time.time(), actor, tool, fingerprint, permission, backend_status, duration_ms, text))
        finally:
            db.execute("PRAGMA busy_timeout=30000")

    def audit_rows(self) -> list[dict[str, Any]]:
        cur = self._db().execute("SELECT at, actor, tool, fingerprint, permission, backend_status, duration_ms, "
                                 "arguments FROM audit ORDER BY id")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur]
