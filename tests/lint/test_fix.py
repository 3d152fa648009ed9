"""`axag lint --fix` / `--diff` (lint options, fixes): golden fixes, idempotence, byte preservation, encodings,
stdin, permissions, verification, and the AXAG docs corpus.

Golden cases live in ``fixtures/fix/<case>/``: ``input.<ext>`` is fixed in a temporary directory and must give
``expected.<ext>`` byte for byte. Rerun with ``AXAG_UPDATE_GOLDENS=1`` to rewrite the expected files.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from axag.cli.group import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "fix"
# Known defects outside the fix applier, kept with their correct expected output (strict: fixing them fails here).
KNOWN: dict[str, str] = {}
NAMES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()) if FIXTURES.is_dir() else []
CASES = [pytest.param(c, marks=pytest.mark.xfail(reason=KNOWN[c], strict=True)) if c in KNOWN else c for c in NAMES]
UPDATE = bool(os.environ.get("AXAG_UPDATE_GOLDENS"))


def run(args: list[str], cwd: Path, stdin: bytes | None = None) -> tuple[int, bytes, bytes]:
    """Run the CLI in ``cwd``; returns (exit code, stdout bytes, stderr bytes)."""
    runner = CliRunner()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        res = runner.invoke(main, ["lint", "--isolated", "-j", "1", *args], input=stdin, catch_exceptions=False)
    finally:
        os.chdir(old)
    return res.exit_code, res.stdout_bytes, res.stderr_bytes or b""


def case_files(case: str) -> tuple[Path, Path]:
    d = FIXTURES / case
    inp = next(d.glob("input.*"))
    return inp, d / ("expected" + inp.suffix)


# ---------------------------------------------------------------------------------------------- helpers
_COMMENT_OR_TAG = re.compile(r"<!--.*?-->|<([A-Za-z][^\s/>]*)", re.DOTALL)
_ATTR = re.compile(r"""[\s/]*([^\s/>=][^\s/>=]*)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]*))?""")
_DAMAGE = set("\"'[]{},:")


def decode(data: bytes) -> str:
    if data.startswith(b"\xff\xfe"):
        return data[2:].decode("utf-16-le")
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8")
    m = re.search(rb"charset=\"?([A-Za-z0-9_-]+)", data[:1024])
    return data.decode(m.group(1).decode() if m else "utf-8")


def outside_annotations(text: str) -> str:
    """``text`` without annotation attributes (nor the damaged-value fragments quoting damage removes) and without
    suppression comments; whitespace between the attributes of an annotated start tag is normalised."""
    out: list[str] = []
    pos = 0
    for m in _COMMENT_OR_TAG.finditer(text):
        if m.group(1) is None:
            if "axag-" in m.group(0):
                out.append(text[pos:m.start()])
                pos = m.end()
            continue
        out.append(text[pos:m.end()])
        p = m.end()
        kept: list[str] = []
        annotated = False
        while p < len(text) and text[p] != ">":
            a = _ATTR.match(text, p)
            if a is None or a.end() == p:
                break
            name = a.group(1)
            if name is None:
                break
            low = name.lower()
            if low == "axag" or low.startswith("axag-") or set(name) & _DAMAGE:
                annotated = True
            else:
                kept.append(text[a.start(1):a.end()])
            p = a.end()
        close = text.find(">", p)
        close = len(text) - 1 if close < 0 else close
        if annotated:
            out.append("".join(" " + k for k in kept) + re.sub(r"\s+", "", text[p:close + 1]))
        else:
            out.append(text[m.end():close + 1])
        pos = close + 1
    out.append(text[pos:])
    return "".join(out)


def fix_case(tmp: Path, case: str) -> tuple[Path, bytes]:
    inp, _ = case_files(case)
    target = tmp / ("page" + inp.suffix)
    shutil.copyfile(inp, target)
    return target, inp.read_bytes()


# ---------------------------------------------------------------------------------------------- goldens
@pytest.mark.parametrize("case", CASES)
def test_fix_golden(case: str, tmp_path: Path) -> None:
    target, original = fix_case(tmp_path, case)
    code, _out, _err = run(["--fix", "--exit-zero", target.name], tmp_path)
    assert code == 0
    fixed = target.read_bytes()
    _, expected_path = case_files(case)
    if UPDATE and case not in KNOWN:
        expected_path.write_bytes(fixed)
    assert fixed == expected_path.read_bytes()
    if "not-migratable" not in case:
        assert fixed != original, "every golden case fixes something"
    # idempotent: nothing more to fix, nothing in the diff
    code, out, _ = run(["--diff", target.name], tmp_path)
    assert (code, out) == (0, b"")
    code, _, _ = run(["--fix", "--exit-zero", target.name], tmp_path)
    assert target.read_bytes() == fixed
    # every byte outside annotation attributes (and suppression comments) is kept
    assert outside_annotations(decode(fixed)) == outside_annotations(decode(original))


@pytest.mark.parametrize("case", NAMES)
def test_fix_leaves_no_fixable_finding(case: str, tmp_path: Path) -> None:
    """The fixed file lints without the fixed findings: nothing fixable remains."""
    target, _ = fix_case(tmp_path, case)
    run(["--fix", "--exit-zero", target.name], tmp_path)
    _code, out, _ = run(["--output-format", "concise", "--exit-zero", target.name], tmp_path)
    assert b" [*] " not in out
    assert b"(0 fixable with --fix)" in out or b"All checks passed." in out


def test_fix_reports_what_remains(tmp_path: Path) -> None:
    target, _ = fix_case(tmp_path, "004-invalid-action-type")
    code, out, _ = run(["--fix", "--output-format", "concise", target.name], tmp_path)
    assert out.decode() == (
        'page.html:1:2: AXAG-LINT-138 "report.view" has no axag-description; the tool will say "Report View."\n'
        'page.html:1:2: AXAG-LINT-151 "report.view" has no HTTP binding: no form submits it and it is not a '
        "navigate link (<a href>); axag serve runs it only with a handler (--handlers) or an OpenAPI operation "
        "(axag-operation-id with --openapi)\n"
        "Fixed 1 finding.\n"
        "Found 0 errors, 1 warning, 1 info (0 fixable with --fix).\n"
    )
    assert code == 0


# ---------------------------------------------------------------------------------------------- --diff
def test_diff_prints_unified_diff_and_writes_nothing(tmp_path: Path) -> None:
    target, original = fix_case(tmp_path, "006-confirmation-one-per-line")
    code, out, _ = run(["--diff", target.name], tmp_path)
    assert code == 1
    assert out.decode() == (
        "--- a/page.html\n"
        "+++ b/page.html\n"
        "@@ -4,6 +4,7 @@\n"
        "     axag-intent=\"account.close\"\n"
        "     axag-action-type=\"delete\"\n"
        "     axag-risk-level=\"critical\"\n"
        "+    axag-confirmation-required=\"true\"\n"
        "     axag-idempotent=\"true\"\n"
        "   >Close account</button>\n"
        " </section>\n"
    )
    assert target.read_bytes() == original


def test_diff_exit_zero_when_nothing_changes(tmp_path: Path) -> None:
    (tmp_path / "clean.html").write_text('<button axag-intent="a.b" axag-action-type="read">x</button>\n')
    code, out, _ = run(["--diff", "clean.html"], tmp_path)
    assert (code, out) == (0, b"")


def test_diff_lists_every_changed_file_in_path_order(tmp_path: Path) -> None:
    for name in ("b.html", "a.html"):
        (tmp_path / name).write_text('<button axag-intent="a.b" axag-action-type="Read">x</button>\n')
    (tmp_path / "c.html").write_text('<button axag-intent="a.b" axag-action-type="read">x</button>\n')
    code, out, _ = run(["--diff", "."], tmp_path)
    assert code == 1
    text = out.decode()
    assert re.findall(r"^\+\+\+ b/(\S+)$", text, re.MULTILINE) == ["a.html", "b.html"]
    assert (tmp_path / "a.html").read_text().count("Read") == 1


def test_diff_marks_missing_final_newline(tmp_path: Path) -> None:
    (tmp_path / "p.html").write_bytes(b'<button axag-intent="a.b" axag-action-type="Read">x</button>')
    code, out, _ = run(["--diff", "p.html"], tmp_path)
    assert code == 1
    assert out.decode().endswith(
        '-<button axag-intent="a.b" axag-action-type="Read">x</button>\n\\ No newline at end of file\n'
        '+<button axag-intent="a.b" axag-action-type="read">x</button>\n\\ No newline at end of file\n'
    )


# ---------------------------------------------------------------------------------------------- stdin
def test_stdin_fix_writes_only_the_fixed_content(tmp_path: Path) -> None:
    inp, expected = case_files("103-legacy-action-type")
    code, out, err = run(["--fix", "--output-format", "concise", "--stdin-filename", "page.html", "-"], tmp_path,
                         stdin=inp.read_bytes())
    assert out == expected.read_bytes()
    assert b"Fixed 2 findings." in err
    assert code == 1  # errors remain (023)
    assert list(tmp_path.iterdir()) == []


def test_stdin_fix_reports_on_stderr_by_default(tmp_path: Path) -> None:
    data = b'<button axag-intent="a.b" axag-action-type="Read" axag-description="x">x</button>\n'
    code, out, err = run(["--fix", "--stdin-filename", "page.html", "-"], tmp_path, stdin=data)
    assert out == data.replace(b"Read", b"read")
    assert err.decode().splitlines()[-2:] == ["Fixed 1 finding.",
                                              "Found 0 errors, 0 warnings, 1 info (0 fixable with --fix)."]  # 151
    assert code == 0


def test_value_with_a_less_than_sign_before_the_edit(tmp_path: Path) -> None:
    (tmp_path / "p.html").write_text('<button axag-description="when a <b or c" axag-intent="a.b" '
                                     'axag-action-type="Read">x</button>\n')
    _code, out, _ = run(["--fix", "--output-format", "concise", "p.html"], tmp_path)
    assert 'axag-action-type="read"' in (tmp_path / "p.html").read_text()
    assert b"AXAG-LINT-199" not in out


def test_stdin_fix_keeps_the_encoding(tmp_path: Path) -> None:
    inp, expected = case_files("105-latin1")
    _code, out, _ = run(["--fix", "--stdin-filename", "page.html", "-"], tmp_path, stdin=inp.read_bytes())
    assert out == expected.read_bytes()


def test_stdin_fix_without_fixes_echoes_the_input(tmp_path: Path) -> None:
    data = b'<button axag-intent="a.b" axag-action-type="read">x</button>\n'
    code, out, _ = run(["--fix", "--stdin-filename", "page.html", "-"], tmp_path, stdin=data)
    assert (code, out) == (0, data)


def test_stdin_diff(tmp_path: Path) -> None:
    data = b'<button axag-intent="a.b" axag-action-type="Read">x</button>\n'
    code, out, _ = run(["--diff", "--stdin-filename", "sub/page.html", "-"], tmp_path, stdin=data)
    assert code == 1
    assert out.decode() == (
        "--- a/sub/page.html\n+++ b/sub/page.html\n@@ -1 +1 @@\n"
        '-<button axag-intent="a.b" axag-action-type="Read">x</button>\n'
        '+<button axag-intent="a.b" axag-action-type="read">x</button>\n'
    )


# ---------------------------------------------------------------------------------------------- encodings
def test_unrepresentable_replacement_leaves_the_file_alone(tmp_path: Path) -> None:
    """A latin-1 file whose fix needs a character latin-1 lacks (the euro sign of `&euro;`) is not fixed."""
    data = ('<meta charset="iso-8859-1"><p>Caf\u00e9</p>\n<button axag-intent="a.b" axag-action-type="Read" '
            'axag-side-effects=\'["paid &euro;","paid &euro;"]\'>x</button>\n').encode("latin-1")
    (tmp_path / "p.html").write_bytes(data)
    _code, out, _ = run(["--fix", "--exit-zero", "--output-format", "concise", "p.html"], tmp_path)
    assert (tmp_path / "p.html").read_bytes() == data
    assert b"Fixed" not in out
    assert b"AXAG-LINT-144 [*]" in out


def test_replaced_bytes_are_never_fixed(tmp_path: Path) -> None:
    data = b'<p>caf\xe9</p>\n<button axag-intent="a.b" axag-action-type="Read">x</button>\n'
    (tmp_path / "p.html").write_bytes(data)
    code, out, _ = run(["--fix", "--exit-zero", "--output-format", "concise", "p.html"], tmp_path)
    assert (tmp_path / "p.html").read_bytes() == data
    assert b"AXAG-LINT-193" in out
    code, out, _ = run(["--diff", "p.html"], tmp_path)
    assert (code, out) == (0, b"")


def test_binary_files_are_skipped(tmp_path: Path) -> None:
    data = b'<button axag-intent="a.b" axag-action-type="Read">\x00</button>'
    (tmp_path / "p.html").write_bytes(data)
    _code, _, _ = run(["--fix", "--exit-zero", "p.html"], tmp_path)
    assert (tmp_path / "p.html").read_bytes() == data


# ---------------------------------------------------------------------------------------------- writing
@pytest.mark.parametrize("mode", [0o640, 0o755, 0o600])
def test_permissions_are_preserved(tmp_path: Path, mode: int) -> None:
    target, _ = fix_case(tmp_path, "005-invalid-risk-level")
    target.chmod(mode)
    run(["--fix", "--exit-zero", target.name], tmp_path)
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert target.read_bytes() == case_files("005-invalid-risk-level")[1].read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]  # no temporary file left


def test_fixes_only_the_named_files(tmp_path: Path) -> None:
    for name in ("a.html", "b.html"):
        (tmp_path / name).write_text('<button axag-intent="a.b" axag-action-type="Read">x</button>\n')
    run(["--fix", "--exit-zero", "a.html"], tmp_path)
    assert 'action-type="read"' in (tmp_path / "a.html").read_text()
    assert 'action-type="Read"' in (tmp_path / "b.html").read_text()


def test_only_selected_rules_are_fixed(tmp_path: Path) -> None:
    (tmp_path / "p.html").write_text('<button AXAG-INTENT="a.b" axag-action-type="Create">x</button>\n')
    run(["--fix", "--exit-zero", "--select", "103", "p.html"], tmp_path)
    assert (tmp_path / "p.html").read_text() == '<button AXAG-INTENT="a.b" axag-action-type="write">x</button>\n'


def test_macro_values_are_never_edited(tmp_path: Path) -> None:
    data = '<button axag="write:cart.clear?effects=a,a&req=n" axag-required-parameters=\'["n"]\'>x</button>\n'
    (tmp_path / "p.html").write_text(data)
    code, out, _ = run(["--diff", "p.html"], tmp_path)
    assert (code, out) == (0, b"")
    _code, out, _ = run(["--output-format", "concise", "--exit-zero", "p.html"], tmp_path)
    assert b"AXAG-LINT-144 " in out and b" [*] " not in out


def test_suppressed_findings_are_not_fixed(tmp_path: Path) -> None:
    data = ('<!-- axag-disable-next-line 103 -- migrating later -->\n'
            '<button axag-intent="a.b" axag-action-type="Create" axag-risk-level="LOW">x</button>\n')
    (tmp_path / "p.html").write_text(data)
    run(["--fix", "--exit-zero", "p.html"], tmp_path)
    assert (tmp_path / "p.html").read_text() == data.replace('"LOW"', '"low"')


# ---------------------------------------------------------------------------------------------- verification
def test_fix_keeps_a_template_construct_next_to_a_removed_attribute(tmp_path: Path) -> None:
    """Removing the repeated attribute keeps the `{# extra #}` before it: edits are computed on the original
    text, where the construct is not whitespace (it is blanked only for parsing). (An expression such as
    `{{ extra }}` there could write any attribute: it makes the annotations dynamic, dynamic values.)"""
    data = b'<button axag-intent="a.b" axag-action-type="read" {# extra #} axag-action-type="read">x</button>\n'
    (tmp_path / "p.jinja").write_bytes(data)
    code, out, _ = run(["--fix", "--output-format", "concise", "p.jinja"], tmp_path)
    assert (tmp_path / "p.jinja").read_bytes() == (
        b'<button axag-intent="a.b" axag-action-type="read" {# extra #}>x</button>\n')
    assert code != 2
    assert b"AXAG-LINT-199" not in out


def test_verification_rejects_an_edit_of_another_attribute(tmp_path: Path) -> None:
    """Library level: a fix that would rewrite a non-annotation attribute is refused (199, nothing written)."""
    from axag.api import check_files
    from axag.config.resolve import Resolver
    from axag.lint.engine import Request
    from axag.lint.fix import apply_fixes
    from axag.outcome.findings import Edit, Fix

    data = '<button class="big" axag-intent="a.b" axag-action-type="Read">x</button>\n'
    path = tmp_path / "p.html"
    path.write_text(data)
    resolver = Resolver(tmp_path, config=None, isolated=True)
    request = Request(mode="lint", keep_text=True)
    run_ = check_files([path], resolver, request, cwd=tmp_path)
    outcome = run_.outcomes[0]
    start = data.index("big")
    bad = Fix("Rewrite class", (Edit(start, start + 3, "small"),))
    outcome.findings = [replace(f, fix=bad) if f.code == 4 else f for f in outcome.findings]
    assert any(f.fix is bad for f in outcome.findings)
    fixed, diff, new_run = apply_fixes(run_, resolver, request, write=True, cwd=tmp_path)
    assert (fixed, diff) == (0, "")
    assert path.read_text() == data
    msgs = [f.message for f in new_run.findings() if f.code == 199]
    assert msgs == [('fix verification failed, the file was not changed: a fix would change the attribute '
                    '"class" of <button>')]
    assert new_run.internal_error


def test_verification_rejects_an_edit_outside_start_tags(tmp_path: Path) -> None:
    from axag.api import check_files
    from axag.config.resolve import Resolver
    from axag.lint.engine import Request
    from axag.lint.fix import apply_fixes
    from axag.outcome.findings import Edit, Fix

    data = '<p>hello</p><button axag-intent="a.b" axag-action-type="Read">x</button>\n'
    path = tmp_path / "p.html"
    path.write_text(data)
    resolver = Resolver(tmp_path, config=None, isolated=True)
    request = Request(mode="lint", keep_text=True)
    run_ = check_files([path], resolver, request, cwd=tmp_path)
    bad = Fix("Rewrite text", (Edit(3, 8, "bye"),))
    run_.outcomes[0].findings = [replace(f, fix=bad) if f.code == 4 else f for f in run_.outcomes[0].findings]
    _, _, new_run = apply_fixes(run_, resolver, request, write=True, cwd=tmp_path)
    assert path.read_text() == data
    assert [f.message for f in new_run.findings() if f.code == 199] == [
        "fix verification failed, the file was not changed: an edit at offset 3 lies outside every start tag"]


# ---------------------------------------------------------------------------------------------- corpus
def test_corpus_fix_is_mechanical_and_safe(tmp_path: Path) -> None:
    """Over the AXAG docs corpus: --fix repairs what is mechanical, every file still parses, nothing fixable
    remains, a second run changes nothing, and bytes outside annotation attributes are unchanged."""
    from lxml import etree

    from tests.conftest import shared_or_skip

    site = tmp_path / "site"
    shutil.copytree(shared_or_skip("corpus/axag-docs"), site)
    before = {p.name: p.read_bytes() for p in site.iterdir()}
    code, out, _ = run(["--fix", "--exit-zero", "--output-format", "concise", "site"], tmp_path)
    assert code == 0
    text = out.decode()
    assert re.search(r"^Fixed [1-9][0-9]* findings\.$", text, re.MULTILINE)
    assert " [*] " not in text
    assert "AXAG-LINT-199" not in text and "AXAG-LINT-192" not in text
    after = {p.name: p.read_bytes() for p in site.iterdir()}
    assert after.keys() == before.keys()
    changed = [n for n in before if before[n] != after[n]]
    assert changed
    parser = etree.HTMLParser(recover=True)
    for name in changed:
        assert etree.fromstring(after[name], parser) is not None, name
        assert outside_annotations(decode(after[name])) == outside_annotations(decode(before[name])), name
    code, out, _ = run(["--diff", "site"], tmp_path)
    assert (code, out) == (0, b"")


# ---------------------------------------------------------------------------------------------- property
_ATTRS = [
    'axag-action-type="Read"', "axag-action-type=create", 'axag-action-type=" delete "', 'axag-risk-level="HIGH"',
    'axag-risk-level="critical"', "axag-idempotent", 'axag-idempotent="Yes"', "axag-async='0'",
    'axag-scope="Tenant"', 'axag-tenant-boundary=" strict"', 'axag-rate-limit="5 per hour"',
    'axag-cooldown="10 Secs"', 'AXAG-Description="Do it"', 'axag-side-effects=\'["a","b","a"]\'',
    'axag-required-parameters=\'[{"name":"n","type":"int","minimum":"1"}]\'',
    'axag-optional-parameters=\'[{"name":"m","type":"date","required":true}]\'',
    'axag-constraints=\'{"n": {"maximum": 9}, "cap": "n <= 5", "x": "m ~ 1"}\'',
    'axag-preconditions=\'["n > 0","n > 0"]\'', 'class="keep me"', "data-x='1'", "disabled",
]


@given(attrs=st.lists(st.sampled_from(_ATTRS), min_size=1, max_size=8),
       layout=st.sampled_from([" ", "\n  ", "\r\n    "]), dup=st.booleans())
@settings(max_examples=60, deadline=None)
def test_fix_property(attrs: list[str], layout: str, dup: bool) -> None:
    """Random start tags: fixing never fails verification, keeps every byte outside annotation attributes, and a
    second run changes nothing."""
    import tempfile

    from axag.api import check_files
    from axag.config.resolve import Resolver
    from axag.lint.engine import Request
    from axag.lint.fix import fix_file

    if dup:
        attrs = [*attrs, attrs[0]]
    end = "\r\n" if "\r" in layout else "\n"
    text = f"<p>before</p>{end}<button axag-intent=\"cart.clear\"{layout}{layout.join(attrs)}>Go</button>{end}"
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        path = tmp / "p.html"
        path.write_text(text, newline="")
        resolver = Resolver(tmp, config=None, isolated=True)
        request = Request(mode="lint", keep_text=True)
        outcome = check_files([path], resolver, request, cwd=tmp).outcomes[0]
        result = fix_file(outcome, resolver.resolve(path), request)
        assert not result.outcome.internal_error, [f.message for f in result.outcome.findings if f.code == 199]
        if result.fixed is None:
            return
        assert outside_annotations(result.fixed.decode()) == outside_annotations(text)
        again = fix_file(result.outcome, resolver.resolve(path), request, result.fixed)
        assert again.fixed is None, again.new_text


@pytest.mark.parametrize(
    "value",
    [
        '[{"name": "qty", "type": "integer", "description": "How many <b>items</b> to add"}]',
        '[{"name": "qty", "description": "a > b and <i>c</i> <br> <b>d</b>"}]',
        '[{"name": "qty", "description": "<p>x</p>"}]',
    ],
)
def test_fix_with_markup_inside_a_json_value(tmp_path: Path, value: str) -> None:
    """A `<` or `>` inside an attribute value is no tag for the edit locator; the fix applies,
    only the edited value changes, and a second run changes nothing."""
    page = tmp_path / "p.html"
    html = ('<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low"\n'
            f"        axag-required-parameters='{value}'\n"
            '        axag-scope="User">Add</button>\n')
    page.write_text(html, encoding="utf-8")
    _code, out, _ = run(["--fix", "p.html"], tmp_path)
    assert b"AXAG-LINT-199" not in out
    assert page.read_text(encoding="utf-8") == html.replace('axag-scope="User"', 'axag-scope="user"')
    run(["--fix", "p.html"], tmp_path)
    assert page.read_text(encoding="utf-8") == html.replace('axag-scope="User"', 'axag-scope="user"')
