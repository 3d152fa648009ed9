"""Compile targets (the tools.json output, the other compile targets, the manifest target): pure mappings of `ToolContract` objects to documents.

A target is one module of this package and one schema in ``schemas/``. The module declares everything about
it in ``TARGETS``, a tuple of `Target` (``openai.py`` declares two): its name, the words that describe it, its
schema file and ``$id``, how it renders, how its output is checked (`axag.compile.validate` runs the check,
``--self-check`` validates against the schema), which schemas the document carries and how an existing file
is recognised (``--check``). This registry finds the modules by listing the package on first use; the command
line's ``--target`` choices, the ``compile.target`` configuration key, `render`, `axag.compile.validate` and
docs/targets.md all read the declarations. Nothing else names a target (docs/dev/extending.md).

`render` returns the document together with the compile-only problems the target found as facts
(`Kind.LOSSY_MAPPING` for ``manifest``, `Kind.STRICT_MODE_INCOMPATIBLE` for ``openai``/``openai-responses`` with
``--strict``; rules 145 and 146 judge them, `axag.rules.run_level.target_problem`). Writing is the caller's job
(`axag.compile.serialize.dumps`).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Final

from axag.model.facts import Kind

if TYPE_CHECKING:
    from axag.compile.contract import ToolContract
    from axag.compile.targets.manifest import DynamicAction

__all__ = ["DEFAULT", "Options", "Rendered", "Target", "by_name", "declared", "get", "markdown", "names",
           "render", "tool_schemas"]

DEFAULT: Final = "mcp"  # the target of plain `axag compile`; the guards, serve and the catalogue read its document

SchemaPath = tuple[str | int, ...]


@dataclass
class Rendered:
    """A target document and its compile-only problems.

    `problems` are ``(subject, text)`` pairs of the `kind`: for `Kind.STRICT_MODE_INCOMPATIBLE` the subject is the
    tool name and the text the reason; for `Kind.LOSSY_MAPPING` the subject is the intent and the text what is
    lost.
    """

    doc: dict[str, Any]
    kind: Kind | None = None
    problems: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Options:
    """What a compile asks of every target: the installed axag version, ``--strict`` (for the targets that
    declare `Target.strict`), the inputs relative to the compile root, the actions whose annotations a template
    writes, and the environment (``SOURCE_DATE_EPOCH``; ``None``: ``os.environ``)."""

    version: str
    strict: bool = False
    paths: Sequence[str] = ()
    dynamic_actions: Sequence[DynamicAction] = ()
    environ: Mapping[str, str] | None = None


def tool_schemas(*keys: str) -> Callable[[Any], Iterator[tuple[SchemaPath, Any]]]:
    """`Target.schemas` of a document of ``tools``: each tool's input schema is at ``keys`` inside it."""

    def schemas(doc: Any) -> Iterator[tuple[SchemaPath, Any]]:
        for i, tool in enumerate(doc.get("tools") or ()):
            node = tool
            for key in keys:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(tool, dict) and (len(keys) == 1 or isinstance(tool.get(keys[0]), dict)):
                yield ("tools", i, *keys), node

    return schemas


def _by_schema(schema_id: str) -> Callable[[dict[str, Any]], bool]:
    return lambda doc: doc.get("$schema") == schema_id


@dataclass(frozen=True)
class Target:
    """Everything about one compile target.

    `render` makes the document; `check` finds its structural problems with the `Checker` (compile runs it
    before writing, without ``jsonschema``); `schemas` yields ``(path, schema)`` of every JSON Schema the document
    carries (``--self-check`` validates each against the 2020-12 metaschema, then the whole document against
    `schema_file`, whose own ``$schema`` picks the draft); `recognise` tells a document of this target
    (``--check`` reads the target an existing file was compiled for; default: its ``$schema`` is `schema_id`) and
    `strict_in` whether it was compiled with ``--strict``.
    """

    name: str
    summary: str  # what the document is, for --help and docs/targets.md
    schema_file: str  # in schemas/
    schema_id: str  # the schema's $id; the "$schema" of the documents that have one
    render: Callable[[Sequence[ToolContract], Options], Rendered]
    # (checker, document): the checker is an `axag.compile.validate.Checker`, which imports this module (a type
    # here would close an import circle)
    check: Callable[[Any, Any], None]
    schemas: Callable[[Any], Iterator[tuple[SchemaPath, Any]]]
    legacy_schema_ids: tuple[str, ...] = ()  # earlier document versions still read as input
    strict: bool = False  # --strict applies (OpenAI Structured Outputs)
    recognise: Callable[[dict[str, Any]], bool] | None = None
    strict_in: Callable[[dict[str, Any]], bool] | None = None

    def recorded(self, doc: dict[str, Any]) -> bool:
        """``doc`` (a JSON object) is a document of this target."""
        return (self.recognise or _by_schema(self.schema_id))(doc)


@cache
def declared() -> tuple[Target, ...]:
    """Every target the modules of this package declare: the default first, then by name."""
    found: list[Target] = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.extend(getattr(module, "TARGETS", ()))
    return tuple(sorted(found, key=lambda t: (t.name != DEFAULT, t.name)))


def by_name() -> dict[str, Target]:
    return {t.name: t for t in declared()}


def names() -> tuple[str, ...]:
    """The target names, as ``--target`` and ``compile.target`` accept them."""
    return tuple(t.name for t in declared())


def get(name: str) -> Target:
    """The declaration of the target ``name``; ValueError for an unknown name."""
    found = by_name().get(name)
    if found is None:
        raise ValueError(f"unknown target {name!r}; expected one of: {', '.join(names())}")
    return found


def markdown() -> str:
    """docs/targets.md: the table of the targets, made from their declarations."""
    lines = [
        "# Compile targets",
        "",
        "<!-- Generated from the declarations in axag/compile/targets/ (tests/compile/test_target_registry.py; rewrite with",
        "AXAG_UPDATE_GOLDENS=1). -->",
        "",
        "`axag compile --target NAME` writes one of these documents (default: `mcp`). `--self-check` validates it",
        "against its shipped schema (in `schemas/`); `--check` reads the target an existing file was compiled for.",
        "",
        "| Target | Document | Schema | `--strict` |",
        "| --- | --- | --- | --- |",
    ]
    for t in declared():
        lines.append(f"| `{t.name}` | {t.summary} | `{t.schema_file}` | {'yes' if t.strict else 'no'} |")
    return "\n".join(lines) + "\n"


def render(
    target: str,
    contracts: Sequence[ToolContract],
    version: str,
    *,
    strict: bool = False,
    paths: Sequence[str] = (),
    dynamic_actions: Sequence[DynamicAction] = (),
    environ: Mapping[str, str] | None = None,
) -> Rendered:
    """Render `contracts` for `target`. `strict` is for the targets that declare it; `paths` (inputs relative to
    the compile root), `dynamic_actions` and `environ` (``SOURCE_DATE_EPOCH``; ``None`` = ``os.environ``) for
    ``manifest``."""
    return get(target).render(contracts, Options(version, strict, paths, dynamic_actions, environ))


_COMPAT: Final[dict[str, Callable[[], Any]]] = {
    "TARGETS": names,
    "STRICT_TARGETS": lambda: tuple(t.name for t in declared() if t.strict),
    "SCHEMA_IDS": lambda: {t.name: t.schema_id for t in declared()},
    "SCHEMA_FILES": lambda: {t.name: t.schema_file for t in declared()},
    "LEGACY_SCHEMA_IDS": lambda: {t.name: t.legacy_schema_ids for t in declared() if t.legacy_schema_ids},
}


def __getattr__(name: str) -> Any:
    """``TARGETS``, ``STRICT_TARGETS``, ``SCHEMA_IDS``, ``SCHEMA_FILES`` and ``LEGACY_SCHEMA_IDS``: views of the
    declarations, made on use (earlier versions kept them as tables)."""
    if name in _COMPAT:
        return _COMPAT[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
