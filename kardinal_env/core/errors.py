"""Error types shared by the engines, the record formats and the environments.

The convention of the whole public API (engines, compiled core, environments, agents): ``TypeError`` for an argument of
the wrong type; ``ValueError`` or a subclass for a wrong value, an index or seat out of range (:class:`OutOfRangeError`,
also an ``IndexError``), or a call in the wrong state (:class:`StateError`, also a ``RuntimeError``;
:class:`GameNotOverError` is one). ``RuntimeError`` alone means a fault of the installation or an internal bug (the core
missing or disagreeing with the Python engine), or a core batch stepped from two threads at once."""

from __future__ import annotations

__all__ = ["IllegalMoveError", "RecordError", "OutOfRangeError", "StateError", "GameNotOverError"]


class IllegalMoveError(ValueError):
    """A move the rules forbid (or a malformed one). ``rule`` names the rule; ``move`` is the input."""

    def __init__(self, message: str, rule: str, move: object = None):
        super().__init__(message)
        self.rule = rule
        self.move = move


class RecordError(ValueError):
    """A malformed or inconsistent game record; the message says what and where."""


class OutOfRangeError(ValueError, IndexError):
    """An index, seat or slot number outside its range (the message names the range)."""


class StateError(ValueError, RuntimeError):
    """A call in the wrong state: before ``reset()``, after the episode ended, before the game is over."""


class GameNotOverError(StateError):
    """A result (scores, winners, finishing order) asked for before the game is over."""
