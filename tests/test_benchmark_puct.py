"""``scripts/benchmark.py puct`` (:func:`agents.benchmarks.bench_puct`), with a few simulations: it runs
on both engines, prints every row, and its bound (1 / the forward pass's share of the time) is at least
1; with playouts at the leaves too."""

from __future__ import annotations

import pytest
from helpers import kardinal_core_or_skip


def test_benchmark_puct_runs(capsys):
    pytest.importorskip("torch")
    kardinal_core_or_skip()
    from agents.benchmarks import bench_puct

    out = bench_puct(2, 1, simulations=4)
    printed = capsys.readouterr().out
    assert "Python engine:" in printed and "core engine:" in printed and "network forward" in printed
    assert "(0 playouts a leaf, batch 8)" in printed
    assert out["python"] > 0 and out["core"] > 0 and out["ratio"] > 0 and out["bound"] >= 1.0
    bench_puct(2, 1, simulations=4, rollouts=2)
    assert "(2 playouts a leaf, batch 8)" in capsys.readouterr().out
