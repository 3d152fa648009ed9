"""`relpath_posix` (the relative paths of every file of a run) agrees with os.path.relpath."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from axag.files.paths import relpath_posix

SEGMENT = st.sampled_from(["a", "b", "ab", ".", "..", "", ".git", "a.html", "é", "x y"])
PATH = st.lists(SEGMENT, min_size=0, max_size=5).map(lambda parts: "/" + "/".join(parts))


@given(PATH, PATH)
def test_agrees_with_os_relpath(path: str, base: str) -> None:
    assert relpath_posix(path, base) == os.path.relpath(path, base)


def test_common_cases() -> None:
    assert relpath_posix("/site/docs/a.html", "/site") == "docs/a.html"
    assert relpath_posix("/site", "/site") == "."
    assert relpath_posix("/sitemap/a.html", "/site") == "../sitemap/a.html"
    assert relpath_posix("/a.html", "/") == "a.html"
