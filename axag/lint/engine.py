"""The per-file engine: read → parse → model → rules → findings (selection, primaries, suppressions).

`check_file` never raises: every exception becomes a run diagnostic (191, 192, 199) for that file.
The same function serves `axag lint` (selected rules, configured severities) and `axag compile`
(every C rule at its default severity), so both see one model and one set of findings.
"""

from __future__ import annotations

import os
import re
import sys
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from axag.findings import Edit, Finding, Fix, Severity, fingerprint
from axag.paths import relpath_posix
from axag.rules.catalogue import RULES, format_message
from axag.spans import LineIndex, context_rows

if TYPE_CHECKING:  # the model is imported when a file is checked: a run served by the result cache needs none of it
    from axag.model.problems import Problem
    from axag.parse.document import Element, ParsedFile

C_RULES = frozenset(code for code, m in RULES.items() if m.info.compile_check)

# (primary, secondary, match): the secondary stays silent at the same element when the primary fires
# there and is in effect (§12.6). match "attr": same attribute; "key": same discriminating key.
PRIMARIES: tuple[tuple[int, int, str], ...] = (
    (103, 4, "attr"),
    (6, 26, "key"),
    (7, 26, "key"),
    (12, 26, "key"),
    (13, 25, "element"),
    (8, 118, "key"),
    (132, 131, "span"),
    (101, 100, "attr"),
    (102, 100, "attr"),
    (104, 100, "attr"),
    (134, 9, "attr"),
    (134, 106, "attr"),
    (27, 34, "element"),
    (110, 114, "key"),
    (110, 115, "key"),
    (110, 116, "key"),
    (110, 117, "key"),
)


@dataclass
class Request:
    """What one run asks of the engine (shared by every file)."""

    mode: str = "lint"  # "lint" | "compile"
    cli_select: str | None = None
    cli_ignore: str | None = None
    cli_extend_select: str | None = None
    cli_level: str | None = None
    harvest: bool | None = None  # None = from config
    manifest: dict[str, Any] | None = None
    manifest_name: str = ""
    enforced_intents: frozenset[str] | None = None
    openapi: dict[str, dict[str, Any]] | None = None  # operationId -> operation (compile.openapi.operations)
    openapi_name: str = ""
    want_contracts: bool = False
    compile_root: Path | None = None
    keep_text: bool = False  # keep decoded text (for --fix)


@dataclass
class FileOutcome:
    path: Path
    display: str
    repo_path: str
    findings: list[Finding] = field(default_factory=list)
    suppressed: list[Finding] = field(default_factory=list)
    ran: frozenset[int] = frozenset()
    contracts: list[Any] = field(default_factory=list)  # compile.build.ActionContract
    dynamic_actions: list[tuple[str, int, str]] = field(default_factory=list)
    excluded_actions: int = 0
    read_error: bool = False  # 191/192: the file contributes nothing
    internal_error: bool = False  # 199
    text: str | None = None
    size: int = 0  # bytes read
    encoding: str = "utf-8"
    replaced: bool = False


# (id(settings), request options, per-file ignores) -> (settings, codes): the selection of most files of a
# run is the same and is computed once (the settings object is kept so that its id stays its own)
_ENABLED: dict[tuple[Any, ...], tuple[Any, frozenset[int]]] = {}


def enabled_codes(settings: Any, request: Request, path: Path) -> frozenset[int]:
    if request.mode == "compile":
        return C_RULES
    from axag.config import per_file_ignored, selected_codes

    key = (id(settings), request.cli_select, request.cli_ignore, request.cli_extend_select, request.cli_level,
           request.manifest is None, request.enforced_intents is None, request.openapi is None,
           per_file_ignored(settings, path) if settings is not None and settings.per_file_ignores else None)
    cached = _ENABLED.get(key)
    if cached is not None and cached[0] is settings:
        return cached[1]
    codes: frozenset[int] = selected_codes(
        settings, request.cli_select, request.cli_ignore, request.cli_extend_select, path,
        cli_level=request.cli_level,
    )
    if request.manifest is None:
        codes = codes - {10, 30}
    if request.enforced_intents is None:
        codes = codes - {37}
    if request.openapi is None:
        codes = codes - {149}
    codes = shared_codes(codes)
    if len(_ENABLED) > 256:
        _ENABLED.clear()
    _ENABLED[key] = (settings, codes)
    return codes


_CODE_SETS: dict[frozenset[int], frozenset[int]] = {}


def shared_codes(codes: frozenset[int]) -> frozenset[int]:
    """One object per distinct set of rule codes: every file's outcome keeps the codes that ran, and the
    files of a run almost always share one selection (memory then does not grow with the number of files)."""
    return _CODE_SETS.setdefault(codes, codes)


def check_file(path: Path, display: str, repo_path: str, settings: Any, request: Request,
               data: bytes | None = None) -> FileOutcome:
    out = FileOutcome(path=path, display=display, repo_path=repo_path)
    try:
        _check(out, settings, request, data)
    except Exception as exc:  # noqa: BLE001 - one file never stops the run (§14.5)
        out.internal_error = True
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        out.findings = [f for f in out.findings if f.code in (190, 191, 192, 193)]
        out.findings.append(_run_finding(out, 199, f"internal error: {detail}"))
        out.contracts = []
    return out


def _run_finding(out: FileOutcome, code: int, message: str, line: int = 1, column: int = 1) -> Finding:
    meta = RULES[code]
    return Finding(code=code, severity=meta.info.severity, message=message, path=out.display,
                   repo_path=out.repo_path, line=line, column=column, end_line=line, end_column=column,
                   name=meta.info.name,
                   fingerprint=fingerprint(code, out.repo_path, "", None, 0))


def _check(out: FileOutcome, settings: Any, request: Request, data: bytes | None) -> None:
    from axag.source import load

    path = out.path
    if data is None:
        try:
            data = _read_regular(path)
        except OSError as exc:
            out.read_error = True
            out.findings.append(_run_finding(out, 191, f"cannot read the file: {exc.strerror or exc}"))
            return
        if data is None:  # a FIFO, device or socket named on the command line: reading could block forever
            sev = _severity(190, settings, request)
            if sev is not None:
                f = _run_finding(out, 190, "not a regular file; skipped")
                out.findings.append(replace(f, severity=sev))
            return
    out.size = len(data)
    from axag.source import is_read

    if not is_read(path):  # §13.10: a named file of another kind is skipped with a warning
        sev = _severity(190, settings, request)
        if sev is not None:
            f = _run_finding(out, 190, f"axag does not read {path.suffix or 'extension-less'} files; skipped")
            out.findings.append(replace(f, severity=Severity.WARNING if sev is Severity.INFO else sev))
        return
    src = load(path, data)
    if isinstance(src, str):
        sev = _severity(190, settings, request)
        if sev is not None:
            f = _run_finding(out, 190, "not a text file (it contains NUL bytes); skipped")
            out.findings.append(replace(f, severity=sev))
        return
    out.encoding = src.encoding
    out.replaced = src.replaced
    if request.keep_text:
        out.text = src.text
    enabled = enabled_codes(settings, request, path)
    out.ran = enabled
    if src.kind == "jsx":
        from axag.parse.jsx import parse_jsx
        from axag.parse.jsxtree import GrammarMissing

        try:
            pf = parse_jsx(src, settings.jsx_components if settings is not None else None)
        except GrammarMissing as exc:
            sev = _severity(190, settings, request)
            if sev is not None:
                f = _run_finding(out, 190, f"{exc}; skipped")
                out.findings.append(replace(f, severity=Severity.WARNING if sev is Severity.INFO else sev))
            return
    else:
        from axag.parse.document import parse_source

        pf = parse_source(src)
    if pf.root is None and pf.text.strip():
        out.read_error = True
        out.findings.append(_run_finding(out, 192, "the HTML parser produced no document"))
        return
    findings: list[Finding] = []
    if src.replaced and (sev := _severity(193, settings, request)) is not None:
        f = _run_finding(out, 193, f"bytes invalid in {src.encoding} were replaced; --fix will not modify "
                                   "this file")
        findings.append(replace(f, severity=sev))
    if pf.root is None:
        out.findings = findings
        return
    from axag.model.actions import build_model
    from axag.rules import load_rules
    from axag.rules.base import RuleCtx, run_rules

    load_rules()
    harvest = settings.harvest if request.harvest is None else request.harvest
    model = build_model(pf, harvest=harvest)
    if any(ann.legacy for ann in model.annotated):  # imported for pages with legacy attributes only
        from axag.lint.migrate import attach  # §8: verified axag-constraints migration (fix, per-entry 101)

        attach(model, harvest=harvest)
    problems = list(model.problems)
    problems.extend(_dynamic_problems(model))
    ctx = RuleCtx(model, enabled, request.manifest, request.manifest_name, request.enforced_intents,
                  openapi=request.openapi, openapi_name=request.openapi_name)
    problems.extend(run_rules(ctx))
    intents = {id(a.element): a.intent for a in model.actions if a.intent}
    items = _to_findings(out, pf, problems, enabled, settings, request, intents)
    items.sort(key=lambda it: (it[0].line, it[0].column, it[0].code))
    items = _fingerprint(out, items)
    starts = [pf.lines.position(el.start)[0] if el is not None else None for _, el in items]
    element_of = {id(f): el for f, el in items}
    if src.kind == "jsx" or has_comment_opener(pf.text):  # JSX: `{/* … */}` and `//` comments
        from axag.lint import suppress

        sup: Any = suppress.parse(pf.text, src.kind, pf.lines)
        apply: Any = suppress.apply
    else:  # no comment, so no directive: the suppression module is not even imported
        sup, apply = None, _no_directives
    all_findings = [f for f, _ in items]
    if request.mode == "compile":
        # suppressions never silence C-rule errors in compile (§12.1)
        idx = [i for i, f in enumerate(all_findings) if f.severity is not Severity.ERROR]
        others = [all_findings[i] for i in idx]
        kept, suppressed, _unused = apply(others, sup, element_start_lines=[starts[i] for i in idx], ran=enabled)
        kept = [f for f in all_findings if f.severity is Severity.ERROR] + kept
        if settings is not None and settings.per_file_ignores:
            # per-file ignores hide C-rule warnings and infos from compile's report, never errors
            from axag.config import per_file_ignored

            hidden = per_file_ignored(settings, path)
            kept = [f for f in kept if f.severity is Severity.ERROR or f.code not in hidden]
    else:
        kept, suppressed, unused = apply(all_findings, sup, element_start_lines=starts, ran=enabled)
        from axag.model.problems import Problem
        from axag.spans import Span

        extra: list[Problem] = []
        if 143 in enabled and sup is not None:
            extra.extend(Problem(143, Span(sp.start, sp.end), {"problem": sp.problem}) for sp in sup.problems)
        if 133 in enabled and unused:
            from axag.lint import suppress

            for item in unused:
                s, e, rep = suppress.removal_edit(item)
                fx = Fix("Remove the unused suppression", (Edit(s, e, rep),))
                extra.append(Problem(133, Span(item.start, item.end), {"code": RULES[item.code].info.id}, fix=fx))
        more = [f for f, _ in _fingerprint(out, _to_findings(out, pf, extra, enabled, settings, request, {}))]
        kept.extend(more)
    out.findings = sorted(findings + kept, key=Finding.sort_key)
    out.suppressed = sorted(suppressed, key=Finding.sort_key)
    if request.want_contracts:
        from axag.compile.build import build_contracts

        if request.mode == "compile":
            error_elements = {id(element_of.get(id(f))) for f in kept if f.severity is Severity.ERROR}
        else:
            error_elements = _compile_error_elements(out, model, problems)
        out.contracts, out.dynamic_actions = build_contracts(model, out, request, error_elements)
    release_model(model)


def release_model(model: Any) -> None:
    """Break the reference cycles of a file's model once the file is done (each action and its annotated
    element refer to each other; the harvest's per-file state refers to the model), so that reference counting
    frees the page, its lxml tree first, at once: no garbage collection has to find it (`axag.memory`)."""
    for ann in model.annotated:
        ann.action = None
    model.__dict__.clear()


def _compile_error_elements(out: FileOutcome, model: Any, problems: list[Problem]) -> set[int]:
    """The elements that `axag compile` leaves out of the merge (those with a C-rule error), found as compile
    finds them: every C rule at its own severity, whatever lint selects, ignores, overrides or suppresses;
    lint merges the same contracts, so its 121/122 equal compile's (issue 11)."""
    from axag.rules.base import RuleCtx, run_rules

    extra = C_RULES - out.ran
    if extra:
        problems = problems + run_rules(RuleCtx(model, extra))
    dropped = _dropped_secondaries(problems, C_RULES)
    return {id(p.element) for p in problems if p.code in C_RULES and id(p) not in dropped
            and (p.severity or RULES[p.code].info.severity) is Severity.ERROR}


# every comment of the markup syntaxes `lint.suppress` reads directives from (HTML, Jinja, Handlebars, Liquid)
# matches (JSX files, whose comments are code comments, are always read)
_TEMPLATE_OPENER = re.compile(r"\{[#{%]")


def has_comment_opener(text: str) -> bool:
    """Whether ``text`` holds ``<!--``, ``{#``, ``{{`` or ``{%``: substring scans, a few times faster on a big
    page than one regex alternation (which has no literal prefix to scan for)."""
    return "<!--" in text or ("{" in text and _TEMPLATE_OPENER.search(text) is not None)


def _no_directives(findings: list[Finding], sup: None, *, element_start_lines: Any,
                   ran: Any) -> tuple[list[Finding], list[Finding], list[Any]]:
    """`suppress.apply` for a file without comments: everything kept, nothing suppressed or unused."""
    return list(findings), [], []


def _read_regular(path: Path) -> bytes | None:
    """The bytes of ``path``, or None when it is not a regular file (opened non-blocking, checked with fstat)."""
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        mode = st.st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, os.strerror(21), str(path))
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


def _severity(code: int, settings: Any, request: Request) -> Severity | None:
    meta = RULES[code]
    if request.mode == "compile":
        return meta.info.severity
    overrides: dict[int, Severity | None] = settings.severity_overrides() if settings is not None else {}
    if code in overrides:
        return overrides[code]
    return meta.info.severity


def _anchor(element: Element | None, intents: dict[int, str]) -> str:
    """§13.3: the element's valid intent, else its tag plus #id, else its tag; "" off elements."""
    if element is None:
        return ""
    intent = intents.get(id(element))
    if intent:
        return intent
    ident = element.get("id")
    return f"{element.tag}#{ident}" if ident else element.tag


Item = tuple[Finding, "Element | None"]


def _to_findings(out: FileOutcome, pf: ParsedFile, problems: list[Problem], enabled: frozenset[int],
                 settings: Any, request: Request, intents: dict[int, str]) -> list[Item]:
    dropped = _dropped_secondaries(problems, enabled)
    items: list[Item] = []
    seen: set[tuple[int, int, int, str]] = set()
    for p in problems:
        if id(p) in dropped or p.code not in enabled:
            continue
        key = (p.code, p.span.start, p.span.end, str(sorted((k, str(v)) for k, v in p.args.items())))
        if key in seen:
            continue
        seen.add(key)
        f = _make(out, pf, p, settings, request, _anchor(p.element, intents))
        if f is not None:
            items.append((f, p.element))
    return items


def _dropped_secondaries(problems: list[Problem], enabled: frozenset[int]) -> set[int]:
    """Ids of the secondaries whose primary fires at the same element and is in effect (§12.6)."""
    by_code: dict[int, list[Problem]] = {}
    for p in problems:
        by_code.setdefault(p.code, []).append(p)
    dropped: set[int] = set()
    for primary, secondary, match in PRIMARIES:
        if primary not in enabled or secondary not in by_code or primary not in by_code:
            continue
        for s in by_code[secondary]:
            for p in by_code[primary]:
                if p.element is not s.element:
                    continue
                if match == "attr" and p.attribute != s.attribute:
                    continue
                if match == "key" and p.args.get("_key") != s.args.get("_key"):
                    continue
                if match == "span" and p.span != s.span:
                    continue
                dropped.add(id(s))
                break
    return dropped


def _fingerprint(out: FileOutcome, items: list[Item]) -> list[Item]:
    """Fingerprints (§13.3): occurrence = index among findings with the same code, path, anchor and
    attribute, in file order."""
    counts: dict[tuple[int, str, str | None], int] = {}
    result: list[Item] = []
    for f, el in items:
        k = (f.code, f.anchor, f.attribute)
        occ = counts.get(k, 0)
        counts[k] = occ + 1
        result.append((replace(f, fingerprint=fingerprint(f.code, out.repo_path, f.anchor, f.attribute, occ)), el))
    return result


def _make(out: FileOutcome, pf: ParsedFile, p: Problem, settings: Any, request: Request,
          anchor: str) -> Finding | None:
    meta = RULES[p.code]
    sev = p.severity or meta.info.severity
    if request.mode == "lint":
        overrides = settings.severity_overrides() if settings is not None else {}
        if p.code in overrides:
            o = overrides[p.code]
            if o is None:
                return None
            sev = o
    args = {k: v for k, v in p.args.items() if not k.startswith("_")}
    # interned: the same markup on many pages gives the same messages (findings are kept for the whole run)
    message = sys.intern(p.message or format_message(p.code, p.index, **args))
    lines = pf.lines
    start = min(max(p.span.start, 0), len(pf.text))
    end = min(max(p.span.end, start), len(pf.text))
    line, col = lines.position(start)
    eline, ecol = lines.position(end)
    fix = _resolve_fix(p.fix, lines) if p.fix is not None and request.mode == "lint" else None
    path, repo_path = out.display, out.repo_path
    if pf.src.kind == "jsx":
        from axag.lint.origins import elsewhere, touches

        if fix is not None and pf.frozen and touches(fix, pf.frozen):
            fix = None  # JSX: fixes never edit an expression
        other = elsewhere(p, out.path, (out.display, out.repo_path))
        if other is not None:  # a value of an `axag={spec}` object written in another file (issue 16)
            lines, (path, repo_path), fix = other[0], other[1], None
            line, col = lines.position(min(max(p.span.start, 0), len(lines.text)))
            eline, ecol = lines.position(min(max(p.span.end, p.span.start), len(lines.text)))
    ctx_lines = context_rows(lines, line, eline)
    f = Finding(code=p.code, severity=sev, message=message, path=path, line=line, column=col,
                end_line=eline, end_column=ecol, name=meta.info.name, repo_path=repo_path,
                attribute=p.attribute, anchor=anchor, help=p.help, fix=fix, context=ctx_lines, start=start,
                end=end)
    return f


def _resolve_fix(fx: Fix, lines: LineIndex) -> Fix:
    edits = []
    for e in fx.edits:
        sl, sc = lines.position(e.start)
        el, ec = lines.position(e.end)
        edits.append(replace(e, start_line=sl, start_column=sc, end_line=el, end_column=ec))
    return Fix(fx.description, tuple(edits))


def _dynamic_problems(model: Any) -> list[Problem]:
    from axag.model.problems import Problem

    out = []
    for ann in model.annotated:
        if not ann.dynamic_attrs:
            continue
        excluded = ann.action is not None and ann.action.dynamic
        attrs = ", ".join(dict.fromkeys(ann.dynamic_attrs))
        out.append(Problem(33, ann.element.tag_span, {"tag": ann.element.tag, "attrs": attrs, "opt": excluded},
                           ann.element, None, severity=Severity.WARNING if excluded else Severity.INFO))
    return out


def display_path(path: Path, cwd: Path) -> str:
    try:
        return relpath_posix(path, cwd)
    except ValueError:
        return path.as_posix()
