"""The webmcp target and the `axag webmcp` module outside the browser: the document's shape, its
shipped schema, --check and --self-check, and the module's build (the guard runtime compiled from runtime.ts,
never a second copy) and safety (annotation text reaches it only as data)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from axag.cli.group import main
from axag.compile.validate import check_structure, self_check
from tests.conftest import REPO

SITE = REPO / "fixtures" / "site"


def _compile(tmp: Path, target: str, site: Path = SITE) -> dict:
    out = tmp / f"{target}.json"
    done = CliRunner().invoke(main, ["compile", str(site), "--root", str(site), "--target", target, "-o", str(out),
                                     "--self-check"])
    assert done.exit_code == 0, done.output
    return json.loads(out.read_text(encoding="utf-8"))


def test_webmcp_document_is_the_mcp_tools_in_webmcp_shape(tmp_path: Path) -> None:
    mcp = _compile(tmp_path, "mcp")
    web = _compile(tmp_path, "webmcp")
    assert web["$schema"] == "https://axag.org/schema/tools/v1/webmcp-tools.schema.json"
    assert [t["name"] for t in web["tools"]] == [t["name"] for t in mcp["tools"]]
    for m, w in zip(mcp["tools"], web["tools"], strict=True):
        assert list(w) == ["name", "title", "description", "inputSchema", "annotations", "_meta"]
        for key in ("name", "title", "description", "inputSchema"):
            assert w[key] == m[key]
        assert w["annotations"] == {"readOnlyHint": m["annotations"]["readOnlyHint"],
                                    "untrustedContentHint": "org.axag/http" in m["_meta"]}
        assert {k: v for k, v in w["_meta"].items() if k != "org.axag/element"} == m["_meta"]
    element = {t["name"]: t["_meta"]["org.axag/element"] for t in web["tools"]}
    assert element["site_search"] == {"intent": "site.search", "locations": [
        {"page": "/booking.html", "index": 0}, {"page": "/index.html", "index": 0}]}
    assert element["rate_update"] == {"intent": "rate.update", "locations": [{"page": "/admin.html", "index": 0}]}
    assert check_structure(web, "webmcp") == [] and self_check(web, "webmcp") == []


def test_webmcp_check_and_self_check(tmp_path: Path) -> None:
    out = tmp_path / "webmcp.json"
    run = CliRunner().invoke
    assert run(main, ["compile", str(SITE), "--root", str(SITE), "--target", "webmcp", "-o", str(out)]).exit_code == 0
    # --check reads the target from the file's own $schema
    assert run(main, ["compile", str(SITE), "--root", str(SITE), "--check", "-o", str(out)]).exit_code == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    doc["tools"][0]["annotations"]["destructiveHint"] = True  # a member browsers would drop
    assert any("unexpected key 'destructiveHint'" in p for p in check_structure(doc, "webmcp"))
    assert self_check(doc, "webmcp") != []
    doc = json.loads(out.read_text(encoding="utf-8"))
    doc["tools"][0]["_meta"]["org.axag/element"]["locations"] = [{"page": "booking.html", "index": -1}]
    assert len(check_structure(doc, "webmcp")) == 2 and self_check(doc, "webmcp") != []


def test_components_register_anywhere_and_positions_count_per_page(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "src").mkdir(parents=True)
    button = ('<button type="button" axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="low" '
              'axag-idempotent="true" axag-side-effects=\'[]\' axag-required-parameters=\'[]\' '
              'axag-description="Empty the cart">Clear</button>')
    (site / "a.html").write_text(f"<!doctype html><p>{button}</p><p>{button}</p>", encoding="utf-8")
    (site / "src" / "Cart.jsx").write_text(
        "export function Cart() {\n  return <div>" + button.replace("'[]'", '"[]"') + "</div>;\n}\n",
        encoding="utf-8")
    web = _compile(tmp_path, "webmcp", site)
    assert web["tools"][0]["_meta"]["org.axag/element"]["locations"] == [
        {"page": "/a.html", "index": 0}, {"page": "/a.html", "index": 1}, {"source": "src/Cart.jsx"}]


def test_runtime_is_compiled_from_the_typescript_guard_runtime() -> None:
    """axag/webmcp/runtime.min.js is what scripts/webmcp-runtime.py makes of runtime.ts and driver.js."""
    if shutil.which("node") is None or not (REPO / "node_modules" / ".bin" / "terser").exists():
        pytest.fail("node, tsc and terser are needed: run `npm install --no-audit --no-fund`")
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "webmcp-runtime.py"), "--check"],
                          check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_module_text_is_data_only_and_deterministic(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    hostile = '"); alert(1); //</script>\u2028 ` \\'
    (site / "p.html").write_text(
        '<form action="/s" axag-intent="site.find" axag-action-type="read" axag-risk-level="none" '
        f'axag-side-effects=\'[]\' axag-description="{hostile.replace(chr(34), "&quot;")}">'
        '<input name="q" required></form>', encoding="utf-8")
    outs = []
    for n in range(2):
        out = tmp_path / f"out{n}"
        done = CliRunner().invoke(main, ["webmcp", str(site), "-o", str(out)])
        assert done.exit_code == 0, done.output
        outs.append((out / "axag-webmcp.js").read_bytes())
    assert outs[0] == outs[1]
    text = outs[0].decode("utf-8")
    tools_line = next(line for line in text.splitlines() if line.startswith("const AXAG_TOOLS = JSON.parse("))
    assert tools_line.isascii()  # every annotation text is ASCII-escaped inside one string literal
    literal = tools_line[len("const AXAG_TOOLS = JSON.parse("):-2]
    data = json.loads(json.loads(literal))
    assert data[0]["description"].startswith('"); alert(1); //</script>')
    assert "alert(1)" not in text.replace(literal, "")


def test_webmcp_command_errors(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["webmcp", str(tmp_path / "missing"), "-o", str(tmp_path / "o")])
    assert done.exit_code == 2 and "no such file or folder" in done.output
    bad = tmp_path / "tools.json"
    bad.write_text('{"tools": 1}', encoding="utf-8")
    done = CliRunner().invoke(main, ["webmcp", str(bad), "-o", str(tmp_path / "o")])
    assert done.exit_code == 2 and "not a valid MCP tools file" in done.output
    assert not (tmp_path / "o").exists()
