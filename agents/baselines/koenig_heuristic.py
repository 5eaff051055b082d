"""A strong heuristic baseline for Kardinal & König (``heuristic``): it plans its whole turn one ply deep with a value
that estimates the final score margin, from public information and its own hand.

**What it sees.** Public information (board, scores, display, discard pile, deck size, run-outs, hand sizes, decision
log) and its own hand, through ``Game.live_view``, ``Game.hand_counts`` (own seat), ``Game.legal_actions`` and
:class:`kardinal_env.koenig.knowledge.SeatKnowledge`; never another seat's hand, the deck order or the game's generator
(``tests/test_koenig_heuristic.py``).

**How it decides.** Every plan for the rest of the turn is valued as board value (every seat's estimated final score and
margin: :mod:`agents.baselines.koenig_heuristic_value`) + hand value (:mod:`agents.baselines.koenig_heuristic_plan`);
the best gives the move, exact ties broken by the agent's generator (``seed``). :class:`HeuristicWeights` names the
weights.

**Compiled.** Where the core is built, the candidates' values (all before the tie-break) come from it
(:func:`agents.search.koenig_compiled.heuristic_values`): the same moves and values, operation for operation, about ten
times faster; the seat's deck knowledge (:func:`deck_probabilities`) is passed in. ``compiled=False``,
``KARDINAL_ENV_BACKEND=python``, a subclass of ``Game`` and a determinized world plan in Python.

The weights were tuned by coordinate search over tournaments (:mod:`agents.baselines.koenig_tuning`;
docs/koenig-heuristic.md has the method, comparisons and strength).
"""

from __future__ import annotations

import numpy as np

from agents.base import BaseAgent
from agents.baselines.koenig_heuristic_plan import _Planner, deck_probabilities, unseen_deck_probabilities
from agents.baselines.koenig_heuristic_value import _next_turn_chance, _Position, _static
from agents.baselines.koenig_heuristic_weights import DEFAULT_WEIGHTS, HeuristicWeights
from agents.search import koenig_compiled as _compiled
from agents.search.common import check_count
from kardinal_env.koenig.knowledge import UnknownDrawsError

__all__ = [
    "HeuristicWeights",
    "KoenigHeuristicAgent",
    "heuristic_move",
    "heuristic_candidates",
    "deck_probabilities",
    "estimated_final_scores",
    "heuristic_advice",
    "unseen_deck_probabilities",
    "ADVICE_CLIP",
    "DEFAULT_WEIGHTS",
]


def _tie_break(candidates: list[tuple[int, float]], rng) -> int:
    """The best candidate's move id; ties within ``1e-9``: one ``rng.randrange`` over the tied ids, ascending."""
    best = max(v for _, v in candidates)
    top = sorted({m for m, v in candidates if v >= best - 1e-9})
    return top[0] if len(top) == 1 else top[rng.randrange(len(top))]


def _best_values(candidates: list[tuple[int, float]]) -> dict[int, float]:
    best: dict[int, float] = {}
    for m, v in candidates:
        best[m] = max(best.get(m, v), v)
    return best


def heuristic_candidates(
    game, weights: HeuristicWeights = DEFAULT_WEIGHTS, replan: int = 6, compiled: bool = True
) -> list[tuple[int, float]]:
    """The heuristic's ``(move id, value)`` candidates before the tie-break (the core when ``compiled`` and used)."""
    seat = game.current_player
    if seat is None:
        raise ValueError("no legal move: the game is over")
    if compiled and _compiled.heuristic_core() is not None:
        # the planner asks what the deck holds only when the seat may play again
        again = _next_turn_chance(game.live_view(), game.num_players, seat) > 0
        probs = deck_probabilities(game, seat) if again else [0.0] * len(game.board.types)
        values = _compiled.heuristic_values(game, weights, replan, probs)
        if values is not None:
            return values
    return _Planner(game, weights, replan).candidates()


#: :func:`heuristic_advice` clips the gaps at this many points of estimated margin (the value's unit).
ADVICE_CLIP = 8.0


def heuristic_advice(
    game, weights: HeuristicWeights = DEFAULT_WEIGHTS, replan: int = 6, clip: float = ADVICE_CLIP
) -> np.ndarray:
    """The heuristic's view of every move, as a network's start (:mod:`agents.networks.koenig_net`, ``advised``): a
    float32 array over ``game.board.moves``, per move its best plan's value less the best plan's, in ``[-clip, 0]``: 0
    for the moves it plays, ``-clip`` for illegal moves and legal ones outside its ``replan`` best plans. In a world
    dealt for another seat the deck is :func:`unseen_deck_probabilities`."""
    legal = game.legal_actions()
    if not legal:
        raise ValueError("no legal move: the game is over")
    out = np.full(len(game.board.moves), -clip, dtype=np.float32)
    if len(legal) == 1:
        out[legal[0]] = 0.0
        return out
    try:
        candidates = heuristic_candidates(game, weights, replan)
    except UnknownDrawsError:  # another seat's decision inside a world a search dealt for its own seat
        probs = unseen_deck_probabilities(game, game.current_player)
        candidates = _Planner(game, weights, replan, probs).candidates()
    best = _best_values(candidates)
    top = max(best.values())
    for m, v in best.items():
        out[m] = max(-clip, v - top)
    return out


def estimated_final_scores(game, weights: HeuristicWeights = DEFAULT_WEIGHTS) -> list[float]:
    """Every seat's estimated final score from public information only; ``game.scores()`` once the game is over."""
    if game.is_over:
        return [float(v) for v in game.scores()]
    seat = game.current_player
    return list(_Position(game, seat, weights, _static(game.board)).ef)


def heuristic_move(
    game, rng, weights: HeuristicWeights = DEFAULT_WEIGHTS, replan: int = 6, compiled: bool = True
) -> str:
    """The heuristic's move; ``rng`` breaks exact ties."""
    legal = game.legal_actions()
    if not legal:
        raise ValueError("no legal move: the game is over")
    move = legal[0] if len(legal) == 1 else _tie_break(heuristic_candidates(game, weights, replan, compiled), rng)
    return game.board.moves[move]


class KoenigHeuristicAgent(BaseAgent):
    """``heuristic``: the tuned one-ply planner, public information and its own hand only."""

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        weights: HeuristicWeights | None = None,
        replan: int = 6,
        compiled: bool = True,
    ):
        super().__init__(seed)
        check_count("replan", replan)
        self.weights = DEFAULT_WEIGHTS if weights is None else weights
        self.replan = replan
        self.compiled = bool(compiled)

    def select_move(self, game) -> str:
        return heuristic_move(game, self.rng, self.weights, self.replan, self.compiled)
