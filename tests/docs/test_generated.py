"""The generated reference pages of the site are what `python scripts/generate_docs.py` writes
from the code: rules (with their examples), vocabulary, command line, JSON Schemas and envelope statuses. A
stale page fails, naming the command that rewrites it."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import click
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "generate_docs.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_docs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _generator()


@pytest.mark.parametrize("page", list(GEN.PAGES))
def test_generated_page_is_up_to_date(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    assert text == GEN.PAGES[page](), f"{page} is stale: run {GEN.COMMAND}"


def test_check_names_a_stale_page_and_the_command(tmp_path: Path) -> None:
    for page in GEN.PAGES:
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / page, tmp_path / page)
    assert GEN.stale(tmp_path) == []
    cli = tmp_path / "docs" / "reference" / "cli.md"
    cli.write_text(cli.read_text(encoding="utf-8").replace("--select", "--pick"), encoding="utf-8")
    assert GEN.stale(tmp_path) == ["docs/reference/cli.md"]
    assert GEN.write(tmp_path) == ["docs/reference/cli.md"]
    assert GEN.stale(tmp_path) == []
    res = subprocess.run([sys.executable, str(SCRIPT), "--check"], cwd=tmp_path, capture_output=True, text=True,
                         check=False, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr  # the checkout's own pages are current


def test_cli_page_lists_every_command_and_option() -> None:
    from axag.cli.group import main

    text = (ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    ctx = click.Context(main, info_name="axag")
    for name in main.list_commands(ctx):
        cmd = main.get_command(ctx, name)
        assert cmd is not None
        assert f"\n## axag {name} {{#axag-{name}}}\n" in text
        section = text[text.index(f"\n## axag {name} {{"):]
        for param in cmd.get_params(ctx):
            if isinstance(param, click.Option):
                assert f"`{param.opts[0]}" in section or f", {param.opts[0]}" in section, (name, param.opts)
    assert "| `--fail-on [error\\|warning]` |" in text


def test_rules_page_has_every_rule_with_its_examples() -> None:
    from axag.rules.catalogue import RULES

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for r in RULES.values():
        assert f"\n## {r.info.id} {r.info.name}\n" in text
        section = text[text.index(f"\n## {r.info.id} "):][:20000]
        if r.fails:
            assert "Fails:\n\n```html\n" + r.fails + "\n```" in section, r.info.id


def test_envelope_page_lists_the_statuses_of_the_schema() -> None:
    from axag.files.shipped_schemas import load_schema

    statuses = load_schema("envelope.schema.json")["properties"]["permission"]["enum"]
    text = (ROOT / "docs" / "reference" / "envelope.md").read_text(encoding="utf-8")
    table = text[text.index("## Statuses"):]
    assert [line.split("`")[1] for line in table.splitlines()[4:] if line.startswith("| `")] == statuses


def test_an_undocumented_status_stops_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(GEN.STATUS_MEANINGS, "expired")
    with pytest.raises(SystemExit, match="STATUS_MEANINGS must list the statuses"):
        GEN.envelope_page()


def test_schemas_page_has_every_shipped_schema() -> None:
    from axag.files.shipped_schemas import SCHEMA_FILES

    text = (ROOT / "docs" / "reference" / "schemas.md").read_text(encoding="utf-8")
    assert [line[3:] for line in text.splitlines() if line.startswith("## ")] == sorted(SCHEMA_FILES)
