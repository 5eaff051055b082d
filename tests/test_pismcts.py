"""``pismcts:N``: the guided ISMCTS of ``gismcts:N`` with a paired root (``ISMCTSAgent(rollout="guide",
paired=True)``). Every round deals one world and plays every root child in it; the compiled search
(``Ismcts::search_paired``) gives the Python reference's children, round values and move from the same
seed; the move is the paired test's; hidden cards change nothing; bad arguments are refused by name."""

from __future__ import annotations

import random

import pytest
from koenig_helpers import hidden_twins, walk_hidden_twins
from test_gismcts import _heuristic_game, search_positions

from agents import AgentSpecError, load_agent
from agents.search.common import choose, paired_statistics, significant_move
from agents.search.heuristic_rollouts import HeuristicGuide, heuristic_root_moves
from agents.search.ismcts import ISMCTSAgent
from kardinal_env.core.registry import get_game
from kardinal_env.koenig import Game, Rules
from kardinal_env.koenig import compiled as koenig_compiled

KK = get_game("kardinal_koenig")


def _paired(simulations: int, seed: int, **kw) -> ISMCTSAgent:
    return ISMCTSAgent(simulations, seed=seed, rollout="guide", paired=True, game=KK, **kw)


def test_compiled_paired_search_equals_the_python_reference(core, monkeypatch):
    """The core's paired search and the Python one (``compiled=False``): the same children, visits, means
    and round values (win shares and margins, to the bit), the same move and generator state, for every
    player count and both discard options, before and after the first run-out, on both engines, with
    every round to the budget and with the paired test stopping the rounds (``batch``), with and without
    progressive widening (``widen_visits``)."""
    monkeypatch.delenv(koenig_compiled.BACKEND_VARIABLE, raising=False)
    stopped = 0
    positions = search_positions([(3, "one", 70), (4, "any", 85), (5, "one", 95), (4, "one", 100)])
    for i, game, backed in positions:
        for sims, batch, widen_visits in ((9, 0, 0), (27, 2, 2 * (i % 2))):
            # every round to the budget; the paired test every 2 rounds, with progressive widening or not
            kw = {"margin_weight": 0.5 * (i % 2), "widen_visits": widen_visits}
            fast, slow = _paired(sims, i, batch=batch, **kw), _paired(sims, i, batch=batch, compiled=False, **kw)
            children = fast._search(game)
            assert children == slow._search(game), (i, batch)
            assert fast._compiled is not None and slow._compiled is None
            assert fast.rng.getstate() == slow.rng.getstate()
            assert _paired(sims, i, batch=batch, **kw)._search(backed) == children
            assert _paired(sims, i, batch=batch, **kw).select_move(game) == _paired(
                sims, i, batch=batch, compiled=False, **kw
            ).select_move(game)
            # the root's children: the heuristic's own move and its next two (as rollout:N takes them); the
            # first played in every round, an alternative in every round until the test dropped it
            root, _ = heuristic_root_moves(game, 3, random.Random(i))
            assert [c[0] for c in children] == [game.board.moves[m] for m in root]
            rounds = len(children[0][3])
            assert all(c[1] == len(c[3]) == len(c[4]) <= rounds for c in children)
            assert sum(c[1] for c in children) <= sims
            if not batch:
                assert all(c[1] == rounds == sims // len(children) for c in children)
            else:
                stopped += rounds < sims // len(children)
    assert len(positions) >= 3 and any(game.runouts > 0 for _, game, _ in positions) and stopped >= 1


def test_the_move_is_the_paired_test_s():
    """``select_move`` plays :func:`~agents.search.heuristic_rollouts.choose`'s move on the round values
    of the alternatives played in every round (the guide's first move unless another's paired lower
    bound is above zero); ``root_statistics`` gives the same children without the round values."""
    changed = kept = dropped = 0
    for seed, moves, z, batch in (
        (21, 60, 2.5, 0),
        (22, 90, 2.5, 0),
        (30, 90, 0.0, 0),
        (34, 90, 0.0, 0),
        (40, 60, 0.0, 0),
        (31, 90, 2.5, 4),
        (34, 90, 2.5, 4),
    ):
        game = _heuristic_game(Rules(players=4), seed, moves)
        children = _paired(12 + 48 * bool(batch), seed, z=z, batch=batch)._search(game)
        rounds = len(children[0][3])
        values = [(m, shares, margins) for m, _, _, shares, margins in children if len(shares) == rounds]
        dropped += len(values) < len(children)  # an alternative the test dropped is not in the final test
        move = _paired(12 + 48 * bool(batch), seed, z=z, batch=batch).select_move(game)
        assert move == choose(values, z=z) == significant_move(children[0][0], paired_statistics(values), z)
        stats = _paired(12 + 48 * bool(batch), seed, z=z, batch=batch).root_statistics(game)
        assert stats == [c[:3] for c in children]
        changed += move != children[0][0]
        kept += move == children[0][0]
    assert kept >= 1 and changed >= 2 and dropped >= 1  # z = 0: any better mean replaces the guide's move


class _RankingGuide(HeuristicGuide):
    """The heuristic guide without ``root_moves``: the paired root then takes the guide's best moves in
    the first world (the core gets no root moves, the weights and ``replan`` as before)."""

    root_moves = None  # type: ignore[assignment]


def test_a_guide_without_root_moves_gives_its_ranking_as_the_root(core, monkeypatch):
    monkeypatch.delenv(koenig_compiled.BACKEND_VARIABLE, raising=False)
    game = _heuristic_game(Rules(players=4), 31, 90)
    kw = {"seed": 2, "rollout": "guide", "paired": True, "batch": 4}
    fast = ISMCTSAgent(24, guide=_RankingGuide(), **kw)._search(game)
    assert fast == ISMCTSAgent(24, guide=_RankingGuide(), compiled=False, **kw)._search(game)
    assert [c[0] for c in fast] == [game.board.moves[a] for a in HeuristicGuide().ranked(game, 3)]
    root, _ = heuristic_root_moves(game, 3, random.Random(2))
    assert [c[0] for c in ISMCTSAgent(24, guide=HeuristicGuide(), **kw)._search(game)] == [
        game.board.moves[m] for m in root
    ]


@pytest.mark.parametrize("compiled", [True, False])
def test_same_move_when_only_hidden_state_differs(compiled):
    g1, g2 = hidden_twins(2, observer=0)
    assert g1.snapshot()["hands"] != g2.snapshot()["hands"]

    def same_move(a, b):
        moves = [_paired(6, a.move_count, compiled=compiled).select_move(g) for g in (a, b)]
        assert moves[0] == moves[1]
        return moves[0]

    assert walk_hidden_twins(g1, g2, same_move, random.Random(3), 3) >= 2


def test_spec_and_bad_arguments(core):
    agent = load_agent("pismcts:40", game="kardinal_koenig", seed=1)
    assert isinstance(agent, ISMCTSAgent) and agent.paired and agent.rollout == "guide"
    assert agent.name == "pismcts:40" and agent.z == 2.5 and agent.win_bonus == 10.0 and agent.batch == 16
    assert agent.widen_visits == 8
    assert load_agent("pismcts:40").game is KK  # the one game with a search guide
    assert not load_agent("gismcts:40").paired
    with pytest.raises(AgentSpecError, match="search guide.*try 'ismcts:40'"):
        load_agent("pismcts:40", game="kardinal")
    with pytest.raises(ValueError, match="paired .*needs rollout='guide'"):
        ISMCTSAgent(10, paired=True)
    for bad in (-1.0, float("inf"), True, "2"):
        with pytest.raises(ValueError, match="z must be a finite number"):
            ISMCTSAgent(10, rollout="guide", paired=True, z=bad)
    with pytest.raises(ValueError, match="win_bonus must be a finite number"):
        ISMCTSAgent(10, rollout="guide", paired=True, win_bonus=-2)
    with pytest.raises(ValueError, match="t_continue must be a finite number"):
        ISMCTSAgent(10, rollout="guide", paired=True, t_continue=float("nan"))
    with pytest.raises(ValueError, match="batch must be an integer from 0 to"):
        ISMCTSAgent(10, rollout="guide", paired=True, batch=-1)
    with pytest.raises(ValueError, match="batch .*needs paired=True"):
        ISMCTSAgent(10, rollout="guide", batch=4)
    with pytest.raises(ValueError, match="widen_visits must be an integer from 0 to"):
        ISMCTSAgent(10, rollout="guide", widen_visits=-1)
    with pytest.raises(ValueError, match="widen_visits .*needs rollout='guide'"):
        ISMCTSAgent(10, widen_visits=4)
    from kardinal_env.koenig.knowledge import SeatKnowledge

    game = Game(Rules(players=4), seed=3)
    cc = koenig_compiled.core_position(game, core)
    data = SeatKnowledge(game, game.current_player).deal_data()
    with pytest.raises(ValueError, match="paired needs the guide"):
        core.koenig_search.ismcts_root(cc, 4, 0.7, 8.0, data, 1, None, None, 3, 0.0, True)
    weights, replan = HeuristicGuide().core_arguments
    with pytest.raises(ValueError, match="batch must be an integer from 0 to"):
        core.koenig_search.ismcts_root(cc, 4, 0.7, 8.0, data, 1, weights, replan, 3, 0.0, True, -1)
    with pytest.raises(ValueError, match="finite and >= 0"):
        core.koenig_search.ismcts_root(cc, 4, 0.7, 8.0, data, 1, weights, replan, 3, 0.0, True, 2, -2.5)
    with pytest.raises(ValueError, match="widen_visits must be an integer from 0 to"):
        core.koenig_search.ismcts_root(cc, 4, 0.7, 8.0, data, 1, weights, replan, 3, 0.0, True, 2, 2.5, 0.5, 10.0, -1)
    legal = game.legal_actions()
    given = legal[:2][::-1]
    children = core.koenig_search.ismcts_root(
        cc, 6, 0.7, 8.0, data, 1, weights, replan, 3, 0.0, True, 0, 2.5, 0.5, 10.0, 0, given
    )
    assert [c[0] for c in children] == given  # the given root moves, in their order
    illegal = next(m for m in range(len(game.board.moves)) if m not in legal)
    for bad in ([], [legal[0], legal[0]], [illegal], ["draw:deck"]):
        with pytest.raises(ValueError, match="root_moves"):
            core.koenig_search.ismcts_root(
                cc, 4, 0.7, 8.0, data, 1, weights, replan, 3, 0.0, True, 0, 2.5, 0.5, 10.0, 0, bad
            )
    with pytest.raises(ValueError, match="root_moves are the paired root's"):
        core.koenig_search.ismcts_root(
            cc, 4, 0.7, 8.0, data, 1, weights, replan, 3, 0.0, False, 0, 2.5, 0.5, 10.0, 0, legal[:2]
        )
