"""``init_weights``: a new run (PPO or search-based) that starts from a trained network's weights, e.g.
fine-tuning a zoo model; the anchor of ``anchor_kl`` is then that network; bad values are refused naming
the key."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

import torch  # noqa: E402
from helpers import TINY_TRAINING  # noqa: E402

from agents import load_agent  # noqa: E402
from agents.networks.checkpoint import read_checkpoint  # noqa: E402
from agents.training.config import ConfigError, make_config  # noqa: E402
from agents.training.run import make_trainer, train  # noqa: E402
from agents.training.search_training import SearchTrainer  # noqa: E402
from agents.training.trainer import Trainer  # noqa: E402

TINY = TINY_TRAINING
ZOO_NET = {"channels": 64, "blocks": 4, "hidden": 64}  # the network options of zoo:kardinal-2p's cnn


def _same_weights(a: dict, b: dict) -> bool:
    return set(a) == set(b) and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> str:
    """A tiny PPO checkpoint to start from."""
    out = tmp_path_factory.mktemp("runs")
    return train({**TINY, "runs_dir": str(out), "run_name": "source", "seed": 3})


def test_a_ppo_run_starts_from_the_weights_and_moves_away_from_them(trained, tmp_path):
    source, _ = read_checkpoint(trained)
    cfg = make_config(("test", {**TINY, "runs_dir": str(tmp_path), "run_name": "ft", "init_weights": f"ppo:{trained}"}))
    trainer = Trainer(cfg)
    assert _same_weights(trainer.net.state_dict(), source["model"])
    assert trainer.global_step == 0 and trainer.pool == [] and trainer.anchor is None  # only the weights
    ckpt, _ = read_checkpoint(trainer.run())
    assert ckpt["step"] >= 60 and not _same_weights(ckpt["model"], source["model"])
    assert ckpt["config"]["init_weights"] == f"ppo:{trained}"


def test_with_anchor_kl_the_starting_network_is_the_anchor(trained, tmp_path):
    source, _ = read_checkpoint(trained)
    opts = {**TINY, "runs_dir": str(tmp_path), "run_name": "anchored", "init_weights": f"ppo:{trained}"}
    ckpt, _ = read_checkpoint(train({**opts, "anchor_kl": 0.5}))
    assert _same_weights(ckpt["anchor"], source["model"])
    assert not _same_weights(ckpt["model"], source["model"])
    trainer = Trainer(make_config(("test", {**opts, "anchor_kl": 0.5, "total_steps": 200})), checkpoint=ckpt)
    stats = trainer.update(trainer.collect_rollout())
    assert stats["anchor_kl"] > 0.0  # the resumed run keeps the same anchor, and PPO has left it


def test_a_search_run_starts_from_a_zoo_model(tmp_path):
    cfg = make_config(
        (
            "test",
            {
                **TINY,
                **ZOO_NET,
                "algorithm": "search",
                "simulations": 4,
                "fast_simulations": 2,
                "runs_dir": str(tmp_path),
                "init_weights": "zoo:kardinal-2p-cnn",
            },
        )
    )
    trainer = make_trainer(cfg)
    assert isinstance(trainer, SearchTrainer)
    zoo = load_agent("zoo:kardinal-2p-cnn", game="kardinal").net
    assert _same_weights(trainer.net.state_dict(), zoo.state_dict())


def test_an_advised_run_starts_from_the_advised_zoo_model_and_refuses_it_for_a_cnn(tmp_path):
    opts = {**TINY, **ZOO_NET, "runs_dir": str(tmp_path), "init_weights": "zoo:kardinal-2p"}
    trainer = Trainer(make_config(("test", {**opts, "network": "advised"})))
    zoo = load_agent("zoo:kardinal-2p", game="kardinal").net
    assert _same_weights(trainer.net.state_dict(), zoo.state_dict())
    with pytest.raises(ConfigError, match=r"'init_weights': the network of 'zoo:kardinal-2p' is .*'kind': 'advised'"):
        Trainer(make_config(("test", opts)))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"init_weights": "greedy"}, "'init_weights'.*greedy agent, not a network"),
        ({"init_weights": "ppo:no/such/file.pt"}, "'init_weights'.*no checkpoint file"),
        ({"init_weights": "zoo:kardinal-koenig-4p"}, "'init_weights'.*trained on kardinal_koenig_v[0-9]+"),
        ({"init_weights": "zoo:kardinal-2p", "bc_games": 10}, "'init_weights' and 'bc_games'.*two starting points"),
    ],
)
def test_bad_init_weights_are_refused_naming_the_key(changes, message):
    with pytest.raises(ConfigError, match=message):
        make_config(("test", {**TINY, **changes}))


def test_a_network_of_other_options_is_refused_naming_both(tmp_path):
    cfg = make_config(("test", {**TINY, "runs_dir": str(tmp_path), "init_weights": "zoo:kardinal-2p"}))
    with pytest.raises(ConfigError, match=r"'init_weights': the network of 'zoo:kardinal-2p' is .*'channels': 64"):
        Trainer(cfg)
