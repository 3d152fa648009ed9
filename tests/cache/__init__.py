"""The result cache and run records: keys, bundles, reads, pruning and trust."""
