"""What a run ends with, the plain data every layer shares: findings, fixes and rule metadata (`findings`),
the operational errors that stop a command (`errors`), the exit statuses (`exit_codes`) and counted nouns for
messages (`plural`). Standard library only; imports nothing, so that the console script's fast path can load
`exit_codes` alone."""
