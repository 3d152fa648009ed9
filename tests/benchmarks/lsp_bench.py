"""The language server's latency (issue 30 §1): the time from `didChange` to `publishDiagnostics` for a page of the
example site (fixtures/site, the median by size) and for a generated 5,000-line page, beside an in-process
`axag.api.lint_text` of the same text; the ratio is the server's overhead. Targets: <= 50 ms and <= 250 ms median.

    python tests/benchmarks/lsp_bench.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.lsp_client import change_doc, open_doc, published, start, stop, until


def big_page(lines: int = 5000) -> str:
    rows = ['<!doctype html><html><body>']
    i = 0
    while len(rows) < lines - 1:
        rows += [f'<form id="f{i}" axag-intent="item.update_{i}" axag-action-type="write" axag-risk-level="low"',
                 f'      axag-description="Update item {i}" axag-idempotent="true">',
                 f'  <label for="n{i}">Name</label><input id="n{i}" name="name" required>',
                 '  <button type="submit">Save</button>', '</form>']
        i += 1
    rows.append("</body></html>")
    return "\n".join(rows[:lines]) + "\n"


def median_site_page() -> str:
    pages = sorted((REPO / "fixtures" / "site").glob("*.html"), key=lambda p: p.stat().st_size)
    return pages[len(pages) // 2].read_text(encoding="utf-8")


async def server_ms(text: str, rounds: int) -> list[float]:
    tmp = Path(tempfile.mkdtemp(prefix="axag-lsp-bench-"))
    root = tmp / "ws"
    root.mkdir()
    client = await start(root, tmp, options={"debounceMs": 0})
    try:
        uri = open_doc(client, root / "page.html", text)
        await until(lambda: published(client, uri) == 1, 60)
        times = []
        for version in range(2, rounds + 2):
            edited = text + f"<!-- edit {version} -->\n"
            t0 = time.perf_counter()
            change_doc(client, uri, version, edited)
            await until(lambda v=version: published(client, uri) == v, 60)
            times.append((time.perf_counter() - t0) * 1000)
        return times
    finally:
        await stop(client)


def in_process_ms(text: str, rounds: int) -> list[float]:
    from axag.api import lint_text

    lint_text(text)
    times = []
    for version in range(2, rounds + 2):
        t0 = time.perf_counter()
        lint_text(text + f"<!-- edit {version} -->\n")
        times.append((time.perf_counter() - t0) * 1000)
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    print(f"{'page':<28}{'lines':>7}{'server ms':>11}{'lint_text ms':>14}{'ratio':>8}{'target ms':>11}")
    for name, text, target in (("site median page", median_site_page(), 50), ("5,000-line page", big_page(), 250)):
        served = statistics.median(asyncio.run(server_ms(text, args.rounds)))
        local = statistics.median(in_process_ms(text, args.rounds))
        print(f"{name:<28}{text.count(chr(10)):>7}{served:>11.1f}{local:>14.1f}{served / local:>8.2f}{target:>11}")


if __name__ == "__main__":
    main()
