"""The catalogue and diff pages: self-contained HTML written in pieces (see `axag.report.htmlkit`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from axag import __version__
from axag.catalogue.diff import compare
from axag.catalogue.model import http_rows, views
from axag.report.htmlkit import render_pieces

TEMPLATES = str(Path(__file__).resolve().parent / "templates")


def _generator(doc: dict[str, Any]) -> str:
    gen = doc.get("generator")
    if isinstance(gen, dict) and isinstance(gen.get("name"), str):
        return f"{gen['name']} {gen.get('version', '')}".strip()
    return ""


def catalogue_pieces(doc: dict[str, Any], *, source: str, base: str | None = None,
                     url_template: str | None = None) -> Iterator[str]:
    """The catalogue page of one tools document; ``source`` names it on the page."""
    tools = views(doc, base=base, url_template=url_template)
    return render_pieces("catalogue.html.j2", [TEMPLATES], tools=tools, source=source, generator=_generator(doc),
                         version=__version__, http_rows=http_rows)


def diff_pieces(old: dict[str, Any], new: dict[str, Any], *, old_source: str, new_source: str,
                base: str | None = None, url_template: str | None = None) -> Iterator[str]:
    """The page of what changed from ``old`` to ``new`` (tools matched by name)."""
    result = compare(views(old, base=base, url_template=url_template),
                     views(new, base=base, url_template=url_template))
    felt = sum(d.felt for d in result.changed) + len(result.removed)  # a removed tool breaks its callers
    return render_pieces("diff.html.j2", [TEMPLATES], diff=result, felt=felt, old_source=old_source,
                         new_source=new_source, version=__version__, http_rows=http_rows)
