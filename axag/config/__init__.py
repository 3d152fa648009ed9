"""Configuration: reading and validating a file (`toml`: ``RawConfig``), the settings it makes (`settings`:
frozen ``Settings``, paths and codes resolved) and which settings apply to a file (`resolve`: ``Resolver``,
the closest configuration, cached per folder). The globs of ``include``/``exclude`` are discovery's
(`axag.files.globs`); rule selection is lint's (`axag.lint.selection`)."""
