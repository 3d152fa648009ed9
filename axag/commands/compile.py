"""`axag compile` (SPEC §9, §13.9): annotated HTML -> tools.json (or another target)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from axag import __version__
from axag.commands.cache_options import cache_options, open_cache
from axag.commands.common import common_options, default_jobs, fail, guard_errors, use_color, write_or_print
from axag.findings import Finding, Severity, fingerprint


@click.command("compile")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("-o", "--output", default=None, help="Output file (- for stdout).")
@click.option("--target", type=click.Choice(["mcp", "openai", "anthropic", "manifest"]), default=None)
@click.option("--strict", is_flag=True, default=None, help="OpenAI strict mode (with --target openai).")
@click.option("--check", is_flag=True, help="Fail when the existing output is stale; write nothing.")
@click.option("--keep-going", is_flag=True, help="Write the tools of actions without errors anyway (exit 1).")
@click.option("--self-check", is_flag=True, help="Also validate the output with jsonschema.")
@click.option("--guards", "guards_dir", default=None, help="Also render guard modules into DIR.")
@click.option("--guards-lang", type=click.Choice(["python", "typescript"]), default=None)
@click.option("--root", default=None, type=click.Path(file_okay=False), help="Compile root for source paths.")
@click.option("--no-harvest", is_flag=True, help="Do not harvest parameters from form controls.")
@click.option("--output-format", "output_format", multiple=True, help="Diagnostics format FMT[:PATH].")
@cache_options
@common_options
@guard_errors
def compile_cmd(**opts: Any) -> None:
    """Compile annotated actions into tool definitions."""
    sys.exit(run_compile(opts))


def run_compile(opts: dict[str, Any]) -> int:
    from axag.api import check_files
    from axag.compile import validate
    from axag.compile.merge import mcp_pieces, merge_index
    from axag.compile.serialize import dumps_pieces
    from axag.compile.targets import render
    from axag.config import Resolver
    from axag.discover import discover
    from axag.lint.engine import Request

    cwd = Path.cwd()
    resolver = Resolver(cwd, config=opts["config"], isolated=opts["isolated"])
    settings = resolver.run_settings()
    target = opts["target"] or settings.compile_target
    strict = settings.compile_strict if opts["strict"] is None else bool(opts["strict"])
    if opts["strict"] and target != "openai":
        raise fail("--strict needs --target openai")
    if target != "openai":
        strict = False
    output = opts["output"]
    if output is None and settings.compile_output is not None:
        output = str(settings.compile_output)
    to_stdout = output is None or output == "-"
    if opts["check"] and to_stdout:
        raise fail("--check needs an output file (-o FILE or compile.output)")
    root = Path(os.path.abspath(opts["root"])) if opts["root"] else Path(settings.compile_root or cwd)
    if opts["paths"]:
        paths = [Path(p) for p in opts["paths"]]
    elif settings.compile_paths is not None:
        paths = list(settings.compile_paths)
    else:
        paths = [Path(".")]
    for p in paths:
        ap = Path(os.path.abspath(p))
        if ap != root and root not in ap.parents:
            raise fail(f"{p} is outside the compile root {root}")
    files: Any = discover([str(p) for p in paths], resolver, cwd=cwd)
    missing = [f"{p}: {m}" for p, m in getattr(files, "problems", [])]
    if not files:
        raise fail("no input files" + (f" ({'; '.join(missing)})" if missing else ""))
    harvest = False if opts["no_harvest"] else None
    request = Request(mode="compile", harvest=harvest, want_contracts=True, compile_root=root)
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
        disp = str(bad)
        run.run_findings.append(Finding(code=191, severity=Severity.ERROR, message=msg, path=disp, repo_path=disp,
                                        line=1, column=1, end_line=1, end_column=1, name="unreadable-file",
                                        fingerprint=fingerprint(191, disp, "", None, 0)))
    rel_inputs = sorted({Path(os.path.relpath(os.path.abspath(p), root)).as_posix() for p in paths})
    from axag.compile.targets.manifest import DynamicAction

    dynamic = sorted({d for o in run.outcomes for d in o.dynamic_actions})
    guards_dir = opts["guards_dir"] or (str(settings.compile_guards) if settings.compile_guards else None)
    # the default target is written from the tool texts made with the contracts (no document is built) unless
    # something needs the document itself
    direct = target == "mcp" and not opts["self_check"] and not guards_dir

    def render_target(contracts: list[Any]) -> Any:
        return render(target, contracts, __version__, strict=strict, paths=rel_inputs,
                      dynamic_actions=[DynamicAction(*d) for d in dynamic])

    tools = [] if direct else [m.contract() for m in merged]
    rendered = render_target(tools)
    if rendered.code is not None and rendered.problems:
        by_subject = {}
        for c in tools:
            by_subject[c.name] = c
            by_subject[str(c.meta["intent"])] = c
        for subject, text in rendered.problems:
            contract = by_subject.get(subject)
            run.run_findings.append(_target_finding(rendered.code, subject, text, contract))
    findings = run.findings()
    has_errors = any(f.severity is Severity.ERROR for f in findings)
    _report(run, findings, opts, to_stdout)
    if run.internal_error:
        return 2
    if has_errors and not opts["keep_going"]:
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
    if guards_dir:
        from axag.compile.targets import mcp
        from axag.guards.render import write_guards

        lang = opts["guards_lang"] or settings.compile_guards_lang
        mcp_doc = doc if target == "mcp" else mcp.render(tools, __version__)
        warnings, stale = write_guards(mcp_doc, guards_dir, lang, check=bool(opts["check"]))
        for w in warnings:
            click.echo(f"axag: warning: {w}", err=True)
        for rel, diff in stale:
            click.echo(diff, nl=False, err=True)
            click.echo(f"axag: guard file {rel} is stale", err=True)
            status = 1
    return status


def _target_finding(code: int, subject: str, text: str, contract: Any) -> Finding:
    from axag.rules.catalogue import RULES, format_message

    meta = RULES[code]
    args: dict[str, object] = (
        {"name": subject, "reason": text} if code == 146 else {"intent": subject, "what": text}
    )
    path, repo, line, col = "", "", 1, 1
    anchor = subject
    if contract is not None:
        anchor = str(contract.meta["intent"])
        src = contract.sources[0]
        line, col = src[1], src[2] + 1
        path, repo = contract.origin if contract.origin is not None else (src[0], src[0])
    return Finding(code=code, severity=meta.info.severity, message=format_message(code, 0, **args), path=path,
                   repo_path=repo, line=line, column=col, end_line=line, end_column=col, name=meta.info.name,
                   anchor=anchor, fingerprint=fingerprint(code, repo, anchor, None, 0))


def _report(run: Any, findings: list[Finding], opts: dict[str, Any], tools_to_stdout: bool) -> None:
    from axag.api import lint_report
    from axag.report import FORMATS
    from axag.report import render as render_report
    from axag.rules.catalogue import RULES

    report = lint_report(run, [RULES[c].info for c in sorted({f.code for f in findings})], __version__)
    report.exit_code = 1 if any(f.severity is Severity.ERROR for f in findings) else 0
    formats: list[tuple[str, str | None]] = []
    for v in opts["output_format"]:
        fmt, _, path = v.partition(":")
        if fmt not in FORMATS:
            raise fail(f'unknown output format "{fmt}"')
        formats.append((fmt, path or None))
    if not formats:
        if not findings:
            return
        formats = [("full", None)]
    for fmt, path in formats:
        if path is not None:
            write_or_print(path, render_report(fmt, report, quiet=opts["quiet"]))
        else:
            stream_err = tools_to_stdout
            color = use_color(opts["color"], sys.stderr if stream_err else sys.stdout)
            click.echo(render_report(fmt, report, color=color, quiet=opts["quiet"]), nl=False, err=stream_err,
                       color=color)
