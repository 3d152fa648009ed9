#!/usr/bin/env python3
"""Benchmark axag against the performance targets (docs/performance.md), in one run on one machine.

    python tests/benchmarks/bench.py [--corpus DIR] [--repeat N] [--json OUT]
    python tests/benchmarks/bench.py --self-test        # tiny generated corpus, checks the JSON

Corpus: ``--corpus DIR`` is taken as it is (a folder of annotated HTML pages).  Otherwise the script builds
one in a temporary folder like /work/shared/bench/make_site.py: the Python 3.11 documentation of Debian's
``python3.11-doc`` package (/usr/share/doc/python3.11/html) with AXAG annotations injected into every page.
When that package is absent (or with ``--generate``) it generates realistic documentation-like pages itself
(navigation, sidebars, tables, code blocks, forms; ~500 pages, >= 50 MB) and injects the same annotations.
The corpus used is printed and written to the JSON.

Measured, as medians of ``--repeat`` runs interleaved (floor, lint -j1, lint -j2, compile -j1, compile -j2)
so that drift on a shared machine hits every figure alike:

- the floor: ``lxml.html.fromstring`` over the same bytes, exactly as /work/shared/bench/parse_floor.py
  (read each file and parse it, in one fresh process; only the read+parse loop is timed);
- ``axag lint DIR --isolated --quiet --output-format json:FILE --exit-zero -j N`` (stdout to /dev/null) and
  ``axag compile DIR --root DIR --isolated -o FILE --keep-going -j N`` wall times, N = 1 and 2, as ratios to
  the floor, and the scaling ratios j1/j2;
- peak memory of the whole process tree, for the site and for a site twice as large (``--copies`` doubled
  when generating, with new page-specific tools as make_site.py --copies 2 makes them; with ``--corpus``, the
  ``--corpus-large`` folder, else the corpus copied twice into a temporary folder).  Every measured
  command runs under a small wrapper process that polls /proc/<pid>/status VmRSS of the command's process
  tree every 20 ms (summing the workers of ``-j 2``) and also reads ``getrusage(RUSAGE_CHILDREN).ru_maxrss``
  (the largest single process); the peak is the larger of the two, the median of the runs (``--repeat`` on
  the site, up to 3 on the double: peak RSS varies by several MB from run to run).  The allowed bound is
  1.1 x small + 4 KB x additional distinct tools (distinct tool names of the two compile outputs);
- axag's parse stage alone (read, decode, the start-tag pass and the lxml parse, no model) as a ratio to the
  floor, measured like the floor in a fresh process (a figure, not a target: the part of the single-process
  budget that parsing itself takes);
- the base and the per-action cost (figures, not targets): the same cold ``-j 1`` lint and compile on a copy of
  the site without the annotations make_site.py injected (each page's block cut out, `plain_copy`), interleaved
  with the runs above; the per-action cost is (annotated run - base run) / the annotated elements removed;
- the result cache: every run above is cold (``--cache-dir`` an empty folder, which the run fills, as a first run
  does); on a copy of the site, whose cache is filled once beforehand, warm runs (``lint_warm``,
  ``compile_warm``: nothing changed) and runs after one page changed (``lint_changed``, ``compile_changed``: a
  comment added to the median-size page before each run; the lint run is measured first, so each command has
  exactly one page to check again), all ``-j 1``;
- cold start: ``axag lint one-file.html`` (as it is, the result cache on, and with ``--no-cache``) and ``axag
  compile one-file.html -o FILE`` (median of ``--cold-runs`` runs, at least 10), one-file.html being the
  median-size page of the corpus, beside ``python -c pass`` of the interpreter that runs axag (the one named on
  the first line of the axag script, else this one).

Wall times are taken inside the wrapper from process start to exit, so the wrapper's own start-up is not
counted.  axag is run from the scripts folder of this interpreter (not through a pyenv shim) unless
``--axag`` says otherwise.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import math
import os
import platform
import random
import shutil
import statistics
import string
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

DEFAULT_SRC = "/usr/share/doc/python3.11/html"
MIN_CORPUS_BYTES = 50_000_000
POLL_SECONDS = 0.02
KB_PER_TOOL = 4
TARGETS = 16  # cold, warm and changed lint and compile; scaling; memory; cold start

# --------------------------------------------------------------------------------------------------------
# Annotation blocks: the same as /work/shared/bench/make_site.py (the project's shared benchmark material).
# --------------------------------------------------------------------------------------------------------

SITE_WIDE = """
<section class="axag-site" axag-scope="public">
  <form id="site-search" action="/search" method="get"
        axag-intent="site.search" axag-entity="site" axag-action-type="read"
        axag-risk-level="none" axag-description="Search the documentation">
    <label for="q">Query</label>
    <input id="q" name="q" type="search" required maxlength="200">
    <select name="section" aria-label="Section">
      <option value="library">Library</option><option value="tutorial">Tutorial</option>
      <option value="reference">Reference</option>
    </select>
    <button type="submit">Search</button>
  </form>
  <form id="newsletter" action="/subscribe" method="post"
        axag-intent="newsletter.subscribe" axag-entity="newsletter" axag-action-type="write"
        axag-risk-level="low" axag-idempotent="true" axag-side-effects='["email_notification"]'
        axag-description="Subscribe an email address to the release newsletter">
    <label for="email">Email</label><input id="email" name="email" type="email" required>
    <label><input type="checkbox" name="weekly"> Weekly digest</label>
    <button type="submit">Subscribe</button>
  </form>
  <button type="button"
          axag-intent="cart.add_item" axag-entity="cart" axag-action-type="write"
          axag-risk-level="low" axag-idempotent="false" axag-side-effects='["inventory_hold"]'
          axag-required-parameters='[{"name":"product_id","type":"string","pattern":"^[A-Z]{2}[0-9]{6}$"},\
{"name":"quantity","type":"integer","min":1,"max":10}]'
          axag-optional-parameters='["gift_wrap"]'
          axag-preconditions='["product is in stock"]'
          axag-description="Add a product to the shopping cart">Add to cart</button>
</section>
"""

PAGE_SPECIFIC = """
<aside class="axag-page">
  <a href="/bookmarks/{slug}" role="button"
     axag-intent="{ent}.bookmark" axag-entity="{ent}" axag-action-type="write"
     axag-risk-level="low" axag-idempotent="true" axag-scope="user"
     axag-description="Bookmark this page">Bookmark</a>
  <form id="feedback-{slug}" action="/feedback" method="post"
        axag-intent="{ent}.send_feedback" axag-entity="{ent}" axag-action-type="write"
        axag-risk-level="medium" axag-idempotent="false" axag-confirmation-required="true"
        axag-side-effects='["email_notification"]' axag-rate-limit="5/hour"
        axag-preconditions='["user is signed in", "visit_end is after visit_start"]'
        axag-description="Send feedback about this page">
    <label for="rating-{slug}">Rating</label>
    <input id="rating-{slug}" name="rating" type="number" min="1" max="5" required>
    <label for="comment-{slug}">Comment</label>
    <textarea id="comment-{slug}" name="comment" maxlength="2000"></textarea>
    <input type="date" name="visit_start" aria-label="Visit start">
    <input type="date" name="visit_end" aria-label="Visit end">
    <button type="submit">Send</button>
  </form>
</aside>
"""

WITH_FINDINGS = """
<div class="axag-findings">
  <button axag-intent="{ent}.purge" axag-entity="{ent}" axag-action-type="delete"
          axag-risk-level="critical" axag-scope="global">Purge</button>
  <button axag-intent="{ent}.book" axag-entity="{ent}" axag-action-type="create"
          axag-risk-level="High"
          axag-required-parameters='["check_in","check_out","guests"'
          axag-constraints='{{"check_out_after_check_in": "check_out > check_in", "max_guests": \
"guests <= 10"}}'>Book</button>
</div>
"""


def slug_for(index: int) -> str:
    letters = string.ascii_lowercase
    out = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        out = letters[rem] + out
    return out


Source = tuple[str, Callable[[], bytes]]


def docs_sources(src: str) -> list[Source]:
    sources: list[Source] = []
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".html"):
                path = os.path.join(root, name)
                sources.append((os.path.relpath(path, src), lambda p=path: Path(p).read_bytes()))
    return sources


def build_site(out: str, sources: list[Source], copies: int, error_rate: float = 0.1,
               seed: int = 87) -> dict[str, int]:
    """make_site.py's injection: every page gets the site-wide and page-specific actions, about
    error_rate of them also annotations with findings; copies > 1 go under copy-K/."""
    rng = random.Random(seed)
    pages = total = actions = 0
    for copy in range(copies):
        for rel, load in sources:
            if copies > 1:
                rel = os.path.join(f"copy-{copy}", rel)
            data = load()
            ent = "page_" + slug_for(pages)
            block = SITE_WIDE + PAGE_SPECIFIC.format(slug=slug_for(pages), ent=ent)
            actions += 5
            if rng.random() < error_rate:
                block += WITH_FINDINGS.format(ent=ent)
                actions += 2
            marker = data.rfind(b"</body>")
            if marker < 0:
                marker = len(data)
            data = data[:marker] + block.encode() + data[marker:]
            dest = os.path.join(out, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as fh:
                fh.write(data)
            pages += 1
            total += len(data)
    return {"pages": pages, "bytes": total, "annotated_elements": actions}


# --------------------------------------------------------------------------------------------------------
# Fallback corpus: generated documentation-like pages (deterministic).
# --------------------------------------------------------------------------------------------------------

_WORDS = [
    "the", "a", "an", "of", "to", "in", "for", "with", "on", "by", "from", "as", "is", "are", "be",
    "returns", "return", "value", "values", "object", "objects", "module", "modules", "function",
    "functions", "method", "methods", "class", "classes", "argument", "arguments", "parameter",
    "parameters", "default", "attribute", "attributes", "instance", "instances", "iterator", "iterators",
    "sequence", "sequences", "mapping", "string", "strings", "bytes", "buffer", "file", "files", "path",
    "paths", "socket", "sockets", "thread", "threads", "process", "processes", "event", "loop", "loops",
    "callback", "exception", "exceptions", "error", "errors", "raised", "raises", "when", "if", "otherwise",
    "unless", "only", "also", "may", "must", "should", "can", "new", "old", "current", "given", "specified",
    "optional", "required", "keyword", "positional", "encoding", "decoding", "timeout", "interval",
    "connection", "server", "client", "request", "response", "header", "headers", "body", "stream",
    "streams", "queue", "lock", "semaphore", "signal", "handler", "handlers", "context", "manager",
    "generator", "coroutine", "awaitable", "task", "tasks", "future", "result", "results", "set", "list",
    "tuple", "dictionary", "key", "keys", "index", "length", "size", "number", "integer", "float",
    "decimal", "boolean", "true", "false", "none", "empty", "first", "last", "next", "previous", "each",
    "every", "all", "any", "this", "that", "which", "these", "those", "it", "its", "their", "used", "using",
    "use", "changed", "version", "added", "deprecated", "removed", "since", "platform", "availability",
    "unix", "windows", "macos", "linux", "environment", "variable", "variables", "option", "options",
    "configuration", "setting", "settings", "behaviour", "implementation", "details", "note"
]

_IDENTS = [
    "open", "read", "write", "close", "seek", "tell", "flush", "fileno", "readline", "readlines", "getattr",
    "setattr", "isinstance", "issubclass", "sorted", "reversed", "enumerate", "zip", "map", "filter",
    "format", "encode", "decode", "split", "join", "strip", "replace", "startswith", "endswith", "acquire",
    "release", "wait", "notify", "submit", "cancel", "shutdown", "connect", "bind", "listen", "accept",
    "send", "recv"
]

_SECTIONS = ["library", "reference", "tutorial", "howto", "c-api", "using", "whatsnew", "faq", "extending"]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 26))]
    if rng.random() < 0.45:
        pos = rng.randrange(len(words))
        words[pos] = f'<code class="docutils literal notranslate"><span class="pre">{rng.choice(_IDENTS)}()</span></code>'
    if rng.random() < 0.25:
        pos = rng.randrange(len(words))
        words[pos] = f'<a class="reference internal" href="#{rng.choice(_IDENTS)}">{words[pos]}</a>'
    if rng.random() < 0.15:
        pos = rng.randrange(len(words))
        words[pos] = f"<em>{words[pos]}</em>"
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def _code_block(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(4, 18)):
        a, b = rng.choice(_IDENTS), rng.choice(_WORDS)
        indent = "    " * rng.randint(0, 2)
        lines.append(f'{indent}<span class="n">{b}</span> <span class="o">=</span> '
                     f'<span class="n">{a}</span><span class="p">(</span><span class="s2">&quot;{b}&quot;'
                     f'</span><span class="p">)</span>  <span class="c1"># {rng.choice(_WORDS)} &lt;ok&gt;</span>')
    return ('<div class="highlight-python3 notranslate"><div class="highlight"><pre><span></span>'
            + "\n".join(lines) + "\n</pre></div></div>\n")


def _table(rng: random.Random, sentences: list[str]) -> str:
    cols = rng.randint(2, 4)
    head = "".join(f'<th class="head"><p>{rng.choice(_WORDS).title()}</p></th>' for _ in range(cols))
    rows = []
    for r in range(rng.randint(3, 14)):
        cells = "".join(f"<td><p>{rng.choice(sentences)[:rng.randint(20, 120)]}</p></td>" for _ in range(cols))
        rows.append(f'<tr class="row-{"odd" if r % 2 else "even"}">{cells}</tr>')
    return (f'<table class="docutils align-default"><thead><tr class="row-odd">{head}</tr></thead>\n'
            f"<tbody>\n" + "\n".join(rows) + "\n</tbody></table>\n")


def _definition(rng: random.Random, sentences: list[str], mod: str) -> str:
    name = rng.choice(_IDENTS)
    params = ", ".join(f'<em class="sig-param"><span class="n"><span class="pre">{rng.choice(_WORDS)}</span>'
                       f"</span></em>" for _ in range(rng.randint(0, 4)))
    body = "".join(f"<p>{' '.join(rng.choice(sentences) for _ in range(rng.randint(1, 4)))}</p>\n"
                   for _ in range(rng.randint(1, 3)))
    return (f'<dl class="py function">\n<dt class="sig sig-object py" id="{mod}.{name}">'
            f'<span class="sig-prename descclassname"><span class="pre">{mod}.</span></span>'
            f'<span class="sig-name descname"><span class="pre">{name}</span></span>'
            f'<span class="sig-paren">(</span>{params}<span class="sig-paren">)</span>'
            f'<a class="headerlink" href="#{mod}.{name}" title="Link to this definition">\u00b6</a></dt>\n'
            f"<dd>{body}</dd></dl>\n")


def _synthetic_page(index: int, section: str, target: int, seed: int) -> bytes:
    rng = random.Random(seed * 1_000_003 + index)
    sentences = [_sentence(rng) for _ in range(120)]
    mod = f"{rng.choice(_IDENTS)}{index}"
    title = f"{mod} \u2014 {' '.join(rng.choice(_WORDS) for _ in range(4))}"
    nav = "".join(f'<li class="nav-item"><a href="../{rng.choice(_SECTIONS)}/index.html">'
                  f"{rng.choice(_WORDS).title()}</a> &#187;</li>" for _ in range(6))
    head = f"""<!DOCTYPE html>
<html lang="en" data-content_root="../">
  <head>
    <meta charset="utf-8" /><meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <meta property="og:title" content="{mod}" /><meta property="og:type" content="website" />
    <title>{title} &#8212; Example Documentation 3.11</title>
    <link rel="stylesheet" type="text/css" href="../_static/pygments.css" />
    <link rel="stylesheet" type="text/css" href="../_static/pydoctheme.css" />
    <script src="../_static/documentation_options.js"></script>
    <script src="../_static/doctools.js"></script>
    <link rel="search" title="Search" href="../search.html" />
  </head><body>
<div class="mobile-nav"><input type="checkbox" id="menuToggler" class="toggler__input" aria-controls="navigation"
  aria-pressed="false" aria-expanded="false" role="button" aria-label="Menu" />
  <nav class="nav-content" role="navigation"><div class="version_switcher_placeholder"></div>
  <form role="search" class="search" action="../search.html" method="get">
    <input placeholder="Quick search" aria-label="Quick search" type="search" name="q" />
    <input type="submit" value="Go"/></form></nav></div>
<div class="related" role="navigation" aria-label="Related"><h3>Navigation</h3><ul>
<li class="right"><a href="../genindex.html" title="General Index" accesskey="I">index</a></li>
<li class="right"><a href="../py-modindex.html" title="Python Module Index">modules</a> |</li>
{nav}</ul></div>
<div class="document"><div class="documentwrapper"><div class="bodywrapper"><div class="body" role="main">
<section id="module-{mod}"><h1>{title}<a class="headerlink" href="#module-{mod}" title="Link">\u00b6</a></h1>
"""
    parts = [head]
    size = len(head)
    toc = []
    while size < target:
        kind = rng.random()
        if kind < 0.40:
            chunk = f"<p>{' '.join(rng.choice(sentences) for _ in range(rng.randint(2, 7)))}</p>\n"
        elif kind < 0.55:
            chunk = _code_block(rng)
        elif kind < 0.70:
            chunk = _definition(rng, sentences, mod)
        elif kind < 0.77:
            chunk = _table(rng, sentences)
        elif kind < 0.84:
            items = "".join(f"<li><p>{rng.choice(sentences)}</p></li>\n" for _ in range(rng.randint(2, 8)))
            chunk = f'<ul class="simple">\n{items}</ul>\n'
        elif kind < 0.90:
            chunk = (f'<div class="admonition note"><p class="admonition-title">Note</p>'
                     f"<p>{rng.choice(sentences)} {rng.choice(sentences)}</p></div>\n")
        else:
            anchor = f"{rng.choice(_WORDS)}-{len(toc)}"
            toc.append(anchor)
            chunk = (f'</section>\n<section id="{anchor}"><h2>{anchor.title()}<a class="headerlink" '
                     f'href="#{anchor}" title="Link to this heading">\u00b6</a></h2>\n')
        parts.append(chunk)
        size += len(chunk)
    toc_html = "".join(f'<li><a class="reference internal" href="#{a}">{a.title()}</a></li>' for a in toc)
    parts.append(f"""</section>
<div class="clearer"></div></div></div></div>
<div class="sphinxsidebar" role="navigation" aria-label="Main"><div class="sphinxsidebarwrapper">
<div><h3><a href="../contents.html">Table of Contents</a></h3><ul>{toc_html}</ul></div>
<div role="note" aria-label="source link"><h3>This Page</h3><ul class="this-page-menu">
<li><a href="../bugs.html">Report a Bug</a></li><li><a href="../_sources/{section}/{mod}.rst.txt"
rel="nofollow">Show Source</a></li></ul></div>
<div id="searchbox" role="search"><h3 id="searchlabel">Quick search</h3><div class="searchformwrapper">
<form class="search" action="../search.html" method="get">
<input type="text" name="q" aria-labelledby="searchlabel" autocomplete="off" spellcheck="false"/>
<input type="submit" value="Go" /></form></div></div>
<div class="preferences"><label for="theme">Theme</label><select id="theme" name="theme">
<option value="auto">Auto</option><option value="light">Light</option><option value="dark">Dark</option>
</select></div>
</div></div><div class="clearer"></div></div>
<div class="footer">&copy; <a href="../copyright.html">Copyright</a> 2001-2024, Example Foundation.
Last updated on Jan 01, 2024. <a href="/bugs.html">Found a bug</a>?</div>
</body></html>
""")
    return "".join(parts).encode()


def generated_sources(pages: int, total_bytes: int, seed: int = 87) -> list[Source]:
    rng = random.Random(seed)
    avg = total_bytes / pages
    sources: list[Source] = []
    for i in range(pages):
        section = _SECTIONS[i % len(_SECTIONS)]
        target = int(avg * rng.uniform(0.35, 1.65))
        rel = f"{section}/{rng.choice(_IDENTS)}-{i}.html"
        sources.append((rel, lambda i=i, s=section, t=target: _synthetic_page(i, s, t, seed)))
    return sources


# --------------------------------------------------------------------------------------------------------
# Measured runs.  The wrapper (this file with "__wrap__") times one command and watches its memory.
# --------------------------------------------------------------------------------------------------------

def _read_ppid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    try:
        return int(stat[stat.rindex(b")") + 2:].split()[1])
    except (ValueError, IndexError):
        return None


def _vm_rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


class TreeSampler:
    """Sum of VmRSS over a process and its descendants, sampled every POLL_SECONDS in a thread.
    /proc/<pid>/task/*/children is not always available, so parents come from /proc/<pid>/stat,
    read once per process id and cached."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.parents: dict[int, int | None] = {}
        self.peak_kb = 0
        self.max_procs = 0
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> None:
        try:
            live = {int(name) for name in os.listdir("/proc") if name.isdigit()}
        except OSError:
            return
        for pid in list(self.parents):
            if pid not in live:
                del self.parents[pid]
        for pid in live:
            if pid not in self.parents:
                self.parents[pid] = _read_ppid(pid)
        children: dict[int, list[int]] = {}
        for pid, ppid in self.parents.items():
            if ppid is not None:
                children.setdefault(ppid, []).append(pid)
        tree, todo = [], [self.root]
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(children.get(pid, ()))
        total = sum(_vm_rss_kb(pid) for pid in tree)
        self.samples += 1
        self.peak_kb = max(self.peak_kb, total)
        self.max_procs = max(self.max_procs, len(tree))

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(POLL_SECONDS)


def _wrap_main(spec_json: str) -> int:
    import resource

    spec = json.loads(spec_json)
    with open(spec["stdout"], "wb") as out, open(spec["stderr"], "wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(spec["cmd"], cwd=spec["cwd"], stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        sampler = None
        if spec["poll"] and os.path.isdir("/proc/self"):
            sampler = TreeSampler(proc.pid)
            sampler.start()
        rc = proc.wait()
        wall = time.perf_counter() - start
        if sampler is not None:
            sampler.stop()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    maxrss = usage.ru_maxrss  # KB on Linux
    result = {"wall_s": wall, "rc": rc, "ru_maxrss_kb": maxrss, "cpu_s": usage.ru_utime + usage.ru_stime,
              "tree_peak_kb": sampler.peak_kb if sampler else None,
              "samples": sampler.samples if sampler else 0,
              "max_procs": sampler.max_procs if sampler else 1}
    result["peak_rss_kb"] = max(maxrss, result["tree_peak_kb"] or 0)
    sys.stdout.write(json.dumps(result))
    return 0


def _floor_main(root: str) -> int:
    """Exactly /work/shared/bench/parse_floor.py: read each file and parse it, in one process."""
    import lxml.html

    paths: list[str] = []
    for base, dirs, files in os.walk(root):
        dirs.sort()
        paths += [os.path.join(base, f) for f in sorted(files) if f.endswith((".html", ".htm"))]
    start, cpu = time.perf_counter(), time.process_time()
    size = 0
    for path in paths:
        with open(path, "rb") as fh:
            data = fh.read()
        size += len(data)
        lxml.html.fromstring(data)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    sys.stdout.write(json.dumps({"pages": len(paths), "bytes": size, "seconds": elapsed, "cpu_s": cpu}))
    return 0


def _stage_main(root: str) -> int:
    """axag's parse stage alone over the same files, timed like the floor: read, decode, the raw start-tag pass
    and the one lxml parse of each file (axag.parse.parse_source), no model, rules or output. It shows how much of
    the single-process budget the parse stage itself takes."""
    from axag.files.source import load
    from axag.parse.document import parse_source

    paths: list[str] = []
    for base, dirs, files in os.walk(root):
        dirs.sort()
        paths += [os.path.join(base, f) for f in sorted(files) if f.endswith((".html", ".htm"))]
    start, cpu = time.perf_counter(), time.process_time()
    for path in paths:
        with open(path, "rb") as fh:
            data = fh.read()
        src = load(Path(path), data)
        if not isinstance(src, str):
            parse_source(src)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    sys.stdout.write(json.dumps({"seconds": elapsed, "cpu_s": cpu}))
    return 0


class BenchError(RuntimeError):
    pass


class Runner:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.count = 0

    def run(self, cmd: list[str], cwd: Path, *, stdout: str | None = None, poll: bool = True) -> dict[str, Any]:
        """Run cmd under the wrapper; stdout goes to `stdout` (default /dev/null), stderr to a file."""
        self.count += 1
        err = self.work / f"stderr-{self.count}.txt"
        spec = {"cmd": cmd, "cwd": str(cwd), "stdout": stdout or os.devnull, "stderr": str(err), "poll": poll}
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "__wrap__", json.dumps(spec)],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise BenchError(f"wrapper failed for {cmd}: {done.stderr.strip()}")
        result: dict[str, Any] = json.loads(done.stdout)
        result["stderr"] = err.read_text(errors="replace")
        err.unlink()
        return result


def _median(values: Iterable[float]) -> float:
    return float(statistics.median(list(values)))


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def html_files(root: Path) -> list[Path]:
    out: list[Path] = []
    for base, dirs, files in os.walk(root):
        dirs.sort()
        out += [Path(base, f) for f in sorted(files) if f.endswith((".html", ".htm"))]
    return out


def warm_cache(root: Path) -> tuple[int, int]:
    """Read every page once so that no measured run pays for the first read from disk."""
    files = html_files(root)
    size = 0
    for path in files:
        size += len(path.read_bytes())
    return len(files), size


INJECTED = SITE_WIDE.encode()[:40]  # where make_site.py's block starts (it ends where the page's last </body> starts)


def plain_copy(site: Path, dest: Path) -> dict[str, int]:
    """The site's pages without the annotations make_site.py injected (each page's block, from its site-wide
    section up to the page's last ``</body>``): the base that the per-action cost is measured against. Pages
    without an injected block are copied as they are. Returns the pages, those stripped, and the annotated
    elements removed (``axag-intent`` attributes of the blocks)."""
    shutil.rmtree(dest, ignore_errors=True)
    pages = stripped = elements = 0
    for path in html_files(site):
        data = path.read_bytes()
        end = data.rfind(b"</body>")
        end = len(data) if end < 0 else end
        start = data.rfind(INJECTED, 0, end)
        if start >= 0:
            elements += data.count(b"axag-intent=", start, end)
            data = data[:start] + data[end:]
            stripped += 1
        out = dest / path.relative_to(site)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
        pages += 1
    return {"pages": pages, "stripped": stripped, "annotated_elements": elements}


def find_axag(explicit: str | None) -> list[str]:
    if explicit:
        return explicit.split()
    scripts = Path(sysconfig.get_path("scripts")) / "axag"
    if scripts.is_file() and os.access(scripts, os.X_OK):
        return [str(scripts)]
    found = shutil.which("axag")
    if found:
        return [found]
    return [sys.executable, "-m", "axag"]


def axag_python(axag: list[str]) -> str:
    """The interpreter that runs axag: the one on the first line of the axag script, else this one."""
    if len(axag) == 1:
        try:
            with open(axag[0], "rb") as fh:
                first = fh.readline().decode("utf-8", "replace").strip()
        except OSError:
            first = ""
        if first.startswith("#!"):
            interpreter = first[2:].strip().split()[0] if first[2:].strip() else ""
            if interpreter and os.access(interpreter, os.X_OK) and "python" in os.path.basename(interpreter):
                return interpreter
    elif axag and "python" in os.path.basename(axag[0]):
        return axag[0]
    return sys.executable


class Bench:
    def __init__(self, args: argparse.Namespace, work: Path) -> None:
        self.args = args
        self.work = work
        self.runner = Runner(work)
        self.axag = find_axag(args.axag)
        self.out = work / "out"
        self.out.mkdir(exist_ok=True)

    # ---- the commands --------------------------------------------------------------------------------
    def cold_cache(self) -> Path:
        """An empty cache folder (a cold run fills it, as a first run does)."""
        cache = self.work / "cache-cold"
        shutil.rmtree(cache, ignore_errors=True)
        return cache

    def lint(self, site: Path, jobs: int, tag: str, cache: Path | None = None) -> dict[str, Any]:
        """``cache``: the --cache-dir of the run (None: an empty one)."""
        report = self.out / f"lint-{tag}-j{jobs}.json"
        report.unlink(missing_ok=True)
        cmd = self.axag + ["lint", str(site), "--isolated", "--quiet", "--output-format", f"json:{report}",
                           "--exit-zero", "-j", str(jobs), "--cache-dir", str(cache or self.cold_cache())]
        res = self.runner.run(cmd, self.work)
        if res["rc"] != 0 or not report.is_file():
            raise BenchError(f"axag lint -j {jobs} failed (exit {res['rc']}, report written: "
                             f"{report.is_file()}):\n{_tail(res['stderr'])}")
        try:
            res["findings"] = len(json.loads(report.read_text())["findings"])
        except (ValueError, KeyError, TypeError) as exc:
            raise BenchError(f"axag lint -j {jobs} wrote an unreadable JSON report: {exc}") from exc
        report.unlink()
        return res

    def compile(self, site: Path, jobs: int, tag: str, cache: Path | None = None) -> dict[str, Any]:
        output = self.out / f"tools-{tag}-j{jobs}.json"
        output.unlink(missing_ok=True)
        log = self.out / f"compile-{tag}-j{jobs}.log"
        cmd = self.axag + ["compile", str(site), "--root", str(site), "--isolated", "-o", str(output),
                           "--keep-going", "-j", str(jobs), "--cache-dir", str(cache or self.cold_cache())]
        res = self.runner.run(cmd, self.work, stdout=str(log))
        printed = log.read_text(errors="replace") + res["stderr"]
        if res["rc"] not in (0, 1) or not (output.is_file() or printed.strip()):
            raise BenchError(f"axag compile -j {jobs} failed (exit {res['rc']}):\n{_tail(printed)}")
        res["output_written"] = output.is_file()
        if output.is_file():
            data = output.read_bytes()
            res["sha256"] = hashlib.sha256(data).hexdigest()
            try:
                res["tools"] = len({tool["name"] for tool in json.loads(data)["tools"]})
            except (ValueError, KeyError, TypeError):
                res["tools"] = None
        else:
            res["sha256"] = None
            res["tools"] = None
        return res

    def floor(self, site: Path) -> dict[str, Any]:
        out = self.out / "floor.json"
        res = self.runner.run([sys.executable, os.path.abspath(__file__), "__floor__", str(site)], self.work,
                              stdout=str(out))
        if res["rc"] != 0:
            raise BenchError(f"parse floor failed:\n{_tail(res['stderr'])}")
        res["process_cpu_s"] = res.pop("cpu_s")  # the whole process, start-up included
        res.update(json.loads(out.read_text()))  # seconds and cpu_s: the read+parse loop only
        return res

    def stage(self, site: Path) -> dict[str, Any] | None:
        """axag's parse stage alone (`_stage_main`), or None when this Python cannot import axag."""
        out = self.out / "stage.json"
        res = self.runner.run([sys.executable, os.path.abspath(__file__), "__stage__", str(site)], self.work,
                              stdout=str(out))
        if res["rc"] != 0:
            return None
        parsed: dict[str, Any] = json.loads(out.read_text())
        return parsed

    # ---- the benchmark -------------------------------------------------------------------------------
    def measure_site(self, site: Path, repeat: int, tag: str, say: Callable[[str], None]) -> dict[str, Any]:
        floors: list[dict[str, Any]] = []
        runs: dict[str, list[dict[str, Any]]] = {"lint_j1": [], "lint_j2": [], "compile_j1": [],
                                                 "compile_j2": [], "lint_warm": [], "compile_warm": [],
                                                 "lint_changed": [], "compile_changed": []}
        stages: list[dict[str, Any]] = []
        # warm runs on a copy of the site (a page of it is changed; a given corpus is never touched), with a cache
        # filled once
        copy = self.work / f"{tag}-warm"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(site, copy, symlinks=True)
        pages = sorted(html_files(copy), key=lambda p: (p.stat().st_size, str(p)))
        changed = pages[len(pages) // 2]
        cache = self.work / "cache-warm"
        shutil.rmtree(cache, ignore_errors=True)
        self.lint(copy, 1, "warm", cache)
        self.compile(copy, 1, "warm", cache)
        plain = self.work / f"{tag}-plain"
        base = plain_copy(site, plain)  # its pages were just written: no read is needed to warm them
        base_runs: dict[str, list[dict[str, Any]]] = {"lint_j1": [], "compile_j1": []}
        for r in range(repeat):
            floors.append(self.floor(site))
            stage = self.stage(site)
            if stage is not None:
                stages.append(stage)
            for jobs in (1, 2):
                runs[f"lint_j{jobs}"].append(self.lint(site, jobs, tag))
            for jobs in (1, 2):
                runs[f"compile_j{jobs}"].append(self.compile(site, jobs, tag))
            runs["lint_warm"].append(self.lint(copy, 1, "warm", cache))
            runs["compile_warm"].append(self.compile(copy, 1, "warm", cache))
            with open(changed, "a", encoding="utf-8") as fh:
                fh.write(f"\n<!-- changed for run {r + 1} -->\n")
            runs["lint_changed"].append(self.lint(copy, 1, "changed", cache))
            runs["compile_changed"].append(self.compile(copy, 1, "changed", cache))
            if base["annotated_elements"]:
                base_runs["lint_j1"].append(self.lint(plain, 1, "plain"))
                base_runs["compile_j1"].append(self.compile(plain, 1, "plain"))
            say(f"  [{tag} {r + 1}/{repeat}] floor {floors[-1]['seconds']:.2f} s, "
                + ", ".join(f"{k} {v[-1]['wall_s']:.2f} s" for k, v in runs.items()))
        return {"floor": floors, "runs": runs, "stage": stages, "base": {**base, "runs": base_runs}}

    def cold_start(self, site: Path, runs: int) -> dict[str, Any]:
        files = sorted(html_files(site), key=lambda p: (p.stat().st_size, str(p)))
        pick = files[len(files) // 2]
        one = self.work / "cold"
        one.mkdir(exist_ok=True)
        target = one / "one-file.html"
        shutil.copyfile(pick, target)
        out = one / "tools.json"
        result: dict[str, Any] = {"file": str(pick.relative_to(site)), "bytes": target.stat().st_size}
        commands = {
            "python": [axag_python(self.axag), "-c", "pass"],
            "lint": self.axag + ["lint", "one-file.html"],
            "lint_no_cache": self.axag + ["lint", "one-file.html", "--no-cache"],
            "compile": self.axag + ["compile", "one-file.html", "-o", str(out)],
        }
        for name, cmd in commands.items():
            times, codes = [], []
            for _ in range(runs):
                res = self.runner.run(cmd, one, poll=False)
                times.append(res["wall_s"] * 1000)
                codes.append(res["rc"])
                if name != "python" and res["rc"] not in (0, 1):
                    raise BenchError(f"cold start {name} failed (exit {res['rc']}):\n{_tail(res['stderr'])}")
            result[name] = {"command": cmd, "runs_ms": [round(t, 1) for t in times],
                            "median_ms": _median(times), "exit_codes": sorted(set(codes))}
        return result


def build_corpus(args: argparse.Namespace, work: Path, say: Callable[[str], None]) -> dict[str, Any]:
    """The site and the site twice as large; returns the corpus description."""
    small, large = work / "site", work / "site-x2"
    if args.corpus:
        given = Path(args.corpus).resolve()
        if not given.is_dir():
            raise BenchError(f"--corpus {given} is not a folder")
        pages, size = warm_cache(given)
        if not pages:
            raise BenchError(f"--corpus {given} holds no .html pages")
        if args.corpus_large:
            large = Path(args.corpus_large).resolve()
            if not large.is_dir():
                raise BenchError(f"--corpus-large {large} is not a folder")
            large_pages, large_size = warm_cache(large)
            say(f"double-size site: --corpus-large {large}")
            how = f"--corpus-large {large}"
        else:
            say(f"copying {given} twice into {large} for the double-size site (same tools twice; "
                "--corpus-large takes a site built with make_site.py --copies 2)")
            for copy in range(2):
                shutil.copytree(given, large / f"copy-{copy}", symlinks=True)
            large_pages, large_size = 2 * pages, 2 * size
            how = "two copies of --corpus"
        return {"kind": "given", "description": f"--corpus {given}; double: {how}", "source": str(given),
                "dir": str(given), "large_dir": str(large), "copies": 1, "pages": pages, "bytes": size,
                "annotated_elements": None, "large_pages": large_pages, "large_bytes": large_size}
    if args.self_test:
        kind, src = "generated", None
        sources = generated_sources(pages=20, total_bytes=1_900_000)
    elif not args.generate and os.path.isdir(args.src) and docs_sources(args.src):
        kind, src = "python3.11-doc", args.src
        sources = docs_sources(args.src)
    else:
        if not args.generate:
            say(f"{args.src} not found (apt-get install -y python3.11-doc): generating pages instead")
        kind, src = "generated", None
        sources = generated_sources(pages=args.pages, total_bytes=args.generate_mb * 1_000_000)
    copies = args.copies
    info = build_site(str(small), sources, copies)
    while not args.self_test and info["bytes"] < MIN_CORPUS_BYTES:
        copies += 1
        say(f"site is {info['bytes'] / 1e6:.1f} MB < 50 MB: rebuilding with --copies {copies}")
        shutil.rmtree(small)
        info = build_site(str(small), sources, copies)
    large_info = build_site(str(large), sources, copies * 2)
    if kind == "python3.11-doc":
        description = f"python3.11-doc ({src}) with AXAG annotations injected (make_site.py logic)"
    else:
        description = ("generated documentation-like pages with AXAG annotations injected"
                       + (" (self-test size)" if args.self_test else " (python3.11-doc absent or --generate)"))
    return {"kind": kind, "description": description, "source": src, "dir": str(small), "large_dir": str(large),
            "copies": copies, "large_copies": copies * 2, **info,
            "large_pages": large_info["pages"], "large_bytes": large_info["bytes"]}


def run_bench(args: argparse.Namespace, work: Path, say: Callable[[str], None]) -> dict[str, Any]:
    started = time.perf_counter()
    result: dict[str, Any] = {
        "schema": "axag-bench/1",
        "started_utc": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus_affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "python": sys.version.split()[0],
            "loadavg_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        },
        "repeat": args.repeat,
    }
    bench = Bench(args, work)
    version = subprocess.run(bench.axag + ["--version"], capture_output=True, text=True, check=False)
    result["axag"] = {"command": bench.axag, "version": version.stdout.strip() or version.stderr.strip()}
    say(f"axag: {' '.join(bench.axag)} ({result['axag']['version']})")
    say(f"CPUs available (sched_getaffinity): {result['machine']['cpus_affinity']}")

    corpus = build_corpus(args, work, say)
    small, large = Path(corpus["dir"]), Path(corpus["large_dir"])
    corpus["pages"], corpus["bytes"] = warm_cache(small)
    corpus["large_pages"], corpus["large_bytes"] = warm_cache(large)
    corpus["below_50mb"] = corpus["bytes"] < MIN_CORPUS_BYTES
    result["corpus"] = corpus
    say(f"corpus: {corpus['description']}")
    say(f"  site:   {corpus['pages']} pages, {corpus['bytes'] / 1e6:.1f} MB in {small}")
    say(f"  double: {corpus['large_pages']} pages, {corpus['large_bytes'] / 1e6:.1f} MB in {large}")
    if corpus["below_50mb"] and not args.self_test:
        say("  WARNING: the corpus is below the 50 MB the performance targets assume")

    say(f"timing on the site, {args.repeat} interleaved repeat(s)...")
    measured = bench.measure_site(small, args.repeat, "site", say)
    floor_s = _median(f["seconds"] for f in measured["floor"])
    floor_cpu = _median(f["cpu_s"] for f in measured["floor"])
    result["floor"] = {"runs_s": [f["seconds"] for f in measured["floor"]], "median_s": floor_s,
                       "cpu_s": floor_cpu,
                       "pages": measured["floor"][0]["pages"], "bytes": measured["floor"][0]["bytes"],
                       "mb_per_s": measured["floor"][0]["bytes"] / 1e6 / floor_s,
                       "peak_rss_kb": _median(f["peak_rss_kb"] for f in measured["floor"])}
    stages = measured.get("stage") or []
    if stages:
        stage_s = _median(x["seconds"] for x in stages)
        result["parse_stage"] = {"runs_s": [x["seconds"] for x in stages], "median_s": stage_s,
                                 "ratio_to_floor": stage_s / floor_s}
    else:
        result["parse_stage"] = None
    runs: dict[str, Any] = {}
    for name, rs in measured["runs"].items():
        median = _median(r["wall_s"] for r in rs)
        cpu = _median(r["cpu_s"] for r in rs)
        runs[name] = {"runs_s": [r["wall_s"] for r in rs], "median_s": median, "ratio_to_floor": median / floor_s,
                      "cpu_s": cpu, "cpu_ratio_to_floor": cpu / floor_cpu,
                      "exit_codes": sorted({r["rc"] for r in rs}),
                      "peak_rss_kb": _median(r["peak_rss_kb"] for r in rs),
                      "tree_peak_kb": _median(r["tree_peak_kb"] or 0 for r in rs),
                      "ru_maxrss_kb": _median(r["ru_maxrss_kb"] for r in rs),
                      "max_procs": max(r["max_procs"] for r in rs)}
        if name.startswith("lint"):
            runs[name]["findings"] = rs[0]["findings"]
        else:
            runs[name]["tools"] = rs[0]["tools"]
            runs[name]["sha256"] = rs[0]["sha256"]
            runs[name]["output_written"] = all(r["output_written"] for r in rs)
    result["runs"] = runs
    result["base"] = base_figures(measured["base"], runs, floor_s)
    result["scaling"] = {"lint": runs["lint_j1"]["median_s"] / runs["lint_j2"]["median_s"],
                         "compile": runs["compile_j1"]["median_s"] / runs["compile_j2"]["median_s"]}
    result["compile_identical_j1_j2"] = runs["compile_j1"]["sha256"] == runs["compile_j2"]["sha256"]
    # the warm copy has the same pages (one with a comment added at its end): the same tools.json and findings
    result["cache_identical"] = (
        len({runs[n]["sha256"] for n in ("compile_j1", "compile_warm", "compile_changed")}) == 1
        and len({runs[n]["findings"] for n in ("lint_j1", "lint_warm", "lint_changed")}) == 1)

    big_runs = min(args.repeat, 3)
    say(f"memory on the double-size site ({big_runs} interleaved run(s) each, medians: peak RSS varies from run to "
        "run with hash seeds and heap layout)...")
    samples: dict[str, list[dict[str, Any]]] = {"lint_j1": [], "lint_j2": [], "compile_j1": [], "compile_j2": []}
    for _ in range(big_runs):
        samples["lint_j1"].append(bench.lint(large, 1, "x2"))
        samples["lint_j2"].append(bench.lint(large, 2, "x2"))
        samples["compile_j1"].append(bench.compile(large, 1, "x2"))
        samples["compile_j2"].append(bench.compile(large, 2, "x2"))
    big = {}
    for name, rs in samples.items():
        res = dict(rs[0])
        for key in ("peak_rss_kb", "tree_peak_kb", "ru_maxrss_kb", "wall_s"):
            res[key] = _median((r[key] or 0) for r in rs)
        res["peak_rss_runs_kb"] = [r["peak_rss_kb"] for r in rs]
        big[name] = res
    tools_small = runs["compile_j1"]["tools"] or 0
    tools_large = big["compile_j1"]["tools"] or 0
    extra_tools = max(0, tools_large - tools_small)
    result["tools"] = {"small": tools_small, "large": tools_large, "additional": extra_tools}
    result["findings"] = {"small": runs["lint_j1"]["findings"], "large": big["lint_j1"]["findings"]}
    memory: dict[str, Any] = {}
    for name, res in big.items():
        small_kb = runs[name]["peak_rss_kb"]
        bound = 1.1 * small_kb + KB_PER_TOOL * extra_tools
        memory[name] = {"small_kb": small_kb, "large_kb": res["peak_rss_kb"], "bound_kb": bound,
                        "large_tree_peak_kb": res["tree_peak_kb"], "large_ru_maxrss_kb": res["ru_maxrss_kb"],
                        "large_wall_s": res["wall_s"], "growth": res["peak_rss_kb"] / small_kb if small_kb else None,
                        "pass": res["peak_rss_kb"] <= bound}
    result["memory"] = memory

    say(f"cold start, {args.cold_runs} runs each...")
    result["cold_start"] = bench.cold_start(small, args.cold_runs)

    cpus = result["machine"]["cpus_affinity"] or 1
    targets = [
        ("lint -j1 (cold) <= 2.5 x floor", runs["lint_j1"]["ratio_to_floor"], "<=", 2.5),
        ("compile -j1 (cold) <= 2.5 x floor", runs["compile_j1"]["ratio_to_floor"], "<=", 2.5),
        ("lint warm <= 0.3 x floor", runs["lint_warm"]["ratio_to_floor"], "<=", 0.3),
        ("compile warm <= 0.3 x floor", runs["compile_warm"]["ratio_to_floor"], "<=", 0.3),
        ("lint, one page changed <= 0.35 x floor", runs["lint_changed"]["ratio_to_floor"], "<=", 0.35),
        ("compile, one page changed <= 0.35 x floor", runs["compile_changed"]["ratio_to_floor"], "<=", 0.35),
        ("lint -j2 >= 1.7 x faster than -j1", result["scaling"]["lint"], ">=", 1.7),
        ("compile -j2 >= 1.7 x faster than -j1", result["scaling"]["compile"], ">=", 1.7),
    ]
    for name in ("lint_j1", "lint_j2", "compile_j1", "compile_j2"):
        m = memory[name]
        targets.append((f"RSS(x2) {name.replace('_', ' -')} <= 1.1 x RSS + 4 KB x {extra_tools} tools (KB)",
                        m["large_kb"], "<=", m["bound_kb"]))
    cs = result["cold_start"]
    targets.append(("cold start lint one file <= 120 ms", cs["lint"]["median_ms"], "<=", 120.0))
    targets.append(("cold start lint one file <= 4 x python -c pass (ms)", cs["lint"]["median_ms"], "<=",
                    4 * cs["python"]["median_ms"]))
    targets.append(("cold start lint --no-cache one file <= 120 ms", cs["lint_no_cache"]["median_ms"], "<=", 120.0))
    targets.append(("cold start compile one file <= 150 ms", cs["compile"]["median_ms"], "<=", 150.0))
    result["targets"] = []
    for name, value, op, limit in targets:
        ok = value <= limit if op == "<=" else value >= limit
        entry = {"name": name, "value": value, "op": op, "limit": limit, "pass": bool(ok)}
        if "faster" in name and cpus < 2:
            entry["note"] = "only one CPU available: scaling cannot be measured"
        result["targets"].append(entry)
    result["all_pass"] = all(t["pass"] for t in result["targets"])
    result["machine"]["loadavg_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    result["duration_s"] = time.perf_counter() - started
    return result


def base_figures(base: dict[str, Any], runs: dict[str, Any], floor_s: float) -> dict[str, Any]:
    """The cold ``-j 1`` runs on the pages without their injected annotations (`plain_copy`), and what each
    annotated element adds: (annotated run - base run) / annotated elements, in ms (runs only where elements
    were removed). Figures, not targets."""
    out: dict[str, Any] = {k: base[k] for k in ("pages", "stripped", "annotated_elements")}
    for name, rs in base["runs"].items():
        if not rs:
            out[name] = None
            continue
        median = _median(r["wall_s"] for r in rs)
        out[name] = {"runs_s": [r["wall_s"] for r in rs], "median_s": median, "ratio_to_floor": median / floor_s,
                     "per_action_ms": (runs[name]["median_s"] - median) * 1000 / base["annotated_elements"]}
    return out


def report(result: dict[str, Any], say: Callable[[str], None]) -> None:
    m, c, f, runs = result["machine"], result["corpus"], result["floor"], result["runs"]
    say("")
    say("=== axag benchmark (the performance targets of docs/performance.md) ===")
    say(f"machine: {m['cpus_affinity']} CPUs (sched_getaffinity), {m['platform']}, Python {m['python']}, "
        f"load {m['loadavg_start'][0]:.2f} -> {m['loadavg_end'][0]:.2f}" if m["loadavg_start"] else "")
    say(f"corpus:  {c['description']}: {c['pages']} pages, {c['bytes'] / 1e6:.1f} MB "
        f"(double: {c['large_pages']} pages, {c['large_bytes'] / 1e6:.1f} MB)")
    load = max((m["loadavg_start"] or [0])[0], (m["loadavg_end"] or [0])[0])
    if load > (m["cpus_affinity"] or 1):
        say(f"WARNING: the machine was busy (load average up to {load:.1f} on {m['cpus_affinity']} CPUs): "
            "wall times, and -j2 scaling most of all, are inflated; the CPU-time ratios are steadier")
    say(f"repeat:  {result['repeat']} (medians)")
    say(f"floor    lxml.html.fromstring: {f['median_s']:.2f} s ({f['mb_per_s']:.1f} MB/s, CPU {f['cpu_s']:.2f} s), "
        "runs " + ", ".join(f"{x:.2f}" for x in f["runs_s"]))
    ps = result.get("parse_stage")
    if ps:
        say(f"stage    axag's parse stage alone (read, decode, start-tag pass, lxml parse; no model, rules or output): "
            f"{ps['median_s']:.2f} s = {ps['ratio_to_floor']:.2f} x floor")
    else:
        say("stage    axag's parse stage alone: not measured (this Python cannot import axag)")
    b = result.get("base") or {}
    if b.get("lint_j1") and b.get("compile_j1"):
        say(f"base     the same pages without their injected annotations ({b['stripped']} of {b['pages']} pages "
            f"stripped), cold -j1: lint {b['lint_j1']['median_s']:.2f} s = {b['lint_j1']['ratio_to_floor']:.2f} x "
            f"floor, compile {b['compile_j1']['median_s']:.2f} s = {b['compile_j1']['ratio_to_floor']:.2f} x floor")
        say(f"action   each of the {b['annotated_elements']} annotated elements adds (cold -j1 - base) / elements: "
            f"lint {b['lint_j1']['per_action_ms']:.3f} ms, compile {b['compile_j1']['per_action_ms']:.3f} ms")
    else:
        say("base     not measured (no page holds make_site.py's injected annotations)")
    for name, r in runs.items():
        extra = f"{r['findings']} findings" if "findings" in r else f"{r['tools']} tools"
        say(f"{name:<15} {r['median_s']:7.2f} s = {r['ratio_to_floor']:5.2f} x floor (CPU {r['cpu_s']:.2f} s = "
            f"{r['cpu_ratio_to_floor']:.2f} x); peak RSS "
            f"{r['peak_rss_kb'] / 1024:.1f} MB ({r['max_procs']} proc); exit {r['exit_codes']}; {extra}; runs "
            + ", ".join(f"{x:.2f}" for x in r["runs_s"]))
    s = result["scaling"]
    say(f"scaling  jobs1/jobs2: lint {s['lint']:.2f} x, compile {s['compile']:.2f} x")
    say(f"compile output identical for -j1 and -j2: {result['compile_identical_j1_j2']}; cold, warm and one page "
        f"changed give the same tools.json and findings: {result['cache_identical']}")
    t = result["tools"]
    say(f"tools    distinct: site {t['small']}, double {t['large']} (+{t['additional']}); findings: site "
        f"{result['findings']['small']}, double {result['findings']['large']}")
    for name, mem in result["memory"].items():
        say(f"memory   {name:<10} site {mem['small_kb'] / 1024:.1f} MB, double {mem['large_kb'] / 1024:.1f} MB "
            f"(x{mem['growth']:.2f}), bound {mem['bound_kb'] / 1024:.1f} MB")
    cs = result["cold_start"]
    py = cs["python"]["median_ms"]
    say(f"start    one-file.html = {cs['file']} ({cs['bytes'] / 1024:.0f} KB), median of {len(cs['lint']['runs_ms'])}: "
        f"lint {cs['lint']['median_ms']:.0f} ms ({cs['lint']['median_ms'] / py:.1f} x python -c pass), lint --no-cache "
        f"{cs['lint_no_cache']['median_ms']:.0f} ms ({cs['lint_no_cache']['median_ms'] / py:.1f} x), compile "
        f"{cs['compile']['median_ms']:.0f} ms; python -c pass {py:.0f} ms ({cs['python']['command'][0]})")
    say("targets:")
    for tg in result["targets"]:
        value, limit = tg["value"], tg["limit"]
        fmt = "{:.0f}" if limit > 100 else "{:.2f}"
        say(f"  {'PASS' if tg['pass'] else 'FAIL'}  {tg['name']}: {fmt.format(value)} {tg['op']} "
            f"{fmt.format(limit)}" + (f"  ({tg['note']})" if tg.get("note") else ""))
    say(f"overall: {'PASS' if result['all_pass'] else 'FAIL'}  ({result['duration_s']:.0f} s)")


def run_jsx(args: argparse.Namespace, work: Path, say: Callable[[str], None]) -> dict[str, Any]:
    """The JSX figure (tests/benchmarks/bench_jsx.py): axag lint -j1 over generated TSX components,
    as a ratio to tree-sitter's bare parse of the same files."""
    import bench_jsx

    bench = Bench(args, work)
    return bench_jsx.measure(bench, work, args.jsx_mb, args.repeat, say, lambda site: bench.lint(site, 1, "jsx"))


def bench_jsx_line(jsx: dict[str, Any]) -> str:
    import bench_jsx

    return bench_jsx.line(jsx)


REQUIRED = [
    "machine.cpus_affinity", "corpus.pages", "corpus.bytes", "corpus.large_bytes", "floor.median_s",
    *[f"runs.{n}.{k}" for n in ("lint_j1", "lint_j2", "compile_j1", "compile_j2", "lint_warm", "compile_warm",
                                "lint_changed", "compile_changed")
      for k in ("median_s", "ratio_to_floor", "peak_rss_kb")],
    "scaling.lint", "scaling.compile", "tools.small", "tools.large", "tools.additional",
    *[f"memory.{n}.{k}" for n in ("lint_j1", "lint_j2", "compile_j1", "compile_j2")
      for k in ("small_kb", "large_kb", "bound_kb")],
    "cold_start.lint.median_ms", "cold_start.lint_no_cache.median_ms", "cold_start.compile.median_ms",
    "cold_start.python.median_ms", "base.annotated_elements",
    *[f"base.{n}.{k}" for n in ("lint_j1", "compile_j1") for k in ("median_s", "ratio_to_floor", "per_action_ms")],
]


def missing_figures(result: dict[str, Any]) -> list[str]:
    missing = []
    # a given corpus that holds no injected annotations has no base (`plain_copy`)
    no_base = not (result.get("base") or {}).get("annotated_elements")
    for key in REQUIRED:
        if no_base and key.startswith("base."):
            continue
        node: Any = result
        for part in key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, (int, float)) or isinstance(node, bool) or not math.isfinite(node):
            missing.append(key)
    if len(result.get("targets", [])) != TARGETS or any(not isinstance(t.get("pass"), bool)
                                                         for t in result["targets"]):
        missing.append("targets")
    if result["corpus"].get("kind") not in ("python3.11-doc", "generated", "given"):
        missing.append("corpus.kind")
    return missing


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["__wrap__"]:
        return _wrap_main(argv[1])
    if argv[:1] == ["__floor__"]:
        return _floor_main(argv[1])
    if argv[:1] == ["__stage__"]:
        return _stage_main(argv[1])
    if argv[:1] == ["__tsparse__"]:
        import bench_jsx

        return bench_jsx.floor_main(argv[1])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", metavar="DIR", help="use this annotated site instead of building one")
    ap.add_argument("--corpus-large", metavar="DIR",
                    help="with --corpus: the double-size site (e.g. make_site.py --copies 2; default: --corpus "
                         "copied twice)")
    ap.add_argument("--src", default=DEFAULT_SRC, help="real HTML pages to annotate (default: %(default)s)")
    ap.add_argument("--generate", action="store_true", help="generate pages even when --src exists")
    ap.add_argument("--pages", type=int, default=500, help="generated pages (default: %(default)s)")
    ap.add_argument("--generate-mb", type=int, default=52, help="generated MB before annotation (default: 52)")
    ap.add_argument("--copies", type=int, default=1, help="copies of the source pages (the double uses 2x)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement, medians (default: 3)")
    ap.add_argument("--cold-runs", type=int, default=10, help="runs per cold start (default and minimum 10)")
    ap.add_argument("--axag", help="command to run axag (default: the axag script of this Python)")
    ap.add_argument("--json", default=None, help="write the results here (default: bench-results.json)")
    ap.add_argument("--workdir", help="build the sites here (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--jsx-mb", type=float, default=5.5,
                    help="MB of generated TSX components for the JSX figure (default: %(default)s)")
    ap.add_argument("--jsx-only", action="store_true", help="measure only the JSX figure")
    ap.add_argument("--self-test", action="store_true",
                    help="tiny 2 MB generated corpus, --repeat 1, check every figure is in the JSON")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.copies < 1:
        ap.error("--repeat and --copies must be at least 1")
    if args.corpus_large and not args.corpus:
        ap.error("--corpus-large needs --corpus")
    if args.self_test:
        args.repeat, args.cold_runs, args.copies, args.jsx_mb = 1, min(args.cold_runs, 3), 1, 0.3
    elif args.cold_runs < 10:
        ap.error("--cold-runs must be at least 10")

    def say(line: str) -> None:
        print(line, flush=True)

    work = Path(args.workdir).resolve() if args.workdir else Path(tempfile.mkdtemp(prefix="axag-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    json_path = Path(args.json) if args.json else (work if args.self_test else Path.cwd()) / "bench-results.json"
    try:
        try:
            if args.jsx_only:
                jsx = run_jsx(args, work, say)
                say(bench_jsx_line(jsx))
                return 0 if jsx["pass"] else 1
            result = run_bench(args, work, say)
            result["jsx"] = run_jsx(args, work, say)
        except BenchError as exc:
            print(f"bench: {exc}", file=sys.stderr)
            return 2
        report(result, say)
        say(bench_jsx_line(result["jsx"]))
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(result, indent=2) + "\n")
        say(f"results written to {json_path}")
        if args.self_test:
            missing = missing_figures(json.loads(json_path.read_text()))
            if missing:
                print("self-test: missing or non-numeric figures: " + ", ".join(missing), file=sys.stderr)
                return 1
            say(f"self-test OK: {len(REQUIRED)} figures and {len(result['targets'])} targets present in the JSON")
    finally:
        if not args.keep and not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
