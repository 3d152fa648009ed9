"""`axag lint`: the engine, fixes, suppression, baselines, migration, run-wide findings."""
