"""Make the screenshots of the documentation site (docs/img/*.png) from the pages axag writes for the example site
(issue 32 item 3): never by hand. Playwright drives Debian's Chromium (/usr/bin/chromium, or $CHROMIUM).

    python scripts/screenshots.py            rewrite docs/img/
    python scripts/screenshots.py OUT_DIR    write them to OUT_DIR instead

Each picture is a fixed viewport (SHOTS) of a page made in a temporary folder from a copy of fixtures/site:
lint-report.png, the HTML report of `axag lint --select ALL`; catalogue.png, `axag catalogue` of its tools.
`tests/docs/test_screenshots.py` runs this script and checks that it makes every picture the site shows, at
the size committed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--font-render-hinting=none"]
# file name -> (the page of the work folder, viewport width, height)
SHOTS = {
    "lint-report.png": ("report.html", 960, 1100),
    "catalogue.png": ("catalogue.html", 960, 1000),
}


def _axag(args: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> None:
    res = subprocess.run([sys.executable, "-m", "axag", *args], cwd=cwd, capture_output=True, text=True,
                         check=False)
    if res.returncode not in ok:
        raise SystemExit(f"axag {' '.join(args)}: exit {res.returncode}\n{res.stderr}")


def pages(work: Path) -> None:
    """Write the pages SHOTS shows into `work`, from a copy of the example site."""
    shutil.copytree(ROOT / "fixtures" / "site", work / "site")
    _axag(["lint", "--isolated", "--no-cache", "--select", "ALL", "site", "--output-format", "html:report.html"],
          work, ok=(0, 1))
    _axag(["compile", "--isolated", "--no-cache", "site", "-o", "tools.json", "--catalogue", "catalogue.html"],
          work)


def shoot(out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        pages(work)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                for name, (page_name, width, height) in SHOTS.items():
                    ctx = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1,
                                              color_scheme="light", reduced_motion="reduce")
                    page = ctx.new_page()
                    page.goto((work / page_name).as_uri())
                    page.wait_for_selector("html[data-ready]", state="attached", timeout=30_000)
                    target = out / name
                    page.screenshot(path=str(target), full_page=False, animations="disabled")
                    ctx.close()
                    written.append(target)
            finally:
                browser.close()
    return written


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0]) if argv else ROOT / "docs" / "img"
    for path in shoot(out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
