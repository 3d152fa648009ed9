"""`axag lsp`, the language server, driven as an editor drives it."""
