"""TypeScript guards (TypeScript guards, code-generation guarantees): literal encoder, rendering, tsc, and behaviour under Node.

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
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axag.guards import guard_spec, render, typescript
from axag.outcome.errors import InputError
from axag.values import pyruntime

ROOT = Path(__file__).resolve().parents[2]
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
    return [s.name for s in guard_spec.collect_stubs(doc)]


def write_ts(doc: dict[str, Any], directory: Path, *, test_pre: bool = True,
             null_as_absent: bool = False) -> render.RenderedGuards:
    rendered = render.render_guards(doc, "typescript", None, null_as_absent=null_as_absent)
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
    """The code-generation guarantees command on every .ts file under ``directory`` (one program, one tsc run)."""
    tsc, _ = _need_node()
    files = sorted(str(p.relative_to(directory)) for p in directory.rglob("*.ts"))
    proc = subprocess.run([tsc, *TSC_FLAGS, *files], check=False, cwd=directory, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def compile_ts(directory: Path) -> Path:
    """Compile to JavaScript with the ECMAScript 2022 library only (no DOM, no Node types)."""
    tsc, _ = _need_node()
    out = directory / "out"
    config = {
        "compilerOptions": {"strict": True, "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
                            "outDir": "out", "rootDir": ".", "types": [], "lib": ["ES2022"]},
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
    return [json.loads(line) for line in proc.stdout.split("\n") if line]


class PyGuards:
    """The generated Python guards of the same document, imported from a temp package."""

    def __init__(self, doc: dict[str, Any], directory: Path, package: str, *, null_as_absent: bool = False) -> None:
        rendered = render.render_guards(doc, "python", None, null_as_absent=null_as_absent)
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
            ctx = sc["raw_context"] if "raw_context" in sc else self._context(sc)
            guard = self.guards.get(sc["tool"])
            if guard is None:
                out.append({"unknown_tool": True})
                continue
            try:
                if sc["op"] == "mutate":
                    first = guard.check(sc["args"], ctx).to_dict()
                    first["active_constraints"]["required"].append("zzz")
                    for v in first["violations"]:
                        v["expected"] = "zzz"
                if sc["op"] in ("check", "mutate"):
                    result = guard.check(sc["args"], ctx)
                elif sc["op"] == "wrap":
                    value = sc.get("result")
                    result = guard.wrap(lambda a, v=value: {"handled": a, "value": v})(sc["args"], ctx)
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
        if spec.get("null_as_absent") is True:
            args = {k: v for k, v in args.items() if v is not None}

        def fix(fp: str) -> str:
            return str(rt.fingerprint(sc["tool"], args)) if fp == "$fp" else fp

        kwargs: dict[str, Any] = {}
        if "actor" in spec:
            kwargs["actor"] = spec["actor"]
        if "roles" in spec:  # a list becomes a frozenset; anything else is passed as it is
            kwargs["roles"] = frozenset(spec["roles"]) if isinstance(spec["roles"], list) else spec["roles"]
        if "now" in spec:
            kwargs["now"] = spec["now"]
        if "null_as_absent" in spec and spec["null_as_absent"] != "default":
            kwargs["null_as_absent"] = spec["null_as_absent"]
        if "remember_seconds" in spec:
            kwargs["remember_seconds"] = spec["remember_seconds"]
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


@pytest.fixture(scope="module")
def suite_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, PyGuards]:
    """The suite document compiled once per module: TypeScript (with test preconditions) and Python guards."""
    base = tmp_path_factory.mktemp("guards_ts")
    write_ts(suite_doc(), base / "ts")
    out = compile_ts(base / "ts")
    shutil.copy(DATA / "unit.mjs", out / "unit.mjs")
    return out, PyGuards(suite_doc(), base / "py", f"axag_ts_diff_{next(_COUNTER)}")


@pytest.fixture
def both(suite_build: tuple[Path, PyGuards]) -> tuple[Any, Any]:
    """(run_ts(scenarios), run_py(scenarios)) on the suite document, with fresh stores."""
    out, py = suite_build
    py.guards = py.module.make_guards(py.rt.InMemoryStore())
    return (lambda scenarios: run_node(out, scenarios)), py.run


# ---------------------------------------------------------------- literal encoder (code-generation guarantees)
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
    with pytest.raises(guard_spec.GuardSpecError):
        typescript.ts_literal(float("nan"))
    with pytest.raises(guard_spec.GuardSpecError):
        typescript.ts_literal({1: 2})
    with pytest.raises(guard_spec.GuardSpecError):
        typescript.ts_literal(object())


def test_check_stub_name() -> None:
    assert typescript.check_stub_name("room_available") == "room_available"
    for bad in ("delete", "new", "1x", "a-b", ""):
        with pytest.raises(guard_spec.GuardSpecError):
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
    specs, stubs = guard_spec.extract_specs(doc), guard_spec.collect_stubs(doc)
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


def test_rendering_is_deterministic_across_processes() -> None:
    code = (
        "import hashlib, json;"
        "from tests.guards.test_typescript import suite_doc; from axag.guards import render;"
        "r = render.render_guards(suite_doc(), 'typescript', None);"
        "print(hashlib.sha256(json.dumps([r.files, r.user_module]).encode()).hexdigest())"
    )
    digests = {
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1


def test_missing_stubs() -> None:
    doc = load("booking.tools.json")
    full = render.render_guards(doc, "typescript", None)
    assert render.render_guards(doc, "typescript", full.user_module).missing_stubs is None
    partial = render.render_guards(doc, "typescript", "export const other = 1;\n")
    assert partial.missing_names == ["room_available"]
    assert partial.missing_stubs is not None
    assert "export function room_available(" in partial.missing_stubs


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
        {"tool": t, "op": "wrap", "args": VALID, "context": {"confirmation": {"fingerprint": "$fp", "id": "w"}},
         "result": "wrapped"},
        {"tool": t, "op": "run", "args": VALID, "pre": {"room_available": False}},
        {"tool": t, "op": "run", "args": VALID, "pre": {"room_available": 1}},
        {"tool": t, "op": "run", "args": VALID, "pre": {"room_available": "throw"}},
        {"tool": t, "op": "run", "args": VALID, "pre": {"room_available": "async-true"}},
        {"tool": t, "op": "run", "args": {**VALID, "note": None}},
        {"tool": t, "op": "run", "args": {**VALID, "note": None}, "context": {"null_as_absent": True}},
        {"tool": t, "op": "run", "args": {"guests": 2.0, "extra": [1], "check_in": "2026-02-30", "note": "x" * 201}},
        {"tool": t, "op": "run", "args": []},
        {"tool": t, "op": "run", "args": {"check_in": True, "check_out": 5, "guests": 3.5}},
        {"tool": t, "op": "mutate", "args": {"guests": 0, "country": "x"}},
        {"tool": t, "op": "fingerprint", "args": {"b": [1, 2.5, None, True], "a": "é\u2028\U0001f600", "é": {}}},
    ]


def test_example_10_11_for_model(both: Any) -> None:
    run_ts, _ = both
    assert run_ts(booking_scenarios()[:1]) == [EXAMPLE_10_11]


def test_booking_scenarios_match_python(both: Any) -> None:
    run_ts, run_py = both
    scenarios = booking_scenarios()
    ts, py = run_ts(scenarios), run_py(scenarios)
    for sc, a, b in zip(scenarios, ts, py, strict=True):
        assert a == b, sc
    confirm = ts[1]
    assert confirm["permission"] == "confirmation_required"
    assert confirm["caller_only"]["confirmation_message"] == "Book 2 guests from 2026-05-01 to 2026-05-03?"
    assert ts[3]["success"] is True and ts[3]["result"]["value"] == "booked"
    assert ts[4]["permission"] == "confirmation_required"  # single use
    assert ts[6]["result"]["value"] == "wrapped"
    assert ts[-2]["active_constraints"]["required"] == ["check_in", "check_out", "guests"]
    assert ts[-2]["violations"][0] == {"field": "guests", "constraint": "minimum", "expected": 1, "actual": 0,
                                       "message": "guests must be at least 1; got 0."}


# ---------------------------------------------------------------- a richer document
INJECT = 'q"uo\'te \\back\\slash """ */ /* ${x} {{y}} \n line\u2028sep\u0000nul\U0001f600 \x01\x1f\x7f\u0085 </script>'


def tool(name: str, intent: str, properties: dict[str, Any], required: list[str], **meta: Any) -> dict[str, Any]:
    return {
        "name": name,
        "title": name,
        "description": "d",
        "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                        "properties": properties, "required": required, "additionalProperties": False},
        "annotations": {},
        "_meta": {"org.axag/action": {"intent": intent, "entity": "e", "action_type": "write", **meta,
                                      "sources": []}},
    }


def rel(text: str, form: str, params: list[str], *value: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"text": text, "kind": "relational", "form": form, "params": params}
    if value:
        item["value"] = value[0]
    return item


LOCAL_DT = (r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]"
            r"(:[0-5][0-9](\.[0-9]{1,3})?)?$")
TIME_OF_DAY = r"^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,3})?)?$"
MONTH = r"^[0-9]{4}-(0[1-9]|1[0-2])$"


def suite_doc() -> dict[str, Any]:
    s: dict[str, Any] = {"type": "string"}
    account = tool(
        "account-delete", "account.delete",
        {"account_id": {"type": "string", "format": "uuid"}, "reason": {"type": "string", "minLength": 3}},
        ["account_id"],
        required_roles=["admin"], approval_required=True, approval_roles=["security", "owner"], approval_count=2,
        rate_limit={"count": 2, "period": "minute", "window_seconds": 60},
        cooldown={"duration": "30s", "milliseconds": 30000},
    )
    event = tool(
        "event_schedule", "event.schedule",
        {
            "start": {"type": "string", "format": "date-time"}, "end": {"type": "string", "format": "date-time"},
            "t1": {"type": "string", "format": "time"}, "t2": {"type": "string", "format": "time"},
            "local": {"type": "string", "pattern": LOCAL_DT},
            "count": {"type": "integer", "minimum": 0, "multipleOf": 1}, "limit": {"type": "number"},
            "email": {"type": "string", "format": "email"}, "phone": s, "user_id": s,
            "coupon": s, "customer": s, "a": {"type": "boolean"}, "b": {"type": "boolean"},
            "country": {"type": "string", "enum": ["DE", "FR"]}, "vat_id": s, "zip": s, "name": s, "nickname": s,
            "day": {"type": "string", "format": "date"}, "slot": {"type": "string", "pattern": TIME_OF_DAY},
            "month": {"type": "string", "pattern": MONTH}, "when": {"type": "string", "pattern": LOCAL_DT},
        },
        [],
        preconditions=[
            rel("end is after start", "greater_than", ["end", "start"]),
            rel("t2 is after t1", "greater_than", ["t2", "t1"]),
            rel('local is on or before "2026-12-31T23:59"', "less_than_or_equal", ["local"], "2026-12-31T23:59"),
            rel("count <= limit", "less_than_or_equal", ["count", "limit"]),
            rel("count != 0", "not_equal", ["count"], 0),
            rel("limit >= 1.5", "greater_than_or_equal", ["limit"], 1.5),
            rel("limit == count", "equal", ["limit", "count"]),
            rel("exactly one of email, phone or user_id", "exactly_one_of", ["email", "phone", "user_id"]),
            rel("at least one of phone, user_id", "at_least_one_of", ["phone", "user_id"]),
            rel("coupon requires customer", "requires", ["coupon", "customer"]),
            rel("a and b are mutually exclusive", "mutually_exclusive", ["a", "b"]),
            rel('vat_id is required when country is "DE"', "required_when_equal", ["vat_id", "country"], "DE"),
            rel("zip is required when country is given", "required_when_present", ["zip", "country"]),
            rel("name differs from nickname", "not_equal", ["name", "nickname"]),
        ],
        format_bounds={
            "day": {"formatMinimum": "2026-01-01", "formatMaximum": "2026-12-31"},
            "slot": {"formatMinimum": "22:00", "formatMaximum": "06:00"},
            "month": {"formatMinimum": "2026-01"},
            "when": {"formatMinimum": "2026-01-01T08:00", "formatMaximum": "2026-01-01T18:00:30"},
        },
    )
    inject = tool(
        "inject", "inject.all",
        {
            "q": {"type": "string", "description": INJECT, "default": INJECT, "examples": [INJECT],
                  "enum": [INJECT, "b", "__proto__"], "pattern": r"^[^#]*\/?[^#]*$", "maxLength": 1000},
            "o": {"type": "object", "const": {"__proto__": {"x": INJECT}, "constructor": 1},
                  "properties": {"__proto__": {"type": "object"}, "constructor": {"type": "integer"}},
                  "required": ["__proto__"], "additionalProperties": False},
            "n": {"type": "number", "enum": [1, 2.5, 1e20, -0.125]},
            "w": {"type": "string"},
            "arr": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}},
                                                "required": ["k"], "additionalProperties": False},
                    "minItems": 1, "maxItems": 3, "uniqueItems": True},
        },
        ["q"],
        required_roles=[INJECT],
        format_bounds={"w": {"formatMinimum": INJECT}},
        confirmation_required=True, confirmation_message=INJECT + " {{ q }} {{n}} {{o}}",
        preconditions=[{"text": t, "kind": "state"} for t in ("import", "pass", "delete", "new", INJECT)] + [
            rel("w is required when q is '" + INJECT.replace("'", "") + "'", "required_when_equal", ["w", "q"],
                INJECT.replace("'", ""))],
    )
    proto = tool(
        "__proto__", "proto.call",
        {"__proto__": {"type": "object", "properties": {"toString": {"type": "string"}},
                       "additionalProperties": False},
         "constructor": {"type": "string", "maxLength": 2}},
        ["__proto__"],
        preconditions=[rel("__proto__ requires constructor", "requires", ["__proto__", "constructor"])],
    )
    booking = load("booking.tools.json")["tools"][0]
    return {"tools": [account, event, inject, proto, booking]}


def test_generated_typescript_passes_tsc_strict(tmp_path: Path) -> None:
    write_ts(suite_doc(), tmp_path / "suite", test_pre=False)
    write_ts({"tools": []}, tmp_path / "empty", test_pre=False)
    tsc_check(tmp_path)


def test_stub_names_for_reserved_texts() -> None:
    names = stub_names(suite_doc())
    assert {"pre_import", "pre_pass", "pre_delete", "pre_new", "room_available"} < set(names)
    for name in names:
        typescript.check_stub_name(name)


ACC = "account-delete"
ACC_ARGS = {"account_id": "123e4567-e89b-12d3-a456-426614174000"}


def account_scenarios() -> list[dict[str, Any]]:
    admin = {"roles": ["admin"], "actor": "alice", "now": 1000}

    def ctx(**kw: Any) -> dict[str, Any]:
        return {**admin, **kw}

    def appr(who: str, roles: list[str], **kw: Any) -> dict[str, Any]:
        return {"approver": who, "roles": roles, "fingerprint": "$fp", **kw}

    two = [appr("bob", ["security"], id="1"), appr("carol", ["owner"], id="2")]
    return [
        {"tool": ACC, "op": "run", "args": ACC_ARGS},
        {"tool": ACC, "op": "run", "args": ACC_ARGS, "context": {"roles": ["user", "guest"]}},
        {"tool": ACC, "op": "run", "args": {"account_id": "nope", "reason": "x"}, "context": ctx()},
        {"tool": ACC, "op": "run", "args": ACC_ARGS, "context": ctx()},
        {"tool": ACC, "op": "run", "args": ACC_ARGS, "context": ctx(request_approval={"url": "https://secret"})},
        {"tool": ACC, "op": "check", "args": ACC_ARGS, "context": ctx(request_approval={"url": "https://secret"})},
        {"tool": ACC, "op": "run", "args": ACC_ARGS,
         "context": ctx(approvals=[appr("alice", ["security"]), appr("bob", ["owner"])])},
        {"tool": ACC, "op": "run", "args": ACC_ARGS,
         "context": ctx(approvals=[appr("bob", ["security"]), appr("bob", ["owner"])])},
        {"tool": ACC, "op": "run", "args": ACC_ARGS,
         "context": ctx(approvals=[appr("bob", ["security"]), appr("dave", ["intern"])])},
        {"tool": ACC, "op": "run", "args": ACC_ARGS,
         "context": ctx(approvals=[appr("bob", ["security"]), appr("carol", ["owner"], granted=False)])},
        {"tool": ACC, "op": "run", "args": ACC_ARGS,
         "context": ctx(approvals=[appr("bob", ["security"]), appr("carol", ["owner"], fingerprint="x")])},
        {"tool": ACC, "op": "check", "args": ACC_ARGS, "context": ctx(approvals=two)},
        {"tool": ACC, "op": "run", "args": ACC_ARGS, "context": ctx(approvals=two), "result": 1},
        # single use: the same approvals again -> approval_required; cooldown first
        {"tool": ACC, "op": "run", "args": ACC_ARGS, "context": ctx(approvals=two, now=1010)},
        {"tool": ACC, "op": "run", "args": ACC_ARGS, "context": ctx(approvals=two, now=1031)},
        {"tool": ACC, "op": "run", "args": ACC_ARGS,
         "context": ctx(approvals=[appr("bob", ["security"], id="3"), appr("carol", ["owner"], id="4")], now=1031)},
        # honest guidance, expiry, why offered approvals did not count
        {"tool": ACC, "op": "run", "args": ACC_ARGS,
         "context": ctx(request_approval={"request_id": "r1", "notified": False}, now=1032)},
        {"tool": ACC, "op": "run", "args": ACC_ARGS,
         "context": ctx(request_approval={"request_id": "r1", "status": "expired"}, now=1032)},
        {"tool": ACC, "op": "run", "args": ACC_ARGS,
         "context": ctx(approvals=[appr("bob", ["security"], id="7", expires=1000),
                                   appr("carol", ["owner"], id="8", expires=2000)], now=1032)},
        {"tool": ACC, "op": "run", "args": ACC_ARGS,
         "context": ctx(approvals=[appr("alice", ["owner"]), appr("dave", ["intern"]), appr("erin", ["owner"], fingerprint="x")],
                        now=1032)},
        # rate limit (2/minute): third execution within the window
        {"tool": ACC, "op": "run", "args": ACC_ARGS,
         "context": ctx(approvals=[appr("bob", ["security"], id="5", scope="value"),
                                   appr("carol", ["owner"], id="6", scope="value")], now=1062)},
        {"tool": ACC, "op": "run", "args": ACC_ARGS, "context": ctx(now=1100)},
        {"tool": ACC, "op": "run", "args": ACC_ARGS, "context": ctx(now=1200), "result": "remembered"},
        {"tool": ACC, "op": "check", "args": ACC_ARGS, "context": ctx(now=1200.5)},
        {"tool": ACC, "op": "check", "args": ACC_ARGS, "context": ctx(now=1261)},
        {"tool": ACC, "op": "run", "args": ACC_ARGS, "context": ctx(now=1230)},
        {"tool": ACC, "op": "check", "args": ACC_ARGS, "context": ctx(now=1259.5)},
        {"op": "reset"},
        {"tool": ACC, "op": "check", "args": ACC_ARGS, "context": ctx(now=1200.5)},
    ]


def test_account_scenarios_match_python(both: Any) -> None:
    run_ts, run_py = both
    scenarios = account_scenarios()
    ts, py = run_ts(scenarios), run_py(scenarios)
    for sc, a, b in zip(scenarios, ts, py, strict=True):
        assert a == b, sc
    perms = [r.get("permission") for r in ts]
    assert perms == [
        "denied", "denied", "constraint_violated", "approval_required", "approval_required", "approval_required",
        "approval_required", "approval_required", "approval_required", "denied", "approval_required", "approved",
        "approved", "rate_limited", "approval_required", "rate_limited", "approval_required", "expired", "expired",
        "approval_required", "approved", "approved", "approved",
        "rate_limited", "approved", "approved", "rate_limited", None, "approval_required",
    ]
    assert ts[16]["guidance"].endswith("The request was recorded, but nobody could be notified, so it waits until an "
                                       "approver looks for it. Do not repeat the call or try to approve it yourself; "
                                       "tell the user approval is pending.")
    assert ts[18]["caller_only"]["not_counted"] == [{"approver": "bob", "id": "7", "reason": "expired"}]
    assert ts[19]["caller_only"]["not_counted"] == [
        {"approver": "alice", "id": "", "reason": "self-approval"}, {"approver": "dave", "id": "", "reason": "roles"},
        {"approver": "erin", "id": "", "reason": "different arguments"}]
    assert ts[13]["violations"][0]["constraint"] == "cooldown"
    assert ts[13]["violations"][0]["actual"] == {"retry_after_seconds": 20}
    assert ts[26]["violations"][0]["message"] == "account-delete is rate limited (2/minute); retry after 1 seconds."
    assert ts[22]["result"]["value"] == "remembered"
    # the same calls through a store whose methods return promises
    again = run_ts([{"op": "reset-async"}, *scenarios])
    assert again[1:] == ts
    assert ts[4]["caller_only"]["approval"]["url"] == "https://secret"
    assert ts[5]["caller_only"]["approval"] is None
    for r in ts:
        assert "https://secret" not in json.dumps({k: v for k, v in r.items() if k != "caller_only"})


def event_scenarios() -> list[dict[str, Any]]:
    e = "event_schedule"
    cases: list[dict[str, Any]] = [
        {"email": "a@b"},
        {"email": "a@b", "phone": "1"},
        {"user_id": "u", "phone": "1", "email": None},
        {},
        {"phone": "1", "start": "2026-01-01T10:00:00+02:00", "end": "2026-01-01T08:30:00Z"},
        {"phone": "1", "start": "2026-01-01T10:00:00.5z", "end": "2026-01-01T10:00:00.50Z"},
        {"phone": "1", "start": "2026-06-30T23:59:60Z", "end": "2026-06-30T23:59:59.9999999Z"},
        {"phone": "1", "start": "2026-13-01T00:00:00Z", "end": "2026-01-01T00:00:00Z"},
        {"phone": "1", "t1": "23:00:00+00:00", "t2": "00:30:00+01:00"},
        {"phone": "1", "t1": "10:00:00-05:00", "t2": "16:00:00+02:00"},
        {"phone": "1", "local": "2027-01-01T00:00"},
        {"phone": "1", "local": "2026-12-31T23:59:00.000"},
        {"phone": "1", "count": 5, "limit": 4.5},
        {"phone": "1", "count": 0, "limit": 0},
        {"phone": "1", "count": 3, "limit": 3.0},
        {"phone": "1", "count": 2.0, "limit": 1},
        {"phone": "1", "count": -1, "limit": True},
        {"phone": "1", "coupon": "c"},
        {"phone": "1", "coupon": "c", "customer": None},
        {"phone": "1", "a": True, "b": False},
        {"phone": "1", "a": True, "b": None},
        {"phone": "1", "country": "DE"},
        {"phone": "1", "country": "FR", "zip": "1"},
        {"phone": "1", "country": "XX"},
        {"phone": "1", "name": "x", "nickname": "x"},
        {"phone": "1", "day": "2025-12-31", "slot": "12:00", "month": "2025-12", "when": "2026-01-01T18:00:31"},
        {"phone": "1", "day": "2026-12-31", "slot": "23:30", "month": "2026-01", "when": "2026-01-01T18:00:30.000"},
        {"phone": "1", "slot": "06:00:00.000"},
        {"phone": "1", "slot": "06:00:01"},
        {"phone": "1", "when": "2026-01-01T07:59:59.999"},
        {"phone": "1", "day": "2026-02-29", "month": "2026-1", "slot": "24:00"},
    ]
    out = [{"tool": e, "op": "run", "args": c} for c in cases]
    out.append({"tool": e, "op": "run", "args": {"phone": "1", "email": None}, "context": {"null_as_absent": True}})
    return out


def test_event_scenarios_match_python(both: Any) -> None:
    run_ts, run_py = both
    scenarios = event_scenarios()
    ts, py = run_ts(scenarios), run_py(scenarios)
    for sc, a, b in zip(scenarios, ts, py, strict=True):
        assert a == b, sc
    perms = [r["permission"] for r in ts]
    assert perms.count("not_required") == 8
    assert ts[3]["guidance"].startswith("The arguments break 2 constraints of event_schedule: Give exactly one of "
                                        "email, phone, user_id; got 0. Give at least one of phone, user_id. ")
    assert ts[5]["violations"][0]["message"] == "end must be after start."
    assert ts[6]["success"] is True  # second 60 counts as 59.999999 < 59.9999999
    assert ts[12]["violations"][0]["message"] == "count must be at most limit."
    assert ts[25]["violations"][1] == {
        "field": "slot", "constraint": "formatMinimum", "expected": "22:00", "actual": "12:00",
        "message": "slot must be 22:00 or later, or 06:00 or earlier."}
    assert ts[-1]["result"]["handled"] == {"phone": "1"}


def inject_scenarios() -> list[dict[str, Any]]:
    i = "inject"
    roles = {"roles": [INJECT]}
    good_o = {"__proto__": {"x": INJECT}, "constructor": 1}
    return [
        {"tool": i, "op": "run", "args": {"q": INJECT}},
        {"tool": i, "op": "run", "args": {"q": INJECT}, "context": roles},
        {"tool": i, "op": "run", "args": {"q": "__proto__", "o": {"constructor": 1}}, "context": roles},
        {"tool": i, "op": "run", "args": {"q": "b", "o": good_o, "n": 1e20}, "context": roles},
        {"tool": i, "op": "run", "args": {"q": "b", "n": 1.0, "arr": [{"k": "a"}, {"k": "a"}, {"x": 1}, {}]},
         "context": roles},
        {"tool": i, "op": "run", "args": {"q": "b", "n": 2.5, "arr": []}, "context": roles},
        {"tool": i, "op": "run", "args": {"q": "b"}, "context": roles, "pre": {"pre_import": False}},
        {"tool": i, "op": "run", "args": {"q": "b", "w": "a"}, "context": roles},
        {"tool": i, "op": "run", "args": {"q": INJECT.replace("'", "")}, "context": roles},
        {"tool": i, "op": "run", "args": {"q": "b"}, "context": roles,
         "pre": {"pre_import": True, "pre_pass": True, "pre_delete": True, "pre_new": True}},
        {"tool": "__proto__", "op": "run", "args": {"__proto__": {"toString": "x"}}},
        {"tool": "__proto__", "op": "run", "args": {"__proto__": {"toString": 1, "valueOf": 2}, "constructor": "abc"}},
        {"tool": "__proto__", "op": "run", "args": {"__proto__": {}, "constructor": "ab"}, "result": INJECT},
        {"tool": "__proto__", "op": "run", "args": {"constructor": "ab", "toString": None}},
    ]


def test_inject_scenarios_match_python(both: Any) -> None:
    run_ts, run_py = both
    scenarios = inject_scenarios()
    ts, py = run_ts(scenarios), run_py(scenarios)
    for sc, a, b in zip(scenarios, ts, py, strict=True):
        assert a == b, sc
    assert ts[1]["permission"] == "confirmation_required"
    assert ts[1]["caller_only"]["confirmation_message"] == (
        INJECT.replace("{{y}}", "(not given)") + " " + INJECT + " (not given) (not given)")
    assert ts[3]["caller_only"]["confirmation_message"].endswith(
        ' b 1e+20 {"__proto__":{"x":' + json.dumps(INJECT, ensure_ascii=False) + '},"constructor":1}')
    assert ts[12]["result"]["value"] == INJECT
    assert ts[7]["violations"][0]["constraint"] == "formatMinimum"
    assert ts[8]["violations"][-1]["constraint"] == "required_when_equal"
    assert ts[8]["violations"][-1]["expected"] == "w is required when q is '" + INJECT.replace("'", "") + "'"
    for r in ts:
        if "caller_only" in r:
            model = json.dumps({k: v for k, v in r.items() if k != "caller_only"})
            assert r["caller_only"]["fingerprint"] not in model


# ---------------------------------------------------------------- literal round trip (code-generation guarantees)
def strict_equal(a: Any, b: Any) -> bool:
    """JSON equality that never equates booleans with numbers (Python's True == 1 would)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("doc_name", ["booking", "suite"])
def test_every_emitted_constant_round_trips_through_node(doc_name: str) -> None:
    _, node = _need_node()
    doc = load("booking.tools.json") if doc_name == "booking" else suite_doc()
    specs = guard_spec.extract_specs(doc)
    guards_ts = render.render_guards(doc, "typescript", None).files["guards.ts"]
    constants = typescript.literal_constants(specs)
    assert len(constants) > 15
    for text, _value in constants:
        assert text in guards_ts
        assert text.isascii() and "\n" not in text
    program = "process.stdout.write(JSON.stringify([" + ",\n".join(t for t, _ in constants) + "]));"
    proc = subprocess.run([node, "-e", program], check=False, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    decoded = json.loads(proc.stdout)
    for (text, value), got in zip(constants, decoded, strict=True):
        assert strict_equal(got, value), text
    # object keys such as __proto__ survive JSON.parse as own properties
    assert doc_name == "booking" or any(isinstance(v, dict) and "__proto__" in json.dumps(v) for _, v in constants)


def test_stub_messages_round_trip_through_node() -> None:
    _, node = _need_node()
    user = render.render_guards(suite_doc(), "typescript", None).user_module
    messages = [line.strip()[len("throw new NotImplementedError("):-2] for line in user.splitlines()
                if "throw new NotImplementedError(" in line]
    assert len(messages) == 6
    proc = subprocess.run([node, "-e", "process.stdout.write(JSON.stringify([" + ",".join(messages) + "]))"],
                          check=False, capture_output=True, text=True)
    got = json.loads(proc.stdout)
    assert f'precondition "{INJECT}" (used by inject) is not implemented' in got


# ---------------------------------------------------------------- runtime.ts against the Python runtime


@pytest.fixture(scope="module")
def unit(suite_build: tuple[Path, PyGuards]) -> Any:
    """ops -> results of tests/data/guards_ts/unit.mjs run on the compiled runtime.ts."""
    _, node = _need_node()
    out, _ = suite_build

    def run(ops: list[dict[str, Any]]) -> list[Any]:
        path = out / "ops.json"
        path.write_text(json.dumps(ops), encoding="utf-8")
        proc = subprocess.run([node, "unit.mjs", str(path)], check=False, cwd=out, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        result: list[Any] = json.loads(proc.stdout)
        return result

    return run


SAFE_INT = st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
FLOATS = st.floats(allow_nan=False, allow_infinity=False)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | SAFE_INT | FLOATS | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=12,
)
SETTINGS = settings(max_examples=int(os.environ.get("AXAG_TS_EXAMPLES", "8")), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def test_fingerprint_known_value(unit: Any) -> None:
    import hashlib

    args = {"b": [1, 2.5, None, True, 10.0, 1e16], "a": "é\u2028\U0001f600", "\U0001f600": 1, "\uffff": 2}
    text = ('{"arguments":{"a":"\\u00e9\\u2028\\ud83d\\ude00","b":[1,2.5,null,true,10,1e+16],'
            '"\\uffff":2,"\\ud83d\\ude00":1},"tool":"t"}')
    expected = hashlib.sha256(text.encode("ascii")).hexdigest()
    assert unit([{"op": "canonical", "value": {"tool": "t", "arguments": args}},
                 {"op": "fingerprint", "tool": "t", "args": args}]) == [text, expected]
    assert pyruntime.fingerprint("t", args) == expected


@SETTINGS
@given(st.lists(st.tuples(st.text(max_size=6), JSON_VALUES), min_size=30, max_size=30))
def test_fingerprints_equal_python(unit: Any, cases: list[tuple[str, Any]]) -> None:
    ops = [{"op": "fingerprint", "tool": t, "args": {"v": v}} for t, v in cases]
    assert unit(ops) == [pyruntime.fingerprint(t, {"v": v}) for t, v in cases]


@SETTINGS
@given(st.lists(FLOATS | SAFE_INT, min_size=40, max_size=40))
def test_number_text_equals_python(unit: Any, numbers: list[float]) -> None:
    fixed = [0.1, 1e16, 1e15, 123456789.125, 5e-324, 1e-5, 0.0001, -0.0, 2.0**53, 1.7976931348623157e308, 1e22]
    values = numbers + fixed
    assert unit([{"op": "number", "value": v} for v in values]) == [guard_spec.number_text(v) for v in values]


FORMAT_ALPHABET = {
    "email": "a@. \t\x1c\x85\u2028\ufeff\u3000é",
    "uri": "aZ9+.-:/ \t\x1f\u00a0é",
    "date": "0123456789-",
    "date-time": "0123456789-:.TtZz+",
    "time": "0123456789:.Zz+-",
    "uuid": "0af9AF-g",
    "ipv4": "0123456789.",
    "ipv6": "0123abfABF:.%",
    "hostname": "aZ09-.",
}
FORMAT_SAMPLES = [
    ("date", "2024-02-29"), ("date", "2023-02-29"), ("date", "0000-02-29"), ("date-time", "2026-06-30T23:59:60Z"),
    ("date-time", "2026-06-30t23:59:59.123+23:59"), ("date-time", "2026-06-30T24:00:00Z"),
    ("time", "23:59:60.5-00:00"), ("time", "12:00:00"), ("ipv4", "255.255.255.255"), ("ipv4", "256.1.1.1"),
    ("ipv4", "01.1.1.1"), ("ipv6", "::"), ("ipv6", "::1"), ("ipv6", "1::"), ("ipv6", "1:2:3:4:5:6:7:8"),
    ("ipv6", "1:2:3:4:5:6:7::"), ("ipv6", "::ffff:1.2.3.4"), ("ipv6", "::ffff:01.2.3.4"), ("ipv6", "1:2:3:4:5:6:7:8:9"),
    ("ipv6", ":1:2:3:4:5:6:7"), ("ipv6", "1::2::3"), ("ipv6", "fe80::1%eth0"), ("ipv6", "12345::"),
    ("ipv6", "1:2:3:4:5:6:1.2.3.4"), ("ipv6", "1:2:3:4:5:6:7:1.2.3.4"), ("hostname", "a" * 63 + ".b"),
    ("hostname", "a" * 64), ("hostname", "a."), ("hostname", "-a"), ("hostname", ("a." * 127)[:253]),
    ("email", "a@b"), ("email", "a b@c"), ("email", "a@b\u2028"), ("email", "a@b\ufeff"), ("email", "a@b\x1c"),
    ("uri", "urn:x"), ("uri", "1a:x"), ("uri", "a:\u00a0"), ("uuid", "123e4567-e89b-12d3-a456-426614174000"),
    ("unknown", "x"),
]


def test_formats_equal_python_on_samples(unit: Any) -> None:
    got = unit([{"op": "format", "format": f, "value": v} for f, v in FORMAT_SAMPLES])
    assert got == [pyruntime.check_format(f, v) for f, v in FORMAT_SAMPLES]
    assert got[:3] == [True, False, True]


@SETTINGS
@given(st.lists(st.sampled_from(sorted(FORMAT_ALPHABET)).flatmap(
    lambda f: st.tuples(st.just(f), st.text(alphabet=FORMAT_ALPHABET[f], max_size=40))), min_size=60, max_size=60))
def test_formats_equal_python(unit: Any, cases: list[tuple[str, str]]) -> None:
    assert unit([{"op": "format", "format": f, "value": v} for f, v in cases]) == [
        pyruntime.check_format(f, v) for f, v in cases]


# ---------------------------------------------------------------- validator differential (guard value checks)
KEYS = st.text(alphabet="abc_", min_size=1, max_size=3)
PATTERNS = ["^[a-c]+", "b", "^(?:ab|c)", "[0-9]{2}", "a.c", "^$", "\u00e9|\U0001f600"]
VALUE_TEXT = st.text(alphabet="abc09_\u00e9\U0001f600 \n", max_size=6)
SCALARS = st.none() | st.booleans() | SAFE_INT | FLOATS | st.sampled_from([0, 1, 2.0, 0.5, 1e20, -3]) | VALUE_TEXT
VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=4),
    max_leaves=10,
)
ORDER = ["type", "format", "enum", "const", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum",
         "multipleOf", "minLength", "maxLength", "pattern", "items", "minItems", "maxItems", "uniqueItems",
         "properties", "required", "additionalProperties"]


@st.composite
def property_schema(draw: Any, depth: int = 0) -> dict[str, Any]:
    kinds = ["string", "number", "integer", "boolean"] + (["array", "object"] if depth < 2 else [])
    kind = draw(st.sampled_from(kinds))
    out: dict[str, Any] = {"type": kind}
    maybe = st.booleans()
    if draw(maybe):
        out["enum"] = draw(st.lists(VALUES, min_size=1, max_size=3))
    if draw(st.integers(0, 5)) == 0:
        out["const"] = draw(VALUES)
    if kind == "string":
        if draw(maybe):
            out["format"] = draw(st.sampled_from(["email", "uri", "date", "date-time", "time", "uuid", "ipv4",
                                                  "ipv6", "hostname"]))
        if draw(maybe):
            out["minLength"] = draw(st.integers(0, 3))
        if draw(maybe):
            out["maxLength"] = draw(st.integers(0, 5))
        if draw(maybe):
            out["pattern"] = draw(st.sampled_from(PATTERNS))
    elif kind in ("number", "integer"):
        number = SAFE_INT | FLOATS.filter(lambda x: abs(x) < 1e300)
        for key in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
            if draw(maybe):
                out[key] = draw(number)
        if draw(maybe):
            out["multipleOf"] = draw(st.sampled_from([1, 2, 3, 0.5, 0.1, 1e20, 2.5, 1e-300, 7]))
    elif kind == "array":
        if draw(maybe):
            out["items"] = draw(property_schema(depth + 1))
        if draw(maybe):
            out["minItems"] = draw(st.integers(0, 2))
        if draw(maybe):
            out["maxItems"] = draw(st.integers(0, 3))
        if draw(maybe):
            out["uniqueItems"] = True
    elif kind == "object" and draw(maybe):
        props = draw(st.dictionaries(KEYS, property_schema(depth + 1), min_size=1, max_size=3))
        out["properties"] = props
        req = [k for k in props if draw(maybe)]
        if req:
            out["required"] = req
        out["additionalProperties"] = False
    return {k: out[k] for k in ORDER if k in out}


def _value_for(schema: dict[str, Any]) -> Any:
    return st.one_of(VALUES, st.sampled_from(schema.get("enum", [None])), st.just(schema.get("const")))


@SETTINGS
@given(st.lists(property_schema().flatmap(lambda s: st.tuples(st.just(s), _value_for(s))), min_size=25,
                max_size=25))
def test_validator_equals_python(unit: Any, cases: list[tuple[dict[str, Any], Any]]) -> None:
    got = unit([{"op": "validate", "schema": s, "value": v} for s, v in cases])
    for (schema, value), ts in zip(cases, got, strict=True):
        expected: list[Any] = []
        py: list[Any] = []
        pyruntime._validate(schema, value, "", "the schema", py)
        expected = [json.loads(json.dumps(v.to_dict())) for v in py]
        assert ts == expected, (schema, value)


def test_write_guards_typescript_files(tmp_path: Path) -> None:
    doc = load("booking.tools.json")
    warnings, _ = render.write_guards(doc, tmp_path, "typescript")
    assert warnings == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["guards.ts", "preconditions.ts", "runtime.ts"]
    (tmp_path / "preconditions.ts").write_text("export const other = 1;\n", encoding="utf-8")
    warnings, _ = render.write_guards(doc, tmp_path, "typescript")
    assert len(warnings) == 1 and "room_available" in warnings[0]
    assert (tmp_path / "preconditions.ts").read_text(encoding="utf-8") == "export const other = 1;\n"
    assert "export function room_available(" in (tmp_path / "preconditions.missing.txt").read_text(encoding="utf-8")
    (tmp_path / "preconditions.ts").write_text("export async function room_available() { return true; }\n",
                                               encoding="utf-8")
    assert render.write_guards(doc, tmp_path, "typescript") == ([], [])
    assert not (tmp_path / "preconditions.missing.txt").exists()
    assert render.write_guards(doc, tmp_path, "typescript", check=True) == ([], [])


EVENT_POOLS: dict[str, list[Any]] = {
    "start": ["2026-01-01T10:00:00+02:00", "2026-01-01T08:00:00Z", "2026-01-01T08:00:00.000001z",
              "2026-06-30T23:59:60Z", "2026-06-30T23:59:59.9999991-00:00", "2026-02-30T00:00:00Z", 5],
    "t1": ["23:00:00+00:00", "00:30:00+01:00", "12:00:00.5Z", "12:00:00.50z", "23:59:60-23:59", "24:00:00Z"],
    "local": ["2026-12-31T23:59", "2026-12-31T23:59:00.001", "2027-01-01T00:00", "2026-12-31T23:58:59.999"],
    "count": [0, 1, 2.0, 3, -1, 2.5, True, None],
    "limit": [0, 1.5, 2, 3.0, 1e20, "2", None],
    "email": ["a@b", "a b@c", None],
    "phone": ["1", None, ""],
    "user_id": ["u", None],
    "coupon": ["c", None],
    "customer": ["k", None],
    "a": [True, False, None, 0],
    "b": [True, False, None],
    "country": ["DE", "FR", "XX", None, 1],
    "vat_id": ["v", None],
    "zip": ["z", None],
    "name": ["x", "y", None],
    "nickname": ["x", "y", None],
    "day": ["2025-12-31", "2026-01-01", "2026-12-31", "2027-01-01", "2026-13-01"],
    "slot": ["21:59:59.999", "22:00", "23:59:59", "00:00", "06:00:00.000", "06:00:00.001", "12:00", "6:00"],
    "month": ["2025-12", "2026-01", "2026-1"],
    "when": ["2026-01-01T08:00", "2026-01-01T07:59:59.999", "2026-01-01T18:00:30", "2026-01-01T18:00:30.001"],
}
EVENT_POOLS["end"] = EVENT_POOLS["start"]
EVENT_POOLS["t2"] = EVENT_POOLS["t1"]
EVENT_ARGS = st.dictionaries(st.sampled_from(sorted(EVENT_POOLS)), st.none(), max_size=8).flatmap(
    lambda keys: st.fixed_dictionaries({k: st.sampled_from(EVENT_POOLS[k]) for k in keys}))


@SETTINGS
@given(st.lists(st.tuples(EVENT_ARGS, st.booleans()), min_size=40, max_size=40))
def test_random_event_calls_match_python(both: Any, calls: list[tuple[dict[str, Any], bool]]) -> None:
    run_ts, run_py = both
    scenarios = [{"tool": "event_schedule", "op": "check", "args": args,
                  "context": {"null_as_absent": nulls}} for args, nulls in calls]
    assert run_ts(scenarios) == run_py(scenarios)


UNIQUE_ITEMS = st.recursive(
    st.sampled_from([0, 1, 1.0, 2, True, False, None, "a", "b"]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from("ab"), children, max_size=2),
    max_leaves=6,
)


def _json_equal_oracle(a: Any, b: Any) -> bool:
    """JSON equality written out independently: numbers by value, booleans apart from numbers, deep."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal_oracle(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal_oracle(a[k], b[k]) for k in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


@SETTINGS
@given(st.lists(st.lists(UNIQUE_ITEMS, max_size=5), min_size=60, max_size=60))
def test_unique_items_uses_json_equality(unit: Any, arrays: list[list[Any]]) -> None:
    """JSON equality in both runtimes: [0] and [false] differ, 1 and true differ, 1 and 1.0 are equal, objects
    compare by keys whatever their order (the sort-then-compare shortcut got [[0], [false], [0]] wrong)."""
    pinned = [[[0], [False], [0]], [[0], [False]], [1, True], [1, 1], [1, 1.0], [0, False], [[1], [True]],
              [{"a": 1, "b": 2}, {"b": 2, "a": 1}], [{"a": 1}, {"a": True}], [None, False, 0, "", [], {}]]
    arrays = [*pinned, *arrays]
    schema = {"type": "array", "uniqueItems": True}
    got = unit([{"op": "validate", "schema": schema, "value": a} for a in arrays])
    expected = [not any(_json_equal_oracle(a[i], a[j]) for i in range(len(a)) for j in range(i)) for a in arrays]
    assert [not g for g in got] == expected
    assert [pyruntime._unique(a) for a in arrays] == expected
    assert expected[:len(pinned)] == [False, True, True, False, False, True, True, False, True, True]


@pytest.mark.parametrize("pattern", ["(?i)a", "\\_", "(?<=a)b", "\\Z"])
def test_patterns_outside_the_subset_are_refused(pattern: str) -> None:
    doc = load("booking.tools.json")
    doc["tools"][0]["inputSchema"]["properties"]["note"]["pattern"] = pattern
    for lang in ("python", "typescript"):  # both runtimes read patterns as ECMA-262: the subset only
        with pytest.raises(InputError, match="parameter note: pattern"):
            render.render_guards(doc, lang, None)
