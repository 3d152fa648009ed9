"""Bundles of result-cache entries (`axag.batch.cache.store`): a run that checks many files writes its new entries into one
file of its own instead of one file each, because creating a file is the costly part of writing an entry on some
file systems (on ext4 on a virtual disk, half a second of a first run of 500 pages).

A bundle holds the entries one after the other, each exactly as an entry file holds it (and checked the same way
when it is read), then a table of (key, offset, length) and a footer with the table's digest. It is written under
a temporary name and renamed once complete, so that a reader only ever sees whole bundles; a damaged one is
ignored (its files are checked again). Each process writes its own: runs at once and worker processes never
write to the same file."""

from __future__ import annotations

import contextlib
import os
import struct

import xxhash

PREFIX = "bundle-"
_MAGIC = b"axag-bundle/1\n"
_ROW = struct.Struct("<16sQQ")  # key, offset, length
_FOOT = struct.Struct("<QI8s14s")  # table offset, rows, XXH3-64 of the table, magic
_BINARY = getattr(os, "O_BINARY", 0)

Row = tuple[bytes, int, int]


class BundleWriter:
    """The bundle of one process: `add` appends an entry (creating the file on the first), `finish` writes the
    table and gives the bundle its name. Raises OSError from `add`; `finish` never raises."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.name = f"{PREFIX}{os.getpid()}-{os.urandom(6).hex()}"
        self.tmp = os.path.join(directory, f".{self.name}.tmp")
        self.fd = -1
        self.rows: list[Row] = []
        self.offset = 0

    def add(self, key: bytes, data: bytes) -> None:
        if self.fd < 0:
            self.fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY, 0o666)
        write_all(self.fd, data)
        self.rows.append((key, self.offset, len(data)))
        self.offset += len(data)

    def finish(self) -> bool:
        """Complete the bundle; False when it holds nothing or cannot be written (then it is removed)."""
        if self.fd < 0:
            return False
        try:
            table = b"".join(_ROW.pack(*row) for row in self.rows)
            write_all(self.fd, table + _FOOT.pack(self.offset, len(self.rows), xxhash.xxh3_64_digest(table), _MAGIC))
            os.close(self.fd)
            self.fd = -1
            os.replace(self.tmp, os.path.join(self.directory, self.name))
            return True
        except OSError:
            self.abandon()
            return False

    def abandon(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1
        with contextlib.suppress(OSError):
            os.unlink(self.tmp)


def read_table(path: str) -> list[Row] | None:
    """The rows of a complete bundle, or None when the file is not one (damaged, truncated, foreign)."""
    try:
        fd = os.open(path, os.O_RDONLY | _BINARY)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size < _FOOT.size:
            return None
        table_at, count, digest, magic = _FOOT.unpack(_read_at(fd, size - _FOOT.size, _FOOT.size))
        if magic != _MAGIC or table_at + count * _ROW.size + _FOOT.size != size:
            return None
        table = _read_at(fd, table_at, count * _ROW.size)
        if xxhash.xxh3_64_digest(table) != digest:
            return None
        rows = [_ROW.unpack_from(table, i * _ROW.size) for i in range(count)]
        return [row for row in rows if row[1] + row[2] <= table_at]
    except (OSError, struct.error):
        return None
    finally:
        os.close(fd)


def read_entry(fd: int, offset: int, length: int) -> bytes:
    return _read_at(fd, offset, length)


def _read_at(fd: int, offset: int, length: int) -> bytes:
    os.lseek(fd, offset, os.SEEK_SET)
    chunks = []
    while length > 0:
        chunk = os.read(fd, length)
        if not chunk:
            break
        chunks.append(chunk)
        length -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def write_all(fd: int, data: bytes) -> None:
    """All of ``data`` to ``fd`` (os.write may take part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
