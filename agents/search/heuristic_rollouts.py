"""Heuristic rollouts for Kardinal & König (``rollout:N``): the ``heuristic`` baseline's move, unless determinized
worlds played out by the heuristic show one of its next best clearly better; up to ``N`` worlds per decision, in rounds.
Results and reasoning: docs/lab/koenig-search.md.

**The decision.** At a decision with two or more legal moves: the ``heuristic`` agent's move (the same draw of the
agent's generator on a tie) and its next ``candidates - 1`` best distinct moves (default 2; ties: the lower id;
:func:`heuristic_root_moves`), all played in the same worlds (:func:`rollout_values`). A world's value for a move is the
seat's final margin plus ``win_bonus`` (10) times its win share; another move replaces the heuristic's only when its
mean paired difference to it is above ``z`` (2.5) standard errors, the largest such lower bound winning
(:func:`~agents.search.common.choose`).

**Rounds.** Worlds are played in rounds of ``batch`` (16; the last cut to end at ``N``), each dealt from one
``getrandbits(64)`` of the agent's generator. After each round the test runs on all worlds so far; the next round plays
only the alternatives whose mean paired difference is above ``t_continue`` (0.5) standard errors; the decision ends when
none is, or after ``N`` worlds. ``batch >= N``: one round of exactly ``N`` worlds (version 1 with ``z=2``).

**A world** is dealt as ``ismcts`` deals it (:class:`kardinal_env.koenig.knowledge.SeatKnowledge`), seeded by a 64-bit
draw of the round's :class:`~kardinal_env.core.shuffle.ShuffleRng`; every candidate is played in every world.

**A playout** plays the candidate, then the heuristic (``replan`` re-valued plans, default 1) for every seat to the end;
exact ties go to the lowest move id. A playout seat values deck draws by the cards it cannot see in that world
(:func:`~agents.baselines.koenig_heuristic.unseen_deck_probabilities`).

**Compiled.** With the core (``koenig_search.heuristic_rollouts``, ``cpp/src/koenig/rollouts.hpp``) the worlds are dealt
and played in C++: the same deals, moves and values as the Python reference (``compiled=False``;
``tests/test_core_koenig_rollouts.py``), ~18 times faster.
"""

from __future__ import annotations

from dataclasses import astuple
from typing import Any

from agents.base import BaseAgent
from agents.baselines.koenig_heuristic import (
    DEFAULT_WEIGHTS,
    HeuristicWeights,
    _best_values,
    _Planner,
    _tie_break,
    heuristic_candidates,
    unseen_deck_probabilities,
)
from agents.search import koenig_compiled as _compiled
from agents.search.common import check_count, check_finite, forced_root, paired_test, seat_result
from kardinal_env.core import limits
from kardinal_env.core.shuffle import ShuffleRng
from kardinal_env.koenig.knowledge import SeatKnowledge

__all__ = ["HeuristicGuide", "HeuristicRolloutAgent", "heuristic_root_moves", "playout_move", "rollout_values"]


def _ranked(game, limit: int, weights: HeuristicWeights, replan: int) -> list[int]:
    """The seat on turn's ``limit`` best move ids by the Python planner with a playout seat's deck, best first (ties
    within ``1e-9``: the lowest id)."""
    legal = game.legal_actions()
    if len(legal) == 1:
        return [legal[0]]
    probs = unseen_deck_probabilities(game, game.current_player)
    best = _best_values(_Planner(game, weights, replan, probs).candidates())
    out: list[int] = []
    while len(out) < limit and best:
        top = max(best.values())
        pick = min(m for m, v in best.items() if v >= top - 1e-9)
        out.append(pick)
        del best[pick]
    return out


def playout_move(game, weights: HeuristicWeights = DEFAULT_WEIGHTS, replan: int = 1) -> int:
    """The playout policy's move id for the seat on turn: the heuristic's best."""
    return _ranked(game, 1, weights, replan)[0]


def _play_out(world, weights: HeuristicWeights, replan: int) -> None:
    while not world.is_over:
        world.apply_action(playout_move(world, weights, replan))


def heuristic_root_moves(
    game, limit: int, rng, weights: HeuristicWeights = DEFAULT_WEIGHTS, compiled: bool = True
) -> tuple[list[int], dict[int, float]]:
    """The move ids of ``rollout:N`` and ``pismcts:N``'s paired root: the ``heuristic`` agent's move (ties drawn from
    ``rng``) and its next ``limit - 1`` best (ties: lower id); and each move's best candidate value."""
    candidates = heuristic_candidates(game, weights, 6, compiled)
    first = _tie_break(candidates, rng)
    best = _best_values(candidates)
    others = [m for m in sorted(best, key=lambda m: (-best[m], m)) if m != first][: limit - 1]
    return [first, *others], best


class HeuristicGuide:
    """Kardinal & König's search guide (``GameAgents.search_guide``) for ``gismcts:N``, valuing deck draws as a playout
    seat does; the compiled search takes :attr:`core_arguments` and does the same in C++."""

    def __init__(self, weights: HeuristicWeights = DEFAULT_WEIGHTS, replan: int = 1):
        check_count("guide: replan", replan)
        self.weights = weights
        self.replan = replan

    @property
    def core_arguments(self) -> tuple[list[float], int]:
        """``(the weights' 10 field values, replan)`` for the core's ``ismcts_root``."""
        return list(astuple(self.weights)), self.replan

    def ranked(self, world, limit: int) -> list[int]:
        """The mover's ``limit`` best action ids in a dealt world, best first."""
        return _ranked(world, limit, self.weights, self.replan)

    def root_moves(self, game, limit: int, rng, compiled: bool = True) -> list[int]:
        """The paired root's children (``pismcts:N``) on the real game: :func:`heuristic_root_moves`."""
        return heuristic_root_moves(game, limit, rng, self.weights, compiled)[0]

    def play_out(self, world) -> None:
        """Play ``world`` in place to its end with :func:`playout_move` in every seat."""
        _play_out(world, self.weights, self.replan)


def rollout_values(
    game,
    moves: list[int],
    worlds: int,
    seed: int,
    weights: HeuristicWeights = DEFAULT_WEIGHTS,
    replan: int = 1,
    compiled: bool = True,
) -> list[tuple[int, list[float], list[int]]]:
    """``[(move id, [win share per world], [final margin per world])]`` of the seat on turn for each legal move id in
    ``moves``, over ``worlds`` worlds dealt from ``ShuffleRng(seed)``; in the core when ``compiled`` and core-backed."""
    check_count("rollout: worlds", worlds, maximum=limits.WORLDS)
    if not moves:
        raise ValueError("rollout_values: moves is empty")
    seat = game.current_player
    if seat is None:
        raise ValueError("rollout_values: the game is over; there is no decision")
    knowledge = SeatKnowledge(game, seat)
    module = _compiled.heuristic_core() if compiled else None
    if module is not None and getattr(game, "compiled", False):
        values = module.koenig_search.heuristic_rollouts(
            game.core, list(moves), worlds, list(astuple(weights)), replan, knowledge.deal_data(), seed
        )
        return [(int(m), list(shares), list(margins)) for m, shares, margins in values]
    legal = set(game.legal_actions())
    for m in moves:
        if m not in legal:
            raise ValueError(f"rollout_values: moves must be legal move ids of the seat on turn, got {m!r}")
    rng = ShuffleRng(seed)
    out: list[tuple[int, list[float], list[int]]] = [(m, [], []) for m in moves]
    for _ in range(worlds):
        world = knowledge.deal(rng)
        for move, shares, margins in out:
            g = world.clone()
            g.apply_action(move)
            _play_out(g, weights, replan)
            share, margin = seat_result(g, seat)
            shares.append(share)
            margins.append(margin)
    return out


class HeuristicRolloutAgent(BaseAgent):
    """``rollout:N``; Kardinal & König only. ``last_worlds``: the worlds the last decision played (0: one candidate)."""

    def __init__(
        self,
        worlds: int = 512,
        seed: int | None = None,
        candidates: int = 3,
        z: float = 2.5,
        win_bonus: float = 10.0,
        replan: int = 1,
        weights: HeuristicWeights | None = None,
        compiled: bool = True,
        batch: int = 16,
        t_continue: float = 0.5,
        game: Any = None,
    ):
        super().__init__(seed)
        check_count("rollout: worlds", worlds, maximum=limits.WORLDS)
        for name, value in (("candidates", candidates), ("replan", replan), ("batch", batch)):
            check_count(f"rollout: {name}", value)
        for name, number in (("z", z), ("win_bonus", win_bonus), ("t_continue", t_continue)):
            check_finite(f"rollout: {name}", number)
        self.worlds, self.batch, self.candidates, self.replan = worlds, batch, candidates, replan
        self.z, self.t_continue, self.win_bonus = float(z), float(t_continue), float(win_bonus)
        self.weights = DEFAULT_WEIGHTS if weights is None else weights
        self.compiled = bool(compiled)
        self.name = f"rollout:{worlds}"
        self.last_worlds = 0

    def select_move(self, game) -> str:
        return max(self.root_statistics(game), key=lambda child: child[1])[0]

    def root_statistics(self, game) -> list[tuple[str, int, float]]:
        """For search trainers (``search: rollout``): ``(move, visits, heuristic value)`` of the heuristic's move and
        the alternatives, in that order, 1 visit for the move played (one legal move: that move, no visits)."""
        self.last_worlds = 0
        forced = forced_root(game)
        if forced is not None:
            return forced
        (first, *others), best = heuristic_root_moves(game, self.candidates, self.rng, self.weights, self.compiled)
        choice = self._sequential_choice(game, first, others) if others else first
        return [(game.board.moves[m], int(m == choice), best[m]) for m in (first, *others)]

    def _sequential_choice(self, game, first: int, alive: list[int]) -> int:
        played: dict[int, tuple[list[float], list[int]]] = {m: ([], []) for m in (first, *alive)}
        n = 0
        while True:
            size = min(self.batch, self.worlds - n)
            seed = self.rng.getrandbits(64)
            for move, shares, margins in rollout_values(
                game, [first, *alive], size, seed, self.weights, self.replan, self.compiled
            ):
                played[move][0].extend(shares)
                played[move][1].extend(margins)
            n += size
            self.last_worlds = n
            choice, alive = paired_test(first, alive, played, self.z, self.t_continue, self.win_bonus)
            if choice != first:
                return choice
            if not alive or n >= self.worlds:
                return first
