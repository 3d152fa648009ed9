"""The WebMCP module's size and registration speed.

    python tests/benchmarks/webmcp_bench.py [--tools N] [--repeat R]

Prints the gzipped size of axag-webmcp.js for the example site (fixtures/site; target <= 20 KB) and the time
Debian's Chromium (--enable-features=WebMCP) takes to register N tools (default 200; target <= 50 ms): from the
module's evaluation to its last registerTool call (the registration itself), and until getTools() lists them
all. The median of R page loads. Beside it, the same for a page whose module holds only what registration
needs (each tool's name, title, description, inputSchema and annotations, as one JSON text read the same way)
and registers them with bare registerTool calls and no runtime: what a page registering the same tools by hand
pays. On a loaded machine the ratio of the two is the fair figure.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from axag.guards.typescript import json_text, ts_str
from tests.browser import CHROMIUM, CHROMIUM_ARGS
from tests.serve_backend import running_backend

BUTTON = ('<button type="button" axag-intent="bench.action_{n}" axag-action-type="write" axag-risk-level="low" '
          'axag-idempotent="true" axag-side-effects=\'[]\' axag-description="Run bench action {n}" '
          'axag-required-parameters=\'[{{"name":"value_{n}","type":"string","maxLength":40}}]\'>Run {n}</button>\n')
START = "window.__t0 = performance.now();\n"
BARE = ("for (const t of AXAG_TOOLS) {\n  document.modelContext.registerTool({name: t.name, title: t.title, "
        "description: t.description, inputSchema: t.inputSchema, annotations: t.annotations, "
        "execute: async () => ({})});\n}\n")
END = ('import "/{module}";\nwindow.__t1 = performance.now();\n'
       'window.__n = (await document.modelContext.getTools()).length;\nwindow.__t2 = performance.now();\n')


def webmcp(inputs: list[str], out: Path) -> Path:
    from click.testing import CliRunner

    from axag.cli.group import main

    done = CliRunner().invoke(main, ["webmcp", *inputs, "-o", str(out)])
    if done.exit_code != 0:
        raise SystemExit(done.output)
    return out / "axag-webmcp.js"


def compile_webmcp(site: Path, out: Path) -> None:
    from click.testing import CliRunner

    from axag.cli.group import main

    done = CliRunner().invoke(main, ["compile", str(site), "--root", str(site), "--target", "webmcp", "-o", str(out)])
    if done.exit_code != 0:
        raise SystemExit(done.output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        example = webmcp([str(ROOT / "fixtures" / "site")], Path(tmp) / "example")
        raw = example.read_bytes()
        print(f"axag-webmcp.js for fixtures/site: {len(raw)} bytes, {len(gzip.compress(raw, 9))} bytes gzipped "
              f"(target <= 20480)")
        site = Path(tmp) / "site"
        site.mkdir()
        body = "".join(BUTTON.format(n=n) for n in range(opts.tools))
        (site / "page.html").write_text(
            '<!DOCTYPE html><html lang="en"><body axag-scope="public">\n' + body
            + '<script type="module" src="/start.js"></script><script type="module" src="/end.js"></script>'
            "</body></html>\n", encoding="utf-8")
        (site / "start.js").write_text(START, encoding="utf-8")
        (site / "end.js").write_text(END.format(module="axag-webmcp.js"), encoding="utf-8")
        webmcp([str(site)], site)
        compile_webmcp(site, site / "axag-webmcp.json")
        # the bare page: the registration members of the same tools, then plain registerTool calls
        doc = json.loads((site / "axag-webmcp.json").read_text(encoding="utf-8"))
        bare = [{k: t[k] for k in ("name", "title", "description", "inputSchema", "annotations")}
                for t in doc["tools"]]
        (site / "bare.js").write_text(f"const AXAG_TOOLS = JSON.parse({ts_str(json_text(bare))});\n" + BARE,
                                      encoding="utf-8")
        (site / "end-bare.js").write_text(END.format(module="bare.js"), encoding="utf-8")
        (site / "bare.html").write_text((site / "page.html").read_text(encoding="utf-8").replace(
            "/end.js", "/end-bare.js"), encoding="utf-8")
        from playwright.sync_api import sync_playwright

        times: dict[str, tuple[list[float], list[float]]] = {"page.html": ([], []), "bare.html": ([], [])}
        with running_backend(site) as backend, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM),
                                        args=[*CHROMIUM_ARGS, "--enable-features=WebMCP"])
            for _ in range(opts.repeat):
                for name, (register, listed) in times.items():  # interleaved: both see the same load
                    page = browser.new_page()
                    page.goto(f"{backend.url}/{name}")
                    page.wait_for_function("window.__t2 !== undefined")
                    t0, t1, t2, n = page.evaluate("[window.__t0, window.__t1, window.__t2, window.__n]")
                    if n != opts.tools:
                        raise SystemExit(f"{name}: getTools() listed {n} tools, expected {opts.tools}")
                    register.append(t1 - t0)
                    listed.append(t2 - t0)
                    page.close()
            browser.close()
        (ours, ours_listed), (bare, bare_listed) = (
            tuple(statistics.median(x) for x in pair) for pair in times.values())
        print(f"register {opts.tools} tools in Chromium: {ours:.1f} ms (target <= 50); listed by getTools(): "
              f"{ours_listed:.1f} ms (median of {opts.repeat})")
        print(f"bare registerTool calls, same tools: {bare:.1f} ms; listed by getTools(): {bare_listed:.1f} ms")
        print(f"ratio to bare: register {ours / bare:.2f}x, listed {ours_listed / bare_listed:.2f}x")


if __name__ == "__main__":
    main()
