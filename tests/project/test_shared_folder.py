"""The tests that read `../shared` (the corpus, SPEC.md) take it from `tests.conftest`: `shared_or_skip` skips
them in a user's clone without the folder and fails them in this project's CI (`AXAG_SHARED_REQUIRED`, set by
`.ci/run`). No test module builds the location itself, and `SHARED` (the bare location) is imported only where
a test cannot simply ask `shared_or_skip`, listed here with the reason."""

from __future__ import annotations

import ast

from tests.conftest import REPO

TESTS = REPO / "tests"
# module -> why it imports SHARED beside (or instead of) shared_or_skip
BARE_SHARED = {
    "tests/rules/test_catalogue.py": "the SPEC's rule rows parametrise a test at collection, where no test can be "
                                     "skipped; every test of the module asks shared_or_skip when it runs",
    "tests/lsp/test_lsp.py": "a corpus page is an optional start of the half-typed document (a built-in page "
                             "otherwise); the corpus test asks shared_or_skip",
    "tests/compile/test_host_schemas.py": "the corpus is one of the parametrised sites; the test asks "
                                          "shared_or_skip before it reads it",
}


def _modules() -> dict[str, ast.Module]:
    out = {}
    for path in sorted(TESTS.rglob("*.py")):
        top = path.relative_to(TESTS).parts[0]
        if top not in ("data", "benchmarks") and path.name != "conftest.py":
            out[path.relative_to(REPO).as_posix()] = ast.parse(path.read_text(encoding="utf-8"))
    return out


def _up(node: ast.expr) -> bool:
    """`x.parent`, `x.parents[N]`: a folder above a known one (the clone's, this file's)."""
    return (isinstance(node, ast.Attribute) and node.attr == "parent") or (
        isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents")


def builds_shared(tree: ast.AST) -> list[int]:
    """Lines of `<a folder above> / "shared"`: the folder beside the clone, located by hand."""
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div)
            and isinstance(n.right, ast.Constant) and n.right.value == "shared" and _up(n.left)]


def imports_shared(tree: ast.AST) -> bool:
    return any(isinstance(n, ast.ImportFrom) and n.module == "tests.conftest" and any(a.name == "SHARED"
                                                                                        for a in n.names)
               for n in ast.walk(tree))


def test_no_module_locates_the_shared_folder_itself() -> None:
    assert {name: lines for name, tree in _modules().items() if (lines := builds_shared(tree))} == {}


def test_the_bare_location_is_imported_only_where_listed() -> None:
    assert {name for name, tree in _modules().items() if imports_shared(tree)} == set(BARE_SHARED)


def test_a_hand_made_location_is_noticed() -> None:
    assert builds_shared(ast.parse('SPEC = Path(__file__).resolve().parents[3] / "shared" / "SPEC.md"\n')) == [1]
    assert builds_shared(ast.parse('CORPUS = REPO.parent / "shared" / "corpus"\n')) == [1]
    assert builds_shared(ast.parse('SITE = ROOT / "tests" / "data" / "serve" / "shared"\n')) == []
    assert imports_shared(ast.parse("from tests.conftest import REPO, SHARED\n"))
    assert not imports_shared(ast.parse("from tests.conftest import REPO, shared_or_skip\n"))
