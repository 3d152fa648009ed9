"""The JSX part of the benchmark, used by bench.py: a generated corpus of React components (TSX),
tree-sitter's bare parse of the same files as the floor, and ``axag lint`` over them as a ratio to it.

    python tests/benchmarks/bench.py --jsx-only [--jsx-mb 6] [--repeat 3]

The floor runs in a fresh process: read each .tsx file and parse it with tree-sitter's TSX grammar (only the
read+parse loop is timed). axag's figure is the wall time of ``axag lint DIR --isolated --quiet --output-format
json:FILE --exit-zero -j 1``, start-up included. Target: <= 2.5 x the floor.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

TARGET = 2.5
ENTITIES = ("cart", "order", "invoice", "profile", "team", "project", "ticket", "report", "article", "booking")
VERBS = (("create", "write", "low"), ("update", "write", "medium"), ("archive", "write", "medium"),
         ("delete", "delete", "high"), ("search", "read", "none"), ("export", "read", "low"))


def _form(rng: random.Random, name: str, entity: str, n: int) -> str:
    verb, kind, risk = VERBS[n % len(VERBS)]
    fields = []
    for i in range(rng.randint(2, 5)):
        fid = f"{entity}_{name.lower()}_f{i}"
        typ = rng.choice(("text", "email", "number", "date"))
        extra = ' min={1} max="100"' if typ == "number" else ""
        fields.append(f'''        <div className="field">
          <label htmlFor="{fid}">{rng.choice(("Name", "Title", "Amount", "Due date", "Email"))} {i}</label>
          <input id="{fid}" name="field_{i}" type="{typ}"{extra} required={{{str(i % 2 == 0).lower()}}}
                 value={{values.field_{i}}} onChange={{(e) => set("field_{i}", e.target.value)}} />
        </div>''')
    confirm = f' axag-confirmation-required="true" axag-preconditions=\'["{entity}_exists"]\'' \
        if risk == "high" else ""
    idem = "true" if kind != "write" else "false"
    effects = f' axag-side-effects=\'["{entity}_{verb}d"]\'' if idem == "false" else ""
    annotated = n % 8 != 4
    ann = (f'\n      axag-intent="{entity}.{verb}_{n}" axag-entity="{entity}" axag-action-type="{kind}"\n'
           f'      axag-description="{verb.capitalize()} the {entity} record {n}" axag-risk-level="{risk}"\n'
           f'      axag-idempotent="{idem}" axag-scope="user"{confirm}{effects}') if annotated else ""
    return f'''
export function {name}Form({{ values, set, onSubmit }}: FormProps) {{
  const [busy, setBusy] = useState(false);
  return (
    <form className="form {entity}" onSubmit={{(e) => {{ e.preventDefault(); setBusy(true); onSubmit(values); }}}}{ann}>
      <fieldset disabled={{busy}}>
        <legend>{verb.capitalize()} {entity}</legend>
{chr(10).join(fields)}
      </fieldset>
      <button type="submit" className="primary">{verb.capitalize()}</button>
    </form>
  );
}}
'''


def _list(rng: random.Random, name: str, entity: str, n: int) -> str:
    spec = f"{name[0].lower()}{name[1:]}Spec"
    return f'''
const {spec} = {{
  intent: "{entity}.open_{n}",
  entity: "{entity}",
  actionType: "read",
  description: "Open one {entity} from the list",
  riskLevel: "none",
  idempotent: true,
  requiredParameters: ["id"],
}} as const;

export function {name}List({{ items, onOpen }}: ListProps) {{
  if (!items.length) {{
    return <p className="empty">No {entity} yet. {{`Create one to get started.`}}</p>;
  }}
  return (
    <ul className="list {entity}-list">
      {{items.map((item) => (
        <li key={{item.id}} className={{item.active ? "active" : undefined}}>
          <span className="title">{{item.title}}</span>
          <span className="meta">{{formatDate(item.updatedAt)}} &middot; {{item.owner?.name ?? "nobody"}}</span>
          <button type="button" axag={{{spec}}} onClick={{() => onOpen(item.id)}} aria-label="Open">
            <Icon name="open" size={{16}} />
          </button>
        </li>
      ))}}
    </ul>
  );
}}
'''


def _panel(rng: random.Random, name: str, entity: str, n: int) -> str:
    words = ("overview", "details", "history", "settings", "members", "activity", "notes", "files")
    rows = "\n".join(
        f'''          <tr key="{w}"><th scope="row">{w.capitalize()}</th><td>{{data.{w} ?? "-"}}</td>
            <td><Badge tone={{data.{w} ? "ok" : "muted"}}>{{data.{w} ? "set" : "empty"}}</Badge></td></tr>'''
        for w in rng.sample(words, 5))
    return f'''
export const {name}Panel: React.FC<PanelProps> = ({{ data, onClose }}) => (
  <aside className="panel" role="complementary">
    <header>
      <h2>{{data.title}}</h2>
      <IconButton label="Close" onClick={{onClose}} />
    </header>
    <table className="grid">
      <tbody>
{rows}
      </tbody>
    </table>
    {{data.warning && <Alert kind="warning">{{data.warning}}</Alert>}}
    <footer><small>Updated {{data.updatedAt}}</small></footer>
  </aside>
);
'''


_LOGIC = """
export interface NAMERecord {
MEMBERS
}

type NAMEAction = { type: "set" | "reset" | "load" | "fail" | "patch"; payload?: unknown };

function LOWERReducer(state: NAMEState, action: NAMEAction): NAMEState {
  switch (action.type) {
CASES
    default:
      return state;
  }
}

export function useNAME(id: string | undefined, options: { refresh?: number } = {}) {
  const [state, dispatch] = useReducer(LOWERReducer, initialNAMEState);
  const controller = useRef<AbortController | null>(null);
  useEffect(() => {
    if (!id) return;
    controller.current?.abort();
    const ac = new AbortController();
    controller.current = ac;
    fetch(`/api/ENTITYs/${encodeURIComponent(id)}?v=${options.refresh ?? 0}`, { signal: ac.signal })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then((payload: NAMERecord) => dispatch({ type: "load", payload }))
      .catch((err: Error) => { if (err.name !== "AbortError") dispatch({ type: "fail", payload: err.message }); });
    return () => ac.abort();
  }, [id, options.refresh]);
  const total = useMemo(() => Object.values(state).filter((v) => v != null && v !== "").length * NUM, [state]);
  return { state, dispatch, total };
}

export const formatNAME = (r: Partial<NAMERecord>, locale = "en-GB"): string =>
  [r.FIELD0, r.FIELD1].filter(Boolean).map((v) => String(v).trim()).join(" / ") ||
  new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(NUM / 7);
"""


def _logic(rng: random.Random, name: str, entity: str, n: int) -> str:
    """The TypeScript around the markup: types, a reducer, a data hook and a helper (most of a real component
    file is not JSX)."""
    fields = rng.sample(("id", "title", "owner", "status", "amount", "dueDate", "tags", "notes", "priority",
                         "createdAt", "updatedAt", "version"), 7)
    members = "\n".join(f"  {f}{'?' if i % 3 == 2 else ''}: {rng.choice(('string', 'number', 'boolean'))};"
                        for i, f in enumerate(fields))
    cases = "\n".join(f'    case "{a}":\n      return {{ ...state, {fields[i]}: action.payload as never, '
                      f'dirty: true, lastAction: "{a}" }};'
                      for i, a in enumerate(("set", "reset", "load", "fail", "patch")))
    text = _LOGIC.replace("MEMBERS", members).replace("CASES", cases).replace("LOWER", name[0].lower() + name[1:])
    return (text.replace("NAME", name).replace("ENTITY", entity).replace("NUM", str(n % 97 + 1))
            .replace("FIELD0", fields[0]).replace("FIELD1", fields[1]))


def component_file(index: int, seed: int = 16) -> str:
    rng = random.Random(seed * 100_003 + index)
    parts = ['import React, { useState } from "react";\n',
             'import { Icon, IconButton, Badge, Alert } from "./ui";\n',
             'import type { FormProps, ListProps, PanelProps } from "./types";\n']
    n = index * 1000
    while sum(len(p) for p in parts) < 18_000:
        entity = ENTITIES[n % len(ENTITIES)]
        name = f"{entity.capitalize()}{n}"
        parts.append(_logic(rng, name, entity, n))
        parts.append((_form, _panel, _list, _panel)[n % 4](rng, name, entity, n))
        n += 1
    return "".join(parts)


def generate(out: Path, total_bytes: int) -> tuple[int, int]:
    """Write component files (about 18 KB each) until ``total_bytes``; returns (files, bytes)."""
    out.mkdir(parents=True, exist_ok=True)
    size = files = 0
    while size < total_bytes:
        text = component_file(files).encode()
        (out / f"Component{files:04d}.tsx").write_bytes(text)
        size += len(text)
        files += 1
    return files, size


def tsx_files(root: Path) -> list[str]:
    paths: list[str] = []
    for base, dirs, names in os.walk(root):
        dirs.sort()
        paths += [os.path.join(base, f) for f in sorted(names) if f.endswith((".tsx", ".jsx"))]
    return paths


def floor_main(root: str) -> int:
    """tree-sitter's bare parse of the same files (read + parse of each file, in one process)."""
    import tree_sitter_typescript as ts
    from tree_sitter import Language, Parser

    parser = Parser(Language(ts.language_tsx()))
    paths = tsx_files(Path(root))
    start, cpu = time.perf_counter(), time.process_time()
    size = 0
    for path in paths:
        with open(path, "rb") as fh:
            data = fh.read()
        size += len(data)
        parser.parse(data)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    sys.stdout.write(json.dumps({"files": len(paths), "bytes": size, "seconds": elapsed, "cpu_s": cpu}))
    return 0


def measure(bench: Any, work: Path, megabytes: float, repeat: int, say: Any, lint_runs: Any) -> dict[str, Any]:
    """Build the corpus under ``work`` and time floor and lint ``repeat`` times, interleaved (medians)."""
    import statistics

    site = work / "jsx-site"
    files, size = generate(site, int(megabytes * 1_000_000))
    say(f"jsx corpus: {files} generated .tsx files, {size / 1e6:.1f} MB in {site}")
    floors, lints = [], []
    for r in range(repeat):
        out = work / "jsx-floor.json"
        res = bench.runner.run([sys.executable, os.path.abspath(__file__), "__tsparse__", str(site)], work,
                               stdout=str(out))
        if res["rc"] != 0:
            raise RuntimeError(f"tree-sitter floor failed: {res['stderr'][-2000:]}")
        floors.append(json.loads(out.read_text()))
        lints.append(lint_runs(site))
        say(f"  [jsx {r + 1}/{repeat}] tree-sitter parse {floors[-1]['seconds']:.2f} s, lint -j1 "
            f"{lints[-1]['wall_s']:.2f} s")
    floor_s = float(statistics.median(f["seconds"] for f in floors))
    floor_cpu = float(statistics.median(f["cpu_s"] for f in floors))
    lint_s = float(statistics.median(x["wall_s"] for x in lints))
    lint_cpu = float(statistics.median(x["cpu_s"] for x in lints))
    return {"files": files, "bytes": size, "floor_s": floor_s, "lint_s": lint_s, "ratio": lint_s / floor_s,
            "floor_cpu_s": floor_cpu, "lint_cpu_s": lint_cpu, "cpu_ratio": lint_cpu / floor_cpu,
            "findings": lints[0].get("findings"), "target": TARGET, "pass": lint_s / floor_s <= TARGET}


def line(jsx: dict[str, Any]) -> str:
    return (f"jsx      {jsx['files']} .tsx files, {jsx['bytes'] / 1e6:.1f} MB: lint -j1 {jsx['lint_s']:.2f} s = "
            f"{jsx['ratio']:.2f} x tree-sitter parse ({jsx['floor_s']:.2f} s) (CPU {jsx['lint_cpu_s']:.2f} s = "
            f"{jsx['cpu_ratio']:.2f} x {jsx['floor_cpu_s']:.2f} s); {jsx['findings']} findings; "
            f"target <= {jsx['target']} x: {'PASS' if jsx['pass'] else 'FAIL'}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["__tsparse__"]:
        sys.exit(floor_main(sys.argv[2]))
