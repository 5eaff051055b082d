"""Network-guided PUCT search (``puct:N:PATH``): legality, the search's bookkeeping, its leaf values,
its reduction to the plain policy at one simulation, and spec parsing."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from agents import AgentSpecError, load_agent
from agents.networks.kardinal_net import KardinalNet
from agents.networks.ppo_agent import PPOAgent
from agents.rewards import projected_margins, terminal_rewards
from agents.search.puct import PUCTAgent
from kardinal_env.kardinal import Game, Rules

torch.set_num_threads(1)


def _net(seed=0):
    torch.manual_seed(seed)
    return KardinalNet(8, 1, 16).eval()


def _midgame(rules, seed, moves=12):
    rng = random.Random(seed)
    game = Game(rules)
    for _ in range(moves):
        codes = game.legal_move_codes()
        game.play_code(codes[rng.randrange(len(codes))])
    return game


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    net = _net(1)
    path = tmp_path_factory.mktemp("ckpt") / "tiny.pt"
    torch.save(
        {
            "model": net.state_dict(),
            "model_config": net.config,
            "config": {"score_shaping": 0.05, "reward": "win_loss", "crop_margin": 1},
        },
        path,
    )
    return str(path)


@pytest.mark.parametrize(
    "variant", [dict(players=2), dict(players=3, preset="german"), dict(players=4, shared_pool=True)]
)
def test_puct_plays_only_legal_moves(variant):
    rules = Rules(**variant)
    agent = PUCTAgent(_net(), simulations=4, seed=0, score_shaping=0.05, temperature=1.0)
    game = Game(rules)
    while not game.is_over:
        move = agent.select_move(game)
        assert move in game.legal_moves()
        game.play(move)


@pytest.mark.parametrize("batch_size", [1, 8])
def test_puct_visit_counts_add_up_and_game_is_untouched(batch_size):
    game = _midgame(Rules(players=3), seed=4)
    before = game.history
    agent = PUCTAgent(_net(), simulations=25, seed=0, score_shaping=0.05, batch_size=batch_size)
    root = agent.expand_root(game)
    agent.search(game, root, 25)
    assert root.visits == 25 and root.child_visits.sum() == 25
    assert np.isclose(root.prior.sum(), 1.0) and (root.prior > 0).all()
    assert len(root.codes) == len(game.legal_move_codes())
    visited = [c for c in root.children if c is not None]
    assert all(isinstance(c, type(root)) for c in visited)  # no placeholder is left behind
    assert sum(c.visits for c in visited) <= 25 - len(visited)  # each child's first visit expands it
    assert game.history == before


@pytest.mark.parametrize("batch_size", [1, 4, 16])
def test_virtual_losses_are_taken_back(batch_size):
    """With a value head that says 0 everywhere and no shaping, every backed-up value in a 2-player
    midgame is 0: a virtual loss left in the statistics would show as a negative sum."""
    net = _net()
    with torch.no_grad():
        for param in net.value_head.parameters():
            param.zero_()
    game = _midgame(Rules(players=2), seed=6, moves=6)
    agent = PUCTAgent(net, simulations=40, batch_size=batch_size)
    root = agent.expand_root(game)
    assert root.value == [0.0, 0.0]
    agent.search(game, root, 40)
    assert root.child_visits.sum() == 40
    assert np.allclose(root.child_value, 0.0)


def test_two_player_leaf_values_are_zero_sum_and_terminal_values_exact():
    rules = Rules(players=2)
    agent = PUCTAgent(_net(), simulations=2, score_shaping=0.05)
    game = _midgame(rules, seed=2)
    node = agent.expand_root(game)
    assert node.value[0] == pytest.approx(-node.value[1])
    rng = random.Random(5)
    while not game.is_over:
        codes = game.legal_move_codes()
        game.play_code(codes[rng.randrange(len(codes))])
    end = agent.expand_root(game)
    final, margins = terminal_rewards(game, rules, "win_loss"), projected_margins(game, rules)
    assert end.player is None
    assert end.value == pytest.approx([final[s] + 0.05 * margins[s] for s in range(2)])


def test_four_player_other_seats_share_the_rest():
    rules = Rules(players=4)
    agent = PUCTAgent(_net(), simulations=2, score_shaping=0.0)
    game = _midgame(rules, seed=3)
    node = agent.expand_root(game)
    others = [v for s, v in enumerate(node.value) if s != node.player]
    assert others == pytest.approx([others[0]] * 3)
    assert sum(node.value) == pytest.approx(2 - 4)  # one winner: +1, three losers: -1


@pytest.mark.parametrize("players", [2, 4])
def test_one_simulation_plays_the_policy_argmax(checkpoint, players):
    """With one simulation the only visited child is the prior's argmax: the plain greedy policy."""
    rules = Rules(players=players)
    policy = PPOAgent.from_checkpoint(checkpoint, greedy=True)
    search = load_agent(f"puct:1:{checkpoint}", seed=0)
    game = Game(rules)
    while not game.is_over:
        move = search.select_move(game)
        assert move == policy.select_move(game)
        game.play(move)


def test_seeded_sampling_is_reproducible(checkpoint):
    def play(seed):
        agent = load_agent(f"puct:3:{checkpoint}", seed=seed, temperature=1.0)
        game = Game(Rules(players=2))
        while not game.is_over:
            game.play(agent.select_move(game))
        return game.history

    first = play(7)
    assert play(7) == first
    assert play(8) != first  # the seed really drives the temperature-1 sampling


def test_load_agent_puct_spec(checkpoint):
    agent = load_agent(f"puct:9:{checkpoint}")
    assert isinstance(agent, PUCTAgent) and agent.simulations == 9
    assert agent.score_shaping == 0.05 and agent.name == f"puct:9:{checkpoint}"


@pytest.mark.parametrize(
    "spec", ["puct:", "puct:5", "puct:5:", "puct:x:a.pt", "puct:0:a.pt", "puct:-1:a.pt", "puct:05:a.pt"]
)
def test_load_agent_rejects_bad_puct_specs(spec):
    with pytest.raises(AgentSpecError, match="puct needs"):
        load_agent(spec)


@pytest.mark.parametrize(
    "kw", [dict(simulations=0), dict(c_puct=0.0), dict(temperature=-1.0), dict(batch_size=0), dict(reward="score")]
)
def test_puct_rejects_bad_arguments(kw):
    kw = {"simulations": 4, **kw}
    with pytest.raises(ValueError, match="puct"):
        PUCTAgent(_net(), **kw)


def test_evaluate_puct_in_worker_processes_matches_serial(checkpoint):
    """The spec travels to spawned workers (one torch thread each) and plays the same games."""
    from agents.evaluation.tournament import evaluate

    specs = [f"puct:3:{checkpoint}", "greedy"]
    serial = evaluate(specs, players=2, games=2, seed=1, torch_threads=1)
    parallel = evaluate(specs, players=2, games=2, seed=1, workers=2)
    assert [g["moves"] for g in serial["games"]] == [g["moves"] for g in parallel["games"]]
    assert torch.get_num_threads() == 1


@pytest.mark.parametrize("spec", ["ppo:no/such/checkpoint.pt", "puct:8:no/such/checkpoint.pt"])
def test_load_agent_names_a_missing_checkpoint(spec):
    with pytest.raises(AgentSpecError, match="no checkpoint file 'no/such/checkpoint.pt'"):
        load_agent(spec)
