"""Shared test helpers: run the CLI in-process, locate the shared corpus."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import settings as _hypothesis_settings

# In CI, property-based tests draw the same examples every run (derandomize), so that a green local run
# predicts a green CI run; locally they keep exploring new examples.
_hypothesis_settings.register_profile("ci", derandomize=True, deadline=None, database=None, print_blob=True)
if os.environ.get("CI"):
    _hypothesis_settings.load_profile("ci")

# Development mode of the rule messages (axag/rules/declare.py): a report that omits a placeholder of its message
# or passes one the message does not have raises instead of rendering leniently (inherited by subprocesses)
os.environ["AXAG_STRICT_MESSAGES"] = "1"

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
FIXTURES = REPO / "fixtures"


@pytest.fixture(autouse=True)
def _result_cache_in_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets a result cache of its own in a temporary folder (AXAG_CACHE_DIR, inherited by the
    subprocesses it starts): runs on the repository's fixtures never write `.axag_cache` into the repository,
    and no test sees entries another test made."""
    monkeypatch.setenv("AXAG_CACHE_DIR", str(tmp_path_factory.mktemp("axag-cache", numbered=True)))
    # the per-user secret that authenticates the cache is made in a temporary user cache folder,
    # never in the real ~/.cache, and no test inherits AXAG_CACHE_KEY or a secret read by an earlier test
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache", numbered=True)))
    monkeypatch.delenv("AXAG_CACHE_KEY", raising=False)
    from axag.batch.cache import secret as cache_secret

    cache_secret.reset()


def shared_or_skip(sub: str = "") -> Path:
    """../shared (beside the clone): present in this project's CI, where `.ci/run` sets AXAG_SHARED_REQUIRED and
    a missing folder fails the test; a user's clone may not have it, and the test is skipped there."""
    path = SHARED / sub
    if not path.exists():
        if os.environ.get("AXAG_SHARED_REQUIRED") or os.environ.get("CI"):
            pytest.fail(f"{path} is missing, and this project's CI has it (AXAG_SHARED_REQUIRED or CI is set)")
        pytest.skip(f"{path} not available (user clone without ../shared)")
    return path


@contextmanager
def chdir(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def run_axag(args: list[str], cwd: Path | None = None, input: str | bytes | None = None) -> Result:
    from axag.cli.group import main

    runner = CliRunner()
    if cwd is None:
        return runner.invoke(main, args, input=input, catch_exceptions=False)
    with chdir(cwd):
        return runner.invoke(main, args, input=input, catch_exceptions=False)


def lint_json(args: list[str], cwd: Path | None = None) -> tuple[int, list[dict[str, Any]]]:
    res = run_axag(["lint", "--output-format", "json", "--isolated", *args], cwd=cwd)
    data = json.loads(res.stdout)
    return res.exit_code, data["findings"]


def codes_at(findings: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    return [(f["code"][-3:], f["line"], f["column"]) for f in findings]


def build_model_from(html: str, name: str = "t.html", harvest: bool = True) -> tuple[Any, Any]:
    """(ParsedFile, FileModel) of an HTML text, through the real reader and parser."""
    from axag.files.source import SourceText, load
    from axag.model.actions import build_model
    from axag.parse.document import parse_source

    src = load(Path(name), html.encode())
    assert isinstance(src, SourceText)
    pf = parse_source(src)
    return pf, build_model(pf, harvest=harvest)


def model_problems(m: Any) -> list[Any]:
    """The problems the rules make of what the model recorded while it was built (`FileModel.facts`), every rule
    enabled, in the order the facts were recorded."""
    from axag.rules import load_rules
    from axag.rules.base import RuleCtx
    from axag.rules.catalogue import RULES
    from axag.rules.facts import judge_facts

    load_rules()
    ctx = RuleCtx(m, frozenset(RULES))
    judge_facts(ctx)
    return ctx.problems


def problems_at(pf: Any, m: Any, *codes: int) -> list[tuple[int, int, int]]:
    """(code, line, column) of the problems of the model's facts with the given codes (all when none given), in
    order."""
    out = []
    for p in model_problems(m):
        if not codes or p.code in codes:
            line, col = pf.lines.position(p.span.start)
            out.append((p.code, line, col))
    return out


# The slowest tests, marked `slow` here (one list, no edits in the test modules) so that `pytest -m "not slow"` is a
# fast inner loop; CI runs everything. Chosen with `pytest --durations=60` on the full suite: real toolchains (tsc,
# node, mypy, pre-commit, Chromium), scaling and fuzzing. A module path marks all its tests, `path::name` one
# test (all its parameters). `tests/project/test_slow_marker.py` checks that every entry still names a test.
SLOW_TESTS = frozenset({
    "tests/cli/test_precommit.py",
    "tests/guards/test_differential.py",
    "tests/guards/test_typescript.py",
    "tests/project/test_bench_script.py",
    "tests/report/test_html_browser.py",
    "tests/robustness/test_fuzz.py",
    "tests/robustness/test_scaling.py",
    "tests/batch/test_cache_dependencies.py::test_a_run_record_is_not_replayed_after_a_dependency_changes",
    "tests/batch/test_cache_dependencies.py::test_warm_equals_cold_after_any_dependency_changes",
    "tests/batch/test_interrupt.py::test_ctrl_c_with_worker_processes",
    "tests/compile/test_tools_file_checks.py::test_the_typescript_runtime_agrees",
    "tests/guards/test_injection.py::test_generated_module_with_arbitrary_texts",
    "tests/guards/test_python.py::test_generated_python_passes_ruff_mypy_and_parses_as_3_10",
    "tests/robustness/test_injection.py::test_typescript_guards_compile",
    "tests/robustness/test_patterns.py::test_pattern_check_itself_is_fast_on_huge_patterns",
    "tests/robustness/test_patterns.py::test_unique_items_is_not_quadratic_in_guards",
    "tests/robustness/test_patterns.py::test_unique_items_is_not_quadratic_in_typescript_guards",
    "tests/serve/test_sent.py::test_every_path_sent_has_the_operations_template_shape",
    "tests/serve/test_sent.py::test_opening_many_sessions_never_closes_a_client_in_use",
    "tests/values/test_jsonspan.py::test_long_input_is_linear",
    "tests/values/test_pattern.py::test_every_pattern_checks_fast",
})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path, _, name = item.nodeid.partition("::")
        if path in SLOW_TESTS or f"{path}::{name.split('[')[0]}" in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the engine parses (in this process): a hit parses nothing."""
    from axag.parse import document

    seen: list[str] = []
    real = document.parse_source

    def counting(src: Any) -> Any:
        seen.append(src.path.name)
        return real(src)

    monkeypatch.setattr(document, "parse_source", counting)
    return seen


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """One throw-away PostgreSQL server for the session (tests/pg_server.py: an unprivileged user, a temporary
    folder, a private unix socket); stopped and removed at the end. It cannot be skipped: a machine without
    PostgreSQL fails here, saying how to install it."""
    from tests.pg_server import PgServer, PgServerError

    try:
        server = PgServer().start()
    except PgServerError as exc:
        pytest.fail(f"PostgreSQL could not start for the shared-state tests: {exc}", pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server: Any) -> str:
    """The URL of a new, empty database on the session's PostgreSQL server."""
    return str(pg_server.create_database())
