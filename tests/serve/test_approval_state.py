"""The approval state of `axag serve` through `ApprovalDesk`: who may decide, when a request is decided,
expiry, single-use link codes and page sessions, and that secrets are stored only as hashes."""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path

import pytest

from axag.serve.approvals import ApprovalDesk, DeskRefusal
from axag.serve.state import SqliteStore
from tests.conftest import run_axag


def desk(tmp_path: Path) -> ApprovalDesk:
    return ApprovalDesk(SqliteStore(tmp_path / "state.sqlite"))


def make(d: ApprovalDesk, ttl: float = 60.0, count: int = 2, now: float | None = None) -> str:
    return d.create(tool="refund_issue", arguments={"order": "O1"}, fingerprint="f" * 64, reason="why",
                    actor="alice", ttl=ttl, count=count, roles=("finance",), now=now).id


def test_decisions(tmp_path: Path) -> None:
    d = desk(tmp_path)
    rid = make(d)
    with pytest.raises(DeskRefusal, match="alice asked for this call and cannot decide on it"):
        d.decide(rid, "alice", ("finance",), granted=True)
    with pytest.raises(DeskRefusal, match=r"dave lacks the roles to decide on it \(one of finance is needed\)"):
        d.decide(rid, "dave", ("intern",), granted=True)
    with pytest.raises(DeskRefusal, match="unknown scope"):
        d.decide(rid, "bob", ("finance",), granted=True, scope="forever")
    assert d.decide(rid, "bob", ("finance",), granted=True).status == "pending"
    with pytest.raises(DeskRefusal, match="bob has already decided"):
        d.decide(rid, "bob", ("finance",), granted=True)
    req = d.decide(rid, "carol", ("finance", "audit"), granted=True, scope="value")
    assert (req.status, req.granted, [x.scope for x in req.decisions]) == ("approved", 2, ["call", "value"])
    with pytest.raises(DeskRefusal, match="already approved; nothing can change it"):
        d.decide(rid, "erin", ("finance",), granted=False)
    other = make(d)
    assert d.decide(other, "bob", ("finance",), granted=False).status == "denied"
    with pytest.raises(DeskRefusal, match="no approval request nope"):
        d.decide("nope", "bob", ("finance",), granted=True)


def test_expiry(tmp_path: Path) -> None:
    d = desk(tmp_path)
    rid = make(d, ttl=10, now=time.time() - 20)
    req = d.get(rid)
    assert req is not None and req.status == "expired" and req.approvals_valid_until == req.expires
    with pytest.raises(DeskRefusal, match="already expired"):
        d.decide(rid, "bob", ("finance",), granted=True)
    assert [r.id for r in d.list("expired")] == [rid] and d.list("pending") == []
    fresh = make(d, ttl=100, count=1)
    done = d.decide(fresh, "bob", ("finance",), granted=True)
    assert done.decided is not None and done.approvals_valid_until == pytest.approx(done.decided + 100)


def test_codes_sessions_and_tokens_are_hashed_and_single_use(tmp_path: Path) -> None:
    d = desk(tmp_path)
    token = d.add_approver("bob", ["finance"])
    assert d.approver_identity(token) == ("bob", ("finance",))
    assert d.approver_identity(token + "x") is None and d.approver_roles("zoe") is None
    rid = make(d, count=1)
    code, other = d.mint_code(rid), d.mint_code(rid)
    assert d.open_code(rid, "wrong") is None
    assert d.open_code("r000000000000", code) is None  # a code belongs to its request
    spent = d.open_code(rid, code)
    assert spent is not None
    session, csrf = spent
    assert d.session_csrf(rid, session) == csrf and d.session_csrf(rid, "nope") is None
    assert d.open_code(rid, code) is not None  # opening is repeatable
    d.decide(rid, "bob", ("finance",), granted=True)
    assert d.open_code(rid, other) is None  # dead once decided
    stored = (tmp_path / "state.sqlite").read_bytes() + b"".join(
        p.read_bytes() for p in tmp_path.glob("state.sqlite-*"))
    for secret in (token, code, other, session):
        assert secret.encode() not in stored


@pytest.mark.parametrize(("flags", "message"), [
    (["--approval-ttl", "soon"], "--approval-ttl soon: expected a duration such as 90s, 15m or 2h"),
    (["--approval-ttl", "0m"], "--approval-ttl 0m: expected a duration"),
    (["--notify-webhook", "ftp://x"], "--notify-webhook ftp://x: expected an http:// or https:// URL"),
    (["--desk-http", "127.0.0.1:9", "--http", "127.0.0.1:9"], "--desk-http is for stdio mode"),
])
def test_bad_approval_flags_exit_2(flags: list[str], message: str, tmp_path: Path) -> None:
    if importlib.util.find_spec("mcp") is None:  # the serve extra; CI installs it (.[test])
        (pytest.fail if os.environ.get("CI") else pytest.skip)("axag[serve] is not installed")
    site = Path(__file__).parents[1] / "data" / "serve" / "approval"
    res = run_axag(["serve", str(site), "--base-url", "http://127.0.0.1:9", "--state", str(tmp_path / "s.sqlite"),
                    *flags])
    assert res.exit_code == 2 and message in res.output


def test_approvals_cli_on_an_unknown_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = str(tmp_path / "s.sqlite")
    added = run_axag(["serve", "approver", "add", "bob", "--roles", "finance", "--state", state])
    assert added.exit_code == 0
    bob = added.stdout.strip()
    res = run_axag(["approvals", "show", "r404", "--state", state])
    assert res.exit_code == 2 and "no approval request r404" in res.output
    monkeypatch.setenv("AXAG_APPROVER_TOKEN", "axap_nope")
    res = run_axag(["approvals", "approve", "r404", "--as", "zoe", "--state", state])
    assert res.exit_code == 2 and "that approver token is not known" in res.output
    monkeypatch.setenv("AXAG_APPROVER_TOKEN", bob)
    res = run_axag(["approvals", "deny", "r404", "--as", "bob", "--state", state])
    assert res.exit_code == 2 and "not recorded: no approval request r404" in res.output


def test_approvals_cli_uses_the_state_database_of_the_configuration(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """`axag serve approver add` and `axag approvals` open the database `axag serve` uses: `[serve] state`."""
    (tmp_path / "axag.toml").write_text('[serve]\nstate = "var/axag.sqlite"\n')
    (tmp_path / "var").mkdir()
    added = run_axag(["serve", "approver", "add", "bob", "--roles", "finance"], cwd=tmp_path)
    assert added.exit_code == 0
    assert (tmp_path / "var" / "axag.sqlite").is_file()
    assert not (tmp_path / ".axag").exists()
    monkeypatch.setenv("AXAG_APPROVER_TOKEN", added.stdout.strip())
    res = run_axag(["approvals", "deny", "r404", "--as", "bob"], cwd=tmp_path)
    assert res.exit_code == 2 and "not recorded: no approval request r404" in res.output


def test_a_state_folder_axag_creates_is_git_ignored(tmp_path: Path) -> None:
    SqliteStore(tmp_path / ".axag" / "state.sqlite").close()
    assert (tmp_path / ".axag" / ".gitignore").read_text(encoding="utf-8") == "# created by axag serve\n*\n"
    (tmp_path / "var").mkdir()
    SqliteStore(tmp_path / "var" / "state.sqlite").close()
    assert not (tmp_path / "var" / ".gitignore").exists()  # a folder of the user's own is left as it is
