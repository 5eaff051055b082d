"""Reward terms and the one definition of a win, for every game of the suite. Torch-free; imports no game.

The terms use only the game protocol (:class:`kardinal_env.core.protocol.GameState`: ``num_players``,
``is_over``, ``scores()``, ``projected_scores()``, ``winners()``), so the environments, the self-play
trainer and the network-guided search compute them the same way for every game. The one exception is
chip shaping, which reads ``game.chips_held(seat)``: only Kardinal's engine has it (the training
config refuses ``chip_shaping`` for other games).

* :func:`terminal_rewards` — at the end of a game, per seat. ``"win_loss"``: +1 for every winner
  (tied winners all get +1), −1 for every other seat. ``"margin"``:
  ``clip((own score − best other score) / MARGIN_SCALE, −1, 1)`` with ``MARGIN_SCALE = 20``.
* :func:`projected_margins` — per seat, the projected final score (``projected_scores()``: the final
  score if the game ended now) minus the best other projected score. Potential-based score shaping
  rewards the change of this margin that a move causes, so ``value + score_shaping * margin`` is a
  seat's expected total return from the start of the game.
* :func:`chip_gain` — chips a seat gained from one move (``chip_shaping`` rewards ``s`` per chip).
  Leftover own chips added by final scoring are not earned by the last move and count 0.
* :class:`ShapingTracker` — the shaping reward of one move for the seat that made it:
  ``chip_shaping`` per chip it took plus ``score_shaping`` times the change of its projected margin.
* :func:`win_share` — the one definition of a win used in every win-rate figure: a seat among ``k``
  tied winners scores ``1/k``, any other seat 0 (:data:`WIN_DEFINITION`). Training logs, evaluation
  tables and the docs all count with it; a win rate is the mean win share over games, so the win
  rates of all seats of a game sum to 1. (The ``win_loss`` *reward* is a different thing: +1 for
  every winner.)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kardinal_env.core.protocol import GameState

__all__ = [
    "REWARD_SCHEMES",
    "MARGIN_SCALE",
    "WIN_DEFINITION",
    "check_scheme",
    "terminal_rewards",
    "projected_margins",
    "chip_gain",
    "ShapingTracker",
    "win_share",
]

REWARD_SCHEMES = ("win_loss", "margin")
MARGIN_SCALE = 20.0
WIN_DEFINITION = "a shared win among k winners counts 1/k"


def check_scheme(scheme: str) -> str:
    """``scheme`` if it is one of :data:`REWARD_SCHEMES`; ValueError naming the choices otherwise."""
    if scheme not in REWARD_SCHEMES:
        raise ValueError(f"reward must be one of {list(REWARD_SCHEMES)}, got {scheme!r}")
    return scheme


def terminal_rewards(game: GameState, scheme: str = "win_loss") -> list[float]:
    """Terminal reward of every seat of a finished ``game`` under ``scheme``."""
    check_scheme(scheme)
    if scheme == "win_loss":
        winners = set(game.winners())
        return [1.0 if s in winners else -1.0 for s in range(game.num_players)]
    scores = game.scores()
    out = []
    for s, own in enumerate(scores):
        best_other = max(v for i, v in enumerate(scores) if i != s)
        out.append(max(-1.0, min(1.0, (own - best_other) / MARGIN_SCALE)))
    return out


def projected_margins(game: GameState) -> list[float]:
    """Per seat: projected final score minus the best other projected score."""
    proj = game.projected_scores()
    return [float(p - max(q for i, q in enumerate(proj) if i != s)) for s, p in enumerate(proj)]


def chip_gain(game: Any, seat: int, held_before: int) -> int:
    """Chips ``seat`` gained by the move just played, given ``game.chips_held(seat)`` before it
    (0 once the game is over: the leftovers of final scoring are not earned by a move). Only a game
    whose engine has ``chips_held`` (Kardinal) supports it."""
    if game.is_over:
        return 0
    return int(game.chips_held(seat)) - held_before


class ShapingTracker:
    """Shaping reward of single moves: call :meth:`before` just before a move of ``seat`` and
    :meth:`reward` just after it. Zero weights cost nothing (no projection is computed).
    ``chip_shaping`` needs a game with ``chips_held`` (Kardinal)."""

    __slots__ = ("chip_shaping", "score_shaping", "_chips", "_margin")

    def __init__(self, chip_shaping: float = 0.0, score_shaping: float = 0.0):
        self.chip_shaping = float(chip_shaping)
        self.score_shaping = float(score_shaping)
        self._chips = 0
        self._margin = 0.0

    def before(self, game: GameState, seat: int) -> None:
        if self.chip_shaping:
            chips_held = getattr(game, "chips_held", None)
            if chips_held is None:
                raise ValueError(f"chip_shaping needs a game with chips_held(); {type(game).__qualname__} has none")
            self._chips = int(chips_held(seat))
        if self.score_shaping:
            self._margin = projected_margins(game)[seat]

    def reward(self, game: GameState, seat: int) -> float:
        r = 0.0
        if self.chip_shaping:
            r += self.chip_shaping * chip_gain(game, seat, self._chips)
        if self.score_shaping:
            r += self.score_shaping * (projected_margins(game)[seat] - self._margin)
        return r


def win_share(winners: Iterable[int], seat: int) -> float:
    """``1/len(winners)`` if ``seat`` is among the ``winners`` of a game, else 0 (shared wins are split)."""
    tied = list(winners)
    return 1.0 / len(tied) if seat in tied else 0.0
