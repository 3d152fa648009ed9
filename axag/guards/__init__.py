"""Guard generation: ``render.render_guards`` / ``render.write_guards``.

Submodules are imported on use; ``naming`` holds what both language renderers share.
"""

from __future__ import annotations

from typing import Final

__all__ = ["LANGS", "naming", "render"]

LANGS: Final = ("python", "typescript")  # the guard languages (`render.render_guards` renders each)
