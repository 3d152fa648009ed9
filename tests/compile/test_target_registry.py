"""A compile target is one module and one schema.

Each module of axag/compile/targets/ declares its targets (name, words, schema file and $id, rendering, the
structural check, the schemas the document carries, how an existing file is recognised); the registry, the
command line's choices, the configuration's enum, --check, --self-check, axag/compile/validate.py and
docs/targets.md read the declarations. The last tests add a target for real, in a copy of the package, the way
docs/dev/extending.md says: one module and one schema, nothing else.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from axag.compile import targets
from axag.compile.validate import check_structure, self_check
from axag.config.toml import enum_choices
from tests.conftest import REPO

TARGETS_MD = REPO / "docs" / "targets.md"


def test_targets_md_is_generated_from_the_declarations() -> None:
    text = targets.markdown()
    if os.environ.get("AXAG_UPDATE_GOLDENS"):
        TARGETS_MD.write_text(text, encoding="utf-8")
    assert TARGETS_MD.read_text(encoding="utf-8") == text
    assert "| `openai-responses` | OpenAI Responses API tools" in text


def test_every_declaration_names_its_own_schema() -> None:
    assert targets.names() == ("mcp", "anthropic", "manifest", "openai", "openai-responses", "webmcp")
    for t in targets.declared():
        schema = json.loads((REPO / "schemas" / t.schema_file).read_text(encoding="utf-8"))
        assert schema["$id"] == t.schema_id, t.name
    assert [t.name for t in targets.declared() if t.strict] == ["openai", "openai-responses"]
    assert enum_choices("target") == targets.names()


def test_an_unknown_target_is_refused_by_name() -> None:
    for call in (lambda: check_structure({}, "nope"), lambda: self_check({}, "nope"), lambda: targets.get("nope")):
        try:
            call()
        except ValueError as exc:
            assert "unknown target 'nope'; expected one of: mcp, anthropic" in str(exc)
        else:
            raise AssertionError("no error")


ECHO_MODULE = '''"""Target ``echo``: the tool names and descriptions, nothing else (a test target)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from axag.compile.contract import ToolContract
from axag.compile.targets import Options, Rendered, Target
from axag.compile.targets.mcp import envelope, sorted_contracts
from axag.compile.validate import Checker, Path, is_text

SCHEMA_ID = "https://example.org/schema/echo-tools.schema.json"


def render(contracts: Sequence[ToolContract], o: Options) -> Rendered:
    tools = [{"name": c.tool["name"], "description": c.tool["description"]} for c in sorted_contracts(contracts)]
    return Rendered(envelope(SCHEMA_ID, o.version, tools))


def check_tool(c: Checker, v: Any, path: Path) -> str | None:
    t = c.obj(v, path, ("name", "description"), ("name", "description"))
    if t is None:
        return None
    c.val(t, "description", path, is_text, "a non-empty string")
    return t.get("name")


TARGETS: Final = (
    Target(
        name="echo",
        summary="tool names and descriptions",
        schema_file="echo-tools.schema.json",
        schema_id=SCHEMA_ID,
        render=render,
        check=lambda c, doc: c.tools(doc, TARGETS[0], check_tool),
        schemas=lambda doc: iter(()),
    ),
)
'''


def _echo_schema(max_tools: int | None = None) -> str:
    tools: dict[str, object] = {"type": "array", "items": {
        "type": "object", "required": ["name", "description"], "additionalProperties": False,
        "properties": {"name": {"type": "string"}, "description": {"type": "string", "minLength": 1}}}}
    if max_tools is not None:
        tools["maxItems"] = max_tools
    return json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.org/schema/echo-tools.schema.json",
        "type": "object", "required": ["$schema", "axag", "generator", "tools"], "additionalProperties": False,
        "properties": {"$schema": {"const": "https://example.org/schema/echo-tools.schema.json"},
                       "axag": {"const": "1.1"}, "generator": {"type": "object"}, "tools": tools},
    }, indent=2) + "\n"


def _project_with_echo(tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    for part in ("axag", "schemas"):
        shutil.copytree(REPO / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "axag" / "compile" / "targets" / "echo.py").write_text(ECHO_MODULE, encoding="utf-8")  # the module
    (copy / "schemas" / "echo-tools.schema.json").write_text(_echo_schema(), encoding="utf-8")  # and its schema
    return copy


def _axag(copy: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(copy), "NO_COLOR": "1", "AXAG_CACHE_DIR": str(cwd / ".cache"),
           "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "axag", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.slow  # a copy of the package and seven runs of axag
def test_a_new_target_module_and_schema_are_all_a_target_needs(tmp_path: Path) -> None:
    copy = _project_with_echo(tmp_path)
    site = tmp_path / "site"
    shutil.copytree(REPO / "fixtures" / "site", site)

    helped = _axag(copy, site, "compile", "--help")
    assert "[mcp|anthropic|echo|manifest|openai|openai-responses|webmcp]" in " ".join(helped.stdout.split())
    assert "echo: tool names and descriptions" in " ".join(helped.stdout.split())

    # --target and --self-check: the document is checked, then validated against the new schema
    out = site / "echo.json"
    done = _axag(copy, site, "compile", ".", "--isolated", "--no-cache", "--target", "echo", "--self-check",
                 "-o", str(out))
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["$schema"] == "https://example.org/schema/echo-tools.schema.json"
    assert [t["name"] for t in doc["tools"]] == sorted(t["name"] for t in doc["tools"]) and len(doc["tools"]) == 6

    # --check reads the target the file was compiled for
    checked = _axag(copy, site, "compile", ".", "--isolated", "--no-cache", "--check", "-o", str(out))
    assert checked.returncode == 0, checked.stderr

    # the configuration accepts it as compile.target
    (site / "axag.toml").write_text('[compile]\ntarget = "echo"\n', encoding="utf-8")
    configured = _axag(copy, site, "compile", ".", "--no-cache", "-o", "-")
    assert configured.returncode == 0, configured.stderr
    assert json.loads(configured.stdout) == doc
    (site / "axag.toml").write_text('[compile]\ntarget = "ehco"\n', encoding="utf-8")
    wrong = _axag(copy, site, "compile", ".", "--no-cache", "-o", "-")
    assert wrong.returncode == 2 and 'did you mean "echo"?' in wrong.stderr, wrong.stderr
    (site / "axag.toml").unlink()

    # --self-check uses the target's own schema: one that allows no tool rejects the document
    (copy / "schemas" / "echo-tools.schema.json").write_text(_echo_schema(max_tools=0), encoding="utf-8")
    strict = _axag(copy, site, "compile", ".", "--isolated", "--no-cache", "--target", "echo", "--self-check",
                   "-o", "-")
    assert strict.returncode != 0 and "failed self-validation" in strict.stderr and "/tools:" in strict.stderr
    plain = _axag(copy, site, "compile", ".", "--isolated", "--no-cache", "--target", "echo", "-o", "-")
    assert plain.returncode == 0, plain.stderr


def test_the_structural_check_of_a_new_target_is_its_own(tmp_path: Path) -> None:
    copy = _project_with_echo(tmp_path)
    probe = (
        "import json, sys\n"
        "from axag.compile.validate import check_structure, self_check\n"
        "doc = {'$schema': 'https://example.org/schema/echo-tools.schema.json', 'axag': '1.1',\n"
        "       'generator': {'name': 'axag', 'version': '0'}, 'tools': [{'name': 'b', 'description': ''},\n"
        "       {'name': 'a', 'description': 'x'}]}\n"
        "print(json.dumps([check_structure(doc, 'echo'), self_check(doc, 'echo')]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(copy)}
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60, check=True)
    structure, full = json.loads(done.stdout)
    assert structure == ["/tools/0/description: expected a non-empty string, got \"\"",
                         "/tools: tool names not sorted in code-point order"]
    assert full == ["/tools/0/description: '' should be non-empty"]
