"""The documentation site: `mkdocs build --strict` builds it (no broken link, no broken
anchor, no page outside the nav); every page under docs/ is in the nav and every nav entry is a page; the
README stays short and links into the site; the `docs` extra installs MkDocs and Material."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _nav_pages(entries: list[Any]) -> list[str]:
    out: list[str] = []
    for entry in entries:
        if isinstance(entry, str):
            out.append(entry)
        elif isinstance(entry, dict):
            for value in entry.values():
                out.extend(_nav_pages(value) if isinstance(value, list) else [value])
    return out


def _config() -> dict[str, Any]:
    config: dict[str, Any] = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    return config


def test_every_page_is_in_the_nav_and_every_nav_entry_is_a_page() -> None:
    nav = _nav_pages(_config()["nav"])
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert len(nav) == len(set(nav)), "a page is twice in the nav"
    assert sorted(set(pages) - set(nav)) == [], "pages missing from the nav of mkdocs.yml"
    assert sorted(set(nav) - set(pages)) == [], "nav entries of mkdocs.yml without a page"


def test_the_site_has_the_sections_of_the_issue() -> None:
    sections = [next(iter(e)) if isinstance(e, dict) else e for e in _config()["nav"]]
    assert sections == ["Home", "Getting started", "Annotating", "Lint", "Compile", "Serve",
                        "In the browser and the editor", "CI recipes", "Performance", "Reference", "Contributors"]


def test_the_site_builds_strict(tmp_path: Path) -> None:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", HOME=str(tmp_path))
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=600, env=env, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "WARNING" not in res.stderr, res.stderr
    built = tmp_path / "site"
    assert (built / "index.html").is_file()
    for page in ("getting-started", "rules", "reference/cli", "serve/security", "dev/contributing"):
        assert (built / page / "index.html").is_file(), page
    # the contributors' page includes CONTRIBUTING.md itself (pymdownx.snippets), not a copy of it
    assert "Adding a rule" in (built / "dev" / "contributing" / "index.html").read_text(encoding="utf-8")


def test_readme_is_short_and_links_into_the_site() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    links = re.findall(r"\]\((docs/[^)#]+)", text)
    assert len(set(links)) >= 15
    assert [link for link in links if not (ROOT / link).is_file()] == []
    # the two commands: install and run on the example site; install and pass the tests (what .ci/run runs)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert f"\n{ci}\n" in text
    assert "pip install . && axag lint fixtures/site && axag compile fixtures/site -o tools.json\n" in text


def test_the_docs_extra_installs_mkdocs_and_material() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert sorted(re.split(r"[<>=]", d)[0] for d in extras["docs"]) == ["mkdocs", "mkdocs-material"]
    assert "axag[docs]" in extras["test"]
