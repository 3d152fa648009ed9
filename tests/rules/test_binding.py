"""What a served call cannot carry, as findings: a file input in an action's form (148, info, the
binding lists it under `unsupported`) and drift between an action and its `--openapi` operation (149, warning,
in `axag lint --openapi` and `axag compile --openapi`). Through the CLI, with exact positions and messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from axag.api import compile_paths
from tests.conftest import lint_json, run_axag

ACTION = ('axag-action-type="write" axag-risk-level="low" axag-idempotent="true" axag-side-effects=\'[]\' '
          'axag-description="Do it"')


def _rows(findings: list[dict[str, Any]]) -> list[tuple[str, int, int, str]]:
    return [(f["code"], f["line"], f["column"], f["message"]) for f in findings]


# ---------------------------------------------------------------------------------------------- 148
FILES_PAGE = f"""<form id="claim" action="/claims" method="post" enctype="multipart/form-data" axag-intent="claim.submit" {ACTION}>
  <label>Amount <input name="amount"></label>
  <label>Receipt <input type="file" name="receipt"></label>
  <template><input type="file" name="later"></template>
  <input type="file" name="off" disabled>
  <button>Submit</button>
</form>
<input type="file" name="scan" form="claim">
<div id="region"><label>Note <input name="note"></label> <input type="file" name="sketch"></div>
<button type="button" axag-intent="note.save" axag-params-from="#region" {ACTION}>Save</button>
"""


def test_148_lint_names_each_file_input_of_the_scope(tmp_path: Path) -> None:
    (tmp_path / "claim.html").write_text(FILES_PAGE, encoding="utf-8")
    status, findings = lint_json(["--select", "148", "claim.html"], cwd=tmp_path)
    assert status == 0
    assert _rows(findings) == [
        ("AXAG-LINT-148", 3, 19, ('<input type="file"> "receipt" cannot be supplied by an agent; "claim.submit" is '
                                 "called without it")),
        ("AXAG-LINT-148", 8, 2, ('<input type="file"> "scan" cannot be supplied by an agent; "claim.submit" is '
                                "called without it")),
        ("AXAG-LINT-148", 9, 59, ('<input type="file"> "sketch" cannot be supplied by an agent; "note.save" is '
                                 "called without it")),
    ]
    assert [f["severity"] for f in findings] == ["info", "info", "info"]


def test_148_runs_by_default_and_agrees_with_the_binding(tmp_path: Path) -> None:
    (tmp_path / "claim.html").write_text(FILES_PAGE, encoding="utf-8")
    _status, findings = lint_json(["claim.html"], cwd=tmp_path)
    assert [(f["line"], f["column"]) for f in findings if f["code"] == "AXAG-LINT-148"] == [(3, 19), (8, 2), (9, 59)]
    doc, _ = compile_paths([tmp_path], root=str(tmp_path))
    tools = {t["name"]: t["_meta"].get("org.axag/http") for t in doc["tools"]}
    # the form's own file input and the one it owns through form=; not the template's, not the disabled one
    assert tools["claim_submit"]["unsupported"] == ["receipt", "scan"]
    assert tools["note_save"] is None  # a region no form submits: no binding, the lint finding still says it


def test_148_no_finding_without_file_inputs(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(f'<form action="/a" axag-intent="a.b" {ACTION}><input name="q"></form>\n'
                                     '<form action="/u"><input type="file" name="f"></form>\n', encoding="utf-8")
    assert lint_json(["--select", "148", "a.html"], cwd=tmp_path) == (0, [])


# ---------------------------------------------------------------------------------------------- 149
API = {"openapi": "3.1.0", "info": {"title": "Stock", "version": "1"}, "paths": {"/stock": {"post": {
    "operationId": "addStock",
    "parameters": [{"name": "X-Req", "in": "header", "schema": {"type": "string"}}],
    "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {
        "sku": {"type": "integer"}, "count": {"type": "string"}, "note": {"type": "string"}}}}}},
    "responses": {"200": {"description": "ok"}}}}}}

DRIFT_PAGE = f"""<div id="q"><label>Count <input type="number" name="count"></label></div>
<button type="button" axag-intent="stock.add" axag-params-from="#q" axag-operation-id="addStock" {ACTION}
        axag-required-parameters='[{{"name":"sku","type":"string"}}]'>Add</button>
<button type="button" axag-intent="stock.drop" axag-operation-id="dropStock" {ACTION}>Drop</button>
"""

DRIFT = [
    # <input type="number"> without a step gives an integer (harvesting: names and groups)
    ("AXAG-LINT-149", 1, 27, 'Parameter "count" is integer in "stock.add" but string in operation "addStock"'),
    ("AXAG-LINT-149", 2, 88, ('Operation "addStock" has the header parameter "X-Req", which "stock.add" does not '
                             "declare")),
    ("AXAG-LINT-149", 2, 88, ('Operation "addStock" has the body parameter "note", which "stock.add" does not '
                             "declare")),
    ("AXAG-LINT-149", 3, 44, 'Parameter "sku" is string in "stock.add" but integer in operation "addStock"'),
    ("AXAG-LINT-149", 4, 67, 'axag-operation-id="dropStock" names no operation of the OpenAPI document api.json'),
]


def _site(tmp_path: Path) -> Path:
    (tmp_path / "api.json").write_text(json.dumps(API), encoding="utf-8")
    (tmp_path / "stock.html").write_text(DRIFT_PAGE, encoding="utf-8")
    return tmp_path


def test_149_lint_reports_drift_at_the_operation_id_or_the_parameter(tmp_path: Path) -> None:
    _site(tmp_path)
    status, findings = lint_json(["--select", "149", "--openapi", "api.json", "stock.html"], cwd=tmp_path)
    assert status == 0
    assert _rows(findings) == DRIFT
    assert {f["severity"] for f in findings} == {"warning"}


def test_149_needs_the_document(tmp_path: Path) -> None:
    _site(tmp_path)
    assert lint_json(["--select", "149", "stock.html"], cwd=tmp_path) == (0, [])
    (tmp_path / "bad.json").write_text('{"openapi": "3.0.3", "paths": {}}', encoding="utf-8")
    res = run_axag(["lint", "--isolated", "--openapi", "bad.json", "stock.html"], cwd=tmp_path)
    assert res.exit_code == 2 and "bad.json is not a valid OpenAPI 3.0/3.1 document" in res.stderr


def test_149_follows_the_document_not_a_cached_result(tmp_path: Path) -> None:
    _site(tmp_path)
    assert len(lint_json(["--select", "149", "--openapi", "api.json", "stock.html"], cwd=tmp_path)[1]) == 5
    fixed = json.loads(json.dumps(API))
    fixed["paths"]["/stock"]["post"].pop("parameters")
    (tmp_path / "api.json").write_text(json.dumps(fixed), encoding="utf-8")
    _status, findings = lint_json(["--select", "149", "--openapi", "api.json", "stock.html"], cwd=tmp_path)
    assert _rows(findings) == [*DRIFT[:1], *DRIFT[2:]]


def test_149_compile_reports_drift_and_still_binds(tmp_path: Path) -> None:
    _site(tmp_path)
    args = ["compile", "--isolated", "--root", ".", ".", "--openapi", "api.json", "-o", "tools.json"]
    res = run_axag([*args, "--output-format", "json"], cwd=tmp_path)
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert [(f["path"], *row) for f, row in zip(report["findings"], _rows(report["findings"]), strict=True)] == [
        ("stock.html", *row) for row in DRIFT]
    assert "drift" not in res.stderr
    tools = json.loads((tmp_path / "tools.json").read_text(encoding="utf-8"))["tools"]
    bound = {t["name"]: t["_meta"].get("org.axag/http") for t in tools}
    assert bound["addStock"] == {"openapi": {"operation_id": "addStock", "method": "POST", "path": "/stock",
                                              "in": {"sku": "body", "count": "body"}}, "page": "stock.html"}
    assert bound["dropStock"] is None  # the tool name is the operation id
    assert run_axag([*args, "--check"], cwd=tmp_path).exit_code == 0
    res = run_axag(["compile", "--isolated", "--root", ".", ".", "-o", "tools.json", "--output-format", "json"],
                   cwd=tmp_path)
    assert res.exit_code == 0 and json.loads(res.stdout)["findings"] == []
