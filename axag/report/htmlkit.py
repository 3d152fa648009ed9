"""Shared pieces of the self-contained HTML pages (the `html` lint report and the tool catalogue).

Pages are rendered by jinja2 with autoescape on: every value from user files is text, never markup. Data the
page's script reads is embedded with `script_json`, which cannot end the ``<script>`` element it sits in.
jinja2 is imported on use only (machine formats stay light, performance targets).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from axag.report import escape_char

_SURROGATE = re.compile("[\ud800-\udfff]")
# controls a reader could be misled by (C0/C1 except tab and newline, line separators, bidirectional controls):
# shown as escapes, as the terminal formats do
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# characters that could end or confuse a <script> element, or break a JavaScript string (U+2028/9)
_SCRIPT_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_SCRIPT_UNSAFE_RE = re.compile("[<>&\u2028\u2029]")

TEMPLATES = Path(__file__).resolve().parent / "templates"


def script_json(value: Any) -> str:
    """``value`` as compact JSON that is safe inside ``<script type="application/json">``: ``<``, ``>``,
    ``&`` and the line separators are ``\\u`` escapes (JSON.parse gives the same value back)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return _SCRIPT_UNSAFE_RE.sub(lambda m: _SCRIPT_UNSAFE[m.group()], text)


def text_only(value: str) -> str:
    """A string that can be written as UTF-8: lone surrogates (from JSON escapes or file names) become U+FFFD."""
    return value if _SURROGATE.search(value) is None else _SURROGATE.sub("\ufffd", value)


def visible(value: str) -> str:
    """Text for a page: controls and bidirectional marks as ``\\x1b``/``\\u202e`` escapes (tabs and newlines
    stay), lone surrogates as U+FFFD."""
    if _CONTROLS.search(value) is not None:
        value = _CONTROLS.sub(lambda m: escape_char(m.group()), value)
    return text_only(value)


def _finalize(value: Any) -> Any:
    import markupsafe

    return visible(value) if isinstance(value, str) and not isinstance(value, markupsafe.Markup) else value


@lru_cache(maxsize=4)
def environment(*folders: str) -> Any:
    """The jinja2 environment for templates in ``folders`` (and the shared ones): autoescape always on."""
    import jinja2
    import markupsafe

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([*folders, str(TEMPLATES)]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=_finalize,
    )
    env.filters["script_json"] = lambda v: markupsafe.Markup(script_json(v))
    return env


def render_pieces(template: str, folders: Iterable[str] = (), **context: Any) -> Iterator[str]:
    """The page as pieces of text (a big page is written as it is rendered), always UTF-8 encodable."""
    for piece in environment(*folders).get_template(template).generate(**context):
        yield text_only(piece)
