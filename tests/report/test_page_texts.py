"""Texts new users met: the diff page's count of the changes agents will feel, the
catalogue's search field showing its whole placeholder (in Chromium), and 006's fix following the tag's
attribute layout."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from lxml import html as lxml_html

from tests.conftest import run_axag
from tests.html_fixtures import document, old_and_new, tool, write_json
from tests.report.test_html_browser import browser

__all__ = ["browser"]  # the module-scoped Chromium fixture of the page tests


def _summaries(page: Path) -> list[str]:
    tree = lxml_html.fromstring(page.read_bytes())
    return [" ".join(p.text_content().split()) for p in tree.xpath("//article[contains(@class, 'item')]/p")
            if "change" in p.text_content()]


def test_diff_page_counts_felt_changes_in_words(tmp_path: Path) -> None:
    old = document([tool("booking_create"), tool("room_list")])
    new = copy.deepcopy(old)
    booking = next(t for t in new["tools"] if t["name"] == "booking_create")
    booking["_meta"]["org.axag/action"]["risk_level"] = "low"  # felt
    booking["description"] = "Book a room, now."  # wording only
    write_json(tmp_path / "old.json", old)
    write_json(tmp_path / "new.json", new)
    assert run_axag(["catalogue", "old.json", "new.json", "-o", "diff.html"], cwd=tmp_path).exit_code == 0
    assert _summaries(tmp_path / "diff.html") == ["2 changes, 1 that agents will feel."]
    old, new = old_and_new()
    write_json(tmp_path / "old.json", old)
    write_json(tmp_path / "new.json", new)
    assert run_axag(["catalogue", "old.json", "new.json", "-o", "diff.html"], cwd=tmp_path).exit_code == 0
    assert all(" agents will feel" not in s or " that agents will feel" in s for s in _summaries(tmp_path / "diff.html"))


_FITS = """() => {
  const q = document.querySelector('#q');
  const s = getComputedStyle(q);
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = s.font;
  const inner = q.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
  return [ctx.measureText(q.placeholder).width, inner];
}"""


@pytest.mark.parametrize("width", [1100, 700])
def test_search_placeholder_is_not_cut_off(browser: Any, tmp_path: Path, width: int) -> None:
    old, new = old_and_new()
    write_json(tmp_path / "old.json", old)
    write_json(tmp_path / "new.json", new)
    assert run_axag(["catalogue", "new.json", "-o", "catalogue.html"], cwd=tmp_path).exit_code == 0
    assert run_axag(["catalogue", "old.json", "new.json", "-o", "diff.html"], cwd=tmp_path).exit_code == 0
    ctx = browser.new_context(viewport={"width": width, "height": 900})
    try:
        for name in ("catalogue.html", "diff.html"):
            page = ctx.new_page()
            page.goto((tmp_path / name).as_uri())
            page.wait_for_selector("html[data-ready]", state="attached", timeout=30_000)
            text, room = page.evaluate(_FITS)
            assert text <= room, (name, text, room)
    finally:
        ctx.close()


WRAPPED = """<form action="/account" method="post">
  <button type="submit" class="btn btn-danger" axag-intent="account.delete"
          axag-action-type="delete" axag-risk-level="high" axag-idempotent="true" axag-scope="user"
          axag-description="Delete the account">Delete</button>
</form>
"""


def test_006_fix_follows_the_attribute_layout(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(WRAPPED)
    res = run_axag(["lint", "--isolated", "--no-cache", "--select", "AXAG-LINT-006", "--fix", "a.html"], cwd=tmp_path)
    assert res.exit_code == 0, res.output
    assert (tmp_path / "a.html").read_text() == WRAPPED.replace(
        'axag-scope="user"\n', 'axag-scope="user"\n          axag-confirmation-required="true"\n')
