"""Every file a result was read from is in its cache key. A warm run (result cache, run records)
after a change to any dependency (an imported or re-exported spec module, the OpenAPI document and a file its
refs name, the configuration, baseline, manifest, enforced-intents file) equals a cold one, byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli.test_fast_path import RUNNER  # the console script in a subprocess, which says what it imported
from tests.conftest import REPO, chdir, run_axag

A_TSX = """import { s } from "./spec";
import { t } from "./index";

export function A() {
  return (
    <div>
      <button axag={s}>Go</button>
      <button axag={t}>Other</button>
    </div>
  );
}
"""

SPEC_LOW = ('export const s = { intent: "cart.add_item", entity: "cart", actionType: "write", '
            'description: "Add an item", riskLevel: "low", idempotent: "maybe" };\n')
SPEC_CRITICAL = ('export const s = {\n  intent: "cart.add_item",\n  entity: "cart",\n  actionType: "write",\n'
                 '  description: "Add an item",\n  riskLevel: "critical",\n  confirmationRequired: true,\n'
                 '  idempotent: false,\n};\n')


def _more(risk: str, desc: str) -> str:
    return (f'export const t = {{ intent: "cart.empty", entity: "cart", actionType: "delete", '
            f'description: "{desc}", riskLevel: "{risk}", idempotent: true }};\n')


PAGE = """<form action="/orders" method="post" axag-intent="order.create" axag-entity="order" axag-action-type="write"
      axag-risk-level="high" axag-idempotent="false" axag-side-effects="order" axag-description="Order an article"
      axag-operation-id="createOrder">
  <label>Article <input name="sku" required maxlength="20"></label>
  <label>Count <input name="quantity" type="number" min="1" max="9"></label>
</form>
<button type="button" axag-intent="order.view" axag-entity="order" axag-action-type="read" axag-risk-level="none"
        axag-operation-id="getOrder" axag-description="Show an order"
        axag-required-parameters='[{"name":"order_id","type":"string"}]'>Show</button>
"""


def _openapi(sku: str, order_id: str, extra: bool) -> str:
    body: dict[str, Any] = {"type": "object", "properties": {"sku": {"type": sku}, "quantity": {"type": "integer"}}}
    if extra:
        body["properties"]["note"] = {"$ref": "schemas.json#/Note"}
    doc = {
        "openapi": "3.0.3", "info": {"title": "Orders", "version": "1"},
        "paths": {
            "/orders": {"post": {"operationId": "createOrder",
                                 "requestBody": {"content": {"application/json": {"schema": body}}},
                                 "responses": {"201": {"description": "created"}}}},
            "/orders/{order_id}": {"get": {"operationId": "getOrder", "parameters": [
                {"name": "order_id", "in": "path", "required": True, "schema": {"type": order_id}}],
                "responses": {"200": {"description": "the order"}}}},
        },
    }
    return json.dumps(doc, indent=1)


def _manifest(*intents: str) -> str:
    return json.dumps({"actions": [{"intent": i} for i in intents]})


# each kind of dependency and the texts it may be given (the first is the start)
VARIANTS: dict[str, list[str]] = {
    "src/spec.ts": [SPEC_LOW, SPEC_CRITICAL, SPEC_LOW.replace("Add an item", "Put an item in")],
    "src/more.ts": [_more("low", "Empty the cart"), _more("critical", "Empty the cart"), _more("low", "Empty it")],
    "src/index.ts": ['export { t } from "./more";\n', 'export { t } from "./more.js";\n',
                     'export { t as u } from "./more";\nexport const t = { intent: "cart.x", actionType: "read" };\n'],
    "api.json": [_openapi("string", "integer", True), _openapi("integer", "integer", True),
                 _openapi("string", "string", False)],
    "schemas.json": ['{"Note": {"type": "string"}}', '{"Note": {"type": "integer"}}'],
    "pyproject.toml": ["[tool.axag]\n", '[tool.axag.lint]\nignore = ["017"]\n',
                       '[tool.axag.lint]\nseverity = { "026" = "error", "105" = "warning" }\n'],
    "baseline.json": ['{"version": 1, "findings": []}\n', "UPDATE"],
    "manifest.json": [_manifest("order.create", "order.view", "cart.add_item"), _manifest("order.view"),
                      _manifest()],
    "enforced.json": ['["order.create"]', '{"intents": []}', '["order.create", "cart.empty", "cart.add_item"]'],
}
RUN_LEVEL = ("api.json", "pyproject.toml", "baseline.json", "manifest.json", "enforced.json")
LINT = ["lint", ".", "--manifest", "manifest.json", "--enforced-intents", "enforced.json", "--openapi", "api.json",
        "--baseline", "baseline.json", "--output-format", "full", "--output-format", "json:report.json"]
COMPILE = ["compile", ".", "--openapi", "api.json", "--keep-going", "-o", "tools.json"]


def _project(root: Path) -> None:
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "src" / "A.tsx").write_text(A_TSX, encoding="utf-8")
    (root / "page.html").write_text(PAGE, encoding="utf-8")
    for name, texts in VARIANTS.items():
        (root / name).write_text(texts[0], encoding="utf-8")


def _set(root: Path, name: str, text: str) -> None:
    if text == "UPDATE":  # the baseline takes the findings of the moment
        run_axag([*LINT, "--no-cache", "--update-baseline"])
    else:
        (root / name).write_text(text, encoding="utf-8")


def _outputs(root: Path, args: list[str], *extra: str) -> tuple[Any, ...]:
    """What a run prints and writes, in bytes."""
    for name in ("report.json", "tools.json"):
        (root / name).unlink(missing_ok=True)
    res = run_axag([*args, *extra])
    files = tuple((root / name).read_bytes() if (root / name).exists() else None
                  for name in ("report.json", "tools.json"))
    return res.exit_code, res.stdout_bytes, res.stderr_bytes, files


def test_an_imported_spec_module_is_in_the_key(tmp_path: Path) -> None:
    """The issue's page: after ``spec.ts`` changes, lint quotes the new text and compile writes the new risk
    level and confirmation, as ``--no-cache`` does."""
    (tmp_path / "A.tsx").write_text('import { s } from "./spec";\n\nexport function A() {\n'
                                    '  return <button axag={s}>Go</button>;\n}\n', encoding="utf-8")
    (tmp_path / "spec.ts").write_text(SPEC_LOW, encoding="utf-8")
    with chdir(tmp_path):
        run_axag(["lint", "A.tsx"])
        run_axag(["compile", "A.tsx", "--keep-going", "-o", "tools.json"])
        (tmp_path / "spec.ts").write_text(SPEC_CRITICAL, encoding="utf-8")
        warm = run_axag(["lint", "A.tsx"])
        cold = run_axag(["lint", "A.tsx", "--no-cache"])
        assert (warm.exit_code, warm.stdout) == (cold.exit_code, cold.stdout)
        assert 'riskLevel: "low"' not in warm.stdout and "critical" in warm.stdout
        run_axag(["compile", "A.tsx", "--keep-going", "-o", "tools.json"])
        tool = json.loads((tmp_path / "tools.json").read_text(encoding="utf-8"))["tools"][0]
        warm_tools = (tmp_path / "tools.json").read_bytes()
        run_axag(["compile", "A.tsx", "--keep-going", "-o", "tools.json", "--no-cache"])
        assert warm_tools == (tmp_path / "tools.json").read_bytes()
    text = json.dumps(tool)
    assert '"critical"' in text and '"low"' not in text


def test_a_module_that_appears_is_in_the_key(tmp_path: Path) -> None:
    """``./spec.js`` is ``spec.ts`` first (TypeScript's rule): a ``spec.ts`` created beside ``spec.js`` after the
    first run is the one read by the next."""
    (tmp_path / "A.tsx").write_text('import { s } from "./spec.js";\n\nexport function A() {\n'
                                    '  return <button axag={s}>Go</button>;\n}\n', encoding="utf-8")
    (tmp_path / "spec.js").write_text(SPEC_LOW, encoding="utf-8")
    with chdir(tmp_path):
        run_axag(["lint", "A.tsx"])
        (tmp_path / "spec.ts").write_text(SPEC_CRITICAL, encoding="utf-8")
        warm = run_axag(["lint", "A.tsx"])
        cold = run_axag(["lint", "A.tsx", "--no-cache"])
    assert (warm.exit_code, warm.stdout) == (cold.exit_code, cold.stdout)
    assert "spec.ts" in warm.stdout


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.sampled_from([(name, i) for name, texts in VARIANTS.items()
                                       for i in range(len(texts))]), min_size=1, max_size=3))
def test_warm_equals_cold_after_any_dependency_changes(edits: list[tuple[str, int]]) -> None:
    """Lint and compile with the result cache, after each edit of a dependency, print and write exactly what
    they do without it."""
    with tempfile.TemporaryDirectory(prefix="axag-deps-") as tmp:
        root = Path(tmp)
        _project(root)
        with chdir(root):
            _outputs(root, LINT)  # the cache holds every file's result
            _outputs(root, COMPILE)
            for name, i in edits:
                _set(root, name, VARIANTS[name][i])
                assert _outputs(root, LINT) == _outputs(root, LINT, "--no-cache"), (name, i)
                assert _outputs(root, COMPILE) == _outputs(root, COMPILE, "--no-cache"), (name, i)


def test_a_run_record_is_not_replayed_after_a_dependency_changes(tmp_path: Path) -> None:
    """The console script's run record of ``axag lint page.html ...`` (replayed without click) lists the files
    the run read: after an edit of each, the output is the cold run's."""
    _project(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "AXAG_CACHE_DIR"}
    env.update(PYTHONPATH=str(REPO), NO_COLOR="1")
    args = [a if a != "." else "page.html" for a in LINT]

    side = tmp_path / "modules.json"

    def run(*extra: str) -> tuple[int, bytes, bytes, bytes]:
        (tmp_path / "report.json").unlink(missing_ok=True)
        done = subprocess.run([sys.executable, "-c", RUNNER, str(side), "entry", *args, *extra], cwd=tmp_path, env=env,
                              capture_output=True, timeout=120, check=False)
        return done.returncode, done.stdout, done.stderr, (tmp_path / "report.json").read_bytes()

    run()
    for name in RUN_LEVEL:
        run()
        assert "axag.lint.engine" not in json.loads(side.read_text()), name  # replayed from its record
        text = VARIANTS[name][-1]
        if text == "UPDATE":
            with chdir(tmp_path):
                run_axag([*args, "--no-cache", "--update-baseline"])
        else:
            (tmp_path / name).write_text(text, encoding="utf-8")
        assert run() == run("--no-cache"), name
