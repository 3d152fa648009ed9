"""Injection-proof code generation (code-generation guarantees): hostile text reaches generated Python only as literals."""

from __future__ import annotations

import ast
import importlib
import itertools
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axag.compile.serialize import normalise
from axag.guards import guard_spec
from axag.guards.render import render_guards, write_guards
from axag.guards.views import environment

DATA = Path(__file__).resolve().parents[1] / "data" / "guards"
DOC = json.loads((DATA / "injection.tools.json").read_text(encoding="utf-8"))
TOOL = DOC["tools"][0]
META = TOOL["_meta"]["org.axag/action"]
EVIL = META["side_effects"][0]
_SEQ = itertools.count()


def _import(root: Path, name: str) -> ModuleType:
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(root))


def _build(root: Path, doc: dict[str, Any], pre: str | None) -> ModuleType:
    name = f"axag_inj_{next(_SEQ)}"
    if pre is not None:
        (root / name).mkdir(parents=True)
        (root / name / "preconditions.py").write_text(pre, encoding="utf-8")
    write_guards(doc, root / name)
    return _import(root, name)


def test_fixture_contains_every_hostile_piece() -> None:
    for piece in ('"', "\\", '"""', "*/", "${", "{{", "\n", "\u2028", "\x00", "\U0001f600", "\x1b"):
        assert piece in EVIL


def test_constants_round_trip(tmp_path: Path) -> None:
    rendered = render_guards(DOC, "python", None)
    source = rendered.files["_guards.py"]
    assert source.isascii()
    tree = ast.parse(source, feature_version=(3, 10))
    spec = guard_spec.extract_specs(DOC)[0]
    assigned = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            assigned[node.target.id] = node.value
    schema = {k: v for k, v in TOOL["inputSchema"].items() if k != "$schema"}
    assert ast.literal_eval(assigned["_SCHEMA_guard_evil_run"]) == schema
    assert ast.literal_eval(assigned["_ACTIVE_guard_evil_run"]) == spec.active_constraints
    # every literal in the module evaluates, and every hostile text is found intact among the string constants
    strings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Constant, ast.List, ast.Dict)) and not any(
            isinstance(sub, (ast.Name, ast.Call, ast.Attribute)) for sub in ast.walk(node)
        ):
            value = ast.literal_eval(node)
            if isinstance(value, str):
                strings.add(value)
    texts = [p["text"] for p in META["preconditions"]] + [META["confirmation_message"], *META["required_roles"],
                                                          *META["approval_roles"], EVIL]
    for text in texts:
        assert text in strings
    # the user module's stub messages as well
    user = ast.parse(rendered.user_module, feature_version=(3, 10))
    messages = [ast.literal_eval(n.args[0]) for n in ast.walk(user)
                if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "NotImplementedError"]
    assert f'precondition "{EVIL}" (used by evil-run) is not implemented' in messages
    assert {n.name for n in user.body if isinstance(n, ast.FunctionDef)} == {
        guard_spec.stub_names([EVIL])[EVIL], "pre_import", "pre_pass", "pre_delete", "pre_new"}


def test_default_user_module_imports_and_raises(tmp_path: Path) -> None:
    mod = _build(tmp_path, DOC, None)
    pre = importlib.import_module(mod.__name__ + ".preconditions")
    stub = getattr(pre, guard_spec.stub_names([EVIL])[EVIL])
    with pytest.raises(NotImplementedError) as info:
        stub({}, mod.GuardContext(), "evil-run")
    assert info.value.args == (f'precondition "{EVIL}" (used by evil-run) is not implemented',)


def test_runtime_keeps_hostile_text_intact(tmp_path: Path) -> None:
    stub = guard_spec.stub_names([EVIL])[EVIL]
    pre = (
        "from collections.abc import Mapping\nfrom ._runtime import GuardContext\nHOLD = {'v': True}\n"
        f"def {stub}(arguments: Mapping[str, object], context: GuardContext, tool: str) -> bool:\n"
        "    return HOLD['v']\n"
        + "".join(f"def {n}(arguments: Mapping[str, object], context: GuardContext, tool: str) -> bool:\n"
                  "    return True\n" for n in ("pre_import", "pre_pass", "pre_delete", "pre_new"))
    )
    mod = _build(tmp_path, DOC, pre)
    guard = mod.GUARDS["evil-run"]
    res = guard.check({"day": "2026-05-01"})
    assert res.permission == "denied"
    assert res.guidance == f"evil-run was refused: the caller lacks the role {EVIL}. Do not retry; tell the user it " \
                           "was refused."
    ctx = mod.GuardContext(roles=frozenset({EVIL}))
    args = {"day": "2026-05-01", "y": "a" + EVIL, "pick": [{"__proto__": 1}, {"toString": EVIL}],
            "obj": {"__proto__": {"polluted": EVIL}, "k": [EVIL, 1.5, None, True]}}
    res = guard.check(args, ctx)
    assert [(v.field, v.constraint) for v in res.violations] == [("obj", "const")]
    assert res.violations[0].expected == {"__proto__": {"polluted": EVIL}, 'k"': [EVIL, 1.5, None, True]}
    args["obj"] = {"__proto__": {"polluted": EVIL}, 'k"': [EVIL, 1.5, None, True]}
    res = guard.check(args, ctx)
    assert [(v.field, v.constraint) for v in res.violations] == [('obj.k"', "additionalProperties")]
    del args["obj"]
    res = guard.check({**args, "y": "__proto__", "pat": EVIL}, ctx)
    assert [(v.field, v.constraint) for v in res.violations] == [("pat", "pattern")]
    res = guard.check({**args, "when": "2026-04-01"}, ctx)
    assert res.violations[0].expected == f"when is after day {EVIL}"
    importlib.import_module(mod.__name__ + ".preconditions").HOLD["v"] = False
    res = guard.check(args, ctx)
    assert res.permission == "precondition_failed"
    assert res.violations[0].expected == EVIL
    assert res.guidance == (f'evil-run cannot run now: the precondition "{EVIL}" does not hold. Do not retry until it '
                            "holds; tell the user what is missing.")
    importlib.import_module(mod.__name__ + ".preconditions").HOLD["v"] = True
    res = guard.run(lambda a: None, args, ctx)
    assert res.permission == "confirmation_required"
    y = "a" + EVIL  # placeholders are substituted once; substituted text is not scanned again
    assert res.caller_only["confirmation_message"] == f"Confirm {y} " + EVIL.replace("{{y}}", y)


def test_finalize_rejects_unfiltered_values() -> None:
    import jinja2

    env = environment("python")
    with pytest.raises(TypeError):
        env.from_string("{{ x }}").render(x="a")
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ y|lit }}").render()
    assert env.from_string("{{ x|lit }} {{ n|ident }}").render(x='"', n="ok") == '"\\"" ok'
    with pytest.raises(guard_spec.GuardSpecError):
        env.from_string("{{ n|ident }}").render(n="a-b")


# ---------------------------------------------------------------------------------------------- properties
json_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()),
                    max_size=12)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
              st.floats(allow_nan=False, allow_infinity=False), json_text),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(json_text, inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_py_literal_round_trip_any_json(value: Any) -> None:
    text = guard_spec.py_literal(value)
    assert text.isascii() and "\n" not in text and "\r" not in text
    back = ast.literal_eval(text)
    assert back == value
    # numbers follow canonical numbers: integral floats below 2^53 become ints, everything else keeps its type
    assert json.dumps(back, sort_keys=True) == json.dumps(normalise(value), sort_keys=True)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(json_text.filter(bool), min_size=1, max_size=4), json_text.filter(bool), json_values)
def test_generated_module_with_arbitrary_texts(texts: list[str], message: str, const: Any) -> None:
    import tempfile

    tool = json.loads(json.dumps(TOOL))
    meta = tool["_meta"]["org.axag/action"]
    meta["preconditions"] = [{"text": t, "kind": "state"} for t in dict.fromkeys(texts)]
    meta["confirmation_message"] = message
    meta["required_roles"] = texts
    tool["inputSchema"]["properties"]["y"]["const"] = const
    doc = {"tools": [tool]}
    with tempfile.TemporaryDirectory() as tmp:
        mod = _build(Path(tmp), doc, None)
        guard = mod.GUARDS["evil-run"]
        assert guard.confirmation_message == message
        assert list(guard.required_roles) == texts
        assert guard.schema["properties"]["y"]["const"] == const
        pre = importlib.import_module(mod.__name__ + ".preconditions")
        for text, name in guard_spec.stub_names(list(dict.fromkeys(texts))).items():
            with pytest.raises(NotImplementedError) as info:
                getattr(pre, name)({}, mod.GuardContext(), "evil-run")
            assert info.value.args[0] == f'precondition "{text}" (used by evil-run) is not implemented'
