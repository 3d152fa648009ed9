"""`axag context TOOLS_JSON [--tool NAME ...]` (the constraint context block): print the constraint context block."""

from __future__ import annotations

from pathlib import Path

import click

from axag.cli.choices import COLOR
from axag.cli.group import AxagClickError
from axag.outcome.errors import AxagError

__all__ = ["context"]


@click.command("context")
@click.argument("tools_json", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--tool", "tools", multiple=True, metavar="NAME", help="Only this tool (repeatable).")
@click.option("--config", "config", type=click.Path(dir_okay=False),
              help="Accepted for symmetry with the other commands (no setting applies here).")
@click.option("--isolated", is_flag=True, help="Accepted for symmetry with the other commands.")
@click.option("--color", type=click.Choice(COLOR), default="auto", show_default=True,
              help="Accepted for symmetry with the other commands; the block is plain text.")
def context(tools_json: Path, tools: tuple[str, ...], config: str | None, isolated: bool, color: str) -> None:
    """Print the constraint context block for the tools of TOOLS_JSON (an MCP tools.json)."""
    from axag.cli.guards import load_tools_document
    from axag.guards.context import block

    try:
        text = block(load_tools_document(tools_json), list(tools))
    except AxagError as exc:
        raise AxagClickError(str(exc)) from exc
    click.echo(text, nl=False)
