"""The result cache reads each file as few times as it can: a first run, which finds no entries,
reads every file once (to check it), not once more to look for an entry; a warm run reads each file once
(for its digest) and parses none."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, run_axag


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from axag.files import read_whole

    seen: list[str] = []
    real = read_whole.read_regular

    def counting(path: Any) -> Any:
        seen.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(read_whole, "read_regular", counting)
    return seen


@pytest.mark.parametrize("command", [["lint", "--exit-zero"], ["compile", "--keep-going", "-o", "-"]])
def test_each_file_is_read_once_per_run(command: list[str], tmp_path: Path, reads: list[str]) -> None:
    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "site", site)
    names = sorted(p.name for p in site.rglob("*.html"))
    assert len(names) >= 3
    args = [command[0], ".", "--isolated", "-j", "1", "--cache-dir", str(tmp_path / "cache"), *command[1:]]
    cold = run_axag(args, cwd=site)
    assert sorted(reads) == names  # checked: read once; no entry: not read for a digest beforehand
    reads.clear()
    warm = run_axag(args, cwd=site)
    assert sorted(reads) == names  # every entry's file read once, for its digest
    assert warm.stdout == cold.stdout
    reads.clear()
    page = site / names[0]
    page.write_bytes(page.read_bytes() + b"\n<!-- changed -->\n")
    run_axag(args, cwd=site)
    assert sorted(reads) == sorted([*names, names[0]])  # the changed page: its digest, then its check


def test_a_warm_compile_does_not_compress_its_contracts_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Compile keeps the contracts it makes compressed (memory on big sites); those of cache hits stay as they
    were stored: a warm run would otherwise spend its time compressing every tool again."""
    from axag.compile import merge

    calls: list[int] = []
    real = merge.squeeze

    def counting(data: bytes) -> bytes:
        calls.append(len(data))
        return real(data)

    monkeypatch.setattr(merge, "squeeze", counting)
    site = tmp_path / "site"
    shutil.copytree(FIXTURES / "site", site)
    args = ["compile", ".", "--isolated", "-j", "1", "--keep-going", "-o", "-", "--cache-dir", str(tmp_path / "c")]
    cold = run_axag(args, cwd=site)
    assert calls  # the kept contracts of a cold run
    calls.clear()
    warm = run_axag(args, cwd=site)
    assert calls == []
    assert warm.stdout == cold.stdout
