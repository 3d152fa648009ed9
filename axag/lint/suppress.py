"""Suppression comments (suppression comments): ``parse`` finds directives, ``apply`` filters findings.

Directives live in HTML comments (``<!-- … -->``, every file kind) and in the engine comments of
template files: ``{# … #}`` (``jinja``), ``{{!-- … --}}`` / ``{{! … }}`` (``hbs``),
``{% comment %}…{% endcomment %}`` (``liquid``). The comment body starts with the directive word:

    axag-disable-next-line CODES [-- reason]
    axag-disable CODES [-- reason]   …   axag-enable CODES
    axag-disable-file CODES [-- reason]

CODES are full codes (``AXAG-LINT-006``), numbers (``006``, ``6``) or rule names, separated by commas
or spaces. A comment whose body starts with ``axag-`` but is not a directive, a directive without codes,
an unknown code, or a code that cannot be disabled (191, 192, 199) is a ``BadDirective`` (rule ``143``).

Flow in the engine: ``sup = parse(text, kind)`` → 143 findings from ``sup.problems`` →
``kept, suppressed, unused = apply(findings, sup, element_start_lines=..., ran=selected)`` → one 133
finding per ``Unused`` item, whose fix is ``removal_edit(item)``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Final

from axag.files.spans import LineIndex
from axag.outcome.findings import Finding
from axag.rules.catalogue import RULES, lookup
from axag.vocabulary import did_you_mean

NEXT_LINE: Final = "axag-disable-next-line"
DISABLE: Final = "axag-disable"
ENABLE: Final = "axag-enable"
DISABLE_FILE: Final = "axag-disable-file"
DIRECTIVES: Final = (NEXT_LINE, DISABLE, ENABLE, DISABLE_FILE)
SUPPRESSING: Final = (NEXT_LINE, DISABLE, DISABLE_FILE)

_HTML: Final = re.compile(r"<!--(?!-?>)(.*?)--!?>", re.DOTALL)
_ENGINE: Final[dict[str, tuple[re.Pattern[str], ...]]] = {
    "jinja": (re.compile(r"\{#-?(.*?)-?#\}", re.DOTALL),),
    "hbs": (
        re.compile(r"\{\{~?!--(.*?)--~?\}\}", re.DOTALL),
        re.compile(r"\{\{~?!(?!--)(.*?)~?\}\}", re.DOTALL),
    ),
    "liquid": (re.compile(r"\{%-?\s*comment\s*-?%\}(.*?)\{%-?\s*endcomment\s*-?%\}", re.DOTALL),),
    # JSX/TSX: `{/* … */}` in markup, and any block or line comment of the script
    "jsx": (re.compile(r"/\*(.*?)\*/", re.DOTALL), re.compile(r"//([^\r\n]*)")),
    "svelte": (),
    "astro": (),
}
_WORD: Final = re.compile(r"\s*(axag-\S*)")
_REASON_SEP: Final = re.compile(r"(?:^|\s)--(?:\s|$)")
_TOKEN: Final = re.compile(r"[^\s,]+")
_ALL_NAMES: Final = tuple(m.info.name for m in sorted(RULES.values(), key=lambda m: m.info.code))


@dataclass(frozen=True, slots=True)
class CodeRef:
    """One code of a directive: the resolved code and the offsets of its token."""

    code: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Directive:
    """One suppression comment. ``start``/``end``: the whole comment (delimiters included);
    ``line``/``end_line``: its first and last line; ``target_line``: for ``axag-disable-next-line``, the
    first following non-blank line (``None`` when there is none)."""

    kind: str  # one of DIRECTIVES
    codes: tuple[CodeRef, ...]
    reason: str
    start: int
    end: int
    line: int
    end_line: int
    target_line: int | None = None


@dataclass(frozen=True, slots=True)
class BadDirective:
    """A malformed suppression (rule 143): ``problem`` fills ``Suppression comment {problem}``;
    ``start``/``end`` are the offsets of the offending token or comment."""

    problem: str
    start: int
    end: int
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Suppressions:
    directives: tuple[Directive, ...] = ()
    problems: tuple[BadDirective, ...] = ()


@dataclass(frozen=True, slots=True)
class Unused:
    """A code of a suppressing directive that suppressed nothing although its rule ran (rule 133).
    ``index`` is the position of the code in ``directive.codes``; ``unused`` holds the positions of every
    unused code of that directive (so that the removal edits of one directive never overlap)."""

    directive: Directive
    index: int
    unused: frozenset[int]

    @property
    def code(self) -> int:
        return self.directive.codes[self.index].code

    @property
    def start(self) -> int:
        return self.directive.codes[self.index].start

    @property
    def end(self) -> int:
        return self.directive.codes[self.index].end


def _comments(text: str, kind: str) -> list[tuple[int, int, int, int]]:
    """``(start, end, body_start, body_end)`` of every comment, in order, without overlaps."""
    found: list[tuple[int, int, int, int]] = []
    for rx in (_HTML, *_ENGINE.get(kind, ())):
        for m in rx.finditer(text):
            found.append((m.start(), m.end(), m.start(1), m.end(1)))
    found.sort()
    out: list[tuple[int, int, int, int]] = []
    last_end = -1
    for c in found:
        if c[0] >= last_end:
            out.append(c)
            last_end = c[1]
    return out


def _problem(lines: LineIndex, problem: str, start: int, end: int) -> BadDirective:
    line, column = lines.position(start)
    return BadDirective(problem, start, end, line, column)


def _target_line(lines: LineIndex, after_line: int) -> int | None:
    for n in range(after_line + 1, lines.line_count() + 1):
        if lines.line_text(n).strip():
            return n
    return None


def parse(text: str, kind: str, lines: LineIndex | None = None) -> Suppressions:
    """Find the directives of a file's decoded text; ``kind`` is ``discover.file_kind`` of the file.
    ``lines``: the file's line index when the caller has one."""
    if "axag-" not in text:
        return Suppressions()
    if lines is None:
        lines = LineIndex(text)
    directives: list[Directive] = []
    problems: list[BadDirective] = []
    for start, end, body_start, body_end in _comments(text, kind):
        m = _WORD.match(text, body_start, body_end)
        if m is None:
            continue
        word = m.group(1)
        if word not in DIRECTIVES:
            # Only a word that looks like a suppression attempt is a malformed directive; other
            # `axag-…` comments (e.g. documentation markers such as `axag-highlight-start`) are prose.
            s = did_you_mean(word, DIRECTIVES)
            if s is None and not word.startswith(("axag-disable", "axag-enable")):
                continue
            hint = f'; did you mean "{s}"?' if s else ""
            problems.append(_problem(lines, f'uses unknown directive "{word}"{hint}', m.start(1), m.end(1)))
            continue
        rest_start = m.end(1)
        sep = _REASON_SEP.search(text, rest_start, body_end)
        codes_end = sep.start() if sep else body_end
        reason = text[sep.end() : body_end].strip() if sep else ""
        refs: list[CodeRef] = []
        bad = False
        for t in _TOKEN.finditer(text, rest_start, codes_end):
            token = t.group(0)
            meta = lookup(token)
            if meta is None:
                s = did_you_mean(token.lower(), _ALL_NAMES) if not token.isdigit() else None
                hint = f'; did you mean "{s}"?' if s else ""
                problems.append(_problem(lines, f'names unknown rule "{token}"{hint}', t.start(), t.end()))
                bad = True
                continue
            if not meta.info.can_disable:
                problems.append(_problem(lines, f"cannot disable {meta.info.id}", t.start(), t.end()))
                bad = True
                continue
            refs.append(CodeRef(meta.info.code, t.start(), t.end()))
        if not refs:
            if not bad:
                problems.append(_problem(lines, f'"{word}" has no codes', start, end))
            continue
        line = lines.position(start)[0]
        end_line = lines.position(end)[0]
        target = _target_line(lines, end_line) if word == NEXT_LINE else None
        directives.append(Directive(word, tuple(refs), reason, start, end, line, end_line, target))
    problems.sort(key=lambda p: (p.start, p.end))
    return Suppressions(tuple(directives), tuple(problems))


@dataclass(frozen=True, slots=True)
class _Range:
    directive: int  # index into directives
    ref: int  # index into directive.codes
    after_line: int  # suppresses lines > after_line ...
    until_line: int | None  # ... up to this line (None: end of file) ...
    until_offset: int  # ... and, on until_line, offsets before this one


def _ranges(directives: Sequence[Directive]) -> list[_Range]:
    out: list[_Range] = []
    open_: dict[int, list[tuple[int, int]]] = {}
    for i, d in enumerate(directives):
        if d.kind == DISABLE:
            for j, ref in enumerate(d.codes):
                open_.setdefault(ref.code, []).append((i, j))
        elif d.kind == ENABLE:
            for ref in d.codes:
                for i0, j0 in open_.pop(ref.code, []):
                    out.append(_Range(i0, j0, directives[i0].end_line, d.line, d.start))
    for pending in open_.values():
        for i0, j0 in pending:
            out.append(_Range(i0, j0, directives[i0].end_line, None, 0))
    return out


def _covered(r: _Range, f: Finding) -> bool:
    if f.line <= r.after_line:
        return False
    if r.until_line is None or f.line < r.until_line:
        return True
    return f.line == r.until_line and f.start < r.until_offset


def apply(
    findings: Sequence[Finding],
    suppressions: Suppressions,
    *,
    element_start_lines: Sequence[int | None] | None = None,
    ran: Collection[int] | None = None,
) -> tuple[list[Finding], list[Finding], list[Unused]]:
    """Split ``findings`` into (kept, suppressed, unused).

    ``element_start_lines`` is parallel to ``findings``: for finding ``i``, the line on which the start
    tag of its element begins (``None`` for findings not on an element); ``axag-disable-next-line``
    suppresses findings located on its target line and findings whose element's start tag begins there.
    Suppressed findings get ``suppression="inSource"`` and ``justification`` = the reason of the most
    specific covering directive (next-line, then the innermost range, then file-wide). Findings of rules
    that cannot be disabled are always kept. ``ran``: the codes of the rules that ran (default: all);
    ``unused`` lists, in file order, the codes of suppressing directives that covered no finding, for
    those codes only. Findings keep their input order within ``kept`` and ``suppressed``."""
    directives = suppressions.directives
    used: set[tuple[int, int]] = set()
    ranges = _ranges(directives)
    kept: list[Finding] = []
    suppressed: list[Finding] = []
    for n, f in enumerate(findings):
        element_line = element_start_lines[n] if element_start_lines is not None else None
        rule = RULES.get(f.code)
        if rule is not None and not rule.info.can_disable:
            kept.append(f)
            continue
        covering: list[tuple[int, int]] = []  # most specific first
        for i, d in enumerate(directives):
            if d.kind == NEXT_LINE and d.target_line is not None and d.target_line in (f.line, element_line):
                covering.extend((i, j) for j, ref in enumerate(d.codes) if ref.code == f.code)
        for r in sorted(ranges, key=lambda r: -r.directive):
            if directives[r.directive].codes[r.ref].code == f.code and _covered(r, f):
                covering.append((r.directive, r.ref))
        for i, d in enumerate(directives):
            if d.kind == DISABLE_FILE:
                covering.extend((i, j) for j, ref in enumerate(d.codes) if ref.code == f.code)
        if not covering:
            kept.append(f)
            continue
        used.update(covering)
        reason = directives[covering[0][0]].reason
        suppressed.append(replace(f, suppression="inSource", justification=reason))
    unused: list[Unused] = []
    for i, d in enumerate(directives):
        if d.kind not in SUPPRESSING:
            continue
        idle = frozenset(
            j for j, ref in enumerate(d.codes) if (i, j) not in used and (ran is None or ref.code in ran)
        )
        unused.extend(Unused(d, j, idle) for j in sorted(idle))
    return kept, suppressed, unused


def removal_edit(item: Unused) -> tuple[int, int, str]:
    """The 133 fix as ``(start, end, replacement)`` offsets into the decoded text: the whole comment when
    every code of the directive is unused, else the code with one adjacent separator (edits for several
    unused codes of one directive never overlap)."""
    d = item.directive
    if len(item.unused) == len(d.codes):
        return d.start, d.end, ""
    refs = d.codes
    j = item.index
    later_kept = any(k > j and k not in item.unused for k in range(len(refs)))
    if later_kept:
        return refs[j].start, refs[j + 1].start, ""
    return refs[j - 1].end, refs[j].end, ""
