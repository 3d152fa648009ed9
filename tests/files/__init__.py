"""Files a run reads: discovery and relative paths."""
