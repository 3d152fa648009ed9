"""The test suite. Its folders mirror the package (parse, model, rules, lint, compile, guards, serve, webmcp,
lsp, report, cli, ...), plus robustness (cross-cutting) and project (the repository itself: layers, markers,
scripts). The shared helpers (conftest.py, browser.py, lsp_client.py, pg_server.py, serve_backend.py,
sent_backend.py, html_fixtures.py, mcp_ts_client.mjs) and data/ stay at this top level, imported as
`tests.<helper>`; this file makes `tests` a package, so that test modules of the same name in two folders
are distinct modules (`tests.guards.test_injection`, `tests.robustness.test_injection`)."""
