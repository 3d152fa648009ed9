"""Every example of the documentation runs. Each shell, Python, JavaScript or TypeScript block of
the site's pages (docs/, CONTRIBUTING.md which the site includes) and of the README carries a marker on the line
before it:

  <!-- example: run -->                     run here, in page order, by this file (sh with `sh -e`, Python
                                            with this interpreter, TypeScript with tsc and node), from a fresh folder holding a copy of
                                            fixtures/; `run exit=N` expects exit status N
  <!-- example: tested-by tests/X.py -->    run as written by that test, which reads the page
  <!-- example: illustrative (why) -->      cannot run here (a hosted service, a shell's start-up file, your
                                            own application); the reason is required

A block without a marker, a marker of another kind, or a `tested-by` test that does not read the page fails."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.browser import missing

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").rglob("*.md")])
LANGUAGES = {"sh": "sh", "bash": "sh", "shell": "sh", "console": "sh", "python": "python", "py": "python",
             "js": "js", "javascript": "js", "ts": "ts", "typescript": "ts"}
MARKER = re.compile(r"^\s*<!-- example: (?P<kind>run|tested-by|illustrative)(?P<rest>.*?) -->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w-]*)")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str  # one of LANGUAGES' values
    marker: str | None  # the marker line, stripped, or None
    code: str

    @property
    def where(self) -> str:
        name = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page.name
        return f"{name}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The blocks of `page` in one of LANGUAGES, with the marker line before each (if any)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang = m.group("indent"), m.group("lang")
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        if lang in LANGUAGES:
            before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            marker = before.strip() if MARKER.match(before) else None
            code = "\n".join(x.removeprefix(indent) for x in lines[i + 1:end]) + "\n"
            out.append(Block(page, i + 1, LANGUAGES[lang], marker, code))
        i = end + 1
    return out


def _all() -> list[Block]:
    return [b for page in PAGES for b in blocks(page)]


def test_pages_have_examples_of_every_kind() -> None:
    kinds = {MARKER.match(b.marker).group("kind") for b in _all() if b.marker}  # type: ignore[union-attr]
    assert kinds == {"run", "tested-by", "illustrative"}
    assert len([b for b in _all() if b.marker and "example: run" in b.marker]) >= 20


def test_every_example_is_marked() -> None:
    assert [b.where for b in _all() if b.marker is None] == []


def test_illustrative_examples_say_why() -> None:
    bad = [b.where for b in _all() if b.marker and "example: illustrative" in b.marker
           and not re.search(r"example: illustrative \(.{10,}\) -->", b.marker)]
    assert bad == []


def test_run_examples_are_shell_python_or_typescript() -> None:
    assert [b.where for b in _all() if b.marker and "example: run" in b.marker and b.lang == "js"] == []


def test_tested_by_names_a_test_that_reads_the_page() -> None:
    for b in _all():
        m = MARKER.match(b.marker or "")
        if not m or m.group("kind") != "tested-by":
            continue
        test = m.group("rest").split()[0]
        source = (ROOT / test).read_text(encoding="utf-8")
        rel = b.page.relative_to(ROOT)
        assert all(f'"{part}"' in source for part in rel.parts), (b.where, test)


# ------------------------------------------------------------------------------------------------ running
def _expected_exit(marker: str) -> int:
    m = re.search(r"\bexit=(\d+)", marker)
    return int(m.group(1)) if m else 0


def _workdir(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    work = tmp_path / "work"
    work.mkdir(parents=True)
    shutil.copytree(ROOT / "fixtures", work / "fixtures")
    env = dict(os.environ, HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "cache"),
               AXAG_CACHE_DIR=str(tmp_path / "axag-cache"), NO_COLOR="1",
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    env.pop("AXAG_APPROVER_TOKEN", None)
    return work, env


def run_page(page: Path, tmp_path: Path) -> int:
    """Run the `run` blocks of `page` in order in one fresh folder; return how many ran."""
    work, env = _workdir(tmp_path)
    ran = 0
    for b in blocks(page):
        if not b.marker or "example: run" not in b.marker:
            continue
        if b.lang == "ts":
            res = _run_typescript(b, work, env)
        else:
            argv = ["sh", "-e", "-c", b.code] if b.lang == "sh" else [sys.executable, "-c", b.code]
            res = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=600, check=False)
        want = _expected_exit(b.marker)
        assert res.returncode == want, f"{b.where}: exit {res.returncode}, expected {want}\n{b.code}\n" \
                                       f"{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
        assert "Traceback" not in res.stderr, f"{b.where}\n{res.stderr}"
        ran += 1
    return ran


def _run_typescript(b: Block, work: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A TypeScript block: compiled with the project's tsc (strict, ES2022 modules, Node's types), run with node."""
    tsc, node = ROOT / "node_modules" / ".bin" / "tsc", shutil.which("node")
    if not tsc.exists() or node is None:
        missing(f"tsc ({tsc}) and node (npm install --no-audit --no-fund)")
    name = f"example-{b.line}"
    (work / f"{name}.ts").write_text(b.code, encoding="utf-8")
    config = {"compilerOptions": {"strict": True, "target": "ES2022", "module": "NodeNext",
                                  "moduleResolution": "NodeNext", "outDir": "out", "rootDir": ".",
                                  "lib": ["ES2022"], "types": ["node"],
                                  "typeRoots": [str(ROOT / "node_modules" / "@types")]},
              "files": [f"{name}.ts"]}
    (work / f"{name}.tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    (work / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")
    built = subprocess.run([str(tsc), "-p", f"{name}.tsconfig.json"], cwd=work, env=env, capture_output=True,
                           text=True, timeout=600, check=False)
    if built.returncode != 0:
        return built
    shutil.copy(work / "package.json", work / "out" / "package.json")
    return subprocess.run([node, f"out/{name}.js"], cwd=work, env=env, capture_output=True, text=True, timeout=600,
                          check=False)


RUN_PAGES = [p for p in PAGES if any(b.marker and "example: run" in b.marker for b in blocks(p))]


@pytest.mark.slow
@pytest.mark.parametrize("page", RUN_PAGES, ids=[p.relative_to(ROOT).as_posix() for p in RUN_PAGES])
def test_page_examples_run(page: Path, tmp_path: Path) -> None:
    assert run_page(page, tmp_path) >= 1


def test_a_failing_example_fails_the_run(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- example: run -->\n```sh\naxag lint fixtures/site --select ALL --fail-on warning\n```\n",
                    encoding="utf-8")
    with pytest.raises(AssertionError, match=r"page\.md:2: exit 1, expected 0"):
        run_page(page, tmp_path / "first")
    page.write_text("<!-- example: run exit=1 -->\n```sh\naxag lint fixtures/site --select ALL --fail-on warning\n"
                    "```\n\n<!-- example: run -->\n```python\nraise SystemExit('no')\n```\n", encoding="utf-8")
    with pytest.raises(AssertionError, match=r"page\.md:7: exit 1, expected 0"):
        run_page(page, tmp_path / "again")
