"""The settings of one configuration file (or the defaults): the frozen ``Settings`` made from a ``RawConfig``,
paths joined to the configuration's folder and rule codes resolved; command-line options replace fields."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from axag.config.toml import RawConfig
from axag.files.globs import DEFAULT_EXCLUDE, DEFAULT_INCLUDE, Glob, compiled
from axag.outcome.findings import Level, Severity


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
        return compiled(self.include)

    @property
    def exclude_globs(self) -> tuple[Glob, ...]:
        return compiled(self.exclude)

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
            return None if s is None else joined(base, s)

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
                tuple(joined(base, s) for s in v["compile.paths"]) if "compile.paths" in v else None
            ),
            "compile_output": None if output in (None, "-") else joined(base, output),
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


def _state(value: object, joined: Path | None) -> Path | str | None:
    """[serve] state: a PostgreSQL URL as written, a file relative to the configuration's folder."""
    if isinstance(value, str) and value.startswith(("postgresql://", "postgres://")):
        return value
    return joined


def joined(base: Path, value: str) -> Path:
    """``value`` (``~`` expanded) joined to ``base`` and normalised, symlinks kept."""
    return Path(os.path.normpath(os.path.join(base, os.path.expanduser(value))))
