"""Reading the JSON and TOML files users hand to axag (tools.json, baselines, manifests, enforced intents,
configuration): every way such a file can be wrong is an ``InputError`` / ``ConfigError`` naming the file, and
the line and column where they are known, never a traceback (exit 2)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Final

from axag.outcome.errors import InputError

__all__ = ["MAX_DEPTH", "decode_utf8", "line_column", "nesting_error", "read_json"]

MAX_DEPTH: Final = 500  # nesting deeper than this is refused before parsing (the parser and checks recurse)
_STRUCTURE_RE: Final = re.compile(r'[\[\]{}"\\]')


def line_column(data: bytes | str, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters of ``data``) of ``offset``."""
    if isinstance(data, bytes):
        line, start = data.count(b"\n", 0, offset) + 1, data.rfind(b"\n", 0, offset) + 1
    else:
        line, start = data.count("\n", 0, offset) + 1, data.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def decode_utf8(data: bytes, path: Path, what: str, exc_type: type[Exception] = InputError) -> str:
    """``data`` as UTF-8 text (a BOM removed), or ``exc_type`` saying where the first invalid byte is."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        offset = exc.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        line, col = line_column(data, offset)
        col = len(data[offset - col + 1:offset].decode("utf-8", "replace")) + 1  # in characters, not bytes
        raise exc_type(f"{what} {path} is not UTF-8: byte 0x{data[offset]:02x} at line {line}, column {col} "
                       "cannot be decoded") from None


def nesting_error(text: str, limit: int = MAX_DEPTH) -> tuple[int, int] | None:
    """(line, column) of the first bracket of JSON ``text`` nested deeper than ``limit``; None when none is."""
    depth = 0
    in_string = False
    escaped = False
    for m in _STRUCTURE_RE.finditer(text):
        c = m.group()
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
            continue
        if escaped:
            escaped = False
            continue
        if c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > limit:
                return line_column(text, m.start())
        elif c in "]}":
            depth -= 1
    return None


def read_json(path: str | Path, what: str) -> Any:
    """The JSON value of the file ``path`` (``what`` names it in messages: "manifest", "baseline file", ...).

    Strict JSON: ``NaN``/``Infinity`` are refused. Unreadable, not UTF-8, invalid, or nested deeper than
    ``MAX_DEPTH`` -> ``InputError``."""
    target = Path(path)
    try:
        data = target.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {what} {target}: {exc.strerror or exc}") from exc
    from axag.files.depends import note

    note(target, data)  # a result made from it depends on it
    return loads(data, target, what)


def loads(data: bytes, path: Path, what: str) -> Any:
    """`read_json` of bytes already read from ``path``."""
    text = decode_utf8(data, path, what)
    deep = nesting_error(text)
    if deep is not None:
        raise InputError(f"{what} {path} is nested too deeply: more than {MAX_DEPTH} levels at line {deep[0]}, "
                         f"column {deep[1]}")

    def reject_constant(name: str) -> Any:
        raise ValueError(f"{name} is not valid JSON")

    try:
        return json.loads(text, parse_constant=reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} {path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") \
            from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{what} {path} is not valid JSON: {exc}") from None
