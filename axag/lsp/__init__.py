"""`axag lsp`: a language server over stdio on pygls and lsprotocol (the ``lsp`` extra).

`positions` converts between lint's 1-based code-point columns and LSP positions, `context` reads what is
around the cursor in a possibly half-typed document (for completion and hover), `workspace` lints documents
with the workspace's configuration and keeps what the run-wide checks need of the other files, and `server`
wires them to the protocol. Only `server` imports pygls and lsprotocol.
"""
