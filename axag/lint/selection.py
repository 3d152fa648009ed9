"""Rule selection and severities for a file (rule levels and selection): the configuration order of
``select``, ``extend-select``, ``ignore``, ``per-file-ignores``, ``severity`` overrides and the level, applied the
same way by every consumer."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from axag.files.globs import compiled, relative_posix
from axag.outcome.errors import UsageError
from axag.outcome.findings import Level, Severity
from axag.rules.catalogue import RULES
from axag.rules.codes import resolve_codes

if TYPE_CHECKING:
    from axag.config.settings import Settings

def default_selection() -> frozenset[int]:
    return frozenset(c for c, m in RULES.items() if not m.info.off_by_default)


def _cli_codes(value: str | Iterable[str] | None, option: str) -> frozenset[int] | None:
    if value is None:
        return None
    items = [value] if isinstance(value, str) else list(value)
    return resolve_codes(items, option, error=UsageError)


def per_file_ignored(settings: Settings, path: str | os.PathLike[str]) -> frozenset[int]:
    """Codes removed for ``path`` by ``lint.per-file-ignores`` (globs relative to the config's directory)."""
    if not settings.per_file_ignores:
        return frozenset()
    rel = relative_posix(path, settings.base)
    out: set[int] = set()
    for pattern, codes in settings.per_file_ignores:
        if compiled((pattern,))[0].matches(rel):
            out.update(codes)
    return frozenset(out)


def selected_codes(
    settings: Settings,
    cli_select: str | Iterable[str] | None = None,
    cli_ignore: str | Iterable[str] | None = None,
    cli_extend_select: str | Iterable[str] | None = None,
    path: str | os.PathLike[str] | None = None,
    *,
    cli_level: Level | str | None = None,
) -> frozenset[int]:
    """The lint rules selected for ``path`` (configuration order): select (``--select`` replaces the configured
    select, extend-select and ignore; else ``lint.select`` or the default: every rule not marked off; the
    run diagnostics 190-199 are always part of it, so only ``ignore`` & co. remove 190 and 193) →
    extend-select (config, then ``--extend-select``) → ignore (config, then ``--ignore``) →
    per-file-ignores (when ``path`` is given) → ``severity = "off"`` overrides → level (``cli_level`` or
    ``lint.level``; level-less compile-only rules 145/146 never run in lint, run diagnostics 190-199
    pass the level filter). Rules that cannot be disabled (191, 192, 199) are always selected.
    CLI values are comma-separated strings (or several of them); unknown codes raise ``UsageError``.
    Required inputs (010, 030, 037) are the engine's business."""
    select = _cli_codes(cli_select, "--select")
    extend = _cli_codes(cli_extend_select, "--extend-select") or frozenset()
    ignore = _cli_codes(cli_ignore, "--ignore") or frozenset()
    run_diagnostics = {c for c in RULES if c >= 190}
    if select is not None:
        codes = set(select) | run_diagnostics
    else:
        codes = set(settings.select if settings.select is not None else default_selection())
        codes |= run_diagnostics | settings.extend_select
    codes |= extend
    if select is None:
        codes -= settings.ignore
    codes -= ignore
    if path is not None:
        codes -= per_file_ignored(settings, path)
    codes -= {c for c, sev in settings.severity if sev is None}
    level = Level(cli_level) if cli_level is not None else settings.level
    kept = set()
    for code in codes:
        rule_level = RULES[code].info.level
        if rule_level is None:
            if code >= 190:
                kept.add(code)
        elif rule_level.rank <= level.rank:
            kept.add(code)
    kept |= {c for c, m in RULES.items() if not m.info.can_disable}
    return frozenset(kept)


def effective_severity(settings: Settings, code: int, case_severity: Severity | None = None) -> Severity | None:
    """The severity a finding of ``code`` is reported with: the ``lint.severity`` override (``None`` for
    ``off``), else ``case_severity`` (the severity the rule uses in this case, e.g. 033's warning case),
    else the rule's default severity."""
    for c, sev in settings.severity:
        if c == code:
            return sev
    return case_severity if case_severity is not None else RULES[code].info.severity
