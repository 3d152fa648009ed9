"""Cross-cutting robustness: fuzzing, hostile input, paths, scaling, crash-safe writes."""
