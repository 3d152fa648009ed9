"""The fixed choices of command-line options, named once: the click options and the console script's own
argument reader (`cli.entry`, which runs without click) both take them from here."""

COLOR = ("auto", "always", "never")
LEVEL = ("basic", "intermediate", "full")
FAIL_ON = ("error", "warning")
