"""The compiled contract equals the page: what `axag compile` and
`axag lint` read is the tree a browser (lxml) builds from the same bytes, whatever the page holds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import lint_json, run_axag, shared_or_skip

REFRESH = ('<button type="button" axag-intent="order.refresh" axag-action-type="read" axag-risk-level="none" '
           'axag-scope="user" axag-description="Refresh the list">Refresh</button>')


def compiled(tmp_path: Path, html: str) -> tuple[int, dict[str, list[str]]]:
    """Exit code and {tool name: parameter names} of `axag compile` on one page."""
    (tmp_path / "page.html").write_text(html, encoding="utf-8")
    res = run_axag(["compile", "--isolated", "page.html", "-o", "-"], cwd=tmp_path)
    tools = json.loads(res.stdout)["tools"] if res.stdout.strip() else []
    return res.exit_code, {t["name"]: list(t["inputSchema"]["properties"]) for t in tools}


def test_markup_inside_an_attribute_value_adds_no_tool(tmp_path: Path) -> None:
    wipe = ('<button axag-intent="admin.wipe" axag-action-type="read" axag-risk-level="none" axag-scope="user" '
            'axag-description="Wipe everything">')
    page = f"<div title='{wipe}'>x</div>\n<p title=\"{wipe.replace(chr(34), chr(39))}\">y</p>\n{REFRESH}\n"
    assert compiled(tmp_path, page) == (0, {"order_refresh": []})
    code, findings = lint_json(["--ignore", "unbound-action", "page.html"], cwd=tmp_path)
    assert (code, findings) == (0, [])


def test_a_page_id_like_the_marker_cannot_swap_schemas(tmp_path: Path) -> None:
    page = """<form id="__axag_m0"><input name="q"><input name="admin_override"></form>
<form axag-intent="user.update" axag-action-type="write" axag-risk-level="low" axag-scope="user"
      axag-description="Update the user"><label for="e">E-mail</label><input id="e" name="email"></form>
"""
    assert compiled(tmp_path, page) == (0, {"user_update": ["email"]})


@pytest.mark.parametrize("before", [
    "<!-->", "<!--->", "<!-- note --!>", "<!---->",
    '<a title="' + "<" * 8 + '" href="#">x</a>',
])
def test_actions_after_html5_comment_endings_are_compiled(tmp_path: Path, before: str) -> None:
    assert compiled(tmp_path, f"{before}\n{REFRESH}\n") == (0, {"order_refresh": []})
    assert lint_json(["--ignore", "unbound-action", "page.html"], cwd=tmp_path) == (0, [])  # no 001 claiming the button has no intent


def test_an_attribute_value_with_many_lt_keeps_its_action(tmp_path: Path) -> None:
    page = REFRESH.replace('type="button"', 'type="button" title="' + "<" * 12 + '"') + "\n"
    assert compiled(tmp_path, page) == (0, {"order_refresh": []})
    assert lint_json(["--ignore", "unbound-action", "page.html"], cwd=tmp_path) == (0, [])


def test_comment_after_tag_name_shows_the_annotation(tmp_path: Path) -> None:
    """`<button <!-- axag-foo -->`: the browser reads `<!--`, `axag-foo` and `--` as attributes of the button."""
    (tmp_path / "page.html").write_text("<button <!-- axag-foo -->x</button>\n", encoding="utf-8")
    code, findings = lint_json(["--ignore", "unbound-action", "page.html"], cwd=tmp_path)
    assert code == 1
    assert [(f["code"], f["line"], f["column"], f["end_column"]) for f in findings] == [
        ("AXAG-LINT-001", 1, 2, 8), ("AXAG-LINT-100", 1, 14, 22)]


@pytest.mark.parametrize(("page", "lines"), [
    ("use-cases__ecommerce__product-search__00.html", [2]),
    ("use-cases__ecommerce__cart-and-checkout__00.html", [3, 19]),
])
def test_docs_pages_with_a_comment_in_the_start_tag_are_not_silently_empty(
        tmp_path: Path, page: str, lines: list[int]) -> None:
    """The AXAG docs wrap highlighted attributes in `<!-- axag-highlight-start -->` inside the start tag. A
    browser ends the start tag at the `-->` after that name: the button carries the attributes `<!--`,
    `axag-highlight-start` and `--`, and everything after is text. Compile therefore fails (an unknown
    annotation attribute, 100, where the page has it) instead of writing an empty tool list with exit 0."""
    shutil.copy(shared_or_skip("corpus/axag-docs") / page, tmp_path / page)
    res = run_axag(["compile", "--isolated", page, "-o", "tools.json"], cwd=tmp_path)
    assert res.exit_code == 1
    assert not (tmp_path / "tools.json").exists()
    code, findings = lint_json([page], cwd=tmp_path)
    assert code == 1
    assert [(f["line"], f["column"]) for f in findings if f["code"] == "AXAG-LINT-100"] == [
        (line, 8) for line in lines]
    assert {f["message"] for f in findings if f["code"] == "AXAG-LINT-100"} == {
        'Unknown attribute "axag-highlight-start"'}


def test_no_marker_reaches_the_output_and_runs_agree(tmp_path: Path) -> None:
    """A start tag the scan proposes inside raw text (`<xmp>`) would carry its marker into the label's text;
    lxml rejects it, the page is parsed again without it, and two processes (two nonces) write the same bytes."""
    import subprocess
    import sys

    (tmp_path / "page.html").write_text(
        '<form axag-intent="user.find" axag-action-type="read" axag-risk-level="none" axag-scope="user"\n'
        '      axag-description="Find a user">\n'
        '  <label for="q">Name <xmp><button axag-intent="x.y"></xmp></label><input id="q" name="q">\n'
        "</form>\n", encoding="utf-8")
    outputs = []
    for _ in range(2):
        res = subprocess.run([sys.executable, "-m", "axag", "compile", "--isolated", "page.html", "-o", "-"],
                             cwd=tmp_path, capture_output=True, check=False)
        assert res.returncode == 0, res.stderr
        outputs.append(res.stdout)
    assert outputs[0] == outputs[1]
    assert b"__axag" not in outputs[0]
    tool = json.loads(outputs[0])["tools"][0]
    assert (tool["name"], tool["inputSchema"]["properties"]["q"]["description"]) == (
        "user_find", 'Name <button axag-intent="x.y">')
