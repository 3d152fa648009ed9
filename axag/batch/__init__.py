"""Checking many files: one file from the result cache or the engine (`one_file`), worker processes
(`workers`), memory pacing (`memory`) and the result cache (`cache/`). Imports nothing: the console script's
fast path imports `axag.batch.cache.location` and `axag.batch.cache.secret` without the rest."""
