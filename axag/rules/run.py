"""Run-level rules: compile merge and targets (121, 122, 145, 146), suppression comments (133, 143) and run
diagnostics (190-199), raised by `axag/compile`, `axag/lint` and `axag/commands`.
"""

from __future__ import annotations

from axag.findings import Fixable, Level, Severity
from axag.rules.declare import Rule

# ------------------------------------------------------------------------------------------------
# Declared here, raised where the run knows them: 121, 122 by `compile/merge.py`; 145, 146 by the compile targets
# (`compile/targets/`, worded by `commands/compile.py`); 133, 143, 190-199 by `lint/engine.py` (199 also by
# `lint/fix.py` and `lint/migrate.py`). Issue 13 part C gives them one way to build a finding.


CONFLICTING_DUPLICATE_INTENT = Rule(
    code=121,
    name="conflicting-duplicate-intent",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="§9.2",
    plain=("the same axag-intent declared on several elements with different contracts (parameters, "
           "risk, description, ...): the intent gives no tool until they agree; identical declarations "
           "merge"),
    messages={
        "default": ('"{intent}" is also declared at {file}:{line}:{col} with a different contract '
                    "({first_difference})"),
    },
    fails=(
        "<!-- a.html -->\n"
        '<button axag-intent="cart.add" axag-action-type="write">Add</button>\n'
        "<!-- b.html -->\n"
        "<p>Other page</p>\n"
        '<button axag-intent="cart.add" axag-action-type="read">Add</button>'
    ),
    passes=(
        "<!-- a.html -->\n"
        '<button axag-intent="cart.add" axag-action-type="write">Add</button>\n'
        "<!-- b.html -->\n"
        '<button axag-intent="cart.add" axag-action-type="write">Add</button>'
    ),
)


TOOL_NAME_COLLISION = Rule(
    code=122,
    name="tool-name-collision",
    severity=Severity.ERROR,
    level=Level.BASIC,
    compile=True,
    trigger="§9.2",
    plain=("two intents that give the same tool name (the intent with . replaced by _, or "
           "axag-operation-id), also when they differ only by - and _"),
    messages={
        "default": 'Tool name "{name}" is also produced by "{other}" at {file}:{line}:{col}',
    },
    fails=(
        "<!-- a.html -->\n"
        '<button axag-intent="cart.add" axag-action-type="write" axag-operation-id="add-item">Add</button>\n'
        "<!-- b.html -->\n"
        '<button axag-intent="basket.add" axag-action-type="write" axag-operation-id="add_item">Add</button>'
    ),
    passes=(
        "<!-- a.html -->\n"
        '<button axag-intent="cart.add" axag-action-type="write" axag-operation-id="cart_add">Add</button>\n'
        "<!-- b.html -->\n"
        '<button axag-intent="basket.add" axag-action-type="write">Add</button>'
    ),
)


UNUSED_SUPPRESSION = Rule(
    code=133,
    name="unused-suppression",
    severity=Severity.WARNING,
    level=Level.BASIC,
    fix=Fixable.ALWAYS,
    trigger="§13.8",
    plain="a suppression comment code that suppresses nothing (for a rule that ran)",
    messages={
        "default": "Suppression of {code} matches no finding",
    },
    fails=(
        "<!-- axag-disable-next-line AXAG-LINT-006 -- not needed -->\n"
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">Add</button>'
    ),
    passes=(
        "<!-- axag-disable-next-line AXAG-LINT-007 -- reviewed -->\n"
        '<button axag-intent="cart.add" axag-action-type="write">Add</button>'
    ),
)


MALFORMED_SUPPRESSION = Rule(
    code=143,
    name="malformed-suppression",
    severity=Severity.WARNING,
    level=Level.BASIC,
    trigger="§13.8",
    plain="a suppression comment without codes, with an unknown code or with an unknown directive word",
    messages={
        "default": "Suppression comment {problem}",
    },
    fails=(
        "<!-- axag-disable-next-line -->\n"
        '<button axag-intent="cart.add" axag-action-type="write">Add</button>\n'
        "<!-- axag-disable-next-line AXAG-LINT-999 -->\n"
        '<button axag-intent="cart.add" axag-action-type="write">Add</button>'
    ),
    passes=(
        "<!-- axag-disable-next-line AXAG-LINT-007 -->\n"
        '<button axag-intent="cart.add" axag-action-type="write">Add</button>'
    ),
)


LOSSY_MANIFEST_MAPPING = Rule(
    code=145,
    name="lossy-manifest-mapping",
    severity=Severity.WARNING,
    level=None,
    compile=True,
    trigger="compile `--target manifest` only (§9.9)",
    plain=("compile --target manifest only: a parameter setting the AXAG manifest cannot hold "
           "(multipleOf, exclusive bounds, item counts, some formats)"),
    messages={
        "default": '"{intent}": {what} cannot be represented in the AXAG 1.1 manifest and was dropped',
    },
    fails=(
        '<button axag-intent="slot.book" axag-action-type="write" axag-risk-level="low"\n'
        '  axag-required-parameters=\'[{"name":"start","type":"string","format":"time"}]\'>Book</button>\n'
        "(axag compile --target manifest)"
    ),
    passes=(
        '<button axag-intent="slot.book" axag-action-type="write" axag-risk-level="low"\n'
        '  axag-required-parameters=\'[{"name":"start","type":"string","format":"date"}]\'>Book</button>'
    ),
)


STRICT_MODE_INCOMPATIBLE = Rule(
    code=146,
    name="strict-mode-incompatible",
    severity=Severity.ERROR,
    level=None,
    compile=True,
    trigger="compile `--target openai --strict` only (§9.8)",
    plain=("compile --target openai --strict only: a parameter schema that OpenAI strict mode cannot "
           "express (too deep, too many properties, more than 1000 enum values, an object without "
           "properties or an array without items)"),
    messages={
        "default": '"{name}" cannot be expressed in OpenAI strict mode: {reason}',
    },
    fails=(
        '<button axag-intent="report.run" axag-action-type="read"\n'
        '  axag-required-parameters=\'[{"name":"filter","type":"object"}]\'>Run</button>\n'
        "(axag compile --target openai --strict)"
    ),
    passes=(
        '<button axag-intent="report.run" axag-action-type="read"\n'
        '  axag-required-parameters=\'[{"name":"filter","type":"string"}]\'>Run</button>'
    ),
)


FILE_SKIPPED = Rule(
    code=190,
    name="file-skipped",
    severity=Severity.INFO,
    level=None,
    trigger="not text (contains NUL bytes) or not a supported file; skipped",
    fails="<button>\x00binary</button>",
    passes="<p>text</p>",
)


UNREADABLE_FILE = Rule(
    code=191,
    name="unreadable-file",
    severity=Severity.ERROR,
    level=None,
    compile=True,
    can_disable=False,
    trigger="the file cannot be read (permission, vanished, I/O error); C",
    fails="a file that cannot be read (permissions, vanished during the run)",
    passes="a readable file",
)


PARSE_FAILURE = Rule(
    code=192,
    name="parse-failure",
    severity=Severity.ERROR,
    level=None,
    compile=True,
    can_disable=False,
    trigger="the parser produced no document; C",
    fails="a file from which the HTML parser produces no document",
    passes="any HTML document",
)


ENCODING_REPLACED = Rule(
    code=193,
    name="encoding-replaced",
    severity=Severity.INFO,
    level=None,
    trigger="bytes invalid in the detected encoding were replaced; `--fix` will not modify this file",
    fails=(
        '<meta charset="utf-8">\n'
        "<p>caf�</p>"
    ),
    passes=(
        '<meta charset="utf-8">\n'
        "<p>café</p>"
    ),
)


INTERNAL_ERROR = Rule(
    code=199,
    name="internal-error",
    severity=Severity.ERROR,
    level=None,
    can_disable=False,
    trigger="an exception in axag while processing this file; the run continues and exits 2",
    fails="an exception inside axag while processing a file (please report it)",
    passes="—")
