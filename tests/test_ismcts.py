"""``ismcts:N`` on Kardinal & König: it never reads hidden state (it searches only worlds of
``game.determinize``; two games that differ only in hidden cards get the same move under the same
seed), and it plays legal moves (and better than random); on Kardinal it is MCTS on clones."""

from __future__ import annotations

import random

import pytest
from koenig_helpers import hidden_twins, walk_hidden_twins

from agents.search.ismcts import ISMCTSAgent
from kardinal_env.core.registry import get_game
from kardinal_env.koenig import Game, Rules

# run again on the Python engines by `pytest --backend python` (tests/conftest.py)
pytestmark = pytest.mark.backends


@pytest.mark.parametrize("seed", range(3))
def test_same_move_when_only_hidden_state_differs(seed):
    g1, g2 = hidden_twins(seed, observer=0)
    assert g1.snapshot()["hands"] != g2.snapshot()["hands"]
    assert g1.snapshot()["deck"] != g2.snapshot()["deck"]

    def same_move(a, b):
        move1 = ISMCTSAgent(30, seed=seed).select_move(a)  # the compiled search when the core is built
        move2 = ISMCTSAgent(30, seed=seed).select_move(b)
        slow1 = ISMCTSAgent(30, seed=seed, compiled=False).select_move(a)
        slow2 = ISMCTSAgent(30, seed=seed, compiled=False).select_move(b)
        assert move1 == move2 == slow1 == slow2
        return move1

    assert walk_hidden_twins(g1, g2, same_move, random.Random(seed), 6) >= 2


class _SeatView:
    """The real game as the search may use it: the deciding seat's legal moves (their ids and names) and
    ``determinize``; any other attribute (another seat's hand, the deck, a snapshot, ``play``) fails."""

    _ALLOWED = (
        "legal_moves",
        "legal_actions",
        "action_to_string",
        "current_player",
        "num_players",
        "is_over",
        "rules",
        "move_count",
    )

    def __init__(self, game, calls):
        self._game, self._calls = game, calls

    def determinize(self, seat, rng):
        world = self._game.determinize(seat, rng)
        self._calls.append((seat, world))
        return world

    def __getattr__(self, name):
        if name in self._ALLOWED:
            return getattr(self._game, name)
        raise AssertionError(f"the search read game.{name} of the real game")


@pytest.mark.parametrize("rollout_moves", [0, 6, "guide"])
def test_search_reads_only_determinizations(rollout_moves):
    """Every simulation runs on ``game.determinize(seat, rng)`` for the deciding seat; the real game
    is asked for nothing else than its legal moves and seats (also by the guided search, whose guide
    ranks moves and plays out in the worlds only)."""
    game = Game(Rules(players=4), seed=7)
    rng = random.Random(0)
    while game.move_count < 60:
        game.play(rng.choice(game.legal_moves()))
    seat, history = game.current_player, list(game.history)
    calls: list = []
    if rollout_moves == "guide":  # the Python search: the compiled one is handed no game object at all
        sims = 8  # the guided playouts are slow in Python: fewer simulations, each checked alike
        agent = ISMCTSAgent(sims, seed=1, rollout="guide", game=get_game("kardinal_koenig"), compiled=False)
    else:
        sims = 25
        agent = ISMCTSAgent(sims, seed=1, rollout_moves=rollout_moves, rollout="random")
    move = agent.select_move(_SeatView(game, calls))
    assert move in game.legal_moves() and game.history == history
    assert len(calls) == sims and {s for s, _ in calls} == {seat}
    assert all(world is not game for _, world in calls)


def test_plays_legal_moves_and_beats_random():
    wins = 0.0
    for g in range(4):
        game = Game(Rules(players=4), seed=300 + g)
        players = [ISMCTSAgent(20, seed=g) if s == 0 else None for s in range(4)]
        rng = random.Random(g)
        while not game.is_over:
            agent = players[game.current_player]
            move = agent.select_move(game) if agent else rng.choice(game.legal_moves())
            assert move in game.legal_moves()
            game.play(move)
        winners = game.winners()
        wins += 1 / len(winners) if 0 in winners else 0
    assert wins >= 3  # measured 8/8 with ismcts:50


def test_bad_arguments():
    with pytest.raises(ValueError, match="simulations must be an integer from 1 to"):
        ISMCTSAgent(0)
    with pytest.raises(ValueError, match="rollout_moves must be an integer from 0 to"):
        ISMCTSAgent(5, rollout_moves=-2)


def test_playouts_with_the_games_policy_play_legal_moves():
    """``rollout_moves`` plays out with Kardinal & König's playout policy (``GameSpec.rollout``)."""
    game = Game(Rules(players=3), seed=4)
    agent = ISMCTSAgent(15, seed=0, rollout_moves=12)
    rng = random.Random(4)
    while not game.is_over and game.move_count < 80:
        move = agent.select_move(game) if game.current_player == 0 else rng.choice(game.legal_moves())
        assert move in game.legal_moves()
        game.play(move)
    assert agent._policy is not None


def test_ismcts_plays_kardinal_as_mcts_on_clones():
    """On a game of perfect information ``determinize`` is a clone: the search still plays legally."""
    from kardinal_env.kardinal import Game as KardinalGame
    from kardinal_env.kardinal import Rules as KardinalRules

    game = KardinalGame(KardinalRules(players=2))
    agent = ISMCTSAgent(10, seed=0)
    for _ in range(6):
        move = agent.select_move(game)
        assert move in game.legal_moves()
        game.play(move)


def test_with_hidden_refuses_cards_that_do_not_fit():
    from kardinal_env.koenig import DeckError

    game = Game(Rules(players=3), seed=1)
    snap = game.snapshot()
    with pytest.raises(DeckError, match="must hold"):
        game.with_hidden({}, snap["deck"][1:])
    with pytest.raises(DeckError, match="not the cards they replace"):
        bad = list(snap["deck"])
        bad[0] = next(t for t in (0, 1, 2, 3, 4) if t != bad[0])
        game.with_hidden({}, bad)


@pytest.mark.parametrize("compiled", [True, False])
def test_root_statistics_cover_the_legal_moves_and_give_the_move_it_plays(compiled):
    """What search trainers read: every simulation passes one root child, the children are legal moves,
    and select_move plays the most visited (ties: the higher mean) from the same seed; a forced move
    comes back unsearched."""
    game = Game(Rules(players=4), seed=5)
    rng = random.Random(5)
    checked = 0
    while not game.is_over and checked < 4:
        legal = game.legal_moves()
        if len(legal) > 1:
            stats = ISMCTSAgent(40, seed=checked, compiled=compiled).root_statistics(game)
            assert sum(visits for _, visits, _ in stats) == 40
            assert {move for move, _, _ in stats} <= set(legal)
            assert all(0.0 <= mean <= 1.0 for _, visits, mean in stats if visits)
            best = max(stats, key=lambda child: (child[1], child[2]))[0]
            assert ISMCTSAgent(40, seed=checked, compiled=compiled).select_move(game) == best
            checked += 1
        else:
            assert ISMCTSAgent(40, seed=0, compiled=compiled).root_statistics(game) == [(legal[0], 0, 0.0)]
        game.play(rng.choice(legal))
    assert checked == 4
