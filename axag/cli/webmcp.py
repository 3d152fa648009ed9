"""`axag webmcp PATHS… -o DIR`: write ``DIR/axag-webmcp.js``, the page-side WebMCP runtime with the
site's tools (PATHS: the inputs `compile` takes, or an MCP tools file)."""

from __future__ import annotations

from pathlib import Path

import click

from axag.cli.group import AxagClickError
from axag.outcome.errors import AxagError

__all__ = ["webmcp"]


@click.command("webmcp")
@click.argument("inputs", nargs=-1, required=True)
@click.option("-o", "--output", "output", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory to write axag-webmcp.js to.")
@click.option("--max-result-bytes", type=click.IntRange(min=1), default=65536, show_default=True,
              help="Cut a backend answer's body at this many bytes (as `axag serve` does).")
def webmcp(inputs: tuple[str, ...], output: Path, max_result_bytes: int) -> None:
    """Write DIR/axag-webmcp.js: a page that loads it registers its own tools with WebMCP, guarded."""
    from axag import __version__
    from axag.cli.serve import load_tools
    from axag.compile.targets.webmcp import from_mcp
    from axag.files import write
    from axag.guards.guard_spec import GuardSpecError
    from axag.webmcp.module import MODULE_NAME, render_module

    try:
        doc = from_mcp(load_tools(inputs, None), __version__)
        text = render_module(doc, max_result_bytes=max_result_bytes)
        output.mkdir(parents=True, exist_ok=True)
        write.write_atomic(output / MODULE_NAME, text, within=output)
    except GuardSpecError as exc:
        raise AxagClickError(f"cannot generate the WebMCP module: {exc}") from exc
    except OSError as exc:
        raise AxagClickError(f"cannot write {output / MODULE_NAME}: {exc.strerror or exc}") from exc
    except AxagError as exc:
        raise AxagClickError(str(exc)) from exc
    count = len(doc["tools"])
    click.echo(f"axag: wrote {output / MODULE_NAME} ({count} {'tool' if count == 1 else 'tools'})", err=True)
