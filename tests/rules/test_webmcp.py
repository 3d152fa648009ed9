"""The declarative-WebMCP rule group: `--select webmcp`, the findings on forms that carry both
vocabularies, and the fixes (exact results, verified by re-parsing, idempotent, never toolautosubmit)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from axag.cli.group import main
from axag.rules.codes import resolve_codes

PAGE = """<form action="/bookings" method="post" axag-intent="booking.create" axag-action-type="write"
      axag-risk-level="medium" axag-description="Book a room" toolname="book" toolautosubmit>
  <label>Guests <input name="guests" type="number" toolparamdescription="Rooms"></label>
  <button>Book</button>
</form>
<form action="/s" method="get" axag-intent="site.find" axag-action-type="read" axag-risk-level="none"
      axag-description="Find things">
  <label>Words <input name="q" required></label>
</form>
"""

FIXED = """<form action="/bookings" method="post" axag-intent="booking.create" axag-action-type="write"
      axag-risk-level="medium" axag-description="Book a room" toolname="booking_create">
  <label>Guests <input name="guests" type="number" toolparamdescription="Guests"></label>
  <button>Book</button>
</form>
<form action="/s" method="get" axag-intent="site.find" axag-action-type="read" axag-risk-level="none"
      axag-description="Find things"
      toolname="site_find"
      tooldescription="Find things.
Risk level: none.">
  <label>Words <input name="q" required toolparamdescription="Words"></label>
</form>
"""


def _lint(tmp: Path, *args: str) -> tuple[int, str]:
    done = CliRunner().invoke(main, ["lint", "--isolated", "-j", "1", *args], catch_exceptions=False)
    return done.exit_code, done.output


def test_the_group_selects_its_rules() -> None:
    assert resolve_codes(["webmcp"], "--select") == {160, 161, 162, 163, 164}
    assert resolve_codes(["WebMCP,006"], "--select") == {6, 160, 161, 162, 163, 164}


def test_findings_and_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "a.html"
    page.write_text(PAGE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out = _lint(tmp_path, "--select", "webmcp", "--output-format", "json", "a.html")
    assert code == 1
    got = sorted((f["code"], f["line"], f["column"]) for f in json.loads(out)["findings"])
    assert got == [("AXAG-LINT-160", 2, 73), ("AXAG-LINT-161", 2, 79), ("AXAG-LINT-163", 3, 74),
                   ("AXAG-LINT-164", 6, 2)]
    # the default selection: 164 is off, the others on
    code, out = _lint(tmp_path, "--output-format", "concise", "a.html")
    assert "AXAG-LINT-161" in out and "AXAG-LINT-164" not in out
    code, out = _lint(tmp_path, "--select", "webmcp", "--fix", "--exit-zero", "a.html")
    assert code == 0, out
    assert page.read_text(encoding="utf-8") == FIXED
    assert "toolautosubmit" not in FIXED
    code, out = _lint(tmp_path, "--select", "webmcp", "--diff", "a.html")
    assert (code, out) == (0, "")


def test_fix_never_adds_toolautosubmit_and_keeps_gated_forms_honest(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "b.html"
    page.write_text('<form action="/d" method="post" axag-intent="note.delete" axag-action-type="delete" '
                    'axag-risk-level="high" axag-confirmation-required="true" axag-description="Delete a note">'
                    '<input name="note_id" axag-parameter-description="The note">'
                    '</form>\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out = _lint(tmp_path, "--select", "webmcp", "--fix", "--exit-zero", "b.html")
    assert code == 0, out
    text = page.read_text(encoding="utf-8")
    assert 'toolname="note_delete"' in text and 'toolparamdescription="The note"' in text
    assert "toolautosubmit" not in text
    assert "Requires explicit confirmation by the user before it runs." in text
