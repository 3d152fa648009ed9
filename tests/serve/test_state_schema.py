"""The state database of `axag serve` has a schema version (created, migrated, a newer one refused), is
a secret (0600, its folder 0700, a warning when others can read it), and its credentials can be listed, replaced
and revoked (`axag serve token|approver list|revoke`). Through the CLI and `axag serve` itself."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import run_axag

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "tests" / "data" / "serve" / "approval"

# The schema of axag before versioning (state.py and approvals.py at e5be22d), as its databases have it.
OLD_SCHEMA = """
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
"""


def _sha(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()


def old_database(path: Path) -> None:
    """A state database as the axag before versioning left it: a token, an approver, a pending request, the
    signing secret and a remembered approval without an actor."""
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    now = time.time()
    db.execute("INSERT INTO tokens VALUES (?, 'alice', '[\"finance\"]', ?)", (_sha("axag_old-alice"), now))
    db.execute("INSERT INTO approvers VALUES ('bob', ?, '[\"finance\"]', ?)", (_sha("axap_old-bob"), now))
    db.execute("INSERT INTO approved VALUES ('refund_issue', ?)", ("f" * 64,))
    db.execute("INSERT INTO settings VALUES ('secret', ?)", ("ab" * 32,))
    db.execute("INSERT INTO approval_requests VALUES ('r000000000001', 'refund_issue', '{}', ?, 'why', 'alice', ?, "
               "?, 'pending', NULL, 1, '[\"finance\"]', 0)", ("f" * 64, now, now + 600))
    db.commit()
    db.close()


def version_of(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute("PRAGMA user_version").fetchone()[0])
    finally:
        db.close()


def test_an_existing_database_is_migrated_and_keeps_its_credentials(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """An older schema is migrated: tokens, approvers, requests and the secret stay; remembered approvals
    without an actor (the actor became part of a remembered approval) are dropped; the database then has the current schema version."""
    from axag.serve.state import SCHEMA_VERSION

    state = tmp_path / "old.sqlite"
    old_database(state)
    assert version_of(state) == 0
    res = run_axag(["serve", "token", "list", "--state", str(state)])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("alice  roles finance  created ")
    assert version_of(state) == SCHEMA_VERSION >= 1
    res = run_axag(["serve", "approver", "list", "--state", str(state)])
    assert res.stdout.startswith("bob  roles finance  created ")
    assert run_axag(["approvals", "remembered", "--state", str(state)]).stdout == ""
    db = sqlite3.connect(state)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "approved" not in tables and "remembered" in tables
    assert db.execute("SELECT value FROM settings WHERE key = 'secret'").fetchone()[0] == "ab" * 32
    db.close()
    monkeypatch.setenv("AXAG_APPROVER_TOKEN", "axap_old-bob")  # bob's old token still works
    res = run_axag(["approvals", "approve", "r000000000001", "--state", str(state)])
    assert res.exit_code == 0, res.output
    assert res.stdout == "r000000000001: bob approved this call (1 of 1 approvals; the request is approved)\n"
    again = run_axag(["serve", "token", "list", "--state", str(state)])  # a current database is left as it is
    assert again.stdout == res_first_line(again.stdout) and version_of(state) == SCHEMA_VERSION


def res_first_line(text: str) -> str:
    assert len(text.splitlines()) == 1
    return text


def test_a_database_of_a_newer_axag_is_refused(tmp_path: Path) -> None:
    """Item 2: a newer schema version is refused with a clear message, by the CLI and by `axag serve`."""
    state = tmp_path / "new.sqlite"
    assert run_axag(["serve", "approver", "add", "bob", "--state", str(state)]).exit_code == 0
    db = sqlite3.connect(state)
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    message = (f"{state}: this state database has schema version 99, made by a newer axag (this one knows "
               "versions up to ")
    for args in (["approvals", "list"], ["serve", "token", "list"], ["approvals", "remembered"]):
        res = run_axag([*args, "--state", str(state)])
        assert res.exit_code == 2 and message in res.output, (args, res.output)
    served = subprocess.run([sys.executable, "-m", "axag", "serve", str(SITE), "--base-url", "http://127.0.0.1:9",
                             "--state", str(state)], cwd=str(ROOT), env=_env(), stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=120, check=False)
    assert served.returncode == 2 and message in served.stderr
    assert version_of(state) == 99  # untouched


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def test_the_database_is_private_and_serve_warns_when_it_is_not(tmp_path: Path) -> None:
    """Item 8: created 0600 in a folder made 0700; `axag serve` warns about a database others can read."""
    state = tmp_path / ".axag" / "state.sqlite"
    old = os.umask(0o022)
    try:
        assert run_axag(["serve", "approver", "add", "bob", "--state", str(state)]).exit_code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(state.stat().st_mode) == 0o600
    assert stat.S_IMODE(state.parent.stat().st_mode) == 0o700
    for extra in state.parent.glob("state.sqlite-*"):  # SQLite gives its WAL files the database's mode
        assert stat.S_IMODE(extra.stat().st_mode) & 0o077 == 0, extra
    args = [sys.executable, "-m", "axag", "serve", str(SITE), "--base-url", "http://127.0.0.1:9", "--state",
            str(state)]
    quiet = subprocess.run(args, cwd=str(ROOT), env=_env(), stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=120, check=False)
    assert "readable by others" not in quiet.stderr
    state.chmod(0o644)
    loud = subprocess.run(args, cwd=str(ROOT), env=_env(), stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120, check=False)
    assert (f"axag serve: warning: {state} is readable by others (mode 0644): it holds the signing secret, call "
            f"arguments and the audit log; run `chmod 600 {state}`") in loud.stderr


def test_tokens_and_approvers_are_listed_replaced_and_revoked(tmp_path: Path) -> None:
    """Item 7: `token add` for an existing name replaces the old token and says so, like `approver add`;
    `list` shows names and roles (never a token); `revoke NAME` ends a credential."""
    from axag.serve.approvals import ApprovalDesk
    from axag.serve.state import SqliteStore

    state = str(tmp_path / "state.sqlite")
    first = run_axag(["serve", "token", "add", "alice", "--roles", "finance", "--state", state])
    assert first.exit_code == 0 and first.stderr == ""
    second = run_axag(["serve", "token", "add", "alice", "--roles", "ops", "--state", state])
    assert second.exit_code == 0
    assert second.stderr == "axag serve: replaced the earlier token of alice; it no longer works\n"
    store = SqliteStore(state)
    assert store.token_identity(first.stdout.strip()) is None
    assert store.token_identity(second.stdout.strip()) == ("alice", ("ops",))
    listed = run_axag(["serve", "token", "list", "--state", state]).stdout
    assert len(listed.splitlines()) == 1 and listed.startswith("alice  roles ops  created 20")
    assert second.stdout.strip() not in listed
    res = run_axag(["serve", "token", "revoke", "alice", "--state", state])
    assert (res.exit_code, res.stdout) == (0, "revoked the token of alice\n")
    assert store.token_identity(second.stdout.strip()) is None
    res = run_axag(["serve", "token", "revoke", "alice", "--state", state])
    assert res.exit_code == 2 and "no token for alice" in res.output

    one = run_axag(["serve", "approver", "add", "bob", "--roles", "finance", "--state", state])
    two = run_axag(["serve", "approver", "add", "bob", "--roles", "finance,audit", "--state", state])
    assert one.stderr == "" and two.stderr == ("axag serve: replaced the earlier token of approver bob; it no "
                                               "longer works\n")
    desk = ApprovalDesk(store)
    assert desk.approver_identity(one.stdout.strip()) is None
    assert desk.approver_identity(two.stdout.strip()) == ("bob", ("finance", "audit"))
    assert run_axag(["serve", "approver", "list", "--state", state]).stdout.startswith(
        "bob  roles finance,audit  created 20")
    assert run_axag(["serve", "approver", "revoke", "bob", "--state", state]).stdout == "revoked approver bob\n"
    assert desk.approver_identity(two.stdout.strip()) is None
    assert run_axag(["serve", "approver", "list", "--state", state]).stdout == ""
    res = run_axag(["serve", "approver", "revoke", "bob", "--state", state])
    assert res.exit_code == 2 and "bob is not an approver" in res.output


@pytest.mark.parametrize(("table", "message"), [
    ('max-pending = 0', '"serve.max-pending" must be at least 1, not 0'),
    ('max-pending = "5"', '"serve.max-pending" must be a whole number, not a string'),
    ('value-approval-ttl = 24', '"serve.value-approval-ttl" must be a string, not an integer'),
])
def test_serve_settings_of_the_new_flags_are_checked(table: str, message: str, tmp_path: Path) -> None:
    """Item 10: [serve] max-pending and value-approval-ttl are configuration keys, checked like the others."""
    (tmp_path / "axag.toml").write_text(f"[serve]\n{table}\n", encoding="utf-8")
    res = run_axag(["serve", str(SITE), "--base-url", "http://127.0.0.1:9", "--state", str(tmp_path / "s.sqlite")],
                   cwd=tmp_path)
    assert res.exit_code == 2 and message in res.output, res.output


def test_a_bad_value_approval_ttl_is_refused(tmp_path: Path) -> None:
    (tmp_path / "axag.toml").write_text('[serve]\nvalue-approval-ttl = "a day"\n', encoding="utf-8")
    res = run_axag(["serve", str(SITE), "--base-url", "http://127.0.0.1:9", "--state", str(tmp_path / "s.sqlite")],
                   cwd=tmp_path)
    assert res.exit_code == 2 and "--value-approval-ttl a day: expected a duration such as 90s, 15m or 2h" in (
        res.output)
    for flag, value in (("--max-pending", "0"), ("--value-approval-ttl", "soon")):
        res = run_axag(["serve", str(SITE), "--base-url", "http://127.0.0.1:9", "--state",
                        str(tmp_path / "s.sqlite"), "--isolated", flag, value])
        assert res.exit_code == 2 and flag in res.output, res.output
    assert "--value-approval-ttl soon: expected a duration such as 90s, 15m or 2h" in res.output


def test_remembered_lists_as_json(tmp_path: Path) -> None:
    """`axag approvals remembered --json`: one JSON object a line, times in UTC."""
    from axag.serve.approvals import ApprovalDesk
    from axag.serve.state import SqliteStore

    store = SqliteStore(tmp_path / "s.sqlite")
    ApprovalDesk(store).add_approver("bob", ["finance"])
    store.remember_approval("refund_issue", "f" * 64, "alice", {"bob": ["finance"]}, time.time() + 3600)
    (line,) = run_axag(["approvals", "remembered", "--json", "--state", str(tmp_path / "s.sqlite")]).stdout.splitlines()
    row = json.loads(line)
    assert (row["tool"], row["actor"], row["approvers"], row["fingerprint"]) == (
        "refund_issue", "alice", {"bob": ["finance"]}, "f" * 64)
    assert row["id"].startswith("m") and row["expires"].endswith("Z")


def test_a_guard_package_of_an_older_axag_is_refused(tmp_path: Path) -> None:
    """The GuardStore protocol changed: `axag serve --guards DIR` with a package whose runtime predates
    it exits 2 asking to regenerate it, instead of failing on the first approval."""
    from axag.api import render_guards
    from axag.compile.serialize import dumps

    doc = json.loads(run_axag(["compile", str(SITE), "--root", str(SITE), "--isolated", "-o", "-"]).stdout)
    (tmp_path / "tools.json").write_text(dumps(doc), encoding="utf-8")
    out = tmp_path / "guards"
    for rel, text in render_guards(doc).items():
        if rel.endswith("runtime.py"):  # the runtime as it was: no remember_seconds in the context
            text = text.replace("    remember_seconds: float | None = None", "")
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text, encoding="utf-8")
    res = run_axag(["serve", str(tmp_path / "tools.json"), "--base-url", "http://127.0.0.1:9", "--state",
                    str(tmp_path / "s.sqlite"), "--guards", str(out), "--isolated"])
    assert res.exit_code == 2
    assert f"{out}: the guard package was made by an older axag" in res.output
    assert "regenerate it with `axag guards`" in res.output
