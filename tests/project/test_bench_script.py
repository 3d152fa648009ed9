"""The benchmark script (tests/benchmarks/bench.py, not collected) still runs end to end and reports
every figure of performance targets: its --self-test mode builds a tiny generated corpus and checks its own JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmarks.bench import TARGETS  # the number of targets the script declares

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench.py"


def test_bench_self_test(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # the temporary corpus goes under tmp_path
    done = subprocess.run([sys.executable, str(BENCH), "--self-test", "--json", str(out)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "self-test OK" in done.stdout
    result = json.loads(out.read_text())
    assert result["corpus"]["kind"] == "generated"
    assert 1_500_000 < result["corpus"]["bytes"] < 3_000_000
    assert result["corpus"]["large_bytes"] > 1.9 * result["corpus"]["bytes"]
    assert result["repeat"] == 1
    names = [t["name"] for t in result["targets"]]
    assert len(names) == TARGETS and all(isinstance(t["pass"], bool) for t in result["targets"])
    for run in ("lint_j1", "lint_j2", "compile_j1", "compile_j2"):
        assert result["runs"][run]["median_s"] > 0
        assert result["memory"][run]["large_kb"] > 0
    for run in ("lint_warm", "compile_warm", "lint_changed", "compile_changed"):  # the result cache
        cold = result["runs"][run.split("_")[0] + "_j1"]
        assert result["runs"][run]["median_s"] > 0 and result["runs"][run]["exit_codes"] == cold["exit_codes"]
    assert result["cache_identical"] is True  # warm and one-page-changed runs give the cold run's outputs
    for name in ("lint warm <= 0.3 x floor", "compile warm <= 0.3 x floor", "lint, one page changed <= 0.35 x floor",
                 "lint -j1 (cold) <= 2.5 x floor", "cold start lint one file <= 4 x python -c pass (ms)"):
        assert name in names
    assert result["tools"]["small"] > 0 and result["cold_start"]["lint"]["median_ms"] > 0
    start = result["cold_start"]
    assert start["lint_no_cache"]["median_ms"] > 0 and start["python"]["median_ms"] > 0
    # the interpreter of this venv's axag script (its first line may name python3 where pytest runs python)
    assert os.path.samefile(start["python"]["command"][0], sys.executable)
    assert "python -c pass" in done.stdout and "lint_warm" in done.stdout and "compile_changed" in done.stdout
    assert result["parse_stage"]["ratio_to_floor"] > 0  # axag's parse stage alone, against the same floor
    assert "stage    axag's parse stage alone" in done.stdout
    base = result["base"]  # the same pages without their injected annotations, and what each annotated element adds
    assert base["stripped"] == base["pages"] == result["corpus"]["pages"]
    assert base["annotated_elements"] == result["corpus"]["annotated_elements"]
    for run in ("lint_j1", "compile_j1"):
        assert base[run]["median_s"] > 0 and base[run]["per_action_ms"] == pytest.approx(
            (result["runs"][run]["median_s"] - base[run]["median_s"]) * 1000 / base["annotated_elements"])
    assert "action   each of the" in done.stdout
    jsx = result["jsx"]  # generated TSX components against tree-sitter's bare parse
    assert jsx["files"] > 0 and jsx["ratio"] > 0 and jsx["cpu_ratio"] > 0 and isinstance(jsx["pass"], bool)
    assert "x tree-sitter parse" in done.stdout
    assert not list(tmp_path.glob("axag-bench-*")), "the temporary corpus is cleaned up"


def test_bench_takes_the_double_site_given(tmp_path: Path) -> None:
    """--corpus-large names the double-size site (a make_site.py --copies 2 build, with its own tools)."""
    import shutil

    site = Path(__file__).resolve().parents[2] / "fixtures" / "site"
    small, large = tmp_path / "small", tmp_path / "large"
    shutil.copytree(site, small)
    for copy in range(2):
        shutil.copytree(site, large / f"copy-{copy}")
    out = tmp_path / "bench.json"
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, str(BENCH), "--self-test", "--corpus", str(small), "--corpus-large",
                           str(large), "--json", str(out)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=240, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["corpus"]["kind"] == "given"
    assert result["corpus"]["large_dir"] == str(large)
    assert "--corpus-large" in result["corpus"]["description"]
    assert result["corpus"]["large_pages"] == 2 * result["corpus"]["pages"]
    bad = subprocess.run([sys.executable, str(BENCH), "--corpus-large", str(large)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=240, check=False)
    assert bad.returncode == 2 and "--corpus-large needs --corpus" in bad.stderr
