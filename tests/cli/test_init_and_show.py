"""What new users looked for: `axag init`, `--show-files` and `--show-settings` (as ruff has
them, for lint and compile) and click's shell completion as the site documents it (docs/lint/configuration.md)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_precommit import readme_snippet
from tests.conftest import FIXTURES, run_axag

ROOT = Path(__file__).resolve().parents[2]
# the shell-completion lines are documented on the site
CONFIGURATION_PAGE = (ROOT / "docs" / "lint" / "configuration.md").read_text(encoding="utf-8")


def axag(cwd: Path, *args: str) -> tuple[int, str, str]:
    res = run_axag(list(args), cwd=cwd)
    return res.exit_code, res.stdout, res.stderr


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)  # what makes a folder a repository's root for `axag init`
    shutil.copytree(FIXTURES / "site", repo / "site")
    (repo / "docs").mkdir()
    (repo / "docs" / "plain.html").write_text("<p>no annotations</p>\n")
    (repo / "app").mkdir()
    return repo


# ------------------------------------------------------------------------------ axag init
def test_init_writes_a_commented_configuration_and_the_hooks(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    code, out, err = axag(repo / "app", "init")
    assert (code, out) == (0, "")
    assert err == ("axag: wrote ../axag.toml\n"
                   "axag: wrote ../.pre-commit-config.yaml (run `pre-commit install` to use it)\n")
    config = (repo / "axag.toml").read_text()
    assert config.startswith("# axag configuration (written by `axag init`")
    assert 'paths = ["site"]  # the folders holding annotated files (found by axag init)' in config
    assert '# output = "tools.json"' in config and "#" in config.splitlines()[0]
    assert (repo / ".pre-commit-config.yaml").read_text() == readme_snippet()
    # the configuration is read as written: compile finds its paths, lint names it
    code, out, _ = axag(repo, "lint", "--show-settings")
    assert code == 0
    assert f"Settings path: {(repo / 'axag.toml').as_posix()}\n" in out
    assert f'compile-paths = ["{(repo / "site").as_posix()}"]\n' in out
    assert axag(repo, "lint", "--exit-zero")[0] == 0
    # never overwrites: a second run writes nothing and says why
    before = {p.name: p.read_bytes() for p in (repo / "axag.toml", repo / ".pre-commit-config.yaml")}
    code, out, err = axag(repo / "app", "init")
    assert (code, out) == (2, "")
    assert err == ("Error: ../axag.toml already configures axag; nothing was written (axag init never overwrites a "
                   "file)\n")
    assert {p.name: p.read_bytes() for p in (repo / "axag.toml", repo / ".pre-commit-config.yaml")} == before


def test_init_leaves_an_existing_pre_commit_configuration(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    mine = "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.6.0\n    hooks: [{id: ruff}]\n"
    (repo / ".pre-commit-config.yaml").write_text(mine)
    code, out, err = axag(repo, "init")
    assert code == 0
    assert (repo / ".pre-commit-config.yaml").read_text() == mine
    assert err.endswith("axag: .pre-commit-config.yaml exists and was left as it is; add these hooks to it:\n")
    assert out == readme_snippet().split("\n", 1)[1]  # the `- repo: local` entry, to paste under `repos:`


def test_init_refuses_a_pyproject_that_configures_axag(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.axag]\nharvest = false\n')
    code, _, err = axag(repo, "init")
    assert code == 2
    assert err == "Error: pyproject.toml already configures axag; nothing was written (axag init never overwrites a file)\n"
    assert sorted(p.name for p in repo.iterdir()) == [".git", "app", "docs", "pyproject.toml", "site"]


def test_init_without_annotated_files_leaves_paths_commented(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, _, _ = axag(tmp_path / "empty", "init", "--no-pre-commit")
    assert code == 0
    assert '# paths = ["site"]' in (tmp_path / "empty" / "axag.toml").read_text()
    assert not (tmp_path / "empty" / ".pre-commit-config.yaml").exists()


# ------------------------------------------------------------------------------ --show-files
def test_show_files_lists_what_a_run_reads_and_reads_nothing(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "axag.toml").write_text('exclude = ["docs", "node_modules"]\n\n[compile]\npaths = ["site"]\noutput = "tools.json"\n')
    (repo / "node_modules").mkdir()
    (repo / "node_modules" / "x.html").write_text("<p>x</p>\n")
    (repo / ".gitignore").write_text("site/admin.html\n")
    code, out, err = axag(repo, "lint", "--show-files")
    assert (code, out, err) == (0, "site/booking.html\nsite/index.html\n", "")
    code, out, err = axag(repo / "site", "compile", "--show-files")
    assert (code, out, err) == (0, "booking.html\nindex.html\n", "")
    assert not (repo / "tools.json").exists() and not (repo / ".axag_cache").exists()


# ------------------------------------------------------------------------------ --show-settings
def test_show_settings_of_the_first_file_with_the_command_line(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "axag.toml").write_text('[lint]\nlevel = "full"\nper-file-ignores = { "legacy/**" = ["AXAG-LINT-101"] }\n'
                                    'severity = { "AXAG-LINT-006" = "error", "AXAG-LINT-024" = "off" }\n')
    code, out, err = axag(repo, "lint", "--show-settings", "site", "--select", "AXAG-LINT-004,AXAG-LINT-006",
                          "--fail-on", "warning")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:3] == ["Resolved settings for: site/admin.html", f"Settings path: {(repo / 'axag.toml').as_posix()}",
                         ""]
    assert 'level = "full"' in lines and 'fail-on = "warning"' in lines
    assert 'per-file-ignores = {"legacy/**": ["AXAG-LINT-101"]}' in lines
    assert 'severity = {"AXAG-LINT-006": "error", "AXAG-LINT-024": "off"}' in lines
    assert "compile-output = (none)" in lines
    rules = json.loads(next(x for x in lines if x.startswith("rules = ")).removeprefix("rules = "))
    assert {"AXAG-LINT-004", "AXAG-LINT-006"} <= set(rules) and "AXAG-LINT-007" not in rules
    # same input, byte-identical output
    assert axag(repo, "lint", "--show-settings", "site", "--select", "AXAG-LINT-004,AXAG-LINT-006",
                "--fail-on", "warning")[1] == out


def test_compile_show_settings_gives_what_the_run_resolved(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "axag.toml").write_text('[compile]\npaths = ["site"]\noutput = "out/tools.json"\n')
    code, out, _ = axag(repo, "compile", "--show-settings", "--target", "openai", "--strict")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Resolved settings for: site/admin.html"
    for line in (f'compile-paths = ["{(repo / "site").as_posix()}"]', f'compile-output = "{repo / "out" / "tools.json"}"',
                 'compile-target = "openai"', "compile-strict = true", f'compile-root = "{repo.as_posix()}"'):
        assert line in lines, line
    assert not (repo / "out").exists()


# ------------------------------------------------------------------------------ shell completion
def _console_script() -> Path:
    script = Path(sys.executable).parent / "axag"
    if not script.exists():  # pragma: no cover - `pip install -e .` writes it
        pytest.fail(f"no console script at {script}")
    return script


def test_readme_documents_click_shell_completion() -> None:
    section = CONFIGURATION_PAGE[CONFIGURATION_PAGE.index("\n## Shell completion\n"):]
    section = section.split("\n## ", 2)[1]
    commands = re.findall(r"^(?:eval \"\$\(|)(_AXAG_COMPLETE=(\w+)_source axag)", section, re.MULTILINE)
    assert {shell for _, shell in commands} == {"bash", "zsh", "fish"}
    for command, shell in commands:
        env = dict(os.environ, PATH=f"{_console_script().parent}{os.pathsep}{os.environ['PATH']}")
        res = subprocess.run(["sh", "-c", command], check=False, capture_output=True, text=True, timeout=60, env=env)
        assert res.returncode == 0, res.stderr
        assert {"bash": "_axag_completion()", "zsh": "#compdef axag", "fish": "function _axag_completion"}[shell] \
            in res.stdout


@pytest.mark.parametrize(("words", "cword", "expected"), [
    ("axag li", 1, ["plain,lint"]),
    ("axag i", 1, ["plain,init"]),
    ("axag lint --show-s", 2, ["plain,--show-settings"]),
    ("axag compile --target openai-", 3, ["plain,openai-responses"]),
])
def test_completion_through_the_console_script(words: str, cword: int, expected: list[str], tmp_path: Path) -> None:
    env = dict(os.environ, _AXAG_COMPLETE="bash_complete", COMP_WORDS=words, COMP_CWORD=str(cword),
               HOME=str(tmp_path), AXAG_CACHE_DIR=str(tmp_path / "cache"))
    res = subprocess.run([str(_console_script())], check=False, capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == expected
