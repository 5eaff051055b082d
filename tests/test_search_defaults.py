"""A checkpoint's own defaults for its network's search (``search_defaults``): checked when the
checkpoint is read, written by ``python scripts/zoo.py search-defaults``, taken by ``puct:N:PATH``
unless an argument says otherwise, and stated by the card of a zoo model that records them."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

import torch  # noqa: E402

from agents import load_agent  # noqa: E402
from agents.networks.checkpoint import (  # noqa: E402
    CheckpointError,
    read_checkpoint,
    search_defaults,
    with_search_defaults,
    write_checkpoint,
)
from agents.search.puct import PUCTAgent  # noqa: E402
from agents.zoo import card_path, main, model_path, names  # noqa: E402


@pytest.fixture
def tiny_checkpoint(tmp_path):
    from helpers import tiny_training_checkpoint

    return tiny_training_checkpoint(tmp_path / "train.pt", {"score_shaping": 0.1}, step=3)


def test_the_search_takes_a_checkpoints_defaults_unless_told_otherwise(tiny_checkpoint, tmp_path):
    plain = PUCTAgent.from_checkpoint(tiny_checkpoint, 8)
    assert (plain.batch_size, plain.c_puct, plain.score_shaping) == (8, 1.5, 0.1)  # constructor, training config
    out = write_checkpoint(with_search_defaults(tiny_checkpoint, batch_size=1, score_shaping=0.02), tmp_path / "s.pt")
    ckpt = torch.load(out, weights_only=True)
    assert ckpt["search_defaults"] == {"batch_size": 1, "score_shaping": 0.02}
    assert "optimizer" not in ckpt, "the training state is dropped"
    searched = PUCTAgent.from_checkpoint(out, 8)
    assert (searched.batch_size, searched.c_puct, searched.score_shaping) == (1, 1.5, 0.02)
    told = PUCTAgent.from_checkpoint(out, 8, batch_size=4, score_shaping=0.0)
    assert (told.batch_size, told.score_shaping) == (4, 0.0)
    spec = load_agent(f"puct:8:{out}", "kardinal")
    assert (spec.batch_size, spec.score_shaping) == (1, 0.02)
    # merged into what is recorded; None removes a key, and nothing left removes the entry
    merged = write_checkpoint(with_search_defaults(out, c_puct=2.0, batch_size=None), tmp_path / "m.pt")
    assert torch.load(merged, weights_only=True)["search_defaults"] == {"score_shaping": 0.02, "c_puct": 2.0}
    cleared = with_search_defaults(merged, c_puct=None, score_shaping=None)
    assert "search_defaults" not in cleared


@pytest.mark.parametrize(
    "defaults, message",
    [
        ({"simulations": 32}, "has 'simulations'"),
        ({"batch_size": 0}, "batch_size must be an integer from 1 to 1000000"),
        ({"batch_size": True}, "batch_size must be an integer from 1 to 1000000"),
        ({"batch_size": 1.5}, "batch_size must be an integer from 1 to 1000000"),
        ({"c_puct": 0.0}, "c_puct must be a positive number"),
        ({"c_puct": float("inf")}, "c_puct must be a positive number"),
        ({"score_shaping": -0.1}, "score_shaping must be a finite number >= 0"),
        ({"score_shaping": "0.02"}, "score_shaping must be a finite number >= 0"),
        ({"rollouts": -1}, "rollouts must be an integer from 0 to 1000000"),
        ({"rollouts": 2.0}, "rollouts must be an integer from 0 to 1000000"),
        ({"rollout_weight": 1.5}, r"rollout_weight must be a number in \[0, 1\]"),
        ({"rollout_weight": float("nan")}, r"rollout_weight must be a number in \[0, 1\]"),
    ],
)
def test_bad_search_defaults_are_refused_naming_the_entry(tiny_checkpoint, tmp_path, defaults, message):
    with pytest.raises(CheckpointError, match=message):
        with_search_defaults(tiny_checkpoint, **defaults)
    ckpt = torch.load(tiny_checkpoint, weights_only=True)
    ckpt["search_defaults"] = defaults
    bad = write_checkpoint(ckpt, tmp_path / "bad.pt")
    with pytest.raises(CheckpointError, match=message):
        read_checkpoint(bad)
    with pytest.raises(CheckpointError, match="expected a dict"):
        search_defaults({"search_defaults": [("batch_size", 1)]})
    if "simulations" not in defaults:  # the search refuses the same value as an argument, in the same words
        with pytest.raises(ValueError, match="puct: " + message):
            PUCTAgent.from_checkpoint(tiny_checkpoint, 8, **defaults)


def test_zoo_command_line_writes_search_defaults(tiny_checkpoint, tmp_path, capsys):
    out = tmp_path / "searched.pt"
    assert main(["search-defaults", str(out), tiny_checkpoint, "--batch-size", "1", "--c-puct", "2"]) == 0
    assert "search defaults {'batch_size': 1, 'c_puct': 2.0}" in capsys.readouterr().out
    assert torch.load(out, weights_only=True)["search_defaults"] == {"batch_size": 1, "c_puct": 2.0}
    playouts = tmp_path / "playouts.pt"
    assert main(["search-defaults", str(playouts), str(out), "--rollouts", "4", "--rollout-weight", "0.75"]) == 0
    recorded = torch.load(playouts, weights_only=True)["search_defaults"]
    assert recorded == {"batch_size": 1, "c_puct": 2.0, "rollouts": 4, "rollout_weight": 0.75}
    searched = load_agent(f"puct:8:{playouts}", "kardinal")
    assert (searched.batch_size, searched.rollouts, searched.rollout_weight) == (1, 4, 0.75)
    assert main(["search-defaults", str(tmp_path / "no.pt"), tiny_checkpoint, "--batch-size", "0"]) == 2
    assert "batch_size must be an integer from 1 to 1000000" in capsys.readouterr().out
    assert not (tmp_path / "no.pt").exists()


@pytest.mark.parametrize("name", sorted(names()))
def test_a_zoo_models_card_states_its_search_defaults(name):
    ckpt, _ = read_checkpoint(model_path(name), build=False)
    card = open(card_path(name), encoding="utf-8").read()
    for key, value in search_defaults(ckpt).items():
        assert f"`{key}={value}`" in card, f"the card of zoo:{name} must state its search default {key}={value}"
