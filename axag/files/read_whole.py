"""Reading an input file whole without ever blocking (a leaf: the console script's fast path reads its inputs
with it before anything else is imported)."""

from __future__ import annotations

import os
import stat


def read_regular(path: str | os.PathLike[str]) -> bytes | None:
    """The bytes of ``path``, or None when it is not a regular file (a FIFO, device or socket: opened
    non-blocking and checked with fstat, so reading never waits forever). A folder raises IsADirectoryError;
    an unreadable path raises its OSError."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        mode = st.st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, os.strerror(21), os.fspath(path))
        if not stat.S_ISREG(mode):
            return None
        chunks = []
        want = st.st_size + 1  # the whole file in one read (one buffer of its size), unless it grew
        while chunk := os.read(fd, want):
            chunks.append(chunk)
            if len(chunk) < want:  # a short read of a regular file: its end (no further call to find it)
                break
            want = 1 << 20
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)
