"""Baselines per game through the registry: each game's greedy agent and playout policy are the ones
its entry names; Kardinal's playout policy gives the same moves one call at a time as in one
``play_out``, and ranks moves for search; Kardinal & König's greedy agent and playout policy play
legal moves and read nothing a seat cannot see (the same move when only hidden cards differ)."""

from __future__ import annotations

import random

import pytest
from koenig_helpers import hidden_twins, play_common_move

from agents.baselines import kardinal_greedy, koenig_greedy
from agents.baselines.kardinal_heuristics import build_value
from agents.baselines.random import RandomAgent
from agents.registry import game_agents
from kardinal_env.core.registry import get_game
from kardinal_env.kardinal import Game, Rules
from kardinal_env.kardinal.notation import BUILD, parse_move
from kardinal_env.koenig import Game as KoenigGame
from kardinal_env.koenig import Rules as KoenigRules


def test_registry_entries_name_the_baselines_and_playout_policies():
    kardinal, koenig = game_agents(get_game("kardinal")), game_agents("kardinal_koenig")
    assert kardinal.baseline("greedy") is kardinal_greedy.GreedyAgent
    assert kardinal.load("rollout") is kardinal_greedy.rollout_move
    assert koenig.baseline("greedy") is koenig_greedy.GreedyAgent
    assert koenig.load("rollout") is koenig_greedy.rollout_move
    assert kardinal.baseline("random") is koenig.baseline("random") is RandomAgent


# ------------------------------------------------------------------ Kardinal's playout policy
@pytest.mark.parametrize(
    "variant", [dict(players=2), dict(players=3, preset="german"), dict(players=4, shared_pool=True)]
)
def test_kardinal_play_out_is_the_policy_move_by_move(variant):
    policy = kardinal_greedy.rollout_move
    for seed in range(3):
        one = Game(Rules(**variant))
        rng = random.Random(seed)
        while not one.is_over:
            move = policy(one, rng)
            assert move in one.legal_moves()
            one.play(move)
        other = Game(Rules(**variant))
        policy.play_out(other, random.Random(seed))
        assert other.history == one.history and other.scores() == one.scores()
    with pytest.raises(ValueError, match="game is over"):
        policy(one, random.Random(0))


def test_kardinal_order_ranks_builds_by_chip_value_and_keeps_every_move():
    policy = kardinal_greedy.rollout_move
    rng = random.Random(4)
    game = Game(Rules(players=3))
    checked = 0
    while not game.is_over:
        moves = game.legal_moves()
        shuffled = list(game.legal_actions())
        rng.shuffle(shuffled)
        ranked = policy.order(game, shuffled)
        assert sorted(ranked) == sorted(shuffled) and len(ranked) == len(moves)
        if parse_move(moves[0])[0] == BUILD and len(moves) > 1:
            w = policy.weights(game.rules)[game.current_player]
            values = [build_value(game, parse_move(game.action_to_string(a)), w) for a in ranked]
            assert values == sorted(values, reverse=True)
            checked += 1
        game.play(moves[rng.randrange(len(moves))])
    assert checked > 5


# ------------------------------------------------------------------ Kardinal & König
@pytest.mark.parametrize("policy", ["greedy", "rollout"])
@pytest.mark.parametrize("seed", range(3))
def test_koenig_baselines_see_only_their_seat(policy, seed):
    g1, g2 = hidden_twins(seed)  # 4 players; seats 1 and 2 swap a card, the deck below 22 cards reordered
    assert g1.snapshot()["hands"] != g2.snapshot()["hands"]
    choose = koenig_greedy.koenig_greedy_move if policy == "greedy" else koenig_greedy.rollout_move
    rng = random.Random(seed)
    checked = 0
    while not g1.is_over and g1.display() == g2.display():
        if g1.current_player == 0:
            move = choose(g1, random.Random(checked))
            assert choose(g2, random.Random(checked)) == move
            checked += 1
            g1.play(move)
            g2.play(move)
        elif not play_common_move(g1, g2, rng):
            break
    assert checked >= 2


@pytest.mark.parametrize("players", [3, 5])
def test_koenig_greedy_and_rollout_play_legal_games(players):
    game = KoenigGame(KoenigRules(players=players), seed=players)
    agent = koenig_greedy.GreedyAgent(seed=1)
    rng = random.Random(2)
    while not game.is_over:
        move = agent.select_move(game) if game.current_player % 2 == 0 else koenig_greedy.rollout_move(game, rng)
        assert move in game.legal_moves()
        game.play(move)
    for choose in (agent.select_move, lambda g: koenig_greedy.rollout_move(g, rng)):
        with pytest.raises(ValueError, match="game is over"):
            choose(game)


def test_koenig_greedy_beats_random():
    """Greedy in seat 0 against three random players (it won every one of 8 such games when this
    test was written)."""
    wins = 0.0
    for g in range(4):
        game = KoenigGame(KoenigRules(players=4), seed=50 + g)
        agents = [koenig_greedy.GreedyAgent(seed=g)] + [RandomAgent(seed=10 * g + s) for s in range(1, 4)]
        while not game.is_over:
            game.play(agents[game.current_player].select_move(game))
        winners = game.winners()
        wins += 1 / len(winners) if 0 in winners else 0
    assert wins >= 3
