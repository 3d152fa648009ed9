"""Options and helpers shared by the lint and compile commands (the CLI layer only). Importing this module does
not import click (the console script's click-free lint run, `cli.lint_standalone`, uses its helpers)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from axag.outcome.errors import AxagError
from axag.outcome.exit_codes import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK

if TYPE_CHECKING:
    from axag.cli.group import AxagClickError
    from axag.outcome.findings import Finding, RunReport, Severity

F = TypeVar("F", bound=Callable[..., Any])

# the log of a run that leaves a run record (`run_record.record_run`): it keeps the report files written
recording: Any = None


def common_options(fn: F) -> F:
    import click

    from axag.cli.choices import COLOR

    for opt in reversed([
        click.option("--config", "config", type=click.Path(dir_okay=False), help="Use this configuration file only."),
        click.option("--isolated", is_flag=True, help="Ignore all configuration files."),
        click.option("--color", type=click.Choice(COLOR), default="auto", show_default=True,
                     help="Colour the human output (auto: when stdout is a terminal; NO_COLOR is honoured)."),
        click.option("--quiet", "-q", is_flag=True, help="Only findings: no summary, no progress."),
        click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                     help="Worker processes (default: available CPUs)."),
    ]):
        fn = opt(fn)
    return fn


def echo(message: str, *, nl: bool = True, err: bool = False, color: bool | None = None) -> None:
    """`click.echo` of a text: click's own when click is loaded (a command of the click CLI), else the same
    steps on streams known to be UTF-8 (`cli.entry` runs only then): the text, ANSI styles removed when
    ``color`` is False or, when None, the stream is no terminal; then a flush."""
    click = sys.modules.get("click")
    if click is not None:
        click.echo(message, nl=nl, err=err, color=color)
        return
    stream = sys.stderr if err else sys.stdout
    out = message + "\n" if nl else message
    if out:
        if "\x1b" in out and (not color if color is not None else not _is_tty(stream)):
            import re

            out = re.sub(r"\033\[[0-?]*[ -/]*[@-~]", "", out)  # click's strip_ansi
        stream.write(out)
    stream.flush()


def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def use_color(flag: str, stream: Any = None) -> bool:
    if flag == "always":
        return True
    if flag == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    s = stream if stream is not None else sys.stdout
    try:
        return bool(s.isatty())
    except (AttributeError, ValueError):
        return False


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def fail(message: str) -> AxagClickError:
    from axag.cli.group import AxagClickError

    return AxagClickError(message)


def guard_errors(fn: F) -> F:
    """Turn core errors (ConfigError, InputError, UsageError) into exit code 2."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AxagError as exc:
            from axag.cli.group import AxagClickError

            raise AxagClickError(str(exc)) from exc

    return wrapper  # type: ignore[return-value]


def write_or_print(path: str | None, text: str | Iterable[str], *, err: bool = False) -> None:
    """Write ``text`` (or its pieces) atomically to ``path``, or to stdout (stderr) for None or ``-``."""
    if path is None or path == "-":
        for piece in [text] if isinstance(text, str) else text:
            echo(piece, nl=False, err=err)
        return
    from axag.files.write import write_atomic
    from axag.outcome.errors import InputError

    target = Path(path)
    try:  # every -o output creates its missing folders (as guards -o does)
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the folder of {path}: {exc.strerror or exc}") from exc
    write_atomic(target, text if recording is None else recording.keep(path, text))


def parse_formats(values: tuple[str, ...], output_file: str | None, default: str) -> list[tuple[str, str | None]]:
    """(format, file or None for stdout) of each ``--output-format FORMAT[:FILE]``; ``--output-file`` takes the
    last one without a file (or ``default``)."""
    from axag.report import FORMATS

    out: list[tuple[str, str | None]] = []
    for v in values:
        fmt, _, path = v.partition(":")
        if fmt not in FORMATS:
            raise fail(f'unknown output format "{fmt}" (expected one of {", ".join(FORMATS)})')
        out.append((fmt, path or None))
    if output_file is not None:
        for i in range(len(out) - 1, -1, -1):
            if out[i][1] is None:
                out[i] = (out[i][0], output_file)
                break
        else:
            out.append((default, output_file))
    return out


def missing_paths_error(missing: list[str]) -> AxagClickError:
    """The usage error (exit 2) for named paths that do not exist (file discovery)."""
    quoted = ", ".join(f'"{m}"' for m in missing)
    return fail(f"path {quoted} does not exist" if len(missing) == 1 else f"paths {quoted} do not exist")


def missing_paths_report(missing: list[str]) -> RunReport:
    """What machine-readable formats get when named paths do not exist: a complete document with one
    `unreadable-file` error per missing path and exit code 2 (consumers never read an empty file)."""
    from axag import __version__
    from axag.outcome.findings import RunReport
    from axag.rules import run_level
    from axag.rules.catalogue import RULES

    findings = [unreadable_file(name, f'path "{name}" does not exist', Path(name).as_posix()) for name in missing]
    return RunReport(findings=findings, rules=[RULES[run_level.UNREADABLE].info], exit_code=EXIT_ERROR,
                     tool_version=__version__)


def unreadable_file(path: str, message: str, repo_path: str | None = None) -> Finding:
    """The run-level `191 unreadable-file` finding for a named path that cannot be read (or does not exist),
    at line 1, column 1 of ``path`` (``repo_path``, the fingerprint's path, defaults to ``path``)."""
    from axag.rules import run_level

    return run_level.unreadable_file(message, path, repo_path)



def exit_status(findings: Iterable[Finding], *, fail_on: Severity | None = None, exit_zero: bool = False,
                internal_error: bool = False, stale: bool = False) -> int:
    """The one mapping from a command's outcome to the exit status: 2 after an internal error; 1 when ``stale``
    (`compile --check` found a stale or differently-made file, `lint --diff` has changes), whatever
    ``--exit-zero`` says; 0 under ``--exit-zero``; 1 when a finding reaches ``fail_on`` (default: error; info
    never fails); else 0. Usage and input errors exit 2 through `AxagClickError`."""
    from axag.outcome.findings import Severity

    if internal_error:
        return EXIT_ERROR
    if stale:
        return EXIT_FINDINGS
    if exit_zero:
        return EXIT_OK
    threshold = (fail_on or Severity.ERROR).rank
    failing = any(f.severity.rank >= threshold and f.severity is not Severity.INFO for f in findings)
    return EXIT_FINDINGS if failing else EXIT_OK
