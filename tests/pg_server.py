"""A throw-away PostgreSQL server for the tests (and benchmarks) of shared serve state.

`PgServer` runs Debian's `initdb` and `pg_ctl` (from /usr/lib/postgresql/*/bin, or PATH) in a fresh temporary
folder: the data folder and the unix socket folder live there, the port is an unused one picked for the socket's
name (the server listens on its unix socket only, no TCP), and `stop()` shuts it down and removes the folder.
PostgreSQL refuses to run as root, so as root the server runs as an unprivileged user (`nobody`, which owns the
folder; the socket accepts everyone, authentication is `trust` on that private socket only).

A failure to start raises `PgServerError` with the server's own log: the tests fail with that message, they are
never skipped (`scripts/install-postgresql.sh` installs the server in CI)."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Any

__all__ = ["PgServer", "PgServerError", "find_bindir"]

SUPERUSER = "axag"


class PgServerError(RuntimeError):
    """PostgreSQL is missing or could not start; the message says why and how to fix it."""


def find_bindir() -> Path:
    """The folder of initdb and pg_ctl: the newest /usr/lib/postgresql/N/bin, else the one of `initdb` on PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(os.path.realpath(on_path)).parent
    raise PgServerError("PostgreSQL's initdb was not found (looked in /usr/lib/postgresql/*/bin and PATH): run "
                        "`sh scripts/install-postgresql.sh` (Debian's postgresql package)")


def _base_folder() -> str:
    """Where the server's folder goes: the temporary folder, unless the server's user could not reach it (as root:
    a folder others cannot enter) or the socket's path would be too long for a unix socket (about 107 bytes)."""
    base = tempfile.gettempdir()
    if len(base) > 60:
        return "/tmp"
    if os.geteuid() == 0:
        folder = Path(base).resolve()
        for part in (folder, *folder.parents):
            if not os.stat(part).st_mode & 0o001:
                return "/tmp"
    return base


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgServer:
    """``with PgServer() as pg: url = pg.create_database()``."""

    def __init__(self) -> None:
        self.bindir = find_bindir()
        self.folder = Path(tempfile.mkdtemp(prefix="axag-pg-", dir=_base_folder()))
        self.data = self.folder / "data"
        self.sockets = self.folder / "run"
        self.port = _free_port()
        self.started = False
        self._run_as: dict[str, Any] = {}
        if os.geteuid() == 0:
            user = pwd.getpwnam("nobody")
            os.chown(self.folder, user.pw_uid, user.pw_gid)
            self._run_as = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        self.sockets.mkdir()
        if self._run_as:
            os.chown(self.sockets, self._run_as["user"], self._run_as["group"])

    def _run(self, *args: str) -> None:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "HOME": str(self.folder)}
        done = subprocess.run([str(self.bindir / args[0]), *args[1:]], capture_output=True, text=True, env=env,
                              cwd=self.folder, check=False, timeout=120, **self._run_as)
        if done.returncode != 0:
            log = self.folder / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise PgServerError(f"PostgreSQL: `{' '.join(args[:2])}` failed (exit {done.returncode}):\n"
                                f"{done.stdout[-2000:]}{done.stderr[-2000:]}{tail}")

    def start(self) -> PgServer:
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8",
                  "--no-sync", "--no-instructions")
        options = (f"-k {self.sockets} -p {self.port} -c listen_addresses='' -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "server.log"), "-o", options, "-w",
                  "-t", "60", "start")
        self.started = True
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@/{database}?host={self.sockets}&port={self.port}"

    def create_database(self, name: str | None = None) -> str:
        """A new, empty database; its URL."""
        import psycopg

        name = name or "t_" + uuid.uuid4().hex[:16]
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.started:
            with contextlib.suppress(PgServerError, subprocess.TimeoutExpired):
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "-t", "60", "stop")
            self.started = False
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> PgServer:  # noqa: PYI034
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()
