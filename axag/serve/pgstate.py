"""The state of `axag serve` in PostgreSQL (`--state postgresql://…`): the store several replicas share.

`PostgresStore` is a `SqlStore`: the same operations as `SqliteStore`, each one transaction, through a psycopg 3
connection pool. How each one is exact when replicas run it at once:

- a read-check-write (a decision on a request, a new link code, opening a link, the signing secret, a token or
  approver replaced, a remembered approval) holds the transaction-level advisory lock `WRITER` for the whole
  database: writers of that kind run one at a time, as SQLite's `BEGIN IMMEDIATE` has them, and each one sees
  every write committed before it (READ COMMITTED takes its snapshot per statement, after the lock);
- a rate-limit bucket (intent, actor) has an advisory lock of its own: the calls of one bucket are counted and
  recorded one at a time (an exact limit across replicas), other buckets do not wait for them; the lock, the
  count and the record are one call of the server-side function `axag_acquire` (one round trip);
- a single-use key (a confirmation, a call-scoped approval) is an `INSERT … ON CONFLICT DO NOTHING` on its primary
  key: of two replicas inserting it at once one inserts, the other waits for that transaction and inserts
  nothing, so exactly one call runs;
- reads (a waiting call's poll, an approver check) are one REPEATABLE READ, READ ONLY transaction: a consistent
  snapshot, never blocked by the writers.

A token check, an audit row, a single-use key and a look at remembered approvals are one autocommit statement
each. A pooled connection is not pinged before it is handed out (`_check_connection`: a look at its socket, and
the full check only when the server sent something).

A token found by `atoken_identity` is kept (`_TokenCache`) while the store listens on the channel `axag_tokens`,
on a connection of its own: every transaction that deletes tokens (`revoke_token`, `add_token` replacing one, in
any process) sends a notification there when it commits, and each listener forgets every token it kept. A kept
token is not used when the listening connection has something to read (a notification not handled yet, or the
connection closing), while it is not listening (the cache is emptied when it stops and filled again only from
lookups that started after it listens again), or once it is `TOKEN_KEEP_SECONDS` old.

What a call does in the event loop has coroutine twins (`aacquire`, `aconsume`, `aapproved_before`,
`aremember_approval`, `atoken_identity`, `aaudit`): the same statements on a second pool of psycopg's
`AsyncConnection`s, opened in the event loop that first uses it (`aclose` closes it), so the loop serves other
calls while the server answers. The guard runtime awaits them in `ToolGuard.arun`.

The schema is versioned like SQLite's (`axag.serve.state.SCHEMA_VERSION`), in the table `axag_schema`; serve
creates it and migrates it under the `WRITER` lock (replicas starting at once do it once); a database of a newer
axag is refused. Advisory locks use the two-key form with the class `_LOCK_CLASS`, apart from the one-key locks
other programs on the same database may take.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import select
import threading
import time
from collections.abc import AsyncIterator, Collection, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from axag.outcome.errors import InputError
from axag.serve.state import (
    APPROVED_BEFORE_SQL,
    AUDIT_SQL,
    CONSUME_SQL,
    SCHEMA_VERSION,
    TOKEN_SQL,
    WRITER,
    SqlStore,
    approvers_found,
    audit_values,
    hash_token,
    identity,
    remembering,
)

__all__ = ["PostgresStore", "shown_url"]

_LOCK_CLASS = 0x61786167  # "axag": the first key of every advisory lock axag takes
TOKENS_CHANNEL = "axag_tokens"  # the notification channel of deleted tokens
TOKEN_KEEP_SECONDS = 10.0  # the longest a kept token is used without looking it up again
TOKEN_KEEP_MAX = 10000  # kept tokens at most (the cache is emptied when it is full)

# Each step upgrades the schema from its index to the next version, a string of statements split at ";" or a
# tuple of statements; step 0 lays out version 1 on an empty database (the same tables as SQLite's version 1, with a
# `seq` column where SQLite orders by rowid); step 1 adds `axag_acquire`, the rate-limit and cooldown check of
# `PostgresStore.acquire` as one server-side call (the same statements as `SqlStore.acquire`, in one round trip);
# step 2 keeps each bucket's count of calls beside its last call.
_MIGRATIONS: tuple[str | tuple[str, ...], ...] = (
    """
CREATE TABLE calls (intent TEXT NOT NULL, actor TEXT NOT NULL, at DOUBLE PRECISION NOT NULL);
CREATE INDEX calls_key ON calls (intent, actor, at);
CREATE TABLE last_call (intent TEXT NOT NULL, actor TEXT NOT NULL, at DOUBLE PRECISION NOT NULL,
                        PRIMARY KEY (intent, actor));
CREATE TABLE used (tool TEXT NOT NULL, fingerprint TEXT NOT NULL, key TEXT NOT NULL, at DOUBLE PRECISION NOT NULL,
                   PRIMARY KEY (tool, fingerprint, key));
CREATE TABLE tokens (hash TEXT PRIMARY KEY, name TEXT NOT NULL, roles TEXT NOT NULL, created DOUBLE PRECISION NOT NULL);
CREATE INDEX tokens_name ON tokens (name);
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE audit (id BIGSERIAL PRIMARY KEY, at DOUBLE PRECISION NOT NULL, actor TEXT, tool TEXT NOT NULL,
                    fingerprint TEXT, permission TEXT NOT NULL, backend_status INTEGER,
                    duration_ms DOUBLE PRECISION NOT NULL, arguments TEXT);
CREATE TABLE approval_requests (
  seq BIGSERIAL UNIQUE, id TEXT PRIMARY KEY, tool TEXT NOT NULL, arguments TEXT NOT NULL, fingerprint TEXT NOT NULL,
  reason TEXT NOT NULL, actor TEXT, created DOUBLE PRECISION NOT NULL, expires DOUBLE PRECISION NOT NULL,
  status TEXT NOT NULL, decided DOUBLE PRECISION, approval_count INTEGER NOT NULL, approval_roles TEXT NOT NULL,
  notified INTEGER NOT NULL DEFAULT 0, spent DOUBLE PRECISION);
CREATE INDEX approval_requests_call ON approval_requests (tool, fingerprint, created);
CREATE INDEX approval_requests_actor ON approval_requests (actor, status);
CREATE INDEX approval_requests_pending ON approval_requests (status, expires);
CREATE TABLE approval_decisions (
  request_id TEXT NOT NULL, approver TEXT NOT NULL, roles TEXT NOT NULL, scope TEXT NOT NULL, granted INTEGER NOT NULL,
  at DOUBLE PRECISION NOT NULL, PRIMARY KEY (request_id, approver));
CREATE TABLE approvers (name TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, roles TEXT NOT NULL,
                        created DOUBLE PRECISION NOT NULL);
CREATE TABLE approval_codes (hash TEXT PRIMARY KEY, request_id TEXT NOT NULL, used DOUBLE PRECISION);
CREATE INDEX approval_codes_request ON approval_codes (request_id);
CREATE TABLE desk_sessions (seq BIGSERIAL UNIQUE, hash TEXT PRIMARY KEY, request_id TEXT NOT NULL, csrf TEXT NOT NULL,
                            created DOUBLE PRECISION NOT NULL);
CREATE INDEX desk_sessions_request ON desk_sessions (request_id);
CREATE TABLE remembered (id TEXT PRIMARY KEY, tool TEXT NOT NULL, fingerprint TEXT NOT NULL, actor TEXT NOT NULL,
                         approvers TEXT NOT NULL, created DOUBLE PRECISION NOT NULL, expires DOUBLE PRECISION NOT NULL);
CREATE INDEX remembered_call ON remembered (tool, fingerprint, actor, expires);
""",
    # VOLATILE (the default): each statement takes a new snapshot, so the count after the bucket's lock sees every
    # call committed before the lock was granted; the lock is transaction-level, held until the caller commits
    ("""
CREATE FUNCTION axag_acquire(lock_class integer, lock_name text, bucket_intent text, bucket_actor text,
                             at_now double precision, call_limit bigint, window_seconds double precision,
                             cooldown_seconds double precision, record boolean) RETURNS double precision
LANGUAGE plpgsql AS $body$
DECLARE
  counted bigint;
  oldest double precision;
  last_at double precision;
  wait double precision := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(lock_class, hashtext(lock_name));
  IF window_seconds IS NOT NULL THEN
    IF record THEN
      DELETE FROM calls WHERE intent = bucket_intent AND actor = bucket_actor AND at <= at_now - window_seconds;
    END IF;
    IF call_limit IS NOT NULL THEN
      SELECT count(*) INTO counted FROM calls
        WHERE intent = bucket_intent AND actor = bucket_actor AND at > at_now - window_seconds;
      IF counted >= call_limit THEN
        SELECT at INTO oldest FROM calls
          WHERE intent = bucket_intent AND actor = bucket_actor AND at > at_now - window_seconds
          ORDER BY at LIMIT 1 OFFSET counted - call_limit;
        wait := greatest(wait, oldest + window_seconds - at_now);
      END IF;
    END IF;
  END IF;
  SELECT at INTO last_at FROM last_call WHERE intent = bucket_intent AND actor = bucket_actor;
  IF cooldown_seconds IS NOT NULL AND last_at IS NOT NULL THEN
    wait := greatest(wait, last_at + cooldown_seconds - at_now);
  END IF;
  IF wait > 0 THEN
    RETURN wait;
  END IF;
  IF record THEN
    IF window_seconds IS NOT NULL THEN
      INSERT INTO calls (intent, actor, at) VALUES (bucket_intent, bucket_actor, at_now);
    END IF;
    INSERT INTO last_call (intent, actor, at) VALUES (bucket_intent, bucket_actor, greatest(at_now, coalesce(last_at, at_now)))
      ON CONFLICT (intent, actor) DO UPDATE SET at = excluded.at;
  END IF;
  RETURN NULL;
END
$body$
""",),
    # step 2: each bucket's row in `last_call` keeps the number of its rows in `calls` (`window_count`), and
    # `axag_acquire` reads it instead of counting the window: a recorded call deletes the bucket's rows that left
    # the window first, so every row left is in the window and their number is the count (a look, which deletes
    # nothing, still counts); the cost of a call no longer grows with the calls in the window
    ("ALTER TABLE last_call ADD COLUMN window_count BIGINT NOT NULL DEFAULT 0",
     ("UPDATE last_call SET window_count = (SELECT count(*) FROM calls WHERE calls.intent = last_call.intent "
      "AND calls.actor = last_call.actor)"),
     """
CREATE OR REPLACE FUNCTION axag_acquire(lock_class integer, lock_name text, bucket_intent text, bucket_actor text,
                                        at_now double precision, call_limit bigint, window_seconds double precision,
                                        cooldown_seconds double precision, record boolean) RETURNS double precision
LANGUAGE plpgsql AS $body$
DECLARE
  counted bigint;
  stored bigint;
  gone bigint := 0;
  added bigint := 0;
  oldest double precision;
  last_at double precision;
  wait double precision := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(lock_class, hashtext(lock_name));
  IF record AND window_seconds IS NOT NULL THEN
    DELETE FROM calls WHERE intent = bucket_intent AND actor = bucket_actor AND at <= at_now - window_seconds;
    GET DIAGNOSTICS gone = ROW_COUNT;
  END IF;
  SELECT at, window_count INTO last_at, stored FROM last_call WHERE intent = bucket_intent AND actor = bucket_actor;
  IF window_seconds IS NOT NULL AND call_limit IS NOT NULL THEN
    IF record THEN
      counted := coalesce(stored, 0) - gone;
    ELSE
      SELECT count(*) INTO counted FROM calls
        WHERE intent = bucket_intent AND actor = bucket_actor AND at > at_now - window_seconds;
    END IF;
    IF counted >= call_limit THEN
      SELECT at INTO oldest FROM calls
        WHERE intent = bucket_intent AND actor = bucket_actor AND at > at_now - window_seconds
        ORDER BY at LIMIT 1 OFFSET counted - call_limit;
      wait := greatest(wait, oldest + window_seconds - at_now);
    END IF;
  END IF;
  IF cooldown_seconds IS NOT NULL AND last_at IS NOT NULL THEN
    wait := greatest(wait, last_at + cooldown_seconds - at_now);
  END IF;
  IF wait > 0 THEN
    IF gone > 0 THEN
      UPDATE last_call SET window_count = window_count - gone WHERE intent = bucket_intent AND actor = bucket_actor;
    END IF;
    RETURN wait;
  END IF;
  IF record THEN
    IF window_seconds IS NOT NULL THEN
      INSERT INTO calls (intent, actor, at) VALUES (bucket_intent, bucket_actor, at_now);
      added := 1;
    END IF;
    INSERT INTO last_call (intent, actor, at, window_count)
      VALUES (bucket_intent, bucket_actor, greatest(at_now, coalesce(last_at, at_now)), added)
      ON CONFLICT (intent, actor) DO UPDATE SET at = excluded.at, window_count = last_call.window_count - gone + added;
  END IF;
  RETURN NULL;
END
$body$
"""),
    (),  # step 3: nothing here (version 4 gives SQLite's rate-limit buckets the count that step 2 gives these)
)
assert len(_MIGRATIONS) == SCHEMA_VERSION

_ACQUIRE_SQL = ("SELECT axag_acquire(?::integer, ?::text, ?::text, ?::text, ?::double precision, ?::bigint, "
                "?::double precision, ?::double precision, ?::boolean)")


def shown_url(url: str) -> str:
    """The URL as messages show it: a password in it (user:password@ or ?password=) becomes ***."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        if ":" in user:
            netloc = user.split(":", 1)[0] + ":***@" + host
    query = urlencode([(k, "***" if k == "password" else v) for k, v in parse_qsl(parts.query)], safe="/")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


@functools.lru_cache(maxsize=512)
def _pg_sql(sql: str) -> str:
    """The store's SQL (`?` parameters) as psycopg takes it (`%s`; a literal % doubled)."""
    return sql.replace("%", "%%").replace("?", "%s")


class _Conn:
    """A psycopg connection that takes the `?` parameters the store's SQL is written with."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Any = ()) -> Any:
        return self.conn.execute(_pg_sql(sql), params)


class PostgresStore(SqlStore):
    """Guard store, tokens, approvals and audit log in one PostgreSQL database, shared by every `axag serve`
    process given its URL. ``create=False``: a database without axag's schema is refused, not laid out."""

    SAME = "IS NOT DISTINCT FROM"
    ROWID = "seq"
    ACTOR_MARK = "="  # PostgreSQL text cannot hold NUL; "" (no actor) still differs from every "=name"

    def __init__(self, url: str, *, create: bool = True, max_connections: int = 10) -> None:
        self.url = url
        self.path = shown_url(url)
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise InputError(f"--state {self.path}: PostgreSQL state needs psycopg: pip install "
                             f"'axag[postgresql]' ({exc})") from exc
        self._errors = psycopg.Error
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
                self._migrate(_Conn(conn), create)
        except psycopg.Error as exc:
            raise InputError(f"{self.path}: cannot use this PostgreSQL database: {_first_line(exc)}") from exc
        # check: a connection the server dropped (a restart, a fail-over) is replaced before it is handed out
        self._pool = ConnectionPool(url, min_size=1, max_size=max_connections, kwargs={"autocommit": True},
                                    name="axag-state", open=True, timeout=30.0, check=_check_connection)
        self._closed = threading.Event()
        self._max_connections = max_connections
        self._apool: Any = None  # the pool of the coroutine twins, opened in `_async_pool`
        self._aloop: asyncio.AbstractEventLoop | None = None  # the event loop it is made for
        self._aready: asyncio.AbstractEventLoop | None = None  # that loop, once the pool is open
        self._tokens = _TokenCache(url)

    def _migrate(self, db: _Conn, create: bool) -> None:
        with db.conn.transaction():
            _lock(db, WRITER)
            exists = db.execute("SELECT to_regclass('axag_schema') IS NOT NULL").fetchone()[0]
            if not exists and not create:
                raise InputError(f"{self.path}: this database has no axag state (axag serve creates it); give "
                                 "--state the database axag serve uses")
            version = 0 if not exists else int(db.execute("SELECT max(version) FROM axag_schema").fetchone()[0] or 0)
            if version > SCHEMA_VERSION:
                raise InputError(f"{self.path}: this state database has schema version {version}, made by a newer "
                                 f"axag (this one knows versions up to {SCHEMA_VERSION}); upgrade axag, or give "
                                 "--state another database")
            if version == SCHEMA_VERSION:
                return
            if not exists:
                db.execute("CREATE TABLE axag_schema (version INTEGER NOT NULL)")
            for step in _MIGRATIONS[version:]:
                for statement in step.split(";") if isinstance(step, str) else step:
                    if statement.strip():
                        db.execute(statement)
            db.execute("DELETE FROM axag_schema")
            db.execute("INSERT INTO axag_schema (version) VALUES (?)", (SCHEMA_VERSION,))

    def acquire(self, intent: str, actor: str | None, now: float, limit: int | None,
                window_seconds: float | None, cooldown_seconds: float | None, record: bool) -> float | None:
        """`SqlStore.acquire` as one call of the server-side function `axag_acquire` (the same statements under
        the same bucket lock, in one transaction): one round trip instead of one per statement."""
        with self._statement() as db:  # autocommit: the call is its transaction, the lock held until it ends
            row = db.execute(_ACQUIRE_SQL, self._acquiring(intent, actor, now, limit, window_seconds,
                                                           cooldown_seconds, record)).fetchone()
        return None if row[0] is None else float(row[0])

    def _acquiring(self, intent: str, actor: str | None, now: float, limit: int | None,
                   window_seconds: float | None, cooldown_seconds: float | None, record: bool) -> tuple[Any, ...]:
        """The parameters of `_ACQUIRE_SQL`."""
        who, lock = self._bucket(intent, actor)
        return _LOCK_CLASS, lock, intent, who, now, limit, window_seconds, cooldown_seconds, record

    # ------------------------------------------------------------------ coroutine twins
    async def aacquire(self, intent: str, actor: str | None, now: float, limit: int | None,
                       window_seconds: float | None, cooldown_seconds: float | None, record: bool) -> float | None:
        rows = (await self._aexecute(_ACQUIRE_SQL, self._acquiring(intent, actor, now, limit, window_seconds,
                                                                   cooldown_seconds, record)))[1]
        return None if rows[0][0] is None else float(rows[0][0])

    async def aconsume(self, tool: str, fingerprint: str, key: str) -> bool:
        return (await self._aexecute(CONSUME_SQL, (tool, fingerprint, key, time.time())))[0] == 1

    async def aapproved_before(self, tool: str, fingerprint: str, actor: str,
                               now: float) -> dict[str, tuple[str, ...]]:
        return approvers_found((await self._aexecute(APPROVED_BEFORE_SQL, (tool, fingerprint, actor, now)))[1])

    async def aremember_approval(self, tool: str, fingerprint: str, actor: str,
                                 approvers: Mapping[str, Collection[str]], expires: float) -> None:
        statements = remembering(tool, fingerprint, actor, approvers, expires)
        if statements:
            async with self._atx() as conn:
                for sql, params in statements:
                    await conn.execute(_pg_sql(sql), params)

    async def atoken_identity(self, token: str) -> tuple[str, tuple[str, ...]] | None:
        """The token's holder and roles: kept from an earlier lookup while that is safe (`_TokenCache`), else
        looked up (and kept when found)."""
        digest = hash_token(token)
        kept = self._tokens.get(digest)
        if kept is not None:
            return kept
        generation = self._tokens.generation
        rows = (await self._aexecute(TOKEN_SQL, (digest,)))[1]
        found = identity(rows[0] if rows else None)
        if found is not None:
            self._tokens.keep(digest, found, generation)
        return found

    def _tokens_changed(self, db: Any) -> None:
        db.execute(f"NOTIFY {TOKENS_CHANNEL}")  # sent when the transaction commits

    def add_token(self, name: str, roles: Sequence[str]) -> str:
        try:
            return super().add_token(name, roles)
        finally:  # this store's kept tokens go now; the others' when the notification reaches them
            self._tokens.forget()

    def revoke_token(self, name: str) -> int:
        try:
            return super().revoke_token(name)
        finally:
            self._tokens.forget()

    async def aaudit(self, *, actor: str | None, tool: str, fingerprint: str | None, permission: str,
                     backend_status: int | None, duration_ms: float, arguments: Mapping[str, Any] | None) -> None:
        await self._aexecute(AUDIT_SQL, audit_values(actor, tool, fingerprint, permission, backend_status,
                                                     duration_ms, arguments))

    async def _aexecute(self, sql: str, params: Sequence[Any]) -> tuple[int, list[Any]]:
        """One autocommit statement on a connection of the async pool: (its row count, its rows)."""
        pool = await self._async_pool()
        async with pool.connection() as conn:
            cur = await conn.execute(_pg_sql(sql), params)
            return cur.rowcount, (await cur.fetchall() if cur.description is not None else [])

    @asynccontextmanager
    async def _atx(self, lock: str = WRITER) -> AsyncIterator[Any]:
        """`_tx` on a connection of the async pool: one transaction holding the advisory lock ``lock``."""
        pool = await self._async_pool()
        async with pool.connection() as conn, conn.transaction():
            await conn.execute(_pg_sql(_LOCK_SQL), (_LOCK_CLASS, lock))
            yield conn

    async def _async_pool(self) -> Any:
        """The async pool of the running event loop, opened on first use (a pool serves the loop it was opened
        in: a store used from another loop gets another pool)."""
        loop = asyncio.get_running_loop()
        if self._aready is loop:
            return self._apool
        from psycopg import AsyncConnection
        from psycopg_pool import AsyncConnectionPool

        if self._aloop is not loop:
            self._aloop, self._aready = loop, None
            self._apool = AsyncConnectionPool(
                self.url, connection_class=AsyncConnection, min_size=1, max_size=self._max_connections,
                kwargs={"autocommit": True}, name="axag-state-async", open=False, timeout=30.0,
                check=_acheck_connection)
        pool = self._apool
        await pool.open()  # the coroutines that arrive while it opens wait for it (open() is locked, idempotent)
        self._aready = loop
        return pool

    async def aclose(self) -> None:
        await self._tokens.stop()
        pool, self._apool, self._aloop, self._aready = self._apool, None, None, None
        if pool is not None:
            await pool.close()

    def exposure(self) -> str | None:
        """A warning when the URL itself holds the password (it shows in `ps`, shell history, unit files)."""
        if self.path == self.url:
            return None
        return (f"--state {self.path} holds a password: it shows in the process list; give it with PGPASSWORD, "
                "~/.pgpass or passfile= instead")

    def schema_version(self) -> int:
        with self._read() as db:
            return int(db.execute("SELECT max(version) FROM axag_schema").fetchone()[0])

    @contextmanager
    def _tx(self, lock: str | None = WRITER) -> Iterator[_Conn]:
        """One read-write transaction (READ COMMITTED) holding the advisory lock ``lock`` (None: only the row
        locks of its statements); BEGIN and the lock go in one round trip."""
        with self._pool.connection() as conn:
            db = _Conn(conn)
            with conn.pipeline():  # BEGIN and the lock: one round trip
                conn.execute("BEGIN")
                if lock is not None:
                    _lock(db, lock)
            try:
                yield db
            except BaseException:
                with contextlib.suppress(self._errors):  # a lost connection: the server rolled it back
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @contextmanager
    def _statement(self) -> Iterator[_Conn]:
        """An autocommit connection: each statement is its own transaction, one round trip."""
        with self._pool.connection() as conn:
            yield _Conn(conn)

    @contextmanager
    def _read(self) -> Iterator[_Conn]:
        """One read-only transaction on a consistent snapshot (REPEATABLE READ); it waits for no writer."""
        with self._pool.connection() as conn:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            try:
                yield _Conn(conn)
            finally:
                conn.execute("COMMIT")  # of a read-only transaction (after an error: a rollback)

    def close(self) -> None:
        if not self._closed.is_set():
            self._closed.set()
            self._pool.close()


class _TokenCache:
    """The tokens a store found, kept while a connection of its own listens on `TOKENS_CHANNEL` (started in the
    event loop of the first lookup).

    `generation` changes whenever the kept tokens are forgotten (a notification, the listener starting or
    stopping); a lookup keeps its answer only if the generation is the one it started in, so an answer read
    before a deletion whose notification came meanwhile, or before the store listened, is never kept."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.generation = 0
        self._kept: dict[str, tuple[float, tuple[str, tuple[str, ...]]]] = {}
        self._conn: Any = None  # the listening connection, while it listens
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self, digest: str) -> tuple[str, tuple[str, ...]] | None:
        """The kept identity of the token whose hash is ``digest``, when it may be used; else None (look it up)."""
        if self._loop is not asyncio.get_running_loop():
            self._start()
            return None
        entry = self._kept.get(digest)
        if entry is None or self._conn is None:
            return None
        if entry[0] < time.monotonic() or _readable(self._conn):  # too old; a notification or a close unread
            return None
        return entry[1]

    def keep(self, digest: str, found: tuple[str, tuple[str, ...]], generation: int) -> None:
        if self._conn is None or generation != self.generation:
            return
        if len(self._kept) >= TOKEN_KEEP_MAX:
            self._kept.clear()
        self._kept[digest] = (time.monotonic() + TOKEN_KEEP_SECONDS, found)

    def forget(self) -> None:
        self._kept.clear()
        self.generation += 1

    def _start(self) -> None:
        """Listen from the running event loop (a listener of another loop is left: it stops with its loop)."""
        self._loop = asyncio.get_running_loop()
        self._conn = None
        self.forget()
        self._task = self._loop.create_task(self._listen(), name="axag-state-tokens")

    async def _listen(self) -> None:
        """Listen, forgetting every kept token at each notification; after a lost connection, listen again (a
        second later), keeping nothing meanwhile."""
        import psycopg

        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.url, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {TOKENS_CHANNEL}")
                    self.forget()  # lookups that started before it listened keep nothing
                    self._conn = conn
                    async for _ in conn.notifies():
                        self.forget()
            except psycopg.Error:
                pass  # the connection was lost or refused: its lookups go to the database until it is back
            finally:
                self._conn = None
                self.forget()
            await asyncio.sleep(1.0)

    async def stop(self) -> None:
        task, self._task, self._loop = self._task, None, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _check_connection(conn: Any) -> None:
    """The pool's check of a connection before it is handed out, without a round trip when nothing is wrong: an
    idle connection has nothing to read, so a socket that is readable (the server closed it, or sent a message
    such as a shutdown notice) gets the full check, which raises for a dead connection (the pool then replaces
    it)."""
    from psycopg_pool import ConnectionPool

    if _readable(conn):
        ConnectionPool.check_connection(conn)


async def _acheck_connection(conn: Any) -> None:
    """`_check_connection` for the async pool."""
    from psycopg_pool import AsyncConnectionPool

    if _readable(conn):
        await AsyncConnectionPool.check_connection(conn)


def _readable(conn: Any) -> bool:
    try:
        return bool(select.select([conn.pgconn.socket], [], [], 0)[0])
    except Exception:  # noqa: BLE001 - no socket any more (closed): the full check says so
        return True


_LOCK_SQL = "SELECT pg_advisory_xact_lock(?, hashtext(?))"


def _lock(db: _Conn, name: str) -> None:
    db.execute(_LOCK_SQL, (_LOCK_CLASS, name))


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
