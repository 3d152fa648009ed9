"""Configuration (configuration, rule levels and selection): ``RawConfig`` (tomllib, validated) → frozen ``Settings``
(paths resolved, codes resolved) → ``Resolver.resolve(path)`` (closest config, cached per directory).

Rule selection (``selected_codes``) and severity overrides (``effective_severity``) live here too, so
that every consumer applies the configuration order the same way.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from axag.files.paths import relpath_posix
from axag.outcome.errors import ConfigError, UsageError
from axag.outcome.findings import Level, Severity, full_code
from axag.rules.catalogue import GROUPS, RULES, lookup
from axag.vocabulary import LINT_LEVELS, RISK_LEVELS, did_you_mean

# In one directory, earlier names win (configuration).
CONFIG_NAMES: Final = (".axag.toml", "axag.toml", "pyproject.toml")

DEFAULT_INCLUDE: Final = ("*.html", "*.htm", "*.jinja", "*.jinja2", "*.j2", "*.njk", "*.hbs", "*.liquid", "*.vue",
                           "*.svelte", "*.astro", "*.jsx", "*.tsx", "*.js", "*.ts")
DEFAULT_EXCLUDE: Final = (
    ".git", "node_modules", ".venv", "venv", ".tox", "__pycache__", ".mypy_cache", ".ruff_cache",
    "bower_components",
)
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
_ALL_NAMES: Final = tuple(m.info.name for m in sorted(RULES.values(), key=lambda m: m.info.code))


# ---------------------------------------------------------------- rule codes


def _suggest(text: str) -> str:
    s = did_you_mean(text.lower(), _ALL_NAMES) if not text.strip().isdigit() else None
    return f'; did you mean "{s}"?' if s else ""


def parse_code(token: str) -> int | None:
    """``AXAG-LINT-006``, ``006``, ``6`` or a rule name → code; ``None`` when unknown (``ALL`` included)."""
    meta = lookup(token)
    return meta.info.code if meta is not None else None


def code_error(token: str, where: str) -> str:
    """``unknown rule "X" in "where"[; did you mean "Y"?]`` (the text of ConfigError/UsageError)."""
    return f'unknown rule "{token}" in "{where}"{_suggest(token)}'


def resolve_codes(tokens: Iterable[str], where: str, *, error: type[Exception] = ConfigError) -> frozenset[int]:
    """Resolve codes, names and ``ALL``; comma-separated tokens are split. Unknown → ``error``."""
    out: set[int] = set()
    for item in tokens:
        for token in re.split(r"[,\s]+", item.strip()):
            if not token:
                continue
            if token.upper() == "ALL":
                out.update(RULES)
                continue
            if token.lower() in GROUPS:  # a rule group: `--select webmcp`
                out.update(GROUPS[token.lower()])
                continue
            code = parse_code(token)
            if code is None:
                raise error(code_error(token, where))
            out.add(code)
    return frozenset(out)


# ---------------------------------------------------------------- globs


@dataclass(frozen=True, slots=True)
class Glob:
    """One configuration glob: ``*`` does not cross ``/``, ``**`` matches any number of directories, a pattern
    without ``/`` matches the base name anywhere; a trailing ``/`` matches directories only; a leading
    ``/`` or ``./`` only anchors."""

    pattern: str
    regex: re.Pattern[str]
    basename: bool
    dir_only: bool

    def matches(self, rel: str, *, is_dir: bool = False, ancestors: bool = True) -> bool:
        """``rel``: POSIX path relative to the directory of the defining file. With ``ancestors``, the
        pattern also matches when it matches a directory containing the path (exclusion semantics)."""
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        if not parts:
            return False
        if parts[0] == "..":
            if not self.basename:
                return False
            while parts and parts[0] == "..":
                parts.pop(0)
            if not parts:
                return False
        first = 1 if ancestors else len(parts)
        for k in range(first, len(parts) + 1):
            this_is_dir = is_dir if k == len(parts) else True
            if self.dir_only and not this_is_dir:
                continue
            subject = parts[k - 1] if self.basename else "/".join(parts[:k])
            if self.regex.fullmatch(subject):
                return True
        return False


def _translate(pat: str) -> str:
    out: list[str] = []
    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "*":
            if pat.startswith("**", i):
                j = i + 2
                if (i == 0 or pat[i - 1] == "/") and (j == n or pat[j] == "/"):
                    if j == n:
                        out.append(".*")
                        i = j
                    else:
                        out.append("(?:[^/]*/)*")
                        i = j + 1
                    continue
                out.append("[^/]*")
                i = j
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and pat[j] in "!^":
                j += 1
            if j < n and pat[j] == "]":
                j += 1
            while j < n and pat[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
            else:
                body = pat[i + 1 : j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pat[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def compile_glob(pattern: str) -> Glob:
    p = pattern.strip()
    dir_only = p.endswith("/") and p.rstrip("/") != ""
    p = p.rstrip("/") if dir_only else p
    anchored = False
    while p.startswith("./"):
        p, anchored = p[2:], True
    if p.startswith("/"):
        p, anchored = p.lstrip("/"), True
    basename = not anchored and "/" not in p
    return Glob(pattern, re.compile(_translate(p), re.DOTALL), basename, dir_only)


def relative_posix(path: str | os.PathLike[str], base: str | os.PathLike[str]) -> str:
    """POSIX path of ``path`` relative to ``base`` (both made absolute without resolving symlinks)."""
    return relpath_posix(os.path.abspath(path), os.path.abspath(base))


def match_any(globs: Iterable[Glob], rel: str, *, is_dir: bool = False, ancestors: bool = True) -> bool:
    return any(g.matches(rel, is_dir=is_dir, ancestors=ancestors) for g in globs)


# ---------------------------------------------------------------- raw configuration


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


def _read_toml(path: Path) -> dict[str, Any]:
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


def _axag_table(path: Path, data: dict[str, Any]) -> dict[str, Any] | None:
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
    table = _axag_table(p, _read_toml(p))
    if table is None:
        raise ConfigError(f"{p}: no [tool.axag] table")
    return RawConfig(p, _validate_table(str(p), table))


# ---------------------------------------------------------------- settings


@dataclass(frozen=True)
class Settings:
    """Resolved settings of one configuration (or the defaults). ``base`` is the directory globs and
    relative paths are resolved against: the config file's directory, else the resolver's cwd.

    ``select`` is ``None`` for the default selection (all rules not marked off). ``severity`` holds
    ``(code, Severity | None)`` overrides (``None`` = ``off``). ``compile_paths`` is ``None`` when not
    configured (the command then uses ``.``, the current directory); ``compile_output`` ``None`` = stdout;
    ``compile_root`` defaults to ``base`` (the project root when these are the run settings)."""

    base: Path
    config_path: Path | None = None
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    respect_gitignore: bool = True
    harvest: bool = True
    select: frozenset[int] | None = None
    ignore: frozenset[int] = frozenset()
    extend_select: frozenset[int] = frozenset()
    per_file_ignores: tuple[tuple[str, frozenset[int]], ...] = ()
    level: Level = Level.FULL
    severity: tuple[tuple[int, Severity | None], ...] = ()
    fail_on: Severity = Severity.ERROR
    output_format: str = "full"
    manifest: Path | None = None
    enforced_intents: Path | None = None
    baseline: Path | None = None
    compile_paths: tuple[Path, ...] | None = None
    compile_output: Path | None = None
    compile_target: str = "mcp"
    compile_target_configured: bool = False  # compile.target is set (not the default)
    compile_strict: bool = False
    compile_root: Path | None = None
    compile_guards: Path | None = None
    compile_guards_lang: str = "python"
    components: tuple[tuple[str, str], ...] = ()  # [tool.axag.jsx] components: component -> HTML tag

    @property
    def jsx_components(self) -> dict[str, str]:
        return dict(self.components)
    serve_base_url: str | None = None  # [serve]: `axag serve` defaults (command-line options win)
    serve_actor: str | None = None
    serve_roles: tuple[str, ...] = ()
    serve_state: Path | str | None = None  # a file (relative to the configuration's folder) or a PostgreSQL URL
    serve_value_approval_ttl: str | None = None
    serve_max_pending: int | None = None
    serve_oauth_issuer: str | None = None  # [serve] OAuth resource server
    serve_oauth_audience: str | None = None
    serve_oauth_scopes: tuple[str, ...] = ()
    serve_oauth_roles_claim: str | None = None
    serve_allow_static_tokens: bool = False

    serve_public_url: str | None = None

    serve_read_only: bool | None = None  # what serve exposes and how it reports
    serve_max_risk: str | None = None
    serve_tools: tuple[str, ...] | None = None
    serve_exclude_tools: tuple[str, ...] | None = None
    serve_metrics: bool | None = None
    serve_metrics_listen: str | None = None
    serve_log_format: str | None = None

    def __post_init__(self) -> None:
        if self.compile_root is None:
            object.__setattr__(self, "compile_root", self.base)

    @property
    def include_globs(self) -> tuple[Glob, ...]:
        return _globs(self.include)

    @property
    def exclude_globs(self) -> tuple[Glob, ...]:
        return _globs(self.exclude)

    def severity_overrides(self) -> dict[int, Severity | None]:
        return dict(self.severity)

    def with_overrides(self, **changes: Any) -> Settings:
        """Command-line options beat configuration: ``dataclasses.replace`` with the given fields."""
        return replace(self, **changes)

    @classmethod
    def from_raw(cls, raw: RawConfig) -> Settings:
        base = raw.directory
        v = raw.values

        def path(key: str) -> Path | None:
            s = v.get(key)
            return None if s is None else _join(base, s)

        output = v.get("compile.output")
        kwargs: dict[str, Any] = {
            "include": v.get("include", DEFAULT_INCLUDE),
            "exclude": v.get("exclude", DEFAULT_EXCLUDE),
            "respect_gitignore": v.get("respect-gitignore", True),
            "harvest": v.get("harvest", True),
            "select": v.get("lint.select"),
            "ignore": v.get("lint.ignore", frozenset()),
            "extend_select": v.get("lint.extend-select", frozenset()),
            "per_file_ignores": v.get("lint.per-file-ignores", ()),
            "level": Level(v.get("lint.level", "full")),
            "severity": v.get("lint.severity", ()),
            "fail_on": Severity(v.get("lint.fail-on", "error")),
            "output_format": v.get("lint.output-format", "full"),
            "manifest": path("lint.manifest"),
            "enforced_intents": path("lint.enforced-intents"),
            "baseline": path("lint.baseline"),
            "compile_paths": (
                tuple(_join(base, s) for s in v["compile.paths"]) if "compile.paths" in v else None
            ),
            "compile_output": None if output in (None, "-") else _join(base, output),
            "compile_target": v.get("compile.target", "mcp"),
            "compile_target_configured": "compile.target" in v,
            "components": v.get("jsx.components", ()),
            "compile_strict": v.get("compile.strict", False),
            "compile_root": path("compile.root"),
            "compile_guards": path("compile.guards"),
            "compile_guards_lang": v.get("compile.guards-lang", "python"),
            "serve_base_url": v.get("serve.base-url"),
            "serve_actor": v.get("serve.actor"),
            "serve_roles": v.get("serve.roles", ()),
            "serve_state": _state(v.get("serve.state"), path("serve.state")),
            "serve_value_approval_ttl": v.get("serve.value-approval-ttl"),
            "serve_max_pending": v.get("serve.max-pending"),
            "serve_oauth_issuer": v.get("serve.oauth-issuer"),
            "serve_oauth_audience": v.get("serve.oauth-audience"),
            "serve_oauth_scopes": v.get("serve.oauth-scopes", ()),
            "serve_oauth_roles_claim": v.get("serve.oauth-roles-claim"),
            "serve_allow_static_tokens": v.get("serve.allow-static-tokens", False),

            "serve_public_url": v.get("serve.public-url"),

            "serve_read_only": v.get("serve.read-only"),
            "serve_max_risk": v.get("serve.max-risk"),
            "serve_tools": v.get("serve.tools"),
            "serve_exclude_tools": v.get("serve.exclude-tools"),
            "serve_metrics": v.get("serve.metrics"),
            "serve_metrics_listen": v.get("serve.metrics-listen"),
            "serve_log_format": v.get("serve.log-format"),
        }
        return cls(base=base, config_path=raw.path, **kwargs)


_GLOB_CACHE: dict[tuple[str, ...], tuple[Glob, ...]] = {}


def _globs(patterns: tuple[str, ...]) -> tuple[Glob, ...]:
    got = _GLOB_CACHE.get(patterns)
    if got is None:
        got = _GLOB_CACHE[patterns] = tuple(compile_glob(p) for p in patterns)
    return got


def _state(value: object, joined: Path | None) -> Path | str | None:
    """[serve] state: a PostgreSQL URL as written, a file relative to the configuration's folder."""
    if isinstance(value, str) and value.startswith(("postgresql://", "postgres://")):
        return value
    return joined


def _join(base: Path, value: str) -> Path:
    return Path(os.path.normpath(os.path.join(base, os.path.expanduser(value))))


# ---------------------------------------------------------------- resolution


def find_config(directory: str | os.PathLike[str]) -> Path | None:
    """The configuration file of one directory (``.axag.toml`` > ``axag.toml`` > ``pyproject.toml``
    with ``[tool.axag]``), or ``None``. Reads pyproject.toml (invalid TOML raises ``ConfigError``)."""
    d = Path(directory)
    for name in CONFIG_NAMES:
        candidate = d / name
        if not candidate.is_file():
            continue
        if name == "pyproject.toml" and _axag_table(candidate, _read_toml(candidate)) is None:
            continue
        return candidate
    return None


class Resolver:
    """Which settings apply to a file (configuration). ``config``: ``--config PATH`` (one file for everything);
    ``isolated``: ``--isolated`` (no configuration). Results are cached per directory; each config file
    is read once."""

    def __init__(
        self,
        cwd: str | os.PathLike[str] | None = None,
        *,
        config: str | os.PathLike[str] | None = None,
        isolated: bool = False,
    ) -> None:
        self.cwd = Path(os.path.abspath(cwd if cwd is not None else os.getcwd()))
        self.isolated = isolated
        self._default = Settings(base=self.cwd)
        self._fixed: Settings | None = None
        if isolated:
            self._fixed = self._default
        elif config is not None:
            self._fixed = Settings.from_raw(load_raw(_join(self.cwd, os.fspath(config))))
        self._by_dir: dict[Path, Settings] = {}
        self._by_file: dict[Path, Settings] = {}

    def _settings_for(self, config_file: Path) -> Settings:
        got = self._by_file.get(config_file)
        if got is None:
            got = self._by_file[config_file] = Settings.from_raw(load_raw(config_file))
        return got

    def resolve_dir(self, directory: str | os.PathLike[str]) -> Settings:
        """Settings for files directly inside ``directory``: the closest config among it and its ancestors."""
        if self._fixed is not None:
            return self._fixed
        start = Path(_join(self.cwd, os.fspath(directory)))
        visited: list[Path] = []
        d = start
        result: Settings | None = None
        while True:
            cached = self._by_dir.get(d)
            if cached is not None:
                result = cached
                break
            visited.append(d)
            found = find_config(d)
            if found is not None:
                result = self._settings_for(found)
                break
            if d.parent == d:
                result = self._default
                break
            d = d.parent
        for v in visited:
            self._by_dir[v] = result
        return result

    def resolve(self, path: str | os.PathLike[str]) -> Settings:
        """Settings for a file (a directory path is resolved as ``resolve_dir``). The file need not exist
        (``--stdin-filename``)."""
        p = _join(self.cwd, os.fspath(path))
        return self.resolve_dir(p if p.is_dir() else p.parent)

    def run_settings(self) -> Settings:
        """Run-wide settings: the configuration closest to the cwd (or ``--config``, or defaults)."""
        return self.resolve_dir(self.cwd)

    @property
    def project_root(self) -> Path:
        """The directory of the configuration file in use for the run, else the cwd."""
        cfg = self.run_settings().config_path
        return cfg.parent if cfg is not None else self.cwd


def run_settings(
    cwd: str | os.PathLike[str], *, config: str | os.PathLike[str] | None = None, isolated: bool = False
) -> Settings:
    return Resolver(cwd, config=config, isolated=isolated).run_settings()


def project_root(
    cwd: str | os.PathLike[str], *, config: str | os.PathLike[str] | None = None, isolated: bool = False
) -> Path:
    return Resolver(cwd, config=config, isolated=isolated).project_root


# ---------------------------------------------------------------- selection (rule levels and selection, configuration)


def default_selection() -> frozenset[int]:
    return frozenset(c for c, m in RULES.items() if not m.info.off_by_default)


def _cli_codes(value: str | Iterable[str] | None, option: str) -> frozenset[int] | None:
    if value is None:
        return None
    items = [value] if isinstance(value, str) else list(value)
    return resolve_codes(items, option, error=UsageError)


def per_file_ignored(settings: Settings, path: str | os.PathLike[str]) -> frozenset[int]:
    """Codes removed for ``path`` by ``lint.per-file-ignores`` (globs relative to the config's directory)."""
    if not settings.per_file_ignores:
        return frozenset()
    rel = relative_posix(path, settings.base)
    out: set[int] = set()
    for pattern, codes in settings.per_file_ignores:
        if _globs((pattern,))[0].matches(rel):
            out.update(codes)
    return frozenset(out)


def selected_codes(
    settings: Settings,
    cli_select: str | Iterable[str] | None = None,
    cli_ignore: str | Iterable[str] | None = None,
    cli_extend_select: str | Iterable[str] | None = None,
    path: str | os.PathLike[str] | None = None,
    *,
    cli_level: Level | str | None = None,
) -> frozenset[int]:
    """The lint rules selected for ``path`` (configuration order): select (``--select`` replaces the configured
    select, extend-select and ignore; else ``lint.select`` or the default: every rule not marked off; the
    run diagnostics 190-199 are always part of it, so only ``ignore`` & co. remove 190 and 193) →
    extend-select (config, then ``--extend-select``) → ignore (config, then ``--ignore``) →
    per-file-ignores (when ``path`` is given) → ``severity = "off"`` overrides → level (``cli_level`` or
    ``lint.level``; level-less compile-only rules 145/146 never run in lint, run diagnostics 190-199
    pass the level filter). Rules that cannot be disabled (191, 192, 199) are always selected.
    CLI values are comma-separated strings (or several of them); unknown codes raise ``UsageError``.
    Required inputs (010, 030, 037) are the engine's business."""
    select = _cli_codes(cli_select, "--select")
    extend = _cli_codes(cli_extend_select, "--extend-select") or frozenset()
    ignore = _cli_codes(cli_ignore, "--ignore") or frozenset()
    run_diagnostics = {c for c in RULES if c >= 190}
    if select is not None:
        codes = set(select) | run_diagnostics
    else:
        codes = set(settings.select if settings.select is not None else default_selection())
        codes |= run_diagnostics | settings.extend_select
    codes |= extend
    if select is None:
        codes -= settings.ignore
    codes -= ignore
    if path is not None:
        codes -= per_file_ignored(settings, path)
    codes -= {c for c, sev in settings.severity if sev is None}
    level = Level(cli_level) if cli_level is not None else settings.level
    kept = set()
    for code in codes:
        rule_level = RULES[code].info.level
        if rule_level is None:
            if code >= 190:
                kept.add(code)
        elif rule_level.rank <= level.rank:
            kept.add(code)
    kept |= {c for c, m in RULES.items() if not m.info.can_disable}
    return frozenset(kept)


def effective_severity(settings: Settings, code: int, case_severity: Severity | None = None) -> Severity | None:
    """The severity a finding of ``code`` is reported with: the ``lint.severity`` override (``None`` for
    ``off``), else ``case_severity`` (the severity the rule uses in this case, e.g. 033's warning case),
    else the rule's default severity."""
    for c, sev in settings.severity:
        if c == code:
            return sev
    return case_severity if case_severity is not None else RULES[code].info.severity

