"""Strength curves over training CPU time (agents/evaluation/curves.py) on a real tiny run."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("matplotlib")

from agents.evaluation.curves import curve_markdown, main, run_checkpoints, strength_curve  # noqa: E402
from agents.training import train  # noqa: E402


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    train(
        {
            "total_steps": 250,  # an iteration plays whole games: about 96 steps
            "steps_per_iter": 20,
            "num_envs": 2,
            "channels": 4,
            "blocks": 1,
            "hidden": 8,
            "checkpoint_interval": 1,
            "eval_games": 0,
            "final_eval_games": 0,
            "progress": False,
            "track": False,
            "runs_dir": str(root),
            "run_name": "tiny",
        }
    )
    return root / "tiny"


def test_checkpoints_come_in_step_order_with_growing_cpu_time(run_dir):
    found = run_checkpoints(run_dir)
    steps = [step for _, step, _ in found]
    assert len(found) == 3 and steps == sorted(steps)
    cpu = [c for _, _, c in found]
    assert all(c is not None and c > 0 for c in cpu) and cpu == sorted(cpu)
    assert [s for _, s, _ in run_checkpoints(run_dir, every=2)] == [steps[0], steps[2]]


def test_a_run_without_numbered_checkpoints_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no checkpoint_STEP.pt"):
        run_checkpoints(tmp_path)


def test_curve_rows_tables_and_files(run_dir, tmp_path, capsys, monkeypatch):
    rows = strength_curve(run_dir, ["random"], games=2, every=2)
    assert [r["opponent"] for r in rows] == ["random", "random"]
    for r in rows:
        assert r["games"] == 2 and 0.0 <= r["win_rate"] <= 1.0
        assert r["win_ci95"][0] <= r["win_rate"] <= r["win_ci95"][1]
    table = curve_markdown({"tiny": rows})
    assert "| step | CPU hours | vs `random` |" in table and f"| {rows[-1]['step']:,} |" in table
    assert (
        main([f"tiny={run_dir}", "--opponents", "random", "--games", "2", "--every", "3", "--out", str(tmp_path)]) == 0
    )
    saved = json.loads((tmp_path / "curves.json").read_text())
    assert list(saved) == ["tiny"] and (tmp_path / "curves.png").stat().st_size > 1000
    before = (tmp_path / "curves.json").read_text()
    calls = []
    import agents.evaluation.tournament as tournament

    real = tournament.evaluate
    monkeypatch.setattr(tournament, "evaluate", lambda *a, **k: calls.append(1) or real(*a, **k))
    # the same points again: reused from curves.json, nothing is played
    argv = [f"tiny={run_dir}", "--opponents", "random", "--games", "2", "--every", "3", "--out", str(tmp_path)]
    assert main(argv) == 0
    assert calls == [] and json.loads((tmp_path / "curves.json").read_text()) == json.loads(before)
    assert main([str(tmp_path / "nothing"), "--out", str(tmp_path)]) == 2
    assert "no checkpoint_STEP.pt" in capsys.readouterr().out
