"""scripts/benchmark.py search-training, with a small teacher and small iterations, two self-play
processes: it runs, prints its row, and its rates are consistent (the whole iteration is slower than
either of its parts)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest


@pytest.mark.parametrize("workers", [2])
def test_benchmark_search_training_runs(capsys, workers):
    pytest.importorskip("torch")
    path = Path(__file__).resolve().parent.parent / "scripts" / "benchmark.py"
    spec = importlib.util.spec_from_file_location("kardinal_benchmark_search_training", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = module.bench_search_training(2, 1, workers=workers, simulations=8, examples=20, envs=2)
    printed = capsys.readouterr().out
    assert f"{workers} self-play process(es), updates on cpu" in printed and "stored examples/s" in printed
    assert 0 < out["iteration"] < min(out["selfplay"], out["update"])
