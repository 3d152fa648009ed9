"""`axag.lint.engine.has_comment_opener` (the pre-check that decides whether a page's comments are read for
suppression directives) answers as the regex alternation it replaced."""

from __future__ import annotations

import re

import pytest

from axag.lint.engine import has_comment_opener

REFERENCE = re.compile(r"<!--|\{[#{%]")


@pytest.mark.parametrize("text", [
    "", "<p>plain</p>", "a <!-- c --> b", "<!-", "{", "{ # }", "x{#y", "{{ v }}", "{% if %}", "}{", "{x{%",
    "{" * 5 + "#", "<!-" + "-", "code { a: b } and {{", "é{#", "<\r\n!--", "{\n{"])
def test_same_answer_as_the_alternation(text: str) -> None:
    assert has_comment_opener(text) is (REFERENCE.search(text) is not None)
