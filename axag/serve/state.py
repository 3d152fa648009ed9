"""The state of `axag serve`: rate limits and cooldowns, single-use keys, remembered approvals, bearer tokens
(hashed), the signing secret of confirmation round trips, and the audit log; in SQLite (`SqliteStore`, the
default) or PostgreSQL (`axag.serve.pgstate.PostgresStore`, `--state postgresql://…`).

`SqlStore` holds what both do, in SQL both speak (`?` parameters, `ON CONFLICT` upserts); a store gives it
`_tx(lock)` (one read-write transaction: on SQLite `BEGIN IMMEDIATE`, on PostgreSQL a transaction holding the
advisory lock ``lock``), `_read()` (one read-only transaction on a consistent snapshot), and the two spellings
that differ (`SAME`: null-safe equality; `ROWID`: the insertion order of a row). `axag.serve.stores.open_state`
opens the store a ``--state`` value names.

`SqliteStore` satisfies the guard runtime's `GuardStore` protocol (rate limit, cooldown and stores): rate limits and cooldowns are
keyed by (intent, actor), so two actors never share a bucket. The database runs in WAL mode and every
read-modify-write is one `BEGIN IMMEDIATE` transaction, so several server processes on one machine can share a
file. Connections are per thread (the guard calls the store from the event loop thread; tests and tools may
call it from others).

This module and `axag.serve.approvals.ApprovalDesk` (approval requests, approvers, link codes, page sessions)
are the only code that reads or writes the database: its schema is the versioned `_MIGRATIONS` here
(`PRAGMA user_version`), created and upgraded when a store opens. The file is made 0600 (its folder 0700).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import sqlite3
import stat
import threading
import time
import uuid
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Protocol

from axag.outcome.errors import InputError

__all__ = ["WRITER", "SqlStore", "SqliteStore", "StateStore", "hash_token"]

WRITER = "writer"
"""The lock of `SqlStore._tx` when none is named: one writer at a time (SQLite's `BEGIN IMMEDIATE`; on PostgreSQL
a transaction-level advisory lock), so a read-check-write (a decision, a link code, the secret) sees every write
committed before it."""


SCHEMA_VERSION = 4
"""The version of the state database's schema this axag makes (kept in SQLite's `PRAGMA user_version`)."""

# Each step upgrades the schema from its index to the next version. Version 0 is the schema of axag before
# versioning (every table `IF NOT EXISTS`, so it also lays out an empty file); step 1 gives remembered approvals
# their actor, approvers and expiry: the old `approved` rows have no actor, so they are dropped. Step 2 changes
# nothing in SQLite (version 2 gives PostgreSQL its rate-limit function; both stores keep one version number), nor
# does step 3 (version 3 gives PostgreSQL's rate-limit buckets their count of calls). Step 4 gives SQLite's buckets
# that count (`last_call.window_count`, filled from the calls already recorded; nothing changes in PostgreSQL):
# `acquire` reads it instead of counting the window at every call, whose cost grew with the calls in the window.
_MIGRATIONS: tuple[str, ...] = (
    """
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
CREATE TABLE IF NOT EXISTS approval_requests (
  id TEXT PRIMARY KEY, tool TEXT NOT NULL, arguments TEXT NOT NULL, fingerprint TEXT NOT NULL, reason TEXT NOT NULL,
  actor TEXT, created REAL NOT NULL, expires REAL NOT NULL, status TEXT NOT NULL, decided REAL,
  approval_count INTEGER NOT NULL, approval_roles TEXT NOT NULL, notified INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS approval_requests_call ON approval_requests (tool, fingerprint, created);
CREATE TABLE IF NOT EXISTS approval_decisions (
  request_id TEXT NOT NULL, approver TEXT NOT NULL, roles TEXT NOT NULL, scope TEXT NOT NULL, granted INTEGER NOT NULL,
  at REAL NOT NULL, PRIMARY KEY (request_id, approver));
CREATE TABLE IF NOT EXISTS approvers (name TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, roles TEXT NOT NULL,
                                      created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS approval_codes (hash TEXT PRIMARY KEY, request_id TEXT NOT NULL, used REAL);
CREATE TABLE IF NOT EXISTS desk_sessions (hash TEXT PRIMARY KEY, request_id TEXT NOT NULL, csrf TEXT NOT NULL,
                                          created REAL NOT NULL);
""",
    """
DROP TABLE approved;
CREATE TABLE remembered (id TEXT PRIMARY KEY, tool TEXT NOT NULL, fingerprint TEXT NOT NULL, actor TEXT NOT NULL,
                         approvers TEXT NOT NULL, created REAL NOT NULL, expires REAL NOT NULL);
CREATE INDEX remembered_call ON remembered (tool, fingerprint, actor, expires);
CREATE INDEX approval_requests_actor ON approval_requests (actor, status);
CREATE INDEX tokens_name ON tokens (name);
ALTER TABLE approval_requests ADD COLUMN spent REAL;
""",
    "",
    "",
    """
ALTER TABLE last_call ADD COLUMN window_count INTEGER NOT NULL DEFAULT 0;
UPDATE last_call SET window_count = (SELECT count(*) FROM calls WHERE calls.intent = last_call.intent
                                                                  AND calls.actor = last_call.actor);
""",
)
assert len(_MIGRATIONS) == SCHEMA_VERSION + 1


# The statements of the operations that are one statement, shared by the synchronous methods and the coroutine
# twins of `axag.serve.pgstate.PostgresStore` (the same SQL, run on another connection).
TOKEN_SQL = "SELECT name, roles FROM tokens WHERE hash = ?"
AUDIT_SQL = ("INSERT INTO audit (at, actor, tool, fingerprint, permission, backend_status, duration_ms, arguments) "
             "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
# the primary key decides: of two inserting at once, one inserts, the other waits for it and inserts nothing
CONSUME_SQL = "INSERT INTO used (tool, fingerprint, key, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"
# the remembered approvals of the values for the actor (oldest first), then every approver and their roles, in one
# statement (one snapshot)
APPROVED_BEFORE_SQL = (
    "SELECT kind, a, b FROM (SELECT 0 AS kind, approvers AS a, NULL AS b, created, id FROM remembered "
    "WHERE tool = ? AND fingerprint = ? AND actor = ? AND expires > ? "
    "UNION ALL SELECT 1, name, roles, 0, name FROM approvers) AS found ORDER BY kind, created, id")

AUDIT_BUSY_SECONDS = 2.0  # how long an audit row waits for a locked database before it is given up (and logged)


def hash_token(token: str) -> str:
    """Tokens are stored as their SHA-256 (hex); the token itself is shown once, when it is made."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class StateStore(Protocol):
    """What serve needs of its state: the guard runtime's `GuardStore` (rate limit, cooldown and stores) plus tokens, settings, the
    secret and the audit log; `SqliteStore` and `PostgresStore` are the two (both `SqlStore`s, which the
    approval desk also needs)."""

    path: Any

    def acquire(self, intent: str, actor: str | None, now: float, limit: int | None, window_seconds: float | None,
                cooldown_seconds: float | None, record: bool) -> float | None: ...
    def consume(self, tool: str, fingerprint: str, key: str) -> bool: ...
    def approved_before(self, tool: str, fingerprint: str, actor: str, now: float) -> dict[str, tuple[str, ...]]: ...
    def remember_approval(self, tool: str, fingerprint: str, actor: str, approvers: Mapping[str, Collection[str]],
                          expires: float) -> None: ...
    def token_identity(self, token: str) -> tuple[str, tuple[str, ...]] | None: ...
    async def atoken_identity(self, token: str) -> tuple[str, tuple[str, ...]] | None: ...
    def token_count(self) -> int: ...
    def secret(self) -> bytes: ...
    def set_setting(self, key: str, value: str) -> None: ...
    def setting(self, key: str) -> str | None: ...
    def audit(self, *, actor: str | None, tool: str, fingerprint: str | None, permission: str,
              backend_status: int | None, duration_ms: float, arguments: Mapping[str, Any] | None) -> None: ...
    async def aaudit(self, *, actor: str | None, tool: str, fingerprint: str | None, permission: str,
                     backend_status: int | None, duration_ms: float, arguments: Mapping[str, Any] | None) -> None: ...
    def close(self) -> None: ...
    async def aclose(self) -> None: ...


class SqlStore:
    """The operations of the state store, each one transaction, in the SQL both SQLite and PostgreSQL speak; a
    subclass gives the connections (`_tx`, `_read`) and the schema."""

    path: Any  # where the state is, as messages name it: the SQLite file, or the PostgreSQL URL without password
    SAME = "IS"  # null-safe equality (`actor IS ?`)
    ROWID = "rowid"  # the column that orders rows inserted in one second
    ACTOR_MARK = "\x00"  # before an actor's name in a rate-limit bucket (no actor: the bare shared bucket)

    def _tx(self, lock: str | None = WRITER) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _statement(self) -> AbstractContextManager[Any]:
        """A connection on which each statement is a transaction of its own (autocommit): for an operation that
        is one statement (a token check, an audit row), which then needs no BEGIN and COMMIT around it."""
        raise NotImplementedError

    def _read(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def schema_version(self) -> int:
        raise NotImplementedError

    def exposure(self) -> str | None:
        return None

    def close(self) -> None:
        raise NotImplementedError

    async def aclose(self) -> None:
        """Close what the store opened for coroutines (`close` closes the rest); nothing here."""

    # ------------------------------------------------------------------ GuardStore (rate limit, cooldown and stores)
    def acquire(self, intent: str, actor: str | None, now: float, limit: int | None,
                window_seconds: float | None, cooldown_seconds: float | None, record: bool) -> float | None:
        """The seconds to wait before the bucket admits a call (None: admitted, and recorded when ``record``).

        Each bucket's row in `last_call` keeps the number of its rows in `calls` (`window_count`): a recorded
        call deletes the bucket's rows that left the window first, so every row left is in the window and their
        number is the count, read instead of counting the window (whose cost grew with the calls in it); a look
        (``record`` false), which deletes nothing, counts the window."""
        who, lock = self._bucket(intent, actor)
        with self._tx(lock) as db:  # one bucket's calls at a time
            wait = 0.0
            since = now - window_seconds if window_seconds is not None else None
            gone = 0
            if since is not None and record:
                gone = db.execute("DELETE FROM calls WHERE intent = ? AND actor = ? AND at <= ?",
                                  (intent, who, since)).rowcount
            row = db.execute("SELECT at, window_count FROM last_call WHERE intent = ? AND actor = ?",
                             (intent, who)).fetchone()
            last, stored = (None, 0) if row is None else row
            if since is not None and limit is not None:  # the calls in the window
                count: int = stored - gone if record else db.execute(
                    "SELECT count(*) FROM calls WHERE intent = ? AND actor = ? AND at > ?", (intent, who, since)
                ).fetchone()[0]
                if count >= limit:  # the call that must leave the window before another is admitted
                    assert window_seconds is not None
                    oldest = db.execute("SELECT at FROM calls WHERE intent = ? AND actor = ? AND at > ? ORDER BY at "
                                        "LIMIT 1 OFFSET ?", (intent, who, since, count - limit)).fetchone()[0]
                    wait = max(wait, oldest + window_seconds - now)
            if cooldown_seconds is not None and last is not None:
                wait = max(wait, last + cooldown_seconds - now)
            if wait > 0:
                if gone:
                    db.execute("UPDATE last_call SET window_count = window_count - ? WHERE intent = ? AND actor = ?",
                               (gone, intent, who))
                return wait
            if record:
                added = 0
                if window_seconds is not None:
                    db.execute("INSERT INTO calls (intent, actor, at) VALUES (?, ?, ?)", (intent, who, now))
                    added = 1
                at = now if last is None else max(now, last)
                db.execute("INSERT INTO last_call (intent, actor, at, window_count) VALUES (?, ?, ?, ?) "
                           "ON CONFLICT (intent, actor) DO UPDATE SET at = excluded.at, "
                           "window_count = last_call.window_count - ? + ?", (intent, who, at, added, gone, added))
            return None

    def _bucket(self, intent: str, actor: str | None) -> tuple[str, str]:
        """(the ``actor`` column of a rate-limit bucket, the name of its lock)."""
        who = "" if actor is None else self.ACTOR_MARK + actor  # no actor: one shared bucket, never an actor's
        return who, "bucket\x1f" + intent + "\x1f" + who

    def remember_approval(self, tool: str, fingerprint: str, actor: str, approvers: Mapping[str, Collection[str]],
                          expires: float) -> None:
        """Remember that ``approvers`` (name -> roles) approved these values for calls by ``actor`` until
        ``expires``."""
        with self._tx() as db:
            for sql, params in remembering(tool, fingerprint, actor, approvers, expires):
                db.execute(sql, params)

    def approved_before(self, tool: str, fingerprint: str, actor: str, now: float) -> dict[str, tuple[str, ...]]:
        """The approvers (name -> roles) of the remembered approvals of these values for ``actor`` that have not
        expired at ``now``; an approver who was revoked since drops out, and counts with the roles they still
        hold (the guard then checks them against the tool's current approval count and roles)."""
        with self._statement() as db:  # one statement: a consistent snapshot of its own
            return approvers_found(db.execute(APPROVED_BEFORE_SQL, (tool, fingerprint, actor, now)).fetchall())

    def remembered(self, now: float | None = None) -> list[dict[str, Any]]:
        """The remembered approvals that have not expired, oldest first."""
        now = time.time() if now is None else now
        with self._read() as db:
            rows = db.execute("SELECT id, tool, fingerprint, actor, approvers, created, expires FROM remembered "
                              "WHERE expires > ? ORDER BY created, id", (now,)).fetchall()
        return [{"id": str(i), "tool": str(t), "fingerprint": str(f), "actor": str(a),
                 "approvers": {str(k): list(v) for k, v in json.loads(ap).items()}, "created": float(c),
                 "expires": float(e)} for i, t, f, a, ap, c, e in rows]

    def revoke_remembered(self, remembered_id: str) -> bool:
        with self._tx() as db:
            return bool(db.execute("DELETE FROM remembered WHERE id = ?", (remembered_id,)).rowcount == 1)

    def consume(self, tool: str, fingerprint: str, key: str) -> bool:
        with self._statement() as db:  # one insert: its own transaction
            return bool(db.execute(CONSUME_SQL, (tool, fingerprint, key, time.time())).rowcount == 1)

    # ------------------------------------------------------------------ tokens
    def add_token(self, name: str, roles: Sequence[str]) -> str:
        """A new bearer token for ``name`` with ``roles``, replacing any earlier token of ``name``; only its hash is
        stored."""
        token = "axag_" + secrets.token_urlsafe(32)
        with self._tx() as db:
            db.execute("DELETE FROM tokens WHERE name = ?", (name,))
            self._tokens_changed(db)
            db.execute("INSERT INTO tokens (hash, name, roles, created) VALUES (?, ?, ?, ?)",
                       (hash_token(token), name, json.dumps(list(roles)), time.time()))
        return token

    def tokens(self) -> list[dict[str, Any]]:
        """The token holders (name, roles, created), by name; never a token or its hash."""
        with self._read() as db:
            rows = db.execute("SELECT name, roles, created FROM tokens ORDER BY name, created").fetchall()
        return [{"name": str(n), "roles": list(json.loads(r)), "created": float(c)} for n, r, c in rows]

    def revoke_token(self, name: str) -> int:
        """Delete the tokens of ``name``; how many there were."""
        with self._tx() as db:
            self._tokens_changed(db)
            return int(db.execute("DELETE FROM tokens WHERE name = ?", (name,)).rowcount)

    def _tokens_changed(self, db: Any) -> None:
        """Tell the store's other users, in the transaction ``db`` that deletes tokens, that tokens they may have
        looked up before are gone (nothing here: a store without a cache of tokens)."""

    def set_setting(self, key: str, value: str) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = "
                       "excluded.value", (key, value))

    def setting(self, key: str) -> str | None:
        with self._read() as db:
            row = db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def token_identity(self, token: str) -> tuple[str, tuple[str, ...]] | None:
        with self._statement() as db:  # one statement: a consistent snapshot of its own
            return identity(db.execute(TOKEN_SQL, (hash_token(token),)).fetchone())

    async def atoken_identity(self, token: str) -> tuple[str, tuple[str, ...]] | None:
        """`token_identity` for a coroutine (a store whose database is a server runs it without blocking the
        event loop; here, the same call)."""
        return self.token_identity(token)

    def token_count(self) -> int:
        with self._read() as db:
            return int(db.execute("SELECT count(*) FROM tokens").fetchone()[0])

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
        with self._statement() as db:  # one insert, committed before the call is answered; it needs no lock
            db.execute(AUDIT_SQL, audit_values(actor, tool, fingerprint, permission, backend_status, duration_ms,
                                               arguments))

    async def aaudit(self, *, actor: str | None, tool: str, fingerprint: str | None, permission: str,
                     backend_status: int | None, duration_ms: float, arguments: Mapping[str, Any] | None) -> None:
        """`audit` for a coroutine (as `atoken_identity`)."""
        self.audit(actor=actor, tool=tool, fingerprint=fingerprint, permission=permission,
                   backend_status=backend_status, duration_ms=duration_ms, arguments=arguments)

    def audit_rows(self) -> list[dict[str, Any]]:
        names = ("at", "actor", "tool", "fingerprint", "permission", "backend_status", "duration_ms", "arguments")
        with self._read() as db:
            rows = db.execute(f"SELECT {', '.join(names)} FROM audit ORDER BY id").fetchall()
        return [dict(zip(names, row, strict=True)) for row in rows]


def identity(row: Sequence[Any] | None) -> tuple[str, tuple[str, ...]] | None:
    """(name, roles) of a row of `TOKEN_SQL`, None when no token matched."""
    if row is None:
        return None
    return str(row[0]), tuple(str(r) for r in json.loads(row[1]))


def audit_values(actor: str | None, tool: str, fingerprint: str | None, permission: str, backend_status: int | None,
                 duration_ms: float, arguments: Mapping[str, Any] | None) -> tuple[Any, ...]:
    """The parameters of `AUDIT_SQL`: the row as it is written now."""
    text = None if arguments is None else json.dumps(arguments, sort_keys=True, ensure_ascii=False)
    return time.time(), actor, tool, fingerprint, permission, backend_status, duration_ms, text


def approvers_found(rows: Sequence[Sequence[Any]]) -> dict[str, tuple[str, ...]]:
    """`SqlStore.approved_before`'s answer from the rows of `APPROVED_BEFORE_SQL`."""
    found: dict[str, tuple[str, ...]] = {}
    held: dict[str, set[str]] = {}
    for kind, a, b in rows:
        if kind == 0:  # a remembered approval: its approvers and their roles then (a later one replaces them)
            found.update({str(k): tuple(str(r) for r in v) for k, v in json.loads(a).items()})
        else:  # an approver now
            held[str(a)] = set(json.loads(b))
    return {name: tuple(r for r in roles if r in held[name]) for name, roles in found.items() if name in held}


def remembering(tool: str, fingerprint: str, actor: str, approvers: Mapping[str, Collection[str]],
                expires: float) -> list[tuple[str, tuple[Any, ...]]]:
    """The statements (SQL, parameters) of `SqlStore.remember_approval`, run in one transaction: the expired rows
    go, the new one comes (none for no approvers)."""
    if not approvers:
        return []
    kept = {name: sorted({str(r) for r in roles}) for name, roles in approvers.items()}
    now = time.time()
    row = ("m" + uuid.uuid4().hex[:12], tool, fingerprint, actor, json.dumps(kept, sort_keys=True), now, expires)
    return [("DELETE FROM remembered WHERE expires <= ?", (now,)),
            ("INSERT INTO remembered (id, tool, fingerprint, actor, approvers, created, expires) VALUES (?, ?, ?, ?, ?, ?, ?)",
             row)]


class SqliteStore(SqlStore):
    """Guard store, token table and audit log in one SQLite file (created with its directory when missing; a
    directory axag creates gets a `.gitignore` of `*`, so that hashed tokens and the audit log are never
    committed by accident)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        folder = self.path.parent
        if not folder.exists():
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            with contextlib.suppress(OSError):  # a read-only place fails below with its own message
                (folder / ".gitignore").write_text("# created by axag serve\n*\n", encoding="utf-8")
        if not self.path.exists():  # the signing secret, arguments, audit log: readable by its owner only
            with contextlib.suppress(OSError):  # made meanwhile, or a read-only place (SQLite then says so)
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        self._local = threading.local()
        self._migrate()

    def _migrate(self) -> None:
        """Lay out a new database or bring an older one up to `SCHEMA_VERSION`, in one transaction; a database
        of a newer axag is refused (`InputError`)."""
        with self._tx() as db:
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise InputError(f"{self.path}: this state database has schema version {version}, made by a newer "
                                 f"axag (this one knows versions up to {SCHEMA_VERSION}); upgrade axag, or give "
                                 "--state another file")
            if version == SCHEMA_VERSION:
                return
            for step in _MIGRATIONS[0 if version == 0 else version + 1:]:
                for statement in step.split(";"):  # not executescript: it would commit the transaction
                    if statement.strip():
                        db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def schema_version(self) -> int:
        return int(self._db().execute("PRAGMA user_version").fetchone()[0])

    def exposure(self) -> str | None:
        """A warning when others than its owner may read or write the database file, else None."""
        try:
            mode = self.path.stat().st_mode
        except OSError:
            return None
        if mode & 0o077 == 0:
            return None
        return (f"{self.path} is readable by others (mode {stat.S_IMODE(mode):04o}): it holds the signing secret, "
                f"call arguments and the audit log; run `chmod 600 {self.path}`")

    # ------------------------------------------------------------------ connections
    def _db(self, kind: str = "db", busy_seconds: float = 30.0) -> sqlite3.Connection:
        """This thread's connection (``kind``: "db", or "audit_db": the audit rows', whose ``busy_seconds`` are
        `AUDIT_BUSY_SECONDS`, set once rather than around each row)."""
        db: sqlite3.Connection | None = getattr(self._local, kind, None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(f"PRAGMA busy_timeout={int(busy_seconds * 1000)}")
            setattr(self._local, kind, db)
        return db

    @contextmanager
    def _tx(self, lock: str | None = WRITER) -> Iterator[sqlite3.Connection]:
        """One write transaction; SQLite has one writer at a time, whatever ``lock`` names."""
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    @contextmanager
    def _statement(self) -> Iterator[sqlite3.Connection]:
        yield self._db()  # isolation_level=None: a statement outside BEGIN is its own transaction

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction (a consistent snapshot in WAL mode, no write lock)."""
        db = self._db()
        db.execute("BEGIN")
        try:
            yield db
        finally:
            db.execute("COMMIT")

    def close(self) -> None:
        for kind in ("db", "audit_db"):
            db = getattr(self._local, kind, None)
            if db is not None:
                db.close()
                setattr(self._local, kind, None)

    def audit(self, *, actor: str | None, tool: str, fingerprint: str | None, permission: str,
              backend_status: int | None, duration_ms: float, arguments: Mapping[str, Any] | None) -> None:
        """One audit row on a connection of its own, which waits `AUDIT_BUSY_SECONDS` for a locked database (the
        call's answer waits for this), then the failure is the caller's to log."""
        self._db("audit_db", AUDIT_BUSY_SECONDS).execute(AUDIT_SQL, audit_values(
            actor, tool, fingerprint, permission, backend_status, duration_ms, arguments))
