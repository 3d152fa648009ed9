"""The annotation as written (SPEC §2, §3.9, §8, §14.4): attribute names (unknown, removed, legacy, repeated,
upper case), the `axag` shorthand, JSON values cut by the HTML parser, and values a template computes. The
model records these as facts while it reads each element (`axag.model.actions`); these rules judge them."""

from __future__ import annotations

from axag.findings import Severity
from axag.model.facts import Fact, Kind
from axag.rules.base import RuleCtx, rule
from axag.rules.facts import emit, judge, judges

judge(27, Kind.MACRO_SYNTAX)
judge(28, Kind.MACRO_CONFLICT)
judge(100, Kind.UNKNOWN_ATTRIBUTE)
judge(101, Kind.LEGACY_CONSTRAINTS)
judge(102, Kind.REMOVED_ATTRIBUTE)
judge(104, Kind.SKIP_ATTRIBUTE)
judge(131, Kind.ATTRIBUTE_CASE)
judge(132, Kind.REPEATED_ATTRIBUTE)
judge(134, Kind.DAMAGED_JSON)


@judges(101, Kind.LEGACY_ENTRY)
def legacy_entry(ctx: RuleCtx, fact: Fact) -> None:
    """An `axag-constraints` entry that the migration leaves for a person, and why."""
    message = f'axag-constraints entry "{fact.args["entry"]}": manual migration needed: {fact.args["_reason"]}'
    emit(ctx, 101, fact, message=message)


@rule(33, "file")
def dynamic_values(ctx: RuleCtx) -> None:
    """Attributes whose value a template computes: an info, or a warning when the action is left out (§3.9)."""
    for ann in ctx.model.annotated:
        if not ann.dynamic_attrs:
            continue
        excluded = ann.action is not None and ann.action.dynamic
        attrs = ", ".join(dict.fromkeys(ann.dynamic_attrs))
        ctx.report(33, ann.element.tag_span, ann.element, None, tag=ann.element.tag, attrs=attrs, opt=excluded,
                   severity=Severity.WARNING if excluded else Severity.INFO)
