"""The compiled ``heuristic`` (``koenig_search.heuristic_values``, cpp/src/koenig/heuristic.hpp) in
lockstep with the Python planner (agents.baselines.koenig_heuristic._Planner).

At many positions of seeded games (3, 4 and 5 players, ``discard`` one and any, the packaged board and
the small test board; before and after the first run-out; placement, second-piece, discard and draw
decisions; on the Python engine, replayed into the core, and on the core-backed game) the compiled
candidates are the Python ones: the same move ids in the same order, values within 1e-9. Whole games
of ``KoenigHeuristicAgent`` seats, compiled and ``compiled=False``, have the same move history. Two
games that differ only in cards the deciding seat cannot see give it the same compiled values. Bad
arguments to the binding raise a Python error naming the argument.

Skipped (with the reason) when ``kardinal_core`` is not built, unless ``KARDINAL_REQUIRE_CORE=1``
(then they fail), and under ``KARDINAL_ENV_BACKEND=python`` (the agent then always plays in Python:
the last tests check that).
"""

from __future__ import annotations

import math
import random

import pytest
from helpers import koenig_search_core_or_skip
from koenig_helpers import hidden_twins, play_common_move, small_board

from agents.baselines.koenig_heuristic import (
    DEFAULT_WEIGHTS,
    HeuristicWeights,
    KoenigHeuristicAgent,
    _next_turn_chance,
    deck_probabilities,
    heuristic_candidates,
    heuristic_move,
)
from agents.search import koenig_compiled
from kardinal_env.koenig import Game, Rules, compiled

VARIANTS = [(p, d) for p in (3, 4, 5) for d in ("one", "any")]
WEIGHTS = list(DEFAULT_WEIGHTS.as_dict().values())


@pytest.fixture
def core():
    return koenig_search_core_or_skip("heuristic")


def _assert_same(game, where: str, weights: HeuristicWeights = DEFAULT_WEIGHTS, replan: int = 6) -> list:
    py = heuristic_candidates(game, weights, replan, compiled=False)
    cc = heuristic_candidates(game, weights, replan, compiled=True)
    assert [m for m, _ in cc] == [m for m, _ in py], f"{where}: candidate moves differ"
    for (m, a), (_, b) in zip(cc, py):
        assert math.isclose(a, b, rel_tol=0, abs_tol=1e-9), f"{where}: move {game.board.moves[m]}: {a} != {b}"
    return cc


def _walk(game, seed: int, every: int = 2, weights: HeuristicWeights = DEFAULT_WEIGHTS, replan: int = 6) -> dict:
    """Play ``game`` to its end (half the moves the heuristic's, half random), comparing the
    candidates at every ``every``-th decision with two or more legal moves; counts what was seen."""
    rng = random.Random(seed)
    agents = [KoenigHeuristicAgent(seed=s, compiled=False) for s in range(game.num_players)]
    seen = {"decisions": 0, "draw": 0, "place": 0, "second": 0, "discard": 0, "after_runout": 0, "last_round": 0}
    k = 0
    while not game.is_over:
        if len(game.legal_actions()) > 1:
            k += 1
            if k % every == 0:
                _assert_same(game, f"seed {seed} move {game.move_count} ({game.phase})", weights, replan)
                seen["decisions"] += 1
                seen[game.phase] += 1
                seen["after_runout"] += game.runouts > 0
                seen["last_round"] += game.runouts > 1
        if rng.random() < 0.5:
            game.apply_action(rng.choice(game.legal_actions()))
        else:
            game.play(agents[game.current_player].select_move(game))
    return seen


@pytest.mark.parametrize("players,discard", VARIANTS)
def test_candidates_match_the_python_planner_on_both_engines(core, players, discard):
    rules = Rules(players=players, discard=discard)
    total: dict = {}
    for i, make in enumerate((Game.reference, Game)):  # the Python engine (replayed), the core-backed game
        game = make(rules, seed=40 + players * 3 + len(discard) + i)
        assert game.compiled == (make is Game)
        for key, v in _walk(game, seed=players + i, every=1).items():
            total[key] = total.get(key, 0) + v
    assert total["decisions"] >= 150
    for key in ("draw", "place", "after_runout"):
        assert total[key] >= 10, (key, total)
    assert total["last_round"] >= 1, total
    assert total["second"] + total["discard"] >= 1, total


def test_candidates_match_on_the_small_board_and_with_other_weights(core):
    """The small test board (a type that pays only as pairs, a short deck), and weights / replan other
    than the defaults (every branch of the value taken: contest, fill, potentials)."""
    odd = HeuristicWeights(rival_max=1.0, fill=0.9, contest=0.0, alliance_two=0.0, hand=1.5, horizon=2.5)
    for i, (weights, replan) in enumerate(((DEFAULT_WEIGHTS, 6), (odd, 1), (HeuristicWeights(hand=0.0), 40))):
        game = Game(Rules(players=3 + i, discard="any" if i % 2 else "one", board=small_board()), seed=7 + i)
        assert _walk(game, seed=i, every=1, weights=weights, replan=replan)["decisions"] >= 20
        game = Game(Rules(players=3 + i), seed=70 + i)
        assert _walk(game, seed=10 + i, every=3, weights=weights, replan=replan)["decisions"] >= 20


@pytest.mark.parametrize("players,discard", [(3, "any"), (4, "one"), (5, "any")])
def test_whole_games_compiled_and_python_play_the_same_moves(core, players, discard):
    histories = []
    for flag in (True, False):
        game = Game(Rules(players=players, discard=discard), seed=100 + players)
        agents = [KoenigHeuristicAgent(seed=s, compiled=flag) for s in range(players)]
        while not game.is_over:
            game.play(agents[game.current_player].select_move(game))
        histories.append((game.history, game.scores()))
    assert histories[0] == histories[1]
    # and a Python-engine game replayed into the core at every decision
    game = Game.reference(Rules(players=players, discard=discard), seed=100 + players)
    agents = [KoenigHeuristicAgent(seed=s) for s in range(players)]
    while not game.is_over:
        game.play(agents[game.current_player].select_move(game))
    assert (game.history, game.scores()) == histories[0]


def test_hidden_cards_do_not_change_the_compiled_values(core):
    """hidden_twins: the deals differ in two other seats' cards and the deck's order below its top; while
    seat 0's hand and the display are the same in both, seat 0 gets the same compiled values."""
    checked = 0
    for seed in range(1, 9):
        g1, g2 = hidden_twins(seed, observer=0)
        assert g1.snapshot()["hands"] != g2.snapshot()["hands"]
        rng = random.Random(seed)
        while not g1.is_over and g1.display() == g2.display() and g1.hand(0) == g2.hand(0):
            if g1.current_player == 0 and len(g1.legal_actions()) > 1:
                probs = deck_probabilities(g1, 0)
                assert probs == deck_probabilities(g2, 0)
                v1 = koenig_compiled.heuristic_values(g1, DEFAULT_WEIGHTS, 6, probs)
                v2 = koenig_compiled.heuristic_values(g2, DEFAULT_WEIGHTS, 6, probs)
                assert v1 == v2 and v1
                checked += 1
            if not play_common_move(g1, g2, rng):
                break
    assert checked >= 10


def test_bad_arguments_raise_errors_naming_them(core):
    game = compiled.core_game(Rules(players=4), seed=3, module=core)
    probs = [0.2] * 5
    assert core.koenig_search.heuristic_values(game, WEIGHTS, probs, 6)
    assert core.koenig_search.heuristic_values(game, tuple(WEIGHTS), tuple(probs), 1)
    bad = [
        ((WEIGHTS[:9], probs, 6), ValueError, r"weights must have 10 entries"),
        (("x" * 10, probs, 6), TypeError, r"weights must be a list or tuple"),
        (([*WEIGHTS[:9], "6"], probs, 6), TypeError, r"weights\[9\] must be a number"),
        (([True, *WEIGHTS[1:]], probs, 6), TypeError, r"weights\[0\] must be a number"),
        (([*WEIGHTS[:2], -1.0, *WEIGHTS[3:]], probs, 6), ValueError, r"weights\[2\] \(contest\) must be >= 0"),
        (([float("nan"), *WEIGHTS[1:]], probs, 6), ValueError, r"weights\[0\] must be finite"),
        (([1.5, *WEIGHTS[1:]], probs, 6), ValueError, r"rival_max\) must be at most 1"),
        (([*WEIGHTS[:9], 0.0], probs, 6), ValueError, r"horizon\) must be positive"),
        ((WEIGHTS, probs[:4], 6), ValueError, r"deck_probs must have 5 entries"),
        ((WEIGHTS, None, 6), TypeError, r"deck_probs must be a list or tuple"),
        ((WEIGHTS, [0.2, 0.2, 0.2, 0.2, 1.2], 6), ValueError, r"deck_probs\[4\] must be in \[0, 1\]"),
        ((WEIGHTS, [0.2, 0.2, float("inf"), 0.2, 0.2], 6), ValueError, r"deck_probs\[2\] must be finite"),
        ((WEIGHTS, probs, 0), ValueError, r"replan must be an integer from 1 to 1000000"),
        ((WEIGHTS, probs, "6"), TypeError, r"replan must be an int"),
        ((WEIGHTS, probs, True), TypeError, r"replan must be an int"),
    ]
    for args, exc, pattern in bad:
        with pytest.raises(exc, match=pattern):
            core.koenig_search.heuristic_values(game, *args)
    rng = random.Random(0)
    while not game.is_over:
        ids = game.legal_move_ids()
        game.play_id(ids[rng.randrange(len(ids))])
    with pytest.raises(ValueError, match="the game is over"):
        core.koenig_search.heuristic_values(game, WEIGHTS, probs, 6)


def test_python_fallbacks(core, monkeypatch):
    """``heuristic_values`` answers None (the agent plays in Python) for a subclass of Game, a
    determinized world and under ``KARDINAL_ENV_BACKEND=python``; the moves stay the same."""

    class Sub(Game):
        pass

    rules = Rules(players=4)
    probs = [0.2] * 5
    sub = Sub(rules, seed=1)
    assert type(sub) is Sub and koenig_compiled.heuristic_values(sub, DEFAULT_WEIGHTS, 6, probs) is None
    game = Game(rules, seed=1)
    world = game.with_hidden({s: game.hand(s) for s in range(1, 4)}, list(game.snapshot()["deck"]), seed=1)
    assert koenig_compiled.heuristic_values(world, DEFAULT_WEIGHTS, 6, probs) is None
    assert koenig_compiled.heuristic_values(game, DEFAULT_WEIGHTS, 6, deck_probabilities(game, 0)) is not None
    move = heuristic_move(game, random.Random(0))
    with monkeypatch.context() as patch:
        patch.setenv(compiled.BACKEND_VARIABLE, "python")
        assert koenig_compiled.heuristic_values(game, DEFAULT_WEIGHTS, 6, probs) is None
        assert heuristic_move(game, random.Random(0)) == move


def test_next_turn_none_gives_the_first_draw(core):
    """In the last round the seat gets no further turn: a draw decision's only candidate is the
    first legal draw, as the Python planner answers (no tie-break, no draw of the generator)."""
    game = Game(Rules(players=3), seed=5)
    rng = random.Random(5)
    while not game.is_over:
        if game.phase == "draw" and len(game.legal_actions()) > 1:
            seat = game.current_player
            if _next_turn_chance(game.live_view(), game.num_players, seat) <= 0:
                cc = _assert_same(game, f"move {game.move_count}")
                assert cc == [(game.legal_actions()[0], 0.0)]
                return
        game.apply_action(rng.choice(game.legal_actions()))
    pytest.fail("no draw decision without a next turn")
