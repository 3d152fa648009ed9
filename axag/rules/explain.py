"""What users read about a rule (`axag rule`, SARIF rule descriptions): the catalogue's triggers and fix notes
follow the SPEC tables and cite its sections (§7.3), which users do not have; here the same conditions are
spelt out in plain words (issue 11). `trigger` and `fix_note` fall back to the catalogue text when it cites
nothing."""

from __future__ import annotations

from typing import Final

from axag.rules.catalogue import RULES

__all__ = ["FIX_NOTES", "TRIGGERS", "fix_note", "trigger"]

TRIGGERS: Final[dict[int, str]] = {
    26: "a valid axag-risk-level without the attributes that risk calls for: medium needs "
        "axag-confirmation-required and axag-idempotent; high needs axag-idempotent and axag-preconditions; "
        "critical needs axag-approval-required, axag-approval-roles, axag-idempotent and axag-preconditions "
        "(one finding per missing attribute, except where a more specific rule such as 006 already reports it)",
    27: "the axag macro attribute cannot be read (one finding per syntax error); see docs/vocabulary.md",
    33: "an annotation value written by the template engine ({{ … }}, {% … %}): it is only known when the page "
        "is rendered; a warning when compile has to leave the action out, else information",
    100: "an axag-* attribute that is not in the AXAG 1.1 vocabulary (docs/vocabulary.md lists it); a close "
         "name is suggested",
    103: "axag-action-type is create or mutate (in any case), values of a 1.0 draft; AXAG 1.1 says write",
    113: "a parameter name that is missing, not a string, not a valid name (a letter or _, then letters, digits "
         "or _, at most 64 characters) or reserved (_axag…); or a harvested form-control name longer than 64 "
         "characters after conversion to snake_case",
    115: "a parameter whose keys contradict each other or its type: a keyword for another type (minLength on a "
         "number), min above max, an empty range, enum or const values of the wrong type, repeated enum values, "
         "a nested required name without a property, nesting deeper than 10 levels",
    116: "a default, const or example value of a parameter that breaks the parameter's own constraints",
    117: "a pattern that is not a valid regular expression, or one that Python and JavaScript would read "
         "differently; a warning for the HTML pattern attribute of a form control, which is then ignored",
    118: "a parameter declared twice: the same name twice in one list, or two names that are equal in "
         "snake_case (userId and user_id)",
    119: "two form controls that become the same parameter: different names that are equal in snake_case "
         "(displayName and display-name), or controls of different kinds (a radio and a text field)",
    121: "the same axag-intent declared on several elements with different contracts (parameters, risk, "
         "description, ...): the intent gives no tool until they agree; identical declarations merge",
    122: "two intents that give the same tool name (the intent with . replaced by _, or axag-operation-id), "
         "also when they differ only by - and _",
    123: "a tool name that is not 1 to 64 letters, digits, _ or - starting with a letter or _: an "
         "axag-operation-id with spaces, or an intent longer than 64 characters",
    124: "a relational precondition (docs/preconditions.md) that names something that is not a parameter of the "
         "action, beside one that is",
    125: "an axag-rate-limit that is not COUNT/PERIOD (100/minute); the fix writes the usual spellings (100/h, "
         "10 per minute) in that form",
    126: "an axag-cooldown that is not a number with a unit ms, s, m, h or d (30s); the fix writes the usual "
         "spellings (30 sec, 2 minutes) in that form",
    127: "an axag-approval-count that is not a positive whole number",
    128: "axag-approval-count, axag-approval-roles or axag-confirmation-message without the flag that enables it "
         "(axag-approval-required or axag-confirmation-required set to true)",
    129: "a {{placeholder}} in axag-confirmation-message that names no parameter of the action, or a {{ that "
         "does not start a well-formed placeholder",
    130: 'axag-tenant-boundary="relaxed" inside an element that declares "strict": an inner element cannot '
         "loosen its container's boundary",
    131: "an axag attribute name written with capital letters",
    132: "the same axag attribute twice on one element; the first value is used",
    133: "a suppression comment code that suppresses nothing (for a rule that ran)",
    134: "a JSON attribute value cut at a space or a quote (usually double quotes around JSON that contains "
         "double quotes), when the pieces joined back form valid JSON",
    135: "a precondition that mentions a parameter with a comparison word but does not follow the relational "
         "grammar (docs/preconditions.md): it is kept as a state precondition and nothing checks it",
    136: "a relational precondition that compares values that cannot be compared: a number with a date, a date "
         "with text, a literal of the wrong type",
    137: "axag-scope, axag-tenant-boundary or axag-required-roles on an element that contains no action",
    140: 'an axag-params-from that is not "#" followed by the id of an element in the same file',
    141: "an axag-schema that is not zod:PATH[#EXPORT] or openapi:[PATH#]OPERATION_ID",
    142: "a declared parameter type that differs from the type the form control gives (declared integer, "
         "<input type=\"email\">); the declared type is kept",
    143: "a suppression comment without codes, with an unknown code or with an unknown directive word",
    144: "the same item twice in a list attribute (side effects, roles, preconditions); the later copy is dropped",
    145: "compile --target manifest only: a parameter setting the AXAG manifest cannot hold (multipleOf, "
         "exclusive bounds, item counts, some formats)",
    146: "compile --target openai --strict only: a parameter schema that OpenAI strict mode cannot express "
         "(too deep, too many properties, more than 1000 enum values, an object without properties or an "
         "array without items)",
    147: "an axag-scope lower than the scope inherited from a container; the element's own value is used",
    148: "an <input type=\"file\"> that the browser submits with an action's form (or its axag-params-from "
         "region): an agent cannot supply a file, so the tool is called without it; compile lists it under "
         "unsupported in the tool's HTTP binding, and axag serve sends the form without it",
    149: "with --openapi: an action with axag-operation-id that no form submits is bound to that operation; a "
         "path, query or header parameter or JSON body property of the operation that the action does not "
         "declare, a parameter declared with another type than the operation's (number and integer agree), or "
         "an operation id that the document does not have",
}

FIX_NOTES: Final[dict[int, str]] = {
    101: "the entries with an AXAG 1.1 equivalent move to parameters and preconditions",
    105: "True, 1, yes, on and a valueless attribute become true; False, 0, no, off become false",
    110: "minimum, maximum, min_length … are renamed to min, max, minLength …; a required key moves the "
         "parameter to the right list",
    111: "date, datetime, int, float, bool, str and case variants become the AXAG type (and format)",
    112: "case and _ variants of a known format",
    125: "spaces, case, sec/min/hr and per (10 per minute -> 10/minute)",
    126: "spaces, case and unit words (30 sec -> 30s)",
}


def trigger(code: int) -> str:
    """When rule ``code`` reports, in plain words."""
    return TRIGGERS.get(code) or RULES[code].info.trigger


def fix_note(code: int) -> str:
    """What the fix of rule ``code`` covers when it does not fix every case."""
    return FIX_NOTES.get(code, RULES[code].fix_note)
