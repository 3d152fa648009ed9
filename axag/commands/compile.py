"""`axag compile` (SPEC §9, §13.9): annotated HTML -> tools.json (or another target)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from axag import __version__
from axag.commands.cache_options import cache_options, open_cache
from axag.commands.common import (
    EXIT_ERROR,
    common_options,
    default_jobs,
    exit_status,
    fail,
    guard_errors,
    missing_paths_error,
    missing_paths_report,
    unreadable_file,
    use_color,
    write_or_print,
)
from axag.compile.targets import STRICT_TARGETS
from axag.config import COMPILE_TARGETS
from axag.facts import Kind
from axag.findings import Finding, RunReport, Severity
from axag.plural import plural
from axag.report import FORMATS


@click.command("compile")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("-o", "--output", default=None, metavar="FILE",
              help="Output file (- for stdout; default: compile.output, else stdout). Missing folders are created.")
@click.option("--target", type=click.Choice(list(COMPILE_TARGETS)), default=None,
              help="Output document: MCP tools (default), OpenAI (Chat Completions or Responses) or Anthropic tools, or the AXAG manifest; --check "
                   "uses the target recorded in the existing file unless this is given.")
@click.option("--strict", is_flag=True, default=None, help="OpenAI strict mode (with --target openai or openai-responses).")
@click.option("--check", is_flag=True,
              help="Fail when the existing output is stale; write nothing (default file: tools.json at the root).")
@click.option("--keep-going", is_flag=True, help="Write the tools of actions without errors anyway (exit 1).")
@click.option("--self-check", is_flag=True, help="Also validate the output with jsonschema.")
@click.option("--guards", "guards_dir", default=None, metavar="DIR", help="Also render guard modules into DIR.")
@click.option("--guards-lang", type=click.Choice(["python", "typescript"]), default=None,
              help="Language of the guards written by --guards (default: compile.guards-lang, else python).")
@click.option("--root", default=None, type=click.Path(file_okay=False), metavar="DIR",
              help="Compile root: every input is inside it and source paths are relative to it (default: the "
                   "project root).")
@click.option("--no-harvest", is_flag=True, help="Do not harvest parameters from form controls.")
@click.option("--openapi", default=None, type=click.Path(dir_okay=False),
              help="OpenAPI 3.0/3.1 document binding axag-operation-id actions (mcp target).")
@click.option("--output-format", "output_format", multiple=True, metavar="FMT[:PATH]",
              help=f"Diagnostics format, one of {', '.join(FORMATS)}; :PATH writes it to a file. Repeatable.")
@click.option("--catalogue", default=None, metavar="FILE", help="Also write the page of what agents will see to FILE.")
@cache_options
@common_options
@guard_errors
def compile_cmd(**opts: Any) -> None:
    """Compile annotated actions into tool definitions."""
    sys.exit(run_compile(opts))


def run_compile(opts: dict[str, Any]) -> int:  # noqa: C901 - one step per keyword; to be split (issue 13)
    from axag.api import check_files
    from axag.compile import validate
    from axag.compile.merge import mcp_pieces, merge_index
    from axag.compile.serialize import dumps_pieces
    from axag.compile.targets import render
    from axag.config import Resolver
    from axag.discover import discover, missing_paths
    from axag.lint.engine import Request

    cwd = Path.cwd()
    resolver = Resolver(cwd, config=opts["config"], isolated=opts["isolated"])
    settings = resolver.run_settings()
    root = Path(os.path.abspath(opts["root"])) if opts["root"] else Path(settings.compile_root or cwd)
    output = opts["output"]
    if output is None and settings.compile_output is not None:
        output = str(settings.compile_output)
    if opts["check"] and output is None:
        default = root / "tools.json"
        if not default.is_file():
            click.echo(f"axag: nothing to check: no output file is configured and {_shown(default, cwd)} does "
                       "not exist (give -o FILE or set output in [tool.axag.compile])", err=True)
            return 0
        output = _shown(default, cwd)
    to_stdout = output is None or output == "-"
    if opts["check"] and to_stdout:
        raise fail("--check needs an output file (-o FILE or compile.output)")
    recorded = None
    if opts["check"]:
        from axag.compile.recorded import describe, recorded_target

        recorded = recorded_target(output)
    if recorded is not None and opts["target"] is None and not settings.compile_target_configured:
        target = recorded[0]  # --check compiles for the target the file was made for
        strict = recorded[1] if opts["strict"] is None else bool(opts["strict"])
    else:
        target = opts["target"] or settings.compile_target
        strict = settings.compile_strict if opts["strict"] is None else bool(opts["strict"])
    if opts["strict"] and target not in STRICT_TARGETS:
        raise fail("--strict needs --target openai or openai-responses")
    if target not in STRICT_TARGETS:
        strict = False
    if recorded is not None and recorded != (target, strict):
        click.echo(f"axag: {output} holds tools compiled with {describe(*recorded)}, but this check compiles "
                   f"with {describe(target, strict)}; check it with {describe(*recorded)}, or replace it: "
                   f"axag compile {describe(target, strict)} -o {output}", err=True)
        return 1
    if opts["paths"]:
        paths = [Path(p) for p in opts["paths"]]
    elif settings.compile_paths is not None:
        paths = list(settings.compile_paths)
    else:
        paths = [Path(".")]
    missing = missing_paths(list(opts["paths"]) or [str(p) for p in paths], cwd)  # named as the user wrote them
    if missing:
        _emit(missing_paths_report(missing), opts, to_stdout, machine_only=True)
        raise _usage_error(opts, to_stdout, missing_paths_error(missing))
    if not root.is_dir():
        raise fail(f'the compile root "{opts["root"] or root}" does not exist')
    outside = [p for p in paths if not _inside(Path(os.path.abspath(p)), root)]
    if outside:
        raise fail(_outside_message(outside[0], paths, root, cwd))
    files: Any = discover([str(p) for p in paths], resolver, cwd=cwd)
    missing_text = [f"{p}: {m}" for p, m in getattr(files, "problems", [])]
    if not files:
        _emit(RunReport(exit_code=EXIT_ERROR, tool_version=__version__), opts, to_stdout, machine_only=True)
        raise _usage_error(opts, to_stdout,
                           fail("no input files" + (f" ({'; '.join(missing_text)})" if missing_text else "")))
    harvest = False if opts["no_harvest"] else None
    openapi = None
    if opts["openapi"]:
        from axag.compile.openapi import load_operations

        openapi = load_operations(opts["openapi"])
    request = Request(mode="compile", harvest=harvest, want_contracts=True, compile_root=root, openapi=openapi,
                      openapi_name=opts["openapi"] or "")
    jobs = opts["jobs"] or default_jobs()
    from axag.commands.progress import Progress

    bar = Progress(len(files), quiet=opts["quiet"], label="compiling")
    try:
        run = check_files(list(files), resolver, request, cwd=cwd, jobs=jobs, progress=bar,
                          cache=open_cache(opts, resolver, cwd))
    finally:
        bar.close()
    site_findings, merged = merge_index(run)
    run.run_findings.extend(site_findings)
    for bad, msg in getattr(files, "problems", []):
        run.run_findings.append(unreadable_file(str(bad), msg))
    rel_inputs = sorted({Path(os.path.relpath(os.path.abspath(p), root)).as_posix() for p in paths})
    from axag.compile.targets.manifest import DynamicAction

    dynamic = sorted({d for o in run.outcomes for d in o.dynamic_actions})
    guards_dir = opts["guards_dir"] or (str(settings.compile_guards) if settings.compile_guards else None)
    # the default target is written from the tool texts made with the contracts (no document is built) unless
    # something needs the document itself
    direct = (target == "mcp" and not opts["self_check"] and not guards_dir and not opts["catalogue"]
              and not opts["openapi"])

    def render_target(contracts: list[Any]) -> Any:
        return render(target, contracts, __version__, strict=strict, paths=rel_inputs,
                      dynamic_actions=[DynamicAction(*d) for d in dynamic])

    tools = [] if direct else [m.contract() for m in merged]
    if openapi is not None:
        from axag.compile.openapi import bind_operations

        bind_operations({"tools": [c.tool for c in tools]}, openapi)  # its drift is reported by rule 149
    rendered = render_target(tools)
    if rendered.kind is not None and rendered.problems:
        by_subject = {}
        for c in tools:
            by_subject[c.name] = c
            by_subject[str(c.meta["intent"])] = c
        for subject, text in rendered.problems:
            contract = by_subject.get(subject)
            run.run_findings.append(_target_finding(rendered.kind, subject, text, contract))
    findings = run.findings()
    has_errors = any(f.severity is Severity.ERROR for f in findings)
    _report(run, findings, opts, to_stdout)
    if run.internal_error:
        return 2
    if has_errors and not opts["keep_going"]:
        if not _machine_report_on_stderr(opts, to_stdout):
            errors = sum(1 for f in findings if f.severity is Severity.ERROR)
            what = (f"{output} was not checked" if opts["check"] else "no tools were written" if to_stdout
                    else f"{output} was not written")
            click.echo(f"axag: {what}: {plural(errors, 'error')}; fix them, or use --keep-going to write the "
                       "tools of the actions without errors", err=True)
        return 1
    pieces = mcp_pieces(merged, __version__) if direct else None
    if pieces is not None:
        count = len(merged)
    else:
        if direct:  # some tool text could not be made: the document is built and checked whole
            tools = [m.contract() for m in merged]
            rendered = render_target(tools)
        doc = rendered.doc
        count = len(doc.get("tools", doc.get("actions", [])))
        problems = validate.check_structure(doc, target)
        if opts["self_check"]:
            problems += validate.self_check(doc, target)
        if problems:
            click.echo("axag: internal error: the output failed self-validation:", err=True)
            for problem in problems[:20]:
                click.echo(f"  {problem}", err=True)
            return 2
        pieces = dumps_pieces(doc)  # the text in pieces: a big document is not held twice while it is written
    status = 1 if has_errors else 0
    if opts["check"]:
        from axag.fsio import check

        assert output is not None
        ok, diff = check(output, "".join(pieces))
        if not ok:
            click.echo(diff, nl=False, err=True)
            click.echo(f"axag: {output} is stale; run axag compile to update it", err=True)
            status = 1
    elif to_stdout:
        write_or_print(None, pieces)
    else:
        assert output is not None
        write_or_print(output, pieces)
        if not opts["quiet"]:
            click.echo(f"axag: wrote {count} {'tool' if count == 1 else 'tools'} to {output}", err=True)
    if opts["catalogue"] and not opts["check"]:
        from axag.compile.targets import mcp

        page_doc = doc if target == "mcp" else mcp.render(tools, __version__)
        _write_catalogue(page_doc, opts["catalogue"], output, root)
    if guards_dir:
        from axag.compile.targets import mcp
        from axag.guards.render import write_guards

        lang = opts["guards_lang"] or settings.compile_guards_lang
        mcp_doc = doc if target == "mcp" else mcp.render(tools, __version__)
        # OpenAI strict mode sends null for every optional parameter left out: its guards read null as absent
        warnings, stale = write_guards(mcp_doc, guards_dir, lang, check=bool(opts["check"]), null_as_absent=strict)
        for w in warnings:
            click.echo(f"axag: warning: {w}", err=True)
        for rel, diff in stale:
            click.echo(diff, nl=False, err=True)
            click.echo(f"axag: guard file {rel} is stale", err=True)
            status = 1
    return status


def _write_catalogue(doc: dict[str, Any], page: str, output: str | None, root: Path) -> None:
    from axag.catalogue.render import catalogue_pieces
    from axag.commands.catalogue import source_base

    name = output if output and output != "-" else "tools.json"
    write_or_print(page, catalogue_pieces(doc, source=name, base=source_base(name, page, str(root))))


def _machine_report_on_stderr(opts: dict[str, Any], tools_to_stdout: bool) -> bool:
    """Diagnostics in a machine-readable format go to stderr (the tools go to stdout): nothing else may."""
    from axag.report import HUMAN_FORMATS

    return tools_to_stdout and any(not path and fmt not in HUMAN_FORMATS
                                   for fmt, _, path in (v.partition(":") for v in opts["output_format"]))


def _usage_error(opts: dict[str, Any], tools_to_stdout: bool, error: click.ClickException) -> Exception:
    """``error``, or a silent exit 2 when a machine-readable report on stderr already carries the problem."""
    if _machine_report_on_stderr(opts, tools_to_stdout):
        return click.exceptions.Exit(2)
    return error


def _shown(path: Path, cwd: Path) -> str:
    """``path`` as the user would type it: relative to the working directory when that is shorter."""
    rel = os.path.relpath(path, cwd)
    return rel if len(rel) < len(str(path)) else str(path)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _outside_message(first: Path, paths: list[Path], root: Path, cwd: Path) -> str:
    """Source paths in the output are relative to the compile root, so every input must be inside it: name the
    smallest root that holds them all."""
    folders = [ap if ap.is_dir() else ap.parent for ap in (Path(os.path.abspath(p)) for p in paths)]
    common = Path(os.path.commonpath([str(f) for f in folders]))
    return (f"{first} is outside the compile root {root} (source paths in the output are relative "
            f"to it); pass --root {_shown(common, cwd)} (or set root in [tool.axag.compile]) so that the root "
            "holds every input")


def _target_finding(kind: Kind, subject: str, text: str, contract: Any) -> Finding:
    from axag.rules.run import target_problem

    if contract is None:
        return target_problem(kind, subject, text, None, None)
    src = contract.sources[0]
    path, repo = contract.origin if contract.origin is not None else (src[0], src[0])
    return target_problem(kind, subject, text, (path, repo, src[1], src[2] + 1), str(contract.meta["intent"]))


def _report(run: Any, findings: list[Finding], opts: dict[str, Any], tools_to_stdout: bool) -> None:
    from axag.api import lint_report
    from axag.rules.catalogue import RULES

    report = lint_report(run, [RULES[c].info for c in sorted({f.code for f in findings})], __version__)
    report.exit_code = exit_status(findings)
    if findings or opts["output_format"]:
        _emit(report, opts, tools_to_stdout)


def _emit(report: Any, opts: dict[str, Any], tools_to_stdout: bool, *, machine_only: bool = False) -> None:
    """Diagnostics in every requested format (``full`` when none is); ``machine_only`` (nothing to report, or a
    usage error) writes only the machine-readable formats, each a complete document."""
    from axag.report import FORMATS, HUMAN_FORMATS
    from axag.report import render as render_report

    formats: list[tuple[str, str | None]] = []
    for v in opts["output_format"]:
        fmt, _, path = v.partition(":")
        if fmt not in FORMATS:
            raise fail(f'unknown output format "{fmt}" (expected one of {", ".join(FORMATS)})')
        formats.append((fmt, path or None))
    if not formats and not machine_only:
        formats = [("full", None)]
    if machine_only:
        formats = [(f, p) for f, p in formats if f not in HUMAN_FORMATS]
    for fmt, path in formats:
        if path is not None:
            write_or_print(path, render_report(fmt, report, quiet=opts["quiet"]))
        else:
            stream_err = tools_to_stdout
            color = use_color(opts["color"], sys.stderr if stream_err else sys.stdout)
            click.echo(render_report(fmt, report, color=color, quiet=opts["quiet"]), nl=False, err=stream_err,
                       color=color)
