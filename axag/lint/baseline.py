"""Baseline files (the baseline): fingerprints of accepted findings, hidden from later runs.

File: ``{"version": 1, "findings": [{"code", "path", "fingerprint"}]}`` sorted by path, code, fingerprint,
serialised as in determinism and serialisation. Entries match findings by code, repository-relative path and fingerprint.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from axag.files.depends import note
from axag.outcome.errors import InputError
from axag.outcome.findings import Finding

JUSTIFICATION = "recorded in the baseline"
_CODE_RE = re.compile(r"AXAG-LINT-[0-9]{3}")
_FINGERPRINT_RE = re.compile(r"[0-9a-f]{16}")


class Entry(NamedTuple):
    """One recorded finding; tuple order is the file's sort order (path, code, fingerprint)."""

    path: str
    code: str
    fingerprint: str


def entry(f: Finding) -> Entry:
    return Entry((f.repo_path or f.path).replace("\\", "/"), f.id, f.fingerprint)


def load(path: str | os.PathLike[str], *, missing_ok: bool = False) -> set[Entry]:
    """Read a baseline; a missing file (unless ``missing_ok``) or a malformed one raises ``InputError``."""
    target = Path(path)
    try:
        raw = target.read_bytes()
    except FileNotFoundError:
        if missing_ok:
            note(target, None)
            return set()
        raise InputError(f"baseline file {target} does not exist (create it with --update-baseline)") from None
    except OSError as exc:
        raise InputError(f"cannot read baseline file {target}: {exc.strerror or exc}") from exc
    from axag.files.read_json import loads

    note(target, raw)
    return parse(loads(raw, target, "malformed baseline file"), str(target))


def parse(doc: Any, name: str = "baseline") -> set[Entry]:
    def bad(why: str) -> InputError:
        return InputError(f"malformed baseline file {name}: {why}")

    if not isinstance(doc, dict):
        raise bad("expected a JSON object")
    if doc.get("version") != 1 or isinstance(doc.get("version"), bool):
        raise bad('"version" must be 1')
    items = doc.get("findings")
    if not isinstance(items, list):
        raise bad('"findings" must be an array')
    out: set[Entry] = set()
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise bad(f"findings[{i}] must be an object")
        code, file, fp = item.get("code"), item.get("path"), item.get("fingerprint")
        if not isinstance(code, str) or not _CODE_RE.fullmatch(code):
            raise bad(f'findings[{i}].code must be a rule code such as "AXAG-LINT-006"')
        if not isinstance(file, str) or not file:
            raise bad(f"findings[{i}].path must be a non-empty string")
        if not isinstance(fp, str) or not _FINGERPRINT_RE.fullmatch(fp):
            raise bad(f"findings[{i}].fingerprint must be 16 lower-case hex digits")
        out.add(Entry(file, code, fp))
    return out


def apply(findings: Iterable[Finding], baseline: set[Entry]) -> tuple[list[Finding], list[Finding], int]:
    """Split ``findings`` into (kept, suppressed) and count the baseline entries that no longer occur.

    Suppressed findings are marked ``suppression="external"`` with a justification (SARIF, output formats).
    """
    kept: list[Finding] = []
    suppressed: list[Finding] = []
    seen: set[Entry] = set()
    for f in findings:
        key = entry(f)
        if key in baseline:
            seen.add(key)
            suppressed.append(dataclasses.replace(f, suppression="external", justification=JUSTIFICATION))
        else:
            kept.append(f)
    return kept, suppressed, len(baseline - seen)


def render(findings: Iterable[Finding]) -> str:
    """The baseline document for ``findings`` (the baseline, determinism and serialisation); duplicates are written once."""
    entries = sorted({entry(f) for f in findings})
    doc = {
        "version": 1,
        "findings": [{"code": e.code, "path": e.path, "fingerprint": e.fingerprint} for e in entries],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
