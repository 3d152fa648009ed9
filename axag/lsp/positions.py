"""Positions: lint's 1-based (line, code-point column) and code-point offsets <-> LSP's 0-based (line, character)
in the negotiated unit (UTF-16 code units unless the client offers UTF-8 or UTF-32). Lines break at LF, CRLF
and lone CR, for lint (`axag.files.spans.LineIndex`) as for LSP."""

from __future__ import annotations

from axag.files.spans import LineIndex


def units(text: str, encoding: str) -> int:
    """The length of ``text`` in the encoding's code units."""
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


class Positions:
    """Conversions for one document text."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.lines = LineIndex(text)
        self.text = text
        self.encoding = encoding

    def to_lsp(self, line: int, column: int) -> tuple[int, int]:
        """Lint's 1-based (line, column) -> LSP's 0-based (line, character)."""
        count = self.lines.line_count()
        if line > count:
            return count - 1, units(self.lines.line_text(count), self.encoding)
        start = self.lines.starts[line - 1]
        prefix = self.text[start:start + max(column - 1, 0)]
        return line - 1, units(prefix, self.encoding)

    def offset_to_lsp(self, offset: int) -> tuple[int, int]:
        return self.to_lsp(*self.lines.position(min(max(offset, 0), len(self.text))))

    def offset(self, line: int, character: int) -> int:
        """LSP's (line, character) -> code-point offset (clamped to the line and the text)."""
        count = self.lines.line_count()
        if line >= count:
            return len(self.text)
        line_text = self.lines.line_text(line + 1)
        start = self.lines.starts[line]
        if self.encoding == "utf-32":
            return start + min(character, len(line_text))
        seen = 0
        for i, c in enumerate(line_text):
            if seen >= character:
                return start + i
            seen += units(c, self.encoding)
        return start + len(line_text)
