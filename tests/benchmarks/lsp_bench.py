"""The language server's latency: the time from `didChange` to `publishDiagnostics` (median of
``--rounds`` edits) for the median-size page of the bench site (built as /work/shared/bench/make_site.py builds it,
by `bench.build_site`: the Python documentation of Debian's python3.11-doc when installed, else generated pages),
served in a workspace holding the whole site (so the run-wide checks cover every page), and for two 5,000-line
pages (documentation text with the site's annotations; 1,000 annotated forms) in an empty folder, the second also
inside the site (every page's intents and tool names compared with its own) and there with the site-wide actions
every page of the site declares (so that the run-wide checks compare those with every page), beside an in-process
`axag.api.lint_text` of the same text: the ratio is the server's overhead. Targets: <= 50 ms and <= 250 ms. The
last columns are CPU time per edit (the server process's every thread, from /proc; `lint_text` in this process):
steadier than the times when the machine is busy.

    python tests/benchmarks/lsp_bench.py [--rounds N] [--pages N] [--in-process]

``--in-process``: instead, the CPU time of `Workspace.lint` (what the server does per edit, without the protocol)
beside `lint_text` with the collector off, measured in turns in one process (medians), for the same pages.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.benchmarks.bench import SITE_WIDE
from tests.lsp_client import change_doc, open_doc, published, start, stop, until


def big_page(lines: int = 5000, header: str = "") -> str:
    """1,000 annotated forms (``header``, such as the bench site's site-wide actions, first)."""
    rows = ['<!doctype html><html><body>', *header.strip("\n").splitlines()]
    i = 0
    while len(rows) < lines - 1:
        rows += [f'<form id="f{i}" axag-intent="item.update_{i}" axag-action-type="write" axag-risk-level="low"',
                 f'      axag-description="Update item {i}" axag-idempotent="true">',
                 f'  <label for="n{i}">Name</label><input id="n{i}" name="name" required>',
                 '  <button type="submit">Save</button>', '</form>']
        i += 1
    rows.append("</body></html>")
    return "\n".join(rows[:lines]) + "\n"


def bench_site(out: Path, pages: int) -> list[Path]:
    """The bench site's pages, smallest first."""
    from tests.benchmarks.bench import build_site, docs_sources, generated_sources

    src = "/usr/share/doc/python3.11/html"
    sources = docs_sources(src) if os.path.isdir(src) else generated_sources(pages=pages, total_bytes=pages * 100_000)
    build_site(str(out), sources, 1)
    return sorted(out.rglob("*.html"), key=lambda p: (p.stat().st_size, str(p)))


def doc_page(pages: list[Path], lines: int = 5000) -> str:
    """The largest pages of the site, one after another, cut to ``lines`` lines."""
    rows: list[str] = []
    for page in reversed(pages):
        rows += page.read_text(encoding="utf-8", errors="replace").splitlines()
        if len(rows) >= lines:
            break
    return "\n".join(rows[:lines]) + "\n"


def _cpu_ms(pid: int) -> float | None:
    """The CPU time (user and system) a process has used, from /proc (None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


async def server_ms(text: str, rounds: int, tmp: Path, root: Path, name: str) -> tuple[list[float], float | None]:
    """The times from `didChange` to `publishDiagnostics`, and the server's CPU time per edit (every thread;
    less sensitive to the machine's load)."""
    client = await start(root, tmp, options={"debounceMs": 0})
    try:
        await asyncio.sleep(2.0)  # the background read of the workspace
        uri = open_doc(client, root / name, text)
        await until(lambda: published(client, uri) == 1, 60)
        proc = getattr(client, "_server", None)
        pid = getattr(proc, "pid", None)
        cpu0 = _cpu_ms(pid) if pid else None
        times = []
        for version in range(2, rounds + 2):
            edited = text + f"<!-- edit {version} -->\n"
            t0 = time.perf_counter()
            change_doc(client, uri, version, edited)
            await until(lambda v=version: published(client, uri) == v, 60)
            times.append((time.perf_counter() - t0) * 1000)
        cpu1 = _cpu_ms(pid) if pid else None
        return times, None if cpu0 is None or cpu1 is None else (cpu1 - cpu0) / rounds
    finally:
        await stop(client)


def in_process_ms(text: str, rounds: int) -> tuple[list[float], float]:
    """The times of `lint_text`, and its CPU time per call."""
    from axag.api import lint_text

    lint_text(text)
    times = []
    cpu0 = time.process_time()
    for version in range(2, rounds + 2):
        t0 = time.perf_counter()
        lint_text(text + f"<!-- edit {version} -->\n")
        times.append((time.perf_counter() - t0) * 1000)
    return times, (time.process_time() - cpu0) * 1000 / rounds


def in_process_rows(cases: tuple[tuple[str, str, Path, str, int], ...],
                    rounds: int) -> None:
    """`Workspace.lint` (each case in its own workspace, read as the server reads it) and `lint_text` (collector
    off, as `Workspace.lint` runs), CPU per edit, in turns."""
    import gc

    from axag.api import lint_text
    from axag.lsp.workspace import Workspace

    spaces = []
    for _label, _text, root, _name, _target in cases:
        ws = Workspace(root)
        ws.scan()
        spaces.append(ws)

    def plain(text: str) -> None:
        gc.disable()
        try:
            lint_text(text)
        finally:
            gc.enable()

    cpu: dict[int, tuple[list[float], list[float]]] = {i: ([], []) for i in range(len(cases))}
    for turn in range(rounds + 1):
        for i, (_label, text, root, name, _target) in enumerate(cases):
            reps = max(1, 20_000 // max(len(text) // 50, 1))  # small pages: several edits per measurement
            for fn, out in ((lambda t, i=i, root=root, name=name: spaces[i].lint(root / name, t), cpu[i][0]),
                            (plain, cpu[i][1])):
                t0 = time.process_time()
                for rep in range(reps):
                    fn(text + f"<!-- edit {turn} {rep} -->\n")
                if turn:  # the first turn warms up
                    out.append((time.process_time() - t0) * 1000 / reps)
    print(f"{'page':<34}{'Workspace.lint CPU ms':>23}{'lint_text CPU ms':>18}{'ratio':>8}")
    for i, (label, *_rest) in enumerate(cases):
        ws_ms, lint_ms = (statistics.median(v) for v in cpu[i])
        print(f"{label:<34}{ws_ms:>23.1f}{lint_ms:>18.1f}{ws_ms / lint_ms:>8.2f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--pages", type=int, default=60, help="pages to generate when python3.11-doc is absent")
    ap.add_argument("--in-process", action="store_true", help="Workspace.lint beside lint_text, CPU, no server")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="axag-lsp-bench-") as work:
        tmp = Path(work)
        site = tmp / "site"
        pages = bench_site(site, args.pages)
        median = pages[len(pages) // 2]
        empty = tmp / "empty"
        empty.mkdir()
        print(f"bench site: {len(pages)} pages; median page {median.relative_to(site)} "
              f"({median.stat().st_size:,} bytes)")
        cases = (("site median page (in the site)", median.read_text(encoding="utf-8"), site,
                  str(median.relative_to(site)), 50),
                 ("5,000-line documentation page", doc_page(pages), empty, "doc.html", 250),
                 ("5,000-line page, 1,000 forms", big_page(), empty, "forms.html", 250),
                 ("the same, in the site", big_page(), site, "forms.html", 250),
                 ("the same with the site's header", big_page(header=SITE_WIDE), site, "forms.html", 250))
        if args.in_process:
            in_process_rows(cases, args.rounds)
            return
        print(f"{'page':<34}{'lines':>7}{'server ms':>11}{'lint_text ms':>14}{'ratio':>8}{'target ms':>11}"
              f"{'server CPU':>12}{'lint CPU':>10}{'ratio':>7}")
        for label, text, root, name, target in cases:
            times, cpu = asyncio.run(server_ms(text, args.rounds, tmp, root, name))
            served = statistics.median(times)
            local_times, local_cpu = in_process_ms(text, args.rounds)
            local = statistics.median(local_times)
            cpus = "" if cpu is None else f"{cpu:>12.1f}{local_cpu:>10.1f}{cpu / local_cpu:>7.2f}"
            print(f"{label:<34}{text.count(chr(10)):>7}{served:>11.1f}{local:>14.1f}{served / local:>8.2f}"
                  f"{target:>11}{cpus}", flush=True)


if __name__ == "__main__":
    main()
