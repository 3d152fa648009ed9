"""The state store's contract, run against both stores (SQLite and a real PostgreSQL server):
rate limits and cooldowns by (intent, actor), exact under concurrency; single use under concurrency; remembered
approvals; tokens, approvers, the secret and the audit log; approval requests, decisions, codes and sessions;
the versioned schema (created, kept, a newer one refused). Concurrency runs one store per thread, as replicas do.
A property test runs random call sequences against both stores and a model of the sliding window."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axag.outcome.errors import InputError
from axag.serve.approvals import ApprovalDesk, DeskRefusal
from axag.serve.state import SCHEMA_VERSION, SqlStore
from axag.serve.stores import open_state

Opener = Callable[[], SqlStore]


class Coroutines:
    """A store whose guard-store operations, token check and audit row run as its coroutine twins (`aacquire`,
    `aconsume`, `aapproved_before`, `aremember_approval`, `atoken_identity`, `aaudit`) in an event loop of its own
    (a thread), as `axag serve` runs them; everything else is the store's own."""

    TWINS = ("acquire", "consume", "approved_before", "remember_approval", "token_identity", "audit")

    def __init__(self, store: SqlStore) -> None:
        self.store = store
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def __getattr__(self, name: str) -> Any:
        if name in self.TWINS:
            twin = getattr(self.store, "a" + name)
            assert "a" + name in type(self.store).__dict__, f"{type(self.store).__name__} has no twin of {name}"
            return lambda *a, **k: asyncio.run_coroutine_threadsafe(twin(*a, **k), self.loop).result(60)
        return getattr(self.store, name)

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.store.aclose(), self.loop).result(60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()
        self.store.close()


@pytest.fixture(params=["sqlite", "postgresql", "postgresql-coroutines"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """Opens a new store on one database (each call: another connection, as another replica has); with
    "postgresql-coroutines", the PostgreSQL store's operations run as its coroutine twins, as serve runs them."""
    where = str(tmp_path / "state.sqlite") if request.param == "sqlite" else request.getfixturevalue("pg_url")
    opened: list[Any] = []

    def open_one() -> SqlStore:
        store: Any = open_state(where)
        if request.param == "postgresql-coroutines":
            store = Coroutines(store)
        opened.append(store)
        return cast(SqlStore, store)

    yield open_one
    for store in opened:
        store.close()


def at_once(n: int, opener: Opener, work: Callable[[SqlStore, int], Any]) -> list[Any]:
    """``work(store, i)`` in ``n`` threads released together, each on a store of its own."""
    stores = [opener() for _ in range(n)]
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            barrier.wait(10)
            results[i] = work(stores[i], i)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    return results


def test_rate_limit_window_cooldown_and_buckets(opener: Opener) -> None:
    store = opener()
    now = 1000.0
    assert store.acquire("i", "ann", now, 2, 60.0, None, True) is None
    assert store.acquire("i", "ann", now + 1, 2, 60.0, None, True) is None
    assert store.acquire("i", "ann", now + 2, 2, 60.0, None, True) == pytest.approx(58.0)
    assert store.acquire("i", "bob", now + 2, 2, 60.0, None, True) is None  # another actor, another bucket
    assert store.acquire("i", None, now + 2, 2, 60.0, None, True) is None  # no actor: a shared bucket of its own
    assert store.acquire("i", "", now + 2, 2, 60.0, None, True) is None  # "" is an actor, not "no actor"
    assert store.acquire("j", "ann", now + 2, 2, 60.0, None, True) is None  # another intent
    assert store.acquire("i", "ann", now + 60.5, 2, 60.0, None, True) is None  # the first left the window
    assert store.acquire("i", "ann", now + 60.6, 2, 60.0, None, False) == pytest.approx(0.4)  # a look, not a call
    # cooldown: from the last recorded call
    assert store.acquire("c", "ann", now, None, None, 5.0, True) is None
    assert store.acquire("c", "ann", now + 3, None, None, 5.0, True) == pytest.approx(2.0)
    assert store.acquire("c", "ann", now + 5, None, None, 5.0, True) is None
    assert opener().acquire("i", "ann", now + 60.9, 2, 60.0, None, False) == pytest.approx(0.1)  # another replica


def test_rate_limit_is_exact_across_replicas(opener: Opener) -> None:
    now = time.time()
    admitted = at_once(20, opener, lambda s, i: s.acquire("ping", "ann", now + i * 1e-6, 2, 60.0, None, True))
    assert sum(1 for a in admitted if a is None) == 2


def test_single_use_across_replicas(opener: Opener) -> None:
    used = at_once(20, opener, lambda s, i: s.consume("t", "fp", "confirmation:abc"))
    assert used.count(True) == 1
    assert opener().consume("t", "fp", "confirmation:abc") is False
    assert opener().consume("t", "fp", "confirmation:other") is True
    assert opener().consume("t", "fp2", "confirmation:abc") is True  # keyed by tool, fingerprint and key


def test_remembered_approvals(opener: Opener) -> None:
    store = opener()
    desk = ApprovalDesk(store)
    desk.add_approver("carol", ["finance", "audit"])
    desk.add_approver("dave", ["finance"])
    now = time.time()
    store.remember_approval("t", "fp", "ann", {"carol": ["finance"], "dave": ["finance"]}, now + 60)
    store.remember_approval("t", "fp", "ann", {}, now + 60)  # nobody: nothing remembered
    assert opener().approved_before("t", "fp", "ann", now) == {"carol": ("finance",), "dave": ("finance",)}
    assert store.approved_before("t", "fp", "bob", now) == {}  # another actor's
    assert store.approved_before("t", "fp", "ann", now + 61) == {}  # expired
    desk.revoke_approver("dave")
    assert store.approved_before("t", "fp", "ann", now) == {"carol": ("finance",)}
    desk.add_approver("carol", ["audit"])  # carol lost the finance role
    assert store.approved_before("t", "fp", "ann", now) == {"carol": ()}
    [row] = store.remembered()
    assert (row["tool"], row["actor"], sorted(row["approvers"])) == ("t", "ann", ["carol", "dave"])
    assert store.revoke_remembered(row["id"]) is True
    assert store.revoke_remembered(row["id"]) is False
    assert store.remembered() == []


def test_tokens_settings_secret_and_audit(opener: Opener) -> None:
    store, other = opener(), opener()
    first = store.add_token("ann", ["clerk"])
    second = store.add_token("ann", ["clerk", "finance"])  # replaces the first
    store.add_token("bob", [])
    assert store.token_identity(first) is None
    assert other.token_identity(second) == ("ann", ("clerk", "finance"))
    assert [(t["name"], t["roles"]) for t in other.tokens()] == [("ann", ["clerk", "finance"]), ("bob", [])]
    assert other.token_count() == 2
    assert store.revoke_token("bob") == 1 and store.revoke_token("bob") == 0
    store.set_setting("page_url", "http://a")
    other.set_setting("page_url", "https://b")
    assert store.setting("page_url") == "https://b" and store.setting("nothing") is None
    secrets = at_once(8, opener, lambda s, i: s.secret())  # made once, by whichever replica comes first
    assert len(set(secrets)) == 1 and len(secrets[0]) == 32 and store.secret() == secrets[0]
    store.audit(actor="ann", tool="t", fingerprint="fp", permission="approved", backend_status=200,
                duration_ms=1.5, arguments={"q": "50% off?", "n": 1})
    other.audit(actor=None, tool="u", fingerprint=None, permission="denied", backend_status=None, duration_ms=0.0,
                arguments=None)
    assert store.audit_rows() == [
        {"at": pytest.approx(time.time(), abs=30), "actor": "ann", "tool": "t", "fingerprint": "fp",
         "permission": "approved", "backend_status": 200, "duration_ms": 1.5, "arguments": '{"n": 1, "q": "50% off?"}'},
        {"at": pytest.approx(time.time(), abs=30), "actor": None, "tool": "u", "fingerprint": None,
         "permission": "denied", "backend_status": None, "duration_ms": 0.0, "arguments": None}]


def test_approval_requests_decisions_codes_and_sessions(opener: Opener) -> None:
    desk, other = ApprovalDesk(opener()), ApprovalDesk(opener())
    bob = desk.add_approver("bob", ["finance"])
    desk.add_approver("carol", ["finance"])
    desk.add_approver("dave", ["intern"])
    assert other.approver_identity(bob) == ("bob", ("finance",)) and other.approver_identity("axap_x") is None
    assert [a["name"] for a in other.approvers()] == ["bob", "carol", "dave"]
    now = time.time()
    first = desk.create(tool="t", arguments={"a": 1}, fingerprint="fp", reason="why", actor=None, ttl=60, count=2,
                        roles=["finance"], now=now)
    second = desk.create(tool="t", arguments={"a": 1}, fingerprint="fp", reason="again", actor=None, ttl=60,
                         count=2, roles=["finance"], now=now)  # the same second: the later one is the latest
    assert other.latest("t", "fp", None).id == second.id  # type: ignore[union-attr]
    assert other.latest("t", "fp", "ann") is None  # None is no actor, never an actor
    assert other.pending_count(None) == 2 and other.pending_count("ann") == 0
    assert [r.id for r in other.list()] == [first.id, second.id]
    with pytest.raises(DeskRefusal, match="lacks the roles"):
        other.decide(first.id, "dave", ["intern"], granted=True)
    # two approvers at once on two replicas: both count, the request is approved
    decided = at_once(2, lambda: opener(), lambda s, i: ApprovalDesk(s).decide(
        first.id, ("bob", "carol")[i], ["finance"], granted=True).status)
    assert sorted(decided) == ["approved", "pending"]
    assert other.get(first.id).status == "approved"  # type: ignore[union-attr]
    with pytest.raises(DeskRefusal, match="already approved"):
        desk.decide(first.id, "dave", ["finance"], granted=False)
    # codes: hashed, retired by a newer link; sessions: the newest 32 per request
    code = desk.mint_code(second.id)
    assert other.open_code(second.id, "wrong") is None
    opened = [other.open_code(second.id, code) for _ in range(34)]
    assert all(o is not None for o in opened)
    session, csrf = opened[-1]  # type: ignore[misc]
    assert desk.session_csrf(second.id, session) == csrf
    assert desk.session_csrf(second.id, opened[0][0]) is None  # type: ignore[index]  # the oldest were dropped
    newer = other.mint_code(second.id, retire=True)
    assert desk.open_code(second.id, code) is None and desk.open_code(second.id, newer) is not None
    desk.spend(first.id)
    assert other.get(first.id).spent  # type: ignore[union-attr]
    desk.mark_notified(second.id)
    assert other.get(second.id).notified  # type: ignore[union-attr]
    late = desk.create(tool="t", arguments={}, fingerprint="x", reason="r", actor="ann", ttl=0.05, count=1, roles=[])
    time.sleep(0.1)
    assert other.get(late.id).status == "expired"  # type: ignore[union-attr]
    assert desk.open_code(late.id, desk.mint_code(late.id)) is None


def test_schema_is_versioned_kept_and_a_newer_one_refused(opener: Opener) -> None:
    store = opener()
    assert store.schema_version() == SCHEMA_VERSION
    token = store.add_token("ann", [])
    again = opener()  # opening an up-to-date database changes nothing
    assert again.schema_version() == SCHEMA_VERSION and again.token_identity(token) == ("ann", ())
    with store._tx() as db:  # a newer axag was here
        if type(store).__name__ == "SqliteStore":
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        else:
            db.execute("UPDATE axag_schema SET version = ?", (SCHEMA_VERSION + 1,))
    with pytest.raises(InputError, match=f"schema version {SCHEMA_VERSION + 1}, made by a newer axag"):
        opener()


def test_postgresql_schema_is_laid_out_once_by_replicas_starting_together(pg_url: str) -> None:
    """Replicas that start at once on an empty database: one lays the schema out, the others find it."""
    stores = at_once(6, lambda: _Lazy(pg_url), lambda s, i: s.open().schema_version())  # type: ignore[arg-type,return-value,attr-defined]
    assert stores == [SCHEMA_VERSION] * 6


def test_postgresql_refusals_are_clear(pg_server: Any, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="this database has no axag state"):
        open_state(pg_server.create_database(), create=False)
    missing = pg_server.url("no_such_database")
    with pytest.raises(InputError, match='cannot use this PostgreSQL database: .*"no_such_database" does not exist'):
        open_state(missing)
    with pytest.raises(InputError) as info:
        open_state("postgresql://axag:s3cret@/no_such_database?host=" + str(tmp_path))
    assert "s3cret" not in str(info.value) and "axag:***@" in str(info.value)


def test_postgresql_version_1_is_upgraded_in_place(pg_url: str) -> None:
    """A database of schema version 1 (no `axag_acquire` function) keeps its rows and gets the function; the
    rate limit then counts the calls recorded before the upgrade."""
    import psycopg

    store = open_state(pg_url)
    token = store.add_token("ann", [])
    assert [store.acquire("i", "ann", 100.0 + k, 3, 60.0, None, True) for k in range(2)] == [None, None]
    store.close()
    with psycopg.connect(pg_url, autocommit=True) as db:  # as axag with schema version 1 left it
        db.execute("DROP FUNCTION axag_acquire")
        db.execute("ALTER TABLE last_call DROP COLUMN window_count")
        db.execute("UPDATE axag_schema SET version = 1")
    again = open_state(pg_url)
    try:
        assert again.schema_version() == SCHEMA_VERSION == 4
        assert again.token_identity(token) == ("ann", ())
        assert again.acquire("i", "ann", 102.0, 3, 60.0, None, True) is None
        assert again.acquire("i", "ann", 103.0, 3, 60.0, None, True) == pytest.approx(57.0)
    finally:
        again.close()


def test_postgresql_version_2_is_upgraded_in_place(pg_url: str) -> None:
    """A database of schema version 2 (the rate-limit function counted each bucket's window at every call, no
    `window_count`) gets each bucket's count of the calls recorded before the upgrade: the limit counts them."""
    import psycopg

    from axag.serve.pgstate import _MIGRATIONS

    store = open_state(pg_url)
    assert [store.acquire("i", "ann", 100.0 + k, 3, 60.0, None, True) for k in range(2)] == [None, None]
    assert store.acquire("i", "bob", 100.0, 3, 60.0, None, True) is None
    store.close()
    with psycopg.connect(pg_url, autocommit=True) as db:  # as axag with schema version 2 left it
        db.execute("DROP FUNCTION axag_acquire")
        db.execute("ALTER TABLE last_call DROP COLUMN window_count")
        db.execute(_MIGRATIONS[1][0])
        db.execute("UPDATE axag_schema SET version = 2")
    again = open_state(pg_url)
    try:
        assert again.schema_version() == SCHEMA_VERSION == 4
        assert again.acquire("i", "ann", 102.0, 3, 60.0, None, True) is None
        assert again.acquire("i", "ann", 103.0, 3, 60.0, None, True) == pytest.approx(57.0)
        assert again.acquire("i", "bob", 103.0, 3, 60.0, None, True) is None  # bob's own count: 1, now 2
        assert again.acquire("i", "ann", 160.5, 3, 60.0, None, True) is None  # the first left the window
        assert again.acquire("i", "ann", 160.6, 3, 60.0, None, True) == pytest.approx(0.4)
    finally:
        again.close()


def test_sqlite_version_3_is_upgraded_in_place(tmp_path: Path) -> None:
    """A SQLite database of schema version 3 (each call counted its bucket's window, no `window_count`) gets each
    bucket's count of the calls recorded before the upgrade: the limit counts them, and counts on as calls come
    and leave the window."""
    import sqlite3

    path = tmp_path / "state.sqlite"
    store = open_state(str(path))
    token = store.add_token("ann", [])
    assert [store.acquire("i", "ann", 100.0 + k, 3, 60.0, None, True) for k in range(2)] == [None, None]
    assert store.acquire("i", "bob", 100.0, 3, 60.0, None, True) is None
    store.close()
    db = sqlite3.connect(path, isolation_level=None)  # as axag with schema version 3 left it
    db.execute("ALTER TABLE last_call DROP COLUMN window_count")
    db.execute("PRAGMA user_version = 3")
    db.close()
    again = open_state(str(path))
    try:
        assert again.schema_version() == SCHEMA_VERSION == 4
        assert again.token_identity(token) == ("ann", ())
        assert again.acquire("i", "ann", 102.0, 3, 60.0, None, True) is None
        assert again.acquire("i", "ann", 103.0, 3, 60.0, None, True) == pytest.approx(57.0)
        assert again.acquire("i", "bob", 103.0, 3, 60.0, None, True) is None  # bob's own count: 1, now 2
        assert again.acquire("i", "ann", 160.5, 3, 60.0, None, True) is None  # the first left the window
        assert again.acquire("i", "ann", 160.6, 3, 60.0, None, True) == pytest.approx(0.4)
        assert again.acquire("i", "ann", 161.5, 3, 60.0, None, False) is None  # a look: the second left too
        assert [again.acquire("i", "ann", 230.0 + k / 10, 3, 60.0, None, True) for k in range(3)] == [None] * 3
        # a refusal deletes the calls that left the window too (a lower limit refuses with three in the window)
        assert again.acquire("i", "ann", 290.05, 1, 60.0, None, True) == pytest.approx(0.15)
        assert again.acquire("i", "ann", 290.15, 3, 60.0, None, True) is None
        assert again.acquire("i", "ann", 290.16, 3, 60.0, None, True) is None
        assert again.acquire("i", "ann", 290.17, 3, 60.0, None, True) == pytest.approx(0.03)
    finally:
        again.close()


def test_postgresql_store_replaces_the_connections_the_server_dropped(pg_url: str) -> None:
    """The server ends every connection of the store (as a restart or a fail-over does): each kind of operation
    after it still works, on new connections, and sees what was written before."""
    import psycopg

    store = open_state(pg_url)
    try:
        token = store.add_token("ann", ["clerk"])
        at_once(4, lambda: store, lambda s, i: s.acquire("i", f"a{i}", time.time(), 10, 60.0, None, True))  # a few pooled
        with psycopg.connect(pg_url, autocommit=True) as admin:
            ended = admin.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = "
                                  "current_database() AND pid <> pg_backend_pid()").fetchone()
            assert ended is not None and ended[0] >= 1
            deadline = time.monotonic() + 10
            while admin.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND "
                                "pid <> pg_backend_pid()").fetchone() != (0,) and time.monotonic() < deadline:
                time.sleep(0.05)
        for _ in range(6):  # more than the pooled connections: every dropped one is met and replaced
            assert store.token_identity(token) == ("ann", ("clerk",))
        assert store.acquire("i", "a0", time.time(), 10, 60.0, None, True) is None
        assert store.consume("t", "fp", "k") is True and store.consume("t", "fp", "k") is False
        store.audit(actor="ann", tool="t", fingerprint="fp", permission="not_required", backend_status=200,
                    duration_ms=1.0, arguments=None)
        assert [r["tool"] for r in store.audit_rows()] == ["t"]
        store.set_setting("page_url", "https://a")
        assert store.setting("page_url") == "https://a"
    finally:
        store.close()


def _kept_once_listening(store: Coroutines, token: str) -> None:
    """Look ``token`` up once the store listens for deleted tokens (it starts listening at its first lookup), so
    the answer is kept."""
    assert store.token_identity(token) is not None
    deadline = time.monotonic() + 10
    while store.store._tokens._conn is None:  # type: ignore[attr-defined]
        assert time.monotonic() < deadline, "the store did not start listening"
        time.sleep(0.02)
    assert store.token_identity(token) is not None


def _by_hand(url: str, sql: str) -> None:
    """A change of the tokens table outside axag: it sends no notification."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        db.execute(sql)


def test_postgresql_kept_tokens_go_when_any_process_deletes_tokens(pg_url: str) -> None:
    """A token the serving store (its coroutine twin) found is kept, and forgotten when another process (another
    replica, `axag serve token revoke`) deletes a token: its deletion notifies every listening store. The test
    waits at most 5 s, half of `TOKEN_KEEP_SECONDS`, so the age limit is not what refuses it."""
    from axag.serve.pgstate import TOKEN_KEEP_SECONDS

    serving = Coroutines(open_state(pg_url))
    cli = open_state(pg_url)
    try:
        token = cli.add_token("ann", ["clerk"])
        cli.add_token("bob", [])
        _kept_once_listening(serving, token)
        _by_hand(pg_url, "DELETE FROM tokens WHERE name = 'ann'")
        assert serving.token_identity(token) == ("ann", ("clerk",))  # control: kept, not looked up again
        assert cli.revoke_token("bob") == 1  # another store deletes a token: the serving one forgets ann's too
        deadline = time.monotonic() + TOKEN_KEEP_SECONDS / 2
        while serving.token_identity(token) is not None:
            assert time.monotonic() < deadline, "the deletion's notification did not reach the serving store"
            time.sleep(0.01)
        replaced = cli.add_token("carol", [])
        _kept_once_listening(serving, replaced)
        cli.add_token("carol", ["new"])  # replacing a token deletes the old one
        deadline = time.monotonic() + TOKEN_KEEP_SECONDS / 2
        while serving.token_identity(replaced) is not None:
            assert time.monotonic() < deadline, "the replaced token was still accepted"
            time.sleep(0.01)
    finally:
        serving.close()
        cli.close()


def test_postgresql_kept_tokens_are_not_used_once_the_listening_connection_is_lost(pg_url: str) -> None:
    """Without its listening connection a store cannot learn of deletions: the moment the server ends that
    connection, no kept token is used (the next lookup reads the database), without waiting for the listener to
    notice; once it listens again, found tokens are kept again."""
    serving = Coroutines(open_state(pg_url))
    cli = open_state(pg_url)
    try:
        token = cli.add_token("ann", ["clerk"])
        _kept_once_listening(serving, token)
        _by_hand(pg_url, "DELETE FROM tokens WHERE name = 'ann'")
        assert serving.token_identity(token) == ("ann", ("clerk",))  # control: kept
        _by_hand(pg_url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %'")
        deadline = time.monotonic() + 5
        while _listening(pg_url):  # the server has ended it: its socket now reads the end
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert serving.token_identity(token) is None
        again = cli.add_token("bob", [])
        deadline = time.monotonic() + 10
        while not _listening(pg_url):  # it listens again (a second after the loss)
            assert time.monotonic() < deadline, "the store did not listen again"
            time.sleep(0.05)
        _kept_once_listening(serving, again)
        _by_hand(pg_url, "DELETE FROM tokens WHERE name = 'bob'")
        assert serving.token_identity(again) == ("bob", ())
    finally:
        serving.close()
        cli.close()


def _listening(url: str) -> bool:
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN %'").fetchone()
    return bool(row and row[0])


class _Lazy:
    """A store opened in its thread (the migration is what runs concurrently)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def open(self) -> SqlStore:
        store = open_state(self.url)
        self.store = store
        return store


# ---------------------------------------------------------------------------------------------- property
calls = st.lists(st.tuples(st.sampled_from([None, "", "ann"]), st.floats(0.0, 40.0), st.booleans()), max_size=25)


@pytest.fixture(scope="module")
def both(pg_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SqlStore, ...]]:
    """SQLite, PostgreSQL, and PostgreSQL through its coroutine twins (on another database)."""
    sqlite = open_state(str(tmp_path_factory.mktemp("prop") / "state.sqlite"))
    pg = open_state(pg_server.create_database())
    twins = Coroutines(open_state(pg_server.create_database()))
    yield sqlite, pg, cast(SqlStore, twins)
    sqlite.close()
    pg.close()
    twins.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(calls=calls, limit=st.integers(1, 3), cooldown=st.sampled_from([None, 7.0]))
def test_both_stores_answer_every_call_sequence_as_the_model(both: tuple[SqlStore, ...],
                                                             calls: list[tuple[str | None, float, bool]], limit: int,
                                                             cooldown: float | None) -> None:
    intent = "i" + uuid.uuid4().hex  # a fresh bucket per example
    window = 60.0
    model: dict[str | None, list[float]] = {}
    now = 10_000.0
    answers: list[list[float | None]] = [[] for _ in range(len(both) + 1)]
    for actor, step, record in calls:
        now += step
        kept = [t for t in model.get(actor, []) if t > now - window]
        wait = 0.0
        if len(kept) >= limit:
            wait = kept[len(kept) - limit] + window - now
        if cooldown is not None and model.get(actor):
            wait = max(wait, max(model[actor]) + cooldown - now)
        expected = wait if wait > 0 else None
        if record:  # a recorded call that is admitted enters the window; the calls that left it are dropped
            model[actor] = [*kept, now] if expected is None else kept
        answers[0].append(expected)
        for n, store in enumerate(both, 1):
            answers[n].append(store.acquire(intent, actor, now, limit, window, cooldown, record))
    for got in answers[1:]:
        assert [None if a is None else round(a, 6) for a in got] == [
            None if a is None else round(a, 6) for a in answers[0]]
