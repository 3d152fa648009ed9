"""The AXAG docs' 1.0 drafts are flagged with their rules, and the SARIF of a real run
validates against the SARIF 2.1.0 schema."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from tests.conftest import REPO, run_axag, shared_or_skip


def test_docs_legacy_values_flagged_with_their_rules() -> None:
    docs = shared_or_skip("corpus/axag-docs")
    res = run_axag(["lint", "--isolated", "--output-format", "json", "."], cwd=docs)
    assert res.exit_code == 1
    findings = json.loads(res.stdout)["findings"]
    by = Counter((f["code"][-3:], f["message"]) for f in findings)
    assert by[("103", 'axag-action-type="create" is a 1.0 draft value; use "write"')] >= 1
    assert by[("103", 'axag-action-type="mutate" is a 1.0 draft value; use "write"')] >= 1
    assert by[("107", 'Invalid axag-scope="organization". Must be one of: public, user, tenant, global')] >= 1
    assert any(code == "101" and m.startswith("axag-constraints is not part of AXAG 1.1; ") for code, m in by)
    assert any(code == "111" and 'type "enum" must be one of' in m for code, m in by)
    # each problem is reported once, at a real position, and nothing crashes
    assert not [f for f in findings if f["code"] == "AXAG-LINT-199"]
    keys = [(f["path"], f["line"], f["column"], f["code"], f["message"]) for f in findings]
    assert len(keys) == len(set(keys))


def test_sarif_of_a_real_run_validates(tmp_path: Path) -> None:
    import jsonschema

    corpus = shared_or_skip("corpus")
    out = tmp_path / "out.sarif"
    res = run_axag(["lint", "--isolated", "--output-format", f"sarif:{out}", "."], cwd=corpus)
    assert res.exit_code == 1
    sarif = json.loads(out.read_text(encoding="utf-8"))
    schema = json.loads((REPO / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(sarif)
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(r["id"] for r in rules)
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert "primaryLocationLineHash" in result["partialFingerprints"]
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert not uri.startswith("/") and "\\\\" not in uri
