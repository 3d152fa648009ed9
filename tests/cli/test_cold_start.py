"""Cold start (performance targets): `axag lint one.html` imports nothing the run does not use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

# what a lint of a plain page with no comment, no legacy attribute, no enum, no configuration and no .gitignore
# never needs: the guard runtime and renderers, the migration, the suppression parser, fixes, other report
# formats, TOML, gitignore matching, and the heavy third-party modules
UNNEEDED = (
    "axag.values.pyruntime", "axag.guards.render", "axag.lint.migrate", "axag.lint.suppress", "axag.lint.fix",
    "axag.lint.baseline", "axag.compile.targets", "axag.compile.validate", "axag.report.sarif",
    "axag.report.json_", "axag.batch.workers", "tomllib", "pathspec", "rich", "jsonschema", "jinja2", "bs4",
    "tempfile", "multiprocessing", "concurrent.futures",
)

PLAIN = """<!doctype html>
<html><body>
<form axag-intent="room.search" axag-entity="room" axag-action-type="read" axag-description="Find rooms">
  <input name="city" required maxlength="40">
  <input name="guests" type="number" min="1" max="8">
</form>
<button axag-intent="cart.clear" axag-entity="cart" axag-action-type="delete" axag-idempotent="true"
        axag-risk-level="low">Clear</button>
</body></html>
"""

# a comment with a directive and a legacy attribute: the suppression parser and the migration are needed
SPECIAL = """<!doctype html>
<html><body>
<!-- axag-disable-next-line 138 -- named by the button -->
<button axag-intent="cart.clear" axag-entity="cart" axag-action-type="delete" axag-idempotent="true"
        axag-risk-level="low" axag-constraints='{"qty": {"min": 1}}'>Clear</button>
</body></html>
"""

PROBE = """
import runpy, sys, json
sys.argv = ["axag", *json.loads(sys.argv[1])]
try:
    runpy.run_module("axag", run_name="__main__")
except SystemExit:
    pass
sys.stdout.flush()
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
"""


def _imported(page: str, tmp_path: Path, *extra: str) -> tuple[int, str, set[str]]:
    (tmp_path / "one.html").write_text(page, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(["lint", "one.html", *extra])], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    modules = json.loads(done.stderr.rpartition("MODULES ")[2])
    return done.returncode, done.stdout, set(modules)


def test_lint_of_one_plain_file_imports_nothing_it_does_not_use(tmp_path: Path) -> None:
    for extra in ((), ("--no-cache",)):
        _, out, modules = _imported(PLAIN, tmp_path, *extra)
        assert "All checks passed." in out or "Found" in out
        assert "lxml.etree" in modules or extra == ()  # the page was parsed (or served by the cache)
        assert sorted(m for m in modules for u in UNNEEDED if m == u or m.startswith(u + ".")) == []


def test_a_warm_run_imports_no_parser_or_model(tmp_path: Path) -> None:
    _imported(PLAIN, tmp_path)  # fills the cache
    _, _, modules = _imported(PLAIN, tmp_path)
    # the rule declarations (selection needs them) are read without the parser and the model they check
    assert not {m for m in modules if m.startswith(("lxml", "axag.model", "axag.parse", "axag.compile.build"))}


def test_the_modules_a_page_needs_are_imported(tmp_path: Path) -> None:
    """The probe sees imports: a page with a directive and a legacy attribute needs both modules."""
    _, out, modules = _imported(SPECIAL, tmp_path, "--no-cache")
    assert {"axag.lint.suppress", "axag.lint.migrate"} <= modules, out
