"""The target an existing tools file was compiled for (`axag compile --check`): read from the file's
own `$schema` (the manifest has none: its `conformance` and `actions` keys tell it), and whether an OpenAI file is
strict. Nothing here raises: a file that cannot be read or recognised has no recorded target."""

from __future__ import annotations

import json
import os
from typing import Any

__all__ = ["describe", "recorded_target"]


def recorded_target(path: str | os.PathLike[str]) -> tuple[str, bool] | None:
    """``(target, strict)`` of the document at ``path``, or ``None`` when it is missing or not recognised."""
    from axag.compile.targets import declared

    try:
        with open(path, "rb") as fh:
            doc: Any = json.loads(fh.read().decode("utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(doc, dict):
        return None
    target = next((t for t in declared() if t.recorded(doc)), None)
    if target is None:
        return None
    return target.name, target.strict_in is not None and target.strict_in(doc)


def describe(target: str, strict: bool) -> str:
    """The command-line options that select ``target``: ``--target openai --strict``."""
    return f"--target {target}" + (" --strict" if strict else "")
