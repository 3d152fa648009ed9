"""The WebMCP runtime (issue 29): ``axag webmcp`` writes ``axag-webmcp.js``, one dependency-free ES module with the
site's tools, which a page loads to register the tools of its own elements with ``document.modelContext``."""
