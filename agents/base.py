"""The agent protocol shared by every player of every game (baselines, search, trained networks, people at a table).

An agent is any object with

* ``name: str`` — a short label for tables and logs (``"greedy"``, ``"mcts:200"``);
* ``select_move(game) -> str`` — a legal move, in notation, of ``game`` (a
  :class:`kardinal_env.core.protocol.GameState` whose ``current_player`` is the agent's seat), which it must not
  modify: searches play action ids on ``game.clone()`` or ``game.determinize(seat, rng)``;
* optionally ``reset(seed)`` — start a new game with a fresh random stream.

An agent sees only what its seat may know (the seat's queries; ``game.determinize`` samples the rest) and owns its
randomness (a private ``random.Random``, never the global state); the game's chance comes from its seed, so a game
between seeded agents with a seeded deal is reproducible.
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

__all__ = ["Agent", "BaseAgent"]


@runtime_checkable
class Agent(Protocol):
    """Structural type of an agent (see the module docstring)."""

    name: str

    def select_move(self, game) -> str:  # pragma: no cover - protocol
        ...


class BaseAgent:
    """Convenience base class: a name and a private seeded ``random.Random``."""

    name = "agent"

    def __init__(self, seed: int | None = None):
        BaseAgent.reset(self, seed)  # not a subclass's reset: its own attributes are not set yet

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the private generator (call at the start of a game for reproducible play)."""
        self.seed = seed
        self.rng = random.Random(seed)

    def select_move(self, game) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, seed={self.seed!r})"
