"""The command line as a whole: messages and usage errors, init and show, progress, the cache-hit fast path,
cold start, the pre-commit hooks and what `compile --check` advises, `lint --watch`."""
