"""The command line: the console script's entry (`entry`, which answers a repeated `axag lint FILE...` from its
run record without importing click), the click group (`group`) and one module per subcommand, imported when
invoked. The only layer that imports click; only this layer prints and decides the exit code."""
