"""A component's tool registers wherever the component renders its element: the tool compiled from a
JSX source has no page, so the module registers it on any page once an element with its `axag-intent` is in the
DOM (rendered by the page's script after load, as React would), withdraws it when the element goes, and
activates that element when called. Real Chromium with WebMCP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.serve_backend import Backend
from tests.webmcp.test_browser import Page, _calls, browser, compile_with_module, playwright
from tests.webmcp.test_live import _serve_page, served

__all__ = ["browser", "playwright", "served"]  # the fixtures

BUTTON = ('<button type="button" axag-intent="cart.clear" axag-action-type="delete" axag-risk-level="low" '
          'axag-idempotent="true" axag-side-effects="[]" axag-required-parameters="[]" '
          'axag-description="Empty the cart">Clear</button>')
# what the component renders, done the way a framework does it: DOM calls from the page's own module
RENDER = """window.__cleared = 0;
window.renderCart = () => {
  const b = document.createElement("button");
  b.type = "button"; b.textContent = "Clear";
  b.setAttribute("axag-intent", "cart.clear");
  b.addEventListener("click", () => { window.__cleared += 1; });
  document.querySelector("#root").append(b);
};
window.unmountCart = () => document.querySelector("#root").replaceChildren();
"""
SHOP = """<!DOCTYPE html>
<html lang="en"><head><title>shop</title></head><body>
<div id="root"></div>
<script type="module" src="/render.js"></script>
<script type="module" src="/axag-webmcp.js"></script>
</body></html>
"""


def test_a_components_tool_registers_where_it_renders(browser: Any, tmp_path: Path,
                                                      served: tuple[Path, Backend]) -> None:
    site = tmp_path / "site"
    (site / "src").mkdir(parents=True)
    (site / "src" / "Cart.jsx").write_text("export function Cart() {\n  return <div>" + BUTTON + "</div>;\n}\n",
                                           encoding="utf-8")
    doc = compile_with_module(site, tmp_path / "tools.json")
    assert [t["name"] for t in doc["tools"]] == ["cart_clear"]
    (served[0] / "render.js").write_text(RENDER, encoding="utf-8")
    backend = _serve_page(served, site, SHOP)
    page = Page(browser, f"{backend.url}/doc.html")  # a page the compiler never saw
    try:
        assert page.names() == []  # not rendered yet
        page.page.evaluate("window.renderCart()")
        page.page.wait_for_function("async () => (await document.modelContext.getTools()).length === 1")
        tools = page.tools()
        assert [t["name"] for t in tools] == ["cart_clear"]
        assert tools[0]["description"] == doc["tools"][0]["description"]
        got = page.call("cart_clear", {})
        assert got["success"] is True, got
        assert got["result"] == {"activated": True, "element": "button", "handled": False, "still_on_page": True}
        assert page.page.evaluate("window.__cleared") == 1
        page.page.evaluate("window.unmountCart()")
        page.page.wait_for_function("async () => (await document.modelContext.getTools()).length === 0")
        page.page.evaluate("window.renderCart()")  # mounted again: registered again
        page.page.wait_for_function("async () => (await document.modelContext.getTools()).length === 1")
        assert _calls(backend) == []
        assert page.errors == []
    finally:
        page.close()
