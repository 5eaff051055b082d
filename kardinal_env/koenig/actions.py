"""Action codec of Kardinal & König: the board's move table as one ``Discrete(A)`` action space.

Action id ``a`` is move ``board.moves[a]``, the same for every seat (not ego-centric): the table's
slices (cloisters, advisors, ``end``, discards, display draws, ``draw:deck``; 390 ids on the default
board) are :class:`kardinal_env.koenig.board.Board`'s.

:class:`ActionCodec` is the game's codec of the game protocol (``kardinal_env.core.protocol``) and
the one Kardinal & König mask builder: the environment, the single-agent view, the integrations,
training and the network agents all build masks with it. At every decision
``[decode(game, a) for a in legal_actions(game)] == game.legal_moves()``.
"""

from __future__ import annotations

from operator import methodcaller
from typing import Any

import numpy as np

from kardinal_env.core.env_utils import check_action, seat_action_mask
from kardinal_env.koenig.rules import Rules

__all__ = ["ActionCodec"]


class ActionCodec:
    """Move strings and legal moves of Kardinal & König games under ``rules`` as action ids (module
    docstring). ``num_actions`` is the size of the board's move table."""

    def __init__(self, rules: Rules):
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a kardinal_env.koenig.Rules, got {type(rules).__name__}")
        self.rules = rules
        self.board = rules.compiled
        self.num_actions: int = self.board.num_moves

    def legal_actions(self, game: Any) -> np.ndarray:
        """The legal action ids of the current decision, in the order of ``game.legal_moves()`` (an
        ``intp`` array; empty once the game is over)."""
        return np.array(game.legal_move_ids(), dtype=np.intp)

    def action_mask(self, game: Any, seat: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """int8 mask of length ``num_actions``: ones at :meth:`legal_actions` when ``seat`` (default:
        the deciding seat) decides now, all zeros otherwise (and once the game is over). Written into
        ``out`` when given."""
        return seat_action_mask(game, seat, out, self.num_actions, methodcaller("legal_move_ids"))

    def encode(self, game: Any, move: str) -> int:
        """The action id of ``move`` (any move of the board, legal now or not); ``IllegalMoveError``
        with rule ``"malformed move"`` for a string that is no move on the board."""
        return self.encode_move(move)

    def decode(self, game: Any, action: int) -> str:
        """The move of ``action``; ``IllegalMoveError`` with rule ``"action"`` for anything but an
        integer in ``[0, num_actions)``."""
        return self.decode_action(action)

    # The same without a game (the move table is not ego-centric).
    def encode_move(self, move: str) -> int:
        """:meth:`encode` without a game."""
        return self.board.move_id(move)

    def decode_action(self, action: int) -> str:
        """:meth:`decode` without a game."""
        return self.board.moves[check_action(action, self.num_actions)]
