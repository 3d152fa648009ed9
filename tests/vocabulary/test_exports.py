"""`axag vocabulary`: the table, VS Code HTML custom data and TypeScript declarations, made from the
vocabulary's single declaration; `tsc` rejects a wrong `axag-*` value in a .tsx component with the declarations."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from axag import vocabulary as V

ROOT = Path(__file__).resolve().parents[2]
TSC = ROOT / "node_modules" / ".bin" / "tsc"


def axag(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "axag", *args], capture_output=True, text=True, cwd=cwd,
                          check=False, env={**os.environ, "AXAG_CACHE_DIR": str(cwd or ROOT / ".pytest_cache")})


def test_table_lists_every_attribute_with_its_values_and_meaning() -> None:
    proc = axag("vocabulary")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["ATTRIBUTE", "VALUE", "FORM", "VALUES", "MEANING"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert list(rows) == list(V.ATTRIBUTES)
    assert "none, low, medium, high, critical" in rows["axag-risk-level"]
    assert "how much harm a wrong call can do" in rows["axag-risk-level"]
    assert "true, false" in rows["axag-idempotent"]
    assert "whole number ≥ 1" in rows["axag-approval-count"]


def test_vscode_html_data_covers_every_attribute_and_value(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "axag.html-data.json"
    proc = axag("vocabulary", "--format", "vscode-html-data", "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["version"] == 1.1
    attrs = {a["name"]: a for a in data["globalAttributes"]}
    assert list(attrs) == list(V.ATTRIBUTES)
    sets = {s["name"]: {v["name"]: v["description"] for v in s["values"]} for s in data["valueSets"]}
    assert attrs["axag-risk-level"]["valueSet"] == "axag-risk-level"
    assert list(sets["axag-risk-level"]) == list(V.RISK_LEVELS)
    assert attrs["axag-scope"]["valueSet"] == "axag-scope"
    assert list(sets["axag-parameter-format"]) == list(V.FORMATS)
    assert attrs["axag-async"]["valueSet"] == "axag-boolean" and list(sets["axag-boolean"]) == ["true", "false"]
    assert "valueSet" not in attrs["axag-intent"]
    for name, spec in V.ATTRIBUTES.items():
        assert V.MEANINGS[name] in attrs[name]["description"]["value"]
        if spec.kind == "enum":
            assert all(sets[attrs[name]["valueSet"]][v] == V.VALUE_MEANINGS[spec.enum or ""][v]
                       for v in V.ENUMS[spec.enum or ""])
    # deterministic: byte-identical on a second run
    again = tmp_path / "again.json"
    axag("vocabulary", "--format", "vscode-html-data", "-o", str(again), cwd=tmp_path)
    assert again.read_bytes() == out.read_bytes()


def test_typescript_declarations_type_every_attribute() -> None:
    proc = axag("vocabulary", "--format", "typescript")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    for name in V.ATTRIBUTES:
        assert f'"{name}"?:' in text
    assert 'export type AxagRiskLevel = "none" | "low" | "medium" | "high" | "critical";' in text
    assert "  riskLevel?: AxagRiskLevel;" in text and "  actionType?: AxagActionType;" in text


COMPONENT = """import "./axag";

export function Delete(props: {{ onDelete: () => void }}) {{
  return (
    <button type="button" onClick={{props.onDelete}} axag-intent="item.delete" axag-action-type="delete"
            axag-risk-level={risk} axag-confirmation-required={{true}} axag-approval-count={{2}}>
      Delete
    </button>
  );
}}

export const spec = {{ intent: "item.archive", actionType: {action}, riskLevel: "low", idempotent: true,
  sideEffects: ["email"], requiredParameters: ["id", {{ name: "why", type: "string" }}] }} as const;

export function Archive() {{
  return <button type="button" axag={{spec}}>Archive</button>;
}}
"""


def _tsc(tmp_path: Path, risk: str, action: str = '"write"') -> subprocess.CompletedProcess[str]:
    proj = tmp_path / f"p{len(list(tmp_path.iterdir()))}"
    proj.mkdir()
    (proj / "node_modules").symlink_to(ROOT / "node_modules")
    assert axag("vocabulary", "--format", "typescript", "-o", str(proj / "axag.d.ts"), cwd=proj).returncode == 0
    (proj / "component.tsx").write_text(COMPONENT.format(risk=risk, action=action), encoding="utf-8")
    (proj / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
        "strict": True, "noEmit": True, "jsx": "react-jsx", "target": "ES2022", "module": "ESNext",
        "moduleResolution": "Bundler", "skipLibCheck": False, "types": []},
        "files": ["component.tsx", "axag.d.ts"]}), encoding="utf-8")
    return subprocess.run([str(TSC), "--noEmit", "-p", "tsconfig.json"], cwd=proj, capture_output=True, text=True,
                          check=False)


@pytest.mark.slow
def test_tsc_rejects_a_wrong_value_and_accepts_a_right_one(tmp_path: Path) -> None:
    if not TSC.exists() or shutil.which("node") is None or not (ROOT / "node_modules" / "@types" / "react").exists():
        message = "tsc or @types/react missing: run `npm install --no-audit --no-fund`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    good = _tsc(tmp_path, '"high"')
    assert good.returncode == 0, good.stdout + good.stderr
    bad = _tsc(tmp_path, '"hgih"')
    assert bad.returncode != 0
    assert bad.stdout.startswith("component.tsx(5,"), bad.stdout
    assert "Type '\"hgih\"' is not assignable to type 'AxagRiskLevel | undefined'" in bad.stdout, bad.stdout
    bad_spec = _tsc(tmp_path, '"high"', action='"mutate"')
    assert bad_spec.returncode != 0 and '"mutate"' in bad_spec.stdout, bad_spec.stdout
