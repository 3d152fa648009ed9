"""No silent loss (parsing robustness): over the shared corpus, every element carrying an `axag-*` attribute (counted
independently with BeautifulSoup's html.parser, outside comments/script/style/textarea) is compiled, feeds a
compiled tool (context inherited by it, a control harvested into it) or is named in a finding on its start tag."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from click.testing import CliRunner

from axag.cli.group import main

SKIP_PARENTS = {"script", "style", "textarea", "title"}


@dataclass
class Annotated:
    tag: str
    line: int  # first line of the start tag
    end_line: int  # last line of the start tag
    attrs: list[str]
    ancestors: list[int] = field(default_factory=list)  # indices of annotated ancestors
    kind: str = "other"  # action | context | control | other


def _start_tag_lines(text: str, line: int, col: int) -> int:
    """The last line of the start tag that begins at (line, col): scan to its closing `>` outside quotes."""
    lines = text.split("\n")
    pos = sum(len(ln) + 1 for ln in lines[:line - 1]) + col
    quote = ""
    i = pos
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
        elif c in "\"'" and text[i - 1] == "=" or c in "\"'" and text[i - 1] in " \t\n" and i > pos and \
                text[max(pos, i - 2):i].rstrip().endswith("="):
            quote = c
        elif c == ">":
            break
        i += 1
    return text.count("\n", 0, i) + 1


CONTEXT = {"axag-scope", "axag-tenant-boundary", "axag-required-roles", "axag-risk-level", "axag-side-effects",
           "axag-entity"}


def _annotated(path: Path) -> list[Annotated]:
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    soup = BeautifulSoup(text, "html.parser")
    out: list[Annotated] = []
    index: dict[int, int] = {}
    for el in soup.find_all(True):
        assert isinstance(el, Tag)
        if any(p.name in SKIP_PARENTS for p in el.parents if isinstance(p, Tag)):
            continue
        names = [a for a in el.attrs if a.lower() == "axag" or a.lower().startswith("axag-")]
        if not names:
            continue
        line, col = el.sourceline or 1, el.sourcepos or 0
        lowered = {a.lower() for a in names}
        if "axag-intent" in lowered or "axag" in lowered:
            kind = "action"
        elif any(a.startswith("axag-parameter") for a in lowered):
            kind = "control"
        elif lowered <= CONTEXT:
            kind = "context"
        else:
            kind = "other"
        ann = Annotated(el.name, line, _start_tag_lines(text, line, col), names, kind=kind)
        ann.ancestors = [index[id(p)] for p in el.parents if id(p) in index]
        index[id(el)] = len(out)
        out.append(ann)
    return out


def _invoke(args: list[str], cwd: Path) -> Any:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.fixture(scope="module")
def corpus() -> Path:
    from tests.conftest import shared_or_skip

    return shared_or_skip("corpus")


def _lint_findings(corpus: Path) -> dict[str, list[dict[str, Any]]]:
    res = _invoke(["lint", "--isolated", "--jobs", "1", "--output-format", "json", "."], corpus)
    assert res.exit_code in (0, 1), res.output
    by_file: dict[str, list[dict[str, Any]]] = {}
    for f in json.loads(res.stdout)["findings"]:
        by_file.setdefault(f["path"], []).append(f)
    return by_file


def _compiled_lines(corpus: Path, rel: str) -> set[int]:
    res = _invoke(["compile", "--isolated", "--jobs", "1", "--keep-going", "--quiet", "-o", "-", "--root", ".",
                   rel], corpus)
    assert res.exit_code in (0, 1), res.output
    lines: set[int] = set()
    if res.stdout.strip():
        for tool in json.loads(res.stdout)["tools"]:
            for src in tool["_meta"]["org.axag/action"]["sources"]:
                lines.add(src["line"])
    return lines


def _account(root: Path, findings: dict[str, list[dict[str, Any]]]) -> tuple[list[str], dict[str, int]]:
    files = sorted(p for p in root.rglob("*.html"))
    lost: list[str] = []
    stats = {"total": 0, "compiled": 0, "finding": 0, "feeding": 0}
    for path in files:
        rel = path.relative_to(root).as_posix()
        anns = _annotated(path)
        if not anns:
            continue
        compiled = _compiled_lines(root, rel)
        flines = {f["line"] for f in findings.get(rel, [])}
        ok = [False] * len(anns)
        for i, a in enumerate(anns):
            span = set(range(a.line, a.end_line + 1))
            if span & compiled:
                ok[i] = True
                stats["compiled"] += 1
            elif span & flines:
                ok[i] = True
                stats["finding"] += 1
        # context inherited by a compiled descendant; controls harvested into a compiled ancestor action
        for i, a in enumerate(anns):
            if ok[i]:
                continue
            compiled_desc = any(i in b.ancestors and set(range(b.line, b.end_line + 1)) & compiled for b in anns)
            compiled_anc = any(set(range(anns[j].line, anns[j].end_line + 1)) & compiled for j in a.ancestors)
            if (a.kind in ("context", "action") and compiled_desc) or (a.kind == "control" and compiled_anc):
                ok[i] = True
                stats["feeding"] += 1
        for i, a in enumerate(anns):
            stats["total"] += 1
            if not ok[i]:
                lost.append(f"{rel}:{a.line}: <{a.tag} {' '.join(a.attrs)}> ({a.kind})")
    return lost, stats


def test_every_annotated_element_is_accounted_for(corpus: Path) -> None:
    assert len(list(corpus.rglob("*.html"))) > 100
    lost, stats = _account(corpus, _lint_findings(corpus))
    print(f"corpus: {stats}; lost {len(lost)}")
    for item in lost:
        print("LOST", item)
    assert stats["total"] > 200
    assert not lost, "\n".join(lost[:50])


TRICKY = """<!DOCTYPE html><html><head><title><a axag-intent="t.title">not an element</a></title></head>
<body axag-scope="user">
<template><button axag-intent="tpl.go" axag-action-type="read">t</button></template>
<noscript><button axag-intent="ns.go" axag-action-type="read">n</button></noscript>
<button axag-intent="self.close" axag-action-type="read" />
<form axag-intent="outer.send" axag-action-type="read">
  <form axag-intent="inner.send" axag-action-type="read"><input name="a"></form>
</form>
<div
   AXAG-INTENT="upper.case"
   axag-action-type="read">u</div>
<a axag-intent="bad" axag-action-type="read">bad intent</a>
<a axag-intent="dup.go" axag-action-type="read">1</a><a axag-intent="dup.go" axag-action-type="read">2</a>
<p axag-frobnicate="1">unknown attribute</p>
<p axag-scope="user">unused context</p>
<textarea><a axag-intent="ta.go"></a></textarea>
<table><tr><td><button axag-intent="td.go" axag-action-type="read">c</button></td></tr></table>
<select><option axag-intent="opt.go" axag-action-type="read">o</option></select>
<svg><a axag-intent="svg.go" axag-action-type="read">s</a></svg>
<a axag-intent="x.y" axag-action-type="read" axag-description='unterminated>x</a>
</body></html>
"""


def test_tricky_markup_loses_nothing(tmp_path: Path) -> None:
    (tmp_path / "t.html").write_text(TRICKY, encoding="utf-8")
    lost, stats = _account(tmp_path, _lint_findings(tmp_path))
    print(f"tricky: {stats}; lost {lost}")
    assert stats["total"] >= 14
    assert not lost, "\n".join(lost)


def test_counter_agrees_on_a_known_file(tmp_path: Path) -> None:
    """The independent counter itself: comments, script, style and textarea contents are not elements."""
    f = tmp_path / "a.html"
    f.write_text('<!-- <a axag-intent="x.y"> -->\n<script>"<a axag-intent=\'x.y\'>"</script>\n'
                 '<style>a[axag-intent] {}</style><textarea><b axag-intent="x.y"></b></textarea>\n'
                 '<main axag-scope="user">\n<form axag-intent="a.b"\n  axag-action-type="read">\n'
                 '<input name="q" axag-parameter-description="Q"></form></main>\n', encoding="utf-8")
    anns = _annotated(f)
    assert [(a.tag, a.line, a.end_line, a.kind) for a in anns] == [
        ("main", 4, 4, "context"), ("form", 5, 6, "action"), ("input", 7, 7, "control")]
    assert re.search("x", "x")
