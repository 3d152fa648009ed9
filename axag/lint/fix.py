"""The only fix applier (fixes): `axag lint --fix` and `--diff`.

Per file: take the fixes of the reported findings, sort them, skip those overlapping a fix already taken,
apply the rest to the decoded text and, with the replacement encoded in the file's encoding, to the original
bytes (every other byte kept, BOM included); verify the edited start tags by re-parsing them with
BeautifulSoup; re-lint the new bytes; repeat until nothing is left to fix, at most ``MAX_PASSES`` times.

A file with `193` (replaced bytes), or whose encoding cannot represent a replacement, is not fixed. A failed
verification leaves the file untouched and reports `199`. Files are written atomically with their
permissions; `--diff` writes nothing and returns a unified diff of every file that would change. The run
handed back is the re-linted one, so the report shows what remains.
"""

from __future__ import annotations

import copy
import difflib
import re
from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from axag.lint.engine import FileOutcome, Request, RunOutcomes, check_file
from axag.outcome.findings import Edit, Finding, Fix
from axag.parse.edits import apply_text
from axag.parse.tokenizer import RawTag, scan_tag

if TYPE_CHECKING:
    from axag.config.resolve import Resolver
    from axag.config.settings import Settings

R = TypeVar("R", bound=RunOutcomes)

__all__ = ["MAX_PASSES", "FileFix", "FixError", "apply_fixes", "fix_file"]

MAX_PASSES = 10
_DAMAGE_CHARS = frozenset("\"'[]{},:")


class FixError(Exception):
    """Fixing one file failed: ``verification`` True means a broken fix (reported as 199)."""

    def __init__(self, message: str, *, verification: bool = True) -> None:
        super().__init__(message)
        self.verification = verification


@dataclass
class FileFix:
    """The result of fixing one file."""

    outcome: FileOutcome  # the re-linted outcome (the original one when nothing changed)
    original: bytes | None = None
    fixed: bytes | None = None  # None: unchanged
    applied: int = 0  # findings whose fix was applied
    old_text: str = ""
    new_text: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.fixed is not None and self.fixed != self.original


# ---------------------------------------------------------------------------------------------- selection
def _overlaps(a: Edit, b: Edit) -> bool:
    """Edits conflict when their ranges intersect, or an insertion sits inside or at a border of the other."""
    if a.start < b.end and b.start < a.end:
        return True
    if a.start == a.end and b.start <= a.start <= b.end:
        return True
    return b.start == b.end and a.start <= b.start <= a.end


def _select(findings: list[Finding], unsafe: bool = False) -> list[tuple[Finding, Fix]]:
    """Fixes to apply in one pass: sorted by position, skipping any that overlaps one already taken (or whose
    own edits overlap), and the unsafe ones unless ``unsafe``. Identical fixes (two findings, one repair) are
    applied once."""
    cands: list[tuple[Finding, Fix]] = []
    for f in findings:
        fx = f.fix
        if fx is None or not fx.edits or (fx.unsafe and not unsafe):
            continue
        edits = sorted(fx.edits, key=lambda e: (e.start, e.end))
        if any(x.end > y.start or (x.start == y.start and x.end == y.end) for x, y in pairwise(edits)):
            continue
        cands.append((f, Fix(fx.description, tuple(edits), fx.unsafe)))
    cands.sort(key=lambda c: (c[1].edits[0].start, c[1].edits[-1].end, c[0].code))
    taken: list[tuple[Finding, Fix]] = []
    applied: list[Edit] = []
    seen: set[tuple[tuple[int, int, str], ...]] = set()
    for f, fx in cands:
        key = tuple((e.start, e.end, e.content) for e in fx.edits)
        if key in seen:
            taken.append((f, fx))
            continue
        if any(_overlaps(e, a) for e in fx.edits for a in applied):
            continue
        seen.add(key)
        taken.append((f, fx))
        applied.extend(fx.edits)
    return taken


def _unique_edits(taken: list[tuple[Finding, Fix]]) -> list[Edit]:
    out: dict[tuple[int, int, str], Edit] = {}
    for _, fx in taken:
        for e in fx.edits:
            out.setdefault((e.start, e.end, e.content), e)
    return sorted(out.values(), key=lambda e: (e.start, e.end))


# ---------------------------------------------------------------------------------------------- applying
def apply_bytes(data: bytes, bom: bytes, text: str, encoding: str, edits: list[Edit]) -> bytes:
    """Apply ``edits`` (decoded-text offsets) to the original bytes: unedited stretches are copied from
    ``data``; replacements are encoded in ``encoding``. Raises FixError(verification=False) when the encoding
    cannot represent a replacement or the text does not map back onto the bytes."""
    out = [data[:len(bom)]]
    pos_t = 0
    pos_b = len(bom)

    def take(upto: int) -> bytes:
        nonlocal pos_t, pos_b
        seg = text[pos_t:upto].encode(encoding)
        if data[pos_b:pos_b + len(seg)] != seg:
            raise FixError(f"the text does not map back onto the bytes in {encoding}", verification=False)
        pos_t = upto
        pos_b += len(seg)
        return seg

    try:
        for e in edits:
            out.append(take(e.start))
            take(e.end)  # the replaced stretch, checked and dropped
            try:
                out.append(e.content.encode(encoding))
            except UnicodeEncodeError as exc:
                raise FixError(f"{encoding} cannot represent the replacement {e.content!r}",
                               verification=False) from exc
        out.append(take(len(text)))
    except UnicodeEncodeError as exc:
        raise FixError(f"the text cannot be encoded in {encoding}", verification=False) from exc
    if pos_b != len(data):
        raise FixError("the text does not cover the bytes", verification=False)
    return b"".join(out)


# ---------------------------------------------------------------------------------------------- verification
class _StartTags:
    """The start tags of a text that carry annotations or make their element interactive (the only tags a fix
    edits), found by the tokenizer, which reads attribute values whole: a ``<`` or ``>`` inside a value (a JSON
    description holding ``<b>``) is never taken for a tag."""

    def __init__(self, text: str) -> None:
        from axag.parse.tokenizer import find_tags

        annotated, interactive = find_tags(text)[:2]
        self.text = text
        self.tags = sorted(annotated + interactive, key=lambda t: t.start)
        self.starts = [t.start for t in self.tags]
        self.skips: list[tuple[int, int]] | None = None

    def enclosing(self, start: int, end: int) -> RawTag | None:
        """The start tag whose attribute area contains ``[start, end)``."""
        import bisect

        i = bisect.bisect_right(self.starts, start) - 1
        if i < 0:
            return None
        return self._inside(self.tags[i], start, end)

    def _inside(self, tag: RawTag, start: int, end: int) -> RawTag | None:
        limit = tag.end - 1 if tag.end > 0 and self.text[tag.end - 1] == ">" else tag.end
        return tag if tag.name_end <= start and end <= limit else self._control(start, end)

    def _control(self, start: int, end: int) -> RawTag | None:
        """The start tag of a form control without annotations (the legacy axag-constraints migration adds ``axag-parameter-*`` to
        it): the tag the tokenizer reads at the last ``<`` before the edit, when it is a control and holds the
        edit (a ``<`` inside a value starts no tag, and the edit is refused)."""
        lt = self.text.rfind("<", 0, start)
        tag = scan_tag(self.text, lt) if lt >= 0 else None
        if tag is None or tag.tag not in ("input", "select", "textarea"):
            return None
        limit = tag.end - 1 if tag.end > 0 and self.text[tag.end - 1] == ">" else tag.end
        return tag if tag.name_end <= start and end <= limit else None

    def any_enclosing(self, start: int, end: int) -> RawTag | None:
        """Any start tag whose attribute area contains ``[start, end)`` (the tokenizer's own search, outside
        comments and raw text): a form control's declarative WebMCP attribute (rules 163, 164)."""
        from axag.parse.tokenizer import _enclosing_tag, skipped_ranges

        if self.skips is None:
            self.skips = skipped_ranges(self.text)
        tag = _enclosing_tag(self.text, start, 0, len(self.text), self.skips)
        return None if tag is None else self._inside(tag, start, end)


def _extent(tag: RawTag, text: str) -> list[tuple[int, int, str]]:
    out = []
    for a in tag.attrs:
        end = a.value_end
        if a.quote in ('"', "'") and end < len(text) and text[end] == a.quote:
            end += 1
        out.append((a.name_start, end, a.written.lower()))
    return out


# the declarative WebMCP attributes that the webmcp rules (160-164) write beside the annotations
_WEBMCP_ATTRIBUTES = frozenset(("toolname", "tooldescription", "toolautosubmit", "toolparamdescription"))


def _is_annotation(name: str) -> bool:
    return name == "axag" or name.startswith(("axag-", ":axag", "v-bind:axag")) or name in _WEBMCP_ATTRIBUTES


def _bs_attrs(tag_text: str) -> tuple[str, list[tuple[str, str]]] | None:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(tag_text, "html.parser", multi_valued_attributes=None,
                         on_duplicate_attribute=_keep_all)
    el = soup.find(True)
    if el is None:
        return None
    attrs: list[tuple[str, str]] = []
    for k, v in el.attrs.items():
        if isinstance(v, list):
            attrs.extend((str(k), str(x)) for x in v)
        else:
            attrs.append((str(k), str(v)))
    return str(el.name), attrs


def _keep_all(attrs: dict[str, Any], key: str, value: Any) -> None:
    old = attrs[key]
    attrs[key] = [*old, value] if isinstance(old, list) else [old, value]


def _shift(edits: list[Edit], offset: int) -> int:
    """New offset of an old offset that no edit covers (edits at or before it shift it)."""
    delta = 0
    for e in edits:
        if e.end <= offset and not (e.start == e.end == offset):
            delta += len(e.content) - (e.end - e.start)
        elif e.start >= offset:
            break
    return offset + delta


def verify(old: str, new: str, kind: str, taken: list[tuple[Finding, Fix]], path: Path | None = None) -> None:
    """Check one pass (fixes): every edit lies in a start tag (or, for 133, in a suppression comment) and
    does not touch a template construct; re-parsed with BeautifulSoup, each edited start tag keeps its name
    and every attribute other than the edited annotation attributes. Raises FixError."""
    from axag.parse.templates import blank_template_tags

    if kind == "jsx":
        from axag.parse.jsx import fix_problem

        problem = fix_problem(old, new, path)
        if problem is not None:
            raise FixError(problem)
        return
    old_b = blank_template_tags(old, kind)[0] if kind != "html" else old
    new_b = blank_template_tags(new, kind)[0] if kind != "html" else new
    if kind in ("svelte", "astro"):  # `{expr}` in start tags, as the parser reads them
        from axag.parse.braces import neutralize_braces

        old_b, new_b = neutralize_braces(old_b), neutralize_braces(new_b)
    edits = _unique_edits(taken)
    comment_edits = {(e.start, e.end, e.content) for f, fx in taken if f.code == 133 for e in fx.edits}
    directives = None
    tags: dict[int, tuple[RawTag, list[Edit]]] = {}
    start_tags: _StartTags | None = None
    for e in edits:
        if old[e.start:e.end] != old_b[e.start:e.end]:
            raise FixError(f"an edit at offset {e.start} touches a template construct")
        if (e.start, e.end, e.content) in comment_edits:
            if directives is None:
                from axag.lint import suppress

                directives = suppress.parse(old_b, kind).directives
            if not any(d.start <= e.start and e.end <= d.end for d in directives):
                raise FixError(f"an edit at offset {e.start} lies outside its suppression comment")
            continue
        if start_tags is None:
            start_tags = _StartTags(old_b)
        tag = start_tags.enclosing(e.start, e.end) or start_tags.any_enclosing(e.start, e.end)
        if tag is None:
            raise FixError(f"an edit at offset {e.start} lies outside every start tag")
        tags.setdefault(tag.start, (tag, []))[1].append(e)
    for old_tag, tag_edits in tags.values():
        new_start = _shift(edits, old_tag.start)
        new_tag = scan_tag(new_b, new_start)
        if new_tag is None or new_tag.tag != old_tag.tag:
            raise FixError(f"the start tag <{old_tag.tag}> no longer parses")
        if new_tag.end != _shift(edits, old_tag.end):
            raise FixError(f"the start tag <{old_tag.tag}> changed its extent")
        edited: set[str] = set()
        removed_fragments: set[str] = set()
        for s, en, name in _extent(old_tag, old_b):
            if any((e.start < en and s < e.end) for e in tag_edits):
                edited.add(name)
                if not _is_annotation(name) and any(c in _DAMAGE_CHARS for c in name):
                    removed_fragments.add(name)
        new_ranges = [(_shift(edits, e.start), _shift(edits, e.start) + len(e.content)) for e in tag_edits]
        new_names: set[str] = set()
        for s, en, name in _extent(new_tag, new_b):
            if any(ns < en and s < ne for ns, ne in new_ranges):
                edited.add(name)
                new_names.add(name)
        for name in edited:
            if not _is_annotation(name) and not (name in removed_fragments and name not in new_names):
                raise FixError(f'a fix would change the attribute "{name}" of <{old_tag.tag}>')
        before = _bs_attrs(old_b[old_tag.start:old_tag.end])
        after = _bs_attrs(new_b[new_tag.start:new_tag.end])
        if before is None or after is None or before[0] != after[0]:
            raise FixError(f"the start tag <{old_tag.tag}> does not re-parse")
        keep_old = [(k, v) for k, v in before[1] if k.lower() not in edited]
        keep_new = [(k, v) for k, v in after[1] if k.lower() not in edited]
        if keep_old != keep_new:
            raise FixError(f"the other attributes of <{old_tag.tag}> would change")


# ---------------------------------------------------------------------------------------------- one file
def _internal(outcome: FileOutcome, message: str) -> FileOutcome:
    from axag.rules.run_level import internal_error

    f = internal_error("", outcome.display, outcome.repo_path, message=message)
    out = replace(outcome, findings=sorted([*outcome.findings, f], key=Finding.sort_key))
    out.internal_error = True
    return out


def fix_file(outcome: FileOutcome, settings: Settings, request: Request, data: bytes | None = None, *,
             unsafe: bool = False) -> FileFix:
    """Fix one linted file (its outcome must carry the decoded text); ``unsafe``: the did-you-mean fixes too.
    Nothing is written here."""
    result = FileFix(outcome)
    if outcome.text is None or outcome.replaced or outcome.read_error or outcome.internal_error:
        return result
    if not any(f.fix is not None for f in outcome.findings):
        return result
    if data is None:
        try:
            data = Path(outcome.path).read_bytes()
        except OSError:
            return result
    from axag.files.source import file_kind, load

    src = load(outcome.path, data)
    if isinstance(src, str) or src.replaced or src.text != outcome.text:
        return result  # binary, replaced, or changed since it was linted
    kind = file_kind(outcome.path)
    req = replace(request, keep_text=True)
    result.original = data
    result.old_text = src.text
    text, cur, current = src.text, data, outcome
    applied = 0
    seen = {text}
    try:
        for _ in range(MAX_PASSES):
            taken = _select(current.findings, unsafe)
            if not taken:
                break
            edits = _unique_edits(taken)
            new_text = apply_text(text, edits)
            if new_text in seen:  # nothing new, or fixes undoing each other: stop where we are
                break
            seen.add(new_text)
            new_data = apply_bytes(cur, src.bom, text, src.encoding, edits)
            verify(text, new_text, kind, taken, Path(outcome.path))
            relinted = check_file(outcome.path, outcome.display, outcome.repo_path, settings, req, data=new_data)
            if relinted.internal_error or relinted.read_error or relinted.text != new_text:
                raise FixError("the fixed file does not lint cleanly: "
                               + "; ".join(f.message for f in relinted.findings if f.code in (191, 192, 199)))
            text, cur, current = new_text, new_data, relinted
            applied += len(taken)
    except FixError as exc:
        if exc.verification:
            result.outcome = _internal(outcome, f"fix verification failed, the file was not changed: {exc}")
        else:
            result.notes.append(str(exc))
        return result
    if cur != data:
        result.fixed = cur
        result.new_text = text
        result.applied = applied
        result.outcome = current
    return result


# ---------------------------------------------------------------------------------------------- the run
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _lines(text: str) -> list[str]:
    """Lines with their breaks (LF, CRLF, lone CR only: other Unicode breaks are text)."""
    return _LINE.findall(text)


def _diff(display: str, old: str, new: str) -> str:
    lines = difflib.unified_diff(_lines(old), _lines(new),
                                 fromfile=f"a/{display}", tofile=f"b/{display}")
    out = []
    for line in lines:
        if line.endswith(("\n", "\r")):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def apply_fixes(run: R, resolver: Resolver, request: Request, *, write: bool, cwd: Path,
                stdin: tuple[Path, bytes] | None = None, unsafe: bool = False) -> tuple[int, str, R]:
    """Fix every file of ``run`` (``write``: in place, else only the diff). Returns (number of findings fixed,
    unified diff of every file that changes, the re-linted run). With ``stdin``, the stdin outcome is never
    written: its fixed bytes (or the input unchanged) are set as ``stdin_fixed`` on the returned run."""
    new_run = copy.copy(run)  # an `axag.api.Run`; the lint layer does not import the api
    new_run.outcomes = []
    new_run.run_findings = list(run.run_findings)
    fixed = 0
    diffs: list[tuple[str, str]] = []
    changed = False
    stdin_out: bytes | None = None
    for outcome in run.outcomes:
        is_stdin = stdin is not None and Path(outcome.path) == Path(stdin[0]) and stdin_out is None
        data = stdin[1] if is_stdin and stdin is not None else None
        try:
            result = fix_file(outcome, resolver.resolve(outcome.path), request, data, unsafe=unsafe)
        except Exception as exc:  # noqa: BLE001 - one file never stops the run (parsing robustness); it stays untouched
            result = FileFix(_internal(outcome, f"internal error while fixing, the file was not changed: {exc!r}"))
        if is_stdin:
            stdin_out = result.fixed if result.changed and result.fixed is not None else (data or b"")
        if result.changed and result.fixed is not None:
            diffs.append((outcome.display, _diff(outcome.display, result.old_text, result.new_text)))
            if write and not is_stdin:
                from axag.files.write import write_atomic
                from axag.outcome.errors import InputError

                try:
                    write_atomic(outcome.path, result.fixed)
                except InputError as exc:
                    result.outcome = _internal(outcome, f"cannot write the fixed file: {exc}")
                    result.applied = 0
            changed = True
            fixed += result.applied
        new_run.outcomes.append(result.outcome)
    if changed:
        new_run.run_findings = [f for f in run.run_findings if f.code not in (121, 122)]
        from axag.lint.sitewide import sitewide_findings

        new_run.run_findings.extend(sitewide_findings(new_run, request))
    if stdin is not None:
        setattr(new_run, "stdin_fixed", stdin_out if stdin_out is not None else stdin[1])  # noqa: B010
    diffs.sort(key=lambda d: d[0])
    return fixed, "".join(d for _, d in diffs), new_run
