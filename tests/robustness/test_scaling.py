"""Linear time on one element: many copies of one attribute, a long enum, a long <select>,
many (repeated) side effects, and thousands of controls on one line. Each case is linted and compiled at 1x, 2x and 4x its size; a linear cost gives a
ratio time(4x)/time(1x) near 4, a quadratic one near 16. The bound (8) leaves room for a loaded machine; the
sizes keep the whole file to a few seconds."""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from axag.config.settings import Settings
from axag.lint.engine import Request, check_file


def _attribute_copies(n: int) -> str:
    return ('<button axag-intent="a.b" axag-action-type="read" '
            + " ".join('axag-risk-level="low"' for _ in range(n)) + ">x</button>\n")


def _enum(n: int) -> str:
    spec = [{"name": "p", "type": "string", "enum": [f"v{i}" for i in range(n)]}]
    return ('<button axag-intent="a.b" axag-action-type="read" axag-risk-level="none" '
            f"axag-required-parameters='{json.dumps(spec)}'>x</button>\n")


def _select(n: int) -> str:
    options = "".join(f'<option value="v{i}">V{i}</option>' for i in range(n))
    return ('<form axag-intent="a.b" axag-action-type="read" axag-risk-level="none">'
            f'<label>P <select name="p" required>{options}</select></label></form>\n')


def _side_effects(n: int) -> str:
    effects = [f"e{i % (n // 2)}" for i in range(n)]  # half of them repeated: 144 on each repeat
    return ('<button axag-intent="a.b" axag-action-type="write" axag-risk-level="low" axag-idempotent="false" '
            f"axag-side-effects='{json.dumps(effects)}'>x</button>\n")


def _radios_on_one_line(n: int) -> str:
    """Minified markup: every control on one line (each located among the line's start tags)."""
    radios = "".join(f'<label><input type="radio" name="p" value="v{i}">V{i}</label>' for i in range(n))
    return f'<form axag-intent="a.b" axag-action-type="read" axag-risk-level="none">{radios}</form>\n'


CASES: dict[str, tuple[Callable[[int], str], int]] = {
    "radios-on-one-line": (_radios_on_one_line, 500),
    "attribute-copies": (_attribute_copies, 800),
    "enum": (_enum, 4000),
    "select": (_select, 1000),
    "side-effects": (_side_effects, 1000),
}


def _seconds(html: str, tmp: Path) -> float:
    data = html.encode("utf-8")
    best = float("inf")
    gc.collect()
    gc.disable()  # the collector's passes over the heap are not the code's cost
    try:
        for _ in range(3):  # the best of three: the least disturbed by other processes
            t0 = time.perf_counter()
            for mode in ("lint", "compile"):
                out = check_file(tmp / "big.html", "big.html", "big.html", Settings(base=tmp),
                                 Request(mode=mode, want_contracts=True), data=data)
                assert not out.internal_error, out.findings[-1].message
            best = min(best, time.perf_counter() - t0)
    finally:
        gc.enable()
    return best


@pytest.mark.parametrize("case", sorted(CASES))
def test_cost_grows_linearly(case: str, tmp_path: Path) -> None:
    make, n = CASES[case]
    _seconds(make(n // 4), tmp_path)  # warm up (imports, caches)
    t1, t2, t4 = (_seconds(make(n * k), tmp_path) for k in (1, 2, 4))
    assert t4 / t1 < 8, f"{case}: 1x {t1:.3f}s, 2x {t2:.3f}s, 4x {t4:.3f}s"
    assert t2 / t1 < 4.5, f"{case}: 1x {t1:.3f}s, 2x {t2:.3f}s, 4x {t4:.3f}s"
