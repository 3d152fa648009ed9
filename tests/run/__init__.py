"""Running many files: worker processes, memory pacing, interruption."""
