"""The per-file engine: read → parse → model → rules → findings (selection, primaries, suppressions).

`check_file` never raises: every exception becomes a run diagnostic (191, 192, 199) for that file.
The same function serves `axag lint` (selected rules, configured severities) and `axag compile`
(every C rule at its default severity), so both see one model and one set of findings.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from axag.files import read_whole
from axag.files.paths import relpath_posix
from axag.files.spans import LineIndex, context_rows
from axag.outcome.findings import Edit, Finding, Fix, Severity, fingerprint
from axag.rules import run_level
from axag.rules.catalogue import RULES
from axag.rules.declare import MessageError, strict

if TYPE_CHECKING:  # the model is imported when a file is checked: a run served by the result cache needs none of it
    from axag.config.settings import Settings
    from axag.files.source import SourceText
    from axag.lint.suppress import Unused
    from axag.model.types import Action, FileModel
    from axag.parse.document import Element, ParsedFile
    from axag.rules.problem import Problem

C_RULES = frozenset(code for code, m in RULES.items() if m.info.compile_check)
# the C rules whose errors an inline suppression with a reason lifts in compile as well (150)
REASONED = frozenset(code for code, m in RULES.items() if m.reasoned)

# (primary, secondary, match), from the declarations (`Rule.primary_to`): the secondary stays silent at the same
# element when the primary fires there and is in effect (one finding per problem). match "attr": same attribute; "key": same
# discriminating key (`pair=`); "span": same span; "element": anywhere on the element.
PRIMARIES: tuple[tuple[int, int, str], ...] = tuple(
    (r.code, secondary, match) for r in RULES.values() for secondary, match in r.primary_to.items())


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
    # with want_contracts: asked, before a file's contracts are built, with the (intent, tool name) of each action
    # that gets one (`compile.build.declared_tools`); the contracts of the pairs it returns are built (of every
    # action when it returns None). The language server builds only those of an open document's intents and tool
    # names that another file declares too
    contracts_for: Callable[[list[tuple[str, str]]], frozenset[tuple[str, str]] | None] | None = None
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
    # (contract, has errors): a compile.contract.ToolContract, or once packed for the merge (compile.merge,
    # in workers and the result cache) a PackedContract or SeenContract
    contracts: list[tuple[Any, bool]] = field(default_factory=list)
    dynamic_actions: list[tuple[str, int, str]] = field(default_factory=list)
    excluded_actions: int = 0
    elements: int = 0  # annotated elements seen
    actions: int = 0  # actions seen
    read_error: bool = False  # 191/192: the file contributes nothing
    internal_error: bool = False  # 199
    text: str | None = None
    size: int = 0  # bytes read
    encoding: str = "utf-8"
    replaced: bool = False


class RunOutcomes(Protocol):
    """What the lint layer reads of a run (`axag.api.Run`, which it does not import): the outcome of each file
    and the run-wide findings."""

    outcomes: list[FileOutcome]
    run_findings: list[Finding]


# (id(settings), request options, per-file ignores) -> (settings, codes): the selection of most files of a
# run is the same and is computed once (the settings object is kept so that its id stays its own)
_ENABLED: dict[tuple[object, ...], tuple[Settings, frozenset[int]]] = {}


def enabled_codes(settings: Settings, request: Request, path: Path) -> frozenset[int]:
    if request.mode == "compile":
        return C_RULES
    from axag.lint.selection import per_file_ignored, selected_codes

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
    # a rule that needs an option (its declaration's `needs`) does not run without it
    absent = {need for need, given in (("manifest", request.manifest), ("enforced-intents", request.enforced_intents),
                                       ("openapi", request.openapi)) if given is None}
    if absent:
        codes = codes - {code for code, meta in RULES.items() if meta.info.needs in absent}
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


def check_file(path: Path, display: str, repo_path: str, settings: Settings, request: Request,
               data: bytes | None = None) -> FileOutcome:
    out = FileOutcome(path=path, display=display, repo_path=repo_path)
    try:
        _check(out, settings, request, data)
    except Exception as exc:
        if isinstance(exc, MessageError) and strict():
            raise  # development: a report that does not fit its message is a bug to see, not a finding 199
        out.internal_error = True
        import traceback

        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        out.findings = [f for f in out.findings if f.code in run_level.FILE_DIAGNOSTICS]
        out.findings.append(run_level.internal_error(detail, out.display, out.repo_path))
        out.contracts = []
    return out


def _at_least_warning(sev: Severity) -> Severity:
    """A file named on the command line that axag skips is worth a warning even when 190 is set to info."""
    return Severity.WARNING if sev is Severity.INFO else sev


def _check(out: FileOutcome, settings: Settings, request: Request, data: bytes | None) -> None:
    from axag.files.source import load

    path = out.path
    if data is None:
        try:
            data = read_whole.read_regular(path)
        except OSError as exc:
            out.read_error = True
            out.findings.append(run_level.unreadable_file(f"cannot read the file: {exc.strerror or exc}", out.display,
                                                    out.repo_path))
            return
        if data is None:  # a FIFO, device or socket named on the command line: reading could block forever
            sev = _severity(run_level.SKIPPED, settings, request)
            if sev is not None:
                out.findings.append(run_level.skipped_file("not a regular file", out.display, out.repo_path, sev))
            return
    out.size = len(data)
    from axag.files.source import is_read

    if not is_read(path):  # file discovery: a named file of another kind is skipped with a warning
        sev = _severity(run_level.SKIPPED, settings, request)
        if sev is not None:
            out.findings.append(run_level.skipped_file(f"axag does not read {path.suffix or 'extension-less'} files",
                                                 out.display, out.repo_path, _at_least_warning(sev)))
        return
    src = load(path, data)
    if isinstance(src, str):
        sev = _severity(run_level.SKIPPED, settings, request)
        if sev is not None:
            out.findings.append(run_level.skipped_file("not a text file (it contains NUL bytes)", out.display,
                                                 out.repo_path, sev))
        return
    out.encoding = src.encoding
    out.replaced = src.replaced
    if request.keep_text:
        out.text = src.text
    enabled = enabled_codes(settings, request, path)
    out.ran = enabled
    parse = _parser(src.kind, settings)
    if src.kind == "jsx":
        from axag.parse.jsxtree import GrammarMissing

        try:
            pf = parse(src)
        except GrammarMissing as exc:
            sev = _severity(run_level.SKIPPED, settings, request)
            if sev is not None:
                out.findings.append(run_level.skipped_file(str(exc), out.display, out.repo_path, _at_least_warning(sev)))
            return
    else:
        pf = parse(src)
    if pf.root is None and pf.text.strip():
        out.read_error = True
        out.findings.append(run_level.unparsable_file(out.display, out.repo_path))
        return
    findings: list[Finding] = []
    if src.replaced and (sev := _severity(run_level.REPLACED, settings, request)) is not None:
        findings.append(run_level.replaced_bytes(src.encoding, out.display, out.repo_path, sev))
    if pf.root is None:
        out.findings = findings
        return
    from axag.model.actions import build_model
    from axag.rules import load_rules
    from axag.rules.base import RuleCtx, run_rules

    load_rules()
    harvest = settings.harvest if request.harvest is None else request.harvest
    model = build_model(pf, harvest=harvest)
    out.elements, out.actions = len(model.annotated), len(model.actions)
    ctx = RuleCtx(model, enabled, request.manifest, request.manifest_name, request.enforced_intents,
                  openapi=request.openapi, openapi_name=request.openapi_name, compiled=_compiled)
    problems = run_rules(ctx)
    problems.extend(_provided(model, problems, enabled, harvest, parse))
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
        # suppressions never silence C-rule errors in compile (rule levels and selection), except those of the REASONED rules when
        # the suppression gives its reason
        idx = [i for i, f in enumerate(all_findings) if f.severity is not Severity.ERROR or f.code in REASONED]
        others = [all_findings[i] for i in idx]
        kept, suppressed, _unused = apply(others, sup, element_start_lines=[starts[i] for i in idx], ran=enabled)
        kept = [f for f in all_findings if f.severity is Severity.ERROR and f.code not in REASONED] + kept
        kept += [_unreasoned(f) for f in suppressed if f.code in REASONED and not f.justification]
        suppressed = [f for f in suppressed if f.code not in REASONED or f.justification]
        if settings is not None and settings.per_file_ignores:
            # per-file ignores hide C-rule warnings and infos from compile's report, never errors
            from axag.lint.selection import per_file_ignored

            hidden = per_file_ignored(settings, path)
            kept = [f for f in kept if f.severity is Severity.ERROR or f.code not in hidden]
    else:
        kept, suppressed, unused = apply(all_findings, sup, element_start_lines=starts, ran=enabled)
        extra = _suppression_problems(model, enabled, sup, unused) if sup is not None else []
        more = [f for f, _ in _fingerprint(out, _to_findings(out, pf, extra, enabled, settings, request, {}))]
        kept.extend(more)
    out.findings = sorted(findings + kept, key=Finding.sort_key)
    out.suppressed = sorted(suppressed, key=Finding.sort_key)
    only = request.contracts_for(_declared(model)) if request.want_contracts and request.contracts_for else None
    if request.want_contracts and (only is None or only):
        from axag.compile.build import build_contracts

        if request.mode == "compile":
            error_elements = {id(element_of.get(id(f))) for f in kept if f.severity is Severity.ERROR}
        else:
            reasoned = {(f.code, f.start, f.end) for f in suppressed if f.code in REASONED and f.justification}
            lifted = {id(el) for f, el in items if (f.code, f.start, f.end) in reasoned}
            error_elements = _compile_error_elements(out, model, problems, lifted)
        out.contracts, out.dynamic_actions = build_contracts(model, out, request, error_elements, only)
    release_model(model)


def _declared(model: FileModel) -> list[tuple[str, str]]:
    from axag.compile.build import declared_tools

    return declared_tools(model)


def release_model(model: Any) -> None:
    """Break the reference cycles of a file's model once the file is done (each action and its annotated
    element refer to each other; the harvest's per-file state refers to the model), so that reference counting
    frees the page, its lxml tree first, at once: no garbage collection has to find it (`axag.batch.memory`)."""
    for ann in model.annotated:
        ann.action = None
    model.__dict__.clear()


def _parser(kind: str, settings: Settings) -> Callable[[SourceText], ParsedFile]:
    """The parser of a file of ``kind``: JSX (with the configured components) or the markup parser."""
    if kind == "jsx":
        from axag.parse.jsx import parse_jsx

        components = settings.jsx_components if settings is not None else None
        return lambda src: parse_jsx(src, components)
    from axag.parse.document import parse_source

    return parse_source


def _compiled(act: Action) -> tuple[str, str]:
    """The compiled tool name and description of an action (for the webmcp rules, 160 and 164)."""
    from axag.compile.build import describe, tool_name

    return tool_name(act), "\n".join(describe(act))


def _provided(model: FileModel, problems: list[Problem], enabled: frozenset[int], harvest: bool,
              parse: Callable[[SourceText], ParsedFile]) -> list[Problem]:
    """The fix providers, run after the rules on their problems: today the legacy `axag-constraints` migration
    (rule 101: the count N and the fix of each attribute's problem, one problem per entry left to migrate by
    hand), imported for pages with legacy attributes only. It verifies its candidates on models built as this
    one was (``harvest``, ``parse``)."""
    if 101 not in enabled or not any(ann.legacy for ann in model.annotated):
        return []
    from axag.lint.migrate import provide

    return provide(model, problems, harvest=harvest, parse=parse)


def _suppression_problems(model: FileModel, enabled: frozenset[int], sup: Any, unused: list[Unused]) -> list[Problem]:
    """What the rules make of the file's suppression comments: the malformed ones, and those that suppress
    nothing (with the edit that removes them)."""
    from axag.files.spans import Span
    from axag.lint import suppress
    from axag.model.facts import Fact, Kind
    from axag.rules.base import RuleCtx
    from axag.rules.facts import judge_facts

    facts = [Fact(Kind.BAD_DIRECTIVE, Span(sp.start, sp.end), None, None, {"problem": sp.problem})
             for sp in sup.problems]
    for item in unused:
        s, e, rep = suppress.removal_edit(item)
        fx = Fix("Remove the unused suppression", (Edit(s, e, rep),))
        facts.append(Fact(Kind.UNUSED_SUPPRESSION, Span(item.start, item.end), None, None,
                          {"code": RULES[item.code].info.id}, fx))
    ctx = RuleCtx(model, enabled)
    judge_facts(ctx, facts)
    return ctx.problems


def _unreasoned(f: Finding) -> Finding:
    """A finding of a REASONED rule suppressed without a reason: compile keeps it, and says what lifts it."""
    from dataclasses import replace

    return replace(f, suppression=None, justification="",
                   help=f"a suppression of {f.id} lifts it in compile only with a reason: -- why")


def _compile_error_elements(out: FileOutcome, model: FileModel, problems: list[Problem],
                            lifted: set[int] | None = None) -> set[int]:
    """The elements that `axag compile` leaves out of the merge (those with a C-rule error), found as compile
    finds them: every C rule at its own severity, whatever lint selects, ignores, overrides or suppresses
    (except the REASONED findings suppressed with a reason: ``lifted`` holds their elements);
    lint merges the same contracts, so its 121/122 equal compile's."""
    from axag.rules.base import RuleCtx, run_rules

    extra = C_RULES - out.ran
    if extra:
        problems = problems + run_rules(RuleCtx(model, extra))
    dropped = _dropped_secondaries(problems, C_RULES)
    return {id(p.element) for p in problems if p.code in C_RULES and id(p) not in dropped
            and not (p.code in REASONED and lifted and id(p.element) in lifted)
            and (p.severity or RULES[p.code].info.severity) is Severity.ERROR}


# every comment of the markup syntaxes `lint.suppress` reads directives from (HTML, Jinja, Handlebars, Liquid)
# matches (JSX files, whose comments are code comments, are always read)
_TEMPLATE_OPENER = re.compile(r"\{[#{%]")


def has_comment_opener(text: str) -> bool:
    """Whether ``text`` holds ``<!--``, ``{#``, ``{{`` or ``{%``: substring scans, a few times faster on a big
    page than one regex alternation (which has no literal prefix to scan for)."""
    return "<!--" in text or ("{" in text and _TEMPLATE_OPENER.search(text) is not None)


def _no_directives(findings: list[Finding], sup: None, *, element_start_lines: list[int | None],
                   ran: frozenset[int]) -> tuple[list[Finding], list[Finding], list[Unused]]:
    """`suppress.apply` for a file without comments: everything kept, nothing suppressed or unused."""
    return list(findings), [], []


def _severity(code: int, settings: Settings, request: Request) -> Severity | None:
    meta = RULES[code]
    if request.mode == "compile":
        return meta.info.severity
    overrides: dict[int, Severity | None] = settings.severity_overrides() if settings is not None else {}
    if code in overrides:
        return overrides[code]
    return meta.info.severity


def _anchor(element: Element | None, intents: dict[int, str]) -> str:
    """output formats: the element's valid intent, else its tag plus #id, else its tag; "" off elements."""
    if element is None:
        return ""
    intent = intents.get(id(element))
    if intent:
        return intent
    ident = element.get("id")
    return f"{element.tag}#{ident}" if ident else element.tag


Item = tuple[Finding, "Element | None"]


def _to_findings(out: FileOutcome, pf: ParsedFile, problems: list[Problem], enabled: frozenset[int],
                 settings: Settings, request: Request, intents: dict[int, str]) -> list[Item]:
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
    """Ids of the secondaries whose primary fires at the same element and is in effect (one finding per problem)."""
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
    """Fingerprints (output formats): occurrence = index among findings with the same code, path, anchor and
    attribute, in file order."""
    counts: dict[tuple[int, str, str | None], int] = {}
    result: list[Item] = []
    for f, el in items:
        k = (f.code, f.anchor, f.attribute)
        occ = counts.get(k, 0)
        counts[k] = occ + 1
        result.append((replace(f, fingerprint=fingerprint(f.code, out.repo_path, f.anchor, f.attribute, occ)), el))
    return result


def _make(out: FileOutcome, pf: ParsedFile, p: Problem, settings: Settings, request: Request,
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
    message = sys.intern(p.message or meta.format(p.index, **args))
    lines = pf.lines
    start = min(max(p.span.start, 0), len(pf.text))
    end = min(max(p.span.end, start), len(pf.text))
    line, col = lines.position(start)
    eline, ecol = lines.position(end)
    fix = _resolve_fix(p.fix, lines) if p.fix is not None and request.mode == "lint" else None
    path, repo_path = out.display, out.repo_path
    if pf.src.kind == "jsx":
        from axag.lint.origins import elsewhere, touches

        if fix is not None and pf.frozen and touches(fix, pf.frozen, pf.rewritable):
            fix = None  # JSX: fixes never edit an expression
        other = elsewhere(p, out.path, (out.display, out.repo_path))
        if other is not None:  # a value of an `axag={spec}` object written in another file
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
    return Fix(fx.description, tuple(edits), fx.unsafe)


def display_path(path: Path, cwd: Path) -> str:
    try:
        return relpath_posix(path, cwd)
    except ValueError:
        return path.as_posix()
