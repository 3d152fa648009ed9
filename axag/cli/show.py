"""`--show-files` and `--show-settings` of `axag lint` and `axag compile`, as ruff has them: the files a run
would read, one a line, and the settings that apply to a file, one `key = value` a line (TOML values)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from axag.cli.common import echo
from axag.outcome.findings import full_code

if TYPE_CHECKING:
    from axag.config.settings import Settings

__all__ = ["show_files", "show_settings"]


def show_files(files: Iterable[Path], cwd: Path) -> None:
    from axag.lint.engine import display_path

    for path in files:
        echo(display_path(path, cwd))


def _value(value: Any) -> Any:
    """A setting as a JSON/TOML value: paths as text, sets sorted, rule codes as `AXAG-LINT-NNN`."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Path):
        return value.as_posix()
    if isinstance(value, frozenset):
        return sorted(full_code(v) if isinstance(v, int) else _value(v) for v in value)
    if isinstance(value, tuple):
        if value and all(isinstance(v, tuple) and len(v) == 2 for v in value):  # pairs: a table
            return {full_code(k) if isinstance(k, int) else str(k): "off" if v is None else _value(v) for k, v in value}
        return [_value(v) for v in value]
    return value


def show_settings(target: str, settings: Settings, extra: dict[str, Any]) -> None:
    """The settings of ``target`` (a file, as the user would name it): where they come from, then every
    field of ``settings`` and the ``extra`` lines (what the command-line options make of them, such as the
    rules that run)."""
    echo(f"Resolved settings for: {target}")
    echo(f"Settings path: {settings.config_path.as_posix() if settings.config_path else '(none: defaults)'}")
    echo("")
    rows = {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings) if f.name != "config_path"}
    rows.update(extra)
    for name, value in rows.items():
        shown = _value(value)
        echo(f"{name.replace('_', '-')} = {'(none)' if shown is None else json.dumps(shown, ensure_ascii=False)}")
