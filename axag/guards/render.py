"""RENDER guards (SPEC §10): tools.json -> generated guard files; writing through ``axag.fsio``.

Public entry points: :func:`render_guards` (pure, text in, text out) and :func:`write_guards`.
jinja2 is imported lazily, inside :func:`axag.guards.views.environment`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from axag import __version__, fsio
from axag.errors import InputError
from axag.guards import naming
from axag.guards.naming import GuardSpec, GuardSpecError, Stub
from axag.guards.views import RenderedGuards, environment, guard_view, stub_views

__all__ = ["LANGS", "PY_FILES", "RenderedGuards", "render_guards", "user_module_names", "write_guards"]

LANGS = ("python", "typescript")
PY_FILES = ("__init__.py", "_runtime.py", "_guards.py")
def user_module_names(source: str) -> set[str]:
    """Top-level function names of the user-owned Python module, read with ``ast`` (never imported)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        raise InputError(f"cannot parse the user-owned preconditions module: {exc}") from exc
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def runtime_source() -> str:
    """The verbatim text of ``_runtime.py``."""
    return (Path(__file__).resolve().parent / "pyruntime.py").read_text(encoding="utf-8")


def _render_python(specs: list[GuardSpec], stubs: list[Stub], existing: str | None) -> RenderedGuards:
    env = environment("python")
    guards = [guard_view(s) for s in specs]
    files = {
        "__init__.py": env.get_template("__init__.py.j2").render(version=__version__),
        "_runtime.py": runtime_source(),
        "_guards.py": env.get_template("_guards.py.j2").render(
            version=__version__, guards=guards, has_stubs=bool(stubs)
        ),
    }
    user = env.get_template("preconditions.py.j2").render(stubs=stub_views(stubs))
    missing_text: str | None = None
    missing_names: list[str] = []
    if existing is not None:
        present = user_module_names(existing)
        missing = [s for s in stubs if s.name not in present]
        if missing:
            missing_names = [s.name for s in missing]
            missing_text = env.get_template("preconditions.missing.txt.j2").render(stubs=stub_views(missing))
    return RenderedGuards(
        files={k: _ensure_newline(v) for k, v in files.items()},
        user_module_path="preconditions.py",
        user_module=_ensure_newline(user),
        missing_path="preconditions.missing.txt",
        missing_stubs=_ensure_newline(missing_text) if missing_text is not None else None,
        missing_names=missing_names,
    )


def _ensure_newline(text: str) -> str:
    return text.rstrip("\n") + "\n"


# ---------------------------------------------------------------- entry points
def render_guards(doc: Mapping[str, Any], lang: str, existing_user_module: str | None) -> RenderedGuards:
    """Render the guard files for an MCP tools document (§10.1). Raises ``InputError`` on bad input."""
    if lang not in LANGS:
        raise InputError(f"unknown guard language {lang!r} (expected python or typescript)")
    try:
        specs = naming.extract_specs(doc)
        stubs = naming.collect_stubs(doc)
        if lang == "python":
            return _render_python(specs, stubs, existing_user_module)
        return _render_typescript(specs, stubs, existing_user_module)
    except GuardSpecError as exc:
        raise InputError(f"cannot generate guards: {exc}") from exc


def _render_typescript(specs: list[GuardSpec], stubs: list[Stub], existing: str | None) -> RenderedGuards:
    import importlib

    try:
        module = importlib.import_module("axag.guards.typescript")
    except ImportError as exc:
        raise InputError("TypeScript guards are not available in this build (axag.guards.typescript)") from exc
    render: Callable[..., Any] = module.render_typescript
    result = render(specs, stubs, existing)
    if not isinstance(result, RenderedGuards):
        raise InputError("axag.guards.typescript.render_typescript returned an unexpected value")
    return result


def write_guards(
    doc: Mapping[str, Any], out_dir: str | Path, lang: str = "python", check: bool = False
) -> tuple[list[str], list[tuple[str, str]]]:
    """Write (or with ``check`` compare) the guard files in ``out_dir``.

    Returns ``(warnings, stale)``: warning texts, and for ``check`` the generated files that differ or are
    missing as ``(relative path, short unified diff)``. The user-owned module is created once and never
    overwritten; ``preconditions.missing.txt`` is written when stubs are missing and deleted otherwise.
    """
    directory = Path(out_dir)
    user_path = directory / ("preconditions.py" if lang == "python" else "preconditions.ts")
    existing: str | None = None
    if user_path.exists():
        try:
            existing = user_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read {user_path}: {exc}") from exc
    rendered = render_guards(doc, lang, existing)
    warnings: list[str] = []
    stale: list[tuple[str, str]] = []
    if rendered.missing_stubs is not None:
        warnings.append(
            f"{user_path} lacks precondition functions {', '.join(rendered.missing_names)}; "
            f"their source is in {directory / rendered.missing_path}"
        )
    if check:
        for rel, text in rendered.files.items():
            up_to_date, diff = fsio.check(directory / rel, text)
            if not up_to_date:
                stale.append((rel, diff))
        return warnings, stale
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create {directory}: {exc.strerror or exc}") from exc
    for rel, text in rendered.files.items():
        fsio.write_atomic(directory / rel, text, within=directory)  # links may not lead out of the folder
    if existing is None:
        fsio.create_only(directory / rendered.user_module_path, rendered.user_module, within=directory)
    missing_file = directory / rendered.missing_path
    if rendered.missing_stubs is not None:
        fsio.write_atomic(missing_file, rendered.missing_stubs, within=directory)
    elif missing_file.exists():
        try:
            missing_file.unlink()
        except OSError as exc:
            raise InputError(f"cannot delete {missing_file}: {exc.strerror or exc}") from exc
    return warnings, stale
