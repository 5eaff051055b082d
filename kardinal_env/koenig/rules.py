"""Rule options of Kardinal & König as one immutable value.

``Rules(players=4, discard="one", board=None)``

===========  =============================================================================================  ==========
option       values                                                                                         default
===========  =============================================================================================  ==========
``players``  3, 4 or 5                                                                                      (required)
``discard``  ``"one"``: a discarding turn discards exactly one card (the printed rules); ``"any"``: one to  ``"one"``
             three cards, one decision each (the online edition)
``board``    ``None`` (the packaged ``default`` board), the name of a packaged board, a path to a board     ``None``
             file, or a board dict (``kardinal_env.koenig.board`` describes the schema)
===========  =============================================================================================  ==========

After construction ``rules.board`` is the validated board **dict** (a private copy) and ``rules.compiled`` the engine's
:class:`~kardinal_env.koenig.board.Board`. Rules compare and hash by value (players, discard and the board's content).

The deck is every card of the board less the removal for the player count: with 4 players one card of each type is left
in the box, with 3 players two of each, with 5 none. A board whose deck would not outlast the deal (3 cards per seat and
2 for the display, with at least one card left) is rejected for that player count.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from kardinal_env.core.checks import is_int
from kardinal_env.core.game_base import options_from_dict
from kardinal_env.koenig.board import Board, BoardError, board_names, compile_board, load_board

__all__ = ["Rules", "RulesError", "DISCARD_OPTIONS", "REMOVED_PER_TYPE", "CLOISTERS", "ADVISORS", "HAND_SIZE"]

DISCARD_OPTIONS = ("one", "any")
#: Cards of each type left in the box, by player count.
REMOVED_PER_TYPE = {3: 2, 4: 1, 5: 0}
CLOISTERS = 20  # per player, whatever the player count
ADVISORS = 8
HAND_SIZE = 3
DISPLAY_SIZE = 2


_PACKAGED: dict = {}  # packaged board name -> its compiled Board (None if it fails to load)


class RulesError(ValueError):
    """An invalid rule option or board (names the option and the problem)."""


@dataclass(frozen=True, eq=False)
class Rules:
    """All options of one Kardinal & König game. See the module docstring."""

    players: int
    discard: str = "one"
    board: Any = None
    #: The compiled board (set from ``board``; not a constructor argument).
    compiled: Board = field(init=False, repr=False, compare=False)
    _key: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not is_int(self.players) or not 3 <= self.players <= 5:
            raise RulesError(f"players must be 3, 4 or 5, got {self.players!r}")
        if self.discard not in DISCARD_OPTIONS:
            raise RulesError(f"discard must be one of {list(DISCARD_OPTIONS)}, got {self.discard!r}")
        try:
            data = load_board(self.board)
        except BoardError as exc:  # named once: "board: ..." unless the message names the board already
            message = str(exc)
            raise RulesError(message if message.startswith("board") else f"board: {message}") from None
        compiled = compile_board(data)
        removed = REMOVED_PER_TYPE[self.players]
        for t, count in zip(compiled.types, compiled.counts):
            if count < removed:
                raise RulesError(
                    f"board {compiled.name!r}: card type {t} has {count} card(s), but {self.players} players "
                    f"remove {removed} of each type"
                )
        deck = sum(compiled.counts) - removed * len(compiled.counts)
        dealt = HAND_SIZE * self.players + DISPLAY_SIZE
        if deck <= dealt:
            raise RulesError(
                f"board {compiled.name!r}: a deck of {deck} cards for {self.players} players does not outlast the "
                f"deal of {dealt} cards"
            )
        object.__setattr__(self, "board", compiled.data)
        object.__setattr__(self, "compiled", compiled)
        object.__setattr__(self, "_key", (self.players, self.discard, json.dumps(compiled.data, sort_keys=True)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"Rules(players={self.players}, discard={self.discard!r}, board={self.compiled.name!r})"

    @property
    def deck_cards(self) -> list[int]:
        """The card types of the deck after the removal, sorted (as type digits)."""
        removed = REMOVED_PER_TYPE[self.players]
        b = self.compiled
        return [t for t, count in zip(b.types, b.counts) for _ in range(count - removed)]

    def to_dict(self) -> dict:
        """The ``rules`` object of a game record: the board by name when it is a packaged board, unchanged."""
        name = self.compiled.name
        if name not in _PACKAGED:
            try:
                _PACKAGED[name] = compile_board(load_board(name)) if name in board_names() else None
            except BoardError:
                _PACKAGED[name] = None
        board = name if _PACKAGED[name] is self.compiled else self.board
        return {"players": self.players, "discard": self.discard, "board": board}

    @classmethod
    def from_dict(cls, data: dict, where: str = "rules") -> Rules:
        """Inverse of :meth:`to_dict`; unknown or missing keys raise :class:`RulesError`."""
        return options_from_dict(cls, data, {"players", "discard", "board"}, RulesError, where)
