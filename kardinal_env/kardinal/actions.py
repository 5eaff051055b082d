"""Action codec: one ``Discrete(A)`` action space over a fixed ``W x W`` window, ``A = 17·W² + 5``.

The window holds the squares with ``|x|, |y| <= W // 2`` (the nave is ``(0, 0)``, the clock tower ``(1, 0)``). A
square's index is ``row * W + col`` with ``row = W // 2 - y`` (top row: the highest ``y``) and ``col = x + W // 2``, as
in the observation planes.

Colours are ego-centric: colour *slot* ``j`` of the deciding seat is ``colour_order(rules, seat)[j]`` (the seat's own
colours first, then the following seats' colours in turn order, the neutral colour last; see :func:`colour_order`).

====================  ========================  ====================================================================
slice                 size                      meaning
====================  ========================  ====================================================================
``[0, 16·N)``         16 planes of ``N = W²``   build: plane ``p = kind * 4 + slot``; kind 0 house, 1 tower, 2 yard
                                                horizontal (square, square+x), 3 yard vertical (square, square+y);
                                                the square index is the yard's lower-left square
``[16·N, 17·N)``      ``N``                     ``C@x,y``: place/move the cardinal to the square
``[17·N, 17·N+4)``    4                         ``chip:{c}`` for colour slot 0..3
``17·N + 4``          1                         ``C-``: leave the cardinal where it is
====================  ========================  ====================================================================

Every legal move of every decision has exactly one action (``W = 53`` holds every legal game,
``kardinal_env.kardinal.window``; a smaller window makes the engine forbid moves outside it), so ``{decode(a) for a in
mask.nonzero()} == set(game.legal_moves())``.

:class:`ActionCodec` (one per rules object: ``engine.action_codec``) gives the game its action ids: ``num_actions``,
``legal_actions(game)``, ``action_mask(game, seat=None, out=None)``, ``encode(game, move)`` / ``decode(game, action)``
for the seat that decides now, and the seat-explicit ``encode_move`` / ``decode_action`` (notation) and ``encode_code``
/ ``decode_code`` (move codes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kardinal_env.core.env_utils import check_action, seat_action_mask
from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.kardinal.notation import (
    BUILD,
    CARDINAL,
    CHIP,
    KEEP_CARDINAL,
    KEY_LIMIT,
    KEY_STRIDE,
    YARD,
    MalformedMoveError,
    format_move,
    parse_move,
    window_keys,
)
from kardinal_env.kardinal.rules import Rules
from kardinal_env.kardinal.window import LOSSLESS_WINDOW, check_window

__all__ = [
    "ActionCodec",
    "WindowFrame",
    "colour_order",
    "window_layout",
    "DEFAULT_WINDOW",
    "frame_window",
    "BUILD_PLANES",
    "SPATIAL_ACTION_PLANES",
    "NON_SPATIAL_ACTIONS",
]

#: Smallest window that holds every square any legal game can use (see kardinal_env.kardinal.window).
DEFAULT_WINDOW = LOSSLESS_WINDOW
#: House, tower, horizontal yard, vertical yard — times four colour slots.
BUILD_PLANES = 16
#: Action planes over the window: the build planes and the cardinal plane.
SPATIAL_ACTION_PLANES = BUILD_PLANES + 1
#: Actions outside the planes: four chip choices and "keep the cardinal".
NON_SPATIAL_ACTIONS = 5


def colour_order(rules: Rules, seat: int) -> tuple[int, int, int, int]:
    """Colours in slot order for ``seat``: its own first, then the next seats', neutral last (shared pool alike)."""
    n = rules.players
    if n == 2:
        other = 1 - seat
        return (2 * seat, 2 * seat + 1, 2 * other, 2 * other + 1)
    return (seat, (seat + 1) % n, (seat + 2) % n, 3 if n == 3 else (seat + 3) % 4)


def frame_window(rules: Rules, window: int | None = None) -> int:
    """``window`` when given, else the rules' window variant, else the lossless :data:`DEFAULT_WINDOW`."""
    return window if window is not None else rules.window or DEFAULT_WINDOW


def window_layout(rules: Rules, window: int) -> tuple[np.ndarray, np.ndarray]:
    """Square indexing of a ``window x window`` frame: ``(key -> square index or -1, square -> key)``.

    ``ValueError`` for a window that is not odd, or one that would lose squares of an unbounded game
    (only the lossless default, or the rules' own window variant, are allowed).
    """
    check_window(window)
    if rules.window is None and window != DEFAULT_WINDOW:
        raise ValueError(
            f"window {window} with an unbounded rule set would lose squares; use window={DEFAULT_WINDOW} "
            f"or Rules(window={window}) (the window variant)"
        )
    if rules.window is not None and rules.window != window:
        raise ValueError(f"window {window} differs from the rules' window {rules.window}")
    square_to_key = np.array(window_keys(window), dtype=np.int64)
    key_to_square = np.full(KEY_LIMIT, -1, dtype=np.int64)
    key_to_square[square_to_key] = np.arange(window * window)
    return key_to_square, square_to_key


class WindowFrame:
    """What the codec and the observation encoder share: the window (:func:`frame_window`), its square
    indexing (:func:`window_layout`) and each seat's colour slots."""

    def __init__(self, rules: Rules, window: int | None = None):
        self.rules = rules
        self.window = window = frame_window(rules, window)
        self.key_to_square, self.square_to_key = window_layout(rules, window)
        self._k2s = self.key_to_square.tolist()  # list indexing is faster than numpy for scalars
        self._colour_order = [colour_order(rules, s) for s in range(rules.players)]
        self._slot_of_colour = [[order.index(c) for c in range(4)] for order in self._colour_order]


class ActionCodec(WindowFrame):
    """Maps between engine move codes / notation and action integers for one window and rule set."""

    def __init__(self, rules: Rules, window: int | None = None):
        super().__init__(rules, window)
        self.num_squares = n = self.window * self.window
        self.cardinal_offset = BUILD_PLANES * n
        self.chip_offset = SPATIAL_ACTION_PLANES * n
        self.keep_action = self.chip_offset + 4
        self.num_actions = SPATIAL_ACTION_PLANES * n + NON_SPATIAL_ACTIONS
        self._s2k = self.square_to_key.tolist()

    # ------------------------------------------------------------------ codes <-> actions
    def encode_code(self, code: tuple, seat: int) -> int:
        """Action of a move code for ``seat``; ``ValueError`` if outside the window."""
        kind, shape, _, k1, k2 = code
        if shape == YARD:
            self.square_index(k2)
        if k1 >= 0:
            self.square_index(k1)
        return self.actions_of_codes([code], seat)[0]

    def square_index(self, key: int) -> int:
        """Window square index of an engine square key; ``ValueError`` if outside the window."""
        idx = self._k2s[key]
        if idx < 0:
            raise ValueError(f"square {key} lies outside the {self.window}x{self.window} window")
        return idx

    def decode_code(self, action: int, seat: int) -> tuple:
        """Engine move code of an action for the deciding ``seat``; ``ValueError`` if out of range."""
        action = int(action)
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside Discrete({self.num_actions})")
        if action == self.keep_action:
            return KEEP_CARDINAL
        if action >= self.chip_offset:
            return (CHIP, -1, self._colour_order[seat][action - self.chip_offset], -1, -1)
        plane, square = divmod(action, self.num_squares)
        key = self._s2k[square]
        if plane == BUILD_PLANES:
            return (CARDINAL, -1, -1, key, -1)
        kind, slot = divmod(plane, 4)
        colour = self._colour_order[seat][slot]
        if kind < 2:  # the shape: HOUSE or TOWER
            return (BUILD, kind, colour, key, -1)
        other = key + (KEY_STRIDE if kind == 2 else 1)
        if not 0 <= other < KEY_LIMIT or self._k2s[other] < 0:
            raise ValueError(f"action {action}: the yard's second square lies outside the window")
        return (BUILD, YARD, colour, key, other)

    # ------------------------------------------------------------------ notation
    def encode_move(self, move: str, seat: int) -> int:
        """Action of a notation string for ``seat`` (``MalformedMoveError`` / ``ValueError`` on bad input)."""
        return self.encode_code(parse_move(move), seat)

    def decode_action(self, action: int, seat: int) -> str:
        """Notation string of an action for ``seat``."""
        return format_move(self.decode_code(action, seat))

    # ------------------------------------------------------------------ the game protocol's codec
    def encode(self, game: Any, move: str) -> int:
        """Action of ``move`` (legal now or not) for the seat that decides now; ``IllegalMoveError`` with
        rule ``"malformed move"``, ``"window"`` (a square outside it) or ``"game over"`` otherwise."""
        seat = _deciding(game, move)
        try:
            return self.encode_move(move, seat)
        except MalformedMoveError as exc:
            raise IllegalMoveError(f"malformed move: {exc}", "malformed move", move) from None
        except ValueError as exc:
            raise IllegalMoveError(f"window: {exc}", "window", move) from None

    def decode(self, game: Any, action: int) -> str:
        """Notation of ``action`` for the seat that decides now. ``IllegalMoveError`` with rule
        ``"action"`` for anything but an integer in ``[0, num_actions)`` (or a yard whose second square
        lies outside the window), ``"game over"`` when nobody decides."""
        return format_move(self.code_of(game, action))

    def code_of(self, game: Any, action: object) -> tuple:
        """The move code of ``action`` for the seat that decides now (the errors of :meth:`decode`)."""
        value = check_action(action, self.num_actions)
        seat = _deciding(game, action)
        try:
            return self.decode_code(value, seat)
        except ValueError as exc:
            raise IllegalMoveError(f"action: {exc}", "action", action) from None

    # ------------------------------------------------------------------ masks
    def actions_of_codes(self, codes: list, seat: int) -> list[int]:
        """Actions of engine move codes (e.g. ``game.legal_move_codes()``) for the deciding ``seat``."""
        n = self.num_squares
        k2s = self._k2s
        slot = self._slot_of_colour[seat]
        out: list[int] = []
        append = out.append
        for kind, shape, colour, k1, k2 in codes:
            if kind == BUILD:
                if shape == YARD:
                    plane = (8 if k2 - k1 == KEY_STRIDE else 12) + slot[colour]
                else:
                    plane = shape * 4 + slot[colour]
                append(plane * n + k2s[k1])
            elif kind == CARDINAL:
                append(self.keep_action if k1 < 0 else self.cardinal_offset + k2s[k1])
            else:
                append(self.chip_offset + slot[colour])
        return out

    def legal_actions(self, game: Any) -> np.ndarray:
        """``game.legal_actions()`` (the game protocol's ids) as an ``intp`` array."""
        return np.asarray(game.legal_actions(), dtype=np.intp)

    def action_mask(self, game: Any, seat: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """int8 mask of length ``num_actions``: ones at :meth:`legal_actions` when ``seat`` (default:
        the deciding seat) decides now, all zeros otherwise (PettingZoo's classic convention)."""
        return seat_action_mask(game, seat, out, self.num_actions, self.legal_actions)


def _deciding(game: Any, what: object) -> int:
    """The seat that decides now; ``IllegalMoveError`` (rule ``"game over"``) once the game is over."""
    seat = game.current_player
    if seat is None:
        raise IllegalMoveError(f"game over: no seat decides, so {what!r} has no meaning", "game over", what)
    return seat
