"""The repository itself: the layer table of the package, the slow marker, the benchmark script."""
