"""What the browser tests share: Debian's Chromium (driven by Playwright through its path, never a browser
Playwright downloads), axe-core from npm, the folder screenshots go to, and what a missing one means: a failure
in CI, a skip in a user's clone."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

from tests.conftest import REPO

CHROMIUM = Path("/usr/bin/chromium")
# headless as root, and no background connections: this machine's network is closed (they would be refused)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = REPO / "tests" / "artifacts"


def missing(what: str) -> NoReturn:
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing in CI")
    pytest.skip(f"{what} is not available")


def need(path: Path, what: str) -> None:
    if not path.exists():
        missing(f"{what} at {path}")
