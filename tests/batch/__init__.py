"""Checking many files: the result cache and run records (keys, bundles, reads, pruning, trust), worker
processes, memory pacing, interruption."""
