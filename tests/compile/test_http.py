"""`_meta["org.axag/http"]` and `outputSchema` in compile output: how the browser submits each
action's form, checked on HTML text through `axag.api.compile_paths`, and the OpenAPI binding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from axag.api import compile_paths
from axag.compile.validate import check_structure, self_check
from axag.files.shipped_schemas import load_schema

ROOT = Path(__file__).resolve().parents[2]
ACTION = ('axag-action-type="write" axag-risk-level="low" axag-idempotent="true" axag-side-effects=\'[]\' '
          'axag-description="Do it"')


def compile_pages(tmp_path: Path, pages: dict[str, str]) -> dict[str, Any]:
    for name, body in pages.items():
        file = tmp_path / name
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(f"<!DOCTYPE html><html lang=en><body>{body}</body></html>", encoding="utf-8")
    doc, _ = compile_paths([tmp_path], root=str(tmp_path))
    assert not check_structure(doc, "mcp")
    assert not self_check(doc, "mcp")
    return doc


def binding(doc: dict[str, Any], name: str) -> Any:
    tool = next(t for t in doc["tools"] if t["name"] == name)
    return tool["_meta"].get("org.axag/http")


def test_form_binding_of_the_example_site() -> None:
    doc, _ = compile_paths([ROOT / "fixtures" / "site"], root=str(ROOT / "fixtures" / "site"))
    assert binding(doc, "booking_create") == {
        "method": "POST", "action": "/bookings", "enctype": "application/x-www-form-urlencoded",
        "fields": {"check_in": "check_in", "check_out": "check_out", "guests": "guests", "email": "email",
                   "board": "board", "note": "note"},
        "constants": [["csrf", "token"]], "checkbox": {}, "refresh": True, "live": [[0, "input:hidden", 0]],
        "form": {"id": "booking"}, "page": "booking.html", "multiline": ["note"]}
    assert binding(doc, "site_search")["method"] == "GET"
    assert binding(doc, "booking_cancel") is None  # a type="button" without a form submits nothing
    envelope = {k: v for k, v in load_schema("envelope.schema.json").items() if k not in ("$id", "title",
                                                                                           "description")}
    for tool in doc["tools"]:
        assert list(tool) == ["name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta"]
        assert tool["outputSchema"] == envelope


def test_submitter_wins_and_relative_actions_resolve_against_the_page(tmp_path: Path) -> None:
    doc = compile_pages(tmp_path, {"shop/cart.html": f"""
      <form action="checkout?step=1" method="post" enctype="text/plain">
        <label>Displayed name <input name="displayName"></label>
        <input type="hidden" name="h" value="1">
        <input type="file" name="photo">
        <label>Code <input name="code" value="K9" readonly></label>
        <label>Gone <input name="gone" value="x" disabled></label>
        <label>Wrap <input type="checkbox" name="wrap"></label>
        <button type="submit" name="go" value="now" formaction="../pay" formmethod="POST"
                formenctype="multipart/form-data" axag-intent="cart.pay" {ACTION}>Pay</button>
        <button type="submit" axag-intent="cart.save" {ACTION}>Save</button>
      </form>
      <form method="dialog" axag-intent="dialog.close" {ACTION}><button>Close</button></form>
      <form axag-intent="self.post" {ACTION}><label>Q <input name="q"></label></form>"""})
    pay = binding(doc, "cart_pay")
    assert pay == {
        "method": "POST", "action": "/pay", "enctype": "multipart/form-data",
        "fields": {"display_name": "displayName", "wrap": "wrap"},
        "constants": [["h", "1"], ["code", "K9"], ["go", "now"]],
        "checkbox": {"wrap": "on"}, "refresh": True, "live": [[0, "input:hidden", 0]],
        "form": {"action": "/shop/checkout?step=1", "method": "POST", "index": 0, "count": 1},
        "page": "shop/cart.html", "unsupported": ["photo"]}
    save = binding(doc, "cart_save")
    assert (save["method"], save["action"], save["enctype"]) == ("POST", "/shop/checkout?step=1", "text/plain")
    assert save["constants"] == [["h", "1"], ["code", "K9"]]
    assert binding(doc, "dialog_close") is None
    own = binding(doc, "self_post")
    assert (own["method"], own["action"], own["refresh"]) == ("GET", "/shop/cart.html", False)


def test_template_values_are_taken_from_the_live_page(tmp_path: Path) -> None:
    doc = compile_pages(tmp_path, {"t.html": f"""
      <form action="/t" method="post" axag-intent="t.send" {ACTION}>
        <label>Q <input name="q"></label><input name="k" value="{{{{ k }}}}" readonly>
      </form>"""})
    b = binding(doc, "t_send")
    assert b["constants"] == [["k", None]] and b["refresh"] is True


def test_a_self_posting_form_repeated_on_pages_is_one_tool(tmp_path: Path) -> None:
    form = f'<form method="post" axag-intent="news.join" {ACTION}><label>Mail <input name="m"></label></form>'
    doc = compile_pages(tmp_path, {"a.html": form, "b.html": form})
    assert [t["name"] for t in doc["tools"]] == ["news_join"]
    assert len(doc["tools"][0]["_meta"]["org.axag/action"]["sources"]) == 2


def test_tools_schema_rejects_a_broken_binding(tmp_path: Path) -> None:
    doc = compile_pages(tmp_path, {"a.html": f'<form action="/x" axag-intent="a.b" {ACTION}>'
                                             '<label>Q <input name="q"></label></form>'})
    doc["tools"][0]["_meta"]["org.axag/http"]["method"] = "PUT"
    assert check_structure(doc, "mcp") == [
        "/tools/0/_meta/org.axag~1http/method: expected 'GET' or 'POST', got \"PUT\""]
    assert self_check(doc, "mcp")


def test_openapi_binding_and_drift(tmp_path: Path) -> None:
    from axag.compile.openapi import bind_openapi
    from axag.outcome.errors import InputError

    shop = ROOT / "tests" / "data" / "serve"
    doc, _ = compile_paths([shop / "site"], root=str(shop / "site"))
    problems = bind_openapi(doc, shop / "openapi.yaml")
    assert binding(doc, "getStock") == {
        "openapi": {"operation_id": "getStock", "method": "GET", "path": "/api/stock/{sku}",
                    "in": {"sku": "path", "warehouse": "query"}}, "page": "shop.html"}
    assert problems == [("getStock: operation getStock has the header parameter 'X-Trace', which the annotation "
                         "does not declare")]
    assert not check_structure(doc, "mcp", ordered=False) and not self_check(doc, "mcp")
    spec = json.loads(json.dumps({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {
        "/s/{sku}": {"get": {"operationId": "getStock", "parameters": [
            {"name": "sku", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "ok"}}}}}}))
    other = tmp_path / "api.json"
    other.write_text(json.dumps(spec), encoding="utf-8")
    doc, _ = compile_paths([shop / "site"], root=str(shop / "site"))
    assert bind_openapi(doc, other) == [("getStock: parameter 'sku' is string in the annotation but integer in "
                                         "operation getStock")]
    bad = tmp_path / "bad.json"
    bad.write_text('{"openapi": "3.0.3", "paths": {}}', encoding="utf-8")
    with pytest.raises(InputError, match="not a valid OpenAPI"):
        bind_openapi(doc, bad)


def test_compile_openapi_option(tmp_path: Path) -> None:
    from tests.conftest import run_axag

    shop = ROOT / "tests" / "data" / "serve"
    res = run_axag(["compile", "--isolated", "--root", str(shop / "site"), str(shop / "site"), "--openapi",
                    str(shop / "openapi.yaml"), "-o", str(tmp_path / "tools.json"), "--output-format", "concise"])
    assert res.exit_code == 0, res.stderr
    # the drift is a finding of rule 149 (tests/rules/test_binding.py), not a loose warning
    assert res.stdout.splitlines()[0].endswith(
        'shop.html:23:53: AXAG-LINT-149 Operation "getStock" has the header parameter "X-Trace", which '
        '"stock.check" does not declare')
    assert "OpenAPI drift" not in res.stderr
    doc = json.loads((tmp_path / "tools.json").read_text(encoding="utf-8"))
    assert binding(doc, "getStock")["openapi"]["path"] == "/api/stock/{sku}"
    res = run_axag(["compile", "--isolated", "--root", str(shop / "site"), str(shop / "site"), "--openapi",
                    str(shop / "openapi.yaml"), "-o", str(tmp_path / "tools.json"), "--check"])
    assert res.exit_code == 0
    res = run_axag(["compile", "--isolated", str(shop / "site"), "--openapi", str(tmp_path / "none.yaml")])
    assert res.exit_code == 2 and "cannot read the OpenAPI document" in res.stderr


def test_documents_are_v2_and_v1_documents_are_still_read(tmp_path: Path) -> None:
    from tests.conftest import run_axag

    doc = compile_pages(tmp_path, {"a.html": f'<form action="/x" axag-intent="a.b" {ACTION}>'
                                             '<label>Q <input name="q"></label></form>'})
    assert doc["$schema"] == "https://axag.org/schema/tools/v2/tools.schema.json"
    old = json.loads((ROOT / "tests" / "data" / "guards" / "booking.tools.json").read_text(encoding="utf-8"))
    assert old["$schema"] == "https://axag.org/schema/tools/v1/tools.schema.json"
    assert check_structure(old, "mcp", ordered=False) == [] and self_check(old, "mcp") == []
    assert check_structure(old, "mcp") == [
        ("/$schema: expected 'https://axag.org/schema/tools/v2/tools.schema.json', got \"https://axag.org/schema/"
         "tools/v1/tools.schema.json\"")]
    res = run_axag(["guards", str(ROOT / "tests" / "data" / "guards" / "booking.tools.json"), "-o",
                    str(tmp_path / "g")])
    assert res.exit_code == 0, res.stderr


def test_the_submitter_is_submitted_at_its_document_position(tmp_path: Path) -> None:
    # inside the form, between two controls; and outside it (form=), after the form's controls, nested deeper
    doc = compile_pages(tmp_path, {"p.html": f"""
      <div><form id="f" action="/p" method="post">
        <input type="hidden" name="a" value="1">
        <div><span><button type="submit" name="go" value="mid" axag-intent="p.mid" {ACTION}>Mid</button></span></div>
        <input type="hidden" name="b" value="2">
      </form></div>
      <section><p><button type="submit" form="f" name="out" value="x" axag-intent="p.out" {ACTION}>Out</button>
      </p></section>"""})
    assert binding(doc, "p_mid")["constants"] == [["a", "1"], ["go", "mid"], ["b", "2"]]
    assert binding(doc, "p_out")["constants"] == [["a", "1"], ["b", "2"], ["out", "x"]]


def test_controls_owned_through_the_form_attribute_keep_document_order(tmp_path: Path) -> None:
    doc = compile_pages(tmp_path, {"o.html": f"""
      <p><label>First <input name="first" form="f"></label></p>
      <form id="f" action="/o" method="post" axag-intent="o.send" {ACTION}>
        <label>Middle <input name="middle"></label><input type="hidden" name="h" value="1">
      </form>
      <div><div><label>Last <input name="last" form="f"></label></div></div>"""})
    b = binding(doc, "o_send")
    assert list(b["fields"]) == ["first", "middle", "last"]
    assert b["constants"] == [["h", "1"]]
    tool = next(t for t in doc["tools"] if t["name"] == "o_send")
    assert list(tool["inputSchema"]["properties"]) == ["first", "middle", "last"]
