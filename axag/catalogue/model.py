"""A tools.json document as views of what agents will see: one `ToolView` per tool, plain data for templates.

The loader is tolerant: the MCP document of the tools.json output is the input it is made for, the openai and anthropic
targets (the other compile targets) give views without AXAG metadata, and any missing or odd part is shown as absent, never a crash.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from axag.catalogue.words import constraints, precondition_text, type_text, value_text
from axag.outcome.errors import InputError
from axag.vocabulary import RISK_LEVELS

ACTION = "org.axag/action"
HTTP = "org.axag/http"
RISK_ORDER = RISK_LEVELS


def load(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a tools.json document (an object with a ``tools`` array); InputError (exit 2) otherwise."""
    try:
        doc = json.loads(Path(path).read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InputError(f"cannot read tools file {path}: {getattr(exc, 'strerror', None) or exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("tools"), list):
        raise InputError(f'{path} is not a tools document (a JSON object with a "tools" array)')
    from axag.compile.validate import check_tools_file  # as `axag guards` and `axag serve` check it

    return check_tools_file(doc, path)


@dataclass
class Param:
    name: str
    type: str
    required: bool
    constraints: list[str]
    description: str
    schema: Any


@dataclass
class Source:
    file: str
    line: int
    column: int
    href: str


@dataclass
class ToolView:
    name: str
    title: str
    description: str
    params: list[Param]
    badges: list[tuple[str, str]]  # (kind, text); kind names the style: risk-high, confirm, approval, ...
    preconditions: list[tuple[str, str]]  # (kind, words)
    postconditions: list[str]
    http: dict[str, Any] | None
    sources: list[Source]
    meta: dict[str, Any]
    annotations: dict[str, Any]
    raw: dict[str, Any] = field(repr=False)

    @property
    def search_text(self) -> str:
        parts = [self.name, self.title, self.description, *(p.name for p in self.params),
                 *(p.description for p in self.params), *(t for _, t in self.badges)]
        return "\n".join(parts).lower()


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def _str(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else value_text(value)


def tool_parts(tool: Any) -> tuple[str, str, str, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(name, title, description, input schema, annotations, _meta) of an MCP, openai or anthropic tool."""
    t = _dict(tool)
    fn = _dict(t.get("function"))
    if fn:
        t = {"name": fn.get("name"), "description": fn.get("description"), "inputSchema": fn.get("parameters")}
    schema = _dict(t.get("inputSchema", t.get("input_schema")))
    return (_str(t.get("name")), _str(t.get("title")), _str(t.get("description")), schema,
            _dict(t.get("annotations")), _dict(t.get("_meta")))


def params_of(schema: dict[str, Any]) -> list[Param]:
    props = _dict(schema.get("properties"))
    required = _list(schema.get("required"))
    out = []
    for name, prop in props.items():
        p = _dict(prop)
        out.append(Param(name=str(name), type=type_text(p), required=name in required,
                         constraints=constraints(p), description=_str(p.get("description")), schema=prop))
    return out


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _roles(values: Any) -> str:
    return ", ".join(_str(v) for v in values) if isinstance(values, list) else _str(values)


def badges(meta: dict[str, Any], annotations: dict[str, Any]) -> list[tuple[str, str]]:
    """The facts an agent's caller cares about first, as short labels."""
    out: list[tuple[str, str]] = []
    if "action_type" in meta:
        out.append(("type", _str(meta["action_type"])))
    risk = meta.get("risk_level")
    out.append((f"risk-{risk}" if risk in RISK_ORDER else "risk", f"risk {_str(risk)}" if risk is not None
                else "risk undeclared"))
    if meta.get("confirmation_required") is True:
        out.append(("confirm", "confirmation required"))
    if meta.get("approval_required") is True:
        count = meta.get("approval_count", 1)
        roles = _roles(meta.get("approval_roles", []))
        who = "approver" if count == 1 else "approvers"
        out.append(("approval", f"approval by {_str(count)} {who}" + (f" ({roles})" if roles else "")))
    if meta.get("required_roles"):
        out.append(("roles", f"caller role {_roles(meta['required_roles'])}"))
    rate = _dict(meta.get("rate_limit"))
    if rate:
        count = rate.get("count")
        calls = "call" if count == 1 else "calls"
        out.append(("rate", f"at most {_str(count)} {calls} per {_str(rate.get('period'))}"))
    cool = _dict(meta.get("cooldown"))
    if cool:
        out.append(("rate", f"cooldown {_str(cool.get('duration'))}"))
    if "scope" in meta:
        out.append(("scope", f"scope {_str(meta['scope'])}"))
    if "tenant_boundary" in meta:
        out.append(("scope", f"tenant boundary {_str(meta['tenant_boundary'])}"))
    if meta.get("idempotent") is True:
        out.append(("hint", "idempotent"))
    if meta.get("async") is True:
        out.append(("hint", "asynchronous"))
    if _dict(meta.get("versioning")).get("deprecated") is True:
        out.append(("deprecated", "deprecated"))
    if annotations.get("readOnlyHint") is True:
        out.append(("hint", "read-only"))
    if annotations.get("destructiveHint") is True:
        out.append(("destructive", "destructive"))
    return out


def source_href(file: str, line: int, *, base: str | None, url_template: str | None) -> str:
    """A link to a source line: the URL template (``{file}``, ``{line}``) or a path relative to the page
    (``base``: the compile root as seen from the page's folder). The file name is percent-encoded and a
    relative link starts with ``./`` or ``../``, so it can never become a ``javascript:`` or other scheme."""
    quoted = quote(file, safe="/")
    if url_template:
        return url_template.replace("{file}", quoted).replace("{line}", str(line))
    if base and base != ".":
        quoted = quote(base.replace(os.sep, "/").rstrip("/"), safe="/") + "/" + quoted.lstrip("/")
    return (quoted if quoted.startswith("../") else "./" + quoted) + f"#L{line}"


def view(tool: Any, *, base: str | None = None, url_template: str | None = None) -> ToolView:
    name, title, description, schema, annotations, meta_all = tool_parts(tool)
    meta = _dict(meta_all.get(ACTION))
    props = _dict(schema.get("properties"))
    pre = _list(meta.get("preconditions"))
    preconditions = [(_str(_dict(p).get("kind")) or "state", precondition_text(p, props)) for p in pre]
    post = _list(meta.get("postconditions"))
    sources = []
    for item in _list(meta.get("sources")):
        s = _dict(item)
        file, line, col = _str(s.get("file")), _int(s.get("line")), _int(s.get("column"))
        sources.append(Source(file, line, col, source_href(file, line, base=base, url_template=url_template)))
    http = meta_all.get(HTTP)
    return ToolView(name=name, title=title, description=description, params=params_of(schema),
                    badges=badges(meta, annotations), preconditions=preconditions,
                    postconditions=[_str(p) for p in post], http=http if isinstance(http, dict) else None,
                    sources=sources, meta=meta, annotations=annotations, raw=_dict(tool))


def views(doc: dict[str, Any], *, base: str | None = None, url_template: str | None = None) -> list[ToolView]:
    return [view(t, base=base, url_template=url_template) for t in doc.get("tools", [])]


def http_rows(http: dict[str, Any]) -> list[tuple[str, str]]:
    """The HTTP binding as (label, text) rows: method, action, encoding, the parameter -> control map ..."""
    if "openapi" in http:
        return [("OpenAPI operation", value_text(http["openapi"]))]
    rows: list[tuple[str, str]] = []
    for key, label in (("method", "Method"), ("action", "Action URL"), ("enctype", "Encoding"),
                       ("page", "Form page")):
        if key in http:
            rows.append((label, _str(http[key])))
    fields = _dict(http.get("fields"))
    if fields:
        rows.append(("Fields", "; ".join(f"{k} → {_str(v)}" for k, v in fields.items())))
    constants = http.get("constants")
    if isinstance(constants, list) and constants:
        rows.append(("Constants", "; ".join(
            f"{_str(c[0])} = {_str(c[1])}" if isinstance(c, list) and len(c) == 2 else _str(c) for c in constants)))
    checkbox = _dict(http.get("checkbox"))
    if checkbox:
        rows.append(("Checkboxes", "; ".join(f"{k}: {_str(v)}" for k, v in checkbox.items())))
    if "refresh" in http:
        rows.append(("Refreshes tokens", "yes" if http["refresh"] is True else "no"))
    for key in sorted(set(http) - {"method", "action", "enctype", "page", "fields", "constants", "checkbox",
                                   "refresh"}):
        rows.append((key, _str(http[key])))
    return rows
