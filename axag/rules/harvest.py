"""Form-harvesting rules: unnamed and unlabelled controls, colliding harvested names (029, 032, 119).
"""

from __future__ import annotations

from axag.model.facts import Kind
from axag.outcome.findings import Level, Severity
from axag.rules.declare import Rule
from axag.rules.facts import judge

# ------------------------------------------------------------------------------------------------
# The model records what it observes as facts (`axag.model.facts`); the checks below judge them.


UNNAMED_FORM_CONTROL = Rule(
    code=29,
    name="unnamed-form-control",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    compile=True,
    trigger="control in scope without name (skipped), or with only an `id`",
    messages={
        "default": '<{ctl}> is submitted with "{intent}" but has no name or axag-parameter',
        "id_only": "<{ctl}> has only an id; it is not submitted with the form",
    },
    fails=(
        '<form axag-intent="contact.send" axag-action-type="write">\n'
        '  <input type="email">\n'
        '  <textarea id="message"></textarea>\n'
        '  <input name="subject">\n'
        "  <button>Send</button>\n"
        "</form>"
    ),
    passes=(
        '<form axag-intent="contact.send" axag-action-type="write" axag-risk-level="low">\n'
        '  <input type="email" name="email">\n'
        '  <textarea name="message" id="message"></textarea>\n'
        '  <input type="hidden">\n'
        "  <button>Send</button>\n"
        "</form>"
    ),
)


UNLABELLED_PARAMETER = Rule(
    code=32,
    name="unlabelled-parameter",
    severity=Severity.WARNING,
    level=Level.INTERMEDIATE,
    trigger="harvested parameter without description (at the control)",
    messages={
        "default": ('Parameter "{p}" has no label, aria-label or axag-parameter-description; a '
                    "placeholder is not a label"),
    },
    fails=(
        '<form axag-intent="search.run" axag-action-type="read">\n'
        '  <input name="q" placeholder="Search">\n'
        '  <label for="lim">Limit</label><input id="lim" name="limit" type="number">\n'
        "  <button>Go</button>\n"
        "</form>"
    ),
    passes=(
        '<form axag-intent="search.run" axag-action-type="read">\n'
        '  <label>Query <input name="q" placeholder="Search"></label>\n'
        '  <input name="page" aria-label="Page">\n'
        '  <input name="size" axag-parameter-description="Page size">\n'
        "  <button>Go</button>\n"
        "</form>"
    ),
)


HARVEST_NAME_COLLISION = Rule(
    code=119,
    name="harvest-name-collision",
    severity=Severity.ERROR,
    level=Level.INTERMEDIATE,
    compile=True,
    trigger="§5.3",
    plain=("two form controls that become the same parameter: different names that are equal in "
           "snake_case (displayName and display-name), or controls of different kinds (a radio and a "
           "text field)"),
    messages={
        "default": '<{ctl}> maps to parameter "{p}", already used by <{ctl2}> at line {n}',
    },
    fails=(
        '<form axag-intent="cart.add" axag-action-type="write">\n'
        '  <input name="displayName">\n'
        '  <input name="display-name">\n'
        '  <input type="radio" name="size" value="s">\n'
        '  <input type="checkbox" name="size" value="m">\n'
        "</form>"
    ),
    passes=(
        '<form axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">\n'
        '  <input type="radio" name="size" value="s"><input type="radio" name="size" value="m">\n'
        '  <input name="phone[]"><input name="phone[]">\n'
        "</form>"
    ),
)


# ---------------------------------------------------------------------------------------------- checks
# the facts the model records while it harvests form controls (`axag.model.harvest`), judged here
judge(UNNAMED_FORM_CONTROL, Kind.CONTROL_WITHOUT_NAME)
judge(UNNAMED_FORM_CONTROL, Kind.CONTROL_NAMED_BY_ID, msg="id_only")
judge(UNLABELLED_PARAMETER, Kind.HARVESTED_WITHOUT_DESCRIPTION)
judge(HARVEST_NAME_COLLISION, Kind.CONTROL_NAME_CONFLICT)
