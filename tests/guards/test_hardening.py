"""No guard can be bypassed, hung or crashed.

* ``pattern`` is ECMA-262 in both runtimes: the Python translation is compared with JavaScript's own ``RegExp``
  (``u`` flag) under Node on fixed and generated (pattern, string) cases;
* odd or deep arguments and malformed contexts get the same refusal envelope from the Python and the TypeScript
  guards; tool names never resolve to inherited members; uniqueItems uses JSON equality; rate limits are per actor;
  a confirmed call says so; guards generated for OpenAI strict mode read null as absent by default;
* super-linear patterns are bounded by ``maxLength`` (rule 117) and a guard on a worst-case input finishes fast;
* ``axag guards`` never overwrites a file it did not generate.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from axag.guards import render
from axag.values import pyruntime
from axag.values.pattern import check_pattern, cost_problem, pattern_degree
from tests.conftest import lint_json, run_axag
from tests.guards.test_typescript import LOCAL_DT, PyGuards, _need_node, compile_ts, rel, tool, write_ts

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------- ECMA-262 patterns, checked by Node
# JavaScript's RegExp with the u flag, tried only where ECMA-262 tries a match: at code-point boundaries (V8 also
# tries between a surrogate pair's halves, where e.g. \B holds: such a match is skipped, the search goes on after it)
NODE_REGEXP = """
const cases = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const midPair = (s, i) => i > 0 && /[\\ud800-\\udbff]/.test(s[i - 1]) && /[\\udc00-\\udfff]/.test(s[i]);
function search(p, s) {
  const re = new RegExp(p, "gu");
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    if (!midPair(s, m.index)) { return true; }
    re.lastIndex = m.index + 1;
  }
  return false;
}
console.log(JSON.stringify(cases.map(([p, s]) => { try { return search(p, s); } catch { return null; } })));
"""


def node_search(cases: list[tuple[str, str]], tmp: Path) -> list[bool | None]:
    _, node = _need_node()
    path = tmp / "cases.json"
    path.write_text(json.dumps(cases), encoding="utf-8")
    proc = subprocess.run([node, "-e", NODE_REGEXP, str(path)], check=True, capture_output=True, text=True)
    result: list[bool | None] = json.loads(proc.stdout)
    return result


def python_search(pattern: str, text: str) -> bool:
    """The Python guard's verdict: no pattern violation."""
    return pyruntime.validate_value({"type": "string", "pattern": pattern}, text) == []


# an assertion around an astral character: ECMA-262 never tries a match between the halves of its surrogate pair
# (V8 does, and would say true where the value is False); (pattern, text, the spec's verdict)
ASTRAL = [
    ("\\B", "b\U0001f600_", False), ("\\B", "b\U0001f600", True), ("\\B", "\U0001f600", True),
    ("\\B_", "b\U0001f600_", False), ("\\b", "\U0001f600", False), ("\\b", "\U0001f600a", True),
    ("(?!a)\\B(?!$)", "b\U0001f600", False), ("(?!.)(?!$)", "\U0001f600", False), ("(?!.)", "\U0001f600", True),
    ("(?!\\ude00)\\B", "b\U0001f600_", False),
]
# lookbehind is outside the pattern subset (the Python guards refuse it): checked against the Node reference only
ASTRAL_LOOKBEHIND = [("(?<!a)\\B(?!$)", "a\U0001f600", False), ("(?<!a)\\B", "a\U0001f600", True),
                     ("(?<!.)(?!^)", "\U0001f600", False), ("(?<=\\ud83d)", "\U0001f600", False)]

FIXED = [
    (LOCAL_DT, "2020-01-01T03:00\n"), (LOCAL_DT, "2020-01-01T03:00"), ("^\\d+$", "12\n"), ("x$", "x\n"),
    ("^\\w+$", "\u00e9\u00e9"), ("^\\w+$", "ab_9"), ("\\d", "\u0661"), ("a.c", "a\u2028c"), ("a.c", "a\u2029c"),
    ("a.c", "a\rc"), ("a.c", "a\u0085c"), ("a.c", "a\U0001f600c"), ("\\s", "\ufeff"), ("\\s", "\x85"),
    ("\\s", "\x1c"), ("\\s", "\u00a0"), ("[\\S]", "\x85"), ("\\bab", "\u00e9ab"), ("\\Bab", "\u00e9ab"),
    ("^[^a]$", "\U0001f600"), ("^.$", "\U0001f600"), ("^\\ud83d\\ude00$", "\U0001f600"), ("[\\w-]$", "-"),
    ("^(?:a|b)+$", "abab\n"), ("^$", "\n"), ("(?=a)", "ba"), ("^\\x41\\u00e9$", "A\u00e9"), ("\\$", "$"),
    ("^[\\s\\S]$", "\n"), ("[\\D]", "1"), ("^[\\d\\s]+$", "1 \u2028"), ("\\W", "\u00e9"), ("^\\B", ""),
    ("\\B", "a"), ("\\b", ""), ("^\\B$", ""), *[(p, s) for p, s, _ in ASTRAL],
]


def test_fixed_patterns_follow_ecma(tmp_path: Path) -> None:
    expected = node_search(FIXED, tmp_path)
    assert [python_search(p, s) for p, s in FIXED] == expected
    assert expected[:4] == [False, True, False, False]  # "$" is the end of the text, not before a final newline
    assert expected[4] is False  # \w is ASCII


def test_no_match_starts_inside_a_surrogate_pair(tmp_path: Path) -> None:
    cases = [(p, s) for p, s, _ in ASTRAL]
    spec = [v for _, _, v in ASTRAL]
    assert [python_search(p, s) for p, s in cases] == spec
    assert node_search(cases, tmp_path) == spec
    assert node_search([(p, s) for p, s, _ in ASTRAL_LOOKBEHIND], tmp_path) == [v for _, _, v in ASTRAL_LOOKBEHIND]


ATOMS = ["a", "b", "\u00e9", "\U0001f600", ".", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "[a-c]", "[^a]",
         "[\\w-]", "[\\s\\S]", "[\u00e9-\u00fc]", "\\n", "\\u2028", "\\x41", "\\.", "\\$", "-", "_", " ", "[\\d\\s]"]
QUANTIFIERS = ["", "", "", "*", "+", "?", "{1,2}", "*?", "+?", "{2}"]


@st.composite
def ecma_patterns(draw: Any, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 9))
        if kind == 0 and depth < 2:
            inner = draw(ecma_patterns(depth + 1))
            if draw(st.booleans()):
                parts.append(draw(st.sampled_from(["(?=%s)", "(?!%s)"])) % inner)
            else:
                parts.append(draw(st.sampled_from(["(?:%s)", "(%s)"])) % inner + draw(st.sampled_from(QUANTIFIERS)))
        elif kind == 1:
            parts.append(draw(st.sampled_from(["^", "$", "\\b", "\\B"])))
        else:
            parts.append(draw(st.sampled_from(ATOMS)) + draw(st.sampled_from(QUANTIFIERS)))
    body = "".join(parts)
    if draw(st.integers(0, 4)) == 0:
        body += "|" + draw(ecma_patterns(depth + 1))
    return body


TEXTS = st.text(alphabet="ab \u00e9\U0001f600\n\r\u2028\u2029\ufeff\x85\xa0_1-.$A\t\x0b\u0661", max_size=8)


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # each example is a batch: no slow shrinking
@given(st.lists(st.tuples(ecma_patterns().filter(lambda p: check_pattern(p) is None), TEXTS), min_size=40,
                max_size=40))
def test_generated_patterns_follow_ecma(tmp_path_factory: pytest.TempPathFactory,
                                        cases: list[tuple[str, str]]) -> None:
    expected = node_search(cases, tmp_path_factory.mktemp("ecma"))
    assert None not in expected  # every pattern of the subset is valid for JavaScript
    got = [python_search(p, s) for p, s in cases]
    assert got == expected, [c for c, g, e in zip(cases, got, expected, strict=True) if g != e]


def test_untranslatable_pattern_refuses() -> None:
    """A pattern outside the subset (a guard built by hand) matches nothing: the value is refused."""
    assert python_search("(?<=a)b", "ab") is False
    assert python_search("(?i)a", "a") is False


# ---------------------------------------------------------------- TypeScript and Python guards, same envelopes
def hardening_doc() -> dict[str, Any]:
    dt = {"type": "string", "pattern": LOCAL_DT}
    slot = tool(
        "slot", "slot.book",
        {"starts_at": dt, "ends_at": dt, "note": {"type": "string", "maxLength": 5, "pattern": "^[a-z]+$"},
         "tags": {"type": "array", "uniqueItems": True}, "deep": {"type": "array"}, "level": {"type": "integer"}},
        [],
        preconditions=[rel("ends_at is after starts_at", "greater_than", ["ends_at", "starts_at"])],
        format_bounds={"starts_at": {"formatMinimum": "2020-01-01T00:00"}},
    )
    confirm = tool("confirm", "confirm.call", {"x": {"type": "integer"}}, ["x"], confirmation_required=True)
    approve = tool("approve", "approve.call", {"x": {"type": "integer"}}, ["x"], required_roles=["staff"],
                   approval_required=True, approval_roles=["security"], approval_count=1)
    limited = tool("limited", "limited.call", {"q": {"type": "string"}}, [],
                   rate_limit={"count": 1, "period": "minute", "window_seconds": 60})
    return {"tools": [slot, confirm, approve, limited]}


_BUILDS = iter(range(10**6))


@pytest.fixture(scope="module")
def strict_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, PyGuards]:
    """The hardening document as guards for OpenAI strict mode (null read as absent by default), in both languages."""
    base = tmp_path_factory.mktemp("hardening")
    write_ts(hardening_doc(), base / "ts", null_as_absent=True)
    return compile_ts(base / "ts"), PyGuards(hardening_doc(), base / "py", f"axag_hardening_{next(_BUILDS)}",
                                             null_as_absent=True)


def run_both(build: tuple[Path, PyGuards], scenarios: list[dict[str, Any]], deep: Any = None) -> list[Any]:
    """Run scenarios through both runtimes (fresh stores) and assert identical envelopes; "$deep" in args is
    replaced by ``deep`` (written as JSON text by hand: too deep for json.dumps)."""
    out, py = build
    py.guards = py.module.make_guards(py.rt.InMemoryStore())
    text = json.dumps([{"op": "reset"}, *scenarios])
    if deep is not None:
        text = text.replace('"$deep"', deep[1])
    path = out / "scenarios.json"
    path.write_text(text, encoding="utf-8")
    _, node = _need_node()
    proc = subprocess.run([node, "driver.mjs", str(path)], check=False, cwd=out, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    ts = [json.loads(line) for line in proc.stdout.split("\n") if line][1:]
    py_scenarios = [{**sc, "args": deep[0] if sc.get("args") == "$deep" else
                     ({k: (deep[0] if v == "$deep" else v) for k, v in sc["args"].items()}
                      if isinstance(sc.get("args"), dict) else sc.get("args"))} for sc in scenarios]
    python = py.run(py_scenarios)
    assert ts == python
    return python


def nested(levels: int) -> tuple[Any, str]:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value, "[" * levels + "]" * levels


def perms(results: list[Any]) -> list[str]:
    return [r.get("permission", next(iter(r))) for r in results]


def test_issue_example_trailing_newline_is_refused(strict_build: Any) -> None:
    sc = [{"tool": "slot", "op": "run", "args": {"starts_at": "2020-01-01T03:00\n", "ends_at": "2020-01-01T02:00"}},
          {"tool": "slot", "op": "run", "args": {"starts_at": "2020-01-01T03:00", "ends_at": "2020-01-01T02:00"}}]
    got = run_both(strict_build, sc)
    assert [[(v["field"], v["constraint"]) for v in r["violations"]] for r in got] == [
        [("starts_at", "pattern")], [("ends_at", "greater_than")]]


def test_max_length_before_pattern_and_unique_items(strict_build: Any) -> None:
    sc = [{"tool": "slot", "op": "check", "args": {"note": "abcdefghij1"}},
          {"tool": "slot", "op": "check", "args": {"note": "ab1"}},
          {"tool": "slot", "op": "check", "args": {"tags": [1, True, [0], [False], {"a": 1, "b": [2]}]}},
          {"tool": "slot", "op": "check", "args": {"tags": [1, 1.0]}},
          {"tool": "slot", "op": "check", "args": {"tags": [[0], [False], [0]]}},
          {"tool": "slot", "op": "check", "args": {"tags": [{"a": 1, "b": 2}, {"b": 2.0, "a": 1}]}}]
    got = run_both(strict_build, sc)
    assert [[v["constraint"] for v in r["violations"]] for r in got] == [
        ["maxLength"], ["pattern"], [], ["uniqueItems"], ["uniqueItems"], ["uniqueItems"]]


@pytest.mark.parametrize("levels", [64, 65, 500, 5000])
def test_deep_arguments_are_refused_identically(strict_build: Any, levels: int) -> None:
    deep = nested(levels - 1)  # the arguments object is level 1
    got = run_both(strict_build, [{"tool": "slot", "op": "run", "args": {"deep": "$deep"}}], deep)
    if levels <= pyruntime.MAX_DEPTH:
        assert got[0]["success"] is True
        return
    assert got[0]["permission"] == "constraint_violated"
    assert got[0]["violations"] == [{
        "field": "", "constraint": "maxDepth", "expected": 64, "actual": None,
        "message": "arguments must not nest arrays and objects more than 64 levels deep."}]


def test_odd_keys_and_tool_names(strict_build: Any) -> None:
    odd = {"toString": 1, "valueOf": {"toString": 2}, "__proto__": {"x": 1}, "constructor": [], "hasOwnProperty": 0}
    sc = [{"tool": "slot", "op": "run", "args": odd},
          {"tool": "slot", "op": "run", "args": {"tags": [{"__proto__": 1}, {"__proto__": 1}]}},
          *({"tool": name, "op": "check", "args": {}} for name in
            ("constructor", "toString", "__proto__", "hasOwnProperty", "valueOf", "__class__", "get"))]
    got = run_both(strict_build, sc)
    assert [v["field"] for v in got[0]["violations"]] == list(odd)
    assert {v["constraint"] for v in got[0]["violations"]} == {"additionalProperties"}
    assert got[1]["violations"][0]["constraint"] == "uniqueItems"
    assert got[2:] == [{"unknown_tool": True}] * 7


APPROVAL_PROBLEM = ("every approval must have a string approver, fingerprint and id, a list or set of string roles, "
                    "a boolean granted and the scope call or value")
BAD_CONTEXTS = [
    ({"roles": "nonstaff"}, "roles must be a list or set of strings"),
    ({"roles": "staff"}, "roles must be a list or set of strings"),
    ({"roles": ["staff"], "approvals": [{"approver": "b", "roles": ["security"], "fingerprint": "$fp",
                                         "scope": "bogus"}]},
     APPROVAL_PROBLEM),
    ({"roles": ["staff"], "approvals": [{"approver": "b", "roles": "security", "fingerprint": "$fp"}]},
     APPROVAL_PROBLEM),
    ({"roles": ["staff"], "actor": 5}, "actor must be a string when given"),
    ({"roles": ["staff"], "now": "soon"}, "now must be a finite number when given"),
    ({"roles": ["staff"], "confirmation": {"fingerprint": 7}}, "confirmation must have a string fingerprint and id"),
]


@pytest.mark.parametrize(("context", "problem"), BAD_CONTEXTS)
def test_malformed_contexts_are_refused_identically(strict_build: Any, context: dict[str, Any], problem: str) -> None:
    got = run_both(strict_build, [{"tool": "approve", "op": "run", "args": {"x": 1}, "context": context}])
    assert got[0]["permission"] == "denied" and got[0]["violations"] == []
    assert got[0]["guidance"] == (f"approve was refused: the guard context is malformed ({problem}). Do not retry; "
                                  "tell the user it was refused.")


def test_well_formed_roles_and_approvals(strict_build: Any) -> None:
    approval = {"approver": "b", "roles": ["security"], "fingerprint": "$fp", "id": "a1"}
    sc = [{"tool": "approve", "op": "run", "args": {"x": 1}, "context": {"roles": ["nonstaff"]}},
          {"tool": "approve", "op": "run", "args": {"x": 1}, "context": {"roles": ["staff"],
                                                                            "approvals": [approval]}}]
    assert perms(run_both(strict_build, sc)) == ["denied", "approved"]


def test_confirmed_call_says_so(strict_build: Any) -> None:
    ctx = {"confirmation": {"fingerprint": "$fp", "id": "c1"}}
    sc = [{"tool": "confirm", "op": "run", "args": {"x": 1}},
          {"tool": "confirm", "op": "check", "args": {"x": 1}, "context": ctx},
          {"tool": "confirm", "op": "run", "args": {"x": 1}, "context": ctx},
          {"tool": "slot", "op": "run", "args": {}}]
    got = run_both(strict_build, sc)
    assert [(r["permission"], r.get("confirmed")) for r in got] == [
        ("confirmation_required", None), ("not_required", True), ("not_required", True), ("not_required", None)]
    assert list(got[2]) == ["success", "result", "permission", "confirmed", "violations", "guidance", "tool"]


def test_rate_limits_are_per_actor(strict_build: Any) -> None:
    def call(actor: str | None) -> dict[str, Any]:
        ctx: dict[str, Any] = {"now": 1000}
        if actor is not None:
            ctx["actor"] = actor
        return {"tool": "limited", "op": "run", "args": {}, "context": ctx}

    got = run_both(strict_build, [call("alice"), call("alice"), call("bob"), call(None), call(None), call("bob")])
    assert perms(got) == ["not_required", "rate_limited", "not_required", "not_required", "rate_limited",
                          "rate_limited"]


def test_strict_mode_guards_read_null_as_absent(strict_build: Any) -> None:
    args = {"note": None, "starts_at": None, "level": None}
    sc = [{"tool": "slot", "op": "run", "args": args},
          {"tool": "slot", "op": "run", "args": args, "context": {"null_as_absent": "default"}},
          {"tool": "slot", "op": "run", "args": args, "context": {"null_as_absent": False}}]
    got = run_both(strict_build, sc)
    assert perms(got) == ["not_required", "not_required", "constraint_violated"]
    assert got[0]["result"] == {"handled": {}, "value": None}


def test_typescript_guard_refuses_objects_with_a_prototype(strict_build: Any) -> None:
    out, _ = strict_build
    _, node = _need_node()
    script = """
import { GUARDS } from "./guards.js";
class Args { constructor() { this.note = "ab"; } }
const weird = [new Args(), Object.assign(Object.create({ inherited: 1 }), { note: "ab" }),
  { note: { toString: 5, valueOf: 6 } }, { note: Object.create(null) }, { tags: [new Args(), new Args()] },
  Object.assign(Object.create({ inherited: 1 }), { toString: 5, valueOf: 6 }),
  { note: Object.assign(Object.create({ x: 1 }), { toString: 5, valueOf: 6 }) },
  { note: Object.create({ get constructor() { throw new Error("boom"); } }) }];
const out = [];
for (const args of weird) {
  const r = (await GUARDS["slot"].check(args)).toDict();
  out.push([r.permission, r.violations.map((v) => [v.field, v.constraint, v.message])]);
}
console.log(JSON.stringify(out));
"""
    (out / "weird.mjs").write_text(script, encoding="utf-8")
    proc = subprocess.run([node, "weird.mjs"], check=False, cwd=out, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [
        ["constraint_violated", [["", "type", "arguments must be an object; got Args."]]],
        ["constraint_violated", [["", "type", "arguments must be an object; got Object."]]],
        ["constraint_violated", [["note", "type", "note must be a string; got object."]]],
        ["constraint_violated", [["note", "type", "note must be a string; got object."]]],
        ["constraint_violated", [["", "type", "arguments must be an object; got object."],
                                 ["tags", "type", "tags must be an array; got array."]]],
        ["constraint_violated", [["", "type", "arguments must be an object; got Object."]]],
        ["constraint_violated", [["", "type", "arguments must be an object; got object."],
                                 ["note", "type", "note must be a string; got Object."]]],
        ["constraint_violated", [["", "type", "arguments must be an object; got object."],
                                 ["note", "type", "note must be a string; got object."]]],
    ]


def test_python_guard_refuses_cycles_and_deep_values_without_recursion() -> None:
    guard = pyruntime.ToolGuard(tool="t", intent="t.t", schema={"type": "object"})
    loop: list[Any] = []
    loop.append(loop)
    deep, _ = nested(100_000)
    for args in ({"a": loop}, {"a": deep}, deep):
        result = guard.check(args)
        assert (result.permission, [v.constraint for v in result.violations]) == ("constraint_violated", ["maxDepth"])
    result = guard.check({"a": []}, {"roles": ["x"]})  # type: ignore[arg-type]
    assert result.permission == "denied" and "it is not a GuardContext" in result.guidance


def test_python_guards_mapping_has_only_tools(strict_build: Any) -> None:
    _, py = strict_build
    assert sorted(py.module.GUARDS) == ["approve", "confirm", "limited", "slot"]
    assert all(py.module.GUARDS.get(name) is None for name in ("__class__", "__dict__", "get", "constructor"))


# ---------------------------------------------------------------------- super-linear patterns and rule 117
POLY = ".*a.*a.*a.*b"


def _button(item: dict[str, Any]) -> str:
    return (f"<button axag-intent=\"a.look\" axag-action-type=\"read\" axag-description=\"Look it up.\"\n"
            f"  axag-optional-parameters='{json.dumps([item])}'>Go</button>\n")


def poly_message(degree: int, have: str, limit: int) -> str:
    return (f'Parameter "p": pattern may take polynomial time on some inputs (about n^{degree} backtracking steps '
            f"for n characters) and {have}: give the parameter a maxLength of at most {limit}, which keeps the worst "
            "case within the budget of 10^7 steps, or anchor the pattern and remove overlapping repetitions")


@pytest.mark.parametrize(("item", "message"), [
    ({"name": "p", "type": "string", "pattern": POLY},
     poly_message(5, "there is no maxLength", 25)),
    ({"name": "p", "type": "string", "pattern": POLY, "maxLength": 26},
     poly_message(5, "maxLength 26 allows more", 25)),
    ({"name": "p", "type": "string", "pattern": "\\d+x"},
     poly_message(2, "there is no maxLength", 3162)),
    ({"name": "p", "type": "string", "pattern": "^(?:\\w\\w|\\w|" + "|".join(["\\w"] * 400) + ")+$"},
     'Parameter "p": pattern may take exponential time on some inputs (nested quantifiers)'),
    ({"name": "p", "type": "string", "pattern": POLY, "maxLength": 25}, None),
    ({"name": "p", "type": "string", "pattern": "^\\d+x"}, None),
    ({"name": "p", "type": "string", "pattern": "^[a-z]+-[a-z]+$"}, None),
])
def test_117_exact_findings(tmp_path: Path, item: dict[str, Any], message: str | None) -> None:
    (tmp_path / "page.html").write_text(_button(item), encoding="utf-8")
    code, findings = lint_json([str(tmp_path / "page.html")])
    got = [(f["code"], f["line"], f["column"], f["message"]) for f in findings if f["code"].endswith("117")]
    column = _button(item).split("\n")[1].index(json.dumps(item["pattern"])) + 1
    assert got == ([] if message is None else [("AXAG-LINT-117", 2, column, message)])
    assert code == (0 if message is None else 1)


def test_guards_refuse_a_super_linear_pattern_without_max_length() -> None:
    doc = hardening_doc()
    doc["tools"][0]["inputSchema"]["properties"]["note"] = {"type": "string", "pattern": POLY}
    for lang in ("python", "typescript"):
        with pytest.raises(Exception, match="polynomial time"):
            render.render_guards(doc, lang, None)
    doc["tools"][0]["inputSchema"]["properties"]["note"]["maxLength"] = 25
    render.render_guards(doc, "python", None)


@pytest.mark.parametrize(("pattern", "worst"), [(POLY, "a"), ("\\d+x", "1"), ("[a-c]+$", "a")])
def test_guard_on_a_worst_case_input_finishes_fast(pattern: str, worst: str) -> None:
    degree = pattern_degree(pattern)
    assert degree is not None and degree >= 2
    limit = int(cost_problem(pattern, None).split("at most ")[1].split(",")[0])  # type: ignore[union-attr]
    assert cost_problem(pattern, limit) is None
    schema = {"type": "object", "properties": {"p": {"type": "string", "maxLength": limit, "pattern": pattern}}}
    guard = pyruntime.ToolGuard(tool="t", intent="t.t", schema=schema)
    start = time.perf_counter()
    for text in (worst * limit + "!", worst * limit, worst * (limit - 1) + "!", worst * 100_000):
        guard.check({"p": text})
    elapsed = time.perf_counter() - start
    assert elapsed < 5.0, elapsed  # measured about 0.1 s (3162 digits against \d+x) on an idle machine


# ---------------------------------------------------------------- never overwrite user files
TOOLS = ROOT / "tests" / "data" / "guards_ts" / "booking.tools.json"


def test_guards_refuse_to_overwrite_a_file_they_did_not_write(tmp_path: Path) -> None:
    out = tmp_path / "server2"
    out.mkdir()
    (out / "__init__.py").write_text("SECRET = 1\n", encoding="utf-8")
    res = run_axag(["guards", str(TOOLS), "-o", str(out), "--isolated"])
    assert res.exit_code == 2
    assert f"{out / '__init__.py'} exists and was not generated by axag" in res.stderr
    assert sorted(p.name for p in out.iterdir()) == ["__init__.py"]
    assert (out / "__init__.py").read_text(encoding="utf-8") == "SECRET = 1\n"


def test_guards_list_what_they_wrote_and_rewrite_their_own_files(tmp_path: Path) -> None:
    out = tmp_path / "g"
    res = run_axag(["guards", str(TOOLS), "-o", str(out), "--isolated"])
    assert res.exit_code == 0, res.stderr
    assert res.stderr == (f"axag: wrote 4 files to {out}: __init__.py, _runtime.py, _guards.py, "
                          "preconditions.py\n")
    legacy = out / "_runtime.py"  # a runtime written by an earlier axag (no header line) is still replaced
    legacy.write_text('"""Runtime of axag-generated Python guards (AXAG SPEC §10)."""\n', encoding="utf-8")
    res = run_axag(["guards", str(TOOLS), "-o", str(out), "--isolated"])
    assert res.exit_code == 0, res.stderr
    assert res.stderr == f"axag: wrote 3 files to {out}: __init__.py, _runtime.py, _guards.py\n"
    assert legacy.read_text(encoding="utf-8").startswith("# Generated by axag.")
    (out / "preconditions.missing.txt").write_text("my notes\n", encoding="utf-8")
    res = run_axag(["guards", str(TOOLS), "-o", str(out), "--isolated"])
    assert res.exit_code == 2 and "preconditions.missing.txt exists and was not generated by axag" in res.stderr
    assert (out / "preconditions.missing.txt").read_text(encoding="utf-8") == "my notes\n"


# ---------------------------------------------------------------- strict OpenAI output
PAGE = """<form axag-intent="note.add" axag-action-type="write" axag-required-parameters='["text"]'
  axag-optional-parameters='[{"name":"tag","type":"string","maxLength":10}]'>
<input name="text"></form>
"""


@pytest.mark.parametrize(("flags", "default"), [(["--target", "openai", "--strict"], True),
                                                (["--target", "openai"], False), ([], False)])
def test_compile_guards_for_strict_openai_read_null_as_absent(tmp_path: Path, flags: list[str],
                                                              default: bool) -> None:
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    res = run_axag(["compile", "page.html", "-o", "tools.json", "--guards", "strictg", "--isolated", *flags],
                   cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    assert f"_NULL_AS_ABSENT: Final = {default}\n" in (tmp_path / "strictg" / "_guards.py").read_text("utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        import importlib

        module = importlib.import_module("strictg")
        result = module.GUARDS["note_add"].check({"text": "hi", "tag": None})
    finally:
        sys.path.remove(str(tmp_path))
        for key in [k for k in sys.modules if k == "strictg" or k.startswith("strictg.")]:
            del sys.modules[key]
    assert result.permission == ("not_required" if default else "constraint_violated")


def test_guards_command_null_as_absent_flag(tmp_path: Path) -> None:
    res = run_axag(["guards", str(TOOLS), "-o", str(tmp_path / "g"), "--null-as-absent", "--isolated"])
    assert res.exit_code == 0, res.stderr
    assert "_NULL_AS_ABSENT: Final = True\n" in (tmp_path / "g" / "_guards.py").read_text("utf-8")


def test_string_arguments_are_refused_with_advice_to_parse(strict_build: Any) -> None:
    got = run_both(strict_build, [{"tool": "slot", "op": "run", "args": '{"note": "ab"}'}])
    assert got[0]["permission"] == "constraint_violated"
    assert got[0]["violations"] == [{
        "field": "", "constraint": "type", "expected": "object", "actual": '{"note": "ab"}',
        "message": "arguments must be an object; got string. Arguments given as a JSON text (such as OpenAI's "
                   "function-call arguments) must be parsed into an object before the guard checks them."}]


def test_harvested_bounds_read_patterns_as_ecma(tmp_path: Path) -> None:
    """A harvested month bound with a trailing newline is no month ("$" is the end of the text)."""
    (tmp_path / "p.html").write_text(
        '<form axag-intent="m.pick" axag-action-type="read" axag-description="Pick.">\n'
        '<input type="month" name="m" min="2026-01&#10;" max="2026-12">\n</form>\n', encoding="utf-8")
    res = run_axag(["compile", "p.html", "-o", "tools.json", "--isolated"], cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    meta = json.loads((tmp_path / "tools.json").read_text(encoding="utf-8"))["tools"][0]["_meta"]["org.axag/action"]
    assert meta["format_bounds"] == {"m": {"formatMaximum": "2026-12"}}


def test_json_schema_test_suite_in_typescript(strict_build: Any) -> None:
    """Every compiled-keyword case of the JSON-Schema-Test-Suite (uniqueItems.json and pattern.json included) gets
    the same verdict from the TypeScript validator as from the Python guards (tests/guards/test_jsonschema_suite.py)."""
    from tests.guards.test_jsonschema_suite import CASES, _expected

    out, _ = strict_build
    unit = ROOT / "tests" / "data" / "guards_ts" / "unit.mjs"
    (out / "unit.mjs").write_text(unit.read_text(encoding="utf-8"), encoding="utf-8")
    (out / "suite_ops.json").write_text(json.dumps([{"op": "validate", "schema": c[3], "value": c[4]} for c in CASES]),
                                        encoding="utf-8")
    _, node = _need_node()
    proc = subprocess.run([node, "unit.mjs", "suite_ops.json"], check=False, cwd=out, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    verdicts = [not v for v in json.loads(proc.stdout)]
    wrong = [c[:3] for c, ok in zip(CASES, verdicts, strict=True) if ok is not _expected(c[0], c[1], c[2], c[5])]
    assert wrong == []
    assert {c[0] for c in CASES} >= {"uniqueItems.json", "pattern.json"}


def test_typescript_guard_refuses_a_match_inside_a_surrogate_pair(tmp_path: Path) -> None:
    """The generated TypeScript guard (tsc, run in Node) gives each astral case the spec's verdict, as Python does:
    ``\\B`` refuses "b😀_" (V8's own RegExp would find it between the halves of 😀)."""
    props = {f"p{i}": {"type": "string", "pattern": p} for i, (p, _, _) in enumerate(ASTRAL)}
    doc = {"tools": [tool("astral", "astral.check", props, [])]}
    write_ts(doc, tmp_path / "ts")
    build = (compile_ts(tmp_path / "ts"), PyGuards(doc, tmp_path / "py", f"axag_astral_{next(_BUILDS)}"))
    sc = [{"tool": "astral", "op": "check", "args": {f"p{i}": s}} for i, (_, s, _) in enumerate(ASTRAL)]
    got = run_both(build, sc)
    assert [[v["constraint"] for v in r["violations"]] for r in got] == [
        [] if ok else ["pattern"] for _, _, ok in ASTRAL]
    assert got[0]["violations"][0]["field"] == "p0" and ASTRAL[0] == ("\\B", "b\U0001f600_", False)
