"""A rule is one declaration next to its check: `Rule(code=…, name=…, messages={…}, …)`.

Every fact about a rule is one keyword argument: code, name, default severity (and the second severity of
033/117), level, compile flag, fix (never/sometimes/always, with the cases it covers), when it reports (the
SPEC wording and plain words), keyed message templates, a failing and a passing example, and the rules it is
primary to. `axag rule`, SARIF rule metadata, the rule reference docs/rules.md, selection and the engine read the
declarations through the index `axag.rules.catalogue`.

Message templates: ``{name}`` placeholders take the report's keyword arguments; an optional segment
``[; …]`` or ``[ (…)]`` is kept only when every placeholder in it has a value (a segment without placeholders
needs ``opt=True``). Templates are checked when the declaration is made; a report that omits a required
placeholder or passes an unknown one raises `MessageError` in development (``AXAG_STRICT_MESSAGES`` set, as
the test suite does), and is rendered leniently otherwise.

This module imports no parser and no model (a warm run loads every declaration without them).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from axag.outcome.findings import Fix, Fixable, Level, RuleInfo, Severity, full_code
from axag.rules.base import rule

if TYPE_CHECKING:
    from axag.files.spans import Span
    from axag.parse.document import Element
    from axag.rules.base import RuleCtx

__all__ = ["DECLARED", "MATCHES", "MessageError", "Rule", "or_list", "strict", "template_names"]

PLACEHOLDER: Final = re.compile(r"\{([a-z][a-z0-9_]*)\}")
OPTIONAL: Final = re.compile(r"\[(; [^\]]*| \([^\]]*)\]")
# a brace group that looks like a placeholder but is not one ({Name}, {first difference}, {name without end)
_BAD_PLACEHOLDER: Final = re.compile(r"\{(?![a-z][a-z0-9_]*\})[A-Za-z_][^{}]*(\}|$)")
# how a primary matches its secondary at the same element (one finding per problem): the same attribute, the same discriminating
# key (`pair=` of the reports), the same span, or anywhere on the element
MATCHES: Final = ("attr", "key", "span", "element")
STRICT_ENV: Final = "AXAG_STRICT_MESSAGES"
# arguments set by code that words no message of its own: (code, argument). Rule 101's fix provider
# (lint/migrate.py) records the number of entries as "m" beside the worded "entries"
_TOLERATED: Final = frozenset({(101, "m")})

DECLARED: dict[int, Rule] = {}  # code -> declaration, in the order the rule modules declare them


class MessageError(ValueError):
    """A malformed message template, or a report whose arguments do not fit its template."""


@dataclass(frozen=True, slots=True)
class _Template:
    text: str
    names: frozenset[str]  # every placeholder
    required: frozenset[str]  # the placeholders outside optional segments
    flag: bool  # has an optional segment without placeholders (kept with opt=True)


def template_names(text: str) -> frozenset[str]:
    """The placeholder names of a message template."""
    return frozenset(PLACEHOLDER.findall(text))


def _parse(code: int, key: str, text: str) -> _Template:
    bad = _BAD_PLACEHOLDER.search(text)
    if bad is not None:
        raise MessageError(f"{full_code(code)} message {key!r}: {bad.group(0)!r} is not a placeholder "
                           "({lower_case_name})")
    optional: set[str] = set()
    flag = False
    for m in OPTIONAL.finditer(text):
        inner = template_names(m.group(1))
        optional |= inner
        flag = flag or not inner
    rest = OPTIONAL.sub("", text)
    if "[;" in rest or "[ (" in rest:
        raise MessageError(f"{full_code(code)} message {key!r}: an optional segment is not closed")
    names = template_names(text)
    return _Template(text, names, names - (optional - template_names(rest)), flag)


def or_list(values: Iterable[str]) -> str:
    """``a, b or c``: an enumeration of `axag.vocabulary` in a message."""
    items = list(values)
    return ", ".join(items[:-1]) + " or " + items[-1] if len(items) > 1 else "".join(items)


def strict() -> bool:
    """Whether messages are checked strictly (development: ``AXAG_STRICT_MESSAGES`` is set)."""
    return bool(os.environ.get(STRICT_ENV))


@dataclass(frozen=True, kw_only=True, eq=False)
class Rule:
    """The declaration of one rule. Declaring it registers it (`DECLARED`); its check registers with
    `@RULE.check(subject)` and reports with `RULE.report(ctx, span, element, …)`."""

    code: int
    name: str
    severity: Severity
    level: Level | None  # None: compile only (145, 146) and run diagnostics
    trigger: str  # when it reports, as the SPEC tables word it (tests/rules/test_catalogue.py compares)
    plain: str = ""  # the same in plain words for users (`axag rule`, SARIF), when the SPEC wording cites sections
    messages: Mapping[str, str] = field(default_factory=dict)  # key -> template; the first is the summary
    compile: bool = False  # C: an error stops `axag compile`
    # a C-rule error that an inline suppression with a reason (``-- why``) lifts in compile too (150)
    reasoned: bool = False
    fix: Fixable = Fixable.NEVER
    fix_note: str = ""  # which cases the fix covers, as the SPEC tables word it
    fix_plain: str = ""  # the same in plain words, when they differ
    alt_severity: Severity | None = None  # the second severity of 033 and 117
    off: bool = False  # off by default
    can_disable: bool = True
    needs: str | None = None  # the option without which the rule does not run ("manifest", …)
    fails: str = ""  # a failing example (from fixtures/rules/<code>/, see tests/rules/test_rule_examples.py)
    passes: str = ""  # a passing example
    primary_to: Mapping[int, str] = field(default_factory=dict)  # secondary code -> match (MATCHES)
    info: RuleInfo = field(init=False)
    _templates: tuple[_Template, ...] = field(init=False, repr=False)  # in the order of `messages`
    _keys: tuple[str, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.code in DECLARED:
            raise RuntimeError(f"rule {self.code} declared twice")
        for secondary, match in self.primary_to.items():
            if match not in MATCHES:
                raise ValueError(f"{full_code(self.code)} primary to {secondary}: unknown match {match!r}")
        templates = tuple(_parse(self.code, key, text) for key, text in self.messages.items())
        first = next(iter(self.messages.values()), "")
        info = RuleInfo(code=self.code, name=self.name, severity=self.severity, level=self.level,
                        compile_check=self.compile, fix=self.fix, message=first or self.trigger,
                        trigger=self.trigger, off_by_default=self.off, can_disable=self.can_disable,
                        needs=self.needs)
        object.__setattr__(self, "_templates", templates)
        object.__setattr__(self, "_keys", tuple(self.messages))
        object.__setattr__(self, "info", info)
        DECLARED[self.code] = self

    # ------------------------------------------------------------------------------------------- texts
    @property
    def explanation(self) -> str:
        """When the rule reports, in plain words."""
        return self.plain or self.trigger

    @property
    def fix_text(self) -> str:
        """What the fix covers when it does not fix every case, in plain words."""
        return self.fix_plain or self.fix_note

    def position(self, key: str) -> int:
        """The position of message ``key`` among `messages` (what a `Problem` records)."""
        try:
            return self._keys.index(key)
        except ValueError:
            raise MessageError(f"{full_code(self.code)} has no message {key!r}") from None

    def _template(self, key: str | int) -> _Template | None:
        """Message ``key`` (or its position, as a `Problem` records it); None for a rule without messages (its
        findings are worded where they are raised: run diagnostics)."""
        if not self._templates:
            return None
        return self._templates[key if isinstance(key, int) else self.position(key)]

    def placeholders(self, key: str) -> frozenset[str]:
        """The placeholder names of message ``key`` (``opt`` included when it has a segment kept by opt=True)."""
        t = self._templates[self.position(key)]
        return t.names | ({"opt"} if t.flag else set())

    def check_args(self, key: str | int, args: Mapping[str, Any]) -> None:
        """Raise `MessageError` when ``args`` omit a required placeholder of message ``key`` or pass one it
        does not have (None counts as not given; names starting with _ are private to the engine)."""
        t = self._template(key)
        if t is None:
            return
        key = key if isinstance(key, str) else self._keys[key]
        given = {k for k, v in args.items() if v is not None and not k.startswith("_")}
        missing = t.required - given
        unknown = {k for k in given - t.names
                   if (self.code, k) not in _TOLERATED and not (k == "opt" and t.flag)}
        if missing or unknown:
            wrong = [f"missing {sorted(missing)}"] if missing else []
            wrong += [f"unknown {sorted(unknown)}"] if unknown else []
            raise MessageError(f"{full_code(self.code)} message {key!r}: {'; '.join(wrong)}")

    def format(self, key: str | int = 0, /, **args: Any) -> str:
        """Render message ``key`` with ``args`` (see the module docstring)."""
        if strict():
            self.check_args(key, args)
        t = self._template(key)
        template = t.text if t is not None else self.trigger

        def optional(m: re.Match[str]) -> str:
            body = m.group(1)
            names = PLACEHOLDER.findall(body)
            if names:
                return body if all(args.get(n) is not None for n in names) else ""
            return body if args.get("opt") else ""

        template = OPTIONAL.sub(optional, template)
        return PLACEHOLDER.sub(lambda m: str(args[m.group(1)]) if m.group(1) in args else m.group(0), template)

    # ------------------------------------------------------------------------------------------- checks
    def check(self, subject: str = "action") -> Callable[[Callable[..., None]], Callable[..., None]]:
        """Register the decorated function as this rule's check: ``fn(ctx, action)`` for "action",
        ``fn(ctx, annotated)`` for "element", ``fn(ctx)`` for "file"."""
        return rule(self.code, subject)

    def report(self, ctx: RuleCtx, span: Span, element: Element | None, attribute: str | None = None, /, *,
               msg: str = "", fix: Fix | None = None, help: str | None = None,
               severity: Severity | None = None, pair: str | None = None, **args: Any) -> None:
        """Record a finding of this rule at ``span``: message ``msg`` (the first by default) with ``args``;
        ``pair`` is the key a primary and its secondary share (match "key" of `primary_to`)."""
        from axag.rules.problem import Problem

        index = self.position(msg) if msg else 0
        if strict():
            self.check_args(index, args)
        p = Problem(self.code, span, args, element, attribute, fix, help, index, severity)
        if pair is not None:
            p.args["_key"] = pair
        ctx.problems.append(p)
