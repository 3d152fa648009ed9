"""The run of `axag lint` (lint options) behind its click command (`cli.lint`), importable without click:
the console script runs the invocations it fully understands with it directly (`run_standalone`), and loads
click only for the rest."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from axag import __version__
from axag.cli.cache_options import open_cache
from axag.cli.common import (
    default_jobs,
    echo,
    exit_status,
    fail,
    missing_paths_error,
    missing_paths_report,
    parse_formats,
    unreadable_file,
    use_color,
    write_or_print,
)
from axag.outcome.exit_codes import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED
from axag.outcome.findings import RunReport, Severity


def run_recorded(opts: dict[str, Any]) -> int:
    """`run_lint`, leaving a run record when the console script asked for one (`cli.entry`)."""
    from axag.cli.records import pending_record

    key = pending_record()  # the console script could not replay this run: leave its record for next time
    if key is None:
        return run_lint(opts)
    from axag.cli.run_record import record_run

    return record_run(key, opts, run_lint)


def run_standalone(opts: dict[str, Any]) -> int:
    """`run_recorded` as the click CLI would run it (same output, same exit code), without click: an error is
    shown by click's own code, which is then imported (``Error: ...``, exit 2); Ctrl-C exits 130."""
    from axag.outcome.errors import AxagError

    try:
        return run_recorded(opts)
    except AxagError as exc:
        from axag.cli.group import AxagClickError

        error = AxagClickError(str(exc))
    except KeyboardInterrupt:
        echo("axag: interrupted", err=True)
        return EXIT_INTERRUPTED
    except OSError as exc:
        import errno

        if exc.errno != errno.EPIPE:
            raise
        from axag.cli.records import pacify_streams

        pacify_streams()  # as click's main does on a closed pipe
        return EXIT_BROKEN_PIPE
    except Exception as exc:
        click = sys.modules.get("click")
        if click is None or not isinstance(exc, click.ClickException):
            raise
        error = exc
    error.show()
    return error.exit_code


def _load_manifest(path: str | None) -> tuple[dict[str, Any] | None, str]:
    if path is None:
        return None, ""
    from axag.files.read_json import read_json
    from axag.outcome.errors import InputError

    data = read_json(path, "manifest")
    if not isinstance(data, dict):
        raise InputError(f"manifest {path} is not a JSON object")
    return data, path


def _load_enforced(path: str | None) -> frozenset[str] | None:
    if path is None:
        return None
    from axag.files.read_json import read_json
    from axag.outcome.errors import InputError

    data = read_json(path, "enforced intents")
    if isinstance(data, dict):
        data = data.get("intents")
    if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
        raise InputError(f'enforced intents {path} must be a JSON array of intents or {{"intents": [...]}}')
    return frozenset(data)


def run_lint(opts: dict[str, Any]) -> int:
    from axag.api import Run, check_files, lint_report
    from axag.config.resolve import Resolver
    from axag.files.discover import discover, missing_paths
    from axag.lint.engine import Request
    from axag.rules.catalogue import RULES

    cwd = Path.cwd()
    resolver = Resolver(cwd, config=opts["config"], isolated=opts["isolated"])
    run_settings = resolver.run_settings()
    _check_cli_codes(opts)
    paths = list(opts["paths"]) or ["."]
    stdin_data: tuple[Path, bytes] | None = None
    if "-" in paths:
        paths.remove("-")
    missing = missing_paths(paths, cwd)
    if missing:
        _emit(missing_paths_report(missing), opts, run_settings.output_format, fix_stdin=False, machine_only=True)
        raise missing_paths_error(missing)
    if "-" in opts["paths"]:
        name = opts["stdin_filename"] or "stdin.html"
        stdin_data = (cwd / name, sys.stdin.buffer.read())
    manifest, manifest_name = _load_manifest(opts["manifest"] or (str(run_settings.manifest)
                                                                  if run_settings.manifest else None))
    enforced = _load_enforced(opts["enforced_intents"] or (str(run_settings.enforced_intents)
                                                           if run_settings.enforced_intents else None))
    openapi = None
    if opts["openapi"]:
        from axag.compile.openapi import load_operations

        openapi = load_operations(opts["openapi"])
    request = Request(mode="lint", cli_select=opts["select"], cli_ignore=opts["ignore"],
                      cli_extend_select=opts["extend_select"], cli_level=opts["level"], manifest=manifest,
                      manifest_name=manifest_name, enforced_intents=enforced, want_contracts=True,
                      openapi=openapi, openapi_name=opts["openapi"] or "",
                      keep_text=bool(opts["fix"] or opts["diff"]),
                      # 121/122 name files as compile does (relative to its root)
                      compile_root=Path(run_settings.compile_root or cwd))
    files: Any = discover(paths, resolver, force_exclude=opts["force_exclude"],
                     respect_gitignore=False if opts["no_respect_gitignore"] else None, cwd=cwd) if paths else []
    if opts.get("show_files") or opts.get("show_settings"):
        return _show(opts, files, paths, resolver, request, cwd)
    if not files and stdin_data is None:
        if getattr(files, "problems", None):
            for p, msg in files.problems:
                echo(f"axag: {p}: {msg}", err=True)
        echo("axag: no files to lint", err=True)
        _emit(RunReport(tool_version=__version__), opts, run_settings.output_format, fix_stdin=False,
              machine_only=True)
        return exit_status(())
    jobs = opts["jobs"] or default_jobs()
    from axag.cli.progress import Progress

    bar = Progress(len(files), quiet=opts["quiet"], label="linting")
    try:
        check: Any = opts.get("_check_files") or check_files  # `lint --watch`: only the changed files (`lint_watch`)
        run: Run = check(list(files), resolver, request, cwd=cwd, jobs=jobs, stdin=stdin_data, progress=bar,
                         cache=open_cache(opts, resolver, cwd))
    finally:
        bar.close()
    from axag.lint.sitewide import sitewide_findings

    run.run_findings.extend(sitewide_findings(run, request))
    for p, msg in getattr(files, "problems", []):
        run.run_findings.append(unreadable_file(str(p), msg))
    fixed_count = 0
    if opts["fix"] or opts["diff"]:
        from axag.lint.fix import apply_fixes

        fixed_count, diff_text, run = apply_fixes(run, resolver, request, write=bool(opts["fix"]), cwd=cwd,
                                                  stdin=stdin_data, unsafe=bool(opts.get("unsafe_fixes")))
        if opts["diff"]:
            echo(diff_text, nl=False)
            return exit_status((), internal_error=run.internal_error, stale=bool(diff_text))
    # rules that ran, for SARIF
    ran: set[int] = set()
    for o in run.outcomes:
        ran |= o.ran
    ran |= {f.code for f in run.findings()}
    report = lint_report(run, [RULES[c].info for c in sorted(ran) if c in RULES], __version__)
    report.fixed = fixed_count
    report.unsafe_fixes = bool(opts.get("unsafe_fixes"))
    baseline_path = opts["baseline"] or (str(run_settings.baseline) if run_settings.baseline else None)
    if opts["update_baseline"]:
        if baseline_path is None:
            raise fail("--update-baseline needs --baseline FILE or lint.baseline in the configuration")
        from axag.lint import baseline

        write_or_print(baseline_path, baseline.render(report.findings + report.suppressed))
        return exit_status(())
    if baseline_path is not None:
        from axag.lint import baseline

        entries = baseline.load(baseline_path)
        kept, sup, stale = baseline.apply(report.findings, entries)
        report.findings, report.suppressed, report.baseline_stale = kept, sorted(report.suppressed + sup,
                                                                               key=lambda f: f.sort_key()), stale
    fail_on = Severity(opts["fail_on"] or run_settings.fail_on.value)
    exit_code = exit_status(report.findings, fail_on=fail_on, exit_zero=opts["exit_zero"],
                            internal_error=run.internal_error)
    report.exit_code = exit_code
    _emit(report, opts, run_settings.output_format, fix_stdin=bool(opts["fix"] and stdin_data))
    if opts["fix"] and stdin_data is not None and getattr(run, "stdin_fixed", None) is not None:
        sys.stdout.flush()
        sys.stdout.buffer.write(run.stdin_fixed)  # type: ignore[attr-defined]  # bytes in the file's encoding
    return exit_code


def _show(opts: dict[str, Any], files: Any, paths: list[str], resolver: Any, request: Any, cwd: Path) -> int:
    """--show-files: the files a lint would read; --show-settings: the settings of the first of them (else of
    the first path named) with the command line's overrides and the rules that run. Nothing is linted."""
    from axag.cli.show import show_files, show_settings
    from axag.lint.engine import display_path, enabled_codes

    for p, msg in getattr(files, "problems", []):
        echo(f"axag: {p}: {msg}", err=True)
    if opts.get("show_files"):
        show_files(files, cwd)
    if opts.get("show_settings"):
        first = files[0] if files else cwd / (paths[0] if paths else ".")
        settings = resolver.resolve(first)
        if opts["fail_on"]:
            settings = settings.with_overrides(fail_on=Severity(opts["fail_on"]))
        if opts["level"]:
            from axag.outcome.findings import Level

            settings = settings.with_overrides(level=Level(opts["level"]))
        show_settings(display_path(Path(first), cwd), settings, {"rules": enabled_codes(settings, request, first)})
    return exit_status(())


def _check_cli_codes(opts: dict[str, Any]) -> None:
    """Unknown codes in --select/--ignore/--extend-select: one usage error, before any file is read."""
    from axag.outcome.errors import UsageError
    from axag.rules.codes import resolve_codes

    for option in ("select", "ignore", "extend_select"):
        if opts[option] is not None:
            resolve_codes([opts[option]], "--" + option.replace("_", "-"), error=UsageError)


def _emit(report: Any, opts: dict[str, Any], configured: str, *, fix_stdin: bool, machine_only: bool = False) -> None:
    """Write the report in every requested format; ``machine_only`` (a run that found nothing to lint or
    stopped on a usage error) writes only the machine-readable formats, each a complete document."""
    from axag.report import HUMAN_FORMATS, render_chunks

    default = configured if configured else "full"
    formats = parse_formats(tuple(opts["output_format"]), opts["output_file"], default)
    if machine_only:
        formats = [(f, p) for f, p in formats if f not in HUMAN_FORMATS]
        if not formats:
            return
    to_stdout = [f for f, p in formats if p is None]
    if len(to_stdout) > 1:
        raise fail("at most one --output-format may go to stdout")
    summary_only = bool(formats) and not to_stdout and not machine_only and not fix_stdin
    if not to_stdout and not machine_only and not formats:  # with - and --fix the default report goes to stderr
        formats.append((default if default in ("full", "concise") else "full", None))
    for fmt, path in formats:
        if path is not None:
            write_or_print(path, render_chunks(fmt, report, quiet=opts["quiet"]))
    if summary_only and not opts["quiet"]:  # every format went to a file: stdout has the summary alone
        from axag.report import emit, summary_lines

        color = use_color(opts["color"], sys.stdout)
        echo(emit([[(line, "bold")] for line in summary_lines(report)], color=color), nl=False, color=color)
    for fmt, path in formats:
        if path is None:
            err = fix_stdin
            if opts["statistics"] and fmt in ("full", "concise"):
                fmt = "statistics"
            color = use_color(opts["color"], sys.stderr if err else sys.stdout)
            for piece in render_chunks(fmt, report, color=color, quiet=opts["quiet"]):
                echo(piece, nl=False, err=err, color=color)
