"""Findings, fixes and rule metadata: the plain data every consumer shares."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self.value]


class Level(str, Enum):
    BASIC = "basic"
    INTERMEDIATE = "intermediate"
    FULL = "full"

    @property
    def rank(self) -> int:
        return _LEVEL_RANK[self.value]


_SEVERITY_RANK = {"error": 2, "warning": 1, "info": 0}
_LEVEL_RANK = {"basic": 0, "intermediate": 1, "full": 2}


class Fixable(str, Enum):
    NEVER = "never"
    SOMETIMES = "sometimes"
    ALWAYS = "always"


def full_code(code: int) -> str:
    """``6`` -> ``AXAG-LINT-006``."""
    return f"AXAG-LINT-{code:03d}"


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """Everything known about a rule; the single source for `axag rule`, SARIF, config validation."""

    code: int
    name: str
    severity: Severity  # default severity (the first one for I/W and E/W rules)
    level: Level | None  # None for compile-only rules (145, 146) and run diagnostics
    compile_check: bool
    fix: Fixable
    message: str  # the (first) message template
    trigger: str = ""
    off_by_default: bool = False
    fails: str = ""  # failing example (HTML)
    passes: str = ""  # passing example (HTML)
    can_disable: bool = True
    needs: str | None = None  # "manifest" | "enforced-intents"

    @property
    def id(self) -> str:
        return full_code(self.code)


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace decoded-text offsets ``[start, end)`` by ``content``; positions are 1-based, end exclusive."""

    start: int
    end: int
    content: str
    start_line: int = 0
    start_column: int = 0
    end_line: int = 0
    end_column: int = 0


@dataclass(frozen=True, slots=True)
class Fix:
    description: str
    edits: tuple[Edit, ...]
    # a did-you-mean fix (an attribute name, a value or a key replaced by the closest known one): applied only
    # with --unsafe-fixes, as ruff's unsafe fixes
    unsafe: bool = False


@dataclass(frozen=True, slots=True)
class Finding:
    """One diagnostic. ``path`` is the display path (relative to the cwd, POSIX separators);
    ``repo_path`` is relative to the repository root (machine formats, fingerprints)."""

    code: int
    severity: Severity
    message: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    name: str = ""
    repo_path: str = ""
    attribute: str | None = None
    anchor: str = ""
    help: str | None = None
    fix: Fix | None = None
    fingerprint: str = ""
    # (line number, text) pairs: one line before, the span's lines, one line after (for `full`).
    context: tuple[tuple[int, str], ...] = ()
    # Offsets into the decoded text (for fixes and suppressions); not part of any output.
    start: int = 0
    end: int = 0
    # Set when the finding is suppressed: "inSource" or "external" (baseline), with the reason.
    suppression: str | None = None
    justification: str = ""

    def __post_init__(self) -> None:
        # a file name that is not valid UTF-8 arrives with surrogate escapes (os.fsdecode); show those bytes as
        # \xHH so that every output format can encode the path
        for attr in ("path", "repo_path"):
            value = getattr(self, attr)
            if not value.isascii() and any("\ud800" <= c <= "\udfff" for c in value):
                object.__setattr__(self, attr, printable_path(value))

    @property
    def id(self) -> str:
        return full_code(self.code)

    @property
    def fixable(self) -> bool:
        """Whether ``--fix`` repairs it (a did-you-mean fix needs ``--unsafe-fixes``)."""
        return self.fix is not None and not self.fix.unsafe

    def sort_key(self) -> tuple[str, int, int, int]:
        return (self.path, self.line, self.column, self.code)

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled as its field values in order (findings cross from worker processes by the thousand; the
        # default form of a slotted dataclass builds a dict per finding)
        return Finding, tuple(getattr(self, name) for name in _FINDING_FIELDS)


_FINDING_FIELDS = tuple(f.name for f in fields(Finding))


def printable_path(value: str) -> str:
    """Surrogate escapes (undecodable file-name bytes) -> ``\\xHH``; any other lone surrogate -> its UTF-8 bytes."""
    try:
        raw = value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = value.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "backslashreplace")


def fingerprint(code: int, repo_path: str, anchor: str, attribute: str | None, occurrence: int) -> str:
    """output formats: first 16 hex digits of SHA-256 over the parts joined by U+001F."""
    import hashlib  # on use: a run served by the result cache computes no fingerprint (cold start)

    text = "\x1f".join([full_code(code), repo_path, anchor, attribute or "", str(occurrence)])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass
class RunReport:
    """What a lint (or compile diagnostics) run hands to reporters."""

    findings: list[Finding] = field(default_factory=list)  # unsuppressed, sorted
    suppressed: list[Finding] = field(default_factory=list)  # inline or baseline suppressed
    rules: list[RuleInfo] = field(default_factory=list)  # the selected rules, sorted by code
    files: int = 0
    elements: int = 0  # annotated elements seen
    actions: int = 0  # actions seen
    paths: list[str] = field(default_factory=list)  # repo-relative paths of every file linted
    fixed: int = 0
    baseline_stale: int = 0
    exit_code: int = 0
    tool_version: str = ""
    unsafe_fixes: bool = False  # --unsafe-fixes: the did-you-mean fixes count as fixable

    def counts(self) -> dict[str, int]:
        """Findings by severity; ``fixable`` by --fix (with --unsafe-fixes when it was given), ``unsafe``
        by --unsafe-fixes only."""
        out = {"errors": 0, "warnings": 0, "infos": 0, "fixable": 0, "unsafe": 0}
        for f in self.findings:
            out[{"error": "errors", "warning": "warnings", "info": "infos"}[f.severity.value]] += 1
            if f.fix is not None:
                out["unsafe" if f.fix.unsafe and not self.unsafe_fixes else "fixable"] += 1
        return out
