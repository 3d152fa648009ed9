"""The per-user secret that authenticates the result cache's entries and the run records.

Both live in a folder of the project (``.axag_cache/``), which a checkout may fill, and their names are
reproducible by anyone with the same install; so each entry and record carries a MAC (keyed BLAKE2b) made with
a secret that the project cannot see: 32 random bytes in ``axag/cache-key`` of the user's cache folder
(``XDG_CACHE_HOME``, else ``~/.cache``), created 0600 on first use, or the value of ``AXAG_CACHE_KEY`` (a CI that
restores its cache between runs sets it to the same secret in each). An entry whose MAC does not match is
ignored (and rewritten by the run); one made with another secret is said once per run (`foreign`).
This module imports only the standard library's built-in modules (`cli.entry` replays without more).
"""

from __future__ import annotations

import os
import sys
from _blake2 import blake2b
from _operator import _compare_digest

ENV_KEY = "AXAG_CACHE_KEY"
FILE_NAME = "cache-key"
TAG_SIZE = 16  # bytes of the MAC of an entry or record
ID_SIZE = 8  # bytes of the secret's public id, kept in each entry and record
_SIZE = 32  # bytes of a generated secret

_secret: list[bytes | None] = []
_said: list[str] = []  # the folder of the first foreign cache met by this process


def secret_path() -> str:
    """Where the generated secret is kept: ``axag/cache-key`` in ``XDG_CACHE_HOME`` (when absolute, as the XDG
    specification asks) or ``~/.cache``."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "axag", FILE_NAME)


def secret() -> bytes | None:
    """The secret of this user (None when there is none and none can be made: the caches are then not used)."""
    if not _secret:
        given = os.environ.get(ENV_KEY)
        if given:
            key: bytes | None = blake2b(given.encode("utf-8", "surrogateescape"), digest_size=_SIZE,
                                        person=b"axag-env-key").digest()
        else:
            key = _from_file(secret_path())
        _secret.append(key)
    return _secret[0]


def reset() -> None:
    """Forget the secret read (the environment or the file changed: tests, a long-lived process)."""
    _secret.clear()
    _said.clear()


def _from_file(path: str) -> bytes | None:
    key = _read(path)
    if key is not None:
        return key
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        tmp = os.path.join(folder, f".{FILE_NAME}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    except OSError:
        return None
    try:
        try:
            os.write(fd, os.urandom(_SIZE))
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)  # never over a secret another process made meanwhile: that one is used
        except FileExistsError:
            if _read(path) is None:  # one we cannot trust (another owner, readable by others): replaced
                os.replace(tmp, path)
        except OSError:  # no hard links here
            os.replace(tmp, path)
    except OSError:
        return None
    finally:
        try:  # noqa: SIM105 - contextlib costs start-up time
            os.unlink(tmp)
        except OSError:
            pass
    return _read(path)


def _read(path: str) -> bytes | None:
    """The secret in ``path``: a regular file of this user that no one else may read or write, else None."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_mode & 0o170000 != 0o100000 or (hasattr(os, "getuid") and (
                st.st_uid != os.getuid() or st.st_mode & 0o077)):
            return None
        data = os.read(fd, 256)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) >= _SIZE else None


def key_id(key: bytes) -> bytes:
    """The public id of a secret (says which secret made an entry; tells nothing of the secret)."""
    return blake2b(key=key, digest_size=ID_SIZE, person=b"axag-key-id").digest()


def tag(key: bytes, *parts: bytes) -> bytes:
    """The MAC of ``parts`` (keyed BLAKE2b)."""
    h = blake2b(key=key, digest_size=TAG_SIZE, person=b"axag-cache-mac")
    for part in parts:
        h.update(part)
    return h.digest()


def equal(a: bytes, b: bytes) -> bool:
    """``a == b`` in time that does not depend on where they differ (`hmac.compare_digest`, without importing
    hmac and hashlib at start-up)."""
    return bool(_compare_digest(a, b))


def foreign(folder: str) -> None:
    """A cache written with another secret was met in ``folder``: said once per process (a CI without
    ``AXAG_CACHE_KEY`` learns why the cache it restored is not used)."""
    if not _said:
        _said.append(folder)
        sys.stderr.write(f"axag: warning: the cache in {folder} was written with another cache key, so it is not "
                         f"used (and is rewritten); a CI that restores its cache sets {ENV_KEY} to the same secret "
                         f"in every run\n")
        sys.stderr.flush()


def said() -> int:
    """How many foreign-cache warnings this process printed (0 or 1): a run that printed one leaves no record."""
    return len(_said)
