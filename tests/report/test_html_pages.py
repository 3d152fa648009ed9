"""The html lint report and the catalogue pages without a browser: content, counts, escaping, CLI wiring.
(tests/report/test_html_browser.py opens the same pages in Chromium.)"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from lxml import html as lxml_html

from axag.catalogue.diff import compare
from axag.catalogue.model import source_href, view, views
from axag.catalogue.words import constraints, precondition_text
from axag.report import render
from axag.report.htmlkit import script_json, visible
from tests.conftest import run_axag
from tests.html_fixtures import (
    HOSTILE_ATTR,
    HOSTILE_VALUE,
    PWN,
    big_run,
    document,
    hostile_tool,
    lint_tree,
    old_and_new,
    tool,
    write_json,
)
from tests.report.test_formats import hostile_run, sample_run


def _payload(page: str) -> dict[str, object]:
    m = re.search(r'<script type="application/json" id="axag-data">(.*?)</script>', page, re.DOTALL)
    assert m is not None
    data = json.loads(m.group(1))
    assert isinstance(data, dict)
    return data


def _lint_both(tmp_path: Path) -> tuple[dict[str, object], str]:
    tree = lint_tree(tmp_path / "site")
    res = run_axag(["lint", "--isolated", ".", "--output-format", "json:out.json",
                    "--output-format", "html:out.html"], cwd=tree)
    assert res.exit_code == 1
    return json.loads((tree / "out.json").read_text(encoding="utf-8")), (tree / "out.html").read_text(
        encoding="utf-8")


def test_html_counts_match_the_json_output(tmp_path: Path) -> None:
    doc, page = _lint_both(tmp_path)
    tree = lxml_html.fromstring(page)
    shown = {td.get("data-count"): int(td.text) for td in tree.xpath("//td[@data-count]")}
    assert shown == doc["summary"]  # type: ignore[index]
    findings = doc["findings"]  # type: ignore[index]
    by_rule = {td.get("data-rule"): int(td.text) for td in tree.xpath("//td[@data-rule]")}
    assert by_rule == dict(Counter(f["code"] for f in findings))
    by_sev = {td.get("data-severity"): int(td.text) for td in tree.xpath("//td[@data-severity]")}
    assert by_sev == {s: sum(1 for f in findings if f["severity"] == s) for s in ("error", "warning", "info")}
    files = [th.text_content() for th in tree.xpath("//table[@id='by-file']//th[@scope='row']")]
    assert files == sorted({f["path"] for f in findings})
    # the embedded findings are the JSON findings, in the same order
    data = _payload(page)["findings"]
    assert [(d["c"], d["r"], d["l"], d["k"], d["m"]) for d in data] == \
        [(f["code"], f["path"], f["line"], f["column"], f["message"]) for f in findings]  # type: ignore[index]
    # without JavaScript every finding is on the page (fewer than NOSCRIPT_LIMIT)
    assert len(tree.xpath("//ol[@id='findings']/li")) == len(findings)


def test_html_finding_has_frame_help_fix_and_rule_explanation() -> None:
    from axag.rules.docs import explain

    page = render("html", sample_run())
    tree = lxml_html.fromstring(page)
    first_error = tree.xpath("//ol[@id='findings']/li[@data-rule='AXAG-LINT-004']")[0]
    full = render("full", sample_run())
    block = full.split("\n\n")[1]  # the findings of `full` are in the same order; 004 is the second
    frame_lines = [ln for ln in block.splitlines() if "|" in ln[:6]]
    assert first_error.xpath(".//pre[@class='frame']")[0].text_content().splitlines() == frame_lines
    notes = [p.text_content() for p in first_error.xpath(".//p[@class='note']")]
    assert notes == ['help: did you mean "read"?', 'fix: Replace "reed" with "read" (run axag lint --fix)']
    assert first_error.xpath(".//details/pre")[0].text_content() == explain(4)
    assert first_error.xpath(".//span[@class='caret']")[0].text_content().strip() == "^^^^"


def test_html_rule_explanation_is_what_axag_rule_prints() -> None:
    res = run_axag(["rule", "AXAG-LINT-004"])
    data = _payload(render("html", sample_run()))
    assert data["explain"]["AXAG-LINT-004"] == res.stdout  # type: ignore[index]


def test_html_shows_hostile_text_as_text() -> None:
    page = render("html", hostile_run())
    body = page.split('<script type="application/json"', 1)[0]
    assert "<script>" not in body.split("<body>", 1)[1].split("<script", 1)[0]
    island = page.split('id="axag-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in island and ">" not in island and "\u2028" not in island
    # controls shown as escapes, like the terminal formats
    assert "\\x1b[31mred" in _payload(page)["findings"][0]["m"]  # type: ignore[index]
    assert "\x1b" not in page and "\x00" not in page
    tree = lxml_html.fromstring(page)
    h3 = tree.xpath("//ol[@id='findings']/li//h3")[0].text_content()
    assert "</script>" in h3  # the message's markup is text in the heading


def test_script_json_cannot_end_its_script_element() -> None:
    value = {"m": "</script><script>x()</script>", "s": "\u2028\u2029&<!--", "u": "\ud800"}
    text = script_json(value)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == value
    assert visible("a\x1b\tb\nc\u202e\x00\ud800") == "a\\x1b\tb\nc\\u202e\\x00\ufffd"


def test_html_report_without_findings() -> None:
    from axag.outcome.findings import RunReport

    tree = lxml_html.fromstring(render("html", RunReport(files=3)))
    assert tree.xpath("//p[@id='status']")[0].text_content() == "No findings."
    assert "All checks passed." in tree.text_content()


def test_html_file_size_grows_linearly() -> None:
    """Beyond the findings drawn for readers without JavaScript, each finding adds the same few hundred bytes."""
    size = {n: len(render("html", big_run(n)).encode()) for n in (1000, 2000, 4000)}
    first, second = (size[2000] - size[1000]) / 1000, (size[4000] - size[2000]) / 2000
    assert abs(first - second) / first < 0.02, size
    assert first < 600, size


# ---------------------------------------------------------------- catalogue: words, model, diff


def test_constraints_in_words() -> None:
    assert constraints({"type": "integer", "minimum": 1, "maximum": 10, "multipleOf": 2}) == \
        ["from 1 to 10", "a multiple of 2"]
    assert constraints({"type": "string", "format": "date", "enum": ["a", "b"], "default": "a",
                        "minLength": 2, "maxLength": 5, "pattern": "^[a-z]+$"}) == \
        ['format date', 'one of "a", "b"', 'default "a"', "length 2 to 5 characters",
         "matches the pattern ^[a-z]+$"]
    assert constraints({"type": "array", "items": {"type": "string", "maxLength": 3}, "minItems": 1,
                        "uniqueItems": True}) == \
        ["each item: length at most 3 characters", "at least 1 items", "no duplicate items"]
    assert constraints({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                        "required": ["a"]}) == ["fields: a (string, required), b (integer)"]
    assert constraints({"exclusiveMinimum": 0, "const": 3}) == ["always 3", "greater than 0"]


def test_preconditions_in_words() -> None:
    props = {"check_in": {"type": "string"}, "check_out": {"type": "string"}, "guests": {"type": "integer"}}
    rel = {"kind": "relational"}
    assert precondition_text({**rel, "form": "greater_than", "params": ["check_out", "check_in"]}, props) == \
        "check_out must be after check_in, when both are given"
    assert precondition_text({**rel, "form": "less_than_or_equal", "params": ["guests"], "value": 10}, props) == \
        "guests must be at most 10, when given"
    assert precondition_text({**rel, "form": "exactly_one_of", "params": ["a", "b", "c"]}, props) == \
        "exactly one of a, b or c must be given"
    assert precondition_text({**rel, "form": "required_when_equal", "params": ["vat", "country"],
                              "value": "DE"}, props) == 'vat is required when country is "DE"'
    assert precondition_text({**rel, "form": "requires", "params": ["a", "b"]}, props) == \
        "when a is given, b must be given too"
    assert precondition_text({"text": "room_available", "kind": "state"}, props) == "room_available"


def test_tool_view_badges_and_params() -> None:
    v = view(tool("booking_create"))
    assert v.badges == [("type", "write"), ("risk-high", "risk high"), ("confirm", "confirmation required"),
                        ("approval", "approval by 2 approvers (manager)"),
                        ("rate", "at most 10 calls per minute"),
                        ("scope", "scope user"), ("destructive", "destructive")]
    assert [(p.name, p.type, p.required, p.constraints) for p in v.params] == [
        ("check_in", "string", True, ["format date"]), ("check_out", "string", True, ["format date"]),
        ("guests", "integer", False, ["from 1 to 10"]), ("room", "string", False, ['one of "single", "double"'])]
    assert v.preconditions == [("state", "room_available"),
                               ("relational", "check_out must be after check_in, when both are given")]


def test_odd_tools_never_crash() -> None:
    odd = [None, 3, {}, {"name": 5, "inputSchema": [], "_meta": {"org.axag/action": {"sources": [None, {}]}}},
           {"type": "function", "function": {"name": "f", "parameters": {"properties": {"x": {"type": "string"}}}}},
           {"name": "a", "input_schema": {"properties": {"y": True}, "required": "y"}}]
    out = views(document(odd))  # type: ignore[arg-type]
    assert [t.name for t in out] == ["", "", "", "5", "f", "a"]
    assert [p.name for p in out[4].params] == ["x"]
    from axag.catalogue.render import catalogue_pieces

    assert "</html>" in "".join(catalogue_pieces(document(odd), source="odd.json"))  # type: ignore[arg-type]


def test_source_links_cannot_become_scripts() -> None:
    assert source_href(f"javascript:{PWN}", 3, base=None, url_template=None) == \
        "./javascript%3Awindow.__pwned%3D1#L3"
    assert source_href("//evil.example/x", 1, base=None, url_template=None) == ".///evil.example/x#L1"
    assert source_href("site/a b.html", 7, base="..", url_template=None) == "../site/a%20b.html#L7"
    assert source_href("site/a.html", 7, base=None, url_template="https://h/r/blob/main/{file}#L{line}") == \
        "https://h/r/blob/main/site/a.html#L7"


def test_diff_names_each_changed_part() -> None:
    old, new = old_and_new()
    d = compare(views(old), views(new))
    assert [t.name for t in d.added] == ["room_book"]
    assert [t.name for t in d.removed] == ["booking_cancel"]
    assert d.unchanged == ["room_list"]
    changes = {c.name: [(x.part, x.what, x.felt, x.old, x.new) for x in c.changes] for c in d.changed}
    assert changes["booking_create"] == [
        ("parameter guests", "maximum tightened", True, "10", "4"),
        ("parameter room", 'values removed: "double"', True, '["single","double"]', '["single"]'),
        ("parameter coupon", "new required parameter", True, "(absent)", "string; length at most 20 characters"),
        ("risk level", "risk level lowered: agents may call it with less care", True, "high", "low"),
        ("confirmation", "confirmation removed: the user is no longer asked before it runs", True, "true",
         "(absent)"),
        ("confirmation message", "confirmation message removed", False, "Sure?", "(absent)"),
    ]
    assert changes["site_search"] == [("description", "the description the model reads changed", False,
                                       "Do site_search.\nRisk level: high.", "Search the site, better.")]


# ---------------------------------------------------------------- CLI


def test_catalogue_command_writes_the_page(tmp_path: Path) -> None:
    write_json(tmp_path / "tools.json", document([tool("booking_create"), hostile_tool()]))
    (tmp_path / "out").mkdir()
    res = run_axag(["catalogue", "tools.json", "-o", "out/catalogue.html"], cwd=tmp_path)
    # a tools file that `axag guards` and `axag serve` reject is rejected here too; the page of
    # hostile tools is rendered from the library, as the command would
    assert res.exit_code == 2 and "tools.json is not a valid MCP tools file" in res.stderr, res.output
    from axag.catalogue.render import catalogue_pieces

    pieces = catalogue_pieces(document([tool("booking_create"), hostile_tool()]), source="tools.json",
                              base="..", url_template=None)
    (tmp_path / "out" / "catalogue.html").write_text("".join(pieces), encoding="utf-8")
    page = (tmp_path / "out" / "catalogue.html").read_text(encoding="utf-8")
    tree = lxml_html.fromstring(page)
    assert len(tree.xpath("//article[contains(@class,'tool')]")) == 2
    assert not tree.xpath("//script[not(@type)][contains(., '__pwned')]")
    assert not tree.xpath("//*[@onerror or @onload]")
    hrefs = tree.xpath("//a/@href")
    assert not [h for h in hrefs if ":" in h.split("#")[0] and not h.startswith("#")]
    assert "../site/booking.html#L12" in hrefs
    text = tree.text_content()
    assert HOSTILE_VALUE in text and HOSTILE_ATTR in text
    write_json(tmp_path / "tools.json", document([tool("booking_create")]))
    assert run_axag(["catalogue", "tools.json", "-o", "c.html"], cwd=tmp_path).exit_code == 0
    assert run_axag(["catalogue", "tools.json"], cwd=tmp_path).stdout == (tmp_path / "c.html").read_text("utf-8")


def test_catalogue_diff_command(tmp_path: Path) -> None:
    old, new = old_and_new()
    write_json(tmp_path / "old.json", old)
    write_json(tmp_path / "new.json", new)
    res = run_axag(["catalogue", "old.json", "new.json", "-o", "diff.html"], cwd=tmp_path)
    assert res.exit_code == 0, res.output
    tree = lxml_html.fromstring((tmp_path / "diff.html").read_text(encoding="utf-8"))
    counts = {td.get("data-count"): int(td.text) for td in tree.xpath("//td[@data-count]")}
    assert counts == {"added": 1, "removed": 1, "changed": 2, "unchanged": 1, "felt": 6}
    felt_rows = [tr.xpath("./th")[0].text_content() for tr in tree.xpath("//tr[@data-felt='1']")]
    assert felt_rows == ["parameter guests", "parameter room", "parameter coupon", "risk level", "confirmation"]


@pytest.mark.parametrize("content, message", [
    ("{", "cannot read tools file"), ('{"tools": 3}', "is not a tools document"), ("[]", "is not a tools document")])
def test_catalogue_bad_input_exits_2(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "t.json").write_text(content, encoding="utf-8")
    res = run_axag(["catalogue", "t.json", "-o", "c.html"], cwd=tmp_path)
    assert res.exit_code == 2 and message in res.output
    assert not (tmp_path / "c.html").exists()


def test_catalogue_options_are_checked(tmp_path: Path) -> None:
    write_json(tmp_path / "t.json", document([]))
    assert run_axag(["catalogue", "t.json", "t.json", "t.json"], cwd=tmp_path).exit_code == 2
    res = run_axag(["catalogue", "t.json", "--source-url", "javascript:alert(1)//{file}"], cwd=tmp_path)
    assert res.exit_code == 2 and "--source-url" in res.output


def test_compile_catalogue(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "b.html").write_text(
        '<button axag-intent="booking.create" axag-action-type="write" axag-description="Book."'
        ' axag-risk-level="low" axag-required-parameters=\'[{"name":"guests","type":"integer","max":4}]\'>'
        "Book</button>\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    res = run_axag(["compile", "--isolated", "site", "-o", "tools.json", "--catalogue", "docs/cat.html"],
                   cwd=tmp_path)
    assert res.exit_code == 0, res.output
    page = (tmp_path / "docs" / "cat.html").read_text(encoding="utf-8")
    assert page == run_axag(["catalogue", "tools.json", "-o", "-"], cwd=tmp_path).stdout.replace(
        'href="./site/', 'href="../site/')
    tree = lxml_html.fromstring(page)
    assert tree.xpath("//pre[contains(@class,'description')]")[0].text_content() == \
        json.loads((tmp_path / "tools.json").read_text())["tools"][0]["description"]
    assert tree.xpath("//table[@class='params']//td")[2].text_content() == "at most 4"
    # --check writes nothing, the page included
    (tmp_path / "docs" / "cat.html").unlink()
    res = run_axag(["compile", "--isolated", "site", "-o", "tools.json", "--check", "--catalogue", "docs/cat.html"],
                   cwd=tmp_path)
    assert res.exit_code == 0 and not (tmp_path / "docs" / "cat.html").exists()


def test_html_without_javascript_shows_the_first_findings_and_says_so() -> None:
    from axag.report.html import NOSCRIPT_LIMIT

    tree = lxml_html.fromstring(render("html", big_run(NOSCRIPT_LIMIT + 50)))
    assert len(tree.xpath("//ol[@id='findings']/li")) == NOSCRIPT_LIMIT
    note = tree.xpath("//p[@id='truncated']")[0].text_content()
    assert note.startswith(f"The first {NOSCRIPT_LIMIT} of {NOSCRIPT_LIMIT + 50} findings are shown here")
    assert len(_payload(render("html", big_run(NOSCRIPT_LIMIT + 50)))["findings"]) == NOSCRIPT_LIMIT + 50  # type: ignore[arg-type]


def test_lint_html_to_stdout(tmp_path: Path) -> None:
    tree = lint_tree(tmp_path / "site")
    res = run_axag(["lint", "--isolated", "ok.html", "--output-format", "html"], cwd=tree)
    assert res.exit_code == 1 and res.stdout.startswith("<!DOCTYPE html>") and res.stdout.endswith("</html>\n")


def test_http_binding_rows() -> None:
    from axag.catalogue.model import http_rows
    from axag.catalogue.render import catalogue_pieces

    form = {"method": "POST", "action": "/book", "enctype": "application/x-www-form-urlencoded",
            "fields": {"check_in": "checkin", "guests": "n"}, "constants": [["csrf", "abc"], ["v", 2]],
            "checkbox": {"news": "on"}, "refresh": True, "page": "booking.html"}
    assert http_rows(form) == [
        ("Method", "POST"), ("Action URL", "/book"), ("Encoding", "application/x-www-form-urlencoded"),
        ("Form page", "booking.html"), ("Fields", "check_in → checkin; guests → n"),
        ("Constants", "csrf = abc; v = 2"), ("Checkboxes", "news: on"), ("Refreshes tokens", "yes")]
    assert http_rows({"openapi": {"operationId": "book", "path": "/b"}}) == \
        [("OpenAPI operation", '{"operationId":"book","path":"/b"}')]
    page = "".join(catalogue_pieces(
        document([{**tool("a_b"), "_meta": {"org.axag/action": {}, "org.axag/http": form}}]), source="t.json"))
    cells = lxml_html.fromstring(page).xpath("//table[@class='http']//td")
    assert [c.text_content() for c in cells][:2] == ["POST", "/book"]
    assert "HTTP binding" not in "".join(catalogue_pieces(
        document([tool("a_b")]), source="t.json"))
