"""Reward terms and the one definition of a win, for every game of the suite. Torch-free; imports no game.

The terms read only the game protocol (:class:`kardinal_env.core.protocol.GameState`), so the environments, the trainer
and the guided search compute them alike; chip shaping alone reads ``game.chips_held(seat)`` (Kardinal's engine only).

* :func:`terminal_rewards`: per seat at the end of a game. ``"win_loss"``: +1 for every winner (tied ones too), −1 for
  every other seat. ``"margin"``: ``clip((own score − best other score) / MARGIN_SCALE, −1, 1)`` with ``MARGIN_SCALE =
  20``.
* :func:`forfeit_rewards`: a game ended by forfeit (:mod:`kardinal_env.core.illegal`): the offender gets the scheme's
  loss reward, every other seat its win reward (:data:`LOSS_AND_WIN`: −1 and +1 under both schemes, as an unfinished
  game has no margin).
* :func:`projected_margins`: per seat, the projected final score (``projected_scores()``) minus the best other;
  potential-based score shaping rewards the change a move causes, so ``value + score_shaping * margin`` is a seat's
  expected return from the start of the game.
* :class:`ShapingTracker`: the shaping reward of one move for the seat that made it: ``chip_shaping`` per chip it took
  (:func:`chip_gain`; 0 on the last move: final scoring's leftovers are not earned) plus ``score_shaping`` times the
  change of its projected margin.
* :func:`win_share`: the one definition of a win in every win-rate figure (:data:`WIN_DEFINITION`): a seat among ``k``
  tied winners scores ``1/k``, any other 0, so the win rates of a game's seats sum to 1.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kardinal_env.core.protocol import GameState

__all__ = [
    "REWARD_SCHEMES",
    "MARGIN_SCALE",
    "WIN_DEFINITION",
    "LOSS_AND_WIN",
    "check_scheme",
    "terminal_rewards",
    "forfeit_rewards",
    "margins",
    "projected_margins",
    "chip_gain",
    "ShapingTracker",
    "win_share",
]

REWARD_SCHEMES = ("win_loss", "margin")
MARGIN_SCALE = 20.0
WIN_DEFINITION = "a shared win among k winners counts 1/k"
#: Per reward scheme: (loss reward, win reward), the lowest and highest terminal reward it gives.
LOSS_AND_WIN: dict[str, tuple[float, float]] = {"win_loss": (-1.0, 1.0), "margin": (-1.0, 1.0)}


def check_scheme(scheme: str) -> str:
    if scheme not in REWARD_SCHEMES:
        raise ValueError(f"reward must be one of {list(REWARD_SCHEMES)}, got {scheme!r}")
    return scheme


def terminal_rewards(game: GameState, scheme: str = "win_loss") -> list[float]:
    check_scheme(scheme)
    loss, win = LOSS_AND_WIN[scheme]
    if scheme == "win_loss":
        winners = set(game.winners())
        return [win if s in winners else loss for s in range(game.num_players)]
    return [max(loss, min(win, margin / MARGIN_SCALE)) for margin in margins(game.scores())]


def forfeit_rewards(num_players: int, loser: int, scheme: str = "win_loss") -> list[float]:
    loss, win = LOSS_AND_WIN[check_scheme(scheme)]
    if not 0 <= loser < num_players:
        raise ValueError(f"loser must be a seat 0..{num_players - 1}, got {loser!r}")
    return [loss if s == loser else win for s in range(num_players)]


def margins(scores: list) -> list:
    """Per seat, its score less the best other seat's."""
    return [own - max(v for i, v in enumerate(scores) if i != s) for s, own in enumerate(scores)]


def projected_margins(game: GameState) -> list[float]:
    return [float(margin) for margin in margins(game.projected_scores())]


def chip_gain(game: Any, seat: int, held_before: int) -> int:
    """Chips ``seat`` gained by the move just played, given its chips before (0 once the game is over)."""
    if game.is_over:
        return 0
    return int(game.chips_held(seat)) - held_before


class ShapingTracker:
    """Call :meth:`before` just before ``seat``'s move, :meth:`reward` just after (zero weights compute nothing)."""

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
    tied = list(winners)
    return 1.0 / len(tied) if seat in tied else 0.0
