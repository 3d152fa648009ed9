"""`axag lint` (lint options)."""

from __future__ import annotations

import sys
from typing import Any

import click

from axag.cli.cache_options import cache_options
from axag.cli.choices import FAIL_ON, LEVEL
from axag.cli.common import common_options, guard_errors
from axag.cli.lint_standalone import run_lint, run_recorded
from axag.report import FORMATS

__all__ = ["lint", "run_lint"]


@click.command("lint")
@click.argument("paths", nargs=-1, type=click.Path())
@common_options
@click.option("--select", default=None, help="Comma-separated codes, names or ALL (replaces the configured selection).")
@click.option("--ignore", default=None, help="Codes or names to remove from the selection.")
@click.option("--extend-select", default=None, help="Codes or names to add to the selection.")
@click.option("--level", type=click.Choice(LEVEL), default=None,
              help="Highest conformance level whose rules run (default: lint.level, else full).")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default=None,
              help="Lowest severity that makes the exit code 1 (default: error; info never fails).")
@click.option("--fix", is_flag=True, help="Apply fixes, then report what remains.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
@click.option("--unsafe-fixes", is_flag=True,
              help="With --fix or --diff, also apply the did-you-mean fixes (attribute names, values, keys).")
@click.option("--watch", is_flag=True, help="Lint again on every change (only the changed files); Ctrl-C stops.")
@click.option("--statistics", is_flag=True, help="One line per rule instead of findings.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even with findings.")
@click.option("--output-format", "output_format", multiple=True, metavar="FMT[:PATH]",
              help=f"Report format, one of {', '.join(FORMATS)}; :PATH writes it to a file. Repeatable.")
@click.option("--output-file", default=None, metavar="PATH", help="Write the last --output-format without a path to PATH.")
@click.option("--stdin-filename", default=None, metavar="PATH", help="Name of the content read from -.")
@click.option("--baseline", default=None, type=click.Path(dir_okay=False),
              help="Hide the findings recorded in this baseline file (see --update-baseline).")
@click.option("--update-baseline", is_flag=True, help="Write the current findings to the baseline file; exit 0.")
@click.option("--manifest", default=None, type=click.Path(dir_okay=False),
              help="AXAG manifest (JSON) to check the intents against (rules 010 and 030).")
@click.option("--enforced-intents", default=None, type=click.Path(dir_okay=False),
              help='JSON array of intents (or {"intents": [...]}) whose handlers enforce the contract (rule 037).')
@click.option("--openapi", default=None, type=click.Path(dir_okay=False),
              help="OpenAPI 3.0/3.1 document to check axag-operation-id actions against (rule 149).")
@click.option("--force-exclude", is_flag=True,
              help="Apply exclude and .gitignore also to paths named on the command line (for pre-commit).")
@click.option("--no-respect-gitignore", is_flag=True, help="Do not read .gitignore files.")
@click.option("--show-files", is_flag=True, help="List the files that would be linted, one a line; lint nothing.")
@click.option("--show-settings", is_flag=True,
              help="Print the settings that apply to the first file (and the rules that run); lint nothing.")
@cache_options
@guard_errors
def lint(**opts: Any) -> None:
    """Lint AXAG annotations in HTML and template files."""
    if opts.get("watch"):
        from axag.cli.lint_watch import watch

        sys.exit(watch(opts, run_lint))
    sys.exit(run_recorded(opts))


