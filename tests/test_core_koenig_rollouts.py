"""Heuristic rollouts (``rollout:N``, agents/search/heuristic_rollouts.py): the compiled playouts
(``koenig_search.heuristic_rollouts``, cpp/src/koenig/rollouts.hpp) in lockstep with the Python reference,
the agent's hidden-information discipline, its spec, and errors naming the bad argument.

The lockstep tests start late in seeded games (3, 4 and 5 players, ``discard`` one and any, after the
first run-out and in the last round) because a Python playout costs ~0.26 s even from the last third
of a game: the compiled values (per candidate, the win share and the final margin of every world) must
equal the Python ones exactly — the same worlds, the same heuristic moves in every seat, the same final
scores.

Skipped (with the reason) when ``kardinal_core`` is not built, unless ``KARDINAL_REQUIRE_CORE=1``, and
under ``KARDINAL_ENV_BACKEND=python``; the pure-Python tests at the end run everywhere.
"""

from __future__ import annotations

import random

import pytest
from helpers import koenig_search_core_or_skip
from koenig_helpers import hidden_twins, play_common_move

from agents import AgentSpecError, load_agent
from agents.baselines.koenig_heuristic import (
    DEFAULT_WEIGHTS,
    KoenigHeuristicAgent,
    _tie_break,
    heuristic_candidates,
    unseen_deck_probabilities,
)
from agents.search.common import choose, paired_statistics
from agents.search.heuristic_rollouts import HeuristicRolloutAgent, rollout_values
from kardinal_env.koenig import Game, Rules
from kardinal_env.koenig.knowledge import SeatKnowledge

WEIGHTS = list(DEFAULT_WEIGHTS.as_dict().values())


@pytest.fixture
def core():
    return koenig_search_core_or_skip("rollouts")


def _late_game(players: int, discard: str, seed: int, left: int) -> Game:
    """A core-backed game of heuristic seats, stopped at a decision with 2+ legal moves about ``left``
    decisions before its end (the end found by playing a clone out with the same seats)."""
    rules = Rules(players=players, discard=discard)

    def seats():
        return [KoenigHeuristicAgent(seed=seed * 10 + s) for s in range(players)]

    probe, agents = Game(rules, seed=seed), seats()
    while not probe.is_over:
        probe.play(agents[probe.current_player].select_move(probe))
    game, agents = Game(rules, seed=seed), seats()
    while game.move_count < probe.move_count - left or len(game.legal_actions()) < 2:
        game.play(agents[game.current_player].select_move(game))
    assert game.compiled and not game.is_over
    return game


LATE_GAMES = [(4, "one", 1, 40), (3, "any", 2, 30), (5, "one", 3, 30)]


@pytest.mark.parametrize(("players", "discard", "seed", "left"), LATE_GAMES)
def test_compiled_rollouts_equal_the_python_reference(core, players, discard, seed, left):
    game = _late_game(players, discard, seed, left)
    moves = game.legal_actions()[:3]
    cc = rollout_values(game, moves, 3, 1000 + seed)
    py = rollout_values(game, moves, 3, 1000 + seed, compiled=False)
    assert cc == py
    assert [m for m, _, _ in cc] == moves
    assert all(len(shares) == len(margins) == 3 for _, shares, margins in cc)
    assert all(share in (0.0, 1.0, 0.5, 1 / 3) for _, shares, _ in cc for share in shares)
    assert all(isinstance(margin, int) for _, _, margins in cc for margin in margins)
    assert len({tuple(margins) for _, _, margins in cc}) > 1, "the candidates should differ"


def test_rollouts_after_the_first_runout_and_in_the_last_round(core):
    checked = {"after_runout": 0, "last_round": 0}
    for seed in range(4, 10):
        game = _late_game(4, "one", seed, 12)
        if game.runouts > 0:
            checked["after_runout"] += 1
        if game.last_round:
            checked["last_round"] += 1
        moves = game.legal_actions()[:2]
        assert rollout_values(game, moves, 2, seed) == rollout_values(game, moves, 2, seed, compiled=False)
    assert checked["after_runout"] >= 3


def test_the_seed_decides_the_worlds(core):
    game = _late_game(4, "one", 1, 60)
    moves = game.legal_actions()[:4]
    a = rollout_values(game, moves, 8, 7)
    assert a == rollout_values(game, moves, 8, 7)
    assert any(rollout_values(game, moves, 8, s) != a for s in (8, 9, 10))


def test_hidden_cards_do_not_change_the_rollouts_or_the_move(core):
    """Two games that differ only in cards seat 0 cannot see: the same values for every candidate and
    the same move of the agent (same seed), at every seat-0 decision while its view is the same."""
    checked = 0
    for seed in range(1, 5):
        g1, g2 = hidden_twins(seed, observer=0)
        assert g1.snapshot()["hands"] != g2.snapshot()["hands"]
        rng = random.Random(seed)
        while not g1.is_over and g1.display() == g2.display() and g1.hand(0) == g2.hand(0) and checked < 12:
            if g1.current_player == 0 and len(g1.legal_actions()) > 1:
                moves = g1.legal_actions()[:2]
                assert rollout_values(g1, moves, 2, seed) == rollout_values(g2, moves, 2, seed)
                a1, a2 = HeuristicRolloutAgent(2, seed=seed), HeuristicRolloutAgent(2, seed=seed)
                assert a1.select_move(g1) == a2.select_move(g2)
                checked += 1
            if not play_common_move(g1, g2, rng):
                break
    assert checked >= 6


def test_bad_arguments_raise_errors_naming_them(core):
    game = _late_game(4, "one", 1, 60)
    data = SeatKnowledge(game, game.current_player).deal_data()
    legal = game.legal_actions()
    illegal = next(m for m in range(len(game.board.moves)) if m not in legal)
    bad = [
        (
            (legal[:2], 0, WEIGHTS, 1, data, 1),
            ValueError,
            r"worlds must be an integer from 1 to 10000",
        ),
        (([], 2, WEIGHTS, 1, data, 1), ValueError, r"moves is empty"),
        (([illegal], 2, WEIGHTS, 1, data, 1), ValueError, r"moves must be legal move ids of the seat on turn"),
        ((None, 2, WEIGHTS, 1, data, 1), TypeError, r"moves must be a list or tuple"),
        ((legal[:2], 2, WEIGHTS[:9], 1, data, 1), ValueError, r"heuristic_rollouts: weights must have 10 entries"),
        ((legal[:2], 2, [*WEIGHTS[:9], 0.0], 1, data, 1), ValueError, r"heuristic_rollouts: weights\[9\] \(horizon\)"),
        (
            (legal[:2], 2, WEIGHTS, 0, data, 1),
            ValueError,
            r"rollouts: replan must be an integer from 1 to",
        ),
        ((legal[:2], 2, WEIGHTS, 1, data, "1"), TypeError, r"seed"),
    ]
    for args, exc, pattern in bad:
        with pytest.raises(exc, match=pattern):
            core.koenig_search.heuristic_rollouts(game.core, *args)
    other = SeatKnowledge(game, (game.current_player + 1) % 4).deal_data()
    with pytest.raises(ValueError, match=r"the knowledge must be the seat on turn's"):
        core.koenig_search.heuristic_rollouts(game.core, legal[:2], 2, WEIGHTS, 1, other, 1)


def test_the_agent_plays_a_whole_game_with_the_core(core):
    rules = Rules(players=4)
    game = Game(rules, seed=5)
    agents = [HeuristicRolloutAgent(2, seed=1, candidates=2), *(KoenigHeuristicAgent(seed=s) for s in range(3))]
    while not game.is_over:
        move = agents[game.current_player].select_move(game)
        assert move in game.legal_moves()
        game.play(move)
    assert len(game.scores()) == 4


def test_one_round_of_n_worlds_is_the_fixed_rule(core):
    """``batch >= N``: one round of exactly ``N`` worlds, the move :func:`choose` makes of
    :func:`rollout_values` with the round's seed (the agent's first draws: the heuristic's tie-break, then
    the seed); a smaller batch plays at least one batch and at most ``N`` worlds, in whole rounds."""
    checked = 0
    for players, discard, seed, left in LATE_GAMES:
        game = _late_game(players, discard, seed, left)
        fixed = HeuristicRolloutAgent(8, seed=seed, batch=8)
        move = fixed.select_move(game)
        if fixed.last_worlds == 0:  # one candidate only: nothing to play out
            continue
        assert fixed.last_worlds == 8
        probe = HeuristicRolloutAgent(8, seed=seed)
        candidates = heuristic_candidates(game, DEFAULT_WEIGHTS, 6, True)
        first = _tie_break(candidates, probe.rng)
        ranked = sorted({m for m, _ in candidates}, key=lambda m: (-max(v for c, v in candidates if c == m), m))
        moves = [first, *[m for m in ranked if m != first][:2]]
        values = rollout_values(game, moves, 8, probe.rng.getrandbits(64))
        assert move == game.board.moves[choose(values, fixed.z, fixed.win_bonus)]
        for batch, most in ((3, 8), (4, 12)):
            agent = HeuristicRolloutAgent(most, seed=seed, batch=batch)
            assert agent.select_move(game) in game.legal_moves()
            assert batch <= agent.last_worlds <= most
            assert agent.last_worlds % batch == 0 or agent.last_worlds == most
        checked += 1
    assert checked >= 2


# ----------------------------------------------------------------- pure Python: everywhere


class _Board:
    moves = [f"m{i}" for i in range(4)]


class _FakeGame:
    board = _Board


def _scripted(monkeypatch, margin):
    """Replace :func:`rollout_values` by scripted worlds: ``margin(move, world)`` (the heuristic's move
    0 always 0); returns the list of ``(moves, worlds)`` of each round."""
    import agents.search.heuristic_rollouts as module

    calls = []

    def fake(game, moves, worlds, seed, weights, replan, compiled):
        start = sum(w for _, w in calls)
        calls.append((list(moves), worlds))
        return [(m, [0.0] * worlds, [0 if m == 0 else margin(m, start + w) for w in range(worlds)]) for m in moves]

    monkeypatch.setattr(module, "rollout_values", fake)
    return calls


def test_rounds_stop_when_no_alternative_is_promising_and_go_on_while_one_is(monkeypatch):
    """The rounds on scripted worlds, ``z = 2``, ``t_continue = 1`` (alternating values a, b: mean
    (a+b)/2, standard deviation ~|a-b|/2):
    alternatives clearly worse end the decision after one round; one half a standard deviation better
    is promising after 8 worlds (t = 1.3), not yet significant after 16 (t = 1.9) and chosen after 24
    (t = 2.4); a tenth of one is dropped after the first round; one at 0.3 stays promising but never
    significant and the rounds stop at N, the last one cut short."""
    agent = HeuristicRolloutAgent(40, seed=0, batch=8, z=2.0, t_continue=1.0)
    calls = _scripted(monkeypatch, lambda m, w: -5 + w % 2 if m == 1 else -3 - w % 3)
    assert agent._sequential_choice(_FakeGame, 0, [1, 2]) == 0
    assert calls == [([0, 1, 2], 8)] and agent.last_worlds == 8

    calls = _scripted(monkeypatch, lambda m, w: 1.5 if w % 2 else -0.5)
    assert agent._sequential_choice(_FakeGame, 0, [1]) == 1
    assert calls == [([0, 1], 8)] * 3 and agent.last_worlds == 24

    calls = _scripted(monkeypatch, lambda m, w: 1.1 if w % 2 else -0.9)
    assert agent._sequential_choice(_FakeGame, 0, [1]) == 0 and len(calls) == 1

    agent = HeuristicRolloutAgent(36, seed=0, batch=16, z=2.0, t_continue=1.0)
    calls = _scripted(monkeypatch, lambda m, w: 1.3 if w % 2 else -0.7)
    assert agent._sequential_choice(_FakeGame, 0, [1]) == 0
    assert [w for _, w in calls] == [16, 16, 4] and agent.last_worlds == 36
    ((_, mean, se),) = paired_statistics([(0, [0.0] * 36, [0] * 36), (1, [0.0] * 36, [1.3, -0.7] * 18)])
    assert 1 < mean / se < 2


def test_choose_keeps_the_heuristics_move_unless_another_is_clearly_better():
    first = (10, [0.0, 1.0, 0.0, 0.0], [-3, 2, -5, -1])
    noisy = (11, [1.0, 0.0, 0.0, 0.0], [4, -6, -2, -1])  # better on average, but not clearly
    clear = (12, [0.0, 1.0, 0.0, 0.0], [-1, 4, -3, 2])  # 2-3 points better in every world
    assert choose([first, noisy]) == 10
    assert choose([first, noisy, clear]) == 12
    assert choose([first, clear], z=50.0) == 10
    assert choose([first, noisy], z=0.0) == 11
    assert choose([(10, [0.0], [-3]), (11, [1.0], [9])]) == 10  # one world: no error estimate, no switch


def test_unseen_deck_probabilities_are_the_cards_the_seat_cannot_see():
    """Worked out from public information and the seat's hand, they are the make-up of the cards the
    seat cannot see — read here from the game's snapshot: the other hands and the deck."""
    for seed, moves in ((2, 40), (3, 90)):
        game = Game(Rules(players=4), seed=seed)
        rng = random.Random(seed)
        for _ in range(moves):
            game.play(rng.choice(game.legal_moves()))
        seat = game.current_player
        snap = game.snapshot()
        unseen = [0] * len(game.board.types)
        for other, hand in enumerate(snap["hands"]):
            if other != seat:
                for t in hand:
                    unseen[t] += 1
        for t in snap["deck"]:
            unseen[t] += 1
        assert unseen != [0] * len(unseen) and game.deck_size() > 0
        assert unseen_deck_probabilities(game, seat) == pytest.approx([k / sum(unseen) for k in unseen])


def test_the_spec_builds_the_agent_and_other_games_refuse_it():
    agent = load_agent("rollout:8", game="kardinal_koenig", seed=1)
    assert isinstance(agent, HeuristicRolloutAgent) and agent.worlds == 8 and agent.name == "rollout:8"
    with pytest.raises(AgentSpecError, match=r"rollout:8.*heuristic playout search.*kardinal has none"):
        load_agent("rollout:8", game="kardinal")
    with pytest.raises(AgentSpecError, match=r"rollout:0"):
        load_agent("rollout:0", game="kardinal_koenig")
    with pytest.raises(ValueError, match=r"rollout: candidates"):
        HeuristicRolloutAgent(4, candidates=0)
    with pytest.raises(ValueError, match=r"rollout: z must be a finite number >= 0"):
        HeuristicRolloutAgent(4, z=-1.0)
    with pytest.raises(ValueError, match=r"rollout: batch"):
        HeuristicRolloutAgent(4, batch=0)
    with pytest.raises(ValueError, match=r"rollout: t_continue must be a finite number >= 0"):
        HeuristicRolloutAgent(4, t_continue=float("nan"))


def test_the_python_reference_plays_a_late_decision_without_the_core():
    """``compiled=False`` on a Python-engine game: a legal move near the end of a game."""
    game = Game(Rules(players=3, discard="any"), seed=4)
    agents = [KoenigHeuristicAgent(seed=s, compiled=False) for s in range(3)]
    while not game.is_over and not (game.last_round and len(game.legal_actions()) > 1):
        game.play(agents[game.current_player].select_move(game))
    if game.is_over:
        pytest.fail("seed 4 should reach a last-round decision with two or more legal moves")
    agent = HeuristicRolloutAgent(2, seed=0, candidates=2, compiled=False)
    assert agent.select_move(game) in game.legal_moves()
