"""``scripts/benchmark.py search-training`` (:func:`agents.benchmarks.bench_search_training`), with a
small teacher and small iterations, two self-play processes: it runs, prints its row, and its rates are
consistent (the whole iteration is slower than either of its parts)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("workers", [2])
def test_benchmark_search_training_runs(capsys, workers):
    pytest.importorskip("torch")
    from agents.benchmarks import bench_search_training

    out = bench_search_training(2, 1, workers=workers, simulations=8, examples=20, envs=2)
    printed = capsys.readouterr().out
    assert f"{workers} self-play process(es), updates on cpu" in printed and "stored examples/s" in printed
    assert 0 < out["iteration"] < min(out["selfplay"], out["update"])
