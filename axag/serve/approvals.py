"""Approval requests of `axag serve` in its state database, SQLite or PostgreSQL (issues 15, 31).

A request records the call an agent asked permission for (tool, arguments and their fingerprint, reason, actor),
when it was made and when it expires, its status (pending, approved, denied, expired) and each approver's
decision (approver, roles, scope `call`/`value`, granted, time). Approvers sign in with their own token (made by
`axag serve approver add`, shown once, stored as its SHA-256). An approval link carries a code that is stored
hashed and compared in constant time; opening it (as often as one likes: a chat unfurler or a mail scanner may
fetch it first) starts a page session (also stored hashed) with its own CSRF token, and deciding needs that
token and the approver's own. `axag approvals link` makes a fresh code and retires the older ones. Codes and
sessions die with the request: once it is decided or expired nothing can change it.
"""

from __future__ import annotations

import hmac
import json
import secrets
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from axag.serve.state import SqlStore, hash_token

__all__ = ["ApprovalDesk", "ApprovalRequest", "Decision", "DeskRefusal"]

_COLUMNS = ("id, tool, arguments, fingerprint, reason, actor, created, expires, status, decided, approval_count, "
            "approval_roles, notified, spent")


_SESSIONS = 32  # page sessions kept per request (each opening of a link makes one)


class DeskRefusal(Exception):
    """A decision that cannot be recorded; the message says why (shown to the approver)."""


@dataclass(frozen=True)
class Decision:
    approver: str
    roles: tuple[str, ...]
    scope: str
    granted: bool
    at: float


@dataclass(frozen=True)
class ApprovalRequest:
    id: str
    tool: str
    arguments: dict[str, Any]
    fingerprint: str
    reason: str
    actor: str | None
    created: float
    expires: float
    status: str
    decided: float | None
    count: int
    roles: tuple[str, ...]
    notified: bool
    decisions: tuple[Decision, ...]
    spent: bool = False  # its approvals let the call run once; what lasts of them is remembered by the store

    @property
    def granted(self) -> int:
        return sum(1 for d in self.decisions if d.granted)

    @property
    def approvals_valid_until(self) -> float:
        """Approvals of a pending request expire with it; those of a decided one stay usable for another TTL."""
        if self.decided is None or self.status == "expired":
            return self.expires
        return self.decided + (self.expires - self.created)

    def summary(self) -> dict[str, Any]:
        """The request as JSON (CLI `show`, `list --json`); never a code or a link."""
        return {"id": self.id, "tool": self.tool, "status": self.status, "actor": self.actor, "reason": self.reason,
                "arguments": self.arguments, "fingerprint": self.fingerprint, "created": _iso(self.created),
                "expires": _iso(self.expires), "approvals": f"{self.granted} of {self.count}",
                "approval_roles": list(self.roles),
                "decisions": [{"approver": d.approver, "roles": list(d.roles), "scope": d.scope,
                               "granted": d.granted, "at": _iso(d.at)} for d in self.decisions]}


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


class ApprovalDesk:
    """Approval requests, approvers, link codes and page sessions in the state database of ``store``."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    # ------------------------------------------------------------------ approvers
    def add_approver(self, name: str, roles: Sequence[str]) -> str:
        """A new token for approver ``name`` (replacing an earlier one); only its hash is kept."""
        token = "axap_" + secrets.token_urlsafe(32)
        with self.store._tx() as db:
            db.execute("DELETE FROM approvers WHERE name = ?", (name,))
            db.execute("INSERT INTO approvers (name, hash, roles, created) VALUES (?, ?, ?, ?)",
                       (name, hash_token(token), json.dumps(list(roles)), time.time()))
        return token

    def approver_identity(self, token: str) -> tuple[str, tuple[str, ...]] | None:
        """(name, roles) of the approver holding ``token``; compared as hashes in constant time."""
        wanted = hash_token(token)
        found = None
        with self.store._read() as db:
            rows = db.execute("SELECT name, hash, roles FROM approvers").fetchall()
        for name, stored, roles in rows:
            if hmac.compare_digest(str(stored), wanted):
                found = str(name), tuple(str(r) for r in json.loads(roles))
        return found

    def approvers(self) -> list[dict[str, Any]]:
        """The approvers (name, roles, created), by name; never a token or its hash."""
        with self.store._read() as db:
            rows = db.execute("SELECT name, roles, created FROM approvers ORDER BY name").fetchall()
        return [{"name": str(n), "roles": list(json.loads(r)), "created": float(c)} for n, r, c in rows]

    def revoke_approver(self, name: str) -> bool:
        """Delete approver ``name`` (their token stops working; approvals of values they gave stop counting)."""
        with self.store._tx() as db:
            return bool(db.execute("DELETE FROM approvers WHERE name = ?", (name,)).rowcount == 1)

    def approver_roles(self, name: str) -> tuple[str, ...] | None:
        with self.store._read() as db:
            row = db.execute("SELECT roles FROM approvers WHERE name = ?", (name,)).fetchone()
        return None if row is None else tuple(str(r) for r in json.loads(row[0]))

    # ------------------------------------------------------------------ requests
    def create(self, *, tool: str, arguments: dict[str, Any], fingerprint: str, reason: str, actor: str | None,
               ttl: float, count: int, roles: Sequence[str], now: float | None = None) -> ApprovalRequest:
        now = time.time() if now is None else now
        rid = "r" + uuid.uuid4().hex[:12]
        with self.store._tx() as db:
            db.execute(f"INSERT INTO approval_requests ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (rid, tool, json.dumps(arguments, sort_keys=True, ensure_ascii=False), fingerprint, reason,
                        actor, now, now + ttl, "pending", None, count, json.dumps(list(roles)), 0, None))
        found = self.get(rid)
        assert found is not None
        return found

    def pending_count(self, actor: str | None) -> int:
        """How many requests of ``actor`` are pending (not yet decided, not expired)."""
        with self._reader() as db:
            return int(db.execute(f"SELECT count(*) FROM approval_requests WHERE actor {self.store.SAME} ? AND "
                                  "status = 'pending'", (actor,)).fetchone()[0])

    def spend(self, request_id: str) -> None:
        """The call ran on this request's approvals: they are not offered again (approved values live on only as
        the store's remembered approval, which expires and can be revoked)."""
        with self.store._tx() as db:
            db.execute("UPDATE approval_requests SET spent = ? WHERE id = ? AND spent IS NULL", (time.time(),
                                                                                                 request_id))

    def mark_notified(self, request_id: str) -> None:
        with self.store._tx() as db:
            db.execute("UPDATE approval_requests SET notified = 1 WHERE id = ?", (request_id,))

    def _expire(self, db: Any, now: float) -> None:
        db.execute("UPDATE approval_requests SET status = 'expired', decided = expires "
                   "WHERE status = 'pending' AND expires <= ?", (now,))

    @contextmanager
    def _reader(self) -> Iterator[Any]:
        """A transaction for reading requests, after expiring the overdue ones; a write lock is taken only when
        one is overdue (waiting calls poll these reads)."""
        now = time.time()
        with self.store._read() as db:
            overdue = db.execute("SELECT 1 FROM approval_requests WHERE status = 'pending' AND expires <= ? LIMIT 1",
                                 (now,)).fetchone() is not None
        if overdue:
            with self.store._tx() as tx:
                self._expire(tx, now)
        with self.store._read() as db:
            yield db

    def get(self, request_id: str) -> ApprovalRequest | None:
        with self._reader() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM approval_requests WHERE id = ?", (request_id,)).fetchone()
            return None if row is None else self._request(db, row)

    def latest(self, tool: str, fingerprint: str, actor: str | None) -> ApprovalRequest | None:
        """The newest request for this call by this actor."""
        with self._reader() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM approval_requests WHERE tool = ? AND fingerprint = ? "
                             f"AND actor {self.store.SAME} ? ORDER BY created DESC, {self.store.ROWID} DESC LIMIT 1",
                             (tool, fingerprint, actor)).fetchone()
            return None if row is None else self._request(db, row)

    def list(self, status: str | None = None) -> list[ApprovalRequest]:
        with self._reader() as db:
            sql = f"SELECT {_COLUMNS} FROM approval_requests"
            order = f" ORDER BY created, {self.store.ROWID}"
            rows = db.execute(sql + " WHERE status = ?" + order, (status,)).fetchall() if status \
                else db.execute(sql + order).fetchall()
            return [self._request(db, row) for row in rows]

    @staticmethod
    def _request(db: Any, row: Sequence[Any]) -> ApprovalRequest:
        decisions = tuple(Decision(str(a), tuple(json.loads(r)), str(s), bool(g), float(at)) for a, r, s, g, at in
                          db.execute("SELECT approver, roles, scope, granted, at FROM approval_decisions "
                                     "WHERE request_id = ? ORDER BY at, approver", (row[0],)))
        return ApprovalRequest(id=str(row[0]), tool=str(row[1]), arguments=json.loads(row[2]),
                               fingerprint=str(row[3]), reason=str(row[4]), actor=row[5], created=float(row[6]),
                               expires=float(row[7]), status=str(row[8]),
                               decided=None if row[9] is None else float(row[9]), count=int(row[10]),
                               roles=tuple(json.loads(row[11])), notified=bool(row[12]), decisions=decisions,
                               spent=row[13] is not None)

    def decide(self, request_id: str, approver: str, roles: Sequence[str], *, granted: bool,
               scope: str = "call") -> ApprovalRequest:
        """Record one approver's decision; raises `DeskRefusal` when it cannot count."""
        if scope not in ("call", "value"):
            raise DeskRefusal(f"unknown scope {scope!r} (call or value)")
        now = time.time()
        with self.store._tx() as db:
            self._expire(db, now)
            row = db.execute(f"SELECT {_COLUMNS} FROM approval_requests WHERE id = ?", (request_id,)).fetchone()
            if row is None:
                raise DeskRefusal(f"no approval request {request_id}")
            req = self._request(db, row)
            if req.status != "pending":
                raise DeskRefusal(f"request {request_id} is already {req.status}; nothing can change it")
            if req.actor is not None and approver == req.actor:
                raise DeskRefusal(f"{approver} asked for this call and cannot decide on it (no self-approval)")
            if req.roles and not set(req.roles).intersection(roles):
                raise DeskRefusal(f"{approver} lacks the roles to decide on it (one of {', '.join(req.roles)} "
                                  "is needed)")
            if any(d.approver == approver for d in req.decisions):
                raise DeskRefusal(f"{approver} has already decided on request {request_id}")
            db.execute("INSERT INTO approval_decisions (request_id, approver, roles, scope, granted, at) "
                       "VALUES (?, ?, ?, ?, ?, ?)", (request_id, approver, json.dumps(list(roles)), scope,
                                                     int(granted), now))
            given = req.granted + (1 if granted else 0)
            status = "denied" if not granted else "approved" if given >= req.count else "pending"
            if status != "pending":
                db.execute("UPDATE approval_requests SET status = ?, decided = ? WHERE id = ?",
                           (status, now, request_id))
            return self._request(db, db.execute(f"SELECT {_COLUMNS} FROM approval_requests WHERE id = ?",
                                                (request_id,)).fetchone())

    # ------------------------------------------------------------------ link codes and page sessions
    def mint_code(self, request_id: str, *, retire: bool = False) -> str:
        """A fresh code for a link to ``request_id`` (only its hash is stored); ``retire``: the request's earlier
        codes stop working."""
        code = secrets.token_urlsafe(24)
        with self.store._tx() as db:
            if retire:
                db.execute("UPDATE approval_codes SET used = ? WHERE request_id = ? AND used IS NULL",
                           (time.time(), request_id))
            db.execute("INSERT INTO approval_codes (hash, request_id, used) VALUES (?, ?, NULL)",
                       (hash_token(code), request_id))
        return code

    def open_code(self, request_id: str, code: str) -> tuple[str, str] | None:
        """Open a link: a new page session (session secret, CSRF token), or None when the code is unknown or
        retired, or its request is no longer pending. Opening does not spend the code (GET is safe and
        repeatable); a request keeps its newest `_SESSIONS` sessions."""
        wanted = hash_token(code)
        now = time.time()
        with self.store._tx() as db:
            self._expire(db, now)
            status = db.execute("SELECT status FROM approval_requests WHERE id = ?", (request_id,)).fetchone()
            match = False
            for stored, used in db.execute("SELECT hash, used FROM approval_codes WHERE request_id = ?",
                                           (request_id,)).fetchall():
                if hmac.compare_digest(str(stored), wanted) and used is None:
                    match = True
            if not match or status is None or status[0] != "pending":
                return None
            session, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
            db.execute("INSERT INTO desk_sessions (hash, request_id, csrf, created) VALUES (?, ?, ?, ?)",
                       (hash_token(session), request_id, csrf, now))
            rowid = self.store.ROWID
            db.execute(f"DELETE FROM desk_sessions WHERE request_id = ? AND {rowid} NOT IN (SELECT {rowid} FROM "
                       f"desk_sessions WHERE request_id = ? ORDER BY created DESC, {rowid} DESC LIMIT ?)",
                       (request_id, request_id, _SESSIONS))
        return session, csrf

    def session_csrf(self, request_id: str, session: str) -> str | None:
        """The CSRF token of a page session for ``request_id``, or None."""
        wanted = hash_token(session)
        with self.store._read() as db:
            rows = db.execute("SELECT hash, csrf FROM desk_sessions WHERE request_id = ?", (request_id,)).fetchall()
        for stored, csrf in rows:
            if hmac.compare_digest(str(stored), wanted):
                return str(csrf)
        return None
