"""Edits on annotation attribute spans (fixes): quoting, escaping and placement are decided here."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from axag.outcome.findings import Edit, Fix
from axag.parse.document import Attr, Element

if TYPE_CHECKING:
    from axag.values.jsonspan import JsonDoc


def quote_value(value: str, quote: str | None) -> str:
    """Quote ``value`` for an attribute, keeping ``quote`` (unquoted/valueless originals get `"`,
    or `'` when the value contains `"` and no `'`). `&` and the quote character are escaped."""
    q = quote if quote in ('"', "'") else ("'" if '"' in value and "'" not in value else '"')
    return f"{q}{escape_in_value(value, q)}{q}"


def escape_in_value(text: str, quote: str) -> str:
    """``text`` as written inside a value quoted with ``quote``: `&` and that quote character escaped."""
    body = text.replace("&", "&amp;")
    return body.replace('"', "&quot;") if quote == '"' else body.replace("'", "&#39;")


def js_string_body(value: str, quote: str) -> str:
    """``value`` as written between ``quote`` characters in JavaScript (backslash, the quote, line breaks and,
    in a template literal, ``${`` escaped)."""
    body = value.replace("\\", "\\\\").replace(quote, "\\" + quote)
    body = body.replace("\n", "\\n").replace("\r", "\\r").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return body.replace("${", "\\${") if quote == "`" else body


def replace_value(attr: Attr, new_value: str, *, requote: bool = False) -> Edit:
    """Rewrite an attribute's value (the whole `name=value` part after the name). ``requote``: choose the
    quote as for an unquoted original (for values whose quoting was the problem, 134)."""
    if attr.js_quote is not None:  # the body of a JavaScript string literal (JSX): only its characters change
        return Edit(attr.value_span.start, attr.value_span.end, js_string_body(new_value, attr.js_quote))
    quote = None if requote else attr.quote
    if attr.quote in ('"', "'"):
        start = attr.value_span.start - 1
        end = attr.value_span.end + (1 if attr.closed else 0)
    elif attr.quote == "":
        start, end = attr.value_span.start, attr.value_span.end
    else:
        return Edit(attr.name_span.end, attr.name_span.end, "=" + quote_value(new_value, None))
    return Edit(start, end, quote_value(new_value, quote))


def attribute_extent(attr: Attr) -> tuple[int, int]:
    """Offsets of `name[=value]` including the closing quote."""
    if attr.quote in ('"', "'"):
        end = attr.value_span.end + (1 if attr.closed else 0)
    elif attr.quote == "":
        end = attr.value_span.end
    else:
        end = attr.name_span.end
    return attr.name_span.start, end


def remove_attribute(attr: Attr, text: str) -> Edit:
    """Delete an attribute together with the whitespace before it (or after it when it comes first)."""
    start, end = attribute_extent(attr)
    s = start
    while s > 0 and text[s - 1] in " \t":
        s -= 1
    if s > 0 and text[s - 1] in "\r\n":
        # the attribute sits on its own line: remove the whole line including its break
        e = end
        while e < len(text) and text[e] in " \t":
            e += 1
        if e < len(text) and text[e] in "\r\n":
            e += 2 if text.startswith("\r\n", e) else 1
            return Edit(s, e, "")
        # the tag goes on after it on the same line (e.g. its '>'): join that to the previous line, so
        # that no line is left holding only '>'
        p = s - 1  # the line break before the attribute's line (LF, CRLF or CR)
        if text[p] == "\n" and p > 0 and text[p - 1] == "\r":
            p -= 1
        while p > 0 and text[p - 1] in " \t":
            p -= 1
        return Edit(p, end, "")
    return Edit(s, end, "")


def insert_attribute_after(element: Element, after: Attr | None, name: str, value: str, text: str,
                           line_ending: str | None = None) -> Edit:
    """Insert `name="value"` right after ``after`` (or after the tag name): on the same line, or on a
    new line with the same indentation when the start tag has one attribute per line."""
    if after is not None:
        pos = attribute_extent(after)[1]
        anchor_start = after.name_span.start
    else:
        pos = element.tag_span.end
        anchor_start = element.tag_span.end
    rendered = f"{name}={quote_value(value, None)}"
    if line_ending is None:
        line_ending = "\r\n" if "\r\n" in text[element.start:element.end] else "\n"
    if element.raw is not None and after is not None and element.raw.attrs:
        attrs = element.raw.attrs
        lines = [text.count("\n", element.start, a.name_start) for a in attrs]
        if max(lines) > 0:  # the attributes wrap: the new one goes on a line of its own, as they are laid out
            here = text.count("\n", element.start, anchor_start)
            # indented like the first attribute of ``after``'s line, or of the first wrapped line when
            # ``after`` shares the tag name's line
            ref_line = here if here > 0 else min(n for n in lines if n > 0)
            ref = attrs[lines.index(ref_line)].name_start
            indent = text[text.rfind("\n", 0, ref) + 1:ref]
            if indent.strip() == "":
                same_line = [a for a, n in zip(attrs, lines, strict=True) if n == here and a.name_start >= anchor_start]
                if same_line:  # after the last attribute of that line, so that no line is split
                    pos = max(pos, max(a.value_end + (1 if a.quote in ('"', "'") and a.closed else 0)
                                       if a.quote is not None else a.name_end for a in same_line))
                return Edit(pos, pos, f"{line_ending}{indent}{rendered}")
    return Edit(pos, pos, f" {rendered}")


def rewritten_json(text: str, line_ending: str, attr: Attr, value: Any, first_item: tuple[int, int] | None,
                   compact: Callable[[Any], str]) -> str:
    """The new JSON text of an attribute value (fixes): ``compact(value)`` when the original value had no line
    break (or ``value`` is not a non-empty array or object); otherwise one top-level item (array item or object
    member) per line, indented like the original first item (``first_item``: its span in the value, if known),
    the closing bracket indented like the attribute name in ``text``, with ``line_ending``."""
    raw = attr.value
    if ("\n" not in raw and "\r" not in raw) or not isinstance(value, (list, dict)) or not value:
        return compact(value)
    name_start = attr.name_span.start
    line_start = max(text.rfind("\n", 0, name_start), text.rfind("\r", 0, name_start)) + 1
    name_indent = ""
    for ch in text[line_start:name_start]:
        if ch not in " \t":
            break
        name_indent += ch
    indent: str | None = None
    if first_item is not None:
        s = first_item[0]
        ls = max(raw.rfind("\n", 0, s), raw.rfind("\r", 0, s)) + 1
        if ls > 0 and raw[ls:s].strip(" \t") == "":
            indent = raw[ls:s]
    if indent is None:
        indent = name_indent + "  "
    if isinstance(value, list):
        body = ("," + line_ending).join(indent + compact(item) for item in value)
        return "[" + line_ending + body + line_ending + name_indent + "]"
    body = ("," + line_ending).join(indent + compact(k) + ":" + compact(v) for k, v in value.items())
    return "{" + line_ending + body + line_ending + name_indent + "}"


def render_json(text: str, line_ending: str, attr: Attr, value: Any, doc: JsonDoc | None,
                compact: Callable[[Any], str], *, objects: bool = True) -> str:
    """The new JSON text of ``attr`` holding ``value`` (`rewritten_json`), indented like the first item of its
    current value ``doc`` (its first array item, or with ``objects`` its first object key). Without ``objects``,
    an object (anything but an array) is always written by ``compact``."""
    if not objects and not isinstance(value, list):
        return compact(value)
    first: tuple[int, int] | None = None
    if doc is not None:
        try:
            if isinstance(doc.value, list) and doc.value:
                first = doc.span((0,))
            elif objects and isinstance(doc.value, dict) and doc.value:
                first = doc.key_span((next(iter(doc.value)),))
        except (KeyError, ValueError):
            first = None
    return rewritten_json(text, line_ending, attr, value, first, compact)


def fix(description: str, *edits: Edit, unsafe: bool = False) -> Fix:
    return Fix(description, tuple(sorted(edits, key=lambda e: (e.start, e.end))), unsafe)


def apply_text(text: str, edits: list[Edit]) -> str:
    """Apply sorted, non-overlapping ``edits`` to ``text``: the one text applier, used by the fix loop
    (`axag.lint.fix`) and by the migration's verification of its candidates (`axag.lint.migrate`)."""
    out: list[str] = []
    pos = 0
    for e in edits:
        out.append(text[pos:e.start])
        out.append(e.content)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)
