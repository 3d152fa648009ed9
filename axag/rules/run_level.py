"""Run-level rules: compile merge and targets (121, 122, 145, 146), suppression comments (133, 143) and run
diagnostics (190-199), raised by `axag/compile`, `axag/lint` and `axag/cli`.
"""

from __future__ import annotations

from axag.model.facts import Kind
from axag.outcome.findings import Finding, Fixable, Level, Severity, fingerprint
from axag.rules.declare import Rule
from axag.rules.facts import judge

# ------------------------------------------------------------------------------------------------
# Declared here; found where the run knows them (121, 122 by `compile/merge.py`; 145, 146 by the compile targets;
# 133, 143 from the suppression comments and 190-199 by `lint/engine.py`, 199 also by `lint/fix.py` and
# `batch/workers.py`). The findings are made below (the checks section), from the declarations.


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
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">Add</button>\n'
        "<!-- b.html -->\n"
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">Add</button>'
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
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low" axag-operation-id="cart_add">Add</button>\n'
        "<!-- b.html -->\n"
        '<button axag-intent="basket.add" axag-action-type="write" axag-risk-level="low">Add</button>'
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
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">Add</button>'
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
        '<button axag-intent="cart.add" axag-action-type="write" axag-risk-level="low">Add</button>'
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


# ---------------------------------------------------------------------------------------------- checks
# the suppression comments the engine reads after the other rules ran (`axag.lint.suppress`), recorded as facts
judge(UNUSED_SUPPRESSION, Kind.UNUSED_SUPPRESSION)
judge(MALFORMED_SUPPRESSION, Kind.BAD_DIRECTIVE)

# the findings of the run rules, made here for the engine, the fix loop, the contract merge and the commands
FILE_DIAGNOSTICS = frozenset({190, 191, 192, 193})  # they stay when checking the file fails (199)
SKIPPED, UNREADABLE, REPLACED = FILE_SKIPPED.code, UNREADABLE_FILE.code, ENCODING_REPLACED.code


def _finding(rule: Rule, message: str, path: str, repo_path: str, line: int = 1, column: int = 1, *,
             severity: Severity | None = None, anchor: str = "") -> Finding:
    code = rule.code
    return Finding(code=code, severity=severity or rule.severity, message=message, path=path, repo_path=repo_path,
                   line=line, column=column, end_line=line, end_column=column, name=rule.name, anchor=anchor,
                   fingerprint=fingerprint(code, repo_path, anchor, None, 0))


def skipped_file(why: str, path: str, repo_path: str, severity: Severity | None = None) -> Finding:
    """190: a file axag does not read (``why``: "not a regular file", …), at line 1, column 1."""
    return _finding(FILE_SKIPPED, f"{why}; skipped", path, repo_path, severity=severity)


def unreadable_file(message: str, path: str, repo_path: str | None = None) -> Finding:
    """191: a file (or a named path) that cannot be read; ``repo_path``, the fingerprint's path, defaults to
    ``path``."""
    return _finding(UNREADABLE_FILE, message, path, path if repo_path is None else repo_path)


def unparsable_file(path: str, repo_path: str) -> Finding:
    """192: the HTML parser produced no document."""
    return _finding(PARSE_FAILURE, "the HTML parser produced no document", path, repo_path)


def replaced_bytes(encoding: str, path: str, repo_path: str, severity: Severity | None = None) -> Finding:
    """193: bytes invalid in the file's encoding were replaced."""
    return _finding(ENCODING_REPLACED, f"bytes invalid in {encoding} were replaced; --fix will not modify this file",
                    path, repo_path, severity=severity)


def internal_error(detail: str, path: str, repo_path: str, *, message: str | None = None) -> Finding:
    """199: checking the file raised ``detail`` (or fixing it failed: the whole ``message``)."""
    return _finding(INTERNAL_ERROR, message if message is not None else f"internal error: {detail}", path,
                    repo_path)


def _at_element(rule: Rule, path: str, repo_path: str, src: tuple[str, int, int], anchor: str,
                **args: object) -> Finding:
    line, col = src[1], src[2] + 1  # the tag name after '<'
    return _finding(rule, rule.format("default", **args), path, repo_path, line, col, severity=Severity.ERROR,
                    anchor=anchor)


def conflicting_contract(path: str, repo_path: str, src: tuple[str, int, int], *, intent: str,
                         first: tuple[str, int, int], first_difference: str) -> Finding:
    """121: the intent is declared with another contract at ``first`` (file, line, column)."""
    return _at_element(CONFLICTING_DUPLICATE_INTENT, path, repo_path, src, intent, intent=intent, file=first[0],
                       line=first[1], col=first[2], first_difference=first_difference)


def tool_name_collision(path: str, repo_path: str, src: tuple[str, int, int], *, name: str, intent: str,
                        other: str, first: tuple[str, int, int]) -> Finding:
    """122: the tool name of ``intent`` is that of ``other`` too (declared at ``first``)."""
    return _at_element(TOOL_NAME_COLLISION, path, repo_path, src, intent, name=name, other=other, file=first[0],
                       line=first[1], col=first[2])


def target_problem(kind: Kind, subject: str, text: str, where: tuple[str, str, int, int] | None,
                   intent: str | None) -> Finding:
    """145 (`Kind.LOSSY_MAPPING`: ``subject`` is the intent, ``text`` what the manifest loses) or 146
    (`Kind.STRICT_MODE_INCOMPATIBLE`: ``subject`` is the tool name, ``text`` the reason), as the compile target
    reported it; at the tool's first source (``where``: path, repo path, line, column), else at line 1 of no
    file."""
    if kind is Kind.STRICT_MODE_INCOMPATIBLE:
        rule, message = STRICT_MODE_INCOMPATIBLE, STRICT_MODE_INCOMPATIBLE.format(name=subject, reason=text)
    else:
        rule, message = LOSSY_MANIFEST_MAPPING, LOSSY_MANIFEST_MAPPING.format(intent=subject, what=text)
    path, repo, line, col = where if where is not None else ("", "", 1, 1)
    return _finding(rule, message, path, repo, line, col, anchor=intent if intent is not None else subject)
