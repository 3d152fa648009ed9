"""The command line as a whole: messages and usage errors, exit status, init and show, progress, the cache-hit
fast path, cold start, the pre-commit hooks, `axag context`, `lint --watch`."""
