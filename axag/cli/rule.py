"""`axag rule CODE|NAME` and `axag rule --all`: rule documentation from the catalogue."""

from __future__ import annotations

import click

from axag.cli.group import AxagClickError


@click.command("rule")
@click.argument("code_or_name", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
@click.option("--config", "config", type=click.Path(dir_okay=False),
              help="Accepted for symmetry with the other commands (rules are documented as defined).")
@click.option("--isolated", is_flag=True, help="Accepted for symmetry with the other commands.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Accepted for symmetry with the other commands; the text is plain.")
def rule(code_or_name: str | None, show_all: bool, config: str | None, isolated: bool, color: str) -> None:
    """Explain a lint rule (code such as AXAG-LINT-006, 006 or a rule name)."""
    from axag.rules.catalogue import RULES, lookup
    from axag.rules.docs import explain, listing

    if show_all:
        click.echo(listing(), nl=False)
        return
    if not code_or_name:
        raise AxagClickError("give a rule code or name, or --all")
    meta = lookup(code_or_name)
    if meta is None:
        from axag.vocabulary import did_you_mean

        names = [r.name for r in RULES.values()]
        s = did_you_mean(code_or_name.lower(), names)
        raise AxagClickError(f'unknown rule "{code_or_name}"' + (f'; did you mean "{s}"?' if s else ""))
    click.echo(explain(meta.info.code), nl=False)
