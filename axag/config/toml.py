"""Reading a configuration file: the TOML (``.axag.toml``, ``axag.toml`` or ``[tool.axag]`` of
``pyproject.toml``) validated key by key against ``KEYS`` into a ``RawConfig`` (normalised values), with every
mistake a ``ConfigError`` naming the file, the key and the closest known key or value."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from axag.outcome.errors import ConfigError
from axag.outcome.findings import Severity, full_code
from axag.rules.catalogue import RULES
from axag.rules.codes import code_error, parse_code, resolve_codes
from axag.vocabulary import LINT_LEVELS, RISK_LEVELS, did_you_mean

# In one directory, earlier names win (configuration).
CONFIG_NAMES: Final = (".axag.toml", "axag.toml", "pyproject.toml")
FAIL_ON: Final = ("error", "warning")
LOG_FORMATS: Final = ("text", "json")  # `axag serve --log-format`
SEVERITY_VALUES: Final = ("error", "warning", "info", "off")

# Every key of the configuration table, in table order (did-you-mean ties go to the first listed), with its kind.
KEYS: Final[dict[str, str]] = {
    "include": "globs",
    "exclude": "globs",
    "respect-gitignore": "bool",
    "harvest": "bool",
    "lint.select": "codes",
    "lint.ignore": "codes",
    "lint.extend-select": "codes",
    "lint.per-file-ignores": "per-file-ignores",
    "lint.level": "level",
    "lint.severity": "severity",
    "lint.fail-on": "fail-on",
    "lint.output-format": "output-format",
    "lint.manifest": "path",
    "lint.enforced-intents": "path",
    "lint.baseline": "path",
    "compile.paths": "paths",
    "compile.output": "path",
    "compile.target": "target",
    "compile.strict": "bool",
    "compile.root": "path",
    "compile.guards": "path",
    "compile.guards-lang": "guards-lang",
    "jsx.components": "components",
    "serve.base-url": "text",
    "serve.actor": "text",
    "serve.roles": "names",
    "serve.state": "path",
    "serve.value-approval-ttl": "text",
    "serve.max-pending": "count",
    "serve.oauth-issuer": "text",
    "serve.oauth-audience": "text",
    "serve.oauth-scopes": "names",
    "serve.oauth-roles-claim": "text",
    "serve.allow-static-tokens": "bool",

    "serve.public-url": "text",

    "serve.read-only": "bool",
    "serve.max-risk": "risk-level",
    "serve.tools": "globs",
    "serve.exclude-tools": "globs",
    "serve.metrics": "bool",
    "serve.metrics-listen": "text",
    "serve.log-format": "log-format",
}
TABLES: Final = ("lint", "compile", "jsx", "serve")
_ENUMS: Final[dict[str, tuple[str, ...]]] = {
    "level": LINT_LEVELS,
    "fail-on": FAIL_ON,
    "risk-level": RISK_LEVELS,
    "log-format": LOG_FORMATS,
}
_REGISTRY_ENUMS: Final = ("output-format", "target", "guards-lang")


def enum_choices(kind: str) -> tuple[str, ...]:
    """The values a key of ``kind`` accepts. Output formats, compile targets and guard languages come from the
    registries that own them (`axag.report.FORMATS`, `axag.compile.targets.names`, `axag.guards.LANGS`),
    imported on use: a configuration that names no target imports no target module."""
    if kind == "output-format":
        from axag.report import FORMATS

        return tuple(FORMATS)
    if kind == "target":
        from axag.compile.targets import names

        return names()
    if kind == "guards-lang":
        from axag.guards import LANGS

        return LANGS
    return _ENUMS[kind]


@dataclass(frozen=True)
class RawConfig:
    """A validated configuration file. ``values`` maps the dotted configuration keys that the file sets to
    normalised values (globs/paths as tuples of strings, codes as frozensets of ints, severities as
    ``Severity | None`` (``off``), per-file-ignores as ``(glob, codes)`` pairs in file order)."""

    path: Path
    values: Mapping[str, Any] = field(default_factory=dict)

    @property
    def directory(self) -> Path:
        return self.path.parent


def _toml_type(v: object) -> str:
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a float"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "a table"
    return "a date/time"


def _type_error(where: str, key: str, expected: str, value: object) -> ConfigError:
    return ConfigError(f'{where}: "{key}" must be {expected}, not {_toml_type(value)}')


def _key_suggestion(dotted: str, where: str) -> str:
    """``; did you mean `[tool.axag.lint] select`?``: the closest known key, also in another table (a key
    misspelt in the wrong table included), written as the table and key to put in the file at ``where``."""
    s = did_you_mean(dotted, tuple(KEYS))
    if s is None:
        leaf = dotted.rsplit(".", 1)[-1]
        leaves = {k.rsplit(".", 1)[-1] for k in KEYS}
        close = leaf if leaf in leaves else did_you_mean(leaf, sorted(leaves))
        others = [k for k in KEYS if k.rsplit(".", 1)[-1] == close]
        s = others[0] if len(others) == 1 else None
    if s is None:
        return ""
    table, _, key = s.rpartition(".")
    prefix = "tool.axag" if Path(where).name == "pyproject.toml" else ""
    table = ".".join(t for t in (prefix, table) if t)
    return f"; did you mean `[{table}] {key}`?" if table else f"; did you mean `{key}` (at the top level)?"


def _string_list(where: str, key: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise _type_error(where, key, "an array of strings", value)
    return tuple(value)


def _codes(where: str, key: str, value: object) -> frozenset[int]:
    if not isinstance(value, list) or not all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in value):
        raise _type_error(where, key, "an array of rule codes", value)
    tokens = [f"{x:03d}" if isinstance(x, int) else x for x in value]
    try:
        return resolve_codes(tokens, key)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _enum(where: str, key: str, value: object, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str):
        raise _type_error(where, key, "a string", value)
    if value not in allowed:
        s = did_you_mean(value, allowed)
        hint = f'; did you mean "{s}"?' if s else ""
        raise ConfigError(f'{where}: unknown value "{value}" for "{key}" (expected {", ".join(allowed)}){hint}')
    return value


def _validate_value(where: str, key: str, kind: str, value: object) -> object:
    if kind == "bool":
        if not isinstance(value, bool):
            raise _type_error(where, key, "a boolean", value)
        return value
    if kind in ("globs", "paths", "names"):
        return _string_list(where, key, value)
    if kind in ("path", "text"):
        if not isinstance(value, str):
            raise _type_error(where, key, "a string", value)
        return value
    if kind == "count":
        if isinstance(value, bool) or not isinstance(value, int):
            raise _type_error(where, key, "a whole number", value)
        if value < 1:
            raise ConfigError(f'{where}: "{key}" must be at least 1, not {value}')
        return value
    if kind == "codes":
        return _codes(where, key, value)
    if kind in _ENUMS or kind in _REGISTRY_ENUMS:
        return _enum(where, key, value, enum_choices(kind))
    if kind == "per-file-ignores":
        if not isinstance(value, dict):
            raise _type_error(where, key, "a table", value)
        return tuple((glob, _codes(where, f"{key}.{glob}", codes)) for glob, codes in value.items())
    if kind == "components":
        if not isinstance(value, dict):
            raise _type_error(where, key, "a table", value)
        for comp, tag in value.items():
            if not isinstance(tag, str) or not re.fullmatch(r"[a-z][a-z0-9-]*", tag):
                raise ConfigError(f'{where}: "{key}.{comp}" must be an HTML tag name such as "button"')
        return tuple(sorted(value.items()))
    if kind == "severity":
        if not isinstance(value, dict):
            raise _type_error(where, key, "a table", value)
        out: dict[int, Severity | None] = {}
        for token, sev in value.items():
            code = parse_code(token)
            if code is None:
                raise ConfigError(f"{where}: {code_error(token, key)}")
            if not isinstance(sev, str):
                raise _type_error(where, f"{key}.{token}", "a string", sev)
            if sev not in SEVERITY_VALUES:
                s = did_you_mean(sev, SEVERITY_VALUES)
                hint = f'; did you mean "{s}"?' if s else ""
                raise ConfigError(f'{where}: unknown severity "{sev}" in "{key}"{hint}')
            if sev == "off" and not RULES[code].info.can_disable:
                raise ConfigError(f'{where}: {full_code(code)} cannot be disabled (in "{key}")')
            out[code] = None if sev == "off" else Severity(sev)
        return tuple(sorted(out.items()))
    raise AssertionError(kind)  # pragma: no cover


def _validate_table(where: str, table: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, value in table.items():
        if name in TABLES:
            if not isinstance(value, dict):
                raise _type_error(where, name, "a table", value)
            for sub, subvalue in value.items():
                dotted = f"{name}.{sub}"
                if dotted not in KEYS:
                    raise ConfigError(f'{where}: unknown key "{dotted}"{_key_suggestion(dotted, where)}')
                values[dotted] = _validate_value(where, dotted, KEYS[dotted], subvalue)
            continue
        if name not in KEYS:
            raise ConfigError(f'{where}: unknown key "{name}"{_key_suggestion(name, where)}')
        values[name] = _validate_value(where, name, KEYS[name], value)
    return values


def read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # imported when a configuration file is read (cold start)

    from axag.files.read_json import decode_utf8

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    from axag.files.depends import note

    note(path, data)  # a result made with it depends on it
    text = decode_utf8(data, path, "configuration file", ConfigError)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None


def axag_table(path: Path, data: dict[str, Any]) -> dict[str, Any] | None:
    """The configuration table of a parsed file; ``None`` for a pyproject.toml without [tool.axag]."""
    if path.name != "pyproject.toml":
        return data
    tool = data.get("tool")
    if not isinstance(tool, dict) or "axag" not in tool:
        return None
    table = tool["axag"]
    if not isinstance(table, dict):
        raise _type_error(str(path), "tool.axag", "a table", table)
    return table


def load_raw(path: str | os.PathLike[str]) -> RawConfig:
    """Read and validate one configuration file. ``pyproject.toml`` is read from ``[tool.axag]``
    (a missing table raises: use ``find_config`` to skip such files); every other name holds the keys
    at top level. Raises ``ConfigError``."""
    p = Path(os.path.abspath(path))
    table = axag_table(p, read_toml(p))
    if table is None:
        raise ConfigError(f"{p}: no [tool.axag] table")
    return RawConfig(p, _validate_table(str(p), table))
