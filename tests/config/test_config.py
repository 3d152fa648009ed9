"""Configuration (configuration, rule levels and selection): loading, validation, resolution, selection, severities."""

from __future__ import annotations

from pathlib import Path

import pytest

from axag.config.resolve import Resolver, project_root, run_settings
from axag.config.settings import Settings
from axag.config.toml import load_raw
from axag.files.globs import DEFAULT_EXCLUDE, DEFAULT_INCLUDE, compile_glob
from axag.lint.selection import default_selection, effective_severity, selected_codes
from axag.outcome.errors import ConfigError, UsageError
from axag.outcome.findings import Level, Severity
from axag.rules.catalogue import RULES
from axag.rules.codes import resolve_codes


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- loading and validation


def test_defaults_without_config(tmp_path: Path) -> None:
    s = Resolver(tmp_path).resolve(tmp_path / "a.html")
    assert s == Settings(base=tmp_path)
    assert s.config_path is None
    assert s.include == DEFAULT_INCLUDE
    assert s.exclude == DEFAULT_EXCLUDE
    assert s.respect_gitignore is True and s.harvest is True
    assert s.select is None and s.ignore == frozenset() and s.extend_select == frozenset()
    assert s.level is Level.FULL and s.fail_on is Severity.ERROR and s.output_format == "full"
    assert (s.manifest, s.enforced_intents, s.baseline) == (None, None, None)
    assert s.compile_paths is None and s.compile_output is None
    assert (s.compile_target, s.compile_strict, s.compile_root) == ("mcp", False, tmp_path)
    assert (s.compile_guards, s.compile_guards_lang) == (None, "python")


def test_full_axag_toml(tmp_path: Path) -> None:
    cfg = write(
        tmp_path / "axag.toml",
        """
include = ["*.html", "pages/**/*.tpl"]
exclude = ["build"]
respect-gitignore = false
harvest = false
[lint]
select = ["AXAG-LINT-001", "006", "7", "missing-description"]
ignore = [138]
extend-select = ["missing-entity"]
per-file-ignores = { "legacy/**" = ["ALL"] }
level = "intermediate"
severity = { "006" = "error", "unknown-attribute" = "off" }
fail-on = "warning"
output-format = "concise"
manifest = "axag.manifest.json"
enforced-intents = "conf/intents.json"
baseline = ".axag-baseline.json"
[compile]
paths = ["site", "templates"]
output = "dist/tools.json"
target = "openai"
strict = true
root = "site"
guards = "gen/guards"
guards-lang = "typescript"
""",
    )
    s = Settings.from_raw(load_raw(cfg))
    assert s.config_path == cfg and s.base == tmp_path
    assert s.include == ("*.html", "pages/**/*.tpl") and s.exclude == ("build",)
    assert s.respect_gitignore is False and s.harvest is False
    assert s.select == frozenset({1, 6, 7, 138}) and s.ignore == frozenset({138})
    assert s.extend_select == frozenset({2})
    assert s.per_file_ignores == (("legacy/**", frozenset(RULES)),)
    assert s.level is Level.INTERMEDIATE
    assert s.severity == ((6, Severity.ERROR), (100, None))
    assert s.fail_on is Severity.WARNING and s.output_format == "concise"
    assert s.manifest == tmp_path / "axag.manifest.json"
    assert s.enforced_intents == tmp_path / "conf" / "intents.json"
    assert s.baseline == tmp_path / ".axag-baseline.json"
    assert s.compile_paths == (tmp_path / "site", tmp_path / "templates")
    assert s.compile_output == tmp_path / "dist" / "tools.json"
    assert (s.compile_target, s.compile_strict) == ("openai", True)
    assert s.compile_root == tmp_path / "site"
    assert s.compile_guards == tmp_path / "gen" / "guards"
    assert s.compile_guards_lang == "typescript"


def test_compile_output_dash_is_stdout(tmp_path: Path) -> None:
    cfg = write(tmp_path / ".axag.toml", '[compile]\noutput = "-"\n')
    assert Settings.from_raw(load_raw(cfg)).compile_output is None


def test_pyproject_table(tmp_path: Path) -> None:
    cfg = write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n[tool.axag.lint]\nlevel = "basic"\n')
    assert Settings.from_raw(load_raw(cfg)).level is Level.BASIC


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[lint]\nselct = ["001"]\n', 'unknown key "lint.selct"; did you mean `[lint] select`?'),
        ("exclud = []\n", 'unknown key "exclud"; did you mean `exclude` (at the top level)?'),
        ('select = ["001"]\n', 'unknown key "select"; did you mean `[lint] select`?'),
        ("frobnicate = 1\n", 'unknown key "frobnicate"'),
        ('[compile]\ntargte = "mcp"\n', 'unknown key "compile.targte"; did you mean `[compile] target`?'),
        ('harvest = "yes"\n', '"harvest" must be a boolean, not a string'),
        ('include = "*.html"\n', '"include" must be an array of strings, not a string'),
        ("lint = 3\n", '"lint" must be a table, not an integer'),
        ('[lint]\nselect = "001"\n', '"lint.select" must be an array of rule codes, not a string'),
        ("[lint]\nmanifest = 1\n", '"lint.manifest" must be a string, not an integer'),
        ("[lint]\nper-file-ignores = []\n", '"lint.per-file-ignores" must be a table, not an array'),
        ('[lint]\nselect = ["missing-intnt"]\n', 'unknown rule "missing-intnt" in "lint.select"; did you mean "missing-intent"?'),
        ('[lint]\nignore = ["AXAG-LINT-999"]\n', 'unknown rule "AXAG-LINT-999" in "lint.ignore"'),
        (
            '[lint.per-file-ignores]\n"a/*" = ["nope"]\n',
            'unknown rule "nope" in "lint.per-file-ignores.a/*"',
        ),
        ('[lint.severity]\n"006" = "warn"\n', 'unknown severity "warn" in "lint.severity"; did you mean "warning"?'),
        ('[lint.severity]\n"006" = 1\n', '"lint.severity.006" must be a string, not an integer'),
        ('[lint.severity]\n"frob" = "info"\n', 'unknown rule "frob" in "lint.severity"'),
        ('[lint.severity]\n"191" = "off"\n', 'AXAG-LINT-191 cannot be disabled (in "lint.severity")'),
        (
            '[lint]\nlevel = "fulll"\n',
            'unknown value "fulll" for "lint.level" (expected basic, intermediate, full); did you mean "full"?',
        ),
        (
            '[lint]\nfail-on = "info"\n',
            'unknown value "info" for "lint.fail-on" (expected error, warning)',
        ),
        (
            '[compile]\ntarget = "openia"\n',
            (
                'unknown value "openia" for "compile.target" (expected mcp, anthropic, manifest, openai, openai-responses, webmcp); '
                'did you mean "openai"?'
            ),
        ),
    ],
)
def test_invalid_config(tmp_path: Path, text: str, message: str) -> None:
    cfg = write(tmp_path / "axag.toml", text)
    with pytest.raises(ConfigError) as info:
        load_raw(cfg)
    assert str(info.value) == f"{cfg}: {message}"


def test_the_lists_of_formats_targets_and_guard_languages_are_the_registries(tmp_path: Path) -> None:
    """The configuration accepts exactly what the registries hold (it re-declared them, and its copy
    of the output formats had missed `html`)."""
    from axag.compile.targets import TARGETS
    from axag.guards import LANGS
    from axag.guards.render import render_guards
    from axag.report import FORMATS

    for key, names in (("lint]\noutput-format", FORMATS), ("compile]\ntarget", TARGETS),
                       ("compile]\nguards-lang", LANGS)):
        for name in names:
            cfg = write(tmp_path / "axag.toml", f'[{key} = "{name}"\n')
            assert load_raw(cfg)  # accepted
    cfg = write(tmp_path / "axag.toml", '[compile]\nguards-lang = "rust"\n')
    with pytest.raises(ConfigError) as info:
        load_raw(cfg)
    assert str(info.value) == f'{cfg}: unknown value "rust" for "compile.guards-lang" (expected python, typescript)'
    cfg = write(tmp_path / "axag.toml", '[lint]\noutput-format = "pdf"\n')
    with pytest.raises(ConfigError) as info:
        load_raw(cfg)
    assert str(info.value) == (f'{cfg}: unknown value "pdf" for "lint.output-format" (expected full, concise, json, '
                               "json-lines, github, gitlab, sarif, junit, html)")
    with pytest.raises(Exception, match=r"unknown guard language 'rust' \(expected python or typescript\)"):
        render_guards({"tools": []}, "rust", None)


def test_invalid_toml_and_missing_file(tmp_path: Path) -> None:
    cfg = write(tmp_path / "axag.toml", "include = [\n")
    with pytest.raises(ConfigError, match=r"^.*axag\.toml: invalid TOML: "):
        load_raw(cfg)
    with pytest.raises(ConfigError, match=r"^cannot read .*nope\.toml: "):
        load_raw(tmp_path / "nope.toml")


def test_pyproject_without_table_is_an_error_only_when_named(tmp_path: Path) -> None:
    cfg = write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n')
    with pytest.raises(ConfigError) as info:
        load_raw(cfg)
    assert str(info.value) == f"{cfg}: no [tool.axag] table"
    assert Resolver(tmp_path).resolve(tmp_path / "a.html").config_path is None


def test_wrong_tool_axag_type(tmp_path: Path) -> None:
    cfg = write(tmp_path / "pyproject.toml", '[tool]\naxag = 1\n')
    with pytest.raises(ConfigError) as info:
        load_raw(cfg)
    assert str(info.value) == f'{cfg}: "tool.axag" must be a table, not an integer'


# ---------------------------------------------------------------- resolution


def test_closest_config_wins(tmp_path: Path) -> None:
    top = write(tmp_path / "axag.toml", '[lint]\nlevel = "basic"\n')
    sub = write(tmp_path / "a" / "b" / ".axag.toml", '[lint]\nlevel = "intermediate"\n')
    r = Resolver(tmp_path)
    assert r.resolve(tmp_path / "x.html").config_path == top
    assert r.resolve(tmp_path / "a" / "x.html").config_path == top
    assert r.resolve(tmp_path / "a" / "b" / "x.html").config_path == sub
    assert r.resolve(tmp_path / "a" / "b" / "c" / "d" / "x.html").level is Level.INTERMEDIATE
    assert r.resolve(tmp_path / "a" / "b").config_path == sub  # a directory resolves as itself
    assert r.resolve_dir(tmp_path / "a").config_path == top


def test_precedence_in_one_directory(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.axag]\n")
    assert Resolver(tmp_path).resolve("x.html").config_path == tmp_path / "pyproject.toml"
    write(tmp_path / "axag.toml", "")
    assert Resolver(tmp_path).resolve("x.html").config_path == tmp_path / "axag.toml"
    write(tmp_path / ".axag.toml", "")
    assert Resolver(tmp_path).resolve("x.html").config_path == tmp_path / ".axag.toml"


def test_files_are_not_merged(tmp_path: Path) -> None:
    write(tmp_path / "axag.toml", '[lint]\nlevel = "basic"\nignore = ["001"]\n')
    write(tmp_path / "sub" / "axag.toml", "harvest = false\n")
    s = Resolver(tmp_path).resolve(tmp_path / "sub" / "x.html")
    assert s.harvest is False and s.level is Level.FULL and s.ignore == frozenset()


def test_pyproject_without_table_is_skipped(tmp_path: Path) -> None:
    top = write(tmp_path / "axag.toml", "")
    write(tmp_path / "sub" / "pyproject.toml", '[tool.black]\nline-length = 80\n')
    assert Resolver(tmp_path).resolve(tmp_path / "sub" / "x.html").config_path == top


def test_invalid_config_found_by_resolution_raises(tmp_path: Path) -> None:
    write(tmp_path / "axag.toml", "bogus = 1\n")
    with pytest.raises(ConfigError):
        Resolver(tmp_path).resolve(tmp_path / "x.html")


def test_config_option_and_isolated(tmp_path: Path) -> None:
    write(tmp_path / "axag.toml", '[lint]\nlevel = "basic"\n')
    write(tmp_path / "sub" / "axag.toml", '[lint]\nlevel = "intermediate"\n')
    other = write(tmp_path / "conf" / "strict.toml", 'exclude = ["gen"]\n[lint]\nfail-on = "warning"\n')
    r = Resolver(tmp_path, config="conf/strict.toml")
    for p in ("x.html", "sub/x.html"):
        s = r.resolve(tmp_path / p)
        assert s.config_path == other and s.base == tmp_path / "conf" and s.level is Level.FULL
    assert r.project_root == tmp_path / "conf"
    iso = Resolver(tmp_path, isolated=True)
    assert iso.resolve(tmp_path / "sub" / "x.html") == Settings(base=tmp_path)
    assert iso.project_root == tmp_path
    with pytest.raises(ConfigError):
        Resolver(tmp_path, config="missing.toml")


def test_run_settings_and_project_root(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.axag.lint]\noutput-format = "json"\n')
    write(tmp_path / "pkg" / "axag.toml", '[lint]\noutput-format = "sarif"\n')
    (tmp_path / "docs").mkdir()
    assert run_settings(tmp_path / "docs").output_format == "json"
    assert run_settings(tmp_path / "pkg").output_format == "sarif"
    assert project_root(tmp_path / "docs") == tmp_path
    assert project_root(tmp_path / "pkg") == tmp_path / "pkg"
    assert Settings.from_raw(load_raw(tmp_path / "pkg" / "axag.toml")).compile_root == tmp_path / "pkg"


def test_resolution_is_cached_per_directory(tmp_path: Path) -> None:
    write(tmp_path / "axag.toml", '[lint]\nlevel = "basic"\n')
    r = Resolver(tmp_path)
    first = r.resolve(tmp_path / "a" / "b" / "x.html")
    (tmp_path / "axag.toml").write_text('[lint]\nlevel = "full"\n')
    assert r.resolve(tmp_path / "a" / "b" / "y.html") is first
    assert r.resolve(tmp_path / "a" / "z.html") is first


# ---------------------------------------------------------------- globs


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.html", "a.html", True),
        ("*.html", "deep/er/a.html", True),  # no "/": base name anywhere
        ("legacy", "x/legacy/a.html", True),  # a directory on the way
        ("site/*.html", "site/a.html", True),
        ("site/*.html", "site/sub/a.html", False),  # * does not cross /
        ("site/*.html", "x/site/a.html", False),  # anchored at the config directory
        ("site/**/*.html", "site/a.html", True),
        ("site/**/*.html", "site/a/b/c.html", True),
        ("**/gen/*.html", "gen/a.html", True),
        ("**/gen/*.html", "x/y/gen/a.html", True),
        ("legacy/**", "legacy/a/b.html", True),
        ("legacy/", "legacy/a.html", True),  # dir-only, matched through the directory
        ("a.html/", "a.html", False),  # dir-only never matches a file
        ("/a.html", "a.html", True),
        ("/a.html", "x/a.html", False),
        ("./a.html", "x/a.html", False),
        ("page?.html", "page1.html", True),
        ("page[0-9].html", "pageA.html", False),
        ("page[!0-9].html", "pageA.html", True),
        ("*.html", "../outside/a.html", True),
        ("site/*.html", "../site/a.html", False),
    ],
)
def test_globs(pattern: str, path: str, expected: bool) -> None:
    assert compile_glob(pattern).matches(path) is expected


def test_glob_without_ancestors_matches_the_path_only() -> None:
    assert compile_glob("legacy").matches("legacy/a.html", ancestors=False) is False
    assert compile_glob("*.html").matches("x/a.html", ancestors=False) is True


# ---------------------------------------------------------------- selection


def test_default_selection_is_everything_not_off() -> None:
    assert default_selection() == frozenset(RULES) - {2, 164}
    codes = selected_codes(Settings(base=Path("/")))
    assert codes == frozenset(RULES) - {2, 145, 146, 164}


def test_resolve_codes_forms() -> None:
    assert resolve_codes(["AXAG-LINT-006, 6", "006 high-risk-without-confirmation"], "x") == {6}
    assert resolve_codes(["axag-lint-1", "Missing-Intent"], "x") == {1}
    assert resolve_codes(["ALL"], "x") == frozenset(RULES)


def test_selection_order(tmp_path: Path) -> None:
    cfg = write(
        tmp_path / "axag.toml",
        '[lint]\nselect = ["001", "006", "100"]\nextend-select = ["002"]\nignore = ["006"]\n',
    )
    s = Settings.from_raw(load_raw(cfg))
    run_diags = {190, 191, 192, 193, 199} & frozenset(RULES)
    assert selected_codes(s) == {1, 2, 100} | run_diags
    # --extend-select adds, --ignore removes (also from extend-select)
    assert selected_codes(s, cli_extend_select="007", cli_ignore="002") == {1, 7, 100} | run_diags
    # --select replaces the configured selection (ignore/extend-select of the config included)
    assert selected_codes(s, cli_select="006,101") == {6, 101} | run_diags
    assert selected_codes(s, cli_select=["006", "101"], cli_ignore="101") == {6} | run_diags
    # ignore wins over extend-select
    assert selected_codes(s, cli_extend_select="138", cli_ignore="138") == {1, 2, 100} | run_diags


def test_select_all_and_ignore_all() -> None:
    s = Settings(base=Path("/"))
    assert selected_codes(s, cli_select="ALL") == frozenset(RULES) - {145, 146}
    # rules that cannot be disabled survive everything
    assert selected_codes(s, cli_ignore="ALL") == {191, 192, 199}
    assert selected_codes(s, cli_ignore="190,193") == frozenset(RULES) - {2, 145, 146, 164, 190, 193}


def test_cli_unknown_code_is_usage_error() -> None:
    with pytest.raises(UsageError) as info:
        selected_codes(Settings(base=Path("/")), cli_select="missing-intnt")
    assert str(info.value) == 'unknown rule "missing-intnt" in "--select"; did you mean "missing-intent"?'


def test_level_filter() -> None:
    s = Settings(base=Path("/"))
    basic = selected_codes(s, cli_level="basic")
    assert 1 in basic and 6 not in basic and 10 not in basic
    assert {190, 191, 192, 193, 199} <= basic and not {145, 146} & basic
    inter = selected_codes(s, cli_level=Level.INTERMEDIATE)
    assert 6 in inter and 138 in inter and 135 not in inter and 137 not in inter
    full = selected_codes(s)
    assert {135, 137} <= full
    lvl = Settings(base=Path("/"), level=Level.BASIC)
    assert 6 not in selected_codes(lvl) and 6 in selected_codes(lvl, cli_level="full")
    levels = {RULES[c].info.level for c in basic}
    assert levels == {None, Level.BASIC}


def test_per_file_ignores(tmp_path: Path) -> None:
    cfg = write(
        tmp_path / "axag.toml",
        '[lint.per-file-ignores]\n"legacy/**" = ["ALL"]\n"*.njk" = ["001"]\n"site/*.html" = ["006", "100"]\n'
        '"site/*.html " = ["007"]\n',
    )
    s = Settings.from_raw(load_raw(cfg))
    full = selected_codes(s)
    assert selected_codes(s, path=tmp_path / "legacy" / "a" / "b.html") == {191, 192, 199}
    assert selected_codes(s, path=tmp_path / "deep" / "x.njk") == full - {1}
    assert selected_codes(s, path=tmp_path / "site" / "a.html") == full - {6, 7, 100}
    assert selected_codes(s, path=tmp_path / "site" / "sub" / "a.html") == full
    assert selected_codes(s, path=tmp_path / "other" / "site" / "a.html") == full
    # per-file-ignores apply after --extend-select / --select
    assert 1 not in selected_codes(s, cli_select="001", path=tmp_path / "x.njk")


def test_severity_off_deselects_and_overrides() -> None:
    s = Settings(base=Path("/"), severity=((6, Severity.ERROR), (100, None), (33, Severity.WARNING)))
    assert 100 not in selected_codes(s) and 6 in selected_codes(s)
    assert effective_severity(s, 6) is Severity.ERROR
    assert effective_severity(s, 100) is None
    assert effective_severity(s, 1) is Severity.ERROR
    assert effective_severity(s, 131) is Severity.WARNING
    # the override applies to both cases of an I/W rule; without one, the case severity is used
    assert effective_severity(s, 33, Severity.INFO) is Severity.WARNING
    assert effective_severity(Settings(base=Path("/")), 33, Severity.WARNING) is Severity.WARNING
    assert effective_severity(Settings(base=Path("/")), 33) is Severity.INFO


def test_with_overrides() -> None:
    s = Settings(base=Path("/")).with_overrides(level=Level.BASIC, respect_gitignore=False)
    assert s.level is Level.BASIC and s.respect_gitignore is False
