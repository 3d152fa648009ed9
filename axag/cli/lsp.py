"""`axag lsp`: the language server over stdio (the ``lsp`` extra: pygls and lsprotocol)."""

from __future__ import annotations

import click

from axag.cli.group import AxagClickError


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Talk over stdin/stdout (the default and only transport).")
def lsp(stdio: bool) -> None:
    """Run the axag language server (diagnostics, fixes, completion, hover) for editors, over stdio."""
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError as exc:
        raise AxagClickError(f"the language server needs the lsp extra: pip install 'axag[lsp]' ({exc})") from exc
    from axag.lsp.server import main

    main()
