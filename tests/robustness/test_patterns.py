"""Hostile `pattern` values (the pattern subset, guard value checks): lint and compile reject them quickly (117), and generated guards
never hang on adversarial input: `axag guards` refuses a hand-written tools file whose schema has an
exponential pattern, and accepted patterns run promptly."""

from __future__ import annotations

import importlib
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from axag.cli.group import main
from axag.config.settings import Settings
from axag.guards.render import write_guards
from axag.lint.engine import Request, check_file
from axag.outcome.errors import InputError

REPO = Path(__file__).resolve().parents[2]
BOOKING = json.loads((REPO / "tests" / "data" / "guards" / "booking.tools.json").read_text("utf-8"))

# (pattern, adversarial input that makes a backtracking engine take exponential time)
HOSTILE = [
    ("(a+)+$", "a" * 40 + "!"),
    ("^(a+)+$", "a" * 40 + "!"),
    ("(a*)*$", "a" * 40 + "!"),
    ("(a|aa)+$", "a" * 60 + "!"),
    ("(a|a)+$", "a" * 40 + "!"),
    ("^(\\w+\\s?)+$", "word " * 12 + "!"),
    ("(\\d+)*x", "1" * 40),
    ("^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$",
     "a" * 40 + "!"),
    ("(.*a){12}", "a" * 40),
    ("(?=(a+)+$)", "a" * 40 + "!"),
    ("((ab)*)*c", "ab" * 30),
    ("(x+x+)+y", "x" * 40),
]

IDS = [p[:30] for p, _ in HOSTILE]
_SEQ = itertools.count()


def _param_doc(pattern: str, *, harvested: bool) -> bytes:
    if harvested:
        return (f'<form axag-intent="t.go" axag-action-type="read" axag-risk-level="none" axag-description="Go">'
                f'<label>Q <input name="q" pattern="{pattern.replace("&", "&amp;").replace(chr(34), "&quot;")}">'
                f"</label></form>").encode()
    value = json.dumps([{"name": "q", "type": "string", "pattern": pattern}]).replace("&", "&amp;").replace("'", "&#39;")
    return (f'<form axag-intent="t.go" axag-action-type="read" axag-risk-level="none" axag-description="Go" '
            f"axag-required-parameters='{value}'></form>").encode()


SINGLE_LINE = "^[^\\r\\n]*$"


def _patterns(value: object) -> set[str]:
    """Every "pattern" value in a JSON document."""
    if isinstance(value, dict):
        own = {value["pattern"]} if isinstance(value.get("pattern"), str) else set()
        return own.union(*(_patterns(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_patterns(v) for v in value))
    return set()


@pytest.mark.parametrize(("pattern", "attack"), HOSTILE, ids=IDS)
@pytest.mark.parametrize("harvested", [False, True])
def test_lint_and_compile_reject_hostile_patterns_quickly(tmp_path: Path, pattern: str, attack: str,
                                                          harvested: bool) -> None:
    data = _param_doc(pattern, harvested=harvested)
    for mode in ("lint", "compile"):
        t0 = time.perf_counter()
        out = check_file(tmp_path / "p.html", "p.html", "p.html", Settings(base=tmp_path),
                         Request(mode=mode, want_contracts=True), data=data)
        assert time.perf_counter() - t0 < 15
        codes = {f.code for f in out.findings}
        assert 199 not in codes
        assert 117 in codes, (pattern, [(f.code, f.message) for f in out.findings])
        # a compiled tool never carries the pattern (declared: error, nothing compiled; harvested: ignored; the
        # single-line pattern of a text input, is all that is left)
        for contract, has_errors in out.contracts:
            assert has_errors or _patterns(contract.tool) <= {SINGLE_LINE}, contract.tool


def test_compile_cli_writes_no_hostile_pattern(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    for i, (pattern, _) in enumerate(HOSTILE):
        (site / f"d{i}.html").write_bytes(_param_doc(pattern, harvested=False).replace(b"t.go", f"d{i}.go".encode()))
        (site / f"h{i}.html").write_bytes(_param_doc(pattern, harvested=True).replace(b"t.go", f"h{i}.go".encode()))
    runner = CliRunner()
    import os

    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        res = runner.invoke(main, ["compile", "--isolated", "--keep-going", "--jobs", "1", "-o", "tools.json",
                                   "--output-format", "json:diag.json", "site"], catch_exceptions=False)
    finally:
        os.chdir(old)
    assert res.exit_code == 1, res.output
    doc = json.loads((tmp_path / "tools.json").read_text("utf-8"))
    names = {t["name"] for t in doc["tools"]}
    assert names == {f"h{i}_go" for i in range(len(HOSTILE))}  # declared ones are errors, harvested ones ignored
    assert _patterns(doc) == {SINGLE_LINE}
    diag = json.loads((tmp_path / "diag.json").read_text("utf-8"))
    assert sum(1 for f in diag["findings"] if f["code"].endswith("117")) == 2 * len(HOSTILE)


# ---------------------------------------------------------------- guards from a hand-written tools file

def _tools_with_pattern(pattern: str) -> dict[str, Any]:
    doc = json.loads(json.dumps(BOOKING))
    doc["tools"][0]["inputSchema"]["properties"]["note"]["pattern"] = pattern
    return doc


@pytest.mark.parametrize(("pattern", "attack"), HOSTILE, ids=IDS)
def test_guards_refuse_exponential_patterns(tmp_path: Path, pattern: str, attack: str) -> None:
    doc = _tools_with_pattern(pattern)
    with pytest.raises(InputError, match="exponential"):
        write_guards(doc, tmp_path / "g")
    assert not (tmp_path / "g" / "_guards.py").exists()


@pytest.mark.parametrize(("pattern", "attack"), HOSTILE[:3], ids=IDS[:3])
def test_guards_cli_refuses_with_exit_2(tmp_path: Path, pattern: str, attack: str) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(_tools_with_pattern(pattern)), encoding="utf-8")
    res = CliRunner().invoke(main, ["guards", str(tools), "-o", str(tmp_path / "g")])
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert "exponential" in res.output
    assert "Traceback" not in res.output


SAFE = [
    ("^[a-z]+$", "a" * 200_000 + "!"),
    ("^(?:[a-z]+-)*[a-z]+$", "a-" * 50_000 + "!"),
    ("^(\\d{1,3}\\.){3}\\d{1,3}$", "1." * 50_000),
    # polynomial (accepted by the pattern subset): cubic with search; 500 characters stay prompt, 3000 take ~40 s (see report)
    ("\\d*\\d*x", "1" * 500),
    (".*a.*b", "a" * 800),
    ("^[A-Z]{2}[0-9]{6}$", "A" * 100_000),
]


@pytest.mark.parametrize(("pattern", "attack"), SAFE, ids=[p for p, _ in SAFE])
def test_accepted_patterns_run_promptly_in_guards(tmp_path: Path, pattern: str, attack: str) -> None:
    name = f"axag_robust_pat_{next(_SEQ)}"
    write_guards(_tools_with_pattern(pattern), tmp_path / name)
    sys.path.insert(0, str(tmp_path))
    try:
        mod = importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))
    guard = mod.GUARDS["booking_create"]
    args = {"check_in": "2026-05-01", "check_out": "2026-05-03", "guests": 2, "note": attack}
    t0 = time.perf_counter()
    result = guard.check(args)
    elapsed = time.perf_counter() - t0
    assert elapsed < 10, (pattern, elapsed)  # exponential backtracking would not finish; 10 s tolerates a busy CI
    assert result.permission in ("constraint_violated", "confirmation_required", "not_required")


def test_pattern_check_itself_is_fast_on_huge_patterns(tmp_path: Path) -> None:
    from axag.values.pattern import check_pattern

    for pattern in ["(" * 5000 + "a" + ")" * 5000, "a|" * 3_000 + "a", "[a-z]" * 20_000, "(a|b)" * 3000 + "*",
                    "(?:a+)?" * 300, "x{1,1000}" * 200, "(a{1,30}){1,30}", "(?=a)" * 5000]:
        t0 = time.perf_counter()
        check_pattern(pattern)
        assert time.perf_counter() - t0 < 15, pattern[:40]


def test_unique_items_is_not_quadratic_in_guards(tmp_path: Path) -> None:
    """uniqueItems over items that do not sort (mixed types, objects) is decided in linear time."""
    doc = json.loads(json.dumps(BOOKING))
    doc["tools"][0]["inputSchema"]["properties"]["note"] = {"type": "array", "uniqueItems": True}
    name = f"axag_robust_uniq_{next(_SEQ)}"
    (tmp_path / name).mkdir()
    (tmp_path / name / "preconditions.py").write_text(
        "def room_available(arguments: object, context: object, tool: str) -> bool:\n    return True\n",
        encoding="utf-8")
    write_guards(doc, tmp_path / name)
    sys.path.insert(0, str(tmp_path))
    try:
        mod = importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))
    guard = mod.GUARDS["booking_create"]
    base = {"check_in": "2026-05-01", "check_out": "2026-05-03", "guests": 2}
    cases = [
        ([i if i % 2 else str(i) for i in range(50_000)], True),
        ([{"a": i} for i in range(50_000)], True),
        ([[i] if i % 2 else {"a": i} for i in range(50_000)], True),
        ([*({"a": i} for i in range(50_000)), {"a": 7.0}], False),
        ([1, "1", True, [1], [True], {"a": 1}, {"a": True}, None, 1.0], False),
        ([1, "1", True, [1], [True], {"a": 1}, {"a": True}, None], True),
    ]
    for items, unique in cases:
        t0 = time.perf_counter()
        result = guard.check({**base, "note": items})
        assert time.perf_counter() - t0 < 10  # quadratic takes minutes on 50k items; slack for a busy machine
        violated = any(v.constraint == "uniqueItems" for v in result.violations)
        assert violated is not unique, items[:5]


@pytest.mark.parametrize("command", ["guards", "context"])
def test_deeply_nested_tools_file_is_an_input_error(tmp_path: Path, command: str) -> None:
    doc = json.loads(json.dumps(BOOKING))
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(400):
        schema = {"type": "array", "items": schema}
    doc["tools"][0]["inputSchema"]["properties"]["note"] = schema
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(doc), encoding="utf-8")
    args = [command, str(tools)] + (["-o", str(tmp_path / "g")] if command == "guards" else [])
    res = CliRunner().invoke(main, args)
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code == 2, res.output
    assert "nested too deeply" in res.output


TS_UNIQUE_DRIVER = """
import { GUARDS } from "./guards.js";
const g = GUARDS["booking_create"];
const base = { check_in: "2026-05-01", check_out: "2026-05-03", guests: 2 };
const n = 50000;
const range = (f) => Array.from({ length: n }, (_, i) => f(i));
const cases = [
  [range((i) => (i % 2 ? i : String(i))), true],
  [range((i) => ({ a: i })), true],
  [range((i) => (i % 2 ? [i] : { a: i })), true],
  [[...range((i) => ({ a: i })), { a: 7.0 }], false],
  [[1, "1", true, [1], [true], { a: 1 }, { a: true }, null, 1.0], false],
  [[1, "1", true, [1], [true], { a: 1 }, { a: true }, null], true],
  [[{ a: 1, b: [null] }, { b: [null], a: 1 }], false],
];
for (const [items, unique] of cases) {
  const t0 = performance.now();
  const r = (await g.check({ ...base, note: items })).toDict();
  const violated = r.violations.some((v) => v.constraint === "uniqueItems");
  console.log(JSON.stringify({ ms: performance.now() - t0, ok: violated !== unique }));
}
"""


def test_unique_items_is_not_quadratic_in_typescript_guards(tmp_path: Path) -> None:
    import os
    import shutil
    import subprocess

    tsc = REPO / "node_modules" / ".bin" / "tsc"
    node = shutil.which("node")
    if not tsc.exists() or node is None:
        if os.environ.get("CI"):
            pytest.fail("tsc and node are required in CI")
        pytest.skip("tsc or node unavailable")
    doc = json.loads(json.dumps(BOOKING))
    doc["tools"][0]["inputSchema"]["properties"]["note"] = {"type": "array", "uniqueItems": True}
    doc["tools"][0]["_meta"]["org.axag/action"]["preconditions"] = []
    write_guards(doc, tmp_path, "typescript")
    config = {"compilerOptions": {"strict": True, "target": "ES2022", "module": "NodeNext",
                                  "moduleResolution": "NodeNext", "outDir": "out", "rootDir": ".", "types": [],
                                  "lib": ["ES2022"]}, "include": ["*.ts"]}
    (tmp_path / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    (tmp_path / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")
    proc = subprocess.run([str(tsc), "-p", "tsconfig.json"], cwd=tmp_path, capture_output=True, text=True,
                          check=False, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (tmp_path / "out" / "driver.mjs").write_text(TS_UNIQUE_DRIVER, encoding="utf-8")
    proc = subprocess.run([node, "driver.mjs"], cwd=tmp_path / "out", capture_output=True, text=True, check=False,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in proc.stdout.split("\n") if line]
    assert len(results) == 7
    for r in results:
        assert r["ok"], results
        assert r["ms"] < 2000, results
