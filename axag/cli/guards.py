"""`axag guards TOOLS_JSON -o DIR [--lang python|typescript]` (the guards command and files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from axag.cli.choices import COLOR
from axag.cli.group import AxagClickError
from axag.guards import LANGS
from axag.outcome.errors import AxagError

__all__ = ["guards", "load_tools_document"]


def load_tools_document(path: Path) -> dict[str, Any]:
    """Read and validate an MCP ``tools.json`` (the tools.json output and its tool objects): parse, structural check, ``tools.schema.json``.

    Raises ``InputError`` (exit 2) for unreadable or invalid files and files of another target.
    """
    from axag.compile.validate import check_tools_file
    from axag.files.read_json import read_json

    return check_tools_file(read_json(path, "tools file"), path)


@click.command("guards")
@click.argument("tools_json", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", "output", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory of the generated guard module.")
@click.option("--lang", type=click.Choice(list(LANGS)), default=None,
              help="Language of the generated guards (default: compile.guards-lang of the configuration, else "
                   "python).")
@click.option("--null-as-absent", is_flag=True,
              help="Read null as absent for optional parameters by default (what OpenAI strict mode sends; "
                   "`axag compile --target openai --strict --guards DIR` sets it).")
@click.option("--config", "config", type=click.Path(dir_okay=False), help="Use this configuration file only.")
@click.option("--isolated", is_flag=True, help="Ignore all configuration files.")
@click.option("--color", type=click.Choice(COLOR), default="auto", show_default=True,
              help="Accepted for symmetry with the other commands; this command prints plain text only.")
def guards(tools_json: Path, output: Path, lang: str | None, null_as_absent: bool, config: str | None,
           isolated: bool, color: str) -> None:
    """Generate runtime guards for the tools of TOOLS_JSON (an MCP tools.json)."""
    from axag.guards.render import write_guards

    try:
        if lang is None:
            from axag.config.resolve import Resolver

            lang = Resolver(Path.cwd(), config=config, isolated=isolated).run_settings().compile_guards_lang
        doc = load_tools_document(tools_json)
        written: list[str] = []
        warnings, _ = write_guards(doc, output, lang, null_as_absent=null_as_absent, written=written)
    except AxagError as exc:
        raise AxagClickError(str(exc)) from exc
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)
    click.echo(f"axag: wrote {len(written)} {'file' if len(written) == 1 else 'files'} to {output}: "
               + ", ".join(written), err=True)
