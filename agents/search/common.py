"""What the tree searches of :mod:`agents.search` share: their arguments' checks, the playout with a
policy or uniform random moves, and the backup of a simulation's values along its path.

Each helper draws from the generator it is given exactly as the searches did before they shared it,
so seeded searches choose the same moves."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["check_count", "play_out", "backup"]


def check_count(what: str, value: object, minimum: int = 1, allow_none: bool = False) -> None:
    """``ValueError`` naming ``what`` (e.g. ``"mcts: simulations"``) unless ``value`` is an integer
    (not a bool) of at least ``minimum`` (1: positive, 0: non-negative), or ``None`` when allowed."""
    if value is None and allow_none:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        kind = "a positive integer" if minimum == 1 else "a non-negative integer" if minimum == 0 else f">= {minimum}"
        raise ValueError(f"{what} must be {'None or ' if allow_none else ''}{kind}, got {value!r}")


def play_out(
    game: Any, policy: Callable[[Any, random.Random], str] | None, rng: random.Random, limit: int | None
) -> None:
    """Play ``game`` on (in place) until it is over or ``limit`` moves are played (``None``: no
    limit): ``policy(game, rng)``'s moves, or uniform random legal moves when ``policy`` is ``None``."""
    played = 0
    while not game.is_over and (limit is None or played < limit):
        if policy is None:
            moves = game.legal_moves()
            game.play(moves[rng.randrange(len(moves))])
        else:
            game.play(policy(game, rng))
        played += 1


def backup(path: Sequence[Any], values: Sequence[float]) -> None:
    """Add one visit and ``values`` (one per seat) to every node of ``path`` (each with ``visits``
    and per-seat ``totals``)."""
    n = len(values)
    for node in path:
        node.visits += 1
        totals = node.totals
        for s in range(n):
            totals[s] += values[s]
