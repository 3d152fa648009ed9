"""The label lookup of harvesting (§5.6) finds the first `<label for>` of the document from the raw text when it
can; it must always agree with the document-wide walk."""

from __future__ import annotations

import pytest

from axag.model.harvest import _state
from tests.conftest import build_model_from

FORM = '<form axag-intent="a.b" axag-description="d">{body}<button>Go</button></form>'

CASES = [
    # plain, label before / after the control, in another subtree, missing
    '<label for="x">X</label><input id="x" name="x">',
    '<input id="x" name="x"><label for="x">X</label>',
    '<div><div><div><input id="x" name="x"></div></div></div><p><span><label for="x">X</label></span></p>',
    '<input id="x" name="x">',
    # a label for the same id earlier in the page, outside the form
    '<input id="x" name="x">',
    # several labels on one line, labels spanning lines, upper case
    '<label for="x">A</label><label for="x">B</label><input id="x" name="x">',
    '<label\nfor="x"\n>A</label>\n<input id="x" name="x">',
    '<LABEL FOR="x">A</LABEL><input id="x" name="x">',
    # entity-encoded, unquoted, valueless and repeated for attributes
    '<label for="&#120;">A</label><input id="x" name="x">',
    '<label for=x>A</label><input id="x" name="x">',
    '<label for>A</label><label for="x">B</label><input id="x" name="x">',
    '<label for="y" for="x">A</label><label for="x">B</label><input id="x" name="x">',
    # labels that are no elements: in a comment, a script, an attribute value
    '<!-- <label for="x">A</label> -->\n<label for="x">B</label><input id="x" name="x">',
    '<script>var s = \'<label for="x">A</label>\';</script>\n<label for="x">B</label><input id="x" name="x">',
    '<div title=\'<label for="x">\'>\n<label for="x">B</label></div><input id="x" name="x">',
    # odd white space, unclosed quotes, names that only start like label
    '<label\x0cfor="x">A</label><input id="x" name="x">',
    '<label title="a\u00a0b" for="x">A</label><input id="x" name="x">',
    '<labelled for="x">A</labelled><label for="x">B</label><input id="x" name="x">',
    '<label for="x>A</label><input id="x" name="x">',
]


@pytest.mark.parametrize("body", CASES)
@pytest.mark.parametrize("before", ["", '<label for="x">Outside</label>\n', "<p>\n</p>\r\n"])
def test_first_label_agrees_with_the_walk(body: str, before: str) -> None:
    html = f"<html><body>{before}{FORM.format(body=body)}\n<label for='x'>Late</label></body></html>"
    pf, model = build_model_from(html)
    st = _state(model)
    root = pf.root
    assert root is not None
    for control in root.iter("input"):
        fresh = type(st)(model)
        got = fresh.first_label("x", control)
        walk = type(st)(model).labels_for("x")
        assert got is (walk[0] if walk else None)
        assert fresh.first_label("nothing", control) is None
