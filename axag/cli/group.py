"""The click group of the command line: its subcommands live in the other modules of `axag.cli`,
imported only when invoked (cold start, performance targets). Only the CLI layer touches stdout/stderr."""

from __future__ import annotations

import importlib
from typing import Any

import click

from axag import __version__
from axag.outcome.exit_codes import EXIT_INTERRUPTED

# command name -> "module:attribute" of a click.Command
COMMANDS: dict[str, str] = {
    "lint": "axag.cli.lint:lint",
    "compile": "axag.cli.compile:compile_cmd",
    "guards": "axag.cli.guards:guards",
    "context": "axag.cli.context:context",
    "rule": "axag.cli.rule:rule",
    "catalogue": "axag.cli.catalogue:catalogue",
    "serve": "axag.cli.serve:serve",
    "approvals": "axag.cli.approvals:approvals",
    "init": "axag.cli.init:init",
    "vocabulary": "axag.cli.vocabulary:vocabulary",
    "lsp": "axag.cli.lsp:lsp",
    "webmcp": "axag.cli.webmcp:webmcp",
}


class AxagClickError(click.ClickException):
    """Operational error: exit code 2 (a plain ClickException would exit 1)."""

    exit_code = 2


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attr = target.split(":")
        cmd = getattr(importlib.import_module(module), attr)
        assert isinstance(cmd, click.Command)
        return cmd

    def invoke(self, ctx: click.Context) -> Any:
        # Ctrl-C: exit 130 like other tools, one line, no traceback (click alone would say "Aborted!", exit 1);
        # outputs are written atomically, so no file is left half-written
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("axag: interrupted", err=True)
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="axag", message="%(prog)s %(version)s")
def main() -> None:
    """axag: lint AXAG 1.1 annotations and compile them into agent tools."""


def run(args: list[str] | None = None, **kwargs: Any) -> Any:  # pragma: no cover - convenience
    return main.main(args=args, **kwargs)
