"""scripts/benchmark.py puct, with a few simulations: it runs on both engines, prints every row, and
its bound (1 / the forward pass's share of the time) is at least 1; with playouts at the leaves too."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from helpers import kardinal_core_or_skip


def test_benchmark_puct_runs(capsys):
    pytest.importorskip("torch")
    kardinal_core_or_skip()
    path = Path(__file__).resolve().parent.parent / "scripts" / "benchmark.py"
    spec = importlib.util.spec_from_file_location("kardinal_benchmark_puct", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = module.bench_puct(2, 1, simulations=4)
    printed = capsys.readouterr().out
    assert "Python engine:" in printed and "core engine:" in printed and "network forward" in printed
    assert "(0 playouts a leaf, batch 8)" in printed
    assert out["python"] > 0 and out["core"] > 0 and out["ratio"] > 0 and out["bound"] >= 1.0
    module.bench_puct(2, 1, simulations=4, rollouts=2)
    assert "(2 playouts a leaf, batch 8)" in capsys.readouterr().out
