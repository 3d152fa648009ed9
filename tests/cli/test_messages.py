"""What new users and integrators tripped over: mistyped paths, unknown rule codes, failed and
checked compiles, compile roots and output folders, through the CLI as they met them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, run_axag

CLEAN = ('<button axag-intent="cart.view" axag-action-type="read" axag-risk-level="none" '
         'axag-description="Show the cart">View</button>\n')
BAD = '<button axag-intent="cart.clear" axag-action-type="Delete">Clear</button>\n'


def axag(cwd: Path, *args: str) -> tuple[int, str, str]:
    res = run_axag(list(args), cwd=cwd)
    return res.exit_code, res.stdout, res.stderr


# ------------------------------------------------------------------------------ 1: a named path that does not exist
@pytest.mark.parametrize("command", [["lint"], ["lint", "--fix"], ["compile"], ["compile", "-o", "tools.json"]])
def test_missing_path_is_a_usage_error(tmp_path: Path, command: list[str]) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "a.html").write_text(CLEAN)
    code, out, err = axag(tmp_path, *command, "--isolated", "site", "nope/")
    assert (code, out) == (2, "")
    assert err == 'Error: path "nope/" does not exist\n'
    assert not (tmp_path / "tools.json").exists()


def test_several_missing_paths_and_an_unmatched_glob(tmp_path: Path) -> None:
    code, _, err = axag(tmp_path, "lint", "--isolated", "a.html", "pages/*.html")
    assert code == 2
    assert err == 'Error: paths "a.html", "pages/*.html" do not exist\n'


@pytest.mark.parametrize("command", [["guards", "nope.json", "-o", "g"], ["context", "nope.json"]])
def test_missing_tools_file_is_a_usage_error(tmp_path: Path, command: list[str]) -> None:
    code, out, err = axag(tmp_path, *command)
    assert (code, out) == (2, "")
    assert err == "Error: cannot read tools file nope.json: No such file or directory\n"


def test_missing_path_json_is_a_complete_document(tmp_path: Path) -> None:
    code, out, err = axag(tmp_path, "lint", "--isolated", "--output-format", "json", "nope")
    assert code == 2
    assert err == 'Error: path "nope" does not exist\n'
    doc = json.loads(out)
    assert [(f["code"], f["path"], f["message"]) for f in doc["findings"]] == [
        ("AXAG-LINT-191", "nope", 'path "nope" does not exist')]
    assert doc["summary"]["errors"] == 1


@pytest.mark.parametrize("fmt", ["json", "json-lines", "sarif", "junit", "gitlab", "github"])
def test_missing_path_machine_formats_to_files(tmp_path: Path, fmt: str) -> None:
    code, out, _ = axag(tmp_path, "lint", "--isolated", "--output-format", f"{fmt}:report.out", "nope")
    assert (code, out) == (2, "")
    text = (tmp_path / "report.out").read_text()
    assert "nope" in text
    if fmt == "sarif":
        invocation = json.loads(text)["runs"][0]["invocations"][0]
        assert invocation == {"executionSuccessful": False, "exitCode": 2}
    elif fmt == "junit":
        assert text.startswith("<?xml") and text.rstrip().endswith("</testsuites>")
    elif fmt == "json-lines":
        assert json.loads(text)["code"] == "AXAG-LINT-191"
    elif fmt != "github":
        json.loads(text)


def test_compile_missing_path_with_diagnostics_on_stderr(tmp_path: Path) -> None:
    """Tools to stdout, JSON diagnostics to stderr: stderr holds exactly one JSON document."""
    code, out, err = axag(tmp_path, "compile", "--isolated", "--output-format", "json", "nope")
    assert (code, out) == (2, "")
    assert [f["code"] for f in json.loads(err)["findings"]] == ["AXAG-LINT-191"]


def test_no_files_to_lint_still_writes_machine_formats(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    code, out, err = axag(tmp_path, "lint", "--isolated", "--output-format", "json", ".")
    assert code == 0
    assert err == "axag: no files to lint\n"
    assert json.loads(out)["findings"] == []


# ------------------------------------------------------------------------------ 4: unknown codes in --select/--ignore
@pytest.mark.parametrize(("option", "value", "message"), [
    ("--select", "XYZ", 'unknown rule "XYZ" in "--select"'),
    ("--ignore", "006,high-risk-without-confirmaton",
     'unknown rule "high-risk-without-confirmaton" in "--ignore"; did you mean "high-risk-without-confirmation"?'),
    ("--extend-select", "AXAG-LINT-999", 'unknown rule "AXAG-LINT-999" in "--extend-select"'),
])
def test_unknown_rule_codes_are_one_usage_error(tmp_path: Path, option: str, value: str, message: str) -> None:
    for name in ("a.html", "b.html", "c.html"):
        (tmp_path / name).write_text(BAD)
    code, out, err = axag(tmp_path, "lint", "--isolated", option, value, ".")
    assert (code, out) == (2, "")
    assert err == f"Error: {message}\n"


# ------------------------------------------------------------------------------ 7: a failed compile says so
def test_failed_compile_says_nothing_was_written(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(BAD)
    (tmp_path / "tools.json").write_text("old\n")
    code, _, err = axag(tmp_path, "compile", "--isolated", "a.html", "-o", "tools.json")
    assert code == 1
    assert err.endswith("axag: tools.json was not written: 1 error; fix them, or use --keep-going to write the "
                        "tools of the actions without errors\n")
    assert (tmp_path / "tools.json").read_text() == "old\n"
    code, out, err = axag(tmp_path, "compile", "--isolated", "a.html")
    assert (code, out) == (1, "")
    assert "axag: no tools were written: 1 error; fix them, or use --keep-going" in err


# ------------------------------------------------------------------------------ 8: inputs outside the compile root
def test_outside_the_compile_root_names_root(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "a.html").write_text(CLEAN)
    (tmp_path / "app").mkdir()
    code, _, err = axag(tmp_path / "app", "compile", "--isolated", "../site", "-o", "tools.json")
    assert code == 2
    assert err == (f"Error: ../site is outside the compile root {tmp_path / 'app'} (source paths in the output are "
                   "relative to it); pass --root ../site (or set root in [tool.axag.compile]) so that the root "
                   "holds every input\n")
    code, _, err = axag(tmp_path / "app", "compile", "--isolated", "../site", "-o", "tools.json", "--root", "../site")
    assert code == 0, err


# ------------------------------------------------------------------------------ 9: -o creates missing folders
def test_outputs_create_missing_folders(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(CLEAN)
    code, _, err = axag(tmp_path, "compile", "--isolated", "a.html", "-o", "out/new/tools.json")
    assert code == 0, err
    assert json.loads((tmp_path / "out" / "new" / "tools.json").read_text())["tools"][0]["name"] == "cart_view"
    code, _, err = axag(tmp_path, "lint", "--isolated", "--ignore", "unbound-action", "a.html",
                        "--output-format", "json:reports/lint/a.json",
                        "--output-file", "reports/x/full.txt")
    assert code == 0, err
    assert json.loads((tmp_path / "reports" / "lint" / "a.json").read_text())["findings"] == []
    assert (tmp_path / "reports" / "x" / "full.txt").read_text() == "All checks passed.\n"
    (tmp_path / "file").write_text("")
    code, _, err = axag(tmp_path, "compile", "--isolated", "a.html", "-o", "file/tools.json")
    assert code == 2
    assert err.startswith("Error: cannot create the folder of file/tools.json: ")


# ------------------------------------------------------------------------------ 3, 10: --check
def _site(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURES / "site", tmp_path / "site")
    return tmp_path


def test_check_without_configured_output_uses_tools_json_at_the_root(tmp_path: Path) -> None:
    work = _site(tmp_path)
    code, _, err = axag(work, "compile", "--isolated", "--check", "site")
    assert code == 0
    assert err == ("axag: nothing to check: no output file is configured and tools.json does not exist (give -o "
                   "FILE or set output in [tool.axag.compile])\n")
    assert axag(work, "compile", "--isolated", "site", "-o", "tools.json")[0] == 0
    assert axag(work, "compile", "--isolated", "--check", "site") == (0, "", "")
    text = (work / "tools.json").read_text()
    (work / "tools.json").write_text(text.replace('"Book', '"Reserve'))
    code, _, err = axag(work, "compile", "--isolated", "--check", "site")
    assert code == 1
    assert "axag: tools.json is stale" in err


@pytest.mark.parametrize("target", ["openai", "openai-responses"])
def test_check_uses_the_target_recorded_in_the_file(tmp_path: Path, target: str) -> None:
    work = _site(tmp_path)
    assert axag(work, "compile", "--isolated", "site", "--target", target, "--strict", "-o", "tools.json")[0] == 0
    assert axag(work, "compile", "--isolated", "site", "--check", "-o", "tools.json") == (0, "", "")
    code, _, err = axag(work, "compile", "--isolated", "site", "--check", "-o", "tools.json", "--target", "mcp")
    assert code == 1
    assert err == (f"axag: tools.json holds tools compiled with --target {target} --strict, but this check "
                   f"compiles with --target mcp; check it with --target {target} --strict, or replace it: axag "
                   "compile --target mcp -o tools.json\n")


def test_check_with_a_configured_target_that_differs(tmp_path: Path) -> None:
    work = _site(tmp_path)
    (work / "axag.toml").write_text('[compile]\npaths = ["site"]\noutput = "tools.json"\ntarget = "anthropic"\n')
    assert axag(work, "compile", "--target", "mcp")[0] == 0
    code, _, err = axag(work, "compile", "--check")
    assert code == 1
    assert err.startswith(f"axag: {work / 'tools.json'} holds tools compiled with --target mcp, but this check "
                          "compiles with --target anthropic;")


# ------------------------------------------------------------------------------ 13: plurals
def test_plural_helper() -> None:
    from axag.outcome.plural import plural

    assert [plural(n, "error") for n in (0, 1, 2)] == ["0 errors", "1 error", "2 errors"]
    assert plural(1, "entry", "entries") == "1 entry"
    assert plural(3, "entry", "entries") == "3 entries"


def test_summary_and_fix_counts_in_the_singular(tmp_path: Path) -> None:
    (tmp_path / "b.html").write_text(BAD)
    code, out, _ = axag(tmp_path, "lint", "--isolated", "--output-format", "concise", "--select", "004", "b.html")
    assert (code, out.splitlines()[-1]) == (1, "Found 1 error, 0 warnings, 0 infos (1 fixable with --fix).")
    code, out, _ = axag(tmp_path, "lint", "--isolated", "--output-format", "concise", "--select", "004", "--fix",
                        "b.html")
    assert (code, out) == (0, "Fixed 1 finding.\nAll checks passed.\n")


def test_migration_count_in_the_singular(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text('<button axag-intent="a.b" axag-action-type="read" '
                                     'axag-constraints=\'{"q": {"maxLength": 5}}\'>x</button>\n')
    _, out, _ = axag(tmp_path, "lint", "--isolated", "--output-format", "concise", "--select", "101", "a.html")
    assert "0 of 1 entry can be migrated with --fix" in out


# ------------------------------------------------------------------------------ 11: help texts
def test_every_option_has_help_text() -> None:
    import click

    from axag.cli.group import COMMANDS, main

    ctx = click.Context(main)
    missing = []
    for name in COMMANDS:
        command = main.get_command(ctx, name)
        assert command is not None and command.help, name
        missing += [f"{name} {p.opts[0]}" for p in command.params if isinstance(p, click.Option) and not p.help]
    assert missing == []


@pytest.mark.parametrize("command", ["lint", "compile"])
def test_output_format_help_lists_the_formats(command: str) -> None:
    out = " ".join(run_axag([command, "--help"]).stdout.split())
    assert ("--output-format FMT[:PATH] " + ("Report" if command == "lint" else "Diagnostics") + " format, one of "
            "full, concise, json, json-lines, github, gitlab, sarif, junit, html; :PATH writes it to a file. Repeatable."
            ) in out


# ------------------------------------------------------------------------------ 6: config keys in the wrong table
@pytest.mark.parametrize(("name", "text", "message"), [
    ("pyproject.toml", '[tool.axag]\nselct = ["ALL"]\n', 'unknown key "selct"; did you mean `[tool.axag.lint] select`?'),
    ("pyproject.toml", "[tool.axag.lint]\nharvest = false\n",
     'unknown key "lint.harvest"; did you mean `[tool.axag] harvest`?'),
    ("pyproject.toml", '[tool.axag.compile]\nselect = ["ALL"]\n',
     'unknown key "compile.select"; did you mean `[tool.axag.lint] select`?'),
    ("axag.toml", 'outptu = "tools.json"\n', 'unknown key "outptu"; did you mean `[compile] output`?'),
    ("axag.toml", "[lint]\nexclude = []\n", 'unknown key "lint.exclude"; did you mean `exclude` (at the top level)?'),
])
def test_unknown_config_key_suggests_across_tables(tmp_path: Path, name: str, text: str, message: str) -> None:
    (tmp_path / name).write_text(text)
    (tmp_path / "a.html").write_text(CLEAN)
    code, _, err = axag(tmp_path, "lint", "a.html")
    assert code == 2
    assert err == f"Error: {tmp_path / name}: {message}\n"


# ------------------------------------------------------------------------------ 27: the README for a clone
def test_readme_does_not_send_a_clone_to_the_development_checkout() -> None:
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for paragraph in text.split("\n\n"):
        if "../shared" in paragraph:
            assert "development checkout" in paragraph and "not part of this repository" in paragraph, paragraph
            assert "python3 ../shared" not in paragraph  # no command that a clone cannot run
    tests_paragraph = text[:text.index("python -m pytest")].rsplit("\n\n", 2)[-2]
    assert "Node.js with npm" in tests_paragraph


# ------------------------------------------------------------------------------ 14: descriptions read as sentences
def test_as_sentence() -> None:
    from axag.compile.sentence import as_sentence

    assert [as_sentence(t) for t in ("Book a room", "Book a room.", "Really?", 'Say "hi."', "(see the FAQ.)",
                                     "Pick one:", "Note  ", "")] == [
        "Book a room.", "Book a room.", "Really?", 'Say "hi."', "(see the FAQ.)", "Pick one.", "Note.", ""]


def test_composed_descriptions_are_punctuated(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(
        '<form axag-intent="booking.create" axag-action-type="write" axag-risk-level="medium" '
        'axag-description="Book a room for a stay" axag-required-parameters=\'["note"]\'>\n'
        '  <textarea name="note" maxlength="500" axag-parameter-description="Note to the hotel"></textarea>\n'
        '  <button type="submit">Book</button>\n</form>\n')
    code, out, err = axag(tmp_path, "compile", "--isolated", "a.html", "--target", "openai", "--strict", "-o", "-")
    assert code == 0, err
    function = json.loads(out)["tools"][0]["function"]
    assert function["description"].splitlines()[:2] == ["Book a room for a stay.", "Risk level: medium."]
    assert function["parameters"]["properties"]["note"]["description"] == (
        "Note to the hotel. Constraints: maxLength 500.")


@pytest.mark.parametrize(("args", "message"), [
    (["lint", "a.html", "--manifest", "nope.json"], "cannot read manifest nope.json: No such file or directory"),
    (["lint", "a.html", "--enforced-intents", "nope.json"],
     "cannot read enforced intents nope.json: No such file or directory"),
    (["lint", "a.html", "--baseline", "nope.json"],
     "baseline file nope.json does not exist (create it with --update-baseline)"),
    (["compile", "a.html", "--root", "nope", "-o", "t.json"], 'the compile root "nope" does not exist'),
])
def test_other_named_files_that_do_not_exist(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "a.html").write_text(CLEAN)
    code, out, err = axag(tmp_path, *args, "--isolated")
    assert (code, out, err) == (2, "", f"Error: {message}\n")
