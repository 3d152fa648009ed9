"""READ: bytes -> decoded text (reading and decoding). BOM, <meta charset>, UTF-8 with replacement."""

from __future__ import annotations

import codecs
import re
import warnings
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

TEMPLATE_EXTENSIONS = {
    ".jinja": "jinja", ".jinja2": "jinja", ".j2": "jinja", ".njk": "jinja",
    ".hbs": "hbs", ".liquid": "liquid", ".vue": "vue",
    ".svelte": "svelte", ".astro": "astro",
    ".jsx": "jsx", ".tsx": "jsx", ".js": "jsx", ".ts": "jsx", ".mjs": "jsx", ".mts": "jsx",
}
HTML_EXTENSIONS = frozenset({".html", ".htm", ".xhtml", ".shtml"})

_META_CHARSET = re.compile(
    rb"""<meta[^>]*?(?:charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)|http-equiv\s*=\s*["']?content-type["']?[^>]*?content\s*=\s*["'][^"']*?charset\s*=\s*([A-Za-z0-9_.:-]+))""",
    re.IGNORECASE,
)
_META_CONTENT_FIRST = re.compile(
    rb"""<meta[^>]*?content\s*=\s*["'][^"']*?charset\s*=\s*([A-Za-z0-9_.:-]+)[^>]*?http-equiv\s*=\s*["']?content-type""",
    re.IGNORECASE,
)


def file_kind(path: str | Path) -> str:
    """"html" for .html/.htm and unknown extensions, else the template family (dynamic values) or "jsx"/"svelte"/"astro"."""
    return TEMPLATE_EXTENSIONS.get(Path(path).suffix.lower(), "html")


def is_read(path: str | Path) -> bool:
    """Whether axag reads files with this extension (file discovery: others named on the command line are skipped)."""
    suffix = Path(path).suffix.lower()
    return suffix in HTML_EXTENSIONS or suffix in TEMPLATE_EXTENSIONS


@dataclass
class SourceText:
    path: Path
    text: str
    data: bytes
    encoding: str  # Python codec name
    bom: bytes
    replaced: bool  # undecodable bytes were replaced (193)
    kind: str  # html | jinja | hbs | liquid | vue | svelte | astro | jsx
    # (start, end) code-point window scanned for annotations (.vue: the top-level <template>)
    window: tuple[int, int] | None = None

    @cached_property
    def lower_data(self) -> bytes:
        """``data`` with ASCII letters lower-cased (computed once; byte searches of several passes)."""
        return self.data.lower()

    def mentions(self, word: str) -> bool:
        """Whether the file holds ``word`` (lower-case ASCII) in any case: a literal search of `lower_data`, or of
        the lower-cased text in a UTF-16 file (whose bytes hold NULs between the letters), asked once per file and
        word. A yes may come from a comment or a longer word: it tells a pass that looking can find something,
        never what it finds."""
        found = self._mentioned.get(word)
        if found is None:
            if self.encoding.startswith("utf-16"):
                found = word in self._lower_text
            else:
                found = word.encode("ascii") in self.lower_data
            self._mentioned[word] = found
        return found

    @cached_property
    def _mentioned(self) -> dict[str, bool]:
        return {}

    @cached_property
    def _lower_text(self) -> str:
        return self.text.lower()


def sniff_encoding(data: bytes) -> tuple[str, bytes]:
    """Return (codec name, BOM bytes) per reading and decoding."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8", codecs.BOM_UTF8
    if data.startswith(codecs.BOM_UTF16_LE):
        return "utf-16-le", codecs.BOM_UTF16_LE
    if data.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be", codecs.BOM_UTF16_BE
    head = data[:1024]
    m = _META_CHARSET.search(head)
    label = None
    if m:
        label = (m.group(1) or m.group(2) or b"").decode("ascii", "replace")
    else:
        m2 = _META_CONTENT_FIRST.search(head)
        if m2:
            label = m2.group(1).decode("ascii", "replace")
    if label:
        name = _ascii_compatible(label)
        if name.startswith(("utf-16", "utf-32")):
            name = "utf-8"  # a meta tag can only be read in an ASCII-compatible encoding
        return name, b""
    return "utf-8", b""


_ASCII_PROBE = bytes([9, 10, 13, *range(0x20, 0x7F)]) + b"\\n\\x41\\u0041+A-"


@lru_cache(maxsize=256)
def _ascii_compatible(label: str) -> str:
    """The codec named by a meta label, or utf-8 when it is unknown, not a text encoding, or does not read
    ASCII as ASCII (punycode, idna, unicode_escape, utf-7, EBCDIC, ...): the meta tag itself was read as ASCII.
    Cached per label; probing an escape codec must not print its deprecation warnings."""
    try:
        info = codecs.lookup(label)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if getattr(info, "_is_text_encoding", True) and \
                    _ASCII_PROBE.decode(info.name) == _ASCII_PROBE.decode("ascii"):
                b"\xff\x80".decode(info.name, errors="replace")
                return info.name
    except Exception:  # noqa: BLE001 - any codec failure means "not usable"
        return "utf-8"
    return "utf-8"


def has_nul(data: bytes, bom: bytes) -> bool:
    return bom not in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) and b"\x00" in data


def decode(data: bytes) -> tuple[str, str, bytes, bool]:
    """Bytes -> (text, codec, bom, replaced)."""
    encoding, bom = sniff_encoding(data)
    body = data[len(bom):]
    try:
        return body.decode(encoding), encoding, bom, False
    except UnicodeDecodeError:
        return body.decode(encoding, errors="replace"), encoding, bom, True
    except LookupError:  # pragma: no cover - sniff_encoding only returns known codecs
        return body.decode("utf-8", errors="replace"), "utf-8", bom, True


_VUE_TEMPLATE_OPEN = re.compile(r"<template\b[^>]*>", re.IGNORECASE)
_VUE_TAG = re.compile(r"<(/?)template\b[^>]*>", re.IGNORECASE)


def vue_window(text: str) -> tuple[int, int] | None:
    """The content of the top-level <template> section of a .vue file (nested templates balanced)."""
    m = _VUE_TEMPLATE_OPEN.search(text)
    if not m:
        return None
    depth = 1
    for t in _VUE_TAG.finditer(text, m.end()):
        depth += -1 if t.group(1) else 1
        if depth == 0:
            return m.end(), t.start()
    return m.end(), len(text)


def load(path: Path, data: bytes) -> SourceText | str:
    """Decode ``data`` read from ``path``. Returns a SourceText, or "binary" when it is not text (190)."""
    encoding, bom = sniff_encoding(data)
    if has_nul(data, bom):
        return "binary"
    text, encoding, bom, replaced = decode(data)
    kind = file_kind(path)
    src = SourceText(path=path, text=text, data=data, encoding=encoding, bom=bom, replaced=replaced, kind=kind)
    if kind == "vue":
        src.window = vue_window(text) or (0, 0)
    elif kind == "astro":
        src.window = astro_window(text)
    return src


_ASTRO_FENCE = re.compile(r"\A\s*---[ \t]*\r?\n(?:.*?\r?\n)?---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


def astro_window(text: str) -> tuple[int, int]:
    """An .astro file after its front matter (the ``---`` fenced script at the top)."""
    m = _ASTRO_FENCE.match(text)
    return (m.end() if m else 0), len(text)
