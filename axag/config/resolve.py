"""Which settings apply to a file: the closest configuration file among its folder and the folders above
(``--config`` for all, ``--isolated`` for none), each file read once and each folder's answer kept."""

from __future__ import annotations

import os
from pathlib import Path

from axag.config.settings import Settings, joined
from axag.config.toml import CONFIG_NAMES, axag_table, load_raw, read_toml


def find_config(directory: str | os.PathLike[str]) -> Path | None:
    """The configuration file of one directory (``.axag.toml`` > ``axag.toml`` > ``pyproject.toml``
    with ``[tool.axag]``), or ``None``. Reads pyproject.toml (invalid TOML raises ``ConfigError``)."""
    d = Path(directory)
    for name in CONFIG_NAMES:
        candidate = d / name
        if not candidate.is_file():
            continue
        if name == "pyproject.toml" and axag_table(candidate, read_toml(candidate)) is None:
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
            self._fixed = Settings.from_raw(load_raw(joined(self.cwd, os.fspath(config))))
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
        start = Path(joined(self.cwd, os.fspath(directory)))
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
        p = joined(self.cwd, os.fspath(path))
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
