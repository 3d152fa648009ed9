"""`axag init`: a commented configuration (`axag.toml`) and the pre-commit hooks (`.pre-commit-config.yaml`) for
the current repository. It never overwrites a file: an existing configuration stops it before anything is
written, and an existing pre-commit configuration is left as it is, with the hooks to add printed instead."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from axag.cli.common import fail, guard_errors

__all__ = ["PRE_COMMIT_HOOKS", "init"]

_TYPES = "html, jinja, nunjucks, handlebars, liquid, vue, svelte, astro, jsx, tsx, javascript, ts"
# the `repo: local` form (docs/ci.md) of .pre-commit-hooks.yaml (a test keeps the three equal)
PRE_COMMIT_HOOKS = f"""repos:
  - repo: local
    hooks:
      - id: axag-lint
        name: axag lint
        entry: axag lint --force-exclude
        language: system
        types_or: [{_TYPES}]
        require_serial: true
      - id: axag-compile-check
        name: axag compile --check
        entry: axag compile --check
        language: system
        pass_filenames: false
        types_or: [{_TYPES}, json]
"""


def _repository_root(cwd: Path) -> Path:
    """The closest folder holding `.git` (the repository's root), else the working directory."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def _annotated_folders(root: Path) -> list[str]:
    """The top-level folders (or ".") of the files axag would lint that hold an `axag-` attribute."""
    from axag.config.resolve import Resolver
    from axag.files.discover import discover

    folders: set[str] = set()
    for path in discover([str(root)], Resolver(root, isolated=True), cwd=root)[:20000]:
        try:
            if b"axag-" not in path.read_bytes():
                continue
        except OSError:
            continue
        rel = path.relative_to(root).parts
        folders.add(rel[0] if len(rel) > 1 else ".")
    return sorted(folders)


def configuration(folders: list[str]) -> str:
    paths = ", ".join(f'"{f}"' for f in folders)
    compile_paths = (f"paths = [{paths}]  # the folders holding annotated files (found by axag init)"
                     if folders else '# paths = ["site"]  # the folders holding annotated files (default: ".")')
    return f"""# axag configuration (written by `axag init`; every key is described in axag's docs/lint/configuration.md).
# Each file is linted with the closest configuration among its folders; `axag lint --show-settings FILE` prints
# what applies to FILE, `axag lint --show-files` the files a run reads.

# Files to read (globs) besides the defaults, and folders or files to leave out (.gitignore is honoured too).
# exclude = ["vendor", "legacy/**"]
# Read parameters from the form controls of an action (name, type, required, min/max, pattern, ...).
harvest = true

[lint]
# The rules that run: codes, names, or "ALL"; the default is every rule not marked off (`axag rule --all`).
# select = ["ALL"]
# ignore = ["entity-prefix-mismatch"]
# The highest conformance level whose rules run: basic, intermediate or full.
level = "full"
# The lowest severity that fails the run (exit 1): error or warning. "warning" fails CI on every safety finding.
fail-on = "error"
# per-file-ignores = {{ "legacy/**" = ["AXAG-LINT-101"] }}
# severity = {{ "AXAG-LINT-006" = "error" }}

[compile]
{compile_paths}
# The committed tools file the pre-commit hook `axag-compile-check` keeps fresh (without it, plain
# `axag compile` prints the tools to stdout and the hook checks tools.json only when it exists).
# output = "tools.json"
# mcp (default), openai, openai-responses, anthropic or manifest.
# target = "mcp"
# Also write guard modules (Python or TypeScript) when compiling.
# guards = "server/guards"
"""


@click.command("init")
@click.option("--no-pre-commit", is_flag=True, help="Write the configuration only.")
@guard_errors
def init(no_pre_commit: bool) -> None:
    """Write a commented axag.toml and the pre-commit hooks for the current repository (never overwriting)."""
    from axag.config.resolve import find_config

    cwd = Path.cwd()
    root = _repository_root(cwd)
    shown = os.path.relpath(root, cwd)
    where = "" if shown == "." else f"{shown}/"
    existing = find_config(root)
    if existing is not None:
        raise fail(f"{where}{existing.name} already configures axag; nothing was written (axag init never "
                   "overwrites a file)")
    from axag.files.write import create_only

    if not create_only(root / "axag.toml", configuration(_annotated_folders(root))):
        raise fail(f"{where}axag.toml exists; nothing was written (axag init never overwrites a file)")
    click.echo(f"axag: wrote {where}axag.toml", err=True)
    if no_pre_commit:
        return
    hooks = root / ".pre-commit-config.yaml"
    if hooks.exists():
        text = hooks.read_text(encoding="utf-8", errors="replace")
        if "axag-lint" in text and "axag-compile-check" in text:
            click.echo(f"axag: {where}.pre-commit-config.yaml already runs the axag hooks", err=True)
            return
        click.echo(f"axag: {where}.pre-commit-config.yaml exists and was left as it is; add these hooks to it:",
                   err=True)
        sys.stdout.write(PRE_COMMIT_HOOKS.split("\n", 1)[1])
        return
    create_only(hooks, PRE_COMMIT_HOOKS)
    click.echo(f"axag: wrote {where}.pre-commit-config.yaml (run `pre-commit install` to use it)", err=True)
