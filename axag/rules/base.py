"""Rule registry: semantic checks over the model. A rule's metadata is its declaration
(`axag.rules.declare.Rule`, indexed by `axag.rules.catalogue`); its check registers with `@RULE.check(subject)`
and reports with `RULE.report(ctx, …)`.

Subjects: "action" (fn(ctx, action)), "element" (fn(ctx, annotated element)), "file" (fn(ctx)).
What the model observed while it was built (value syntax, parameters, …) is judged by the fact rules
(`axag.rules.facts`), run first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from axag.model.types import Action, FileModel
    from axag.rules.problem import Problem

RuleFn = Callable[..., None]

ACTION_RULES: dict[int, RuleFn] = {}
ELEMENT_RULES: dict[int, RuleFn] = {}
FILE_RULES: dict[int, RuleFn] = {}
_SUBJECTS = {"action": ACTION_RULES, "element": ELEMENT_RULES, "file": FILE_RULES}


def rule(code: int, subject: str = "action") -> Callable[[RuleFn], RuleFn]:
    """Register ``fn`` as the check of rule ``code`` (`Rule.check` calls it with the declared code)."""

    def register(fn: RuleFn) -> RuleFn:
        table = _SUBJECTS[subject]
        if code in table:
            raise RuntimeError(f"rule {code} registered twice")
        table[code] = fn
        return fn

    return register


@dataclass
class RuleCtx:
    model: FileModel
    enabled: frozenset[int]  # codes that run for this file
    manifest: dict[str, Any] | None = None  # parsed manifest (010, 030)
    manifest_name: str = ""
    enforced_intents: frozenset[str] | None = None  # (037)
    openapi: dict[str, dict[str, Any]] | None = None  # operationId -> operation of the --openapi document (149)
    openapi_name: str = ""
    problems: list[Problem] = field(default_factory=list)
    # (compiled tool name, compiled description) of an action, given by the lint engine (the rules sit below
    # compile); None: the webmcp rules that compare with the compiled tool do not run
    compiled: Callable[[Action], tuple[str, str]] | None = None


def run_rules(ctx: RuleCtx) -> list[Problem]:
    """Run every enabled rule over the file model: the fact rules, then the semantic checks."""
    from axag.rules.facts import judge_facts

    model = ctx.model
    judge_facts(ctx)
    for code, fn in sorted(FILE_RULES.items()):
        if code in ctx.enabled:
            fn(ctx)
    element_rules = [f for c, f in sorted(ELEMENT_RULES.items()) if c in ctx.enabled]
    action_rules = [f for c, f in sorted(ACTION_RULES.items()) if c in ctx.enabled]
    for ann in model.annotated:
        for fn in element_rules:
            fn(ctx, ann)
    for act in model.actions:
        if act.dynamic:
            continue
        for fn in action_rules:
            fn(ctx, act)
    return ctx.problems


__all__ = ["RuleCtx", "rule", "run_rules"]
