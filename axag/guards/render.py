"""RENDER guards (SPEC §10): tools.json -> generated guard files; writing through ``axag.fsio``.

Public entry points: :func:`render_guards` (pure, text in, text out) and :func:`write_guards`.
jinja2 is imported lazily, inside :func:`_environment`.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from axag import __version__, fsio
from axag.errors import InputError
from axag.guards import naming
from axag.guards.naming import GuardSpec, GuardSpecError, Stub

if TYPE_CHECKING:
    import jinja2

__all__ = ["LANGS", "PY_FILES", "RenderedGuards", "render_guards", "user_module_names", "write_guards"]

LANGS = ("python", "typescript")
PY_FILES = ("__init__.py", "_runtime.py", "_guards.py")
_TEMPLATES = Path(__file__).resolve().parent / "templates"
_VERSION_RE = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+-]*")


@dataclass
class RenderedGuards:
    """Generated files (relative path -> text), the user-owned module and the missing stubs (or None)."""

    files: dict[str, str]
    user_module_path: str
    user_module: str
    missing_path: str
    missing_stubs: str | None = None
    missing_names: list[str] = field(default_factory=list)


class _Code(str):
    """Text produced by a literal or identifier filter; the only values the finalize hook lets through."""

    __slots__ = ()


def _finalize(value: object) -> object:
    if isinstance(value, _Code):
        return value
    raise TypeError(f"guard templates may only print filtered values, got {type(value).__name__}")


def _defined(value: object) -> object:
    """Raise jinja2's UndefinedError for an undefined value (StrictUndefined fails on ``str``)."""
    import jinja2

    if isinstance(value, jinja2.Undefined):
        str(value)
    return value


def _lit(value: object) -> _Code:
    return _Code(naming.py_literal(_defined(value)))


def _ident(value: object) -> _Code:
    name = _defined(value)
    if not isinstance(name, str):
        raise GuardSpecError(f"not a safe identifier: {name!r}")
    return _Code(naming.identifier(name))


def _version(value: object) -> _Code:
    if not isinstance(value, str) or not _VERSION_RE.fullmatch(value):
        raise GuardSpecError(f"bad generator version {value!r}")
    return _Code(value)


def _environment(lang: str) -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_TEMPLATES / lang)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        finalize=_finalize,
        keep_trailing_newline=True,
        trim_blocks=False,
        lstrip_blocks=False,
    )
    env.filters["lit"] = _lit
    env.filters["ident"] = _ident
    env.filters["version"] = _version
    return env


# ---------------------------------------------------------------- Python rendering
def _relation_view(spec: GuardSpec, rel: naming.Relation) -> dict[str, Any]:
    form, params = rel.form, rel.params

    def need(count: int) -> None:
        if len(params) != count:
            raise GuardSpecError(f"tool {spec.tool!r}: {form} precondition {rel.text!r} needs {count} parameters")

    view: dict[str, Any] = {"form": form, "text": rel.text, "kind": rel.kind, "has_value": rel.has_value,
                            "value": rel.value, "a": params[0], "b": None, "names": list(params)}
    if form in naming.COMPARISON_FORMS:
        need(1 if rel.has_value else 2)
        view["fn"] = "rel_compare"
        view["b"] = None if rel.has_value else params[1]
    elif form in ("exactly_one_of", "at_least_one_of"):
        if len(params) < 2:
            raise GuardSpecError(f"tool {spec.tool!r}: {form} precondition {rel.text!r} needs 2+ parameters")
        view["fn"] = "rel_" + form
    elif form == "required_when_equal":
        need(2)
        if not rel.has_value:
            raise GuardSpecError(f"tool {spec.tool!r}: {form} precondition {rel.text!r} needs a value")
        view["fn"] = "rel_required_when_equal"
        view["b"] = params[1]
    else:
        need(2)
        view["fn"] = "rel_" + form
        view["b"] = params[1]
    return view


def _guard_view(spec: GuardSpec) -> dict[str, Any]:
    return {
        "ident": spec.ident,
        "tool": spec.tool,
        "intent": spec.intent,
        "input_schema": spec.input_schema,
        "active_constraints": spec.active_constraints,
        "relations": [_relation_view(spec, r) for r in spec.relations],
        "preconditions": spec.preconditions,
        "bounds": spec.bounds,
        "required_roles": list(spec.required_roles),
        "confirmation_required": spec.confirmation_required,
        "confirmation_message": spec.confirmation_message,
        "approval_required": spec.approval_required,
        "approval_roles": list(spec.approval_roles),
        "approval_count": spec.approval_count,
        "rate_limit": spec.rate_limit,
        "rate_count": spec.rate_count,
        "rate_window_seconds": spec.rate_window_seconds,
        "cooldown": spec.cooldown,
        "cooldown_seconds": spec.cooldown_seconds,
    }


def _stub_views(stubs: Sequence[Stub]) -> list[dict[str, Any]]:
    return [
        {
            "name": s.name,
            "message": f'precondition "{s.text}" (used by {", ".join(s.tools)}) is not implemented',
        }
        for s in stubs
    ]


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


def _render_python(
    specs: list[GuardSpec], stubs: list[Stub], existing: str | None, null_as_absent: bool
) -> RenderedGuards:
    env = _environment("python")
    guards = [_guard_view(s) for s in specs]
    files = {
        "__init__.py": env.get_template("__init__.py.j2").render(version=__version__),
        "_runtime.py": runtime_source(),
        "_guards.py": env.get_template("_guards.py.j2").render(
            version=__version__, guards=guards, has_stubs=bool(stubs), null_as_absent=null_as_absent
        ),
    }
    user = env.get_template("preconditions.py.j2").render(stubs=_stub_views(stubs))
    missing_text: str | None = None
    missing_names: list[str] = []
    if existing is not None:
        present = user_module_names(existing)
        missing = [s for s in stubs if s.name not in present]
        if missing:
            missing_names = [s.name for s in missing]
            missing_text = env.get_template("preconditions.missing.txt.j2").render(stubs=_stub_views(missing))
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
def render_guards(
    doc: Mapping[str, Any], lang: str, existing_user_module: str | None, *, null_as_absent: bool = False
) -> RenderedGuards:
    """Render the guard files for an MCP tools document (§10.1). Raises ``InputError`` on bad input.

    ``null_as_absent`` is the guards' default for ``GuardContext.null_as_absent`` (true for the tools of an OpenAI
    strict-mode document, whose callers send ``null`` for every optional parameter they leave out)."""
    if lang not in LANGS:
        raise InputError(f"unknown guard language {lang!r} (expected python or typescript)")
    try:
        specs = naming.extract_specs(doc)
        stubs = naming.collect_stubs(doc)
        if lang == "python":
            return _render_python(specs, stubs, existing_user_module, null_as_absent)
        return _render_typescript(specs, stubs, existing_user_module, null_as_absent)
    except GuardSpecError as exc:
        raise InputError(f"cannot generate guards: {exc}") from exc


def _render_typescript(
    specs: list[GuardSpec], stubs: list[Stub], existing: str | None, null_as_absent: bool
) -> RenderedGuards:
    import importlib

    try:
        module = importlib.import_module("axag.guards.typescript")
    except ImportError as exc:
        raise InputError("TypeScript guards are not available in this build (axag.guards.typescript)") from exc
    render: Callable[..., Any] = module.render_typescript
    result = render(specs, stubs, existing, null_as_absent=null_as_absent)
    if not isinstance(result, RenderedGuards):
        raise InputError("axag.guards.typescript.render_typescript returned an unexpected value")
    return result


# First lines of the files axag writes (and of those earlier versions wrote): only such files are replaced.
_GENERATED_FIRST_LINES = (
    "# Generated by axag", "// Generated by axag", '"""Runtime of axag-generated Python guards',
    "# These precondition functions are missing from preconditions.", "// These precondition functions are missing",
)


def _not_generated(path: Path) -> bool:
    """True when ``path`` exists and axag did not write it (no generated-file header on its first line)."""
    if not os.path.lexists(path):
        return False
    try:
        with open(path, "rb") as handle:
            first = handle.readline(200).decode("utf-8-sig", errors="replace")
    except OSError:
        return True
    return not first.startswith(_GENERATED_FIRST_LINES)


def write_guards(
    doc: Mapping[str, Any], out_dir: str | Path, lang: str = "python", check: bool = False, *,
    null_as_absent: bool = False, written: list[str] | None = None,
) -> tuple[list[str], list[tuple[str, str]]]:
    """Write (or with ``check`` compare) the guard files in ``out_dir``.

    Returns ``(warnings, stale)``: warning texts, and for ``check`` the generated files that differ or are
    missing as ``(relative path, short unified diff)``. The user-owned module is created once and never
    overwritten; ``preconditions.missing.txt`` is written when stubs are missing and deleted otherwise. A file in
    the way that axag did not generate (no generated-file header) is never replaced or deleted: ``InputError``
    names it and nothing is written. ``written``, when given, receives the relative paths written or deleted.
    """
    directory = Path(out_dir)
    user_path = directory / ("preconditions.py" if lang == "python" else "preconditions.ts")
    existing: str | None = None
    if user_path.exists():
        try:
            existing = user_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read {user_path}: {exc}") from exc
    rendered = render_guards(doc, lang, existing, null_as_absent=null_as_absent)
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
    missing_file = directory / rendered.missing_path
    for rel in [*rendered.files, rendered.missing_path]:
        fsio.contained(directory / rel, directory)  # a link leading out of the folder: refused first
        if _not_generated(directory / rel):
            raise InputError(f"{directory / rel} exists and was not generated by axag (its first line is not an "
                             "axag header); it is left as it is and nothing was written: move it away or choose "
                             "another output directory")
    done = written if written is not None else []
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create {directory}: {exc.strerror or exc}") from exc
    for rel, text in rendered.files.items():
        fsio.write_atomic(directory / rel, text, within=directory)  # links may not lead out of the folder
        done.append(rel)
    if existing is None and fsio.create_only(directory / rendered.user_module_path, rendered.user_module,
                                             within=directory):
        done.append(rendered.user_module_path)
    if rendered.missing_stubs is not None:
        fsio.write_atomic(missing_file, rendered.missing_stubs, within=directory)
        done.append(rendered.missing_path)
    elif missing_file.exists():
        try:
            missing_file.unlink()
        except OSError as exc:
            raise InputError(f"cannot delete {missing_file}: {exc.strerror or exc}") from exc
        done.append(rendered.missing_path + " (deleted)")
    return warnings, stale
