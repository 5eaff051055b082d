"""Reward terms of self-play training (:mod:`agents.training.trainer`, both games) and the network-guided search
(:mod:`agents.search.puct`). Torch-free.

The terms need only ``projected_scores()``, ``scores()``, ``winners()`` and ``num_players`` of a
game, which both engines provide, so Kardinal & König trains with the same terminal rewards and
score shaping; ``chip_shaping`` (``chips_held``) is Kardinal-only (the config refuses it for K&K).

The terms themselves live in :mod:`kardinal_env.core.rewards` (shared with the environment, so the env,
the trainer and the search compute them the same way); this module keeps the signatures the agents
use and adds :class:`ShapingTracker`, the per-move shaping reward of training:

* :func:`projected_margins` — per seat, the projected final score minus the best other projected
  score (:meth:`Game.projected_scores`: chips held, plus the leftovers of the seat's own colours,
  plus the best colour once more — the final score if the game ended now). Training's
  ``score_shaping`` rewards the change of this margin a move causes, so
  ``value + score_shaping * projected_margin`` is a seat's expected total return from the start of
  the game (a potential-based shaping).
* :func:`terminal_rewards` — ``win_loss``: +1 for every winner (shared wins included), −1 otherwise;
  ``margin``: ``clip((own score − best other score) / 20, −1, 1)``.
* :class:`ShapingTracker` — the shaping reward of one move for the seat that made it:
  ``chip_shaping`` per chip it took (chips handed out at the end of the game are not earned) plus
  ``score_shaping`` times the change of its projected margin.

Win rates are not rewards: see :mod:`agents.winrate` for how a shared win counts.
"""

from __future__ import annotations

from kardinal_env.core import rewards as _terms
from kardinal_env.core.rewards import MARGIN_SCALE, REWARD_SCHEMES, check_scheme, chip_gain

__all__ = ["projected_margins", "terminal_rewards", "check_scheme", "ShapingTracker", "REWARD_SCHEMES", "MARGIN_SCALE"]


def projected_margins(game, rules=None) -> list[float]:
    """Per seat: projected final score minus the best other projected score (see the module docstring).
    ``rules`` is accepted for compatibility and not needed."""
    return _terms.projected_margins(game)


def terminal_rewards(game, rules, scheme: str) -> list[float]:
    """Terminal reward of every seat of a finished ``game`` under ``scheme`` (see the module docstring);
    ``rules`` is accepted for compatibility (the game's own rules are used)."""
    return _terms.terminal_rewards(game, scheme)


class ShapingTracker:
    """Shaping reward of single moves: call :meth:`before` just before a move of ``seat`` and
    :meth:`reward` just after it. Zero weights cost nothing (no projection is computed)."""

    __slots__ = ("chip_shaping", "score_shaping", "_chips", "_margin")

    def __init__(self, chip_shaping: float = 0.0, score_shaping: float = 0.0):
        self.chip_shaping = float(chip_shaping)
        self.score_shaping = float(score_shaping)
        self._chips = 0
        self._margin = 0.0

    def before(self, game, seat: int) -> None:
        if self.chip_shaping:
            self._chips = game.chips_held(seat)
        if self.score_shaping:
            self._margin = projected_margins(game)[seat]

    def reward(self, game, seat: int) -> float:
        r = 0.0
        if self.chip_shaping:
            r += self.chip_shaping * chip_gain(game, seat, self._chips)
        if self.score_shaping:
            r += self.score_shaping * (projected_margins(game)[seat] - self._margin)
        return r
