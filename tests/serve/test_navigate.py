"""Actions serve cannot run: lint reports them (151, on by default), and a navigate link to a page
of the site is bound as the GET of its href, which `axag serve` runs against a real backend on loopback."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import mcp  # noqa: F401 - the `serve` extra
except ImportError:  # pragma: no cover - a clone without the serve extra; CI installs it (.[test])
    pytest.skip("axag[serve] is not installed", allow_module_level=True)

from tests.conftest import lint_json, run_axag
from tests.serve.test_serve import _env, serve_args, stdio_client
from tests.serve_backend import running_backend

_LINKS = ('<a href="../orders.html?status=open#top" axag-intent="order.list_open" axag-action-type="navigate"\n'
          '   axag-risk-level="none" axag-description="List the open orders">Open orders</a>\n'
          '<a href="https://help.example.com/orders" axag-intent="help.open" axag-action-type="navigate"\n'
          '   axag-risk-level="none" axag-description="Open the help">Help</a>\n')


def _site(tmp_path: Path, links: str = _LINKS) -> Path:
    site = tmp_path / "site"
    (site / "shop").mkdir(parents=True)
    (site / "shop" / "links.html").write_text(links, encoding="utf-8")
    (site / "orders.html").write_text("<p>Open orders: 3</p>\n", encoding="utf-8")
    return site


def test_lint_reports_the_actions_serve_cannot_run(tmp_path: Path) -> None:
    site = _site(tmp_path)
    code, findings = lint_json(["site"], cwd=tmp_path)
    assert code == 0
    assert [(f["code"], f["severity"], f["line"], f["message"]) for f in findings if f["code"] == "AXAG-LINT-151"] == [
        ("AXAG-LINT-151", "info", 3, ('"help.open" has no HTTP binding: its href "https://help.example.com/orders" '
         "leaves the site; axag serve runs it only with a handler (--handlers) or an OpenAPI operation "
         "(axag-operation-id with --openapi)"))]
    res = run_axag(["compile", "--isolated", ".", "-o", str(tmp_path / "tools.json")], cwd=site)
    assert res.exit_code == 0
    tools = {t["name"]: t for t in json.loads((tmp_path / "tools.json").read_text(encoding="utf-8"))["tools"]}
    assert tools["order_list_open"]["_meta"]["org.axag/http"] == {
        "method": "GET", "action": "/orders.html", "enctype": "application/x-www-form-urlencoded",
        "fields": {}, "constants": [["status", "open"]], "checkbox": {}, "refresh": False, "live": [],
        "page": "shop/links.html"}
    assert "org.axag/http" not in tools["help_open"].get("_meta", {})


def test_a_button_no_form_submits_is_reported(tmp_path: Path) -> None:
    (tmp_path / "b.html").write_text(
        '<button type="button" axag-intent="cart.sync" axag-action-type="write" axag-risk-level="low"\n'
        '        axag-idempotent="true" axag-description="Sync the cart">Sync</button>\n', encoding="utf-8")
    _code, findings = lint_json(["b.html"], cwd=tmp_path)
    assert [(f["code"], f["line"], f["column"]) for f in findings] == [("AXAG-LINT-151", 1, 2)]


def test_serve_runs_a_navigate_link_as_the_get_of_its_href(tmp_path: Path) -> None:
    site = _site(tmp_path, _LINKS.split("\n<a href=\"https")[0] + "\n")
    with running_backend(site) as backend:
        # the only tool is bound: serve starts without --allow-unbound
        args = serve_args(tmp_path / "state.sqlite", str(site), "--base-url", backend.url)

        async def go() -> None:
            async with stdio_client(args, "auto") as client:
                listed = await client.list_tools()
                assert [t.name for t in listed.tools] == ["order_list_open"]
                res = await client.call_tool("order_list_open", {})
                assert not res.is_error, res.structured_content
                env = res.structured_content
                assert env["success"] is True and env["result"]["status"] == 200
                assert env["result"]["body"] == "<p>Open orders: 3</p>\n"

        asyncio.run(go())
        assert [(r.method, r.path, r.query) for r in backend.requests] == [
            ("GET", "/orders.html", [("status", "open")])]


def test_serve_still_refuses_an_off_site_link(tmp_path: Path) -> None:
    site = _site(tmp_path)
    out = subprocess.run([sys.executable, *serve_args(tmp_path / "state.sqlite", str(site), "--base-url",
                                                      "http://127.0.0.1:9")],
                         capture_output=True, text=True, env=_env(), timeout=60, check=False)
    assert out.returncode != 0
    assert "these tools have no HTTP binding and no handler: help_open" in out.stderr
    assert "axag lint (rule 151 unbound-action) says why each one has no binding" in out.stderr
