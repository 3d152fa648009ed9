"""`axag serve` checks calls with guard objects built in process from the contract (`axag.guards.in_process`),
not with a package rendered into a temporary folder and imported back; ``--guards DIR`` still imports the
generated package. Both give identical envelopes: on the guard test corpus (the tools documents of the guard
tests, the README's, the compiled example sites) for generated calls, contexts and call sequences, and on every
case of the JSON-Schema-Test-Suite the guards run."""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import itertools
import json
import math
import re
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axag.api import compile_paths
from axag.guards import guard_spec
from axag.guards.in_process import build_guards, literal_value
from axag.guards.render import write_guards
from axag.outcome.errors import InputError
from axag.values import pyruntime
from tests.conftest import REPO
from tests.guards.test_jsonschema_suite import CASES, _wrap

DATA = REPO / "tests" / "data"
_COUNT = itertools.count()


def _corpus() -> dict[str, dict[str, Any]]:
    docs = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted((DATA / "guards").glob("*.tools.json"))}
    docs["readme.tools.json"] = json.loads((DATA / "readme.tools.json").read_text(encoding="utf-8"))
    for site in (REPO / "fixtures" / "site", DATA / "serve" / "site", DATA / "serve" / "approval"):
        doc, _ = compile_paths([site], root=str(site))
        docs[str(site.relative_to(REPO))] = doc
    return docs


CORPUS = _corpus()


def _import_generated(doc: Mapping[str, Any], where: Path) -> ModuleType:
    """The package `axag guards` writes for ``doc``, imported under a fresh name."""
    directory = where / f"pkg{next(_COUNT)}"
    write_guards(doc, directory)
    name = f"_generated_guards_{next(_COUNT)}"
    spec = importlib.util.spec_from_file_location(name, directory / "__init__.py",
                                                  submodule_search_locations=[str(directory)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated() -> Iterator[dict[str, ModuleType]]:
    with tempfile.TemporaryDirectory() as tmp:
        yield {key: _import_generated(doc, Path(tmp)) for key, doc in CORPUS.items()}


def test_the_corpus_covers_every_gate() -> None:
    """Relations, bounds, opaque preconditions, roles, confirmation, approval, rate limits and cool-downs."""
    guards = [g for doc in CORPUS.values() for g in build_guards(doc).values()]
    assert len(guards) >= 15
    assert any(g._relations is not None and g._relations({}, frozenset()) for g in guards)
    assert any(g._bounds for g in guards)
    assert any(g.required_roles for g in guards) and any(g.confirmation_required for g in guards)
    assert any(g.approval_required for g in guards)
    assert any(g.rate_count for g in guards) and any(g.cooldown_seconds for g in guards)
    assert any(guard_spec.collect_stubs(doc) for doc in CORPUS.values())


# ---------------------------------------------------------------------------------------------- serve
def test_serve_builds_its_guards_without_writing_or_importing_code(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from axag.serve.app import ServeConfig, ToolServer
    from axag.serve.state import SqliteStore

    def refuse(*args: object, **kwargs: object) -> Any:
        raise AssertionError("serve wrote or imported guard code")

    monkeypatch.setattr(tempfile, "mkdtemp", refuse)
    monkeypatch.setattr("axag.guards.render.write_guards", refuse)
    monkeypatch.setattr(importlib.util, "spec_from_file_location", refuse)
    doc = CORPUS["features.tools.json"]
    server = ToolServer(ServeConfig(tools_doc=doc, allow_unbound=True), SqliteStore(tmp_path / "state.db"))
    assert server.guard_module is pyruntime
    assert sorted(server.guards) == sorted(t["name"] for t in doc["tools"])
    assert all(type(g) is pyruntime.ToolGuard for g in server.guards.values())


def test_serve_still_imports_the_package_of_guards_dir(tmp_path: Path) -> None:
    from axag.serve.app import ServeConfig, ToolServer
    from axag.serve.state import SqliteStore

    doc = CORPUS["features.tools.json"]
    write_guards(doc, tmp_path / "g")
    server = ToolServer(ServeConfig(tools_doc=doc, allow_unbound=True, guards_dir=str(tmp_path / "g")),
                        SqliteStore(tmp_path / "state.db"))
    assert server.guard_module is not pyruntime
    assert server.guard_module.__file__ == str(tmp_path / "g" / "__init__.py")


@pytest.mark.parametrize("doc", [{"tools": [{"name": "a-b", "_meta": {"org.axag/action": {"intent": "a.b"}},
                                             "inputSchema": {"type": "object"}},
                                            {"name": "a_b", "_meta": {"org.axag/action": {"intent": "a.c"}},
                                             "inputSchema": {"type": "object"}}]},
                                 {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]},
                                 {"tools": "no"}])
def test_a_document_without_guards_is_refused_as_by_axag_guards(doc: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(InputError) as generated:
        write_guards(doc, tmp_path)
    with pytest.raises(InputError) as built:
        build_guards(doc)
    assert str(built.value) == str(generated.value)


# ---------------------------------------------------------------------------------------------- literals
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20)


@given(_json)
def test_literal_value_is_what_the_generated_literal_evaluates_to(value: object) -> None:
    assert repr(literal_value(value)) == repr(ast.literal_eval(guard_spec.py_literal(value)))


@pytest.mark.parametrize("value", [math.nan, math.inf, {1: 2}, object(), [set()]])
def test_literal_value_refuses_what_the_literal_encoder_refuses(value: object) -> None:
    with pytest.raises(guard_spec.GuardSpecError) as encoded:
        guard_spec.py_literal(value)
    with pytest.raises(guard_spec.GuardSpecError) as built:
        literal_value(value)
    assert str(built.value) == str(encoded.value)


# ---------------------------------------------------------------------------------------------- envelopes
def _values(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Values near what the schema says (its enum, const, default, examples, bounds) or anything JSON."""
    near: list[Any] = []
    for key in ("enum", "examples"):
        if isinstance(schema.get(key), list):
            near.extend(schema[key])
    for key in ("const", "default"):
        if key in schema:
            near.append(schema[key])
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength"):
        bound = schema.get(key)
        if isinstance(bound, (int, float)) and not isinstance(bound, bool):
            near.extend([bound, bound - 1, bound + 1, bound / 2])
    typed: dict[str, st.SearchStrategy[Any]] = {
        "string": st.text(max_size=12) | st.sampled_from(["2026-01-31", "2026-13-01", "10:30", "2026-W05",
                                                          "2026-01", "a@b.co", "https://x.org", ""]),
        "integer": st.integers(-1000, 1000), "number": st.floats(-1e6, 1e6) | st.integers(-1000, 1000),
        "boolean": st.booleans(), "array": st.lists(st.integers(0, 3) | st.text(max_size=3), max_size=4),
        "object": st.dictionaries(st.text(max_size=3), st.integers(0, 3), max_size=2),
    }
    kinds = schema.get("type") if isinstance(schema.get("type"), list) else [schema.get("type")]
    options = [typed[k] for k in kinds if k in typed]
    pattern = schema.get("pattern")
    if isinstance(pattern, str):  # the harvested date-like kinds (bounds are checked on those)
        with contextlib.suppress(re.error):
            options.append(st.from_regex(re.compile(pattern), fullmatch=True))
    formats = {"date": st.dates().map(str), "date-time": st.datetimes().map(lambda d: d.isoformat() + "Z"),
               "time": st.times().map(lambda d: d.isoformat() + "Z")}
    if schema.get("format") in formats:
        options.append(formats[schema["format"]])
    if near:
        options.append(st.sampled_from(near))
    options.append(st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=4))
    return st.one_of(*options)


def _arguments(schema: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    properties = schema.get("properties") or {}
    objects = st.fixed_dictionaries({}, optional={name: _values(s) for name, s in properties.items()})
    extra = st.dictionaries(st.sampled_from(["zz", "extra"]), st.integers(0, 2), max_size=1)
    mixed = st.tuples(objects, extra).map(lambda pair: {**pair[0], **pair[1]})
    return st.one_of(objects, objects, mixed, st.none(), st.text(max_size=6), st.lists(st.integers(), max_size=2))


def _context_maker(module: Any, guard: Any, args: Any, actor: str | None, roles: frozenset[str],
                   confirm: bool) -> Any:
    fp = module.fingerprint(guard.tool, args) if isinstance(args, dict) else ""
    confirmation = module.Confirmation(fingerprint=fp, by=actor, id="c1") if confirm else None
    approvals = tuple(module.Approval(approver=f"ap{i}", roles=sorted(roles) or ["approver"], fingerprint=fp,
                                      id=f"a{i}") for i in range(2)) if confirm else ()
    return module.GuardContext(actor=actor, roles=roles, confirmation=confirmation, approvals=approvals,
                               now=1_000_000.0)


def _outcome(guard: Any, args: Any, ctx: Any, execute: bool) -> Any:
    try:
        result = guard.run(lambda a: {"ok": dict(a)}, args, ctx) if execute else guard.check(args, ctx)
    except NotImplementedError as exc:  # an unimplemented opaque precondition raises, in both
        return ("raised", str(exc))
    return (result.to_dict(), result.for_model())


_TOOLS = [(key, t["name"]) for key, doc in CORPUS.items() for t in doc["tools"]]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_in_process_guards_give_the_envelopes_of_the_generated_package(generated: dict[str, ModuleType],
                                                                       data: st.DataObject) -> None:
    key, name = data.draw(st.sampled_from(_TOOLS))
    module = generated[key]
    schema = next(t for t in CORPUS[key]["tools"] if t["name"] == name)["inputSchema"]
    ours, theirs = build_guards(CORPUS[key])[name], module.make_guards()[name]
    roles_seen = sorted({*ours.required_roles, *ours.approval_roles, "viewer"})
    calls = data.draw(st.lists(st.tuples(_arguments(schema), st.sampled_from([None, "alice", "bob"]),
                                         st.frozensets(st.sampled_from(roles_seen), max_size=2), st.booleans(),
                                         st.booleans()), min_size=1, max_size=4))
    for args, actor, roles, confirm, execute in calls:  # in sequence: rate limits, cool-downs, confirmations
        outcomes = []
        for mod, guard in ((pyruntime, ours), (module, theirs)):
            outcomes.append(_outcome(guard, args, _context_maker(mod, guard, args, actor, roles, confirm), execute))
        assert outcomes[0] == outcomes[1], (key, name, args)


def test_in_process_guards_give_the_envelopes_of_the_generated_package_on_the_schema_suite(
        tmp_path: Path) -> None:
    schemas: dict[str, int] = {}
    tools = []
    for case in CASES:
        key = json.dumps(case[3], sort_keys=True)
        if key not in schemas:
            schemas[key] = len(schemas)
            tools.append({"name": f"s{schemas[key]}", "inputSchema": _wrap(case[3]),
                          "_meta": {"org.axag/action": {"intent": f"s.s{schemas[key]}"}}})
    doc = {"tools": tools}
    ours, theirs = build_guards(doc), _import_generated(doc, tmp_path).make_guards()
    assert list(ours) == list(theirs)
    for _rel, _group, _test, schema, data, _valid in CASES:
        name = f"s{schemas[json.dumps(schema, sort_keys=True)]}"
        assert ours[name].check({"p": data}).to_dict() == theirs[name].check({"p": data}).to_dict(), name
