"""Declarative WebMCP in the markup: 160-164, the rule group ``webmcp`` (``--select webmcp``; not in
SPEC.md's tables yet).

A form that carries both vocabularies, ``axag-*`` and WebMCP's ``toolname``/``tooldescription``/
``toolautosubmit``/``toolparamdescription``, is registered twice: by the browser from its declarative attributes
and by axag's compiled tool. These rules keep the two equal and keep the browser from submitting a gated
action without a person. The form is the action element when it is a ``<form>``, else the form that submits it.
164 (off by default) adds the declarative attributes from the annotations: ``toolname`` is the compiled tool
name, ``tooldescription`` the compiled description (what the model reads), ``toolparamdescription`` each
parameter's compiled description; never ``toolautosubmit``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from axag import vocabulary as V
from axag.outcome.findings import Fixable, Level, Severity
from axag.rules.base import RuleCtx
from axag.rules.declare import Rule

if TYPE_CHECKING:
    from axag.files.spans import Span
    from axag.model.types import Action
    from axag.outcome.findings import Edit
    from axag.parse.document import Attr, Element

__all__ = ["GROUP", "GROUP_CODES"]

GROUP: Final = "webmcp"
GROUP_CODES: Final = (160, 161, 162, 163, 164)
TOOLNAME_RE: Final = re.compile(r"[A-Za-z0-9_.-]{1,128}")
GATED_RISKS: Final = tuple(r.name for r in V.RISK_LEVEL_VALUES if r.elevated)  # medium, high, critical

_FORM = ('<form action="/bookings" method="post" axag-intent="booking.create" axag-action-type="write"\n'
         '      axag-risk-level="low" axag-description="Book a room"{extra}>\n'
         '  <label>Guests <input name="guests" type="number"{param}></label>\n'
         "  <button>Book</button>\n"
         "</form>")


def _form(extra: str = "", param: str = "") -> str:
    return _FORM.format(extra=extra, param=param)


TOOLNAME_MISMATCH = Rule(
    code=160,
    name="webmcp-toolname-mismatch",
    severity=Severity.WARNING,
    level=Level.BASIC,
    trigger="a form's toolname differs from the name axag compiles for its action",
    plain=("a form with both vocabularies registers two tools under different names: the browser's declarative "
           "one (toolname) and axag's; the fix writes the compiled name"),
    messages={"default": 'toolname="{written}" differs from the compiled tool name "{name}" of "{intent}"'},
    fix=Fixable.ALWAYS,
    fails=(
        '<form action="/bookings" method="post" axag-intent="booking.create" axag-action-type="write"\n'
        '      axag-risk-level="low" axag-description="Book a room" toolname="book">\n'
        '  <label>Guests <input name="guests" type="number"></label>\n'
        "  <button>Book</button>\n"
        "</form>\n"
        '<form id="f" action="/notes" method="post" toolname="save_notes">\n'
        '  <label>Note <textarea name="body"></textarea></label>\n'
        '  <button axag-intent="note.save" axag-action-type="write" axag-risk-level="low"\n'
        '          axag-description="Save the note">Save</button>\n'
        "</form>"
    ),
    passes=(
        '<form action="/bookings" method="post" axag-intent="booking.create" axag-action-type="write"\n'
        '      axag-risk-level="low" axag-description="Book a room" toolname="booking_create">\n'
        '  <label>Guests <input name="guests" type="number"></label>\n'
        "  <button>Book</button>\n"
        "</form>"
    ),
)

AUTOSUBMIT_GATED = Rule(
    code=161,
    name="webmcp-autosubmit-gated",
    severity=Severity.ERROR,
    level=Level.BASIC,
    trigger="toolautosubmit on a form whose action is risk medium or above, or needs confirmation or approval",
    plain=("toolautosubmit lets the browser submit the form for an agent without a person; an action of risk "
           "medium or above, or one that needs confirmation or approval, must not be submitted that way; the "
           "fix removes the attribute"),
    messages={"default": 'toolautosubmit lets the browser submit "{intent}" without a person, but it {why}'},
    fix=Fixable.ALWAYS,
    fails=(
        '<form action="/bookings" method="post" axag-intent="booking.create" axag-action-type="write"\n'
        '      axag-risk-level="medium" axag-description="Book a room" toolname="booking_create" toolautosubmit>\n'
        '  <label>Guests <input name="guests" type="number"></label>\n'
        "  <button>Book</button>\n"
        "</form>\n"
        '<form action="/notes" method="post" axag-intent="note.delete" axag-action-type="delete" axag-risk-level="low"\n'
        '      axag-confirmation-required="true" axag-description="Delete a note" toolautosubmit="">\n'
        '  <input name="note_id">\n'
        "</form>"
    ),
    passes=(
        '<form action="/s" method="get" axag-intent="site.search" axag-action-type="read" axag-risk-level="none"\n'
        '      axag-description="Search the site" toolname="site_search" toolautosubmit>\n'
        '  <label>Words <input name="q"></label>\n'
        "</form>\n"
        '<form action="/bookings" method="post" axag-intent="booking.create" axag-action-type="write"\n'
        '      axag-risk-level="medium" axag-description="Book a room" toolname="booking_create">\n'
        '  <label>Guests <input name="guests" type="number"></label>\n'
        "</form>"
    ),
)

TOOLNAME_INVALID = Rule(
    code=162,
    name="webmcp-toolname-invalid",
    severity=Severity.ERROR,
    level=Level.BASIC,
    trigger="toolname outside 1-128 characters of [A-Za-z0-9_.-]",
    plain="a WebMCP tool name has 1 to 128 characters, each a letter, digit, underscore, dot or hyphen",
    messages={"default": 'toolname="{written}" is not a WebMCP tool name: 1 to 128 characters of A-Z a-z 0-9 _ . -'},
    fails=(
        '<form action="/s" method="get" axag-intent="site.search" axag-action-type="read" axag-risk-level="none"\n'
        '      axag-description="Search the site" toolname="search the site">\n'
        '  <label>Words <input name="q"></label>\n'
        "</form>\n"
        '<form action="/t" method="get" axag-intent="site.tags" axag-action-type="read" axag-risk-level="none"\n'
        '      axag-description="List the tags" toolname="">\n'
        '  <label>Prefix <input name="p"></label>\n'
        "</form>"
    ),
    passes=(
        '<form action="/s" method="get" axag-intent="site.search" axag-action-type="read" axag-risk-level="none"\n'
        '      axag-description="Search the site" toolname="site.search-v2_beta">\n'
        '  <label>Words <input name="q"></label>\n'
        "</form>"
    ),
)

PARAM_DESCRIPTION_MISMATCH = Rule(
    code=163,
    name="webmcp-param-description-mismatch",
    severity=Severity.WARNING,
    level=Level.BASIC,
    trigger="a control's toolparamdescription differs from its parameter's declared description",
    plain=("the browser describes the parameter with toolparamdescription, axag's tool with the parameter's "
           "description: the model reads two different texts; the fix writes axag's"),
    messages={"default": ('toolparamdescription="{written}" of parameter "{param}" contradicts its declared '
                          'description "{declared}"')},
    fix=Fixable.ALWAYS,
    fails=(
        '<form action="/bookings" method="post" axag-intent="booking.create" axag-action-type="write"\n'
        '      axag-risk-level="low" axag-description="Book a room" toolname="booking_create">\n'
        '  <label>Guests <input name="guests" type="number" toolparamdescription="Number of rooms"></label>\n'
        '  <label>Email <input name="email" type="email" axag-parameter-description="Where the confirmation goes"\n'
        '                      toolparamdescription="Your e-mail"></label>\n'
        "  <button>Book</button>\n"
        "</form>"
    ),
    passes=(
        '<form action="/bookings" method="post" axag-intent="booking.create" axag-action-type="write"\n'
        '      axag-risk-level="low" axag-description="Book a room" toolname="booking_create">\n'
        '  <label>Guests <input name="guests" type="number" toolparamdescription="Guests"></label>\n'
        '  <label>Email <input name="email" type="email" axag-parameter-description="Where the confirmation goes"\n'
        '                      toolparamdescription="Where the confirmation goes"></label>\n'
        "  <button>Book</button>\n"
        "</form>"
    ),
)

DECLARATIVE_MISSING = Rule(
    code=164,
    name="webmcp-declarative-missing",
    severity=Severity.INFO,
    level=Level.FULL,
    off=True,
    trigger="an annotated form without toolname (off by default; the fix adds the declarative WebMCP attributes)",
    plain=("an annotated form that the browser does not offer as a declarative WebMCP tool; the fix adds "
           "toolname, tooldescription and toolparamdescription from the annotations, never toolautosubmit"),
    messages={"default": 'The form of "{intent}" has no toolname: the browser does not offer it as a WebMCP tool'},
    fix=Fixable.ALWAYS,
    fails=(
        '<form action="/s" method="get" axag-intent="site.search" axag-action-type="read" axag-risk-level="none"\n'
        '      axag-description="Search the site">\n'
        '  <label>Words <input name="q" required></label>\n'
        "</form>"
    ),
    passes=(
        '<form action="/s" method="get" axag-intent="site.search" axag-action-type="read" axag-risk-level="none"\n'
        '      axag-description="Search the site" toolname="site_search">\n'
        '  <label>Words <input name="q" required></label>\n'
        "</form>\n"
        '<form id="f" action="/notes" method="post">\n'
        '  <button axag-intent="note.save" axag-action-type="write" axag-risk-level="low"\n'
        '          axag-description="Save the note">Save</button>\n'
        "</form>"
    ),
)


def _form_element(ctx: RuleCtx, act: Action) -> Element | None:
    """The form of the action (the action element or the form that submits it) as a rule element."""
    from axag.model.reach import form_of  # (the rules are declared without the model)
    from axag.parse.document import tag_name

    if act.element.tag == "form":
        return act.element
    form = form_of(ctx.model, act)[1]  # the submitting form, found once per action (`reach`)
    if form is None or tag_name(form) != "form":
        return None
    return ctx.model.pf.element_of(form)


def _plain_attr(ctx: RuleCtx, element: Element, name: str) -> Attr | None:
    """The first ``name`` attribute of ``element`` as written (WebMCP's attributes are not annotations); None at
    once when the file's text holds ``name`` nowhere (most pages carry no WebMCP attribute: their start tags are
    not read again for each action)."""
    if element.raw is None or not _in_file(ctx, name):
        return None
    return _attr_as_written(ctx, element, name)


def _in_file(ctx: RuleCtx, name: str) -> bool:
    """Whether the file holds the ASCII name ``name`` in any case (`SourceText.mentions`, once per file and name):
    a start tag's attribute name, lower-cased, is a part of the file lower-cased."""
    return ctx.model.pf.src.mentions(name)


def _attr_as_written(ctx: RuleCtx, element: Element, name: str) -> Attr | None:
    """`_plain_attr` without the look at the whole text."""
    from axag.files.spans import Span
    from axag.parse.document import Attr
    from axag.parse.entities import decode_attribute

    if element.raw is None:
        return None
    text = ctx.model.pf.text
    for ra in element.raw.attrs:
        if ra.low == name:
            raw = text[ra.value_start:ra.value_end]
            value, offsets = decode_attribute(raw) if ra.quote is not None else ("", None)
            return Attr(name=name, written=ra.written, value=value, raw=raw, quote=ra.quote,
                        name_span=Span(ra.name_start, ra.name_end), value_span=Span(ra.value_start, ra.value_end),
                        offsets=offsets, closed=ra.closed)
    return None


def _span(attr: Attr) -> Span:
    return attr.name_span if attr.valueless else attr.value_span


def _last_attr(ctx: RuleCtx, element: Element) -> Attr | None:
    """The element's last attribute (where new ones go), as written."""
    if element.raw is None or not element.raw.attrs:
        return None
    return _attr_as_written(ctx, element, element.raw.attrs[-1].low)


def _group(ctx: RuleCtx, form: Element, control: Element) -> list[Element]:
    """Where the parameter's toolparamdescription goes: on the control; for a radio group, on the fieldset that
    holds the whole group (where Chromium reads it), else on every radio button of the group."""
    from axag.parse.document import attribute, tag_name

    el = control.el
    if el is None or form.el is None or (attribute(el, "type") or "").lower() != "radio":
        return [control]
    name = attribute(el, "name")
    radios = [r for r in form.el.iter("input") if tag_name(r) == "input"
              and (attribute(r, "type") or "").lower() == "radio" and attribute(r, "name") == name]
    fieldset = next((a for a in el.iterancestors() if tag_name(a) in ("fieldset", "form")), None)
    if fieldset is not None and tag_name(fieldset) == "fieldset" and all(
            fieldset in r.iterancestors() for r in radios):
        return [ctx.model.pf.element_of(fieldset)]
    return [ctx.model.pf.element_of(r) for r in radios]


def _gated(act: Action) -> str | None:
    if act.flag("axag-approval-required") is True:
        return "needs approval"
    if act.flag("axag-confirmation-required") is True:
        return "needs the user's confirmation"
    if act.risk in GATED_RISKS:
        return f"is {act.risk} risk"
    return None


def _text(ctx: RuleCtx) -> str:
    return ctx.model.pf.src.text


def _line_ending(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


@TOOLNAME_MISMATCH.check()
def toolname_checks(ctx: RuleCtx, act: Action) -> None:
    """160 and 162: the form's toolname against the compiled tool name and WebMCP's name grammar."""
    if act.intent is None or act.action_type is None or not _in_file(ctx, "toolname"):
        return
    form = _form_element(ctx, act)
    attr = _plain_attr(ctx, form, "toolname") if form is not None else None
    if form is None or attr is None:
        return
    if not TOOLNAME_RE.fullmatch(attr.value):
        if TOOLNAME_INVALID.code in ctx.enabled:
            TOOLNAME_INVALID.report(ctx, _span(attr), form, "toolname", written=attr.value)
        return
    if ctx.compiled is None:
        return
    from axag.parse.edits import fix, replace_value

    name = ctx.compiled(act)[0]
    if attr.value != name:
        TOOLNAME_MISMATCH.report(ctx, _span(attr), form, "toolname", written=attr.value, name=name,
                                 intent=act.intent,
                                 fix=fix(f'Write toolname="{name}"', replace_value(attr, name)))


@TOOLNAME_INVALID.check()
def toolname_invalid(ctx: RuleCtx, act: Action) -> None:
    """162 alone (160 not selected): reported by `toolname_checks` when both run."""
    if TOOLNAME_MISMATCH.code in ctx.enabled or act.intent is None or not _in_file(ctx, "toolname"):
        return
    form = _form_element(ctx, act)
    attr = _plain_attr(ctx, form, "toolname") if form is not None else None
    if form is not None and attr is not None and not TOOLNAME_RE.fullmatch(attr.value):
        TOOLNAME_INVALID.report(ctx, _span(attr), form, "toolname", written=attr.value)


@AUTOSUBMIT_GATED.check()
def autosubmit_gated(ctx: RuleCtx, act: Action) -> None:
    if act.intent is None or act.action_type is None or not _in_file(ctx, "toolautosubmit"):
        return
    form = _form_element(ctx, act)
    attr = _plain_attr(ctx, form, "toolautosubmit") if form is not None else None
    why = _gated(act) if attr is not None else None
    if form is None or attr is None or why is None:
        return
    from axag.parse.edits import fix, remove_attribute

    AUTOSUBMIT_GATED.report(ctx, attr.name_span, form, "toolautosubmit", intent=act.intent, why=why,
                            fix=fix("Remove toolautosubmit", remove_attribute(attr, _text(ctx))))


@PARAM_DESCRIPTION_MISMATCH.check()
def param_description_mismatch(ctx: RuleCtx, act: Action) -> None:
    if act.intent is None or act.action_type is None or not _in_file(ctx, "toolparamdescription") \
            or _form_element(ctx, act) is None:
        return
    from axag.parse.edits import fix, replace_value

    for p in act.parameters:
        declared = p.schema.get("description")
        attr = _plain_attr(ctx, p.control, "toolparamdescription") if p.control is not None else None
        if attr is None or p.control is None or not isinstance(declared, str) or attr.value == declared:
            continue
        PARAM_DESCRIPTION_MISMATCH.report(
            ctx, _span(attr), p.control, "toolparamdescription", written=attr.value, param=p.name,
            declared=declared, fix=fix("Write the declared description", replace_value(attr, declared)))


@DECLARATIVE_MISSING.check()
def declarative_missing(ctx: RuleCtx, act: Action) -> None:
    if act.intent is None or act.action_type is None:
        return
    form = _form_element(ctx, act)
    if form is None or form is not act.element or _plain_attr(ctx, form, "toolname") is not None:
        return  # only a form that is itself the action: a form holding several actions has no one name
    if ctx.compiled is None:
        return
    from axag.parse.edits import fix, insert_attribute_after

    name, description = ctx.compiled(act)
    text = _text(ctx)
    ending = _line_ending(text)
    after = _last_attr(ctx, form)
    added = insert_attribute_after(form, after, "toolname", name, text, ending)
    if _plain_attr(ctx, form, "tooldescription") is None:  # one insertion: edits at one offset would overlap
        more = insert_attribute_after(form, after, "tooldescription", description, text, ending)
        added = replace(added, content=added.content + more.content)
    edits: list[Edit] = [added]
    for p in act.parameters:
        declared = p.schema.get("description")
        if p.control is None or not isinstance(declared, str) or p.control.el is None or p.control is form:
            continue
        for control in _group(ctx, form, p.control):
            if _plain_attr(ctx, control, "toolparamdescription") is None:
                edits.append(insert_attribute_after(control, _last_attr(ctx, control), "toolparamdescription",
                                                    declared, text, ending))
    DECLARATIVE_MISSING.report(ctx, form.tag_span, form, None, intent=act.intent,
                               fix=fix("Add the declarative WebMCP attributes", *edits))
