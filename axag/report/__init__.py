"""REPORT: one module per output format (output formats), each with ``render(run, *, color, quiet) -> str``.

``FORMATS`` maps the names accepted by ``--output-format`` to their modules, imported on use so that
``rich`` is loaded only when coloured human output is rendered (performance targets). This module also holds the
small text helpers the formats share: control-character escaping, paths, rule URLs and the summary.
Reporters see a ``RunReport`` and nothing else.
"""

from __future__ import annotations

import importlib
import re
import unicodedata
from collections.abc import Iterator, Sequence
from typing import Protocol

from axag import __version__
from axag.outcome.findings import Finding, RunReport, full_code
from axag.outcome.plural import plural

# --output-format name -> module (imported on use)
FORMATS: dict[str, str] = {
    "full": "axag.report.full",
    "concise": "axag.report.concise",
    "json": "axag.report.json_",
    "json-lines": "axag.report.json_lines",
    "github": "axag.report.github",
    "gitlab": "axag.report.gitlab",
    "sarif": "axag.report.sarif",
    "junit": "axag.report.junit",
    "html": "axag.report.html",
}
# human formats (coloured on a terminal, summary unless --quiet); every other format is a machine format
HUMAN_FORMATS: frozenset[str] = frozenset({"full", "concise", "statistics"})
# `--statistics` replaces the findings of the human output; it is not an --output-format name
STATISTICS = "axag.report.statistics"

RULE_URL = "https://axag.org/lint/rules/{code}"
INFORMATION_URI = "https://axag.org"


class _Renderer(Protocol):
    def __call__(self, run: RunReport, *, color: bool = False, quiet: bool = False) -> str: ...


def _module_for(fmt: str) -> str:
    if fmt == "statistics":
        return STATISTICS
    try:
        return FORMATS[fmt]
    except KeyError:
        raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}") from None


def render(fmt: str, run: RunReport, *, color: bool = False, quiet: bool = False) -> str:
    """Render ``run`` in format ``fmt`` (a ``FORMATS`` key or ``"statistics"``).

    ``color`` applies to human formats only (machine formats are never coloured); ``quiet``
    drops the summary of human formats (machine formats have no optional parts).
    """
    renderer: _Renderer = importlib.import_module(_module_for(fmt)).render
    human = fmt in HUMAN_FORMATS
    return renderer(run, color=color and human, quiet=quiet and human)


def render_chunks(fmt: str, run: RunReport, *, color: bool = False, quiet: bool = False) -> Iterator[str]:
    """`render` as pieces of text, for writing a big report without holding it whole (formats without a
    piecewise renderer give their text in one piece)."""
    module = importlib.import_module(_module_for(fmt))
    human = fmt in HUMAN_FORMATS
    chunks = getattr(module, "render_chunks", None)
    if chunks is None:
        yield module.render(run, color=color and human, quiet=quiet and human)
    else:
        yield from chunks(run, color=color and human, quiet=quiet and human)


# ---------------------------------------------------------------- shared helpers

# Characters that a terminal (or a reader) could act on: C0/C1 controls, DEL, line/paragraph separators
# and the bidirectional controls of "Trojan Source". They are shown as escapes, never written raw.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _needs_escape(ch: str) -> bool:
    o = ord(ch)
    return o < 0x20 or 0x7F <= o <= 0x9F or ch in _BIDI or ch in "\u2028\u2029"


def escape_char(ch: str) -> str:
    o = ord(ch)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"


# any character for which `_needs_escape` is true
_ESCAPE_ANY = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029" + "".join(sorted(_BIDI)) + "]")


def escape_text(text: str) -> str:
    """Message/path text for a terminal: controls as ``\\t``, ``\\n``, ``\\x1b``, ``\\u202e`` ..."""
    if _ESCAPE_ANY.search(text) is None:
        return text
    return "".join((_SHORT.get(ch) or escape_char(ch)) if _needs_escape(ch) else ch for ch in text)


def _char_width(ch: str) -> int:
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def display_source(text: str) -> tuple[str, list[int]]:
    """A source line for the code frame: tabs as 4 spaces, controls escaped.

    Returns the display text and the display column where each code point starts (one extra entry for
    the end of the line), so that underlines stay under the exact span.
    """
    if text.isascii() and text.isprintable():  # fast path: one column per character
        return text, list(range(len(text) + 1))
    parts: list[str] = []
    starts: list[int] = []
    col = 0
    for ch in text:
        starts.append(col)
        if ch == "\t":
            shown, width = "    ", 4
        elif _needs_escape(ch):
            shown = escape_char(ch)
            width = len(shown)
        else:
            shown, width = ch, _char_width(ch)
        parts.append(shown)
        col += width
    starts.append(col)
    return "".join(parts), starts


def machine_path(f: Finding) -> str:
    """Repository-relative POSIX path for machine formats (falls back to the display path)."""
    return (f.repo_path or f.path).replace("\\", "/")


def rule_url(code: int) -> str:
    return RULE_URL.format(code=full_code(code))


def tool_version(run: RunReport) -> str:
    return run.tool_version or __version__


def rule_name(run: RunReport, f: Finding) -> str:
    if f.name:
        return f.name
    for info in run.rules:
        if info.code == f.code:
            return info.name
    return ""


def all_findings(run: RunReport) -> list[Finding]:
    """Unsuppressed and suppressed findings together, in report order (SARIF)."""
    return sorted([*run.findings, *run.suppressed], key=sort_key)


def sort_key(f: Finding) -> tuple[str, int, int, int, int, int]:
    """output formats: path (code-point order), line, column, code; then the end for a total order."""
    return (f.path, f.line, f.column, f.code, f.end_line, f.end_column)


def sorted_findings(findings: Sequence[Finding]) -> list[Finding]:
    return sorted(findings, key=sort_key)


def summary_lines(run: RunReport) -> list[str]:
    """The human summary (output formats): fixes applied, counts or "All checks passed.", stale baseline entries."""
    out: list[str] = []
    if run.fixed:
        out.append(f"Fixed {plural(run.fixed, 'finding')}.")
    c = run.counts()
    if run.findings:
        out.append(
            f"Found {plural(c['errors'], 'error')}, {plural(c['warnings'], 'warning')}, {plural(c['infos'], 'info')} "
            f"({c['fixable']} fixable with --fix{' --unsafe-fixes' if run.unsafe_fixes else ''}"
            + (f"; {c['unsafe']} more with --unsafe-fixes" if c["unsafe"] else "") + ")."
        )
    else:
        out.append("All checks passed.")
    kinds = kinds_line(run.paths)
    if kinds:
        out.append(kinds)
    if run.baseline_stale:
        occur = "no longer occurs" if run.baseline_stale == 1 else "no longer occur"
        out.append(
            f"{plural(run.baseline_stale, 'baseline entry', 'baseline entries')} {occur} "
            "(run axag lint --update-baseline to prune them)."
        )
    return out


_READ_KINDS = {"htm": "html", "jinja2": "jinja", "j2": "jinja", "njk": "jinja"}
_COMPONENT_KINDS = frozenset({"jsx", "tsx", "js", "ts", "mjs", "mts", "svelte", "astro"})


def kinds_line(paths: Sequence[str]) -> str | None:
    """How many files of each kind (by extension) were read, when components were among them:
    e.g. "Read 3 files: 2 tsx, 1 html." (kinds by count, then name)."""
    counts: dict[str, int] = {}
    for p in paths:
        name = p.rsplit("/", 1)[-1]
        ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
        kind = _READ_KINDS.get(ext, ext) or "no extension"
        counts[kind] = counts.get(kind, 0) + 1
    if not _COMPONENT_KINDS & counts.keys():
        return None
    total = sum(counts.values())
    parts = ", ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"Read {total} file{'s' if total != 1 else ''}: {parts}."


# ---------------------------------------------------------------- styled lines (plain or rich)

Segment = tuple[str, str]  # (text, rich style; "" = unstyled)
Line = list[Segment]

SEVERITY_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold cyan"}


def emit(lines: Sequence[Line], *, color: bool) -> str:
    """Join styled lines: plain text, or the same layout rendered by rich with ANSI styles.

    Every segment must already be escaped (``escape_text`` / ``display_source``); rich is given
    ``Text`` objects, never markup, so brackets in messages are printed as is.
    """
    if not lines:
        return ""
    if not color:
        return "".join("".join(text for text, _ in line) + "\n" for line in lines)
    from io import StringIO

    from rich.console import Console
    from rich.text import Text

    buf = StringIO()
    console = Console(
        file=buf,
        force_terminal=True,
        color_system="standard",
        no_color=False,
        width=1_000_000,
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=True,
        legacy_windows=False,
        _environ={},
    )
    for line in lines:
        text = Text(no_wrap=True)
        for chunk, style in line:
            text.append(chunk, style=style or None)
        console.print(text)
    return buf.getvalue()
