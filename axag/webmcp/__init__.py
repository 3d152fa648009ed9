"""The WebMCP runtime: ``axag webmcp`` writes ``axag-webmcp.js``, one dependency-free ES module with the
site's tools, which a page loads to register the tools of its own elements with ``document.modelContext``."""
