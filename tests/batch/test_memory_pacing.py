"""Memory pacing of a run: a checked file's model frees itself by reference counting (its cycles are
broken when the file is done), so that the run collects garbage only when young objects pile up, not after
every file."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

import pytest

from axag.batch import memory
from axag.config.settings import Settings
from axag.lint.engine import Request, check_file

PAGE = b"""<!doctype html><html><body>
<section axag-scope="tenant" axag-tenant-boundary="strict" axag-required-roles='["staff"]'>
  <form action="/orders" method="post" axag-intent="order.create" axag-entity="order" axag-action-type="write"
        axag-risk-level="low" axag-idempotent="false" axag-preconditions='["quantity >= 1"]'>
    <label for="q">Quantity</label><input id="q" name="quantity" type="number" min="1" required>
    <button type="submit">Order</button>
  </form>
  <button axag-intent="order.cancel" axag-action-type="delete" axag-risk-level="high">Cancel</button>
</section>
</body></html>
"""


@pytest.mark.parametrize("mode", ["lint", "compile"])
def test_a_checked_page_is_freed_without_a_garbage_collection(tmp_path: Path, monkeypatch: Any, mode: str) -> None:
    from axag.model import actions

    made: list[Any] = []
    build = actions.build_model

    def spy(pf: Any, **kw: Any) -> Any:
        model = build(pf, **kw)
        made.append((weakref.ref(model), weakref.ref(pf), [weakref.ref(a) for a in model.actions]))
        return model

    monkeypatch.setattr(actions, "build_model", spy)
    page = tmp_path / "page.html"
    page.write_bytes(PAGE)
    request = Request(mode=mode, want_contracts=True, compile_root=tmp_path)
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        outcome = check_file(page, "page.html", "page.html", Settings(base=tmp_path), request)
        assert [f.code for f in outcome.findings if f.code >= 190] == []
        assert len(outcome.contracts) == 2
        (model, pf, acts), = made
        assert len(acts) == 2
        # no collection ran: only reference counting can have freed them
        assert model() is None
        assert pf() is None
        assert [a() for a in acts] == [None, None]
    finally:
        if enabled:
            gc.enable()


def test_file_done_collects_only_when_young_objects_pile_up(monkeypatch: Any) -> None:
    calls: list[int] = []
    monkeypatch.setattr(memory.gc, "collect", lambda generation=2: calls.append(generation) or 0)
    monkeypatch.setattr(memory, "release_memory", lambda: calls.append(-1))
    monkeypatch.setattr(memory, "_COLLECTIONS", 0)
    young = [100]
    monkeypatch.setattr(memory.gc, "get_count", lambda: (young[0], 0, 0))
    with memory.bulk_gc():
        for _ in range(1, 50):
            memory.file_done(1000)
        assert calls == []  # few young objects: no scan of every file's survivors
        young[0] = memory.YOUNG_LIMIT
        for _ in range(1, 9):
            memory.file_done(1000)
        assert calls == [0] * 7 + [1]  # the older generation at every eighth collection
        calls.clear()
        young[0] = 10
        memory.file_done(memory.BIG_FILE)
        assert calls == [0, -1]  # a big page: collected and its memory given back at once


def test_packed_contracts_are_small_and_unpack_to_the_same_contract(tmp_path: Path) -> None:
    """The contracts a run keeps grow with the number of distinct tools (RSS bound of the double site): the
    output schema every tool shares is left out of each, and compile keeps them compressed."""
    import pickle

    from axag.compile.contract import output_schema
    from axag.compile.merge import ContractIndex, PackedContract, mcp_fragment

    page = tmp_path / "page.html"
    page.write_bytes(PAGE)
    request = Request(mode="compile", want_contracts=True, compile_root=tmp_path)
    outcome = check_file(page, "page.html", "page.html", Settings(base=tmp_path), request)
    contracts = [c for c, _errors in outcome.contracts]
    for contract in contracts:
        plain = len(pickle.dumps(contract, pickle.HIGHEST_PROTOCOL)) + len(mcp_fragment(contract) or "")
        packed = PackedContract.pack(contract)  # what a cache entry holds
        assert packed.fragment is not None and packed.blob[:1] == b"\x80"
        assert len(packed.blob) + len(packed.fragment) < plain * 2 / 3
        kept = packed.squeezed()  # what compile keeps for the whole run
        assert kept.fragment is not None
        assert len(kept.blob) + len(kept.fragment) < plain / 4
        assert kept.squeezed() is kept
        for p in (packed, kept):
            assert p.tool_text() == mcp_fragment(contract)
            assert p.unpack() == contract
            assert p.unpack().tool["outputSchema"] is output_schema()
        lint = PackedContract.pack(contract, fragment=False)  # lint: no tool text, a plain pickle
        assert lint.fragment is None and lint.tool_text() is None
        assert lint.blob == packed.blob
    index = ContractIndex(fragments=True)
    index.add(outcome)
    kept_blobs = [p.blob[:1] for variants in index.by_intent.values() for p, _ in variants.values()]
    assert kept_blobs == [b"x"] * len(contracts)  # zlib data


def test_cache_hits_are_out_of_the_young_generation_when_a_file_is_checked(tmp_path: Path, monkeypatch: Any) -> None:
    """A run with one page changed: the outcomes of the cache hits live to its end, so the collection that may
    follow the checked page does not scan them (they are frozen when they are added)."""
    from axag import api
    from axag.outcome.findings import Finding
    from tests.conftest import run_axag

    site = tmp_path / "site"
    site.mkdir()
    for name in ("a.html", "b.html", "c.html"):
        (site / name).write_bytes(PAGE)
    args = ["lint", ".", "--isolated", "-j", "1", "--exit-zero", "--cache-dir", str(tmp_path / "cache")]
    run_axag(args, cwd=site)
    (site / "b.html").write_bytes(PAGE + b"<!-- changed -->\n")
    young: list[int] = []
    real = api.file_done

    def seeing(size: int = 0) -> None:
        young.append(sum(isinstance(o, Finding) for o in gc.get_objects(generation=0)))
        real(size)

    monkeypatch.setattr(api, "file_done", seeing)
    out = run_axag([*args, "--output-format", "json"], cwd=site)
    per_page = out.stdout.count('"path": "b.html"')
    assert per_page >= 5
    assert len(young) == 1
    assert young[0] <= per_page  # (at most) the changed page's own findings, not those of the two hits
