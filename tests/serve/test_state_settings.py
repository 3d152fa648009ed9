"""A PostgreSQL URL is accepted wherever a state database is named (`--state` of `axag serve
token|approver` and `axag approvals`, `state` in `[tool.axag.serve]`, kept as written, never joined to the
configuration's folder), and `--public-url` / `public-url` make the approval links behind a proxy."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from tests.conftest import chdir, run_axag


def test_a_url_in_the_configuration_names_the_postgresql_database(pg_url: str, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(f'[tool.axag.serve]\nstate = "{pg_url}"\n', encoding="utf-8")
    with chdir(tmp_path):
        added = run_axag(["serve", "token", "add", "ann", "--roles", "clerk"])
        assert added.exit_code == 0, added.output
        approver = run_axag(["serve", "approver", "add", "carol", "--roles", "finance"])
        assert approver.exit_code == 0, approver.output
        listed = run_axag(["serve", "token", "list"])
        assert listed.stdout.startswith("ann  roles clerk  created ")
        none = run_axag(["approvals", "list"])
        assert none.exit_code == 0 and "no approval requests in postgresql://axag@/" in none.stderr
    assert not any(tmp_path.glob("postgres*")) and not (tmp_path / ".axag").exists()  # no file was made
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT name, roles FROM tokens").fetchall() == [("ann", '["clerk"]')]
        assert db.execute("SELECT name FROM approvers").fetchall() == [("carol",)]


def test_approvals_never_lay_out_a_new_postgresql_database(pg_server: object, tmp_path: Path) -> None:
    url = pg_server.create_database()  # type: ignore[attr-defined]
    res = run_axag(["approvals", "list", "--state", url])
    assert res.exit_code == 2
    assert "this database has no axag state (axag serve creates it)" in res.output
    with psycopg.connect(url) as db:
        assert db.execute("SELECT to_regclass('axag_schema')").fetchone() == (None,)


def test_a_password_in_the_url_is_never_shown(tmp_path: Path) -> None:
    res = run_axag(["serve", "token", "list", "--state",
                    f"postgresql://axag:hunter2@/nothing?host={tmp_path}&port=1"])
    assert res.exit_code == 2 and "cannot use this PostgreSQL database" in res.output
    assert "hunter2" not in res.output and "postgresql://axag:***@/nothing" in res.output


@pytest.mark.parametrize("url", ["approvals.example.com", "ftp://example.com", "https://example.com/axag",
                                 "https://example.com/?a=1"])
def test_public_url_must_be_an_origin(url: str, tmp_path: Path) -> None:
    site = Path(__file__).parents[1] / "data" / "serve" / "shared"
    res = run_axag(["serve", str(site), "--base-url", "http://127.0.0.1:9", "--state", str(tmp_path / "s.sqlite"),
                    "--public-url", url])
    assert res.exit_code == 2 and f"--public-url {url}: expected an http:// or https:// origin" in res.output


def test_public_url_makes_the_links_of_axag_approvals_link(tmp_path: Path) -> None:
    """Serve stores the page's origin for `axag approvals link`; behind a proxy that is --public-url (or
    [tool.axag.serve] public-url), not the listening address."""
    from axag.cli.approvals import make_server
    from axag.cli.serve_settings import serve_settings
    from axag.serve.app import ServeConfig
    from axag.serve.stores import open_state

    site = Path(__file__).parents[1] / "data" / "serve" / "shared"
    from axag.api import compile_paths

    doc, _ = compile_paths([str(site)], root=str(site))
    store = open_state(str(tmp_path / "s.sqlite"))
    approval = {"approval_mode": "tell", "approval_ttl": "15m"}
    config = ServeConfig(tools_doc=doc, base_url="http://127.0.0.1:9")
    server = make_server(config, store, {**approval, "public_url": "https://agents.example.com/"},
                         ("127.0.0.1", 8765), None)
    assert server.desk_config.page_url == "https://agents.example.com"
    assert store.setting("page_url") == "https://agents.example.com"
    (tmp_path / "pyproject.toml").write_text('[tool.axag.serve]\npublic-url = "https://from-config.example.com"\n',
                                             encoding="utf-8")
    with chdir(tmp_path):
        settings = serve_settings(None, False)
    server = make_server(config, store, approval, ("127.0.0.1", 8765), settings)
    assert server.desk_config.page_url == "https://from-config.example.com"
    server = make_server(config, store, approval, ("127.0.0.1", 8765), None)
    assert server.desk_config.page_url == "http://127.0.0.1:8765"
    req = server.desk.create(tool="refund_issue", arguments={}, fingerprint="f", reason="r", actor=None, ttl=60,
                             count=1, roles=[])
    store.set_setting("page_url", "https://agents.example.com")
    res = run_axag(["approvals", "link", req.id, "--state", str(tmp_path / "s.sqlite")])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith(f"https://agents.example.com/approvals/{req.id}?code=")


def _connections(url: str) -> int:
    """Sessions open on the database of ``url``, other than the one asking."""
    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                         "AND pid <> pg_backend_pid()").fetchone()
    return int(row[0]) if row else -1


def test_state_commands_leave_no_postgresql_connection_open(pg_url: str) -> None:
    """Each command that opens the state database closes it when it ends (in-process, as a library user or a
    long-lived caller runs it): no session of its pool is left on the server."""
    commands = [["serve", "token", "add", "ann"], ["serve", "token", "list"], ["serve", "token", "revoke", "ann"],
                ["serve", "approver", "add", "carol"], ["serve", "approver", "list"],
                ["serve", "approver", "revoke", "carol"], ["approvals", "list"], ["approvals", "remembered"]]
    for args in commands:
        res = run_axag([*args, "--state", pg_url])
        assert res.exit_code == 0, (args, res.output)
        assert _connections(pg_url) == 0, args
