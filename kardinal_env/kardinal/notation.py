"""Move notation of ``docs/rules.md`` and the integer square keys the engine uses.

Notation (the engine's public language, one string per decision):

=========================  ==========================================================================================
``H{c}@x,y``               build a house of colour ``c`` on square ``(x, y)``
``T{c}@x,y``               build a tower
``Y{c}@x1,y1:x2,y2``       build a yard on two orthogonally adjacent squares, listed in ascending ``(x, y)`` order
``chip:{c}``               take a chip of colour ``c`` (compensation or substitute)
``C@x,y``                  place or move the cardinal to site ``(x, y)``
``C-``                     leave the cardinal where it stands
=========================  ==========================================================================================

Only the canonical spelling is accepted (integers without ``+`` or leading zeros, no spaces, yard squares ascending);
anything else raises :class:`MalformedMoveError` saying what is wrong.

Internally a move is a :data:`MoveCode` tuple ``(kind, shape, colour, square1, square2)``:

* ``kind`` is :data:`BUILD`, :data:`CHIP` or :data:`CARDINAL`;
* ``shape`` is :data:`HOUSE`, :data:`TOWER` or :data:`YARD` (``-1`` when not a build);
* ``colour`` is ``0..3`` (``-1`` when not a build or chip);
* squares are integer keys (see :func:`square_key`); ``-1`` when absent. ``C-`` is :data:`KEEP_CARDINAL`.

A square key packs ``(x, y)`` as ``(x + 64) * 128 + (y + 64)``: the neighbours of ``k`` are ``k ± 1`` and ``k ± 128``,
ascending keys are ascending ``(x, y)``; legal games stay in ``|x|, |y| <= 26``.
"""

from __future__ import annotations

import re

__all__ = [
    "BUILD",
    "CHIP",
    "CARDINAL",
    "HOUSE",
    "TOWER",
    "YARD",
    "SHAPE_LETTERS",
    "SHAPE_NAMES",
    "KEEP_CARDINAL",
    "KEY_OFFSET",
    "KEY_STRIDE",
    "KEY_LIMIT",
    "NEIGHBOUR_STEPS",
    "MalformedMoveError",
    "MoveCode",
    "square_key",
    "key_xy",
    "key_text",
    "window_keys",
    "format_move",
    "parse_move",
]

BUILD, CHIP, CARDINAL = 0, 1, 2
HOUSE, TOWER, YARD = 0, 1, 2
SHAPE_LETTERS = "HTY"
SHAPE_NAMES = ("house", "tower", "yard")

KEY_OFFSET = 64
KEY_STRIDE = 128
KEY_LIMIT = KEY_STRIDE * KEY_STRIDE
#: Key differences of the four orthogonal neighbours (y+1, y-1, x+1, x-1).
NEIGHBOUR_STEPS = (1, -1, KEY_STRIDE, -KEY_STRIDE)

MoveCode = tuple  # (kind, shape, colour, square1, square2)
KEEP_CARDINAL: MoveCode = (CARDINAL, -1, -1, -1, -1)  # C-


class MalformedMoveError(ValueError):
    """A move string that is not in docs/rules.md notation."""


def square_key(x: int, y: int) -> int:
    """Integer key of square ``(x, y)``; ``ValueError`` outside ``-64..63``."""
    if not (-KEY_OFFSET <= x < KEY_OFFSET and -KEY_OFFSET <= y < KEY_OFFSET):
        raise ValueError(f"square {x},{y} is outside the engine's coordinate range -64..63")
    return (x + KEY_OFFSET) * KEY_STRIDE + (y + KEY_OFFSET)


def key_xy(key: int) -> tuple[int, int]:
    """Inverse of :func:`square_key`."""
    return (key >> 7) - KEY_OFFSET, (key & 127) - KEY_OFFSET


def window_keys(window: int) -> list[int]:
    """Keys of the squares ``|x|, |y| <= window // 2`` in window index order ``(W // 2 - y) * W + x + W // 2``."""
    half = window // 2
    return [square_key(x, y) for y in range(half, -half - 1, -1) for x in range(-half, half + 1)]


# Immutable lookup table: the "x,y" text of every key (built once; never written afterwards).
_KEY_TEXT: tuple[str, ...] = tuple(f"{(k >> 7) - KEY_OFFSET},{(k & 127) - KEY_OFFSET}" for k in range(KEY_LIMIT))


def key_text(key: int) -> str:
    """``"x,y"`` for a square key."""
    return _KEY_TEXT[key]


def format_move(code: MoveCode) -> str:
    """Notation string of an internal move code."""
    kind, shape, colour, k1, k2 = code
    if kind == BUILD:
        if shape == YARD:
            return f"Y{colour}@{_KEY_TEXT[k1]}:{_KEY_TEXT[k2]}"
        return f"{SHAPE_LETTERS[shape]}{colour}@{_KEY_TEXT[k1]}"
    if kind == CHIP:
        return f"chip:{colour}"
    return "C-" if k1 < 0 else f"C@{_KEY_TEXT[k1]}"


_INT = r"(-?(?:0|[1-9][0-9]*))"
_BUILD_RE = re.compile(rf"([HTY])([0-9]+)@{_INT},{_INT}(?::{_INT},{_INT})?")
_CHIP_RE = re.compile(r"chip:([0-9]+)")
_CARDINAL_RE = re.compile(rf"C@{_INT},{_INT}")
_EXPECTED = "expected H{c}@x,y, T{c}@x,y, Y{c}@x1,y1:x2,y2, chip:{c}, C@x,y or C-"


def _coord_key(x: str, y: str, move: str) -> int:
    if "-0" in (x, y):  # the only zero _INT lets carry a sign
        raise MalformedMoveError(f"malformed move {move!r}: write 0, not -0")
    try:
        return square_key(int(x), int(y))
    except ValueError as exc:
        raise MalformedMoveError(f"malformed move {move!r}: {exc}") from None


def _colour(digit: str, move: str) -> int:
    if len(digit) != 1 or digit not in "0123":
        raise MalformedMoveError(f"malformed move {move!r}: colour must be one digit 0..3")
    return int(digit)


def parse_move(move: object) -> MoveCode:
    """Parse a notation string into a move code (spelling only); :class:`MalformedMoveError` if malformed."""
    if not isinstance(move, str):
        raise MalformedMoveError(f"malformed move {move!r}: a move is a string ({_EXPECTED})")
    if move == "C-":
        return KEEP_CARDINAL
    if m := _BUILD_RE.fullmatch(move):
        letter, digit, x1, y1, x2, y2 = m.groups()
        shape = SHAPE_LETTERS.index(letter)
        colour = _colour(digit, move)
        k1 = _coord_key(x1, y1, move)
        if shape == YARD:
            if x2 is None:
                raise MalformedMoveError(f"malformed move {move!r}: a yard names two squares, Y{{c}}@x1,y1:x2,y2")
            k2 = _coord_key(x2, y2, move)
            if k2 - k1 not in (1, KEY_STRIDE):
                if k1 - k2 in (1, KEY_STRIDE):
                    raise MalformedMoveError(
                        f"malformed move {move!r}: yard squares must be listed in ascending (x, y) "
                        f"order, Y{colour}@{_KEY_TEXT[k2]}:{_KEY_TEXT[k1]}"
                    )
                raise MalformedMoveError(
                    f"malformed move {move!r}: the two squares of a yard must be orthogonally adjacent"
                )
            return (BUILD, YARD, colour, k1, k2)
        if x2 is not None:
            raise MalformedMoveError(f"malformed move {move!r}: a {SHAPE_NAMES[shape]} stands on one square")
        return (BUILD, shape, colour, k1, -1)
    if m := _CHIP_RE.fullmatch(move):
        return (CHIP, -1, _colour(m.group(1), move), -1, -1)
    if m := _CARDINAL_RE.fullmatch(move):
        return (CARDINAL, -1, -1, _coord_key(m.group(1), m.group(2), move), -1)
    raise MalformedMoveError(f"malformed move {move!r}: {_EXPECTED}")
