"""Kardinal's ``mcts:N`` searched by the compiled core (``kardinal_search.mcts_move``, cpp/src/kardinal/mcts.hpp),
reached from :class:`agents.search.mcts.MCTSAgent` through ``GameAgents.compiled_search``
(:func:`agents.search.kardinal_compiled.mcts_root`).

The core search answers a legal move on random positions of every rules variant, the same seed gives
the same move, ``load_agent("mcts:50")`` plays whole games on both backends, bad arguments raise;
the Python game's position reaches the core intact (lockstep); the core's playout policy orders and
chooses as :class:`agents.baselines.kardinal_greedy.Playout` does; ``KARDINAL_ENV_BACKEND=python``
gives exactly the Python search. The strength measurement against the Python search is
``scripts/core_mcts_match.py`` (docs/benchmarks.md); ``-m slow`` checks core ``mcts:200`` beats greedy.

Skipped without the core unless ``KARDINAL_REQUIRE_CORE=1`` (scripts/test.sh), as
tests/test_core_kardinal.py.
"""

from __future__ import annotations

import math
import random
import zlib

import pytest

from agents import load_agent
from agents.baselines.kardinal_greedy import GreedyAgent, rollout_move
from agents.baselines.kardinal_heuristics import build_value, cardinal_block_values
from agents.registry import game_agents
from agents.search import kardinal_compiled
from agents.search.mcts import MCTSAgent
from kardinal_env.kardinal import Game, Rules, compiled
from kardinal_env.kardinal.notation import BUILD, CHIP


def _variants() -> list[Rules]:
    out = []
    for players in (2, 3, 4):
        for preset in ("english", "german"):
            for shared in (False, True) if players > 2 else (False,):
                out.append(Rules(players=players, preset=preset, shared_pool=shared))
    out.append(Rules(players=3, exhausted_colour="substitute", neutral_build_chips="keep"))
    out.append(Rules(players=4, exhausted_colour="substitute", window=5))
    out.append(Rules(players=2, preset="german", window=3))
    out.append(Rules(players=3, preset="german", neutral_touch_chips="score", window=7))
    return out


def _random_positions(rules: Rules, rng: random.Random, count: int) -> list[Game]:
    """``count`` positions of one seeded random game (each a clone, not over)."""
    game = Game(rules)
    out = []
    while not game.is_over:
        if rng.random() < 0.25 and len(out) < count:
            out.append(game.clone())
        codes = game.legal_move_codes()
        game.play_code(codes[rng.randrange(len(codes))])
    return out


def _play(rules: Rules, agents) -> Game:
    game = Game(rules)
    while not game.is_over:
        game.play(agents[game.current_player].select_move(game))
    return game


# ---------------------------------------------------------------- the core search


@pytest.mark.parametrize("rules", _variants(), ids=repr)
def test_core_search_answers_a_legal_move_in_every_variant(core, rules):
    rng = random.Random(zlib.crc32(repr(rules).encode()))  # str hash() differs per process: a flaky seed
    positions = _random_positions(rules, rng, 6)
    assert positions
    for game in positions:
        board = compiled.core_position(game)
        for seed in (0, 1):
            code = tuple(core.kardinal_search.mcts_move(board, 20, seed))
            assert code in game.legal_move_codes()
        assert (
            tuple(core.kardinal_search.mcts_move(board, 8, 3, widen_base=None, margin_weight=0.0))
            in game.legal_move_codes()
        )
        assert board.move_count == game.move_count  # the search left the core game as it was


def test_same_seed_same_move(core):
    game = _random_positions(Rules(players=3), random.Random(4), 3)[-1]
    board = compiled.core_position(game)
    assert len(board.legal_move_codes()) > 1
    moves = [tuple(core.kardinal_search.mcts_move(board, 100, 9)) for _ in range(3)]
    assert moves[0] == moves[1] == moves[2]
    a, b = MCTSAgent(100, seed=5), MCTSAgent(100, seed=5)
    assert a.select_move(game) == b.select_move(game)


def test_a_forced_move_is_answered_without_search(core):
    rng = random.Random(0)
    found = 0
    for players in (2, 3, 4):
        game = Game(Rules(players=players, window=5))
        while not game.is_over:
            codes = game.legal_move_codes()
            if len(codes) == 1:
                assert tuple(core.kardinal_search.mcts_move(compiled.core_position(game), 1, 0)) == codes[0]
                found += 1
            game.play_code(codes[rng.randrange(len(codes))])
    assert found


@pytest.mark.parametrize("backend", ["core", "python"])
def test_mcts_through_load_agent_plays_whole_games(core, monkeypatch, backend):
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, backend)
    rules = Rules(players=2)
    agents = [load_agent("mcts:50", game="kardinal", seed=1), load_agent("random", game="kardinal", seed=2)]
    game = _play(rules, agents)
    assert game.is_over and game.move_count > 20
    assert Game.from_record(game.to_record()).scores() == game.scores()


def test_backend_python_is_exactly_the_python_search(core, monkeypatch):
    """Under KARDINAL_ENV_BACKEND=python the agent searches in Python and draws exactly as
    ``compiled=False`` (today's search): the same seeded moves."""
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "python")
    rules = Rules(players=2)
    a = _play(rules, [MCTSAgent(12, seed=3), GreedyAgent(seed=4)]).history
    b = _play(rules, [MCTSAgent(12, seed=3, compiled=False), GreedyAgent(seed=4)]).history
    assert a == b
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "core")
    c = _play(rules, [MCTSAgent(12, seed=3), GreedyAgent(seed=4)]).history
    assert c == _play(rules, [MCTSAgent(12, seed=3), GreedyAgent(seed=4)]).history  # the core is seeded too


def test_compiled_search_declines_without_drawing(core, monkeypatch):
    class Variant(Game):
        """A subclass may change what the core cannot see: the Python search runs."""

    rng = random.Random(7)
    state = rng.getstate()
    assert kardinal_compiled.mcts_root(Variant(Rules(players=2)), rng, simulations=10) is None
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "python")
    assert kardinal_compiled.mcts_root(Game(Rules(players=2)), rng, simulations=10) is None
    assert rng.getstate() == state
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "core")
    children = kardinal_compiled.mcts_root(Game(Rules(players=2)), rng, simulations=10)
    assert children and all(move in Game(Rules(players=2)).legal_moves() for move, _, _ in children)
    assert rng.getstate() != state


def test_compiled_search_is_named_by_the_registry():
    assert game_agents("kardinal").compiled_search == "agents.search.kardinal_compiled:mcts_root"
    assert game_agents("kardinal").load("compiled_search") is kardinal_compiled.mcts_root
    assert game_agents("kardinal_koenig").compiled_search is None


def test_agent_options_outside_the_compiled_search_stay_in_python(core):
    game = _random_positions(Rules(players=2), random.Random(2), 2)[-1]
    for kw in (dict(rollout="random"), dict(playout_moves=5), dict(compiled=False)):
        agent = MCTSAgent(6, seed=0, **kw)
        agent.select_move(game)
        assert agent._compiled is None
    agent = MCTSAgent(6, seed=0)
    agent.select_move(game)
    assert agent._compiled is kardinal_compiled.mcts_root


@pytest.mark.parametrize("compiled_search", [True, False])
def test_root_statistics_count_every_simulation_and_name_the_move_played(core, compiled_search):
    """Every simulation passes through one root child; the move played is the most visited child
    (ties: the higher mean), in C++ and in Python alike."""
    for game in _random_positions(Rules(players=3), random.Random(4), 6):
        if game.is_over or len(game.legal_moves()) == 1:
            continue
        children = MCTSAgent(40, seed=5, compiled=compiled_search).root_statistics(game)
        assert sum(visits for _, visits, _ in children) == 40
        legal = set(game.legal_moves())
        assert all(move in legal for move, _, _ in children)
        assert len({move for move, _, _ in children}) == len(children)
        assert all(0.0 <= value <= 1.0 for _, _, value in children)
        played = MCTSAgent(40, seed=5, compiled=compiled_search).select_move(game)
        assert played == max(children, key=lambda c: (c[1], c[2]))[0]


def test_root_statistics_of_a_forced_decision_is_that_move_unsearched():
    rng = random.Random(0)
    game = Game(Rules(players=2))
    while len(game.legal_moves()) != 1:  # random play from this seed meets one (a single legal build)
        if game.is_over:
            game = Game(Rules(players=2))
        game.play(rng.choice(game.legal_moves()))
    assert MCTSAgent(10, seed=0).root_statistics(game) == [(game.legal_moves()[0], 0, 0.0)]


def test_bad_arguments_raise(core):
    board = compiled.core_position(_random_positions(Rules(players=2), random.Random(1), 2)[-1])
    for sims in (0, -1, 10**9):
        with pytest.raises(ValueError, match="simulations"):
            core.kardinal_search.mcts_move(board, sims)
    for kw, what in ((dict(exploration=math.nan), "exploration"), (dict(widen_base=math.inf), "widen_base")):
        with pytest.raises(ValueError, match=what):
            core.kardinal_search.mcts_move(board, 5, **kw)
    with pytest.raises(ValueError, match="margin_weight"):
        core.kardinal_search.mcts_move(board, 5, margin_weight=-math.inf)
    for args in ((1.5,), ("10",), (None,), (5, -1), (5, "x"), (5, 0, "wide"), (5, 0, 0.7, "two")):
        with pytest.raises(TypeError):
            core.kardinal_search.mcts_move(board, *args)
    with pytest.raises(TypeError):
        core.kardinal_search.playout_move(board, -3)
    over = core.KardinalGame(2)
    core.kardinal_search.random_playouts(over, 0)
    while not over.is_over:
        over.play_index(0)
    for call in (lambda: core.kardinal_search.mcts_move(over, 5), lambda: core.kardinal_search.playout_move(over, 0)):
        with pytest.raises(ValueError, match="game is over"):
            call()
    assert core.kardinal_search.ordered_move_codes(over) == []
    with pytest.raises(TypeError):
        compiled.core_position("not a game")


# ---------------------------------------------------------------- lockstep: position and playout policy


def test_core_position_is_the_python_position(core):
    rng = random.Random(11)
    for rules in _variants():
        for game in _random_positions(rules, rng, 4):
            board = compiled.core_position(game)
            assert board.legal_move_codes() == game.legal_move_codes()
            assert board.current_player == game.current_player and board.phase == game.phase
            assert board.chips() == game.chips() and board.supply() == game.supply()
            assert board.projected_scores() == game.projected_scores()


def test_core_playout_policy_orders_and_chooses_as_the_python_policy(core):
    """``ordered_move_codes`` is ``Playout.order`` (by the same keys; equal build values may differ in
    the last bit of a float sum, so builds compare with a tolerance), the policy's chip is the
    Python policy's, its build or cardinal move is legal."""
    rng = random.Random(3)
    checked = 0
    for rules in _variants():
        game = Game(rules)
        while not game.is_over:
            codes = game.legal_move_codes()
            if len(codes) > 1 and rng.random() < 0.3:
                board = compiled.core_position(game)
                ordered = [tuple(c) for c in core.kardinal_search.ordered_move_codes(board)]
                assert sorted(ordered) == sorted(codes)
                weights = rollout_move.weights(game.rules)[game.current_player]
                kind = codes[0][0]
                if kind == BUILD:
                    keys: list = [-build_value(game, c, weights) for c in ordered]
                    assert all(a <= b + 1e-9 for a, b in zip(keys, keys[1:]))
                elif kind == CHIP:
                    keys = [-weights[c[2]] for c in ordered]
                    assert keys == sorted(keys)
                    assert tuple(core.kardinal_search.playout_move(board, 0)) == rollout_move.code(
                        game, random.Random(0)
                    )
                else:
                    values = {code: (best, count) for code, best, count in cardinal_block_values(game)}
                    keys = [values[c] for c in ordered]
                    assert keys == sorted(keys)
                assert tuple(core.kardinal_search.playout_move(board, rng.getrandbits(32))) in codes
                checked += 1
            game.play_code(codes[rng.randrange(len(codes))])
    assert checked > 100


# ---------------------------------------------------------------- strength (slow)


@pytest.mark.slow
def test_core_mcts200_beats_greedy(core):
    rules = Rules(players=2)
    wins = 0
    for g in range(8):
        seat = g % 2
        agents = [GreedyAgent(seed=100 + g), GreedyAgent(seed=200 + g)]
        agents[seat] = MCTSAgent(200, seed=g)
        wins += seat in _play(rules, agents).winners()
    assert wins >= 6
