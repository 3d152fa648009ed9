"""The WebMCP runtime and the `axag webmcp` module."""
