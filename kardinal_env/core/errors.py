"""Error types shared by the engines, the record formats and the environments."""

from __future__ import annotations

__all__ = ["IllegalMoveError", "RecordError"]


class IllegalMoveError(ValueError):
    """A move the rules forbid (or a malformed one). ``rule`` names the rule; ``move`` is the input."""

    def __init__(self, message: str, rule: str, move: object = None):
        super().__init__(message)
        self.rule = rule
        self.move = move


class RecordError(ValueError):
    """A malformed or inconsistent game record; the message says what and where."""
