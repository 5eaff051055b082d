"""One-ply greedy baseline (Kardinal below; for a Kardinal & König game ``select_move`` uses
:mod:`agents.baselines.koenig_greedy`).

* **Build**: the build that takes the most chips this turn (:func:`agents.baselines.kardinal_heuristics.build_chips`:
  only chips that reach the builder count — put-aside neutral chips and touches of exhausted or
  non-scoring colours count 0, substitutes count 1). Ties: the larger sum of
  :func:`agents.baselines.kardinal_heuristics.chip_weight` over the chips (other seats' colours and the colour the
  seat holds most of are worth more than its own colours), then a seeded random choice.
* **Chip** (compensation / substitute): the colour with the highest ``chip_weight`` (seeded ties).
* **Cardinal**: the square (or ``C-``) that leaves the next seat to build the fewest chips with its
  best build (a seat left with no build at all counts -1), then the fewest builds that reach that
  best, then a seeded random choice.
"""

from __future__ import annotations

from agents.base import BaseAgent
from agents.baselines.kardinal_heuristics import build_chips, cardinal_block_values, chip_weight
from agents.baselines.koenig_greedy import koenig_greedy_move
from kardinal_env.kardinal.notation import BUILD, CHIP, format_move

__all__ = ["GreedyAgent", "greedy_code"]


def _pick_max(items, rng):
    """Uniform choice among the items with the largest key; ``items`` is a list of (key, value)."""
    best = max(k for k, _ in items)
    top = [v for k, v in items if k == best]
    return top[0] if len(top) == 1 else top[rng.randrange(len(top))]


def greedy_build(game, codes, rng):
    seat = game.current_player
    weights = {}
    scored = []
    for code in codes:
        colours: list = []
        chips = build_chips(game, code, colours)
        value = 0.0
        for c in colours:
            if c < 0:
                value += 1.0
                continue
            w = weights.get(c)
            if w is None:
                w = weights[c] = chip_weight(game, seat, c)
            value += w
        scored.append(((chips, value), code))
    return _pick_max(scored, rng)


def greedy_code(game, rng) -> tuple:
    """The greedy agent's move code for the current decision of ``game``."""
    codes = game.legal_move_codes()
    if len(codes) == 1:
        return codes[0]
    kind = codes[0][0]
    if kind == BUILD:
        return greedy_build(game, codes, rng)
    if kind == CHIP:
        seat = game.current_player
        return _pick_max([(chip_weight(game, seat, c[2]), c) for c in codes], rng)
    return _pick_max([((-best, -count), code) for code, best, count in cardinal_block_values(game)], rng)


class GreedyAgent(BaseAgent):
    """See the module docstring."""

    name = "greedy"

    def select_move(self, game) -> str:
        if game.is_over:
            raise ValueError("no legal move: the game is over")
        if _is_koenig(game):
            return koenig_greedy_move(game, self.rng)
        return format_move(greedy_code(game, self.rng))


def _is_koenig(game) -> bool:
    from kardinal_env.koenig import Game as KoenigGame

    return isinstance(game, KoenigGame)
