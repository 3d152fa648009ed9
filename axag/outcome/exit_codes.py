"""axag's exit statuses, named once (a leaf module: the console script's fast path imports it without click).

`axag.cli.common.exit_status` maps a command's outcome to one of the first three."""

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130  # Ctrl-C, as other command-line tools
EXIT_BROKEN_PIPE = EXIT_FINDINGS  # stdout closed early (`axag lint | head`), as click's own main does
