"""The cache-hit fast path of the console script (`axag.cli.entry`): a repeated `axag lint
FILE...` with unchanged inputs prints and writes exactly what the click CLI does, without importing click, lxml,
rich, jsonschema, the model or the rules; any changed input, and any invocation it does not fully understand,
goes to the CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from axag.batch.cache.secret import secret
from axag.cli import entry, records
from axag.cli.run_record import prune
from axag.report import FORMATS
from tests.conftest import FIXTURES, REPO, shared_or_skip

# what a replayed run must not import
HEAVY = ("click", "lxml", "rich", "jsonschema", "jinja2", "tomllib", "axag.model", "axag.rules", "axag.lint",
         "axag.parse", "axag.outcome.findings", "axag.report", "axag.config", "axag.cli.group", "axag.batch.cache.store")

RUNNER = """
import json, sys
side, how = sys.argv.pop(1), sys.argv.pop(1)
sys.argv[0] = "axag"
if how == "cli":
    from axag.cli.group import main
else:
    from axag.cli.entry import main
try:
    code = main()
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
sys.stderr.flush()
with open(side, "w") as fh:
    json.dump(sorted(sys.modules), fh)
sys.exit(code)
"""

CONFIG = """[tool.axag.lint]
severity = { "003" = "info" }
per-file-ignores = { "page.html" = ["006"] }
"""


def _run(how: str, args: list[str], cwd: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    side = cwd.parent / "modules.json"
    done = subprocess.run([sys.executable, "-c", RUNNER, str(side), how, "lint", *args], cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})}, capture_output=True,
                          timeout=120, check=False)
    modules = set(json.loads(side.read_text()))
    return {"code": done.returncode, "out": done.stdout, "err": done.stderr, "modules": modules}


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules for h in HEAVY if m == h or m.startswith(h + "."))


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, list[str]]:
    """A project with a [tool.axag] configuration, the fixture pages with findings, templates and a sample of
    the shared corpus (some in a sub-folder with a configuration of its own)."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    names: list[str] = []
    for src in [FIXTURES / "lint" / "golden" / "page.html", *sorted((FIXTURES / "site").glob("*.html")),
                *sorted((FIXTURES / "templates").glob("*.*"))]:
        shutil.copyfile(src, root / src.name)
        names.append(src.name)
    corpus = sorted(shared_or_skip("corpus").rglob("*.html"))
    sub = root / "docs"
    sub.mkdir()
    (sub / "axag.toml").write_text('[lint]\nextend-select = ["ALL"]\n', encoding="utf-8")
    for src in corpus[:: max(1, len(corpus) // 12)]:
        shutil.copyfile(src, sub / src.name)
        names.append(f"docs/{src.name}")
    return root, names


COMBOS: list[list[str]] = [
    *[["--output-format", fmt] for fmt in FORMATS],
    ["--statistics"],
    ["-q", "--exit-zero"],
    ["--color", "always", "--output-format", "concise"],
    ["--color", "always"],
    ["--fail-on", "warning", "--select", "ALL", "--output-format", "concise"],
    ["--output-format", "json:out/report.json", "--output-format", "sarif:out/report.sarif"],
    ["--output-format", "junit", "--output-file", "report.xml", "--quiet"],
]


def _outputs(root: Path) -> dict[str, bytes]:
    found = {p.relative_to(root).as_posix(): p.read_bytes() for p in [root / "report.xml", *root.glob("out/*")]
             if p.is_file()}
    for p in [root / "report.xml", *root.glob("out/*")]:
        p.unlink(missing_ok=True)
    return found


def test_every_format_is_replayed_byte_for_byte(project: tuple[Path, list[str]]) -> None:
    root, names = project
    for combo in COMBOS:
        args = [*combo, *names]
        reference = _run("cli", args, root)
        ref_files = _outputs(root)
        first = _run("entry", args, root)  # not served: the run (without click) leaves the record
        first_files = _outputs(root)
        again = _run("entry", args, root)  # served from the record
        again_files = _outputs(root)
        assert "axag.cli.lint_standalone" in first["modules"] and "click" not in first["modules"], combo
        # every page's result cache entry is valid (the reference run made them): no parser, model or click
        assert not [m for m in first["modules"] if m.split(".")[0] in ("lxml", "click", "jsonschema")
                    or (m.startswith(("axag.model", "axag.parse"))
                        and m not in ("axag.model", "axag.model.facts"))  # the fact kinds the rules name
                    or (m == "rich" and "always" not in combo)], combo
        assert _heavy(again["modules"]) == [], combo
        for run, files in ((first, first_files), (again, again_files)):
            assert (run["code"], run["out"], run["err"]) == (reference["code"], reference["out"], reference["err"]), combo
            assert files == ref_files, combo
        assert reference["code"] in (0, 1) and (reference["out"] or ref_files), combo
    assert b"\x1b[" in _run("entry", ["--color", "always", *names], root)["out"]


def test_a_changed_input_is_never_replayed(project: tuple[Path, list[str]]) -> None:
    root, names = project
    args = ["--output-format", "concise", *names]
    _run("entry", args, root)
    assert _heavy(_run("entry", args, root)["modules"]) == []
    changes = [
        lambda: (root / "page.html").write_text((root / "page.html").read_text() + "<button>x</button>\n"),
        lambda: (root / "pyproject.toml").write_text(CONFIG + 'fail-on = "warning"\n'),
        lambda: (root / "docs" / "axag.toml").unlink(),
        lambda: (root / ".gitignore").write_text("*.html\n"),
        lambda: (root / ".git").mkdir(),
    ]
    for change in changes:
        change()
        got = _run("entry", args, root)
        assert "axag.cli.lint_standalone" in got["modules"]
        reference = _run("cli", args, root)
        assert (got["code"], got["out"], got["err"]) == (reference["code"], reference["out"], reference["err"])
        assert _heavy(_run("entry", args, root)["modules"]) == []  # the new record is used next time


def test_a_changed_baseline_is_not_replayed(tmp_path: Path) -> None:
    shutil.copyfile(FIXTURES / "lint" / "golden" / "page.html", tmp_path / "page.html")
    baseline = tmp_path / "baseline.json"
    args = ["page.html", "--baseline", "baseline.json", "--output-format", "concise"]
    assert _run("cli", ["--update-baseline", *args], tmp_path)["code"] == 0
    _run("entry", args, tmp_path)
    served = _run("entry", args, tmp_path)
    assert _heavy(served["modules"]) == [] and served["code"] == 0
    baseline.write_text('{"version": 1, "findings": []}\n')
    got = _run("entry", args, tmp_path)
    assert "axag.cli.lint_standalone" in got["modules"]
    reference = _run("cli", args, tmp_path)
    assert (got["code"], got["out"]) == (reference["code"], reference["out"])


def test_the_record_is_found_in_the_project_root(project: tuple[Path, list[str]]) -> None:
    """Without AXAG_CACHE_DIR the record is kept in .axag_cache of the configuration's folder (the
    pyproject.toml's: run from a sub-folder without one here) and found there."""
    root, _ = project
    env = {k: v for k, v in os.environ.items() if k != "AXAG_CACHE_DIR"}
    args = ["--output-format", "concise", "page.html", "../index.html"]
    (root / "pages").mkdir()
    shutil.copyfile(root / "page.html", root / "pages" / "page.html")
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", RUNNER, str(root.parent / "m.json"), "entry", "lint", *args],
                              cwd=root / "pages", env={**env, "PYTHONPATH": str(REPO)}, capture_output=True,
                              timeout=120, check=False)
    assert _heavy(set(json.loads((root.parent / "m.json").read_text()))) == [], done.stderr
    assert len(list((root / ".axag_cache" / "runs").iterdir())) == 1
    assert not (root / "pages" / ".axag_cache").exists()


def test_a_damaged_record_is_ignored_and_rewritten(project: tuple[Path, list[str]]) -> None:
    root, names = project
    args = ["--output-format", "json", *names[:3]]
    first = _run("entry", args, root)
    runs = Path(os.environ["AXAG_CACHE_DIR"]) / "runs"
    (record,) = runs.iterdir()
    good = record.read_bytes()
    for damaged in (good[:-1], good[:20], good[:-9] + bytes([good[-9] ^ 1]) + good[-8:], b""):
        record.write_bytes(damaged)
        got = _run("entry", args, root)
        assert "axag.cli.lint_standalone" in got["modules"] and got["out"] == first["out"]
        assert record.read_bytes() == good
    assert _heavy(_run("entry", args, root)["modules"]) == []


@pytest.mark.parametrize("argv", [
    ["lint"], ["lint", "-"], ["lint", "--fix", "a.html"], ["lint", "--diff", "a.html"],
    ["lint", "--update-baseline", "a.html"], ["lint", "--help"],
    ["lint", "-h", "a.html"], ["lint", "--stdin-filename", "x.html", "a.html"], ["lint", "--", "a.html"],
    ["lint", "-qj2", "a.html"], ["lint", "--unknown", "a.html"], ["lint", "a.html", "--select"],
    ["compile", "a.html"], ["--version"], [],
])
def test_invocations_it_does_not_understand_go_to_the_cli(argv: list[str]) -> None:
    assert records.parse_args(argv) is None


def test_the_options_it_understands() -> None:
    assert records.parse_args(["lint", "-q", "--output-format=json", "--select", "ALL", "a.html", "--jobs", "2",
                             "b.html", "--isolated"]) == (
        ["a.html", "b.html"], {"-q": [], "--output-format": ["json"], "--select": ["ALL"], "--jobs": ["2"],
                               "--isolated": []})


def test_unreadable_folder_glob_and_component_paths_are_not_served(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.html").write_text("<p>x</p>")
    (tmp_path / "b.tsx").write_text("export const A = () => <p/>;")
    os.mkfifo(tmp_path / "fifo.html")
    assert records.plan_of(["lint", "a.html"]) is not None
    for path in ("missing.html", "*.html", "b.tsx", "fifo.html", "."):
        assert records.plan_of(["lint", "a.html", path]) is None, path
    assert records.plan_of(["lint", "a.html", "--no-cache"]) is None


def test_pruning_keeps_the_records_used_last(tmp_path: Path) -> None:
    for i in range(10):
        (tmp_path / f"{i:02d}").write_bytes(b"x")
        os.utime(tmp_path / f"{i:02d}", (1000 + i, 1000 + i))
    (tmp_path / ".old.tmp").write_bytes(b"x")
    os.utime(tmp_path / ".old.tmp", (1000, 1000))
    prune(tmp_path, keep=8)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{i:02d}" for i in range(4, 10)]


@pytest.mark.parametrize("args", [
    ["missing.html"],
    ["page.html", "gone.html", "--output-format", "json"],
    ["page.html", "--select", "XYZ"],
    ["page.html", "--output-format", "nope"],
    ["page.html", "--output-format", "json", "--output-format", "concise"],
    ["page.html", "--no-cache", "--output-format", "concise", "--statistics", "-j", "2"],
    ["page.html", "--config", "missing.toml"],
    ["page.html", "--baseline", "missing.json"],
    ["page.html", "--manifest", "page.html"],
    ["page.html", "--isolated", "--exit-zero", "--level", "basic", "--fail-on", "warning"],
    [".", "--output-format", "concise"],
    ["*.html", "--force-exclude", "--no-respect-gitignore"],
    ["page.html", "--color", "bogus"],
    ["page.html", "--jobs", "0"],
    ["page.html", "--config", "."],
])
def test_the_run_without_click_prints_what_the_cli_prints(tmp_path: Path, args: list[str]) -> None:
    """Invocations the pre-parser takes but the record cannot answer run without click (errors are shown by
    click's own code); those with a value click refuses go to click. Either way: the CLI's bytes and code."""
    root = tmp_path / "p"
    root.mkdir()
    shutil.copyfile(FIXTURES / "lint" / "golden" / "page.html", root / "page.html")
    shutil.copyfile(FIXTURES / "site" / "index.html", root / "index.html")
    reference = _run("cli", args, root)
    got = _run("entry", args, root)
    assert (got["code"], got["out"], got["err"]) == (reference["code"], reference["out"], reference["err"])
    click_free = entry.lint_options(["lint", *args]) is not None
    assert ("click" in got["modules"]) == (not click_free or reference["code"] == 2), args


def test_records_live_where_the_result_cache_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The console script finds the cache folder without importing `axag.batch.cache.store`: where `cache.cache_dir` puts
    it, for ``--cache-dir``, ``AXAG_CACHE_DIR`` and the default ``.axag_cache``."""
    from axag.batch.cache import store as cache
    from axag.config.toml import CONFIG_NAMES

    monkeypatch.delenv("AXAG_CACHE_DIR", raising=False)
    cwd = str(tmp_path)
    assert cache.cache_dir(None, False, tmp_path, tmp_path) == tmp_path / ".axag_cache"
    for option in ("c", "~/c", "/abs/c"):
        assert records.cache_folders(cwd, {"--cache-dir": [option]}, {}) == (
            str(cache.cache_dir(option, False, tmp_path, tmp_path)),)
    assert records.cache_folders(cwd, {"--isolated": []}, {}) == (str(cache.cache_dir(None, False, tmp_path, tmp_path)),)
    monkeypatch.setenv("AXAG_CACHE_DIR", "~/elsewhere")
    assert records.cache_folders(cwd, {"--isolated": []}, {}) == (str(cache.cache_dir(None, False, tmp_path, tmp_path)),)
    assert "AXAG_CACHE_DIR" in records.ENV_READ
    assert records.WATCHED[:3] == CONFIG_NAMES


def test_a_record_of_another_shape_is_ignored(tmp_path: Path) -> None:
    import marshal

    from axag.batch.cache.secret import key_id, tag

    key, secret = bytes(16), bytes(range(32))
    good = records.encode_record(key, secret, [("a", "-")], [(records.STDOUT, "x", "")], 1)
    (tmp_path / "r").write_bytes(good)
    assert records.read_record(str(tmp_path / "r"), key, secret) == ((("a", "-"),), ((0, "x", ""),), 1)
    assert records.read_record(str(tmp_path / "r"), bytes([1] * 16), secret) is None
    for payload in [(1, 2, 3), ((), ((7, "x", ""),), 0), ((), (), "0"), ((), ((0, b"x", ""),), 0), ((), (), 300),
                    (("ab",), (), 0), 5]:
        data = records.MAGIC + key_id(secret) + key + marshal.dumps(payload)
        (tmp_path / "r").write_bytes(data + tag(secret, data))
        assert records.read_record(str(tmp_path / "r"), key, secret) is None, payload


def test_a_failed_run_leaves_no_record(tmp_path: Path) -> None:
    shutil.copyfile(FIXTURES / "lint" / "golden" / "page.html", tmp_path / "page.html")
    for args in (["page.html", "--output-format", "json", "--output-format", "concise"],
                 ["page.html", "--baseline", "missing.json"], ["page.html", "--select", "XYZ"]):
        first = _run("entry", args, tmp_path)
        again = _run("entry", args, tmp_path)
        assert first["code"] == again["code"] == 2 and first["err"] == again["err"] != b"", args
        assert "axag.cli.lint_standalone" in again["modules"], args
    assert not list(Path(os.environ["AXAG_CACHE_DIR"]).glob("runs/*"))


def test_installing_a_package_changes_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A record made with other libraries (an upgraded rich, lxml, ...) is not used: the mtimes of the import
    folders are in the key."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.html").write_text("<p>x</p>")
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    before = records.plan_of(["lint", "a.html"])
    assert before == records.plan_of(["lint", "a.html"])
    (site / "rich-99.0.dist-info").mkdir()
    os.utime(site, ns=(1, 1))
    assert before != records.plan_of(["lint", "a.html"])


def test_what_a_recorded_run_leaves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record holds the run's stdout and stderr text in order and its report files; a run that drew a
    progress bar, wrote bytes past the text streams or failed leaves none."""
    from axag.cli import common
    from axag.cli.progress import Progress
    from axag.cli.run_record import record_run

    monkeypatch.chdir(tmp_path)
    opts = {"config": None, "isolated": True, "cache_dir": "cache", "no_cache": False, "baseline": None,
            "manifest": None, "enforced_intents": None, "openapi": None}
    (tmp_path / "cache").mkdir()
    key = bytes(range(16))
    record = tmp_path / "cache" / "runs" / key.hex()

    def run(extra: Any) -> Any:
        def body(_: dict[str, Any]) -> int:
            sys.stderr.write("warn\n")
            sys.stdout.write("a")
            sys.stdout.write("b\n")
            common.write_or_print("out/r.json", iter(["{", "}"]))
            extra()
            return 1
        return body

    assert record_run(key, opts, run(lambda: None)) == 1
    assert records.read_record(str(record), key, secret()) == (
        (), ((records.STDERR, "warn\n", ""), (records.STDOUT, "ab\n", ""), (records.FILE, "{}", "out/r.json")), 1)
    assert (tmp_path / "out" / "r.json").read_text() == "{}"
    for spoil in (lambda: setattr(Progress, "drawn", Progress.drawn + 1), lambda: sys.stdout.buffer):
        record.unlink(missing_ok=True)
        assert record_run(key, opts, run(spoil)) == 1
        assert not record.exists()
    assert record_run(key, opts, lambda _: 2) == 2
    assert not record.exists()
    monkeypatch.setattr("axag.cli.run_record.MAX_TEXT", 7)  # "warn\nab\n{}" is 10 characters
    assert record_run(key, opts, run(lambda: None)) == 1
    assert not record.exists() and (tmp_path / "out" / "r.json").read_text() == "{}"
    monkeypatch.setattr("axag.cli.run_record.MAX_TEXT", 10)
    assert record_run(key, opts, run(lambda: None)) == 1
    assert record.exists()


def test_a_changed_manifest_named_by_the_configuration_is_not_replayed(tmp_path: Path) -> None:
    shutil.copyfile(FIXTURES / "site" / "booking.html", tmp_path / "booking.html")
    (tmp_path / "axag.toml").write_text('[lint]\nmanifest = "m.json"\n', encoding="utf-8")
    (tmp_path / "m.json").write_text('{"intents": []}\n', encoding="utf-8")
    args = ["booking.html", "--output-format", "concise"]
    _run("entry", args, tmp_path)
    assert _heavy(_run("entry", args, tmp_path)["modules"]) == []
    (tmp_path / "m.json").write_text('{"intents": ["x.y"]}\n', encoding="utf-8")
    got = _run("entry", args, tmp_path)
    assert "axag.cli.lint_standalone" in got["modules"]
    reference = _run("cli", args, tmp_path)
    assert (got["code"], got["out"], got["err"]) == (reference["code"], reference["out"], reference["err"])
    assert _heavy(_run("entry", args, tmp_path)["modules"]) == []


def test_the_pre_parser_knows_the_lint_options_as_click_does() -> None:
    """The console script's argument reader mirrors the click command: the same keyword arguments, each served
    flag a click flag and each served valued option a click option taking a value."""
    from axag.cli.lint import lint

    opts = entry.lint_options(["lint", "x.html"])
    assert opts is not None
    assert set(opts) == {p.name for p in lint.params}
    by_name = {name: p for p in lint.params for name in (*p.opts, *p.secondary_opts)}
    assert all(getattr(by_name[f], "is_flag", False) for f in records.FLAGS)
    assert all(not getattr(by_name[v], "is_flag", True) for v in records.VALUED)
    for option, allowed in entry.CHOICES.items():
        assert tuple(by_name[option].type.choices) == allowed
