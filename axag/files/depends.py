"""The files a result depends on beyond the checked file itself: the modules a component's spec
objects are imported from (and re-exported through), the configuration, baseline, manifest, enforced-intents and
OpenAPI files a run reads. Readers `note` each file they read (or looked for and did not find) while a
`Collector` is open; the result cache keeps the files with their digests in each entry, and a run record in its
inputs, so that a change to any of them makes the result a miss."""

from __future__ import annotations

import os
from types import TracebackType

import xxhash

Digests = dict[str, bytes | None]  # absolute path -> XXH3-128 of its bytes, None: absent or not a regular file

_open: list[Digests] = []


def digest_of(data: bytes | None) -> bytes | None:
    return None if data is None else xxhash.xxh3_128_digest(data)


def note(path: str | os.PathLike[str], data: bytes | None) -> None:
    """``path`` was read and held ``data`` (None: it was looked for and is absent or not a regular file)."""
    if _open:
        full = os.path.abspath(path)
        made = digest_of(data)
        for collected in _open:
            collected.setdefault(full, made)


def note_all(digests: Digests) -> None:
    """Files that a result taken from the cache was made from (the run that uses it depends on them too)."""
    for collected in _open:
        for path, made in digests.items():
            collected.setdefault(path, made)


class Collector:
    """``with Collector() as files:`` the files noted inside the block (also by the collectors around it)."""

    def __enter__(self) -> Digests:
        self.files: Digests = {}
        _open.append(self.files)
        return self.files

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        for i in range(len(_open) - 1, -1, -1):
            if _open[i] is self.files:
                del _open[i]
                break


def unchanged(digests: Digests) -> bool:
    """Whether every file still holds the bytes it held (or is still absent)."""
    from axag.files.read_whole import read_regular

    for path, made in digests.items():
        try:
            data = read_regular(path)
        except (OSError, ValueError):
            data = None
        if digest_of(data) != made:
            return False
    return True
