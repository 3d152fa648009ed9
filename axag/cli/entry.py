"""The console script's entry point: a repeated ``axag lint FILE...`` whose inputs are all
unchanged is answered from its run record (`cli.records`) without importing click, lxml, rich, jsonschema,
the model or the rules. An invocation the pre-parser understands but cannot answer (a changed file,
``--no-cache``, a folder) is run by `lint_standalone.run_standalone` without click when click would accept every value
as given, and leaves the record for next time; ``--fix``, ``--diff``, ``--update-baseline``, ``--help``, other
commands or anything unknown take the click CLI (`axag.cli.group.main`).
This module imports only the standard library's built-in modules and ``xxhash``.
"""

from __future__ import annotations

import os
import sys

from axag.batch.cache.secret import secret
from axag.cli import choices
from axag.cli.records import (
    FILE,
    RUNS,
    STDOUT,
    expect_record,
    pacify_streams,
    parse_args,
    plan_of,
    read_record,
    state_of,
)
from axag.outcome.exit_codes import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED

TYPE_CHECKING = False  # `typing` costs milliseconds at start-up
if TYPE_CHECKING:
    from typing import Any


def main() -> Any:
    """The ``axag`` console script: the fast path; else the lint run without click when every option is one
    click would take as it is; else the click CLI."""
    argv = sys.argv[1:]
    try:
        code = serve(argv)
    except KeyboardInterrupt:  # as the click CLI: one line, exit 130
        sys.stderr.write("axag: interrupted\n")
        sys.stderr.flush()
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        pacify_streams()
        return EXIT_BROKEN_PIPE
    if code is not None:
        return code
    opts = lint_options(argv)
    if opts is not None:
        from axag.cli.lint_standalone import run_standalone

        return run_standalone(opts)
    from axag.cli.group import main as cli

    return cli()


def serve(argv: list[str]) -> int | None:
    """Replay the record of this invocation and return its exit code, or None (not served: run the CLI)."""
    plan = plan_of(argv)
    if plan is None:
        return None
    key, folders = plan
    mac_key = secret()
    if mac_key is None:  # no secret to check a record with: none is read or left
        return None
    for folder in folders:
        record = read_record(os.path.join(folder, RUNS, key.hex()), key, mac_key)
        if record is None:
            continue
        inputs, ops, code = record
        if all(state_of(path) == want for path, want in inputs) and replay(ops, report_files(argv)):
            _touch(os.path.join(folder, RUNS, key.hex()))
            return int(code)
        break
    expect_record(key)  # the run leaves the record for next time
    return None


def report_files(argv: list[str]) -> frozenset[str]:
    """The report files ``argv`` names (``--output-file FILE``, ``--output-format FORMAT:FILE``), as the run
    names them: the only paths a replay may write."""
    parsed = parse_args(argv)
    values = parsed[1] if parsed is not None else {}
    named = set(values.get("--output-file", [])[-1:])
    named.update(v.partition(":")[2] for v in values.get("--output-format", []) if ":" in v)
    return frozenset(named)


# ---------------------------------------------------------------------------------------------- options
CHOICES = {"--color": choices.COLOR, "--level": choices.LEVEL, "--fail-on": choices.FAIL_ON}
PATH_OPTIONS = ("--config", "--baseline", "--manifest", "--enforced-intents", "--openapi")  # click.Path(dir_okay=False)


def lint_options(argv: list[str]) -> dict[str, Any] | None:
    """The keyword arguments click would give the lint command for ``argv``, or None when ``argv`` is not a
    served invocation, when click would refuse a value (its error message is click's to print) or when a
    stream is not UTF-8 (click re-wraps such a stream)."""
    parsed = parse_args(argv)
    if parsed is None:
        return None
    paths, values = parsed
    for stream in (sys.stdout, sys.stderr):
        if stream is None or (getattr(stream, "encoding", "") or "").lower().replace("_", "-") not in ("utf-8", "utf8"):
            return None
    last = {name: got[-1] for name, got in values.items() if got}
    for name, allowed in CHOICES.items():
        if name in last and last[name] not in allowed:
            return None
    if "--jobs" in last and "-j" in last:
        return None  # which one click keeps depends on the order: leave it to click
    jobs = last.get("--jobs", last.get("-j"))
    if jobs is not None and not (jobs.isascii() and jobs.isdigit() and int(jobs) >= 1):
        return None
    for raw in paths + [last[name] for name in PATH_OPTIONS if name in last]:
        try:
            st = os.stat(raw)
        except (OSError, ValueError):
            continue  # click.Path: a missing path is the command's to report
        if not os.access(raw, os.R_OK) or (st.st_mode & 0o170000 == 0o040000 and raw not in paths):
            return None
    flag = values.__contains__
    return {
        "paths": tuple(paths), "config": last.get("--config"), "isolated": flag("--isolated"),
        "color": last.get("--color", "auto"), "quiet": flag("-q") or flag("--quiet"),
        "jobs": None if jobs is None else int(jobs), "select": last.get("--select"),
        "ignore": last.get("--ignore"), "extend_select": last.get("--extend-select"), "level": last.get("--level"),
        "fail_on": last.get("--fail-on"), "fix": False, "diff": False, "unsafe_fixes": False, "watch": False,
        "show_settings": False, "show_files": False, "statistics": flag("--statistics"),
        "exit_zero": flag("--exit-zero"), "output_format": tuple(values.get("--output-format", [])),
        "output_file": last.get("--output-file"), "stdin_filename": None, "baseline": last.get("--baseline"),
        "update_baseline": False, "manifest": last.get("--manifest"),
        "enforced_intents": last.get("--enforced-intents"), "openapi": last.get("--openapi"),
        "force_exclude": flag("--force-exclude"), "no_respect_gitignore": flag("--no-respect-gitignore"),
        "cache_dir": last.get("--cache-dir"), "no_cache": flag("--no-cache"),
    }


# ---------------------------------------------------------------------------------------------- replay
def replay(ops: Any, allowed: frozenset[str]) -> bool:
    """Write the record's report files (False when one cannot be written, or is not one of the ``allowed``
    paths the command line names: the CLI then redoes the run and reports what it does), then its stdout and
    stderr text in order."""
    files = [op for op in ops if op[0] == FILE]
    if any(path not in allowed for _, _, path in files):
        return False
    if files:
        from pathlib import Path

        from axag.files.write import write_atomic
        from axag.outcome.errors import AxagError

        try:
            for _, text, path in files:
                Path(path).parent.mkdir(parents=True, exist_ok=True)  # as `common.write_or_print`
                write_atomic(path, text)
        except (AxagError, OSError):
            return False
    for kind, text, _ in ops:
        if kind != FILE:
            stream = sys.stdout if kind == STDOUT else sys.stderr
            stream.write(text)
            stream.flush()
    return True


def _touch(path: str) -> None:
    try:  # noqa: SIM105 - contextlib costs start-up time
        os.utime(path)  # used: kept by pruning
    except OSError:
        pass
