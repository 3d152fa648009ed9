"""What the parse stage imports: the HTML5 table of named character references only when an attribute
value holds a named reference (a big table, most pages have none in their annotations)."""

from __future__ import annotations

import subprocess
import sys


def test_named_references_are_imported_on_first_use() -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from axag.parse.document import parse_source\n"
        "from axag.parse.entities import decode_attribute\n"
        "from axag.files.source import load\n"
        "page = b'<button axag-intent=\"a.b\" axag-description=\"x &#38; y\" title=\"&copy;\">b</button>'\n"
        "pf = parse_source(load(Path('p.html'), page))\n"
        "assert pf.elements[0].first['axag-description'].value == 'x & y'\n"
        "assert 'html.entities' not in sys.modules, 'imported without a named reference'\n"
        "assert decode_attribute('a &amp; b &copy c &notin;') == ('a & b \\u00a9 c \\u2209', "
        "[0, 1, 2, 7, 8, 9, 10, 15, 16, 17, 18, 25])\n"
        "assert 'html.entities' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
