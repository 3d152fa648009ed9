"""Guard generation (SPEC §10): ``render.render_guards`` / ``render.write_guards``.

Submodules are imported on use; ``naming`` holds what both language renderers share.
"""

from __future__ import annotations

__all__ = ["naming", "render"]
