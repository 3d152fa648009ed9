"""The known deviations of lxml/libxml2 ≥ 2.14 from HTML5 (parsing: which start tags are elements) are accepted and pinned here:
a self-closing non-void element is closed at once, and a nested <form> is kept as a form of its own."""

from __future__ import annotations

import json

from tests.conftest import FIXTURES, run_axag

CASE = FIXTURES / "lxml"


def test_self_closed_button_has_no_text() -> None:
    res = run_axag(["lint", "--isolated", "--output-format", "json", "deviations.html"], cwd=CASE)
    assert [(f["code"], f["line"], f["column"]) for f in json.loads(res.stdout)["findings"]] == [
        ("AXAG-LINT-031", 11, 4), ("AXAG-LINT-151", 11, 4)]  # the self-closed button submits no form


def test_nested_form_is_its_own_scope() -> None:
    res = run_axag(["compile", "--isolated", "deviations.html", "-o", "-"], cwd=CASE)
    tools = {t["name"]: list(t["inputSchema"]["properties"]) for t in json.loads(res.stdout)["tools"]}
    assert tools == {"order_export": ["format"], "order_refresh": [], "order_search": ["q"]}
