"""`axag catalogue TOOLS.json [-o FILE]` and `axag catalogue OLD.json NEW.json -o diff.html`: the pages of what
agents will see, and of what changed for them."""

from __future__ import annotations

import os
from typing import Any

import click

from axag.cli.common import fail, guard_errors, write_or_print


def source_base(tools_file: str, output: str | None, root: str | None) -> str:
    """The compile root as seen from the page's folder (source links are relative to the page)."""
    root_dir = os.path.abspath(root if root is not None else os.path.dirname(os.path.abspath(tools_file)))
    page_dir = os.path.abspath(os.path.dirname(output) if output and output != "-" else ".")
    return os.path.relpath(root_dir, page_dir)


def check_url_template(template: str | None) -> None:
    if template is not None and not template.startswith(("https://", "http://")):
        raise fail("--source-url must be an http(s) URL template with {file} and {line}")


@click.command("catalogue")
@click.argument("tools", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("-o", "--output", default=None, help="Write the page to FILE (default: stdout).")
@click.option("--root", default=None, type=click.Path(file_okay=False),
              help="Folder the tools' source files are relative to (default: the folder of the tools file).")
@click.option("--source-url", default=None,
              help="Link sources to URL instead of files, e.g. https://host/repo/blob/main/{file}#L{line}.")
@guard_errors
def catalogue(tools: tuple[str, ...], output: str | None, root: str | None, source_url: str | None) -> None:
    """Render the tools agents will see as a page (two files: what changed from OLD to NEW)."""
    from axag.catalogue.model import load
    from axag.catalogue.render import catalogue_pieces, diff_pieces

    if len(tools) > 2:
        raise fail("give one tools file, or two (OLD NEW) for a diff")
    check_url_template(source_url)
    base = source_base(tools[-1], output, root)
    pieces: Any
    if len(tools) == 1:
        pieces = catalogue_pieces(load(tools[0]), source=tools[0], base=base, url_template=source_url)
    else:
        pieces = diff_pieces(load(tools[0]), load(tools[1]), old_source=tools[0], new_source=tools[1], base=base,
                             url_template=source_url)
    write_or_print(output, pieces)
