"""The pre-commit hook manifest (pre-commit): its exact text, its file types, its entries on fixtures, and a real
`pre-commit run` in a temporary git repository using hooks that mirror the manifest."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from axag.cli.group import main

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"

BAD = '<button axag-intent="cart.clear" axag-action-type="Delete">Clear</button>\n'
CLEAN = ('<button axag-intent="cart.view" axag-action-type="read" axag-risk-level="none" '
         'axag-description="Show the cart">View</button>\n')


def hooks() -> list[dict[str, Any]]:
    yaml = pytest.importorskip("yaml")
    data = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


def hook(hook_id: str) -> dict[str, Any]:
    return next(h for h in hooks() if h["id"] == hook_id)


def test_manifest_is_the_one_of_the_spec() -> None:
    from tests.conftest import shared_or_skip

    m = re.search(r"holds `\.pre-commit-hooks\.yaml`:\n\n```yaml\n(.*?)```", shared_or_skip("SPEC.md").read_text(encoding="utf-8"),
                  re.DOTALL)
    assert m is not None
    # components (JSX, Svelte, Astro) add their file types; pre-commit predates it
    revised = m.group(1).replace("liquid, vue", "liquid, vue, svelte, astro, jsx, tsx, javascript, ts").replace(
        "in HTML and template files", "in HTML, template and component files")
    assert MANIFEST.read_text(encoding="utf-8") in (m.group(1), revised)


def test_manifest_shape() -> None:
    assert [h["id"] for h in hooks()] == ["axag-lint", "axag-compile-check"]
    lint = hook("axag-lint")
    assert lint["entry"] == "axag lint --force-exclude"
    assert lint["require_serial"] is True
    assert lint["language"] == "python"
    check = hook("axag-compile-check")
    assert check["entry"] == "axag compile --check"
    assert check["pass_filenames"] is False


def test_types_or_cover_the_default_include() -> None:
    identify = pytest.importorskip("identify.identify")
    from axag.files.globs import DEFAULT_INCLUDE

    lint_types = set(hook("axag-lint")["types_or"])
    check_types = set(hook("axag-compile-check")["types_or"])
    for glob in DEFAULT_INCLUDE:
        tags = identify.tags_from_filename("page" + glob.removeprefix("*"))
        assert tags & lint_types, glob
        assert tags & check_types, glob
    assert identify.tags_from_filename("tools.json") & check_types
    assert not identify.tags_from_filename("style.css") & lint_types


def cli(args: list[str], cwd: Path) -> tuple[int, str, str]:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        res = CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)
    return res.exit_code, res.stdout, res.stderr


def test_lint_entry_on_files(tmp_path: Path) -> None:
    """The lint entry as pre-commit runs it: the staged file names appended."""
    (tmp_path / "bad.html").write_text(BAD)
    (tmp_path / "clean.html").write_text(CLEAN)
    entry = shlex.split(hook("axag-lint")["entry"])
    assert entry[0] == "axag"
    assert cli([*entry[1:], "--isolated", "bad.html", "clean.html"], tmp_path)[0] == 1
    assert cli([*entry[1:], "--isolated", "clean.html"], tmp_path)[0] == 0


def test_lint_entry_with_every_file_excluded(tmp_path: Path) -> None:
    """--force-exclude applies `exclude` to named files; nothing left is a notice and exit 0."""
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "bad.html").write_text(BAD)
    code, _out, err = cli([*shlex.split(hook("axag-lint")["entry"])[1:], "--isolated", "node_modules/bad.html"],
                         tmp_path)
    assert code == 0
    assert "no files to lint" in err


# ---------------------------------------------------------------------------------------------- real pre-commit
def _git(args: list[str], cwd: Path, env: dict[str, str]) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _config(hook_ids: list[str]) -> str:
    """A `repo: local` configuration mirroring the manifest's hooks, run with this interpreter (`language:
    system`, so pre-commit installs nothing)."""
    lines = ["repos:", "  - repo: local", "    hooks:"]
    for h in hooks():
        if h["id"] not in hook_ids:
            continue
        entry = shlex.split(h["entry"])
        assert entry[0] == "axag"
        command = " ".join([shlex.quote(sys.executable), "-m", "axag", *entry[1:]])
        lines += [
            f"      - id: {h['id']}",
            f"        name: {h['name']}",
            f"        entry: {command}",
            "        language: system",
            f"        types_or: [{', '.join(h['types_or'])}]",
        ]
        for key in ("require_serial", "pass_filenames"):
            if key in h:
                lines.append(f"        {key}: {str(h[key]).lower()}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    if shutil.which("git") is None:
        pytest.skip("git not available")
    pytest.importorskip("pre_commit")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(HOME=str(tmp_path / "home"), PRE_COMMIT_HOME=str(tmp_path / "cache"), GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org")
    (tmp_path / "home").mkdir()
    work = tmp_path / "work"
    work.mkdir()
    _git(["init", "-q"], work, env)
    return work, env


def _pre_commit(work: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
                          check=False, cwd=work, env=env, capture_output=True, text=True, timeout=300)


def test_pre_commit_lint_hook(repo: tuple[Path, dict[str, str]]) -> None:
    work, env = repo
    (work / ".pre-commit-config.yaml").write_text(_config(["axag-lint"]))
    (work / "page.html").write_text(BAD)
    (work / "notes.txt").write_text("not html\n")
    _git(["add", "-A"], work, env)
    res = _pre_commit(work, env)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "axag lint" in res.stdout and "Failed" in res.stdout
    assert "AXAG-LINT-004" in res.stdout
    (work / "page.html").write_text(CLEAN)
    _git(["add", "-A"], work, env)
    res = _pre_commit(work, env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert re.search(r"axag lint\.+Passed", res.stdout)


def test_pre_commit_compile_check_hook(repo: tuple[Path, dict[str, str]]) -> None:
    work, env = repo
    (work / ".pre-commit-config.yaml").write_text(_config(["axag-compile-check"]))
    (work / "axag.toml").write_text('[compile]\npaths = ["site"]\noutput = "tools.json"\n')
    (work / "site").mkdir()
    (work / "site" / "page.html").write_text(CLEAN)
    code, _, err = cli(["compile"], work)
    assert code == 0, err
    _git(["add", "-A"], work, env)
    res = _pre_commit(work, env)
    assert res.returncode == 0, res.stdout + res.stderr
    (work / "site" / "page.html").write_text(CLEAN.replace("Show the cart", "Show the basket"))
    _git(["add", "-A"], work, env)
    res = _pre_commit(work, env)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "axag compile --check" in res.stdout and "Failed" in res.stdout


# ---------------------------------------------------------------------------------------------- README snippet
README = ROOT / "docs" / "ci.md"  # the recipe moved from the README to the site


def readme_snippet() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## pre-commit\n"):]
    m = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert m is not None
    return m.group(1)


def test_readme_snippet_mirrors_the_manifest() -> None:
    """The README's configuration is a `repo: local` form of every hook of the manifest, with the same entry,
    file types and options."""
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load(readme_snippet())
    [repo_cfg] = config["repos"]
    assert repo_cfg["repo"] == "local"
    manifest = {h["id"]: h for h in hooks()}
    assert [h["id"] for h in repo_cfg["hooks"]] == list(manifest)
    for h in repo_cfg["hooks"]:
        m = manifest[h["id"]]
        assert h["language"] == "system"
        for key in ("name", "entry", "types_or", "pass_filenames", "require_serial"):
            assert h.get(key) == m.get(key), (h["id"], key)


def test_readme_snippet_works_as_written(repo: tuple[Path, dict[str, str]]) -> None:
    """The snippet, copied verbatim into a fresh repository without any axag configuration: lint runs, and the
    compile check passes until a tools.json is committed, then fails when it is stale."""
    work, env = repo
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")  # the `axag` of this venv
    (work / ".pre-commit-config.yaml").write_text(readme_snippet())
    (work / "page.html").write_text(CLEAN)
    _git(["add", "-A"], work, env)
    res = _pre_commit(work, env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert re.search(r"axag lint\.+Passed", res.stdout) and re.search(r"axag compile --check\.+Passed", res.stdout)
    assert cli(["compile", "page.html", "-o", "tools.json"], work)[0] == 0
    _git(["add", "-A"], work, env)
    assert _pre_commit(work, env).returncode == 0
    (work / "page.html").write_text(CLEAN.replace("Show the cart", "Show the basket"))
    _git(["add", "-A"], work, env)
    res = _pre_commit(work, env)
    assert res.returncode == 1, res.stdout + res.stderr
    assert re.search(r"axag lint\.+Passed", res.stdout)
    assert "tools.json is stale" in res.stdout
    (work / "page.html").write_text(BAD)
    _git(["add", "-A"], work, env)
    res = _pre_commit(work, env)
    assert res.returncode == 1
    assert "AXAG-LINT-004" in res.stdout
