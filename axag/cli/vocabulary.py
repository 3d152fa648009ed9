"""`axag vocabulary`: the vocabulary as a table, VS Code HTML custom data or TypeScript
declarations, made from `axag.vocabulary` by `axag.vocabulary.export`."""

from __future__ import annotations

import click

from axag.cli.common import guard_errors, write_or_print
from axag.vocabulary.export import FORMATS, render


@click.command("vocabulary")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="table: attributes, value forms, values and meanings; vscode-html-data: VS Code's HTML custom "
                   "data (html.customData); typescript: declarations adding the axag-* attributes to React's JSX.")
@click.option("--output", "-o", default=None, metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
@guard_errors
def vocabulary(fmt: str, output: str | None) -> None:
    """Print the AXAG vocabulary, or editor data made from it."""
    import shutil
    import sys

    width = shutil.get_terminal_size().columns if output is None and sys.stdout.isatty() else 0
    write_or_print(output, render(fmt, width))
