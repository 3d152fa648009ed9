"""`axag compile` through the CLI (the tools.json output and its tool objects): the tools.json example, the corpus, duplicates, determinism, writing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO, run_axag, shared_or_skip


def compile_to(cwd: Path, *args: str) -> tuple[int, str, str]:
    res = run_axag(["compile", "--isolated", *args], cwd=cwd)
    return res.exit_code, res.stdout, res.stderr


def test_spec_9_7_example_compiles_to_the_tool_shown() -> None:
    code, out, _ = compile_to(FIXTURES / "spec", "site/booking.html", "-o", "-")
    assert code == 0
    doc = json.loads(out)
    expected = json.loads((FIXTURES / "spec" / "booking_tool.json").read_text(encoding="utf-8"))
    assert doc["tools"] == [expected]
    assert list(doc) == ["$schema", "axag", "generator", "tools"]
    assert doc["$schema"] == "https://axag.org/schema/tools/v2/tools.schema.json"
    assert doc["axag"] == "1.1"
    assert out.endswith("}\n") and not out.endswith("\n\n")


def test_spec_9_7_example_lints_clean() -> None:
    # (its cancel button is no form's: 151, an info, has its own tests)
    res = run_axag(["lint", "--isolated", "--ignore", "unbound-action", "site/booking.html"], cwd=FIXTURES / "spec")
    assert res.exit_code == 0
    assert res.stdout == "All checks passed.\n"


def test_self_check_validates_every_target(tmp_path: Path) -> None:
    for target in ("mcp", "openai", "openai-responses", "anthropic", "manifest"):
        code, out, err = compile_to(FIXTURES / "site", ".", "--target", target, "--self-check", "-o", "-")
        assert code == 0, err
        assert json.loads(out)


def test_every_emitted_document_validates_with_jsonschema(tmp_path: Path) -> None:
    from axag.compile.validate import self_check

    for target in ("mcp", "openai", "openai-responses", "anthropic", "manifest"):
        _, out, _ = compile_to(FIXTURES / "site", ".", "--target", target, "-o", "-")
        assert self_check(json.loads(out), target) == []


def test_form_controls_compile_to_their_schemas(tmp_path: Path) -> None:
    (tmp_path / "f.html").write_text(
        '<form axag-intent="signup.create" axag-action-type="write" axag-risk-level="low" axag-idempotent="false"'
        ' axag-side-effects=\'["account_created"]\' axag-description="Create an account">\n'
        '  <label for="e">Email</label><input id="e" name="email" type="email" required>\n'
        '  <label for="n">Seats</label><input id="n" name="seats" type="number" min="1" max="9" step="1">\n'
        '  <label for="p">Plan</label><select id="p" name="plan"><option value="free">Free</option>'
        '<option value="pro">Pro</option></select>\n'
        '  <label><input type="checkbox" name="terms" required> I accept</label>\n'
        '  <label for="s">Start</label><input id="s" name="start" type="datetime-local">\n'
        '  <input type="hidden" name="csrf" value="x">\n'
        '  <button type="submit">Sign up</button>\n'
        '</form>\n', encoding="utf-8")
    code, out, err = compile_to(tmp_path, "f.html", "-o", "-")
    assert code == 0, err
    tool = json.loads(out)["tools"][0]
    assert tool["inputSchema"]["properties"] == {
        "email": {"type": "string", "description": "Email", "format": "email", "pattern": "^[^\\r\\n]*$"},
        "terms": {"type": "boolean", "description": "I accept", "const": True},
        "seats": {"type": "integer", "description": "Seats", "minimum": 1, "maximum": 9},
        "plan": {"type": "string", "description": "Plan", "enum": ["free", "pro"]},
        "start": {"type": "string",
                  "description": "Start. Local date and time without time zone, as YYYY-MM-DDTHH:MM or "
                                 "YYYY-MM-DDTHH:MM:SS.",
                  "pattern": "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]"
                             "(:[0-5][0-9](\\.[0-9]{1,3})?)?$"},
    }
    assert tool["inputSchema"]["required"] == ["email", "terms"]
    assert "csrf" not in tool["inputSchema"]["properties"]


def test_duplicate_intent_with_different_risk_fails_and_keeps_output(tmp_path: Path) -> None:
    button = ('<button type="button" axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="{r}" '
              'axag-idempotent="true" axag-description="Empty the cart">Clear</button>\n')
    (tmp_path / "a.html").write_text(button.format(r="high"), encoding="utf-8")
    (tmp_path / "b.html").write_text("<p>b</p>\n" + button.format(r="low"), encoding="utf-8")
    out = tmp_path / "tools.json"
    out.write_bytes(b'{"old": true}\n')
    code, _, _ = compile_to(tmp_path, ".", "-o", "tools.json", "--output-format", "concise")
    assert code == 1
    assert out.read_bytes() == b'{"old": true}\n'
    res = run_axag(["compile", "--isolated", ".", "-o", "tools.json", "--output-format", "json"], cwd=tmp_path)
    findings = [f for f in json.loads(res.stdout)["findings"] if f["code"] == "AXAG-LINT-121"]
    assert [(f["path"], f["line"], f["column"]) for f in findings] == [("b.html", 2, 2)]
    assert findings[0]["message"] == (
        '"cart.clear" is also declared at a.html:1:2 with a different contract (/description)')


def test_identical_duplicates_merge_with_all_sources(tmp_path: Path) -> None:
    button = ('<button type="button" axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="high" '
              'axag-idempotent="true" axag-confirmation-required="true" axag-scope="user" '
              'axag-description="Empty the cart">Clear</button>\n')
    (tmp_path / "a.html").write_text(button, encoding="utf-8")
    (tmp_path / "b.html").write_text("<p>b</p>\n" + button, encoding="utf-8")
    code, out, err = compile_to(tmp_path, ".", "-o", "-")
    assert code == 0, err
    tools = json.loads(out)["tools"]
    assert len(tools) == 1
    assert tools[0]["_meta"]["org.axag/action"]["sources"] == [
        {"file": "a.html", "line": 1, "column": 1}, {"file": "b.html", "line": 2, "column": 1}]


def test_deterministic_across_runs_directories_and_jobs(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "site", site)
    outs = []
    for jobs in ("1", "2"):
        code, out, err = compile_to(tmp_path, "site", "-j", jobs, "--no-cache", "-o", "-")  # each run does the work
        assert code == 0, err
        outs.append(out)
    # from another working directory, with --root
    other = tmp_path / "elsewhere"
    other.mkdir()
    code, out, err = compile_to(other, str(site), "--root", str(tmp_path), "-o", "-")
    assert code == 0, err
    outs.append(out)
    # in a subprocess (a fresh interpreter, hash seed differs)
    proc = subprocess.run([sys.executable, "-m", "axag", "compile", "--isolated", "site", "-j", "2", "-o", "-"],
                          cwd=tmp_path, capture_output=True, env={"PYTHONHASHSEED": "123", "PATH": "/usr/bin",
                                                                  "XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"]},
                          check=False)
    assert proc.returncode == 0, proc.stderr
    outs.append(proc.stdout.decode("utf-8"))
    assert len(set(outs)) == 1


def test_tools_json_written_from_tool_texts_equals_the_built_document(tmp_path: Path) -> None:
    """tools.json is written from the tool texts made with each contract (the merged sources put in); the
    document built whole (as --self-check does) gives the same bytes, with workers and without, also for
    file names that JSON must escape and numbers written in canonical form."""
    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "site", site)
    odd = site / 'odd "name" \\ é.html'
    odd.write_text('<button type="button" axag-intent="odd.thing" axag-action-type="write" axag-risk-level="low" '
                   'axag-idempotent="true" axag-description="Odd thing" axag-required-parameters=\'[{"name": "n", '
                   '"type": "number", "min": 1.0, "max": 2.5e0}]\'>Odd</button>\n', encoding="utf-8")
    for n in range(4):
        (site / f"copy{n}.html").write_text((site / "booking.html").read_text(encoding="utf-8"), encoding="utf-8")
    outs = []
    for extra in ([], ["--self-check"], ["-j", "2"], ["-j", "2", "--self-check"]):
        code, out, err = compile_to(tmp_path, "site", *extra, "--no-cache", "-o", "-")  # each run does the work
        assert code == 0, err
        outs.append(out)
    assert len(set(outs)) == 1
    doc = json.loads(outs[0])
    odd_tool = next(t for t in doc["tools"] if t["name"] == "odd_thing")
    assert odd_tool["_meta"]["org.axag/action"]["sources"][0]["file"] == 'site/odd "name" \\ é.html'
    assert '"minimum": 1,' in outs[0]


def test_check_mode(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "site", tmp_path / "site")
    code, _, _ = compile_to(tmp_path, "site", "-o", "tools.json")
    assert code == 0
    code, _, _ = compile_to(tmp_path, "site", "-o", "tools.json", "--check")
    assert code == 0
    # CRLF line endings count as equal
    data = (tmp_path / "tools.json").read_bytes()
    (tmp_path / "tools.json").write_bytes(data.replace(b"\n", b"\r\n"))
    assert compile_to(tmp_path, "site", "-o", "tools.json", "--check")[0] == 0
    (tmp_path / "tools.json").write_bytes(data.replace(b"Book a room", b"Book a flat"))
    code, _, err = compile_to(tmp_path, "site", "-o", "tools.json", "--check")
    assert code == 1
    assert "Book a flat" in err and "Book a room" in err
    (tmp_path / "tools.json").unlink()
    assert compile_to(tmp_path, "site", "-o", "tools.json", "--check")[0] == 1
    assert not (tmp_path / "tools.json").exists()


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text("<p>x</p>", encoding="utf-8")
    assert compile_to(tmp_path, "a.html", "--strict")[0] == 2
    assert compile_to(tmp_path, "a.html", "--check", "-o", "-")[0] == 2
    assert compile_to(tmp_path, "missing-dir")[0] == 2


def test_keep_going_writes_valid_tools(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(
        '<button type="button" axag-intent="a.ok" axag-action-type="read" axag-description="Fine">x</button>\n'
        '<button type="button" axag-intent="a.bad" axag-action-type="read" axag-risk-level="extreme">y</button>\n',
        encoding="utf-8")
    code, _, _ = compile_to(tmp_path, "a.html", "-o", "tools.json", "--keep-going")
    assert code == 1
    names = [t["name"] for t in json.loads((tmp_path / "tools.json").read_text())["tools"]]
    assert names == ["a_ok"]


def test_sdk_pages_compile_one_by_one_and_conflict_together(tmp_path: Path) -> None:
    sdk = shared_or_skip("corpus/axag-sdk")
    work = tmp_path / "sdk"
    shutil.copytree(sdk, work)
    from axag.compile.validate import self_check

    # the annotated pages (one fixture is a plain, unannotated shop page)
    annotated = [p for p in sorted(work.glob("*.html"))
                 if "axag-intent" in (t := p.read_text(encoding="utf-8")) or ' axag="' in t]
    assert len(annotated) >= 5
    for page in annotated:
        code, out, err = compile_to(work, page.name, "-o", "-")
        assert code == 0, (page.name, err)
        doc = json.loads(out)
        assert doc["tools"], page.name
        assert self_check(doc, "mcp") == []
    (work / "tools.json").write_bytes(b"previous\n")
    res = run_axag(["compile", "--isolated", ".", "-o", "tools.json", "--output-format", "json"], cwd=work)
    assert res.exit_code == 1
    codes = {f["code"] for f in json.loads(res.stdout)["findings"]}
    assert "AXAG-LINT-121" in codes
    assert any('"order.place" is also declared' in f["message"] for f in json.loads(res.stdout)["findings"])
    assert (work / "tools.json").read_bytes() == b"previous\n"


def test_docs_corpus_reports_errors_and_writes_nothing(tmp_path: Path) -> None:
    docs = shared_or_skip("corpus/axag-docs")
    work = tmp_path / "docs"
    shutil.copytree(docs, work)
    res = run_axag(["compile", "--isolated", ".", "-o", "tools.json", "--output-format", "json"], cwd=work)
    assert res.exit_code == 1
    findings = json.loads(res.stdout)["findings"]
    assert findings and all(f["code"] != "AXAG-LINT-199" for f in findings)
    assert not (work / "tools.json").exists()


@pytest.mark.parametrize("target", ["openai", "openai-responses", "anthropic"])
def test_other_targets_keep_mcp_order_and_descriptions(target: str) -> None:
    _, mcp_out, _ = compile_to(FIXTURES / "site", ".", "-o", "-")
    _, out, _ = compile_to(FIXTURES / "site", ".", "--target", target, "-o", "-")
    mcp = json.loads(mcp_out)["tools"]
    other = json.loads(out)["tools"]
    if target == "openai":
        other = [t["function"] for t in other]
    assert [t["name"] for t in other] == [t["name"] for t in mcp]
    assert [t["description"] for t in other] == [t["description"] for t in mcp]


@pytest.mark.parametrize("strict", [False, True])
def test_openai_responses_target_golden(strict: bool) -> None:
    """`--target openai-responses` writes the Responses API shape: the tools.json example, byte for
    byte as in tests/data/compile/booking.openai-responses[-strict].json."""
    flags = ["--strict"] if strict else []
    code, out, err = compile_to(FIXTURES / "spec", "site/booking.html", "--target", "openai-responses", *flags, "-o", "-")
    assert code == 0, err
    name = "booking.openai-responses-strict.json" if strict else "booking.openai-responses.json"
    assert out == (REPO / "tests" / "data" / "compile" / name).read_text(encoding="utf-8")


def test_strict_needs_an_openai_target() -> None:
    code, _, err = compile_to(FIXTURES / "spec", "site/booking.html", "--target", "anthropic", "--strict", "-o", "-")
    assert code == 2
    assert "--strict needs --target openai or openai-responses" in err


def test_readme_main_command_runs_on_the_bundled_site(tmp_path: Path) -> None:
    code, out, err = compile_to(REPO, "fixtures/site", "-o", "-")
    assert code == 0, err
    names = [t["name"] for t in json.loads(out)["tools"]]
    assert names == ["booking_cancel", "booking_create", "rate_update", "room_compare", "session_sign_out",
                     "site_search"]


def test_per_file_ignores_hide_only_warnings_in_compile(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(
        '<button type="button" axag-intent="a.b" axag-action-type="read">x</button>\n'
        '<button type="button" axag-intent="a.c" axag-action-type="nope">y</button>\n', encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.axag.lint]\nper-file-ignores = { "a.html" = ["138", "004"] }\n',
                                             encoding="utf-8")
    res = run_axag(["compile", "a.html", "-o", "-", "--output-format", "json"], cwd=tmp_path)
    assert res.exit_code == 1
    # 151 (info: no form submits them) is not ignored; 138 is
    assert [f["code"] for f in json.loads(res.stderr)["findings"]] == ["AXAG-LINT-151", "AXAG-LINT-151",
                                                                       "AXAG-LINT-004"]


def test_meta_groups_and_extensions(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(
        '<button type="button" axag-intent="report.export" axag-action-type="read" axag-description="Export"'
        ' axag-x-acme-team="data" axag-x-acme-cost="low" axag-deprecated="true"'
        ' axag-deprecated-replacement="report.export_v2" axag-version="1.2" axag-visible="true"'
        ' axag-operable="false" axag-operability-reason="Needs a plan" axag-workflow-id="exp"'
        ' axag-workflow-step="2" axag-workflow-total-steps="3" axag-schema="openapi:exportReport">x</button>\n',
        encoding="utf-8")
    code, out, err = compile_to(tmp_path, "a.html", "-o", "-")
    assert code == 0, err
    tool = json.loads(out)["tools"][0]
    meta = tool["_meta"]["org.axag/action"]
    keys = list(meta)
    assert keys[keys.index("schema"):] == ["schema", "workflow", "visibility", "versioning", "sources", "extensions"]
    assert meta["workflow"] == {"id": "exp", "step": 2, "total_steps": 3}
    assert meta["visibility"] == {"visible": True, "operable": False, "operability_reason": "Needs a plan"}
    assert meta["versioning"] == {"version": "1.2", "deprecated": True, "deprecated_replacement": "report.export_v2"}
    assert meta["extensions"] == {"acme-cost": "low", "acme-team": "data"}
    assert tool["description"].splitlines()[:2] == ["Export.", "Deprecated; use report.export_v2 instead."]


def test_a_form_repeated_on_many_pages_binds_its_first_page_whatever_the_workers(tmp_path: Path) -> None:
    """The tool of a form repeated on every page (a site search in the header) is one tool whose HTTP binding
    names its first page, with one process or two, cold or from the result cache: workers take the biggest
    pages first, so the first contract a worker sends is not the first page's."""
    form = ('<form axag-intent="site.search" axag-action-type="read" axag-risk-level="none" '
            'axag-description="Search the site"><input name="q" required><button type="submit">Go</button></form>')
    site = tmp_path / "site"
    site.mkdir()
    for i in range(12):
        pad = "<p>" + "x" * (1000 + (i * 7919) % 40000) + "</p>"
        (site / f"p{i:02d}.html").write_text(f"<html><body>{form}{pad}</body></html>\n", encoding="utf-8")
    outs = set()
    for jobs in ("1", "2"):
        for cache in (["--no-cache"], ["--cache-dir", str(tmp_path / "cache")], ["--cache-dir", str(tmp_path / "cache")]):
            code, out, err = compile_to(tmp_path, "site", "-j", jobs, *cache, "-o", "-")
            assert code == 0, err
            outs.add(out)
    assert len(outs) == 1
    [tool] = json.loads(outs.pop())["tools"]
    assert tool["_meta"]["org.axag/http"]["page"] == "site/p00.html"
    assert len(tool["_meta"]["org.axag/action"]["sources"]) == 12
