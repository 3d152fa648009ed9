"""Rule 151 unbound-action is on by default ("info, a compile check"): `axag lint` reports, as an
info, the actions `axag serve` cannot run by itself, and `axag compile` prints the same finding and still writes
its output (an info never stops compile)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import lint_json, run_axag

_WHY = ("axag serve runs it only with a handler (--handlers) or an OpenAPI operation "
        "(axag-operation-id with --openapi)")
_NO_FORM = "no form submits it and it is not a navigate link (<a href>)"

_JSX = ('export function Cart() {\n'
        '  return (\n'
        '    <button onClick={clear} axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="high"\n'
        '            axag-confirmation-required="true" axag-description="Empty the cart">Clear</button>\n'
        '  );\n'
        '}\n')
_BUTTON = ('<form action="/orders" method="post" axag-intent="order.create" axag-action-type="write"\n'
           '      axag-risk-level="low" axag-description="Place the order"><button>Order</button></form>\n'
           '<button type="button" axag-intent="cart.sync" axag-action-type="write" axag-risk-level="low"\n'
           '        axag-idempotent="true" axag-description="Sync the cart">Sync</button>\n')


def _unbound(findings: list[dict[str, object]]) -> list[tuple[object, ...]]:
    return [(f["code"], f["severity"], f["path"], f["line"], f["column"], f["message"])
            for f in findings if f["code"] == "AXAG-LINT-151"]


def _site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / "Cart.jsx").write_text(_JSX, encoding="utf-8")
    (site / "sync.html").write_text(_BUTTON, encoding="utf-8")
    return site


def test_lint_reports_unbound_actions_by_default_as_infos(tmp_path: Path) -> None:
    site = _site(tmp_path)
    code, findings = lint_json(["."], cwd=site)
    assert code == 0  # an info does not fail lint
    assert _unbound(findings) == [
        ("AXAG-LINT-151", "info", "Cart.jsx", 3, 6, f'"cart.clear" has no HTTP binding: {_NO_FORM}; {_WHY}'),
        ("AXAG-LINT-151", "info", "sync.html", 3, 2, f'"cart.sync" has no HTTP binding: {_NO_FORM}; {_WHY}'),
    ]


def test_compile_prints_unbound_actions_and_still_writes(tmp_path: Path) -> None:
    site = _site(tmp_path)
    out = tmp_path / "tools.json"
    res = run_axag(["compile", "--isolated", ".", "-o", str(out)], cwd=site)
    assert res.exit_code == 0
    assert res.stdout.count("info[AXAG-LINT-151]") == 2
    assert f'info[AXAG-LINT-151]: "cart.sync" has no HTTP binding: {_NO_FORM}; {_WHY}\n --> sync.html:3:2' in res.stdout
    assert '"cart.clear" has no HTTP binding' in res.stdout
    tools = {t["name"]: t for t in json.loads(out.read_text(encoding="utf-8"))["tools"]}
    assert sorted(tools) == ["cart_clear", "cart_sync", "order_create"]
    assert "org.axag/http" in tools["order_create"]["_meta"]
    assert "org.axag/http" not in tools["cart_sync"].get("_meta", {})


def test_the_site_fixture_still_compiles(tmp_path: Path) -> None:
    out = tmp_path / "tools.json"
    res = run_axag(["compile", "--isolated", "fixtures/site", "-o", str(out)],
                   cwd=Path(__file__).resolve().parents[2])
    assert res.exit_code == 0, res.output
    assert res.stdout.count("info[AXAG-LINT-151]") == 4
    assert len(json.loads(out.read_text(encoding="utf-8"))["tools"]) == 6
