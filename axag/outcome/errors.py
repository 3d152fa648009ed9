"""Operational errors; the CLI turns them into exit code 2."""


class AxagError(Exception):
    """Base class of errors that stop a command with exit code 2."""


class ConfigError(AxagError):
    """Invalid configuration (unknown key, wrong type, unknown rule code, ...)."""


class InputError(AxagError):
    """An input the command needs is missing or unreadable (manifest, baseline, tools file, ...)."""


class UsageError(AxagError):
    """Conflicting or invalid command-line options."""
