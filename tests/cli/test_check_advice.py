"""What `axag compile --check` (the pre-commit hook) says: the exact command that updates
the checked file, which tools changed, no `--keep-going` advice and none of lint's findings repeated."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from pathlib import Path

from tests.cli.test_precommit import _git, _pre_commit, readme_snippet, repo  # noqa: F401 - `repo` is a fixture
from tests.conftest import FIXTURES, run_axag

BAD = '<button axag-intent="cart.clear" axag-action-type="Delete">Clear</button>\n'


def axag(cwd: Path, *args: str) -> tuple[int, str, str]:
    res = run_axag(list(args), cwd=cwd)
    return res.exit_code, res.stdout, res.stderr


def test_stale_check_prints_the_command_that_updates_the_file(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "site", tmp_path / "site")
    assert axag(tmp_path, "compile", "--isolated", "site", "--target", "anthropic", "-o", "out/tools.json")[0] == 0
    text = (tmp_path / "out" / "tools.json").read_text()
    (tmp_path / "out" / "tools.json").write_text(text.replace('"Book', '"Reserve'))
    code, out, err = axag(tmp_path, "compile", "--isolated", "--check", "site", "-o", "out/tools.json")
    assert (code, out) == (1, "")
    assert "(compiled)" in err  # the diff, then what changed and the command
    assert err.endswith("axag: out/tools.json is stale (changed: booking_cancel, booking_create); update it with: axag compile site -o "
                   "out/tools.json --target anthropic --isolated\n")
    command = shlex.split(err.rpartition("update it with: ")[2])
    assert command[0] == "axag"
    assert axag(tmp_path, *command[1:])[0] == 0
    assert axag(tmp_path, "compile", "--isolated", "--check", "site", "-o", "out/tools.json") == (0, "", "")


def test_check_of_the_default_file_with_configured_paths(tmp_path: Path) -> None:
    """No configured output: the command names `-o tools.json` (plain `axag compile` would print to stdout)."""
    shutil.copytree(FIXTURES / "site", tmp_path / "site")
    (tmp_path / "axag.toml").write_text('[compile]\npaths = ["site"]\n')
    code, _, err = axag(tmp_path, "compile", "-o", "tools.json")
    assert code == 0, err
    (tmp_path / "site" / "extra.html").write_text(
        '<button axag-intent="cart.view" axag-action-type="read" axag-risk-level="none" '
        'axag-description="Show the cart">View</button>\n')
    code, _, err = axag(tmp_path, "compile", "--check")
    assert code == 1
    assert err.endswith("\naxag: tools.json is stale (added: cart_view); update it with: axag compile site -o "
                        "tools.json\n")
    command = shlex.split(err.rpartition("update it with: ")[2])
    assert axag(tmp_path, *command[1:])[0] == 0
    assert axag(tmp_path, "compile", "--check") == (0, "", "")


def test_check_with_errors_gives_no_findings_and_no_keep_going(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "site", tmp_path / "site")
    assert axag(tmp_path, "compile", "--isolated", "site", "-o", "tools.json")[0] == 0
    (tmp_path / "site" / "bad.html").write_text(BAD)
    code, out, err = axag(tmp_path, "compile", "--isolated", "--check", "site")
    assert (code, out) == (1, "")
    assert err == ("axag: tools.json is up to date except for the actions that have errors: fix the 1 error `axag "
                   "lint` reports, then update it with: axag compile site -o tools.json --isolated\n")
    page = tmp_path / "site" / "booking.html"
    page.write_text(page.read_text().replace("Book a room for a stay", "Reserve a room for a stay"))
    code, out, err = axag(tmp_path, "compile", "--isolated", "--check", "site")
    assert (code, out) == (1, "")
    assert re.fullmatch(r"axag: tools\.json is stale \(changed: [a-z_, ]+ with the actions that have errors left "
                        r"out\); fix the 1 error `axag lint` reports, then update it with: axag compile site -o "
                        r"tools\.json --isolated\n", err), err
    # an explicit report format still gets the findings
    code, out, err = axag(tmp_path, "compile", "--isolated", "--check", "site", "--output-format", "concise")
    assert "AXAG-LINT-004" in out


def test_both_hooks_failing_say_the_findings_once(repo: tuple[Path, dict[str, str]]) -> None:  # noqa: F811
    work, env = repo
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    (work / ".pre-commit-config.yaml").write_text(readme_snippet())
    shutil.copytree(FIXTURES / "site", work / "site")
    assert axag(work, "compile", "site", "-o", "tools.json")[0] == 0
    _git(["add", "-A"], work, env)
    assert _pre_commit(work, env).returncode == 0
    (work / "site" / "bad.html").write_text(BAD)
    page = work / "site" / "booking.html"
    page.write_text(page.read_text().replace("Book a room for a stay", "Reserve a room for a stay"))
    _git(["add", "-A"], work, env)
    res = _pre_commit(work, env)
    assert res.returncode == 1
    assert res.stdout.count("AXAG-LINT-004") == 1, res.stdout
    assert "keep-going" not in res.stdout
    assert re.search(r"axag: tools\.json is stale \(changed: [a-z_, ]+ with the actions that have errors left out\); "
                     r"fix the 1 error `axag lint` reports, then update it with: axag compile \. -o tools\.json\n",
                     res.stdout), res.stdout
