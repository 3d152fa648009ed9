"""No run record and no result-cache entry is trusted from the project tree. Each is authenticated
with a per-user secret kept outside the project (``axag/cache-key`` 0600 in the user's cache folder, or
``AXAG_CACHE_KEY``); one that fails the check is ignored and rewritten, one made with another secret is said
once, and a replay writes only the report files its command line names."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_fast_path import RUNNER  # the console script in a subprocess, which says what it imported
from tests.conftest import REPO, run_axag

BAD = '<button axag-intent="cart.clear" axag-entity="cart" axag-action-type="delete">Clear</button>\n'
WARNING = "was written with another cache key"

# what an attacker with the same install runs to plant a record: the key is reproducible from the invocation
PLANT = """
import json, sys
from axag.cli import records
plan = records.plan_of(json.loads(sys.argv[1]))
assert plan is not None
key, folders = plan
ops = [(records.STDOUT, "All checks passed.\\n", ""), (records.FILE, "[core]\\n\\tfsmonitor = evil\\n", ".git/config")]
try:  # the record format of the installed axag: with a secret (the attacker's own) or, in older versions, none
    blob = records.encode_record(key, bytes(range(32)), [], ops, 0)
except TypeError:
    blob = records.encode_record(key, [], ops, 0)
print(json.dumps([key.hex(), list(folders)]))
sys.stdout.flush()
import os
path = os.path.join(folders[-1], records.RUNS, key.hex())
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "wb") as fh:
    fh.write(blob)
"""


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("AXAG_CACHE_DIR", "AXAG_CACHE_KEY")}
    return {**env, "PYTHONPATH": str(REPO), "NO_COLOR": "1", "XDG_CACHE_HOME": str(home), **extra}


def _axag(args: list[str], cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    side = cwd.parent / f"modules-{os.getpid()}.json"
    done = subprocess.run([sys.executable, "-c", RUNNER, str(side), "entry", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    modules = set(json.loads(side.read_text())) if side.exists() else set()
    side.unlink(missing_ok=True)
    return {"code": done.returncode, "out": done.stdout, "err": done.stderr, "replayed": bool(modules) and "axag.lint.engine" not in modules}


def _forget_secret() -> None:
    """The secret read so far is forgotten (the user cache folder changed)."""
    try:
        from axag.batch.cache import secret as cache_secret
    except ImportError:  # an older axag: there was none
        return
    cache_secret.reset()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n\tbare = false\n", encoding="utf-8")
    (root / "bad.html").write_text(BAD, encoding="utf-8")
    return root


def test_a_planted_run_record_is_not_replayed(project: Path, tmp_path: Path) -> None:
    """A committed ``.axag_cache/runs/<key>`` made by someone with the same install neither passes a bad page
    nor writes ``.git/config``: the run checks the page, says once that the cache was another secret's, and
    rewrites the record, which the next run replays."""
    env = _env(tmp_path / "user")
    cold = _axag(["lint", "bad.html", "--no-cache"], project, env)
    assert cold["code"] == 1 and "AXAG-LINT-" in cold["out"]
    planted = subprocess.run([sys.executable, "-c", PLANT, json.dumps(["lint", "bad.html"])], cwd=project,
                             env=env, capture_output=True, text=True, timeout=60, check=True)
    key, folders = json.loads(planted.stdout)
    assert (project / ".axag_cache" / "runs" / key).is_file()
    assert folders[-1] == str(project / ".axag_cache")  # the project tree
    got = _axag(["lint", "bad.html"], project, env)
    assert (got["code"], got["out"]) == (1, cold["out"])
    assert "All checks passed." not in got["out"]
    assert (project / ".git" / "config").read_text(encoding="utf-8") == "[core]\n\tbare = false\n"
    assert got["err"].count(WARNING) == 1, got["err"]
    again = _axag(["lint", "bad.html"], project, env)  # the record was rewritten with this user's secret
    assert (again["code"], again["out"], again["err"], again["replayed"]) == (1, cold["out"], "", True)


def test_a_record_naming_another_file_is_not_replayed(project: Path, tmp_path: Path) -> None:
    """Even a record made with the right secret (a CI whose AXAG_CACHE_KEY leaked) writes only the report
    files the current command line names: one that names another path is run again instead."""
    env = _env(tmp_path / "user", AXAG_CACHE_KEY="shared ci secret")
    forge = PLANT.replace("bytes(range(32))", "__import__('axag.batch.cache.secret').batch.cache.secret.secret()")
    subprocess.run([sys.executable, "-c", forge, json.dumps(["lint", "bad.html"])], cwd=project, env=env,
                   capture_output=True, text=True, timeout=60, check=True)
    got = _axag(["lint", "bad.html"], project, env)
    assert got["code"] == 1 and "All checks passed." not in got["out"] and not got["replayed"]
    assert (project / ".git" / "config").read_text(encoding="utf-8") == "[core]\n\tbare = false\n"
    assert got["err"] == ""  # the same secret: nothing to say


def test_report_files_the_command_line_names_are_replayed(project: Path, tmp_path: Path) -> None:
    env = _env(tmp_path / "user")
    args = ["lint", "bad.html", "--output-format", "json:out/r.json", "--output-file", "o.txt"]
    first = _axag(args, project, env)
    written = (project / "out" / "r.json").read_bytes(), (project / "o.txt").read_bytes()
    (project / "out" / "r.json").unlink()
    (project / "o.txt").unlink()
    second = _axag(args, project, env)
    assert second["replayed"] and (second["code"], second["out"]) == (first["code"], first["out"])
    assert ((project / "out" / "r.json").read_bytes(), (project / "o.txt").read_bytes()) == written


def test_the_secret_is_made_once_0600_outside_the_project(project: Path, tmp_path: Path) -> None:
    env = _env(tmp_path / "user")
    _axag(["lint", "bad.html"], project, env)
    secret = tmp_path / "user" / "axag" / "cache-key"
    mode = secret.stat().st_mode
    assert stat.S_ISREG(mode) and stat.S_IMODE(mode) == 0o600 and len(secret.read_bytes()) == 32
    made = secret.read_bytes()
    assert not list(project.rglob("cache-key"))
    _axag(["lint", "bad.html", "--no-cache"], project, env)
    assert secret.read_bytes() == made
    # a secret another user could read is not trusted: replaced by a new one (and the cache made with it unused)
    secret.chmod(0o644)
    got = _axag(["lint", "bad.html"], project, env)
    assert got["code"] == 1 and not got["replayed"]
    assert secret.read_bytes() != made and stat.S_IMODE(secret.stat().st_mode) == 0o600


def test_a_ci_keeps_its_cache_with_axag_cache_key(project: Path, tmp_path: Path) -> None:
    """A restored cache is used by a run with the same AXAG_CACHE_KEY (another machine: another user cache
    folder); a run without it says once why the cache is not used, and the output is the cold one."""
    first = _axag(["lint", "bad.html"], project, _env(tmp_path / "ci1", AXAG_CACHE_KEY="k1"))
    restored = _axag(["lint", "bad.html"], project, _env(tmp_path / "ci2", AXAG_CACHE_KEY="k1"))
    assert restored["replayed"] and (restored["out"], restored["err"]) == (first["out"], first["err"])
    without = _axag(["lint", "bad.html"], project, _env(tmp_path / "ci3"))
    assert (without["code"], without["out"]) == (first["code"], first["out"]) and not without["replayed"]
    assert without["err"].count(WARNING) == 1 and "AXAG_CACHE_KEY" in without["err"]


def test_planted_result_cache_entries_are_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Result-cache entries written by another install of axag (the same key material: a shared CI image)
    that say a bad page is clean are not used: the findings are the page's own, said once, and the entries are
    rewritten with this user's secret (the next run uses them, silently)."""
    from axag.batch.cache.store import ResultCache

    (tmp_path / "bad.html").write_text(BAD, encoding="utf-8")
    cache = tmp_path / "committed-cache"
    monkeypatch.chdir(tmp_path)
    cold = run_axag(["lint", "bad.html", "--isolated", "--no-cache"])
    assert cold.exit_code == 1

    # the attacker: another user cache folder (another secret, or none in older versions), an axag that stores clean
    # outcomes
    real_store = ResultCache.store

    def lying_store(self: Any, key: bytes, content: bytes, outcome: Any, *rest: Any) -> None:
        outcome.findings = []
        real_store(self, key, content, outcome, *rest)

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "attacker"))
    _forget_secret()
    monkeypatch.setattr(ResultCache, "store", lying_store)
    run_axag(["lint", "bad.html", "--isolated", "--cache-dir", str(cache)])
    monkeypatch.setattr(ResultCache, "store", real_store)
    lied = run_axag(["lint", "bad.html", "--isolated", "--cache-dir", str(cache)])
    assert (lied.exit_code, lied.stdout) == (0, "All checks passed.\n")  # the attacker's own runs believe it

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "victim"))
    _forget_secret()
    got = run_axag(["lint", "bad.html", "--isolated", "--cache-dir", str(cache)])
    assert (got.exit_code, got.stdout) == (1, cold.stdout)
    assert got.stderr.count(WARNING) == 1
    _forget_secret()
    warm = run_axag(["lint", "bad.html", "--isolated", "--cache-dir", str(cache)])
    assert (warm.exit_code, warm.stdout, warm.stderr) == (1, cold.stdout, "")


def test_a_tampered_entry_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry of this user's whose bytes were changed (its MAC no longer matches) is ignored and rewritten."""
    (tmp_path / "bad.html").write_text(BAD, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "c"
    cold = run_axag(["lint", "bad.html", "--isolated", "--cache-dir", str(cache)])
    entries = [p for p in (cache / "entries").iterdir() if not p.name.startswith(".")]
    assert len(entries) == 1
    blob = bytearray(entries[0].read_bytes())
    blob[-20] ^= 1  # in the pickled outcome
    entries[0].write_bytes(bytes(blob))
    got = run_axag(["lint", "bad.html", "--isolated", "--cache-dir", str(cache)])
    assert (got.exit_code, got.stdout, got.stderr) == (cold.exit_code, cold.stdout, "")
    assert entries[0].read_bytes() != bytes(blob)  # rewritten
