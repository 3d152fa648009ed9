"""TypeScript guards (SPEC §10.12, §10.13): literal encoder, rendering, tsc, and behaviour under Node.

Behaviour is proven differentially: the same scenarios run against the generated Python guards and the generated
TypeScript guards (compiled with the project's tsc, run with node) must give the same envelopes.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from axag.guards import naming, render, typescript

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "guards_ts"
TSC = ROOT / "node_modules" / ".bin" / "tsc"
TSC_FLAGS = ["--strict", "--noEmit", "--target", "ES2022", "--module", "NodeNext", "--moduleResolution", "NodeNext"]


def _need_node() -> tuple[str, str]:
    node = shutil.which("node")
    if TSC.exists() and node:
        return str(TSC), node
    message = f"tsc ({TSC}) or node unavailable: run `npm install --no-audit --no-fund` in the repository"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def load(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return doc


# ---------------------------------------------------------------- build helpers
TS_PRE = """
export function {name}(args: Readonly<Record<string, unknown>>, context: GuardContext, tool: string): boolean | Promise<boolean> {{
  void args; void context; void tool;
  const state = (globalThis as unknown as {{ __axagPre?: Record<string, unknown> }}).__axagPre ?? {{}};
  const v = state[{key}];
  if (v === "throw") {{ throw new Error("boom"); }}
  if (v === "async-true") {{ return Promise.resolve(true); }}
  return (v === undefined ? true : v) as boolean;
}}
"""

PY_PRE = """
def {name}(arguments, context, tool):
    v = STATE.get({key}, True)
    if v == "throw":
        raise RuntimeError("boom")
    if v == "async-true":
        return True
    return v
"""


def stub_names(doc: dict[str, Any]) -> list[str]:
    return [s.name for s in naming.collect_stubs(doc)]


def write_ts(doc: dict[str, Any], directory: Path, *, test_pre: bool = True) -> render.RenderedGuards:
    rendered = render.render_guards(doc, "typescript", None)
    directory.mkdir(parents=True, exist_ok=True)
    for rel, text in rendered.files.items():
        (directory / rel).write_text(text, encoding="utf-8")
    if test_pre:
        pre = 'import type { GuardContext } from "./runtime.js";\nexport type { GuardContext };\n'
        pre += "".join(TS_PRE.format(name=n, key=json.dumps(n)) for n in stub_names(doc))
    else:
        pre = rendered.user_module
    (directory / "preconditions.ts").write_text(pre, encoding="utf-8")
    return rendered


def tsc_check(directory: Path) -> None:
    tsc, _ = _need_node()
    files = sorted(p.name for p in directory.glob("*.ts"))
    proc = subprocess.run([tsc, *TSC_FLAGS, *files], check=False, cwd=directory, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def compile_ts(directory: Path) -> Path:
    tsc, _ = _need_node()
    out = directory / "out"
    config = {
        "compilerOptions": {"strict": True, "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
                            "outDir": "out", "rootDir": ".", "types": []},
        "include": ["*.ts"],
    }
    (directory / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    (directory / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")
    proc = subprocess.run([tsc, "-p", "tsconfig.json"], check=False, cwd=directory, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    shutil.copy(DATA / "driver.mjs", out / "driver.mjs")
    return out


def run_node(out: Path, scenarios: list[dict[str, Any]]) -> list[Any]:
    _, node = _need_node()
    path = out / "scenarios.json"
    path.write_text(json.dumps(scenarios), encoding="utf-8")
    proc = subprocess.run([node, "driver.mjs", str(path)], check=False, cwd=out, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


class PyGuards:
    """The generated Python guards of the same document, imported from a temp package."""

    def __init__(self, doc: dict[str, Any], directory: Path, package: str) -> None:
        rendered = render.render_guards(doc, "python", None)
        pkg = directory / package
        pkg.mkdir(parents=True)
        for rel, text in rendered.files.items():
            (pkg / rel).write_text(text, encoding="utf-8")
        pre = "STATE = {}\n" + "".join(PY_PRE.format(name=n, key=repr(n)) for n in stub_names(doc))
        (pkg / "preconditions.py").write_text(pre, encoding="utf-8")
        sys.path.insert(0, str(directory))
        try:
            self.module = importlib.import_module(package)
            self.pre = importlib.import_module(package + ".preconditions")
            self.rt = importlib.import_module(package + "._runtime")
        finally:
            sys.path.remove(str(directory))
        self.guards = self.module.GUARDS

    def run(self, scenarios: list[dict[str, Any]]) -> list[Any]:
        rt = self.rt
        out: list[Any] = []
        for sc in scenarios:
            if sc["op"] == "reset":
                self.guards = self.module.make_guards(rt.InMemoryStore())
                out.append({"reset": True})
                continue
            if sc["op"] == "fingerprint":
                out.append({"fingerprint": rt.fingerprint(sc["tool"], sc["args"])})
                continue
            self.pre.STATE.clear()
            self.pre.STATE.update(sc.get("pre", {}))
            ctx = self._context(sc)
            guard = self.guards[sc["tool"]]
            try:
                if sc["op"] == "check":
                    result = guard.check(sc["args"], ctx)
                else:
                    value = sc.get("result")
                    result = guard.run(lambda a, v=value: {"handled": a, "value": v}, sc["args"], ctx)
            except Exception as exc:  # noqa: BLE001 - mirrored by the node driver
                out.append({"raised": str(exc)})
                continue
            view = result.for_model() if sc.get("view") == "model" else result.to_dict()
            out.append(json.loads(json.dumps(view)))
        return out

    def _context(self, sc: dict[str, Any]) -> Any:
        rt = self.rt
        spec = sc.get("context")
        if spec is None:
            return None
        args = sc["args"]
        if spec.get("null_as_absent"):
            args = {k: v for k, v in args.items() if v is not None}

        def fix(fp: str) -> str:
            return str(rt.fingerprint(sc["tool"], args)) if fp == "$fp" else fp

        kwargs: dict[str, Any] = {}
        if "actor" in spec:
            kwargs["actor"] = spec["actor"]
        if "roles" in spec:
            kwargs["roles"] = frozenset(spec["roles"])
        if "now" in spec:
            kwargs["now"] = spec["now"]
        if "null_as_absent" in spec:
            kwargs["null_as_absent"] = spec["null_as_absent"]
        if spec.get("confirmation"):
            c = dict(spec["confirmation"])
            c["fingerprint"] = fix(c["fingerprint"])
            kwargs["confirmation"] = rt.Confirmation(**c)
        if spec.get("approvals"):
            kwargs["approvals"] = tuple(
                rt.Approval(**{**a, "fingerprint": fix(a["fingerprint"])}) for a in spec["approvals"]
            )
        if "request_approval" in spec:
            answer = spec["request_approval"]
            kwargs["request_approval"] = lambda t: {**answer, "ticket_tool": t.tool, "count": t.count}
        return rt.GuardContext(**kwargs)


_COUNTER = iter(range(10**6))


@pytest.fixture
def both(tmp_path: Path) -> Iterator[Any]:
    """Factory: doc -> (run_ts(scenarios), run_py(scenarios))."""

    def make(doc: dict[str, Any]) -> tuple[Any, Any]:
        directory = tmp_path / f"ts{next(_COUNTER)}"
        write_ts(doc, directory)
        out = compile_ts(directory)
        py = PyGuards(doc, tmp_path / f"py{next(_COUNTER)}", f"axag_ts_diff_{next(_COUNTER)}")
        return (lambda scenarios: run_node(out, scenarios)), py.run

    yield make


# ---------------------------------------------------------------- literal encoder (§10.13)
def test_ts_str_escapes_everything_outside_printable_ascii() -> None:
    assert typescript.ts_str('a"b\\c') == '"a\\"b\\\\c"'
    assert typescript.ts_str("\n\u2028\u0000\U0001f600\x7f") == '"\\n\\u2028\\u0000\\ud83d\\ude00\\u007f"'
    assert typescript.ts_str("*/ ${x} {{y}}") == '"*/ ${x} {{y}}"'


def test_ts_literal_shapes() -> None:
    assert typescript.ts_literal(None) == "null"
    assert typescript.ts_literal(True) == "true"
    assert typescript.ts_literal(10.0) == "10"
    assert typescript.ts_literal(-0.5) == "-0.5"
    assert typescript.ts_literal(1e20) == "1e+20"
    assert typescript.ts_literal([]) == 'JSON.parse("[]")'
    assert typescript.ts_literal({"__proto__": [1, "é"]}) == 'JSON.parse("{\\"__proto__\\":[1,\\"\\u00e9\\"]}")'
    with pytest.raises(naming.GuardSpecError):
        typescript.ts_literal(float("nan"))
    with pytest.raises(naming.GuardSpecError):
        typescript.ts_literal({1: 2})
    with pytest.raises(naming.GuardSpecError):
        typescript.ts_literal(object())


def test_check_stub_name() -> None:
    assert typescript.check_stub_name("room_available") == "room_available"
    for bad in ("delete", "new", "1x", "a-b", ""):
        with pytest.raises(naming.GuardSpecError):
            typescript.check_stub_name(bad)


def test_user_module_names() -> None:
    src = (
        "export function a(x) {}\n  export async function b() {}\nexport const c = () => true;\n"
        "export function* d() {}\n// export function e() {}\n/* export function f() {} */\nfunction g() {}\n"
        "export let h = 1;\n"
    )
    assert typescript.user_module_names(src) == {"a", "b", "c", "d"}


# ---------------------------------------------------------------- rendering
def test_render_files_and_determinism() -> None:
    doc = load("booking.tools.json")
    specs, stubs = naming.extract_specs(doc), naming.collect_stubs(doc)
    one = typescript.render_typescript(specs, stubs, None)
    two = render.render_guards(json.loads(json.dumps(doc)), "typescript", None)
    assert one.files == two.files and one.user_module == two.user_module
    assert sorted(one.files) == ["guards.ts", "runtime.ts"]
    assert one.user_module_path == "preconditions.ts" and one.missing_stubs is None
    assert one.files["runtime.ts"].startswith(f"// Generated by axag {typescript.__version__}. Do not edit")
    # runtime.ts is identical for every input
    other = render.render_guards({"tools": []}, "typescript", None)
    assert other.files["runtime.ts"] == one.files["runtime.ts"]
    assert "export function room_available(" in one.user_module


def test_missing_stubs() -> None:
    doc = load("booking.tools.json")
    full = render.render_guards(doc, "typescript", None)
    assert render.render_guards(doc, "typescript", full.user_module).missing_stubs is None
    partial = render.render_guards(doc, "typescript", "export const other = 1;\n")
    assert partial.missing_names == ["room_available"]
    assert partial.missing_stubs is not None
    assert "export function room_available(" in partial.missing_stubs


def test_generated_typescript_passes_tsc_strict(tmp_path: Path) -> None:
    doc = load("booking.tools.json")
    write_ts(doc, tmp_path, test_pre=False)
    tsc_check(tmp_path)


def test_missing_stub_fails_type_checking(tmp_path: Path) -> None:
    tsc, _ = _need_node()
    write_ts(load("booking.tools.json"), tmp_path, test_pre=False)
    (tmp_path / "preconditions.ts").write_text("export const other = 1;\n", encoding="utf-8")
    proc = subprocess.run([tsc, *TSC_FLAGS, "guards.ts"], check=False, cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode != 0 and "room_available" in proc.stdout


# ---------------------------------------------------------------- behaviour
EXAMPLE_10_11 = {
    "success": False,
    "permission": "constraint_violated",
    "violations": [
        {"field": "guests", "constraint": "maximum", "expected": 10, "actual": 12,
         "message": "guests must be at most 10; got 12."},
        {"field": "check_out", "constraint": "greater_than", "expected": "check_out is after check_in",
         "actual": {"check_out": "2026-05-01", "check_in": "2026-05-03"},
         "message": "check_out must be after check_in."},
    ],
    "guidance": "The arguments break 2 constraints of booking_create: guests must be at most 10; got 12. "
    "check_out must be after check_in. Correct the arguments and call booking_create again; do not repeat the "
    "same values.",
    "tool": "booking_create",
    "active_constraints": {
        "required": ["check_in", "check_out", "guests"],
        "parameters": {"check_in": {"type": "string", "format": "date"},
                       "check_out": {"type": "string", "format": "date"},
                       "guests": {"type": "integer", "minimum": 1, "maximum": 10},
                       "note": {"type": "string", "maxLength": 200}},
        "relations": ["check_out is after check_in"], "preconditions": ["room_available"],
        "confirmation_required": True, "rate_limit": "10/minute",
    },
}

VALID = {"check_in": "2026-05-01", "check_out": "2026-05-03", "guests": 2}


def booking_scenarios() -> list[dict[str, Any]]:
    t = "booking_create"
    return [
        {"tool": t, "op": "run", "view": "model",
         "args": {"check_in": "2026-05-03", "check_out": "2026-05-01", "guests": 12}},
        {"tool": t, "op": "run", "args": VALID},
        {"tool": t, "op": "check", "args": VALID, "context": {"confirmation": {"fingerprint": "$fp"}}},
        {"tool": t, "op": "run", "args": VALID, "context": {"confirmation": {"fingerprint": "$fp", "by": "u-17",
                                                                            "id": "c1"}}, "result": "booked"},
        {"tool": t, "op": "run", "args": VALID, "context": {"confirmation": {"fingerprint": "$fp", "id": "c1"}}},
        {"tool": t, "op": "run", "args": VALID, "context": {"confirmation": {"fingerprint": "nope"}}},
        {"tool": t, "op": "run", "args": VALID, "pre": {"room_available": False}},
        {"tool": t, "op": "run", "args": VALID, "pre": {"room_available": 1}},
        {"tool": t, "op": "run", "args": VALID, "pre": {"room_available": "throw"}},
        {"tool": t, "op": "run", "args": VALID, "pre": {"room_available": "async-true"}},
        {"tool": t, "op": "run", "args": {**VALID, "note": None}},
        {"tool": t, "op": "run", "args": {**VALID, "note": None}, "context": {"null_as_absent": True}},
        {"tool": t, "op": "run", "args": {"guests": 2.0, "extra": [1], "check_in": "2026-02-30", "note": "x" * 201}},
        {"tool": t, "op": "run", "args": []},
        {"tool": t, "op": "run", "args": {"check_in": True, "check_out": 5, "guests": 3.5}},
        {"tool": t, "op": "fingerprint", "args": {"b": [1, 2.5, None, True], "a": "é\u2028\U0001f600", "é": {}}},
    ]


def test_example_10_11_for_model(both: Any) -> None:
    run_ts, _ = both(load("booking.tools.json"))
    assert run_ts(booking_scenarios()[:1]) == [EXAMPLE_10_11]


def test_booking_scenarios_match_python(both: Any) -> None:
    run_ts, run_py = both(load("booking.tools.json"))
    scenarios = booking_scenarios()
    ts, py = run_ts(scenarios), run_py(scenarios)
    for sc, a, b in zip(scenarios, ts, py, strict=True):
        assert a == b, sc
    confirm = ts[1]
    assert confirm["permission"] == "confirmation_required"
    assert confirm["caller_only"]["confirmation_message"] == "Book 2 guests from 2026-05-01 to 2026-05-03?"
    assert ts[3]["success"] is True and ts[3]["result"]["value"] == "booked"
    assert ts[4]["permission"] == "confirmation_required"  # single use
