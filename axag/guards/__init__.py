"""Guard generation: ``render.render_guards`` / ``render.write_guards``.

Submodules are imported on use; ``guard_spec`` builds the per-tool guard spec both language renderers (and the
in-process guards) read; ``context`` renders the constraint context block from the same tools.
"""

from __future__ import annotations

from typing import Final

__all__ = ["LANGS", "guard_spec", "render"]

LANGS: Final = ("python", "typescript")  # the guard languages (`render.render_guards` renders each)
