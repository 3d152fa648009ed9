"""`axag compile` (compile outputs, compile options): annotated HTML -> tools.json (or another target)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from axag import __version__
from axag.cli.cache_options import cache_options, open_cache
from axag.cli.common import (
    common_options,
    default_jobs,
    exit_status,
    fail,
    guard_errors,
    missing_paths_error,
    missing_paths_report,
    parse_formats,
    unreadable_file,
    use_color,
    write_or_print,
)
from axag.compile.targets import DEFAULT, declared, get, names
from axag.guards import LANGS
from axag.model.facts import Kind
from axag.outcome.exit_codes import EXIT_ERROR
from axag.outcome.findings import Finding, RunReport, Severity
from axag.outcome.plural import plural
from axag.report import FORMATS

if TYPE_CHECKING:  # imported when a compile runs (the command's options load without them)
    from axag.api import Run
    from axag.compile.contract import ToolContract
    from axag.compile.merge import MergedTool
    from axag.compile.targets import Rendered
    from axag.config.resolve import Resolver
    from axag.config.settings import Settings


def _strict_names() -> str:
    """``openai or openai-responses``: the targets --strict applies to."""
    return " or ".join(t.name for t in declared() if t.strict)


@click.command("compile")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("-o", "--output", default=None, metavar="FILE",
              help="Output file (- for stdout; default: compile.output, else stdout). Missing folders are created.")
@click.option("--target", type=click.Choice(list(names())), default=None,
              help="Output document: " + "; ".join(f"{t.name}: {t.summary}" for t in declared())
                   + f" (default: {DEFAULT}). --check uses the target recorded in the existing file unless this "
                   "is given.")
@click.option("--strict", is_flag=True, default=None, help=f"OpenAI strict mode (with --target {_strict_names()}).")
@click.option("--check", is_flag=True,
              help="Fail when the existing output is stale; write nothing (default file: tools.json at the root).")
@click.option("--keep-going", is_flag=True, help="Write the tools of actions without errors anyway (exit 1).")
@click.option("--self-check", is_flag=True, help="Also validate the output with jsonschema.")
@click.option("--guards", "guards_dir", default=None, metavar="DIR", help="Also render guard modules into DIR.")
@click.option("--guards-lang", type=click.Choice(list(LANGS)), default=None,
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
@click.option("--show-files", is_flag=True, help="List the files that would be compiled, one a line; write nothing.")
@click.option("--show-settings", is_flag=True,
              help="Print the settings of the run (root, output, target) and of its first file; write nothing.")
@cache_options
@common_options
@guard_errors
def compile_cmd(**opts: Any) -> None:
    """Compile annotated actions into tool definitions."""
    sys.exit(run_compile(opts))


@dataclass
class _Job:
    """What one `axag compile` asks, resolved from its options and the configuration."""

    opts: dict[str, Any]
    cwd: Path
    resolver: Resolver
    settings: Settings
    root: Path
    output: str | None  # None or "-": stdout
    target: str = DEFAULT
    strict: bool = False
    paths: list[Path] = field(default_factory=list)
    openapi: dict[str, dict[str, Any]] | None = None  # operationId -> operation of the --openapi document

    @property
    def to_stdout(self) -> bool:
        return self.output is None or self.output == "-"

    @property
    def guards_dir(self) -> str | None:
        return self.opts["guards_dir"] or (str(self.settings.compile_guards) if self.settings.compile_guards else None)

    @property
    def direct(self) -> bool:
        """The default target is written from the tool texts made with the contracts (no document is built)
        unless something needs the document itself."""
        o = self.opts
        return (self.target == DEFAULT and not o["self_check"] and not self.guards_dir and not o["catalogue"]
                and not o["openapi"])


@dataclass
class _Tools:
    """The merged tools of a run and the target document made of them (none yet when written directly)."""

    merged: list[MergedTool]
    contracts: list[ToolContract]
    rendered: Rendered
    render: Callable[[list[ToolContract]], Rendered]


def run_compile(opts: dict[str, Any]) -> int:
    """Options -> the library (check every file, merge, render the target) -> the report and the files
    written; the exit status comes from `exit_status` alone."""
    from axag.config.resolve import Resolver

    cwd = Path.cwd()
    resolver = Resolver(cwd, config=opts["config"], isolated=opts["isolated"])
    settings = resolver.run_settings()
    root = Path(os.path.abspath(opts["root"])) if opts["root"] else Path(settings.compile_root or cwd)
    output = _output_file(opts, settings, root, cwd)
    if output is _NOTHING_TO_CHECK:
        return exit_status(())
    job = _Job(opts, cwd, resolver, settings, root, output)
    if not _choose_target(job):  # --check of a file made for another target
        return exit_status((), stale=True)
    job.paths = _inputs(job)
    if opts["show_files"] or opts["show_settings"]:
        return _show(job)
    run, merged = _check(job)
    tools = _tools(job, run, merged)
    findings = run.findings()
    if not opts["check"] or opts["output_format"]:  # --check leaves the findings to `axag lint`
        _report(run, findings, opts, job.to_stdout)
    if run.internal_error:
        return exit_status(findings, internal_error=True)
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    if errors and not opts["keep_going"] and not opts["check"]:
        _refuse(job, findings)
        return exit_status(findings)
    written = _document(job, tools)
    if written is None:  # the output failed self-validation
        return exit_status(findings, internal_error=True)
    doc, pieces, count = written
    stale = _write_output(job, pieces, count, errors)
    if opts["catalogue"] and not opts["check"]:
        _write_catalogue(_mcp_document(job, doc, tools), opts["catalogue"], job.output, root)
    if job.guards_dir:
        stale = _write_guards(job, _mcp_document(job, doc, tools)) or stale
    return exit_status(findings, stale=stale or bool(opts["check"] and errors))


_NOTHING_TO_CHECK = "\0nothing to check"


def _output_file(opts: dict[str, Any], settings: Settings, root: Path, cwd: Path) -> str | None:
    """The output file (None: stdout), or `_NOTHING_TO_CHECK` for --check without a file to check."""
    output: str | None = opts["output"]
    if output is None and settings.compile_output is not None:
        output = str(settings.compile_output)
    if opts["check"] and output is None:
        default = root / "tools.json"
        if not default.is_file():
            click.echo(f"axag: nothing to check: no output file is configured and {_shown(default, cwd)} does "
                       "not exist (give -o FILE or set output in [tool.axag.compile])", err=True)
            return _NOTHING_TO_CHECK
        output = _shown(default, cwd)
    if opts["check"] and (output is None or output == "-"):
        raise fail("--check needs an output file (-o FILE or compile.output)")
    return output


def _choose_target(job: _Job) -> bool:
    """Set the target and strict mode of ``job``; False when --check finds the existing file made for another
    (said on stderr)."""
    opts, settings, output = job.opts, job.settings, job.output
    recorded = None
    if opts["check"]:
        from axag.compile.recorded import recorded_target

        assert output is not None
        recorded = recorded_target(output)
    if recorded is not None and opts["target"] is None and not settings.compile_target_configured:
        target = recorded[0]  # --check compiles for the target the file was made for
        strict = recorded[1] if opts["strict"] is None else bool(opts["strict"])
    else:
        target = opts["target"] or settings.compile_target
        strict = settings.compile_strict if opts["strict"] is None else bool(opts["strict"])
    if opts["strict"] and not get(target).strict:
        raise fail(f"--strict needs --target {_strict_names()}")
    job.target, job.strict = target, strict and get(target).strict
    if recorded is not None and recorded != (job.target, job.strict):
        from axag.compile.recorded import describe

        click.echo(f"axag: {output} holds tools compiled with {describe(*recorded)}, but this check compiles "
                   f"with {describe(job.target, job.strict)}; check it with {describe(*recorded)}, or replace it: "
                   f"axag compile {describe(job.target, job.strict)} -o {output}", err=True)
        return False
    return True


def _inputs(job: _Job) -> list[Path]:
    """The input paths (arguments, else compile.paths, else the working directory); each must exist and lie in
    the compile root (a usage error otherwise)."""
    from axag.files.discover import missing_paths

    opts, root, cwd = job.opts, job.root, job.cwd
    if opts["paths"]:
        paths = [Path(p) for p in opts["paths"]]
    elif job.settings.compile_paths is not None:
        paths = list(job.settings.compile_paths)
    else:
        paths = [Path(".")]
    missing = missing_paths(list(opts["paths"]) or [str(p) for p in paths], cwd)  # named as the user wrote them
    if missing:
        _emit(missing_paths_report(missing), opts, job.to_stdout, machine_only=True)
        raise _usage_error(opts, job.to_stdout, missing_paths_error(missing))
    if not root.is_dir():
        raise fail(f'the compile root "{opts["root"] or root}" does not exist')
    outside = [p for p in paths if not _inside(Path(os.path.abspath(p)), root)]
    if outside:
        raise fail(_outside_message(outside[0], paths, root, cwd))
    return paths


def _show(job: _Job) -> int:
    """--show-files: the files this compile would read; --show-settings: the settings of the first of them,
    with what the run resolved (root, inputs, output, target). Nothing is compiled or written."""
    from axag.cli.show import show_files, show_settings
    from axag.files.discover import discover
    from axag.lint.engine import display_path

    files = discover([str(p) for p in job.paths], job.resolver, cwd=job.cwd)
    for p, msg in files.problems:
        click.echo(f"axag: {p}: {msg}", err=True)
    if job.opts["show_files"]:
        show_files(files, job.cwd)
    if job.opts["show_settings"]:
        first = files[0] if files else Path(os.path.abspath(job.paths[0]))
        harvest = {"harvest": False} if job.opts["no_harvest"] else {}
        settings = job.resolver.resolve(first).with_overrides(**harvest)
        show_settings(display_path(first, job.cwd), settings, {
            "compile_paths": tuple(Path(os.path.abspath(p)) for p in job.paths), "compile_output": job.output or "-",
            "compile_target": job.target, "compile_strict": job.strict, "compile_root": job.root,
            "compile_guards": job.guards_dir, "compile_guards_lang": job.opts["guards_lang"] or
            job.settings.compile_guards_lang})
    return exit_status(())


def _check(job: _Job) -> tuple[Run, list[MergedTool]]:
    """Check every input file as compile does (every C rule) and add the run-wide findings: the merge's
    121/122 and the unreadable files."""
    from axag.api import check_files
    from axag.cli.progress import Progress
    from axag.compile.merge import merge_index
    from axag.files.discover import discover
    from axag.lint.engine import Request

    opts = job.opts
    files = discover([str(p) for p in job.paths], job.resolver, cwd=job.cwd)
    if not files:
        missing_text = [f"{p}: {m}" for p, m in files.problems]
        _emit(RunReport(exit_code=EXIT_ERROR, tool_version=__version__), opts, job.to_stdout, machine_only=True)
        raise _usage_error(opts, job.to_stdout,
                           fail("no input files" + (f" ({'; '.join(missing_text)})" if missing_text else "")))
    if opts["openapi"]:
        from axag.compile.openapi import load_operations

        job.openapi = load_operations(opts["openapi"])
    request = Request(mode="compile", harvest=False if opts["no_harvest"] else None, want_contracts=True,
                      compile_root=job.root, openapi=job.openapi, openapi_name=opts["openapi"] or "")
    bar = Progress(len(files), quiet=opts["quiet"], label="compiling")
    try:
        run = check_files(list(files), job.resolver, request, cwd=job.cwd, jobs=opts["jobs"] or default_jobs(),
                          progress=bar, cache=open_cache(opts, job.resolver, job.cwd))
    finally:
        bar.close()
    site_findings, merged = merge_index(run)
    run.run_findings.extend(site_findings)
    for bad, msg in files.problems:
        run.run_findings.append(unreadable_file(str(bad), msg))
    return run, merged


def _tools(job: _Job, run: Run, merged: list[MergedTool]) -> _Tools:
    """The merged tools and their target document (bound to the --openapi operations); the target's own
    problems (145, 146) join the run's findings."""
    from axag.compile.targets import render
    from axag.compile.targets.manifest import DynamicAction

    rel_inputs = sorted({Path(os.path.relpath(os.path.abspath(p), job.root)).as_posix() for p in job.paths})
    dynamic = sorted({d for o in run.outcomes for d in o.dynamic_actions})

    def render_target(contracts: list[ToolContract]) -> Rendered:
        return render(job.target, contracts, __version__, strict=job.strict, paths=rel_inputs,
                      dynamic_actions=[DynamicAction(*d) for d in dynamic])

    contracts = [] if job.direct else [m.contract() for m in merged]
    if job.openapi is not None:
        from axag.compile.openapi import bind_operations

        bind_operations({"tools": [c.tool for c in contracts]}, job.openapi)  # its drift is reported by rule 149
    rendered = render_target(contracts)
    if rendered.kind is not None and rendered.problems:
        by_subject = {}
        for c in contracts:
            by_subject[c.name] = c
            by_subject[str(c.meta["intent"])] = c
        for subject, text in rendered.problems:
            run.run_findings.append(_target_finding(rendered.kind, subject, text, by_subject.get(subject)))
    return _Tools(merged, contracts, rendered, render_target)


def _refuse(job: _Job, findings: list[Finding]) -> None:
    """Say why nothing is written (the errors), unless a machine-readable report on stderr must stand alone."""
    if _machine_report_on_stderr(job.opts, job.to_stdout):
        return
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    what = (f"{job.output} was not checked" if job.opts["check"] else "no tools were written" if job.to_stdout
            else f"{job.output} was not written")
    click.echo(f"axag: {what}: {plural(errors, 'error')}; fix them, or use --keep-going to write the "
               "tools of the actions without errors", err=True)


def _document(job: _Job, tools: _Tools) -> tuple[dict[str, Any] | None, Iterable[str], int] | None:
    """(the target document, or None when written directly from the tool texts; its text in pieces; the number
    of tools), or None when the document fails self-validation (said on stderr)."""
    from axag.compile import validate
    from axag.compile.merge import mcp_pieces
    from axag.compile.serialize import dumps_pieces

    pieces = mcp_pieces(tools.merged, __version__) if job.direct else None
    if pieces is not None:
        return None, pieces, len(tools.merged)
    if job.direct:  # some tool text could not be made: the document is built and checked whole
        tools.contracts = [m.contract() for m in tools.merged]
        tools.rendered = tools.render(tools.contracts)
    doc = tools.rendered.doc
    problems = validate.check_structure(doc, job.target)
    if job.opts["self_check"]:
        problems += validate.self_check(doc, job.target)
    if problems:
        click.echo("axag: internal error: the output failed self-validation:", err=True)
        for problem in problems[:20]:
            click.echo(f"  {problem}", err=True)
        return None
    # the text in pieces: a big document is not held twice while it is written
    return doc, dumps_pieces(doc), len(doc.get("tools", doc.get("actions", [])))


def _write_output(job: _Job, pieces: Iterable[str], count: int, errors: int) -> bool:
    """Write (or with --check compare) the tools; True when the checked file is stale. --check says only
    whether the file is stale, which tools changed and the command that updates it: the findings (``errors``
    of them are errors, whose actions are left out) are `axag lint`'s to list."""
    output = job.output
    if job.opts["check"]:
        from axag.cli.check_advice import changed_tools
        from axag.files.write import check

        assert output is not None
        text = "".join(pieces)
        ok, diff = check(output, text)
        fix = f"fix the {plural(errors, 'error')} `axag lint` reports, then " if errors else ""
        if not ok and not errors:  # with errors the diff would show what they leave out, not the change
            click.echo(diff, nl=False, err=True)
        if not ok:
            left_out = " with the actions that have errors left out" if errors else ""
            click.echo(f"axag: {output} is stale ({changed_tools(output, text)}{left_out}); {fix}update it with: "
                       f"{update_command(job)}", err=True)
        elif errors:
            click.echo(f"axag: {output} is up to date except for the actions that have errors: {fix}update it "
                       f"with: {update_command(job)}", err=True)
        return not ok
    if job.to_stdout:
        write_or_print(None, pieces)
        return False
    assert output is not None
    write_or_print(output, pieces)
    if not job.opts["quiet"]:
        click.echo(f"axag: wrote {count} {'tool' if count == 1 else 'tools'} to {output}", err=True)
    return False


def _mcp_document(job: _Job, doc: dict[str, Any] | None, tools: _Tools) -> dict[str, Any]:
    """The MCP document the catalogue and the guards are made from (the output itself for the mcp target)."""
    if job.target == DEFAULT and doc is not None:
        return doc
    from axag.compile.targets import mcp

    return mcp.render(tools.contracts, __version__)


def _write_guards(job: _Job, mcp_doc: dict[str, Any]) -> bool:
    """Write (or with --check compare) the guard modules; True when a guard file is stale."""
    from axag.guards.render import write_guards

    lang = job.opts["guards_lang"] or job.settings.compile_guards_lang
    assert job.guards_dir is not None
    # OpenAI strict mode sends null for every optional parameter left out: its guards read null as absent
    warnings, stale = write_guards(mcp_doc, job.guards_dir, lang, check=bool(job.opts["check"]),
                                   null_as_absent=job.strict)
    for w in warnings:
        click.echo(f"axag: warning: {w}", err=True)
    for rel, diff in stale:
        click.echo(diff, nl=False, err=True)
        click.echo(f"axag: guard file {rel} is stale; update it with: {update_command(job)}", err=True)
    return bool(stale)


def update_command(job: _Job) -> str:
    """The command that writes what this run checked: its inputs, output, target and the options that change
    the output, quoted for a POSIX shell."""
    import shlex

    opts = job.opts
    words = ["axag", "compile", *(opts["paths"] or [_shown(Path(os.path.abspath(p)), job.cwd) for p in job.paths])]
    words += ["-o", _shown(Path(os.path.abspath(str(job.output))), job.cwd)]
    if job.target != DEFAULT or opts["target"]:
        words += ["--target", job.target]
    if job.strict:
        words.append("--strict")
    for flag, key in (("--root", "root"), ("--config", "config"), ("--openapi", "openapi"),
                      ("--guards", "guards_dir"), ("--guards-lang", "guards_lang")):
        if opts.get(key):
            words += [flag, str(opts[key])]
    for flag, key in (("--isolated", "isolated"), ("--no-harvest", "no_harvest")):
        if opts.get(key):
            words.append(flag)
    return shlex.join(words)


def _write_catalogue(doc: dict[str, Any], page: str, output: str | None, root: Path) -> None:
    from axag.catalogue.render import catalogue_pieces
    from axag.cli.catalogue import source_base

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
        return click.exceptions.Exit(EXIT_ERROR)  # the usage error's status, as AxagClickError exits
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


def _target_finding(kind: Kind, subject: str, text: str, contract: ToolContract | None) -> Finding:
    from axag.rules.run_level import target_problem

    if contract is None:
        return target_problem(kind, subject, text, None, None)
    src = contract.sources[0]
    path, repo = contract.origin if contract.origin is not None else (src[0], src[0])
    return target_problem(kind, subject, text, (path, repo, src[1], src[2] + 1), str(contract.meta["intent"]))


def _report(run: Run, findings: list[Finding], opts: dict[str, Any], tools_to_stdout: bool) -> None:
    from axag.api import lint_report
    from axag.rules.catalogue import RULES

    report = lint_report(run, [RULES[c].info for c in sorted({f.code for f in findings})], __version__)
    report.exit_code = exit_status(findings)
    if findings or opts["output_format"]:
        _emit(report, opts, tools_to_stdout)


def _emit(report: RunReport, opts: dict[str, Any], tools_to_stdout: bool, *, machine_only: bool = False) -> None:
    """Diagnostics in every requested format (``full`` when none is); ``machine_only`` (nothing to report, or a
    usage error) writes only the machine-readable formats, each a complete document."""
    from axag.report import HUMAN_FORMATS
    from axag.report import render as render_report

    formats = parse_formats(tuple(opts["output_format"]), None, "full")
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
