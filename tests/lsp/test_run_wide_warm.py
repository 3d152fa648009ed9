"""The run-wide findings of `axag lsp` (121 duplicate intents, 122 tool-name collisions) stay those of a cold
`axag lint` of the folder whatever happened before: after any sequence of opens, edits, closes and on-disk changes
across several files, every open document's diagnostics (as the server last gave them: its own lint, or the
run-wide findings made again when another document's edit changed them), and every other file's report of
`workspace/diagnostic`, equal the findings of a cold lint of the final texts. Driven through the `Workspace` API
for many random sequences (as the server drives it), and through a real client for a few."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lsprotocol import types as T

from axag.api import lint_paths
from axag.lsp.workspace import DocumentLint, Workspace
from axag.outcome.findings import Finding
from tests.lsp.test_lsp import _expected_by_uri, _workspace
from tests.lsp_client import actual, change_doc, lint_json, open_doc, published, start, stop, until

NAMES = ("a.html", "b.html", "sub/c.html", "sub/d.html")
EXCLUDED = "vendor/e.html"  # changed on disk only: `axag lint` in the folder does not read it
# 122 is not reported for sub/d.html: a run-wide finding counts where its rule runs for the file it is in
CONFIG = ('[tool.axag]\nexclude = ["vendor"]\n\n'
          '[tool.axag.lint]\nper-file-ignores = { "sub/d.html" = ["AXAG-LINT-122"] }\n')
# (intent, operation id): the tool name is the operation id, else the intent's with "_"; "-" and "_" collide alike
DECLARATIONS = (("cart.add_item", None), ("user.save", "cart_add_item"), ("cart.remove", None),
                ("user.delete", "cart-remove"), ("user.save", None))
RISKS = ("low", "low", "low", "medium", "hgih")  # "hgih" is an error: the action takes no part in the merge


def form(declared: tuple[str, str | None], risk: str = "low", described: bool = False) -> str:
    intent, operation_id = declared
    op = f' axag-operation-id="{operation_id}"' if operation_id else ""
    desc = ' axag-description="Save it"' if described else ""
    return (f'<form action="/x" method="post" axag-intent="{intent}" axag-action-type="write" '
            f'axag-risk-level="{risk}"{op}{desc} axag-idempotent="true">\n'
            '  <input name="q" aria-label="Q"><button type="submit">Go</button>\n</form>\n')


def _page(*forms: str) -> str:
    return "<main>\n" + "".join(forms) + "</main>\n"


PAGES = st.lists(st.builds(form, st.sampled_from(DECLARATIONS), st.sampled_from(RISKS),
                           st.sampled_from((False, False, False, True))),
                 min_size=1, max_size=2).map(lambda forms: _page(*forms))
OPS = st.one_of(
    st.tuples(st.just("edit"), st.sampled_from(NAMES), PAGES),  # opens the document first when it is not open
    st.tuples(st.just("close"), st.sampled_from(NAMES), st.none()),
    st.tuples(st.just("disk"), st.sampled_from((*NAMES, EXCLUDED)), PAGES | st.none()),  # None: deleted
)


def _key(f: Finding) -> tuple[Any, ...]:
    return (f.path, f.line, f.column, f.end_line, f.end_column, f.code, f.severity.value, f.message)


class Editor:
    """Drives a `Workspace` as the server does: the open documents that a lint, a close or a file changed on disk
    names get their run-wide findings made again."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ws = Workspace(root)
        self.ws.scan()
        self.open: dict[str, str] = {}
        self.shown: dict[str, DocumentLint] = {}

    def lint(self, name: str) -> None:
        lint = self.ws.lint(self.root / name, self.open[name])
        self.shown[name] = lint
        self.again(lint.others)

    def again(self, others: list[Path]) -> None:
        for other in others:
            got = self.ws.run_wide_again(other)
            if got is not None:
                other_name = other.relative_to(self.root).as_posix()
                assert got[0] == self.open[other_name]
                self.shown[other_name] = got[1]

    def do(self, op: str, name: str, page: str | None) -> None:
        path = self.root / name
        if op == "edit":
            assert page is not None
            if name not in self.open:
                self.open[name] = path.read_text(encoding="utf-8") if path.exists() else ""
                self.lint(name)
            self.open[name] = page
            self.lint(name)
        elif op == "close" and name in self.open:
            del self.open[name], self.shown[name]
            self.again(self.ws.close(path))
        elif op == "disk":
            if page is None:
                path.unlink(missing_ok=True)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(page, encoding="utf-8")
            self.again(self.ws.file_changed(path))

    def warm(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every file's findings as the server shows them: open documents', then `workspace/diagnostic`'s."""
        out = {name: sorted(_key(f) for f in lint.findings) for name, lint in self.shown.items()}
        for path, _text, findings in self.ws.closed_reports():
            out[path.relative_to(self.root).as_posix()] = sorted(_key(f) for f in findings)
        return out

    def cold(self) -> dict[str, list[tuple[Any, ...]]]:
        """`axag lint` of the folder with the open documents' texts saved."""
        for name, text in self.open.items():
            (self.root / name).parent.mkdir(parents=True, exist_ok=True)
            (self.root / name).write_text(text, encoding="utf-8")
        before = os.getcwd()
        os.chdir(self.root)
        try:
            found = lint_paths(["."], isolated=False)
        finally:
            os.chdir(before)
        names = {p.relative_to(self.root).as_posix() for p in self.root.rglob("*.html")} - {EXCLUDED}
        out: dict[str, list[tuple[Any, ...]]] = {name: [] for name in names}
        for f in found:
            out[f.path].append(_key(f))
        return {name: sorted(keys) for name, keys in out.items()}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(start=[_page(form(("cart.add_item", None))), None, None, None],  # a 122 made, ended, made again
         ops=[("edit", "b.html", _page(form(("user.save", "cart_add_item")))),
              ("edit", "a.html", _page(form(("cart.add_item", None), "hgih"))),
              ("close", "a.html", None)])
@given(start=st.lists(PAGES | st.none(), min_size=len(NAMES), max_size=len(NAMES)),
       ops=st.lists(OPS, min_size=1, max_size=8))
def test_warm_diagnostics_equal_a_cold_lint_of_the_final_texts(start: list[str | None],
                                                                ops: list[tuple[str, str, str | None]]) -> None:
    with tempfile.TemporaryDirectory(prefix="axag-warm-") as work:
        root = Path(work)
        (root / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
        for name, page in zip(NAMES, start, strict=True):
            if page is not None:
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text(page, encoding="utf-8")
        editor = Editor(root)
        for op in ops:
            editor.do(*op)
        warm = editor.warm()
        assert warm == editor.cold()


def test_a_lone_file_declaring_an_intent_twice_gets_its_121(tmp_path: Path) -> None:
    """The merge runs for a document alone in its folder too (it declares cart.add_item with two contracts)."""
    text = _page(form(("cart.add_item", None)), form(("cart.add_item", None), "medium"))
    editor = Editor(tmp_path)
    editor.open["a.html"] = text
    editor.lint("a.html")
    assert [f.code for f in editor.shown["a.html"].findings].count(121) == 1
    assert editor.warm() == editor.cold()


# ---------------------------------------------------------------------------------------------- a real client
STEPS = [  # (file, its new text): each makes or ends a duplicate intent or a tool-name collision across files
    ("a.html", form(("cart.add_item", None))),
    ("b.html", form(("cart.add_item", None), "medium")),  # 121 in the later of a and b
    ("b.html", form(("user.save", "cart_add_item"))),  # ends 121; 122 (same tool name)
    ("a.html", form(("cart.add_item", None), "hgih")),  # a's action has an error: no 122 any more
    ("a.html", form(("cart.add_item", None)) + form(("cart.remove", "cart-add-item"))),
    ("b.html", form(("user.save", None))),
]


@pytest.mark.asyncio
async def test_pushed_diagnostics_of_every_open_document_follow_edits_of_the_others(tmp_path: Path) -> None:
    """Two open documents and a closed one: after each edit, both open documents' pushed diagnostics equal
    `axag lint --output-format json` of the folder with the edited texts saved."""
    root = _workspace(tmp_path, {"a.html": "<p>a</p>\n", "b.html": "<p>b</p>\n",
                                 "c.html": form(("cart.add_item", "user_save"), "low", True)})
    client = await start(root, tmp_path, options={"debounceMs": 0})
    try:
        uris = {name: open_doc(client, root / name) for name in ("a.html", "b.html")}
        await until(lambda: all(published(client, u) == 1 for u in uris.values()), 60)
        versions = {"a.html": 1, "b.html": 1}
        for name, text in STEPS:
            versions[name] += 1
            change_doc(client, uris[name], versions[name], text)
            (root / name).write_text(text, encoding="utf-8")  # for the cold lint only: the server is not told
            want = _expected_by_uri(root, lint_json(root, tmp_path), ["a.html", "b.html"])

            def done(want: dict[str, list[Any]] = want) -> bool:
                return all(sorted(actual(d) for d in client.diagnostics.get(u, [])) == want[u]
                           for u in uris.values())

            await until(lambda n=name: published(client, uris[n]) == versions[n], 60)
            await until(done, 30, f"the diagnostics after editing {name}: {want}")
    finally:
        await stop(client)


@pytest.mark.asyncio
async def test_pulled_diagnostics_follow_edits_of_the_others(tmp_path: Path) -> None:
    """The same edits with a client that pulls: each open document's pull and `workspace/diagnostic` equal the
    cold lint of the folder after every edit."""
    root = _workspace(tmp_path, {"a.html": "<p>a</p>\n", "b.html": "<p>b</p>\n",
                                 "c.html": form(("cart.add_item", "user_save"), "low", True)})
    client = await start(root, tmp_path, pull=True)
    try:
        uris = {name: open_doc(client, root / name) for name in ("a.html", "b.html")}
        versions = {"a.html": 1, "b.html": 1}
        for name, text in STEPS:
            versions[name] += 1
            change_doc(client, uris[name], versions[name], text)
            (root / name).write_text(text, encoding="utf-8")
            want = _expected_by_uri(root, lint_json(root, tmp_path), ["a.html", "b.html", "c.html"])
            for uri in uris.values():
                report = await client.text_document_diagnostic_async(T.DocumentDiagnosticParams(
                    T.TextDocumentIdentifier(uri)))
                assert isinstance(report, T.RelatedFullDocumentDiagnosticReport)
                assert sorted(actual(d) for d in report.items) == want[uri], (name, uri)
            every = await client.workspace_diagnostic_async(T.WorkspaceDiagnosticParams(previous_result_ids=[]))
            got = {item.uri: sorted(actual(d) for d in item.items) for item in every.items
                   if isinstance(item, T.WorkspaceFullDocumentDiagnosticReport)}
            assert got == want, name
    finally:
        await stop(client)


@pytest.mark.asyncio
async def test_a_file_changed_on_disk_updates_the_run_wide_findings_of_open_documents(tmp_path: Path) -> None:
    """b.html is open; a.html (earlier in path order, so the 121 is b's) is written, changed and deleted on
    disk: b's pushed diagnostics follow, as `axag lint --output-format json` of the folder gives them."""
    root = _workspace(tmp_path, {"a.html": "<p>a</p>\n", "b.html": _page(form(("cart.add_item", None)))})
    client = await start(root, tmp_path, options={"debounceMs": 0})
    try:
        b_uri = open_doc(client, root / "b.html")
        a_uri = (root / "a.html").as_uri()
        await until(lambda: published(client, b_uri) == 1, 60)
        for text, run_wide in ((_page(form(("cart.add_item", None), "medium")), ["AXAG-LINT-121"]),
                               (_page(form(("user.save", "cart_add_item"))), ["AXAG-LINT-122"]),
                               (_page(form(("user.save", "cart_add_item"), "hgih")), []),
                               (None, [])):  # deleted
            if text is None:
                (root / "a.html").unlink()
            else:
                (root / "a.html").write_text(text, encoding="utf-8")
            want = _expected_by_uri(root, lint_json(root, tmp_path), ["b.html"])[b_uri]
            assert [w[0] for w in want if w[0] in ("AXAG-LINT-121", "AXAG-LINT-122")] == run_wide
            client.workspace_did_change_watched_files(T.DidChangeWatchedFilesParams([T.FileEvent(
                a_uri, T.FileChangeType.Deleted if text is None else T.FileChangeType.Changed)]))
            await until(lambda w=want: sorted(actual(d) for d in client.diagnostics.get(b_uri, [])) == w, 30,
                        f"b.html's diagnostics after a.html became {text!r}: {want}")
            assert published(client, b_uri) == 1  # the same version, published again
    finally:
        await stop(client)
