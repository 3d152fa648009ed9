"""`axag serve`: the compiled tools as a guarded MCP server (mcp, httpx and uvicorn: the `serve` extra)."""
