"""Positions of findings (finding positions, parsing): value, name and tag spans, multi-line tags, entities."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import codes_at, lint_json


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    if isinstance(text, str):
        p.write_text(text, encoding="utf-8")
    else:
        p.write_bytes(text)
    return p


def test_six_line_start_tag_value_and_name_positions(tmp_path: Path) -> None:
    write(tmp_path, "a.html", (
        "<div>\n"
        "  <button type=\"button\"\n"                      # line 2: tag starts
        "      axag-intent=\"cart.clear\"\n"
        "      axag-action-type=\"delete\"\n"
        "      AXAG-Risk-Level=\"extreme\"\n"              # line 5 = 4th line of the tag
        "      axag-idempotent=\"true\"\n"
        "      axag-scope=\"user\">Clear</button>\n"        # line 7 = 6th line of the tag
        "</div>\n"))
    _, findings = lint_json(["--select", "005,131", "a.html"], cwd=tmp_path)
    assert codes_at(findings) == [("131", 5, 7), ("005", 5, 24)]
    f131 = findings[0]
    assert (f131["end_line"], f131["end_column"]) == (5, 22)
    assert findings[1]["end_column"] == 31


def test_invalid_parameter_list_at_value(tmp_path: Path) -> None:
    write(tmp_path, "a.html", "<button axag-intent=\"a.b\" axag-action-type=\"read\"\n"
                              "  axag-required-parameters='[\"a\", \"b\"'>x</button>\n")
    _, findings = lint_json(["--select", "009", "a.html"], cwd=tmp_path)
    # the value span (inside the quotes); the detail names the problem
    assert codes_at(findings) == [("009", 2, 29)]
    assert findings[0]["message"] == "axag-required-parameters contains invalid JSON: unexpected end of input"


def test_boolean_and_unknown_attribute(tmp_path: Path) -> None:
    write(tmp_path, "a.html", '<button axag-intent="a.b" axag-action-type="read" axag-idempotent="maybe" '
                              'axag-risk="high">x</button>\n')
    _, findings = lint_json(["--select", "100,105", "a.html"], cwd=tmp_path)
    assert codes_at(findings) == [("105", 1, 68), ("100", 1, 75)]
    assert findings[0]["message"] == 'axag-idempotent="maybe" must be "true" or "false"'
    assert findings[1]["message"] == 'Unknown attribute "axag-risk"; did you mean "axag-risk-level"?'


def test_plain_link_has_no_finding(tmp_path: Path) -> None:
    write(tmp_path, "a.html", '<p><a href="/about">About</a></p>\n')
    code, findings = lint_json(["a.html"], cwd=tmp_path)
    assert (code, findings) == (0, [])


def test_entities_in_values_map_positions(tmp_path: Path) -> None:
    # &quot; decodes to one character; the second item's position maps back through the decoding
    write(tmp_path, "a.html", '<button axag-intent="a.b" axag-action-type="read" '
                              'axag-side-effects="[&quot;x&quot;, &quot;x&quot;]">x</button>\n')
    _, findings = lint_json(["--select", "144", "a.html"], cwd=tmp_path)
    assert codes_at(findings) == [("144", 1, 86)]
    assert findings[0]["end_column"] == 99


def test_duplicate_attribute_first_wins(tmp_path: Path) -> None:
    write(tmp_path, "a.html", '<button axag-intent="a.b" axag-action-type="read" axag-action-type="nope">x</button>\n')
    _, findings = lint_json(["--select", "004,132", "a.html"], cwd=tmp_path)
    assert codes_at(findings) == [("132", 1, 51)]
    assert findings[0]["message"] == 'axag-action-type is repeated; the first value ("read") is used'


def test_template_noscript_included_comments_scripts_excluded(tmp_path: Path) -> None:
    write(tmp_path, "a.html", (
        "<template><button axag-intent=\"t.one\" axag-action-type=\"bogus\">t</button></template>\n"
        "<noscript><a href=\"/x\" axag-intent=\"n.one\" axag-action-type=\"bogus\">n</a></noscript>\n"
        "<!-- <button axag-intent=\"c.one\" axag-action-type=\"bogus\"> -->\n"
        "<script>var s = '<button axag-intent=\"s.one\" axag-action-type=\"bogus\">';</script>\n"
        "<style>.x::after { content: '<b axag-intent=\"x.y\">' }</style>\n"
        "<textarea><button axag-intent=\"ta.one\" axag-action-type=\"bogus\"></textarea>\n"))
    _, findings = lint_json(["--select", "004", "a.html"], cwd=tmp_path)
    assert codes_at(findings) == [("004", 1, 57), ("004", 2, 62)]


def test_latin1_meta_charset_decodes(tmp_path: Path) -> None:
    html = '<meta charset="iso-8859-1"><button axag-intent="caf\xe9.order" axag-action-type="read">x</button>\n'
    write(tmp_path, "a.html", html.encode("latin-1"))
    _, findings = lint_json(["--select", "034,193", "a.html"], cwd=tmp_path)
    assert codes_at(findings) == [("034", 1, 49)]
    assert findings[0]["message"].startswith('axag-intent="caf\xe9.order" must be')


def test_binary_file_skipped_invalid_utf8_replaced(tmp_path: Path) -> None:
    write(tmp_path, "bin.html", b"\x89PNG\x00\x00\x01")
    write(tmp_path, "bad.html", b"<p>caf\xe9</p>\n")
    code, findings = lint_json(["bin.html", "bad.html"], cwd=tmp_path)
    assert [(f["code"], f["path"]) for f in findings] == [("AXAG-LINT-193", "bad.html"),
                                                         ("AXAG-LINT-190", "bin.html")]
    assert code == 0


def test_crlf_and_lone_cr_line_breaks(tmp_path: Path) -> None:
    write(tmp_path, "a.html", b'<div>\r\n<button axag-intent="a.b"\r  axag-action-type="bogus">x</button></div>')
    _, findings = lint_json(["--select", "004", "a.html"], cwd=tmp_path)
    assert codes_at(findings) == [("004", 3, 21)]


def test_unquoted_json_damage_reported_once(tmp_path: Path) -> None:
    write(tmp_path, "a.html", '<button axag-intent="a.b" axag-action-type="read" '
                              'axag-required-parameters=["x", "y"]>b</button>\n')
    _, findings = lint_json(["--select", "009,100,134", "a.html"], cwd=tmp_path)
    assert codes_at(findings) == [("134", 1, 51)]


def test_same_tag_controls_on_one_line_get_their_own_positions(tmp_path: Path) -> None:
    write(tmp_path, "a.html", '<form axag-intent="a.b" axag-action-type="read" axag-description="d">'
                              '<input name="first"><input name="second"><input><button>go</button></form>\n')
    _, findings = lint_json(["--select", "029,032", "a.html"], cwd=tmp_path)
    assert codes_at(findings) == [("032", 1, 71), ("032", 1, 91), ("029", 1, 112)]
