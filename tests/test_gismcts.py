"""``gismcts:N``: information-set MCTS guided by Kardinal & König's heuristic (``ISMCTSAgent`` with
``rollout="guide"``, the game's ``GameSpec.search_guide``,
:class:`agents.search.heuristic_rollouts.HeuristicGuide`). The compiled search (``koenig/ismcts.hpp``
with an ``IsmctsGuide``) chooses the Python reference's move from the same seed; neither reads hidden
cards; the guide ranks legal moves as the playout policy does; bad arguments are refused by name."""

from __future__ import annotations

import random

import pytest
from koenig_helpers import hidden_twins, walk_hidden_twins

from agents import AgentSpecError, load_agent
from agents.search.heuristic_rollouts import HeuristicGuide, playout_move
from agents.search.ismcts import ISMCTSAgent
from kardinal_env.core.registry import get_game
from kardinal_env.koenig import Game, Rules
from kardinal_env.koenig import compiled as koenig_compiled

KK = get_game("kardinal_koenig")


def _heuristic_game(rules: Rules, seed: int, moves: int) -> Game:
    """A Python-engine game played by the heuristic for ``moves`` moves, then on to a decision with two or
    more legal moves (or the end)."""
    game = Game.reference(rules, seed=seed)
    agents = [load_agent("heuristic", game=KK, seed=seed + s) for s in range(rules.players)]
    while not game.is_over and (game.move_count < moves or len(game.legal_moves()) < 2):
        game.play(agents[game.current_player].select_move(game))
    return game


def search_positions(cases: list[tuple[int, str, int]]) -> list[tuple[int, Game, Game]]:
    """``(i, game, backed)`` for each ``(players, discard, moves)`` case whose heuristic game (seed
    ``300 + i``) is not over: the Python-engine game and the same position on the core-backed game."""
    out = []
    for i, (players, discard, moves) in enumerate(cases):
        rules = Rules(players=players, discard=discard)
        game = _heuristic_game(rules, 300 + i, moves)
        if game.is_over:
            continue
        backed = Game(rules, seed=300 + i)
        for m in game.history:
            backed.play(m)
        assert backed.compiled
        out.append((i, game, backed))
    return out


def test_guide_ranks_distinct_legal_moves_best_first_as_the_playout_policy():
    guide = HeuristicGuide()
    checked = 0
    for seed, moves in ((1, 0), (2, 25), (3, 55), (4, 80)):
        game = _heuristic_game(Rules(players=4), seed, moves)
        if game.is_over:
            continue
        ranked = guide.ranked(game, 3)
        legal = set(game.legal_actions())
        assert 1 <= len(ranked) <= 3 and len(set(ranked)) == len(ranked) and set(ranked) <= legal
        assert ranked[0] == playout_move(game)  # the playout policy's move comes first
        assert guide.ranked(game, 1) == ranked[:1] and guide.ranked(game, 8)[:3] == ranked
        checked += 1
    assert checked == 4
    with pytest.raises(ValueError, match="replan"):
        HeuristicGuide(replan=0)


def test_guide_plays_a_world_to_its_end_with_the_playout_policy():
    game = _heuristic_game(Rules(players=3), 5, 70)
    world, again = game.clone(), game.clone()
    HeuristicGuide().play_out(world)
    while not again.is_over:
        again.apply_action(playout_move(again))
    assert world.is_over and world.history == again.history and game.move_count < world.move_count


def test_compiled_guided_search_equals_the_python_reference(core, monkeypatch):
    """The core's guided search and the Python one (``compiled=False``): the same root statistics (moves,
    visits, means), the same move and the same generator state afterwards, for every player count and
    both discard options, before and after the first run-out, on the Python engine and on the core-backed
    game; the compiled search really ran."""
    monkeypatch.delenv(koenig_compiled.BACKEND_VARIABLE, raising=False)
    positions = search_positions([(3, "one", 70), (4, "any", 85), (5, "one", 95), (4, "one", 100), (3, "any", 40)])
    for i, game, backed in positions:
        mw = 0.5 * (i % 2)  # the win share alone, or half the final margin's sigmoid
        fast = ISMCTSAgent(10, seed=i, rollout="guide", game=KK, margin_weight=mw)
        slow = ISMCTSAgent(10, seed=i, rollout="guide", game=KK, compiled=False, margin_weight=mw)
        stats = fast.root_statistics(game)
        assert stats == slow.root_statistics(game), i
        assert fast.rng.getstate() == slow.rng.getstate()
        assert fast._compiled is not None and slow._compiled is None
        assert sum(v for _, v, _ in stats) == 10
        # every world ranks the root seat's moves alike (its unseen cards are the same in all of them)
        assert {m for m, _, _ in stats} == {game.board.moves[a] for a in HeuristicGuide().ranked(game, 3)}
        again = ISMCTSAgent(10, seed=i, rollout="guide", game=KK, margin_weight=mw)
        assert again.root_statistics(backed) == stats
    assert len(positions) >= 4 and any(game.runouts > 0 for _, game, _ in positions)


# The Python search (compiled=False) is `slow`: test_compiled_guided_search_equals_the_python_reference
# ties it to the compiled one, whose invariance runs by default.
@pytest.mark.parametrize("compiled", [True, pytest.param(False, marks=pytest.mark.slow)])
def test_same_move_when_only_hidden_state_differs(compiled):
    g1, g2 = hidden_twins(2, observer=0)
    assert g1.snapshot()["hands"] != g2.snapshot()["hands"]

    def same_move(a, b):
        moves = [
            ISMCTSAgent(8, seed=a.move_count, rollout="guide", game=KK, compiled=compiled).select_move(g)
            for g in (a, b)
        ]
        assert moves[0] == moves[1]
        return moves[0]

    assert walk_hidden_twins(g1, g2, same_move, random.Random(2), 3) >= 2


def test_spec_and_bad_arguments():
    agent = load_agent("gismcts:40", game="kardinal_koenig", seed=1)
    assert isinstance(agent, ISMCTSAgent) and agent.rollout == "guide" and agent.name == "gismcts:40"
    assert load_agent("gismcts:40").game is KK  # the one game with a search guide
    with pytest.raises(AgentSpecError, match="search guide.*try 'ismcts:40'"):
        load_agent("gismcts:40", game="kardinal")
    with pytest.raises(AgentSpecError, match="positive number of simulations"):
        load_agent("gismcts:0", game="kardinal_koenig")
    with pytest.raises(ValueError, match="leave rollout_moves at 0"):
        ISMCTSAgent(10, rollout="guide", rollout_moves=5)
    with pytest.raises(ValueError, match="guide needs rollout='guide'"):
        ISMCTSAgent(10, guide=HeuristicGuide())
    with pytest.raises(ValueError, match="widen"):
        ISMCTSAgent(10, rollout="guide", widen=0)
    with pytest.raises(ValueError, match=r"margin_weight must be in \[0, 1\]"):
        ISMCTSAgent(10, rollout="guide", margin_weight=1.5)
    with pytest.raises(ValueError, match="needs rollout='guide'"):
        ISMCTSAgent(10, margin_weight=0.5)
    kardinal = get_game("kardinal")
    game = kardinal.new_game(kardinal.rules(2), seed=1)
    with pytest.raises(ValueError, match="search guide .*kardinal has none"):
        ISMCTSAgent(5, rollout="guide").select_move(game)


def test_core_refuses_a_bad_guide(core):
    from kardinal_env.koenig.knowledge import SeatKnowledge

    game = Game(Rules(players=4), seed=3)
    cc = koenig_compiled.core_position(game, core)
    data = SeatKnowledge(game, game.current_player).deal_data()
    weights, replan = HeuristicGuide().core_arguments
    assert len(core.koenig_search.ismcts_root(cc, 4, 0.7, 8.0, data, 1, weights, replan, 2)) <= 2
    with pytest.raises(ValueError, match="widen"):
        core.koenig_search.ismcts_root(cc, 4, 0.7, 8.0, data, 1, weights, replan, 0)
    with pytest.raises(ValueError, match="margin_weight"):
        core.koenig_search.ismcts_root(cc, 4, 0.7, 8.0, data, 1, weights, replan, 3, -0.1)
    with pytest.raises((TypeError, ValueError), match="ismcts_root"):
        core.koenig_search.ismcts_root(cc, 4, 0.7, 8.0, data, 1, weights[:3], replan, 3)
    with pytest.raises((TypeError, ValueError), match="replan"):
        core.koenig_search.ismcts_root(cc, 4, 0.7, 8.0, data, 1, weights, 0, 3)


def test_a_given_guide_is_the_one_searched_with(core, monkeypatch):
    """A guide with other weights and ``replan`` reaches the core's search (the Python reference agrees),
    and it searches differently from the default guide at this position."""
    from dataclasses import replace

    from agents.baselines.koenig_heuristic import DEFAULT_WEIGHTS

    monkeypatch.delenv(koenig_compiled.BACKEND_VARIABLE, raising=False)
    game = _heuristic_game(Rules(players=4), 11, 75)
    other = HeuristicGuide(replace(DEFAULT_WEIGHTS, hand=0.0, contest=3.0 * DEFAULT_WEIGHTS.contest + 1.0), replan=2)
    fast = ISMCTSAgent(12, seed=3, rollout="guide", guide=other).root_statistics(game)
    slow = ISMCTSAgent(12, seed=3, rollout="guide", guide=other, compiled=False).root_statistics(game)
    assert fast == slow
    assert fast != ISMCTSAgent(12, seed=3, rollout="guide", game=KK).root_statistics(game)


class _PlainGuide:
    """A guide the core does not know (no ``core_arguments``): the heuristic guide's moves, in Python."""

    def __init__(self):
        self.inner = HeuristicGuide()
        self.calls = 0

    def ranked(self, world, limit):
        self.calls += 1
        return self.inner.ranked(world, limit)

    def play_out(self, world):
        self.inner.play_out(world)


def test_a_guide_the_core_does_not_know_is_searched_in_python(core, monkeypatch):
    monkeypatch.delenv(koenig_compiled.BACKEND_VARIABLE, raising=False)
    game = _heuristic_game(Rules(players=3), 12, 80)
    plain = _PlainGuide()
    stats = ISMCTSAgent(6, seed=4, rollout="guide", guide=plain).root_statistics(game)
    assert plain.calls >= 6  # the Python search asked it at every simulation
    assert stats == ISMCTSAgent(6, seed=4, rollout="guide", game=KK).root_statistics(game)
