"""Uniformly random legal moves: the ``random`` baseline of every game (any game of the protocol)."""

from __future__ import annotations

from agents.base import BaseAgent

__all__ = ["RandomAgent"]


class RandomAgent(BaseAgent):
    """Picks uniformly among ``game.legal_moves()`` with its own seeded generator."""

    name = "random"

    def select_move(self, game) -> str:
        moves = game.legal_moves()
        if not moves:
            raise ValueError("no legal move: the game is over")
        return moves[self.rng.randrange(len(moves))]
