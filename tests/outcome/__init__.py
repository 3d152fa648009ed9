"""The outcome of a run: exit codes and the run diagnostics that lint and compile share."""
