"""Suppression comments (suppression comments)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from axag.files.spans import LineIndex
from axag.lint.suppress import (
    DISABLE,
    DISABLE_FILE,
    ENABLE,
    NEXT_LINE,
    BadDirective,
    CodeRef,
    Directive,
    Unused,
    apply,
    parse,
    removal_edit,
)
from axag.outcome.findings import Finding, Severity


def finding(text: str, code: int, needle: str, nth: int = 0) -> Finding:
    """A finding of ``code`` at the ``nth`` occurrence of ``needle`` in ``text``."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    idx = LineIndex(text)
    line, col = idx.position(start)
    end_line, end_col = idx.position(start + len(needle))
    return Finding(code, Severity.ERROR, "m", "f.html", line, col, end_line, end_col, start=start,
                   end=start + len(needle))


def codes(found: list[Finding]) -> list[tuple[int, int]]:
    return [(f.code, f.line) for f in found]


def apply_edit(text: str, edit: tuple[int, int, str]) -> str:
    start, end, content = edit
    return text[:start] + content + text[end:]


# ---------------------------------------------------------------- parse


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("<!-- axag-disable-next-line AXAG-LINT-006 -- reason here -->", "html"),
        ("<!--axag-disable-next-line 006 -- reason here-->", "html"),
        ("{# axag-disable-next-line 6 -- reason here #}", "jinja"),
        ("{#- axag-disable-next-line high-risk-without-confirmation -- reason here -#}", "jinja"),
        ("{{!-- axag-disable-next-line AXAG-LINT-006 -- reason here --}}", "hbs"),
        ("{{! axag-disable-next-line 006 -- reason here }}", "hbs"),
        ("{% comment %} axag-disable-next-line 006 -- reason here {% endcomment %}", "liquid"),
        ("{%- comment -%}axag-disable-next-line 006 -- reason here{%- endcomment -%}", "liquid"),
        ("<!-- axag-disable-next-line 006 -- reason here -->", "jinja"),  # HTML comments in every kind
    ],
)
def test_directive_forms(text: str, kind: str) -> None:
    sup = parse(text + "\n<button>x</button>\n", kind)
    assert sup.problems == ()
    [d] = sup.directives
    assert (d.kind, [r.code for r in d.codes], d.reason, d.start, d.end) == (NEXT_LINE, [6], "reason here", 0, len(text))
    assert (d.line, d.end_line, d.target_line) == (1, 1, 2)


def test_engine_comments_only_in_their_kind() -> None:
    text = "{# axag-disable-file 006 #}\n{{! axag-disable-file 007 }}\n{% comment %}axag-disable-file 001{% endcomment %}\n"
    assert parse(text, "html").directives == ()
    assert [d.codes[0].code for d in parse(text, "jinja").directives] == [6]
    assert [d.codes[0].code for d in parse(text, "hbs").directives] == [7]
    assert [d.codes[0].code for d in parse(text, "liquid").directives] == [1]


def test_code_lists_and_positions() -> None:
    text = "<p>\n<!-- axag-disable AXAG-LINT-006, 7 missing-intent,,100 -->\n"
    [d] = parse(text, "html").directives
    assert d.kind == DISABLE and d.reason == "" and d.line == 2
    assert [(r.code, text[r.start : r.end]) for r in d.codes] == [
        (6, "AXAG-LINT-006"), (7, "7"), (1, "missing-intent"), (100, "100"),
    ]


def test_other_comments_are_ignored() -> None:
    text = "<!-- hello axag-disable 006 -->\n<!-- -->\n<!---->\n<!-- axag-disable 6"
    assert parse(text, "html") == parse("", "html")


def test_multiline_comment_target_line() -> None:
    text = "<!--\n  axag-disable-next-line 006\n  -- long\n  reason\n-->\n\n   \n<button\n  x>\n"
    [d] = parse(text, "html").directives
    assert (d.line, d.end_line, d.target_line, d.reason) == (1, 5, 8, "long\n  reason")


def test_problems() -> None:
    text = (
        "<!-- axag-disable-next-line -->\n"
        "<!-- axag-disable -- only a reason -->\n"
        "<!-- axag-disable-line 006 -->\n"
        "<!-- axag-disable 006, AXAG-LINT-999, missing-intnt -->\n"
        "<!-- axag-disable-file 191 -->\n"
        "<!-- axag-frobnicate 006 -->\n"
    )
    sup = parse(text, "html")
    assert [(p.problem, p.line, p.column, text[p.start : p.end]) for p in sup.problems] == [
        ('"axag-disable-next-line" has no codes', 1, 1, "<!-- axag-disable-next-line -->"),
        ('"axag-disable" has no codes', 2, 1, "<!-- axag-disable -- only a reason -->"),
        ('uses unknown directive "axag-disable-line"; did you mean "axag-disable-file"?', 3, 6, "axag-disable-line"),
        ('names unknown rule "AXAG-LINT-999"', 4, 24, "AXAG-LINT-999"),
        ('names unknown rule "missing-intnt"; did you mean "missing-intent"?', 4, 39, "missing-intnt"),
        ("cannot disable AXAG-LINT-191", 5, 24, "191"),
    ]
    # a comment word that does not look like a suppression attempt is prose, not a malformed directive
    assert parse("<!-- axag-highlight-start -->\n<!-- axag-frobnicate 006 -->\n", "html").problems == ()
    # the valid code of a partly malformed directive still works
    assert [(d.kind, [r.code for r in d.codes]) for d in sup.directives] == [(DISABLE, [6])]
    assert isinstance(sup.problems[0], BadDirective)


# ---------------------------------------------------------------- apply


def test_next_line_on_multiline_start_tag() -> None:
    text = (
        "<!-- axag-disable-next-line 006 -- checked by hand -->\n"
        "\n"
        "<button axag-intent=\"a.b\"\n"
        "        axag-risk-level=\"high\">Go</button>\n"
        "<button axag-intent=\"c.d\" axag-risk-level=\"high\">Go</button>\n"
    )
    on_tag_line = finding(text, 6, "<button")  # line 3
    later_line = finding(text, 6, 'axag-risk-level="high"')  # line 4, element starts on line 3
    other_code = finding(text, 1, 'axag-risk-level="high"')
    next_element = finding(text, 6, "<button", 1)  # line 5
    fs = [on_tag_line, later_line, other_code, next_element]
    kept, suppressed, unused = apply(fs, parse(text, "html"), element_start_lines=[3, 3, 3, 5])
    assert codes(kept) == [(1, 4), (6, 5)]
    assert codes(suppressed) == [(6, 3), (6, 4)]
    assert all(f.suppression == "inSource" and f.justification == "checked by hand" for f in suppressed)
    assert unused == []
    # without element start lines only the finding located on the line is suppressed
    kept, suppressed, _ = apply(fs, parse(text, "html"))
    assert codes(suppressed) == [(6, 3)]


def test_disable_enable_ranges() -> None:
    text = (
        "<a x>\n"  # 1
        "<!-- axag-disable 006, 7 -- legacy -->\n"  # 2
        "<a x>\n"  # 3
        "<a x><!-- axag-enable 006 --><a x>\n"  # 4
        "<a x>\n"  # 5
    )
    fs = [finding(text, code, "<a x>", n) for n in range(5) for code in (6, 7)]
    kept, suppressed, unused = apply(fs, parse(text, "html"))
    assert codes(suppressed) == [(6, 3), (7, 3), (6, 4), (7, 4), (7, 4), (7, 5)]
    assert codes(kept) == [(6, 1), (7, 1), (6, 4), (6, 5)]
    assert {f.justification for f in suppressed} == {"legacy"}
    assert unused == []


def test_unclosed_disable_runs_to_end_of_file() -> None:
    text = "<a x>\n<!-- axag-disable 006 -->\n\n<a x>\n<a x>\n"
    fs = [finding(text, 6, "<a x>", n) for n in range(3)]
    kept, suppressed, _ = apply(fs, parse(text, "html"))
    assert codes(kept) == [(6, 1)]
    assert codes(suppressed) == [(6, 4), (6, 5)]
    assert suppressed[0].justification == ""


def test_disable_file() -> None:
    text = "<a x>\n<a x>\n<!-- axag-disable-file missing-intent -- generated -->\n"
    fs = [finding(text, 1, "<a x>", 0), finding(text, 6, "<a x>", 1), finding(text, 1, "<a x>", 1)]
    kept, suppressed, unused = apply(fs, parse(text, "html"))
    assert codes(kept) == [(6, 2)]
    assert codes(suppressed) == [(1, 1), (1, 2)]
    assert suppressed[0].justification == "generated"
    assert unused == []


def test_most_specific_reason_and_all_covering_directives_used() -> None:
    text = "<!-- axag-disable-file 006 -- file -->\n<!-- axag-disable-next-line 006 -- line -->\n<a x>\n"
    [f] = [finding(text, 6, "<a x>")]
    kept, suppressed, unused = apply([f], parse(text, "html"))
    assert kept == [] and suppressed[0].justification == "line" and unused == []


def test_undisableable_findings_are_kept() -> None:
    text = "<!-- axag-disable-file 006 -->\n<a x>\n"
    f191 = finding(text, 191, "<a x>")
    kept, suppressed, _ = apply([f191], parse(text, "html"))
    assert kept == [f191] and suppressed == []


# ---------------------------------------------------------------- unused (133) and its fix


def test_unused_detection_respects_rules_that_ran() -> None:
    text = "<!-- axag-disable-next-line 006, 007, 100 -->\n<a x>\n"
    f = finding(text, 7, "<a x>")
    _, suppressed, unused = apply([f], parse(text, "html"), ran={6, 7})
    assert codes(suppressed) == [(7, 2)]
    assert [(u.code, text[u.start : u.end], u.index) for u in unused] == [(6, "006", 0)]
    _, _, unused = apply([f], parse(text, "html"))
    assert [u.code for u in unused] == [6, 100]
    assert all(isinstance(u, Unused) for u in unused)


def test_enable_is_never_unused() -> None:
    text = "<!-- axag-enable 006 -->\n<a x>\n"
    assert apply([], parse(text, "html")) == ([], [], [])


def test_removal_edit_whole_comment() -> None:
    text = "<p>\n  <!-- axag-disable-next-line 006 -- why -->\n<a x>\n"
    _, _, [u] = apply([], parse(text, "html"))
    start, end, content = removal_edit(u)
    assert text[start:end] == "<!-- axag-disable-next-line 006 -- why -->" and content == ""
    assert apply_edit(text, removal_edit(u)) == "<p>\n  \n<a x>\n"


@pytest.mark.parametrize(
    ("comment", "used", "expected"),
    [
        ("<!-- axag-disable-file 006, 007 -->", {7}, "<!-- axag-disable-file 007 -->"),
        ("<!-- axag-disable-file 006, 007 -->", {6}, "<!-- axag-disable-file 006 -->"),
        ("<!-- axag-disable-file 006 007 100 -- r -->", {6}, "<!-- axag-disable-file 006 -- r -->"),
        ("<!-- axag-disable-file 006 007 100 -- r -->", {100}, "<!-- axag-disable-file 100 -- r -->"),
        ("<!-- axag-disable-file 006,007,100 -->", {7}, "<!-- axag-disable-file 007 -->"),
        ("<!-- axag-disable-file 006, 007, 100 -->", {6, 100}, "<!-- axag-disable-file 006, 100 -->"),
        ("<!-- axag-disable-file 006, 007 -->", set(), ""),
        ("{# axag-disable-file 006, 007 #}", {7}, "{# axag-disable-file 007 #}"),
    ],
)
def test_removal_edits_of_one_directive_do_not_overlap(comment: str, used: set[int], expected: str) -> None:
    text = comment + "\n<a x>\n"
    fs = [finding(text, code, "<a x>") for code in sorted(used)]
    _, _, unused = apply(fs, parse(text, "jinja"))
    edits = sorted((removal_edit(u) for u in unused), reverse=True)
    assert all(a[0] >= b[1] or a == b for a, b in pairwise(edits))
    for edit in dict.fromkeys(edits):
        text = apply_edit(text, edit)
    assert text == expected + "\n<a x>\n"


def test_fixed_directive_parses_clean() -> None:
    text = "<!-- axag-disable 006, 007 -->\n<a x>\n<!-- axag-enable 006, 007 -->\n"
    f = finding(text, 7, "<a x>")
    _, _, [u] = apply([f], parse(text, "html"))
    fixed = apply_edit(text, removal_edit(u))
    assert fixed == "<!-- axag-disable 007 -->\n<a x>\n<!-- axag-enable 006, 007 -->\n"
    sup = parse(fixed, "html")
    assert sup.problems == ()
    assert apply([finding(fixed, 7, "<a x>")], sup)[2] == []


def test_dataclasses_are_plain_data() -> None:
    d = Directive(DISABLE_FILE, (CodeRef(6, 1, 2),), "", 0, 5, 1, 1)
    assert d.target_line is None and ENABLE == "axag-enable"
