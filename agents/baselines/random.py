"""Uniformly random legal moves: the ``random`` baseline of every game (any game of the protocol)."""

from __future__ import annotations

from agents.base import BaseAgent

__all__ = ["RandomAgent"]


class RandomAgent(BaseAgent):
    """Picks uniformly among ``game.legal_actions()`` with its own seeded generator (the same draw as
    among ``legal_moves()``, in the same order) and names the action with ``action_to_string``."""

    name = "random"

    def select_move(self, game) -> str:
        actions = game.legal_actions()
        if len(actions) == 0:
            raise ValueError("no legal move: the game is over")
        return game.action_to_string(int(actions[self.rng.randrange(len(actions))]))
