"""Character references in attribute values (character references), with a map back to source offsets."""

from __future__ import annotations

import re
from functools import lru_cache

_REF = re.compile(r"&(?:#[xX]([0-9A-Fa-f]+);?|#([0-9]+);?|([A-Za-z][A-Za-z0-9]*;?))|(\r\n?)")


@lru_cache(maxsize=1)
def _names() -> tuple[dict[str, str], frozenset[str], int]:
    """The HTML5 named references, the legacy names that may appear without ';' (the table's keys without the
    semicolon) and the longest of those: imported on the first named reference (a big table; most attribute
    values have none)."""
    from html.entities import html5

    legacy = frozenset(k for k in html5 if not k.endswith(";"))
    return html5, legacy, max(len(k) for k in legacy)
# HTML5 numeric reference replacements for C1 controls
_C1 = {
    0x80: 0x20AC, 0x82: 0x201A, 0x83: 0x0192, 0x84: 0x201E, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021,
    0x88: 0x02C6, 0x89: 0x2030, 0x8A: 0x0160, 0x8B: 0x2039, 0x8C: 0x0152, 0x8E: 0x017D, 0x91: 0x2018,
    0x92: 0x2019, 0x93: 0x201C, 0x94: 0x201D, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02DC,
    0x99: 0x2122, 0x9A: 0x0161, 0x9B: 0x203A, 0x9C: 0x0153, 0x9E: 0x017E, 0x9F: 0x0178,
}


def _numeric(n: int) -> str:
    if n == 0 or n > 0x10FFFF or 0xD800 <= n <= 0xDFFF:
        return "\ufffd"
    return chr(_C1.get(n, n))


def decode_attribute(raw: str) -> tuple[str, list[int] | None]:
    """Decode ``raw`` per the HTML5 attribute-value rules (a CR or CRLF line break reads as LF, as in any input
    stream).

    Returns (decoded, offsets) where ``offsets[i]`` is the offset in ``raw`` of decoded character i
    (with one extra entry for the end), or None when nothing was decoded (identity map).
    """
    if "&" not in raw and "\r" not in raw:
        return raw, None
    out: list[str] = []
    offsets: list[int] = []
    pos = 0
    n = len(raw)
    for m in _REF.finditer(raw):
        start = m.start()
        if start < pos:
            continue
        replacement: str | None = None
        end = m.end()
        if m.group(4) is not None:
            replacement = "\n"
        elif m.group(1) is not None:
            try:
                replacement = _numeric(int(m.group(1), 16))
            except (ValueError, OverflowError):
                replacement = "\ufffd"
        elif m.group(2) is not None:
            replacement = _numeric(int(m.group(2)) if len(m.group(2)) < 10 else 0x110000)
        else:
            name = m.group(3)
            html5, legacy, longest = _names()
            if name.endswith(";") and name in html5:
                replacement = html5[name]
            else:
                # longest legacy prefix, not followed by an alphanumeric or '='
                bare = name.rstrip(";")
                for length in range(min(len(bare), longest), 1, -1):
                    cand = bare[:length]
                    if cand in legacy:
                        nxt = raw[start + 1 + length] if start + 1 + length < n else ""
                        if nxt and ((nxt.isascii() and nxt.isalnum()) or nxt == "="):
                            break
                        replacement = html5[cand]
                        end = start + 1 + length
                        break
        if replacement is None:
            continue
        for i in range(pos, start):
            out.append(raw[i])
            offsets.append(i)
        for ch in replacement:
            out.append(ch)
            offsets.append(start)
        pos = end
    if not offsets and pos == 0:
        return raw, None
    for i in range(pos, n):
        out.append(raw[i])
        offsets.append(i)
    offsets.append(n)
    return "".join(out), offsets
