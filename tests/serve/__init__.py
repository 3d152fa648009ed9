"""`axag serve`: MCP sessions, approvals, state stores, OAuth, metrics, logs."""
