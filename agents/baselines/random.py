"""Uniformly random legal moves: the ``random`` baseline of every game (any game of the protocol), and :func:`pick_max`,
the baselines' seeded tie-break."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from agents.base import BaseAgent

__all__ = ["RandomAgent", "pick_max"]


def pick_max(items: Sequence[tuple[Any, Any]], rng: random.Random) -> Any:
    """A uniform choice among the values of the ``(key, value)`` items of the largest key (no draw for one)."""
    best = max(k for k, _ in items)
    top = [v for k, v in items if k == best]
    return top[0] if len(top) == 1 else top[rng.randrange(len(top))]


class RandomAgent(BaseAgent):
    """Picks uniformly among ``game.legal_actions()`` with its seeded generator (as among ``legal_moves()``)."""

    name = "random"

    def select_move(self, game) -> str:
        actions = game.legal_actions()
        if len(actions) == 0:
            raise ValueError("no legal move: the game is over")
        return game.action_to_string(int(actions[self.rng.randrange(len(actions))]))
