"""File discovery (file discovery)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

import axag.files.discover as discover_mod
from axag.config.resolve import Resolver
from axag.files.discover import Discovered, discover, file_kind


def touch(root: Path, *names: str) -> None:
    for name in names:
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("<p>x</p>\n", encoding="utf-8")


def rel(root: Path, found: list[Path]) -> list[str]:
    return [p.relative_to(root).as_posix() for p in found]


def run(root: Path, *paths: str, **kw: object) -> Discovered:
    return discover(list(paths) or ["."], Resolver(root), cwd=root, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("a.html", "html"), ("a.HTM", "html"), ("a.jinja", "jinja"), ("a.jinja2", "jinja"), ("a.j2", "jinja"),
        ("a.njk", "jinja"), ("a.hbs", "hbs"), ("a.liquid", "liquid"), ("a.vue", "vue"), ("a.tpl", "html"),
        ("README", "html"),
    ],
)
def test_file_kind(name: str, kind: str) -> None:
    assert file_kind(name) == kind


def test_walk_default_include_exclude_sorted(tmp_path: Path) -> None:
    touch(
        tmp_path, "b.html", "a.htm", "t/x.jinja", "t/y.j2", "t/z.njk", "t/w.jinja2", "h.hbs", "l.liquid", "v.vue",
        "notes.txt", "style.css", "node_modules/p/i.html", "deep/.venv/x.html", "deep/__pycache__/x.html",
        ".git/x.html",
    )
    found = run(tmp_path)
    assert rel(tmp_path, found) == [
        "a.htm", "b.html", "h.hbs", "l.liquid", "t/w.jinja2", "t/x.jinja", "t/y.j2", "t/z.njk", "v.vue",
    ]
    assert found.problems == []
    assert all(p.is_absolute() for p in found)


def test_named_files_always_processed(tmp_path: Path) -> None:
    touch(tmp_path, "page.tpl", "node_modules/a.html", "a.html")
    (tmp_path / ".gitignore").write_text("a.html\n")
    found = run(tmp_path, "page.tpl", "node_modules/a.html", "a.html", "a.html")
    assert rel(tmp_path, found) == ["a.html", "node_modules/a.html", "page.tpl"]
    assert file_kind(found[2]) == "html"


def test_force_exclude(tmp_path: Path) -> None:
    touch(tmp_path, "page.tpl", "node_modules/a.html", "a.html", "ign/b.html", "ok/c.html")
    (tmp_path / ".gitignore").write_text("a.html\nign/\n")
    found = run(tmp_path, "page.tpl", "node_modules/a.html", "a.html", "ign/b.html", "ok/c.html", "ign",
                force_exclude=True)
    assert rel(tmp_path, found) == ["ok/c.html", "page.tpl"]
    found = run(tmp_path, "a.html", "ign/b.html", force_exclude=True, respect_gitignore=False)
    assert rel(tmp_path, found) == ["a.html", "ign/b.html"]


def test_config_include_exclude_relative_to_config(tmp_path: Path) -> None:
    touch(tmp_path, "site/a.html", "site/gen/b.html", "site/p.tpl", "other/gen/c.html", "other/p.tpl")
    (tmp_path / "site" / "axag.toml").write_text('include = ["*.html", "*.tpl"]\nexclude = ["/gen"]\n')
    found = run(tmp_path)
    assert rel(tmp_path, found) == ["other/gen/c.html", "site/a.html", "site/p.tpl"]


def test_gitignore_semantics(tmp_path: Path) -> None:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    touch(
        tmp_path,
        "a.html", "keep.html", "drop.html", "sub/a.html", "sub/keep.html", "build/x.html", "sub/build/y.html",
        "sub/build.html", "docs/top.html", "x/docs/top.html", "deep/q/r/gen.html", "n/local.html",
        "n/other.html", "private.html",
    )
    (tmp_path / ".git" / "info" / "exclude").write_text("private.html\n")
    (tmp_path / ".gitignore").write_text(
        "# comment\n"
        "*.html\n"
        "!keep.html\n"  # negation
        "build/\n"  # directory only: sub/build.html stays (but is *.html)
        "!sub/build.html\n"
        "/docs/top.html\n"  # anchored
        "!/x/docs/top.html\n"
        "!/deep/**\n"
        "!/n/\n"
        "!/n/*.html\n"
        "!a.html\n"
    )
    (tmp_path / "deep" / ".gitignore").write_text("**/r/gen.html\n")
    (tmp_path / "n" / ".gitignore").write_text("local.html\n")  # deeper file wins
    found = run(tmp_path)
    assert rel(tmp_path, found) == [
        "a.html", "keep.html", "n/other.html", "sub/a.html", "sub/build.html", "sub/keep.html", "x/docs/top.html",
    ]
    assert rel(tmp_path, run(tmp_path, respect_gitignore=False)) == sorted(
        [
            "a.html", "keep.html", "drop.html", "sub/a.html", "sub/keep.html", "build/x.html", "sub/build/y.html",
            "sub/build.html", "docs/top.html", "x/docs/top.html", "deep/q/r/gen.html", "n/local.html",
            "n/other.html", "private.html",
        ]
    )


def test_gitignore_config_setting(tmp_path: Path) -> None:
    touch(tmp_path, "a.html", "b.html")
    (tmp_path / ".gitignore").write_text("a.html\n")
    (tmp_path / "axag.toml").write_text("respect-gitignore = false\n")
    assert rel(tmp_path, run(tmp_path)) == ["a.html", "b.html"]
    assert rel(tmp_path, run(tmp_path, respect_gitignore=True)) == ["b.html"]


def test_gitignore_dir_only_pattern_does_not_match_files(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    touch(tmp_path, "out/a.html", "x/out", "y/out.html")
    (tmp_path / ".gitignore").write_text("out/\n")
    (tmp_path / "axag.toml").write_text('include = ["*.html", "out"]\n')
    assert rel(tmp_path, run(tmp_path)) == ["x/out", "y/out.html"]


def test_patterns_matching_named_directory_are_not_applied(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    touch(tmp_path, "build/a.html", "build/sub/b.html", "build/tmp/c.html", "other.html", "build/skip.html")
    (tmp_path / ".gitignore").write_text("build/\ntmp/\nskip.html\n")
    assert rel(tmp_path, run(tmp_path)) == ["other.html"]
    assert rel(tmp_path, run(tmp_path, "build")) == ["build/a.html", "build/sub/b.html"]
    assert rel(tmp_path, run(tmp_path, "build/sub")) == ["build/sub/b.html"]
    # with --force-exclude the named directory itself is excluded
    assert rel(tmp_path, run(tmp_path, "build", force_exclude=True)) == []


def test_gitignore_anchoring_in_subdirectory(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    touch(tmp_path, "sub/a.html", "sub/x/a.html", "a.html")
    (tmp_path / "sub" / ".gitignore").write_text("/a.html\n")
    assert rel(tmp_path, run(tmp_path)) == ["a.html", "sub/x/a.html"]
    assert rel(tmp_path, run(tmp_path, "sub")) == ["sub/x/a.html"]


def test_named_subdirectory_sees_ancestor_gitignore(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    touch(tmp_path, "site/a.html", "site/b.html")
    (tmp_path / ".gitignore").write_text("b.html\n")
    cwd = tmp_path / "site"
    found = discover(["."], Resolver(cwd), cwd=cwd)
    assert rel(tmp_path, found) == ["site/a.html"]


def test_symlinks(tmp_path: Path) -> None:
    touch(tmp_path, "real/a.html", "outside/o.html")
    (tmp_path / "real" / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "real" / "self").symlink_to(tmp_path / "real", target_is_directory=True)
    (tmp_path / "real" / "link.html").symlink_to(tmp_path / "outside" / "o.html")
    (tmp_path / "real" / "broken.html").symlink_to(tmp_path / "nowhere.html")
    found = run(tmp_path, "real")
    assert rel(tmp_path, found) == ["real/a.html", "real/link.html"]
    # a named symlink to a directory is walked
    assert rel(tmp_path, run(tmp_path, "real/self")) == ["real/self/a.html", "real/self/link.html"]


def test_unreadable_directory_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    touch(tmp_path, "ok/a.html", "locked/b.html")
    locked = tmp_path / "locked"
    real_scandir = os.scandir

    def fake_scandir(path: str | os.PathLike[str]) -> object:
        if Path(path) == locked:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(discover_mod.os, "scandir", fake_scandir)
    found = run(tmp_path)
    assert rel(tmp_path, found) == ["ok/a.html"]
    assert found.problems == [(locked, "cannot read directory: Permission denied")]


def test_missing_named_path_is_a_problem(tmp_path: Path) -> None:
    touch(tmp_path, "a.html")
    found = run(tmp_path, "a.html", "gone.html")
    assert rel(tmp_path, found) == ["a.html"]
    assert found.problems == [(tmp_path / "gone.html", "No such file or directory")]


def test_relative_and_absolute_paths_deduplicated(tmp_path: Path) -> None:
    touch(tmp_path, "d/a.html")
    found = run(tmp_path, "d", str(tmp_path / "d" / "a.html"), "./d/../d/a.html")
    assert rel(tmp_path, found) == ["d/a.html"]


def test_git_info_exclude(tmp_path: Path) -> None:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("secret.vue\nsub/\n")
    (tmp_path / ".gitignore").write_text("!sub/\n")  # .gitignore beats info/exclude
    touch(tmp_path, "secret.vue", "a.vue", "sub/b.html", "sub/secret.vue")
    assert rel(tmp_path, run(tmp_path)) == ["a.vue", "sub/b.html"]


def test_named_glob_patterns_are_expanded(tmp_path: Path) -> None:
    (tmp_path / "site" / "deep").mkdir(parents=True)
    for rel in ("site/a.html", "site/b.html", "site/deep/c.html", "site/notes.txt"):
        (tmp_path / rel).write_text("<p>x</p>", encoding="utf-8")
    resolver = Resolver(tmp_path, isolated=True)
    got = discover(["site/*.html"], resolver, cwd=tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in got] == ["site/a.html", "site/b.html"]
    got = discover(["site/**/*.html"], resolver, cwd=tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in got] == ["site/a.html", "site/b.html", "site/deep/c.html"]
    missing = discover(["nothing/*.html"], resolver, cwd=tmp_path)
    assert list(missing) == [] and [m for _, m in missing.problems] == ["No such file or directory"]
