"""Template files (dynamic values, harvesting in template files, file discovery): dynamic values are reported once and never validated as
static; dynamic actions are left out of compile; engine comments carry suppressions."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import FIXTURES, run_axag

TEMPLATES = FIXTURES / "templates"


def _lint(*args: str) -> list[tuple[str, str, int, int]]:
    res = run_axag(["lint", "--isolated", "--output-format", "json", *args], cwd=TEMPLATES)
    return [(Path(f["path"]).name, f["code"][-3:], f["line"], f["column"]) for f in json.loads(res.stdout)["findings"]]


def test_dynamic_values_reported_once_per_element() -> None:
    assert _lint(".") == [
        ("Profile.vue", "151", 7, 6),  # no form submits it (unbound-action)
        ("Profile.vue", "033", 10, 6),
        ("booking.jinja", "033", 13, 2),
        ("booking.jinja", "033", 15, 2),
        ("booking.jinja", "151", 19, 2),
        ("card.hbs", "033", 2, 4),
        ("cart.liquid", "033", 2, 4),
    ]


def test_dynamic_finding_wording_and_severity() -> None:
    res = run_axag(["lint", "--isolated", "--output-format", "json", "booking.jinja"], cwd=TEMPLATES)
    f = json.loads(res.stdout)["findings"][1]
    assert f["severity"] == "warning"
    assert f["message"] == ("<button> has dynamic values in axag-risk-level; they cannot be checked or compiled "
                            "at build time; compile leaves this action out")


def test_extension_only_dynamic_is_info_and_keeps_the_action(tmp_path: Path) -> None:
    (tmp_path / "a.jinja").write_text(
        '<button type="button" axag-intent="a.b" axag-action-type="read" axag-description="d" '
        'axag-x-acme-trace="{{ trace }}">x</button>\n', encoding="utf-8")
    res = run_axag(["lint", "--isolated", "--output-format", "json", "a.jinja"], cwd=tmp_path)
    f, unbound = json.loads(res.stdout)["findings"]
    assert (f["code"], f["severity"]) == ("AXAG-LINT-033", "info")
    assert (unbound["code"], unbound["severity"]) == ("AXAG-LINT-151", "info")
    out = run_axag(["compile", "--isolated", "a.jinja", "-o", "-"], cwd=tmp_path)
    tool = json.loads(out.stdout)["tools"][0]
    assert "extensions" not in tool["_meta"]["org.axag/action"]


def test_compile_leaves_dynamic_actions_out_and_lists_them_in_the_manifest() -> None:
    res = run_axag(["compile", "--isolated", ".", "-o", "-"], cwd=TEMPLATES)
    assert res.exit_code == 0, res.stderr
    assert [t["name"] for t in json.loads(res.stdout)["tools"]] == ["booking_create", "profile_save", "room_share"]
    res = run_axag(["compile", "--isolated", ".", "--target", "manifest", "-o", "-"], cwd=TEMPLATES)
    dyn = json.loads(res.stdout)["dynamic_actions"]
    assert [(d["source_file"], d["source_line"]) for d in dyn] == [
        ("Profile.vue", 10), ("booking.jinja", 13), ("booking.jinja", 15), ("card.hbs", 2), ("cart.liquid", 2)]


def test_escaped_placeholders_are_static_and_harvest_skips_unknown_bounds() -> None:
    res = run_axag(["compile", "--isolated", "booking.jinja", "-o", "-"], cwd=TEMPLATES)
    tool = next(t for t in json.loads(res.stdout)["tools"] if t["name"] == "booking_create")
    assert tool["_meta"]["org.axag/action"]["confirmation_message"] == "Book {{guests}} guests?"
    # max="{{ max_guests }}" is unknown at build time: ignored, min stays
    assert tool["inputSchema"]["properties"]["guests"] == {"type": "integer", "description": "Guests", "minimum": 1}


def test_vue_scans_only_the_template_section_with_file_positions() -> None:
    res = run_axag(["lint", "--isolated", "--output-format", "json", "--select", "ALL", "Profile.vue"],
                   cwd=TEMPLATES)
    lines = {f["line"] for f in json.loads(res.stdout)["findings"]}
    assert 2 not in lines  # the <script> block's string is not markup
    assert min(lines) >= 6


def test_a_quoted_value_after_any_html_space_keeps_its_template_construct() -> None:
    """Between `=` and the quote any HTML space may stand, a lone CR too: the construct inside the value is the
    value's (dynamic), not a construct in the start tag to blank."""
    from axag.parse.braces import neutralize_braces
    from axag.parse.templates import blank_template_tags

    for space in (" ", "\n", "\r\n", "\r", "\t"):
        text = f'<a b={space}"{{{{x}}}}" c="1">'
        assert blank_template_tags(text, "jinja") == (text, [])
        assert neutralize_braces(f'<a b={space}"{{x}}">') == f'<a b={space}"{{x}}">'
