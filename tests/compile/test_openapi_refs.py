"""OpenAPI `$ref`s resolve offline only: within the document, or to files beside it; a URL, a
`file://` URI or a path leaving the document's folder is an error naming the reference, never a fetch, in lint,
compile and serve. A loopback server records that nothing was requested."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_axag
from tests.sent_backend import Site, fixed, running_site

PAGE = """<!DOCTYPE html>
<html lang="en"><head><title>t</title></head><body axag-scope="user">
<button type="button" axag-intent="project.get" axag-action-type="read" axag-risk-level="none" axag-side-effects='[]'
        axag-operation-id="getProject"
        axag-required-parameters='[{"name":"id","type":"string","description":"Project id"}]'
        axag-description="Read a project">Read</button>
</body></html>
"""


def api(ref: str) -> str:
    return f"""openapi: 3.1.0
info: {{title: T, version: "1"}}
paths:
  /projects/{{id}}:
    get:
      operationId: getProject
      parameters:
        - $ref: "{ref}"
      responses: {{"200": {{description: ok}}}}
"""


COMMON = "components:\n  parameters:\n    Id: {name: id, in: path, required: true, schema: {$ref: '#/components/schemas/Id'}}\n" \
         "  schemas:\n    Id: {type: integer}\n"


@pytest.fixture
def ref_server() -> Iterator[Site]:
    with running_site() as site:
        site.handlers["/common.yaml"] = fixed(COMMON.encode(), "application/yaml")
        yield site


def project(tmp_path: Path, ref: str) -> Path:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "p.html").write_text(PAGE, encoding="utf-8")
    (tmp_path / "api" / "shared").mkdir(parents=True)
    (tmp_path / "api" / "shared" / "common.yaml").write_text(COMMON, encoding="utf-8")
    (tmp_path / "outside.yaml").write_text(COMMON, encoding="utf-8")
    (tmp_path / "api" / "api.yaml").write_text(api(ref), encoding="utf-8")
    return tmp_path / "api" / "api.yaml"


COMMANDS = {
    "lint": ["lint", "--isolated", "site", "--openapi", "api/api.yaml"],
    "compile": ["compile", "--isolated", "site", "--root", "site", "-o", "tools.json", "--openapi", "api/api.yaml"],
    "serve": ["serve", "site", "--base-url", "http://127.0.0.1:9", "--state", "s.sqlite", "--openapi",
              "api/api.yaml"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("kind", ["http", "file-uri", "outside", "missing"])
def test_a_reference_that_needs_a_fetch_is_an_error_never_a_fetch(command: str, kind: str, ref_server: Site,
                                                                  tmp_path: Path) -> None:
    ref = {"http": f"{ref_server.url}/common.yaml?q=chosen#/components/parameters/Id",
           "file-uri": (tmp_path / "api" / "shared" / "common.yaml").as_uri() + "#/components/parameters/Id",
           "outside": "../outside.yaml#/components/parameters/Id",
           "missing": "shared/nope.yaml#/components/parameters/Id"}[kind]
    project(tmp_path, ref)
    res = run_axag(COMMANDS[command], cwd=tmp_path)
    assert res.exit_code == 2, res.output
    assert f"the $ref {ref!r} at /paths/~1projects~1{{id}}/get/parameters/0/$ref" in res.stderr
    assert ref_server.seen == []
    assert not (tmp_path / "tools.json").exists()


def test_references_to_files_beside_the_document_are_followed(tmp_path: Path) -> None:
    project(tmp_path, "shared/common.yaml#/components/parameters/Id")
    res = run_axag(COMMANDS["compile"], cwd=tmp_path)
    assert res.exit_code == 0, res.output
    # the parameter comes from the file beside the document: a path parameter, an integer there
    assert 'Parameter "id" is string in "project.get" but integer in operation "getProject"' in res.output
    res = run_axag(COMMANDS["lint"], cwd=tmp_path)
    assert "AXAG-LINT-149" in res.output and "integer" in res.output
    from axag.compile.openapi import bind_openapi

    doc = json.loads((tmp_path / "tools.json").read_text(encoding="utf-8"))
    del doc["tools"][0]["_meta"]["org.axag/http"]
    bind_openapi(doc, tmp_path / "api" / "api.yaml")
    assert doc["tools"][0]["_meta"]["org.axag/http"]["openapi"]["in"] == {"id": "path"}
