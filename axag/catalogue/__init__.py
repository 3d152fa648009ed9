"""CATALOGUE: what agents will see, as a page people look at (``axag catalogue``, ``compile --catalogue``).

`model` turns a tools.json tool into a view (badges, parameters and preconditions in words, HTTP binding,
source links), `diff` compares two tools.json documents part by part, `render` writes the pages.
"""
