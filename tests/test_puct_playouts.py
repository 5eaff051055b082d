"""Playouts at the leaves of ``puct:N`` (``rollouts=R``, ``rollout_weight=w``): a leaf's value is
``(1 - w)`` times the network's plus ``w`` times the mean terminal reward of ``R`` playouts by the game's
playout policy, drawn from the agent's generator; in the compiled core when the game is core-backed
(``GameAgents.compiled_playout``: :func:`agents.search.kardinal_compiled.play_out`), in Python otherwise;
the real game is never touched; bad arguments raise naming them."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from agents.baselines.kardinal_greedy import rollout_move
from agents.networks.kardinal_net import KardinalNet, KardinalPPOAgent
from agents.registry import game_agents
from agents.search import kardinal_compiled
from agents.search.puct import PUCTAgent
from kardinal_env.core.rewards import terminal_rewards
from kardinal_env.kardinal import Game, Rules

torch.set_num_threads(1)


def _evaluator(seed=0):
    torch.manual_seed(seed)
    return KardinalPPOAgent(KardinalNet(8, 1, 16).eval())


def _midgame(game, seed, moves=12):
    rng = random.Random(seed)
    for _ in range(moves):
        codes = game.legal_move_codes()
        game.play_code(codes[rng.randrange(len(codes))])
    return game


def _mean_rewards(ends, players):
    totals = np.zeros(players)
    for end in ends:
        totals += terminal_rewards(end, "win_loss")
    return totals / len(ends)


def _check_root_value(game, play, rollouts=3, weight=0.75, seed=5):
    """The root's value with playouts is the mix of the network's (the same search without them) and the
    mean result of ``rollouts`` playouts that ``play(copy, rng)`` makes from the agent's generator."""
    evaluator = _evaluator()
    plain = PUCTAgent(evaluator, simulations=4, seed=seed).expand_root(game).value
    mixed = PUCTAgent(evaluator, simulations=4, seed=seed, rollouts=rollouts, rollout_weight=weight)
    value = mixed.expand_root(game).value
    rng = random.Random(seed)  # the agent's generator, fresh: Kardinal's world (a clone) draws nothing
    z = _mean_rewards([play(game, rng) for _ in range(rollouts)], game.num_players)
    assert value == pytest.approx([(1 - weight) * v + weight * r for v, r in zip(plain, z, strict=True)])
    return z


@pytest.mark.parametrize("players", [2, 4])
def test_leaf_values_mix_the_network_with_core_playouts(core, players):
    game = _midgame(Game(Rules(players=players)), seed=players)
    assert game.compiled
    before = game.history
    _check_root_value(game, kardinal_compiled.play_out)
    assert game.history == before


def test_leaf_values_mix_the_network_with_python_playouts():
    game = _midgame(Game.reference(Rules(players=3)), seed=1)  # the Python engine: no compiled playout

    def python_playout(g, rng):
        copy = g.clone()
        rollout_move.play_out(copy, rng)
        return copy

    before = game.history
    _check_root_value(game, python_playout)
    assert game.history == before


def test_weight_one_values_leaves_by_playouts_alone_and_weight_zero_by_the_network(core):
    game = _midgame(Game(Rules(players=2)), seed=3)
    z = _mean_rewards([kardinal_compiled.play_out(game, random.Random(9))], 2)  # the one playout rollouts=1 plays
    only_playouts = PUCTAgent(_evaluator(), 4, seed=9, rollouts=1, rollout_weight=1.0).expand_root(game)
    assert only_playouts.value == pytest.approx(list(z))
    only_network = PUCTAgent(_evaluator(), 4, seed=9, rollouts=2, rollout_weight=0.0).expand_root(game)
    assert only_network.value == pytest.approx(PUCTAgent(_evaluator(), 4).expand_root(game).value)


def test_compiled_playout_plays_a_copy_to_the_end_and_declines_python_games(core):
    game = _midgame(Game(Rules(players=3, preset="german")), seed=7)
    before = game.history
    rng = random.Random(4)
    end = kardinal_compiled.play_out(game, rng)
    assert end.is_over and end.num_players == 3
    assert set(end.winners()) <= {0, 1, 2} and end.winners()
    best = max(end.scores())
    assert all(end.scores()[s] == best for s in end.winners())
    assert game.history == before and not game.is_over
    again = kardinal_compiled.play_out(game, random.Random(4))  # the same draw: the same playout
    assert (again.scores(), again.move_count) == (end.scores(), end.move_count)
    python_game = Game.reference(Rules(players=2))
    state = rng.getstate()
    assert kardinal_compiled.play_out(python_game, rng) is None
    assert rng.getstate() == state, "declining draws nothing"


def test_the_registry_names_the_compiled_playout():
    assert game_agents("kardinal").load("compiled_playout") is kardinal_compiled.play_out
    assert game_agents("kardinal_koenig").compiled_playout is None


@pytest.mark.parametrize("batch_size", [1, 8])
def test_search_with_playouts_plays_legal_moves_to_the_end(batch_size):
    agent = PUCTAgent(_evaluator(), simulations=6, seed=0, rollouts=2, rollout_weight=0.5, batch_size=batch_size)
    game = Game(Rules(players=2))
    while not game.is_over:
        move = agent.select_move(game)
        assert move in game.legal_moves()
        game.play(move)


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(rollouts=-1), "rollouts must be an integer from 0 to 1000000"),
        (dict(rollouts=2.0), "rollouts must be an integer from 0 to 1000000"),
        (dict(rollout_weight=1.5), r"rollout_weight must be a number in \[0, 1\]"),
        (dict(rollout_weight=-0.1), r"rollout_weight must be a number in \[0, 1\]"),
        (dict(rollout_weight=True), r"rollout_weight must be a number in \[0, 1\]"),
    ],
)
def test_bad_playout_arguments_are_refused(kw, message):
    with pytest.raises(ValueError, match=message):
        PUCTAgent(_evaluator(), 4, **kw)
