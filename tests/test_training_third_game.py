"""Self-play training of a game registered from a test (Nim, ``tests/third_game.py``), not from the
package: the generic adapter (the game's codec and encoder), the generic MLP, a checkpoint that
``load_agent("ppo:PATH")`` plays, resume, and the config checks that come from the registry entry."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import third_game  # noqa: E402
from helpers import tiny_run  # noqa: E402

from agents import load_agent  # noqa: E402
from agents.networks.checkpoint import (  # noqa: E402
    make_checkpoint,
    network_builder,
    read_checkpoint,
    write_checkpoint,
)
from agents.networks.mlp import MLPNet  # noqa: E402
from agents.networks.ppo_agent import FlatPPOAgent, PPOAgent  # noqa: E402
from agents.registry import GameAgents, register_agents, unregister_agents  # noqa: E402
from agents.training import run as trainer  # noqa: E402
from agents.training import trainer as trainer_module  # noqa: E402
from agents.training.adapters import FlatAdapter, make_adapter  # noqa: E402
from agents.training.config import ConfigError, make_config  # noqa: E402
from kardinal_env.core.registry import register_game, unregister_game  # noqa: E402

torch.set_num_threads(1)

TINY = tiny_run("nim", total_steps=300, eval_games=4, final_eval_games=6, checkpoint_interval=1)
TINY.update(greedy_share=0.3, pool_share=0.2, random_share=0.2, snapshot_interval=1)  # the opponents
TINY.update(bc_games=100, bc_epochs=30, bc_learning_rate=0.01)  # the warm start


@pytest.fixture(scope="module")
def nim():
    with third_game.registered() as spec:
        yield spec


@pytest.fixture(scope="module")
def nim_run(nim, tmp_path_factory):
    out = tmp_path_factory.mktemp("nim_runs")
    return trainer.train(dict(TINY, runs_dir=str(out), run_name="nim"))


def test_the_generic_adapter_and_network(nim):
    cfg = make_config(("test", {"game": "nim", "hidden": 8}))
    assert (cfg.players, cfg.resolved_network()) == (2, "mlp")
    adapter = make_adapter(cfg)
    assert type(adapter) is FlatAdapter and adapter.opponents == ("random", "greedy")
    net = adapter.build_net()
    assert isinstance(net, MLPNet) and net.config == {"kind": "mlp", "obs_size": 15, "num_actions": 3, "hidden": 8}
    game = adapter.new_game(np.random.default_rng(0))
    d = adapter.prepare(game)
    assert d.mask.tolist() == [True, True, True] and d.obs.shape == (15,) and d.obs.dtype == np.float32
    stored, moves, logp, values = adapter.policy_step(net, [d], greedy=True)
    assert moves[0] in adapter.legal(game) and stored[0] == moves[0] and np.isfinite(logp).all()
    for move in (2, 2):  # action 2 takes 3 stones: 6 left
        adapter.apply(game, move)
    adapter.apply(game, adapter.baseline_move("greedy", game, random.Random(0)))  # the registry's greedy baseline
    assert game.history == ["3", "3", "2"] and game.pile == 4  # it leaves a multiple of 4


def test_training_writes_a_checkpoint_of_the_third_game(nim_run):
    ckpt, net = read_checkpoint(nim_run)
    assert (ckpt["format"], ckpt["game"], ckpt["env"]) == ("kardinal-checkpoint/2", "nim", "nim_v0")
    assert ckpt["layout"] == {"env": "nim_v0", "observation_shape": [15], "num_actions": 3, "network": "mlp"}
    assert ckpt["rules"] == {"players": 2, "pile": 12, "max_take": 3, "misere": False}
    assert isinstance(net, MLPNet) and ckpt["step"] >= 300 and len(ckpt["pool"]) >= 1
    assert set(ckpt["winrates"]) == {"random", "greedy"}
    assert all(0.0 <= v <= 1.0 for v in ckpt["winrates"].values())


def test_load_agent_plays_the_checkpoint(nim, nim_run):
    agent = load_agent(f"ppo:{nim_run}", seed=0)
    assert isinstance(agent, FlatPPOAgent) and agent.name == f"ppo:{nim_run}"
    rng = random.Random(1)
    for seat in (0, 1):
        game = nim.new_game(nim.rules())
        while not game.is_over:
            if game.current_player == seat:
                move = agent.select_move(game)
            else:
                move = rng.choice(game.legal_moves())
            assert move in game.legal_moves()
            game.play(move)
    # the warm start imitated the greedy baseline (the game's own, from its registry entry), which is
    # right near the end: take the last stones
    for moves in (["3", "3", "3"], ["3", "3", "3", "1"], ["3", "3", "3", "2"]):
        game = nim.new_game(nim.rules())
        for move in moves:
            game.play(move)
        assert agent.select_move(game) == str(game.pile)
        legal, prior, value = agent.policy_value([game])[0]
        assert legal.tolist() == list(range(game.pile)) and abs(prior.sum() - 1) < 1e-9 and np.isfinite(value)
    # another pile is another observation layout: refused, naming it
    with pytest.raises(
        ValueError, match=r"cannot play these nim rules: observation_shape \[15\] \(trained\) vs \[17\]"
    ):
        agent.select_move(nim.new_game(nim.rules(pile="14")))


def test_the_agent_acts_on_environment_observations(nim, nim_run):
    agent = PPOAgent.from_checkpoint(nim_run, greedy=False, seed=2)
    rules = nim.rules()
    game, encoder = nim.new_game(rules), nim.make_encoder(rules)
    while not game.is_over:
        seat = game.current_player
        mask = np.zeros(game.num_actions, dtype=np.int8)
        mask[game.legal_actions()] = 1
        a = agent.act(encoder.encode(game, seat), mask)
        assert a in game.legal_actions()
        game.apply_action(a)


def test_resume_continues_a_third_game_run(nim_run, tmp_path):
    step = read_checkpoint(nim_run)[0]["step"]
    new = trainer.train({"runs_dir": str(tmp_path), "run_name": "more"}, resume=nim_run, total_steps=step + 100)
    assert read_checkpoint(new)[0]["step"] > step
    with pytest.raises(ConfigError, match="the network of the checkpoint is"):
        trainer.train({"runs_dir": str(tmp_path), "hidden": 32}, resume=nim_run)
    with pytest.raises(ConfigError, match="trained on nim"):
        trainer.train({"runs_dir": str(tmp_path), "game": "kardinal", "players": 2}, resume=nim_run)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"preset": "german"}, "'preset' (preset: test): an option of game kardinal, not nim (its rule options: "),
        ({"discard": "any"}, "an option of game kardinal_koenig, not nim"),
        ({"chip_shaping": 0.1}, "not allowed for game nim (it has no chips)"),
        ({"network": "graph"}, "'graph' is not a network of game nim; expected auto or one of mlp"),
        ({"players": 4}, "4 is not allowed for game nim; expected an integer from 2 to 3"),
    ],
)
def test_config_checks_come_from_the_registry_entry(nim, options, message):
    with pytest.raises(ConfigError) as info:
        make_config(("test", dict(options, game="nim")))
    assert message in str(info.value)


def test_a_game_without_a_greedy_baseline_trains_against_random(nim, tmp_path):
    spec = dataclasses.replace(
        nim,
        name="nim_plain",
        record_format="nim-plain-record/1",
        env_id=None,
        gym_id=None,
    )  # no agents' entry: the game has the random baseline only
    register_game(spec)
    try:
        with pytest.raises(ConfigError, match="'greedy_share' .*no baseline 'greedy'"):
            make_config(("test", {"game": "nim_plain", "greedy_share": 0.5}))
        with pytest.raises(ConfigError, match="'bc_games' .*no baseline 'greedy'"):
            make_config(("test", {"game": "nim_plain", "bc_games": 3}))
        options = dict(TINY, game="nim_plain", greedy_share=0.0, bc_games=0, total_steps=60, steps_per_iter=60)
        path = trainer.train(dict(options, runs_dir=str(tmp_path), checkpoint_interval=0))
        ckpt, _ = read_checkpoint(path)
        assert ckpt["game"] == "nim_plain" and set(ckpt["winrates"]) == {"random"}
    finally:
        unregister_game("nim_plain")


def test_a_plain_network_function_is_wrapped(nim, tmp_path):
    """A game whose agents' entry names a plain ``network(rules, options)`` function: the function
    builds the network and rebuilds it from a checkpoint; the layout and the agent are the generic ones."""

    def tiny_net(rules, options):
        return MLPNet(rules.pile + 1 + rules.players, rules.max_take, hidden=int(options["hidden"]))

    spec = dataclasses.replace(nim, name="nim_net", record_format="nim-net-record/1", env_id=None, gym_id=None)
    register_game(spec)
    register_agents(GameAgents(game="nim_net", network=tiny_net))
    try:
        builder = network_builder(spec)
        assert builder.kinds == ("custom",)
        rules = spec.rules()
        path = write_checkpoint(make_checkpoint(spec, rules, builder(rules, {"hidden": 4})), tmp_path / "c.pt")
        ckpt, net = read_checkpoint(path)
        assert ckpt["layout"]["num_actions"] == 3 and net.config["hidden"] == 4
        agent = PPOAgent.from_checkpoint(path)
        assert isinstance(agent, FlatPPOAgent) and agent.select_move(spec.new_game(rules)) in {"1", "2", "3"}
    finally:
        unregister_game("nim_net")
        unregister_agents("nim_net")


def test_keep_best_writes_the_best_evaluation_and_resume_keeps_it(nim, tmp_path, monkeypatch):
    """The evaluations against greedy score as scripted: best.pt is the network of the highest one
    (ties: the later), checkpoint.pt stays the last state, and a resumed run keeps the earlier best
    until one of its own evaluations reaches it."""
    scripted = iter([0.2, 0.6, 0.6, 0.4, 0.3, 0.5, 0.55, 0.9])  # warm start, 3 iterations, final; then the resume
    real = trainer_module.evaluate_policy

    def scripted_greedy(net, adapter, opponent, games, seed):
        real_score = real(net, adapter, opponent, games, seed)  # still plays the games
        return next(scripted) if opponent == "greedy" else real_score

    monkeypatch.setattr(trainer_module, "evaluate_policy", scripted_greedy)
    steps = []
    monkeypatch.setattr(trainer_module.Trainer, "keep_if_best", _recording(trainer_module.Trainer.keep_if_best, steps))
    options = dict(TINY, runs_dir=str(tmp_path), run_name="best", keep_best=True, eval_games=4, final_eval_games=4)
    last_path = trainer.train(options)
    assert [score for _, score in steps] == [0.2, 0.6, 0.6, 0.4, 0.3]
    best, _ = read_checkpoint(tmp_path / "best" / "best.pt")
    last, _ = read_checkpoint(last_path)
    assert best["best"] == {"winrate": 0.6, "step": steps[2][0], "opponent": "greedy"}  # the later of the two 0.6
    assert best["step"] == steps[2][0] and best["winrates"]["greedy"] == 0.6  # the network that scored it
    assert last["best"] == best["best"] and last["step"] == steps[4][0] > best["step"]
    # resumed: 0.5 and 0.55 do not reach 0.6, the final 0.9 does
    earlier = best["best"]
    where = {"runs_dir": str(tmp_path), "run_name": "best"}
    more = trainer.train(where, resume=last_path, total_steps=last["step"] + 200)
    assert [score for _, score in steps[5:]] == [0.5, 0.55, 0.9]
    between, _ = read_checkpoint(tmp_path / "best" / f"checkpoint_{steps[6][0]}.pt")
    assert between["best"] == earlier
    resumed, _ = read_checkpoint(more)
    best, _ = read_checkpoint(tmp_path / "best" / "best.pt")
    assert resumed["best"] == best["best"] == {"winrate": 0.9, "step": steps[7][0], "opponent": "greedy"}


def _recording(method, steps: list):
    def keep_if_best(self, iteration):
        steps.append((self.global_step, self.latest["greedy"]))
        return method(self, iteration)

    return keep_if_best


def test_a_new_run_removes_an_earlier_best_pt(nim, tmp_path):
    stale = tmp_path / "again" / "best.pt"
    stale.parent.mkdir()
    stale.write_bytes(b"an earlier run's")
    options = dict(TINY, runs_dir=str(tmp_path), run_name="again", total_steps=60, bc_games=0, checkpoint_interval=0)
    trainer.train(options)  # keep_best off: no best.pt of its own, and not the earlier one
    assert not stale.exists()
    trainer.train(dict(options, keep_best=True))
    assert read_checkpoint(stale)[0]["best"]["opponent"] == "greedy"


def test_keep_best_needs_evaluation_games():
    with pytest.raises(ConfigError, match="'keep_best' .*eval_games and final_eval_games are both 0"):
        make_config(("test", {"keep_best": True, "eval_games": 0, "final_eval_games": 0}))
