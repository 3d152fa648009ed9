"""Components: `axag-*` in JSX/TSX read with tree-sitter into the same model as HTML; bound values
in Vue, Angular, Svelte and Astro; discovery of the new kinds; fixes on static JSX strings."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import FIXTURES, REPO, run_axag, shared_or_skip

JSX = FIXTURES / "jsx"


def _lint(*args: str, cwd: Path = JSX, isolated: bool = True) -> list[tuple[str, str, int, int, str]]:
    # 151 (an action no form submits: every onClick action) has its own tests (tests/rules/test_unbound_action.py)
    res = run_axag(["lint", *(["--isolated"] if isolated else []), "--ignore", "unbound-action",
                    "--output-format", "json", *args], cwd=cwd)
    assert res.exit_code in (0, 1), res.output
    return [(f["path"].rsplit("jsx/", 1)[-1], f["code"][-3:], f["line"], f["column"], f["severity"])
            for f in json.loads(res.stdout)["findings"]]


def _tools(*args: str, cwd: Path = JSX) -> list[dict[str, object]]:
    res = run_axag(["compile", "--isolated", *args, "-o", "-"], cwd=cwd)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)["tools"]  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------------- reference corpus
def test_reference_component_tsx(tmp_path: Path) -> None:
    src = shared_or_skip("corpus/axag-sdk/lint__tests__fixtures__component.tsx")
    shutil.copy(src, tmp_path / "component.tsx")
    res = run_axag(["lint", "--isolated", "--ignore", "unbound-action", "--output-format", "json", "component.tsx"],
                   cwd=tmp_path)
    assert res.exit_code == 0 and json.loads(res.stdout)["findings"] == []
    from axag.files.source import load
    from axag.parse.jsx import parse_jsx

    loaded = load(tmp_path / "component.tsx", (tmp_path / "component.tsx").read_bytes())
    assert not isinstance(loaded, str)
    pf = parse_jsx(loaded)
    assert [(e.tag, len(e.attrs)) for e in pf.elements] == [("button", 8), ("button", 8), ("button", 12)]
    names = [t["name"] for t in _tools("component.tsx", cwd=tmp_path)]
    assert names == ["account_delete", "cart_add_item", "product_search"]


def test_reference_widget_vue(tmp_path: Path) -> None:
    src = shared_or_skip("corpus/axag-sdk/compiler__tests__fixtures__app__src__Widget.vue")
    shutil.copy(src, tmp_path / "Widget.vue")
    assert [f[1:] for f in _lint("Widget.vue", cwd=tmp_path)] == [("033", 6, 6, "warning")]
    assert [t["name"] for t in _tools("Widget.vue", cwd=tmp_path)] == ["cart_add_item"]


# ---------------------------------------------------------------------------------------------- values
def test_static_and_dynamic_values() -> None:
    assert _lint("values.tsx") == [
        ("values.tsx", "017", 6, 88, "warning"),  # {false} is the static value "false"
        ("values.tsx", "033", 17, 6, "warning"),  # axag-intent={name}, axag-risk-level={risk}
        ("values.tsx", "001", 24, 40, "error"),  # onClick on an intrinsic <button>
    ]


def test_dynamic_message_lists_the_expressions() -> None:
    res = run_axag(["lint", "--isolated", "--output-format", "json", "values.tsx"], cwd=JSX)
    f = json.loads(res.stdout)["findings"][1]
    assert f["message"] == ("<button> has dynamic values in axag-intent, axag-risk-level; they cannot be checked "
                            "or compiled at build time; compile leaves this action out")


def test_harvesting_reads_static_jsx_controls() -> None:
    tools = _tools("values.tsx")
    assert [t["name"] for t in tools] == ["order_place"]  # the dynamic action is left out
    assert tools[0]["inputSchema"] == {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
        "properties": {"quantity": {"type": "integer", "description": "Quantity", "minimum": 1, "maximum": 10}},
        "required": ["quantity"], "additionalProperties": False,
    }


def test_suppression_comment_in_jsx() -> None:
    assert _lint("suppress.tsx") == [
        ("suppress.tsx", "001", 5, 6, "error"),
        ("suppress.tsx", "133", 6, 32, "warning"),
    ]


# ---------------------------------------------------------------------------------------------- components
def test_components_unmapped_are_not_interactive() -> None:
    assert _lint("components/Toolbar.jsx") == [("components/Toolbar.jsx", "001", 8, 8, "error")]


def test_components_mapped_by_configuration() -> None:
    assert _lint("Toolbar.jsx", cwd=JSX / "components", isolated=False) == [
        ("components/Toolbar.jsx", "001", 4, 8, "error"),  # <Button onClick> -> <button>
        ("components/Toolbar.jsx", "001", 8, 8, "error"),
        ("components/Toolbar.jsx", "031", 9, 8, "error"),  # <Button … /> without text
    ]


def test_components_mapped_to_controls_are_harvested() -> None:
    res = run_axag(["compile", "Signup.jsx", "-o", "-"], cwd=JSX / "components")
    assert json.loads(res.stdout)["tools"][0]["inputSchema"]["properties"] == {
        "email": {"type": "string", "description": "Email address", "format": "email",
                  "pattern": "^[^\\r\\n]*$"}}  # <TextField> = <input>; single-line
    unmapped = _tools("Signup.jsx", cwd=JSX / "components")  # --isolated: no mapping, nothing harvested
    assert unmapped[0]["inputSchema"]["properties"] == {}  # type: ignore[index]


def test_components_configuration_is_checked(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.axag.jsx]\ncomponents = { Button = "Big Button" }\n')
    (tmp_path / "a.tsx").write_text("export const A = () => <Button />;\n")
    res = run_axag(["lint", "a.tsx"], cwd=tmp_path)
    assert res.exit_code == 2
    assert '"jsx.components.Button" must be an HTML tag name such as "button"' in res.output


# ---------------------------------------------------------------------------------------------- spec objects
def test_spec_objects_same_file_and_relative_import() -> None:
    assert _lint("spec/App.tsx") == [
        ("spec/App.tsx", "033", 19, 8, "warning"),  # axag={spec}: a prop, unresolvable
        ("spec/App.tsx", "105", 20, 135, "error"),  # inline object: idempotent: "maybe"
        ("spec/actions/cart.ts", "005", 8, 15, "error"),  # riskLevel: "lowish" in the imported spec
    ]


def test_spec_findings_point_into_the_imported_object() -> None:
    assert _lint("spec/D.tsx") == [
        ("spec/actions/del.ts", "021", 1, 74, "warning"),  # at actionType: "delete"
        ("spec/actions/del.ts", "006", 1, 118, "warning"),  # at riskLevel: "high"
        ("spec/actions/del.ts", "026", 1, 118, "warning"),
    ]


def test_spec_objects_compile(tmp_path: Path) -> None:
    shutil.copytree(JSX / "spec", tmp_path / "spec")
    cart = tmp_path / "spec" / "actions" / "cart.ts"
    cart.write_text(cart.read_text().replace('"lowish"', '"low"'))
    app = tmp_path / "spec" / "App.tsx"
    app.write_text(app.read_text().replace('"maybe"', "true"))
    tools = _tools("spec/App.tsx", cwd=tmp_path)
    assert [t["name"] for t in tools] == ["cart_add_item", "cart_clear", "cart_remove_item"]
    add = tools[0]
    assert add["inputSchema"]["properties"] == {"product_id": {"type": "string"}}  # type: ignore[index]
    meta = add["_meta"]["org.axag/action"]  # type: ignore[index]
    assert meta["side_effects"] == ["cart_updated"] and meta["risk_level"] == "low"


def test_import_candidates_follow_typescript() -> None:
    from axag.parse.jsxspec import attribute_name, candidates

    d = Path("/p/src")
    assert candidates(d, "./x.js")[:3] == [d / "x.ts", d / "x.tsx", d / "x.js"]
    assert candidates(d, "../node_modules/y") == []
    assert attribute_name("requiredParameters") == "axag-required-parameters"
    assert attribute_name("approvalRoles") == "axag-approval-roles"


# ---------------------------------------------------------------------------------------------- --fix
def test_fix_tsx_twice_is_idempotent(tmp_path: Path) -> None:
    target = tmp_path / "fix.tsx"
    shutil.copy(JSX / "fix.tsx", target)
    first = run_axag(["lint", "--isolated", "--fix", "--output-format", "concise", "fix.tsx"], cwd=tmp_path)
    assert "Fixed 4 findings." in first.output
    once = target.read_text()
    assert 'axag-intent="account.delete"' in once and 'axag-risk-level="high"' in once
    # a string literal inside an expression: only its characters are edited, never the expression
    assert 'axag-idempotent={"true"} axag-scope={"user"}' in once
    second = run_axag(["lint", "--isolated", "--fix", "--output-format", "concise", "fix.tsx"], cwd=tmp_path)
    assert "Fixed" not in second.output and target.read_text() == once
    assert [f[1:4] for f in _lint("fix.tsx", cwd=tmp_path)] == []


def test_fix_check_rejects_a_changed_expression() -> None:
    from axag.parse.jsx import fix_problem

    old = 'const a = <b axag-intent="X" onClick={go}/>;\n'
    assert fix_problem(old, old.replace('"X"', '"x"'), Path("a.tsx")) is None
    assert fix_problem(old, old.replace("go", "stop"), Path("a.tsx")) is not None
    assert fix_problem(old, old.replace("/>", ">"), Path("a.tsx")) is not None


# ---------------------------------------------------------------------------------------------- templates
def test_vue_bindings() -> None:
    assert _lint("Bound.vue") == [("Bound.vue", "033", 3, 6, "warning"), ("Bound.vue", "033", 5, 6, "warning")]


def test_angular_bindings() -> None:
    assert _lint("team.component.html") == [
        ("team.component.html", "033", 2, 4, "warning"),
        ("team.component.html", "033", 3, 4, "warning"),
        ("team.component.html", "033", 5, 4, "warning"),
    ]


def test_svelte_expressions_and_script() -> None:
    assert _lint("Card.svelte") == [("Card.svelte", "033", 6, 2, "warning"), ("Card.svelte", "005", 9, 26, "error")]


def test_astro_front_matter_skipped() -> None:
    assert _lint("Page.astro") == [("Page.astro", "033", 5, 2, "warning"), ("Page.astro", "001", 10, 2, "error")]


# ---------------------------------------------------------------------------------------------- discovery
def test_discovery_includes_components_and_counts_kinds() -> None:
    res = run_axag(["lint", "--isolated", "--output-format", "concise", "."], cwd=JSX)
    assert res.output.splitlines()[-1] == (
        "Read 14 files: 6 tsx, 2 jsx, 2 ts, 1 astro, 1 html, 1 svelte, 1 vue.")  # not notes.txt


def test_named_file_with_unread_extension_is_skipped_with_a_warning() -> None:
    assert _lint("notes.txt") == [("notes.txt", "190", 1, 1, "warning")]
    res = run_axag(["lint", "--isolated", "--output-format", "json", "notes.txt"], cwd=JSX)
    assert json.loads(res.stdout)["findings"][0]["message"] == "axag does not read .txt files; skipped"


def test_html_run_never_loads_tree_sitter() -> None:
    code = ("import sys; from axag.cli.group import main\n"
            "try:\n    main(['lint', '--isolated', '--quiet', 'fixtures/site'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('tree_sitter')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stderr[-2000:]


def test_missing_grammars_give_a_clear_warning(tmp_path: Path) -> None:
    (tmp_path / "a.tsx").write_text('export const A = () => <button axag-intent="a.b">x</button>;\n')
    code = ("import sys; sys.modules['tree_sitter'] = None\nfrom axag.cli.group import main\n"
            "main(['lint', '--isolated', '--output-format', 'concise', 'a.tsx'])")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          check=False, env=env)
    assert done.stdout.splitlines()[0] == (
        "a.tsx:1:1: AXAG-LINT-190 JSX/TSX support needs the tree-sitter grammars: pip install 'axag[jsx]' "
        "(tree-sitter, tree-sitter-typescript, tree-sitter-javascript); skipped")


def test_dynamic_jsx_action_is_listed_by_the_manifest_target() -> None:
    res = run_axag(["compile", "--isolated", "values.tsx", "-o", "-", "--target", "manifest"], cwd=JSX)
    assert json.loads(res.stdout)["dynamic_actions"] == [
        {"source_file": "values.tsx", "source_line": 17, "reason": "dynamic values in axag-intent, axag-risk-level"}]


def test_guards_from_components(tmp_path: Path) -> None:
    shutil.copy(JSX / "values.tsx", tmp_path / "values.tsx")
    res = run_axag(["compile", "--isolated", "values.tsx", "-o", "tools.json", "--guards", "guards"], cwd=tmp_path)
    assert res.exit_code == 0, res.output
    guards = (tmp_path / "guards" / "_guards.py").read_text()
    assert "def guard_order_place(" in guards and "def guard_order_lookup(" not in guards  # dynamic: left out


def test_context_inheritance_and_children_holes() -> None:
    # {children} is a hole (like a template block): no 137 there; a plain <section> gets it
    assert _lint("Layout.tsx") == [("Layout.tsx", "137", 5, 37, "warning")]
    tools = _tools("Layout.tsx")
    meta = tools[0]["_meta"]["org.axag/action"]  # type: ignore[index]
    assert (tools[0]["name"], meta["scope"], meta["required_roles"]) == ("user_ban", "tenant", ["admin"])


def test_string_macro_in_jsx(tmp_path: Path) -> None:
    (tmp_path / "m.tsx").write_text('export const M = () => <button axag="write:cart.add_item!lowx?idempotent" '
                                    'axag-description="Add">Add</button>;\n')
    assert [f[1:4] for f in _lint("m.tsx", cwd=tmp_path)] == [("023", 1, 38), ("027", 1, 58)]


def test_fix_in_svelte_start_tag_with_expressions(tmp_path: Path) -> None:
    (tmp_path / "C.svelte").write_text(
        '<button axag-intent="a.b" axag-entity="a" axag-action-type="read" axag-description="x" '
        'on:click={() => go(a > b)} axag-risk-level="Low" axag-idempotent="true">x</button>\n')
    res = run_axag(["lint", "--isolated", "--fix", "--output-format", "concise", "C.svelte"], cwd=tmp_path)
    assert "Fixed 1 finding." in res.output and "199" not in res.output
    assert 'go(a > b)} axag-risk-level="low"' in (tmp_path / "C.svelte").read_text()


# ---------------------------------------------------------------------------------------------- robustness
_PIECES = ['<button ', '<form ', '<input ', '<Button ', '</button>', '</form>', '/>', '>', '<>', '</>', '{', '}',
           'axag-intent="a.b" ', 'axag-risk-level={r} ', 'axag={spec} ', 'axag={{ intent: "x.y", ', '...p ',
           'onClick={() => a > b} ', '"', "'", '`${x}`', 'é', '😀', '\n', 'const spec = { riskLevel: "low" };\n',
           'import { s } from "./s.js";\n', '{/* axag-disable-next-line 001 */}', 'htmlFor="q" ', 'min={1} ']


def test_odd_jsx_never_crashes(tmp_path: Path) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from axag.config.settings import Settings
    from axag.lint.engine import Request, check_file

    @settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.lists(st.sampled_from(_PIECES), max_size=40))
    def run(parts: list[str]) -> None:
        data = "".join(parts).encode("utf-8")
        for mode in ("lint", "compile"):
            out = check_file(tmp_path / "f.tsx", "f.tsx", "f.tsx", Settings(base=tmp_path),
                             Request(mode=mode, want_contracts=True), data=data)
            assert 199 not in [f.code for f in out.findings], [f.message for f in out.findings]

    run()


def test_spec_through_a_re_export_and_an_index_file(tmp_path: Path) -> None:
    (tmp_path / "actions").mkdir()
    (tmp_path / "actions" / "defs.ts").write_text(
        'export const archive = { intent: "doc.archive", entity: "doc", actionType: "write",\n'
        '  description: "Archive", riskLevel: "low", idempotent: true, scope: "admins" };\n')
    (tmp_path / "actions" / "index.ts").write_text('export { archive as archiveDoc } from "./defs.js";\n')
    (tmp_path / "A.tsx").write_text('import { archiveDoc } from "./actions";\n'
                                    "export const A = () => <button axag={archiveDoc}>Archive</button>;\n")
    assert _lint("A.tsx", cwd=tmp_path) == [("actions/defs.ts", "107", 2, 71, "error")]
