"""Run rules: findings about a file as a whole or about the run (SPEC §13.10, §14.5, §9.2), not about an
element of a file's model. The engine, the contract merge and the commands find these situations; the
findings, with their rule's metadata, are made here.

190 skipped-file, 191 unreadable-file, 192 unparsable-file, 193 replaced-bytes, 199 internal-error (at line 1,
column 1 of the file); 121 conflicting contracts and 122 tool-name collisions (at the declaring element).
"""

from __future__ import annotations

from axag.findings import Finding, Severity, fingerprint
from axag.rules.catalogue import RULES, format_message

# the run diagnostics that stay when a file fails (the others are dropped with the file's findings)
FILE_DIAGNOSTICS = frozenset({190, 191, 192, 193})
SKIPPED, UNREADABLE, UNPARSABLE, REPLACED, INTERNAL = 190, 191, 192, 193, 199


def _finding(code: int, message: str, path: str, repo_path: str, line: int = 1, column: int = 1, *,
             severity: Severity | None = None, anchor: str = "") -> Finding:
    meta = RULES[code]
    return Finding(code=code, severity=severity or meta.info.severity, message=message, path=path,
                   repo_path=repo_path, line=line, column=column, end_line=line, end_column=column,
                   name=meta.info.name, anchor=anchor, fingerprint=fingerprint(code, repo_path, anchor, None, 0))


def skipped_file(why: str, path: str, repo_path: str, severity: Severity | None = None) -> Finding:
    """190: a file axag does not read (``why``: "not a regular file", …)."""
    return _finding(SKIPPED, f"{why}; skipped", path, repo_path, severity=severity)


def unreadable_file(message: str, path: str, repo_path: str | None = None) -> Finding:
    """191: a file (or a named path) that cannot be read; ``repo_path``, the fingerprint's path, defaults to
    ``path``."""
    return _finding(UNREADABLE, message, path, path if repo_path is None else repo_path)


def unparsable_file(path: str, repo_path: str) -> Finding:
    """192: the HTML parser produced no document."""
    return _finding(UNPARSABLE, "the HTML parser produced no document", path, repo_path)


def replaced_bytes(encoding: str, path: str, repo_path: str, severity: Severity | None = None) -> Finding:
    """193: bytes invalid in the file's encoding were replaced."""
    return _finding(REPLACED, f"bytes invalid in {encoding} were replaced; --fix will not modify this file", path,
                    repo_path, severity=severity)


def internal_error(detail: str, path: str, repo_path: str, *, message: str | None = None) -> Finding:
    """199: checking the file raised ``detail`` (or fixing it failed: the whole ``message``)."""
    return _finding(INTERNAL, message if message is not None else f"internal error: {detail}", path, repo_path)


def _at_element(code: int, path: str, repo_path: str, src: tuple[str, int, int], anchor: str,
                **args: object) -> Finding:
    line, col = src[1], src[2] + 1  # the tag name after '<'
    return _finding(code, format_message(code, **args), path, repo_path, line, col, severity=Severity.ERROR,
                    anchor=anchor)


def conflicting_contract(path: str, repo_path: str, src: tuple[str, int, int], *, intent: str,
                         first: tuple[str, int, int], first_difference: str) -> Finding:
    """121: the intent is declared with another contract at ``first`` (file, line, column)."""
    return _at_element(121, path, repo_path, src, intent, intent=intent, file=first[0], line=first[1],
                       col=first[2], first_difference=first_difference)


def tool_name_collision(path: str, repo_path: str, src: tuple[str, int, int], *, name: str, intent: str,
                        other: str, first: tuple[str, int, int]) -> Finding:
    """122: the tool name of ``intent`` is that of ``other`` too (declared at ``first``)."""
    return _at_element(122, path, repo_path, src, intent, name=name, other=other, file=first[0], line=first[1],
                       col=first[2])


def target_problem(code: int, subject: str, text: str, where: tuple[str, str, int, int] | None,
                   intent: str | None) -> Finding:
    """145 (a manifest mapping that loses something: ``subject`` is the intent, ``text`` what is lost) or 146 (a
    tool strict mode cannot take: ``subject`` is the tool name, ``text`` the reason), as the target reported it;
    at the tool's first source (``where``: path, repo path, line, column), else at line 1 of no file."""
    args: dict[str, object] = {"name": subject, "reason": text} if code == 146 else {"intent": subject, "what": text}
    path, repo, line, col = where if where is not None else ("", "", 1, 1)
    return _finding(code, format_message(code, 0, **args), path, repo, line, col,
                    anchor=intent if intent is not None else subject)
