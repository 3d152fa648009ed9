"""Keep the pipeline's arrows honest (docs/dev/architecture.md, "Layers"): which modules may import what, the layer order of the whole
import graph of ``axag`` (imports inside functions included) and no import cycles."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.conftest import REPO

PKG = REPO / "axag"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _modules() -> dict[str, set[str]]:
    out = {}
    for p in PKG.rglob("*.py"):
        if "templates" in p.parts:
            continue
        name = ".".join(p.relative_to(REPO).with_suffix("").parts)
        out[name] = _imports(p)
    return out


def test_only_the_cli_layer_imports_click() -> None:
    for name, imports in _modules().items():
        if any(i == "click" or i.startswith("click.") for i in imports):
            assert name.startswith("axag.cli."), name


def test_leaf_modules_import_nothing_from_axag() -> None:
    mods = _modules()
    leaves = [m for m in mods if m.startswith("axag.outcome.")] + [
        "axag.vocabulary.__init__", "axag.files.spans", "axag.files.paths", "axag.files.read_whole",
        "axag.files.source", "axag.files.restricted_pickle", "axag.files.shipped_schemas"]
    assert len(leaves) == 12
    for leaf in leaves:
        assert not [i for i in mods[leaf] if i.startswith("axag")], leaf


def test_the_value_kernel_uses_only_the_standard_library() -> None:
    """``axag/values/`` sits below the model: standard library only, so nothing below it reaches up to guards/."""
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    files = sorted((PKG / "values").glob("*.py"))
    assert [p.name for p in files] == ["__init__.py", "jsonspan.py", "jsontext.py", "pattern.py", "pyruntime.py"]
    for path in files:
        assert [i for i in _imports(path) if i.split(".")[0] not in stdlib] == [], path
        relative = [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                    if isinstance(n, ast.ImportFrom) and n.level]
        assert relative == [], path


def test_generated_runtime_uses_only_the_standard_library() -> None:
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for i in _imports(PKG / "values" / "pyruntime.py"):
        assert i.split(".")[0] in stdlib, i


def test_reporters_see_only_findings() -> None:
    for name, imports in _modules().items():
        if name.startswith("axag.report"):
            allowed = ("axag.outcome.findings", "axag.report", "axag.rules.catalogue", "axag.compile.serialize",
                       "axag.outcome.plural", "axag.rules.docs")
            assert all(i == "axag" or i.startswith(allowed) for i in imports if i.startswith("axag")), name


def test_core_does_not_import_the_cli() -> None:
    for name, imports in _modules().items():
        if not (name.startswith("axag.cli.") or name == "axag.__main__"):
            assert not [i for i in imports if i == "axag.cli" or i.startswith("axag.cli.")], name


# ---------------------------------------------------------------------------------------------- the whole graph
def _module_files() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        if "templates" in p.parts:
            continue
        parts = p.relative_to(REPO).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and (
        (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING"))


def _graph(*, type_checking: bool) -> dict[str, set[str]]:
    """module -> the axag modules it imports anywhere in its text (module level, inside functions, and modules
    loaded by a constant name through ``importlib.import_module``); ``type_checking``: also the imports under
    ``if TYPE_CHECKING:``, which never run."""
    files = _module_files()

    def resolve(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        skip: set[int] = set()
        if not type_checking:
            for node in ast.walk(tree):
                if _is_type_checking(node):
                    skip.update(id(n) for sub in node.body for n in ast.walk(sub))  # type: ignore[attr-defined]
        out: set[str | None] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                out.update(resolve(a.name) for a in node.names if a.name.startswith("axag"))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                if base.split(".")[0] != "axag":
                    continue
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    out.add(sub if sub in files else resolve(base))
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr == "import_module" and node.args and isinstance(node.args[0], ast.Constant)
                  and isinstance(node.args[0].value, str) and node.args[0].value.startswith("axag")):
                out.add(resolve(node.args[0].value))
        # a package dispatching to its own submodules on use is a registry, not a cycle: a submodule always
        # runs its package's __init__ first anyway
        graph[name] = {m for m in out if m is not None and m != name and not m.startswith(name + ".")}
    return graph


def _cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, edges = work[-1]
            for w in edges:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.add(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        found.add(frozenset(component))
    return found


def test_no_import_cycles() -> None:
    """Imports inside functions, through importlib and under ``if TYPE_CHECKING:`` count: a cycle hidden in a
    function, or one that only the type checker follows, is still a cycle (two modules that cannot be read, or
    changed, one without the other)."""
    cycles = _cycles(_graph(type_checking=True))
    assert cycles == set(), sorted(sorted(c) for c in cycles)


def test_the_graph_counts_type_only_imports() -> None:
    """The graph sees an import under ``if TYPE_CHECKING:`` (and ``typing.TYPE_CHECKING``), so the cycle test does."""
    graph = _graph(type_checking=True)
    assert "axag.model.harvest_state" in graph["axag.model.types"]  # only under TYPE_CHECKING there
    assert "axag.model.harvest_state" not in _graph(type_checking=False)["axag.model.types"]


def test_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert _cycles(graph) == {frozenset({"a", "b", "c"})}


# Layer order (docs/dev/architecture.md, "Layers"): the shared leaves -> values -> parse -> model -> rules -> compile
# -> guards/report -> config -> discover -> lint -> batch -> api -> applications -> cli. A module may import modules
# of its own layer or below; its layer is that of the longest prefix naming it (`axag.files.discover` sits above the
# configuration it reads, the rest of `axag.files` at the bottom).
LAYERS = {
    # the leaves every layer shares: what a run ends with (findings, errors, exit statuses), the files of a run and
    # their text, and the vocabulary; standard library only, but for each other (tested)
    0: ("axag", "axag.outcome", "axag.files", "axag.vocabulary"),
    # the value kernel, standard library only: JSON values and text, JSON with spans, the ECMA pattern subset and
    # the guard runtime (copied verbatim into generated guards; the model uses it for defaults and formats)
    1: ("axag.values",),
    2: ("axag.parse",),
    3: ("axag.model",),
    4: ("axag.rules",),
    5: ("axag.compile",),
    6: ("axag.guards", "axag.report", "axag.vocabulary.export"),
    7: ("axag.config",),
    8: ("axag.files.discover",),
    9: ("axag.lint",),
    10: ("axag.batch",),
    11: ("axag.api",),
    12: ("axag.catalogue", "axag.serve", "axag.lsp", "axag.webmcp"),
    13: ("axag.cli", "axag.__main__"),
}

def _layer(module: str) -> int:
    best, rank = "", -1
    for n, prefixes in LAYERS.items():
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best):
                best, rank = prefix, n
    assert rank >= 0, f"{module} has no layer in LAYERS"
    return rank


def test_imports_follow_the_layer_order() -> None:
    graph = _graph(type_checking=True)
    upward = {(a, b) for a, imports in graph.items() for b in imports if _layer(b) > _layer(a)}
    assert upward == set(), sorted(upward)


def test_the_catalogue_indexes_every_rule_module() -> None:
    """A rule module the catalogue does not import would declare (and check) nothing."""
    machinery = {"axag.rules.base", "axag.rules.codes", "axag.rules.declare", "axag.rules.catalogue", "axag.rules.docs",
                 "axag.rules.facts", "axag.rules.problem"}
    families = {m for m in _module_files() if m.startswith("axag.rules.")} - machinery
    indexed = {m for m in _graph(type_checking=False)["axag.rules.catalogue"] if m.startswith("axag.rules.")}
    assert families and families == indexed - machinery


def test_the_model_has_no_import_fallbacks() -> None:
    """An ``except ImportError`` in the model once silently turned rule 116 off (and precondition value checks)."""
    for path in (PKG / "model").rglob("*.py"):
        assert "except ImportError" not in path.read_text(encoding="utf-8"), path


def test_no_function_is_over_the_complexity_limit_by_exemption() -> None:
    """ruff's C901 (max-complexity in pyproject) holds without `noqa: C901`: the functions once marked for
    splitting are split (model/param_spec.py into param_spec, spec_read and spec_checks)."""
    marked = sorted(str(p.relative_to(REPO)) for p in (REPO / "axag").rglob("*.py")
                    if "noqa: C901" in p.read_text(encoding="utf-8"))
    assert marked == []


# ---------------------------------------------------------------------------------------------- who raises findings
_RAISERS = ("Problem", "report", "problem", "note", "add", "ann_problem", "emit")


def _calls(path: Path) -> list[tuple[str, ast.Call]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            out.append((name, node))
    return out


def test_only_the_rules_make_problems() -> None:
    """A rule's problem is made under axag/rules/ only: the model records facts, the engine places findings."""
    rules = PKG / "rules"
    makers = {str(p.relative_to(REPO)) for p in PKG.rglob("*.py") if rules not in p.parents
              and any(name == "Problem" for name, _ in _calls(p))}
    assert makers == set()


def test_no_rule_code_is_raised_outside_the_rules() -> None:
    """No call outside axag/rules/ passes a rule code (a number literal first) to something that raises a finding,
    and the model never words a message."""
    rules = PKG / "rules"
    found = []
    for p in PKG.rglob("*.py"):
        if rules in p.parents:
            continue
        for name, call in _calls(p):
            first = call.args[0] if call.args else None
            if (name in _RAISERS and isinstance(first, ast.Constant) and type(first.value) is int
                    and 1 <= first.value <= 199):
                found.append(f"{p.relative_to(REPO)}:{call.lineno}")
        for name, call in _calls(p):
            code = next((k.value for k in call.keywords if k.arg == "code"), None)
            if name == "Finding" and isinstance(code, ast.Constant):
                found.append(f"{p.relative_to(REPO)}:{call.lineno}")
    assert found == []
    model = PKG / "model"
    assert [p.name for p in model.rglob("*.py") if "format_message" in p.read_text(encoding="utf-8")] == []


def test_the_check_of_raisers_finds_a_raised_code(tmp_path: Path) -> None:
    bad = tmp_path / "m.py"
    bad.write_text("sink.add(115, span, None)\nProblem(1, span)\nFinding(code=199, message='x')\n", encoding="utf-8")
    assert sorted(name for name, call in _calls(bad) if name in _RAISERS and call.args
                  and isinstance(call.args[0], ast.Constant)) == ["Problem", "add"]
    assert [name for name, call in _calls(bad) if any(k.arg == "code" for k in call.keywords)] == ["Finding"]


def test_every_fact_kind_is_judged() -> None:
    """Each kind of fact the model (or the engine) records is judged by at least one rule."""
    from axag.model.facts import Kind
    from axag.rules import load_rules
    from axag.rules.facts import FACT_RULES

    load_rules()
    judged = {kind for entries in FACT_RULES.values() for kind, _ in entries}
    worded = {Kind.LOSSY_MAPPING, Kind.STRICT_MODE_INCOMPATIBLE}  # by `rules.run_level.target_problem`
    assert [k.name for k in Kind if k not in judged | worded] == []
