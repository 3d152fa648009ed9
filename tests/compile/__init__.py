"""`axag compile`: tools.json, the targets and their registry, the HTTP binding, serialisation, shipped
schemas."""
