"""The one definition of a win rate used by training logs, evaluation tables and the docs. Torch-free.

A game has one or more winners (:meth:`Game.winners`: highest score, then most edifices touching
the cathedral; seats still tied share the win). **A seat's win share in a game is 1/k if it is one
of k winners, else 0** (:func:`kardinal_env.core.rewards.win_share`); a win rate is the mean win share
over games. So a shared win between two players counts one half for each, and the win rates of all
seats of a game sum to 1. (The ``win_loss`` training *reward* is a different thing: +1 for every
winner; see :mod:`agents.rewards`.)
"""

from __future__ import annotations

from kardinal_env.core.rewards import win_share as _win_share

__all__ = ["win_share", "win_rate", "DEFINITION"]

DEFINITION = "a shared win among k winners counts 1/k"


def win_share(seat: int, winners) -> float:
    """1/k if ``seat`` is one of the k ``winners`` of a game, else 0."""
    return _win_share(list(winners), seat)


def win_rate(results) -> float:
    """Mean win share of ``(seat, winners)`` pairs (NaN for none)."""
    results = list(results)
    if not results:
        return float("nan")
    return sum(win_share(seat, winners) for seat, winners in results) / len(results)
