"""The screenshots of the site (docs/img/*.png) are made by scripts/screenshots.py: the script
runs (Playwright + Debian's Chromium) and makes every picture the pages show, at the committed size. Pixels are
not compared: fonts and Chromium versions differ between machines; rerun the script to refresh the pictures."""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser import CHROMIUM, need

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "screenshots.py"


def _size(png: Path) -> tuple[int, int]:
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", png
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def _shown() -> set[str]:
    names: set[str] = set()
    for page in (ROOT / "docs").rglob("*.md"):
        names |= set(re.findall(r"\]\((?:\.\./)*img/([\w-]+\.png)\)", page.read_text(encoding="utf-8")))
    return names


def test_every_committed_picture_is_shown_and_made_by_the_script() -> None:
    committed = {p.name for p in (ROOT / "docs" / "img").glob("*.png")}
    assert committed == _shown()
    text = SCRIPT.read_text(encoding="utf-8")
    assert all(f'"{name}"' in text for name in committed)


@pytest.mark.slow
def test_the_script_makes_every_picture(tmp_path: Path) -> None:
    need(CHROMIUM, "Chromium")
    env = dict(os.environ, HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"),
               AXAG_CACHE_DIR=str(tmp_path / "axag-cache"))
    out = tmp_path / "img"
    res = subprocess.run([sys.executable, str(SCRIPT), str(out)], capture_output=True, text=True, timeout=300,
                         env=env, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    made = {p.name for p in out.glob("*.png")}
    assert made == _shown()
    for name in made:
        assert _size(out / name) == _size(ROOT / "docs" / "img" / name), name
        assert (out / name).stat().st_size > 20_000, name  # a rendered page, not a blank one
