"""Drawing helpers shared by the ``rgb_array`` renderers of both games: a uint8 RGB canvas with clipped rectangles,
discs, lines and text in a 5x7 bitmap font. numpy only (no pygame, no Pillow), so rendering needs nothing beyond the
core dependencies.
"""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = ["Canvas", "FONT_ROWS", "glyph", "TEXT_ADVANCE"]

#: Horizontal advance of one character at scale 1 (5 pixels and a space).
TEXT_ADVANCE = 6

# A 5x7 bitmap font (upper case, digits, a little punctuation; lower case is drawn as upper case), as a sheet: blocks of
# a line naming the characters, then their 7 rows, each glyph 5 pixels wide and a column apart.
_FONT_SHEET = """
A     B     C     D     E     F     G     H     I     J     K     L     M     N     O     P     Q     R     S
.###. ####. .###. ####. ##### ##### .###. #...# .###. ..### #...# #.... #...# #...# .###. ####. .###. ####. .####
#...# #...# #...# #...# #.... #.... #...# #...# ..#.. ...#. #..#. #.... ##.## #...# #...# #...# #...# #...# #....
#...# #...# #.... #...# #.... #.... #.... #...# ..#.. ...#. #.#.. #.... #.#.# ##..# #...# #...# #...# #...# #....
##### ####. #.... #...# ####. ####. #.### ##### ..#.. ...#. ##... #.... #.#.# #.#.# #...# ####. #...# ####. .###.
#...# #...# #.... #...# #.... #.... #...# #...# ..#.. ...#. #.#.. #.... #...# #..## #...# #.... #.#.# #.#.. ....#
#...# #...# #...# #...# #.... #.... #...# #...# ..#.. #..#. #..#. #.... #...# #...# #...# #.... #..#. #..#. ....#
#...# ####. .###. ####. ##### #.... .#### #...# .###. .##.. #...# ##### #...# #...# .###. #.... .##.# #...# ####.

T     U     V     W     X     Y     Z     0     1     2     3     4     5     6     7     8     9           :
##### #...# #...# #...# #...# #...# ##### .###. ..#.. .###. ##### ...#. ##### ..##. ##### .###. .###. ..... .....
..#.. #...# #...# #...# #...# #...# ....# #...# .##.. #...# ...#. ..##. #.... .#... ....# #...# #...# ..... ..#..
..#.. #...# #...# #...# .#.#. .#.#. ...#. #..## ..#.. ....# ..#.. .#.#. ####. #.... ...#. #...# #...# ..... ..#..
..#.. #...# #...# #.#.# ..#.. ..#.. ..#.. #.#.# ..#.. ...#. ...#. #..#. ....# ####. ..#.. .###. .#### ..... .....
..#.. #...# #...# #.#.# .#.#. ..#.. .#... ##..# ..#.. ..#.. ....# ##### ....# #...# .#... #...# ....# ..... ..#..
..#.. #...# .#.#. #.#.# #...# ..#.. #.... #...# ..#.. .#... #...# ...#. #...# #...# .#... #...# ...#. ..... ..#..
..#.. .###. ..#.. .#.#. #...# ..#.. ##### .###. .###. ##### .###. ...#. .###. .###. .#... .###. .##.. ..... .....

-     .     ,     /     @     *     (     )     +     =     !     ?     '     _
..... ..... ..... ..... .###. ..... ...#. .#... ..... ..... ..#.. .###. ..#.. .....
..... ..... ..... ....# #...# ..#.. ..#.. ..#.. ..#.. ..... ..#.. #...# ..#.. .....
..... ..... ..... ...#. #.### #.#.# .#... ...#. ..#.. ##### ..#.. ....# .#... .....
##### ..... ..... ..#.. #.#.# .###. .#... ...#. ##### ..... ..#.. ...#. ..... .....
..... ..... .##.. .#... #.### #.#.# .#... ...#. ..#.. ##### ..#.. ..#.. ..... .....
..... .##.. ..#.. #.... #.... ..#.. ..#.. ..#.. ..#.. ..... ..... ..... ..... .....
..... .##.. .#... ..... .###. ..... ...#. .#... ..... ..... ..#.. ..#.. ..... #####
"""


def _read_sheet(sheet: str) -> dict[str, tuple[str, ...]]:
    font: dict[str, tuple[str, ...]] = {}
    for block in sheet.strip("\n").split("\n\n"):
        names, *rows = block.split("\n")
        for x in range(0, len(rows[0]), TEXT_ADVANCE):
            font[names[x]] = tuple(row[x : x + 5] for row in rows)
    return font


#: Each character's 7 rows of 5 pixels (``#`` set, ``.`` clear).
FONT_ROWS = _read_sheet(_FONT_SHEET)


@cache
def glyph(ch: str, scale: int):
    """The ``(7*scale, 5*scale)`` bool mask of one character (unknown characters draw as ``?``)."""
    rows = FONT_ROWS.get(ch.upper(), FONT_ROWS["?"])
    small = np.array([[c == "#" for c in row] for row in rows], dtype=bool)
    return small.repeat(scale, axis=0).repeat(scale, axis=1)


class Canvas:
    """A uint8 RGB picture with clipped drawing primitives (rectangles, discs, outlines, text)."""

    def __init__(self, width: int, height: int, colour):
        self.img = np.empty((height, width, 3), dtype=np.uint8)
        self.img[:] = colour
        self.height, self.width = height, width

    def rect(self, x0: int, y0: int, x1: int, y1: int, colour) -> None:
        """Fill pixels ``x0 <= x < x1``, ``y0 <= y < y1`` (clipped)."""
        x0, x1 = max(0, x0), min(self.width, x1)
        y0, y1 = max(0, y0), min(self.height, y1)
        if x0 < x1 and y0 < y1:
            self.img[y0:y1, x0:x1] = colour

    def frame(self, x0: int, y0: int, x1: int, y1: int, colour, thick: int) -> None:
        """The outline of a rectangle, ``thick`` pixels wide, inside the rectangle."""
        self.rect(x0, y0, x1, y0 + thick, colour)
        self.rect(x0, y1 - thick, x1, y1, colour)
        self.rect(x0, y0, x0 + thick, y1, colour)
        self.rect(x1 - thick, y0, x1, y1, colour)

    def paint(self, x: int, y: int, mask: np.ndarray, colour) -> None:
        """Paint the pixels set in the bool ``mask`` placed with its top-left corner at ``(x, y)`` (clipped)."""
        h, w = mask.shape
        x0, y0, x1, y1 = max(0, x), max(0, y), min(self.width, x + w), min(self.height, y + h)
        if x0 < x1 and y0 < y1:
            self.img[y0:y1, x0:x1][mask[y0 - y : y1 - y, x0 - x : x1 - x]] = colour

    def disc(self, cx: float, cy: float, radius: float, colour) -> None:
        x0, y0 = int(cx - radius) - 1, int(cy - radius) - 1
        yy, xx = np.mgrid[y0 : int(cy + radius) + 2, x0 : int(cx + radius) + 2]
        self.paint(x0, y0, (xx + 0.5 - cx) ** 2 + (yy + 0.5 - cy) ** 2 <= radius * radius, colour)

    def text(self, x: int, y: int, text: str, colour, scale: int) -> int:
        """Draw ``text`` with its top-left corner at ``(x, y)``; returns the x after the last character."""
        for ch in text:
            if ch != " ":
                self.paint(x, y, glyph(ch, scale), colour)
            x += TEXT_ADVANCE * scale
        return x

    def line(self, x0: float, y0: float, x1: float, y1: float, colour, width: float = 1.0) -> None:
        """A straight line of about ``width`` pixels between two points (clipped)."""
        steps = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        xs = np.round(np.linspace(x0, x1, steps)).astype(int)
        ys = np.round(np.linspace(y0, y1, steps)).astype(int)
        r = max(0, int(round(width / 2 - 0.5)))
        for dx in range(-r, r + 1):
            for dy in range(-r, r + 1):
                px, py = xs + dx, ys + dy
                keep = (px >= 0) & (px < self.width) & (py >= 0) & (py < self.height)
                self.img[py[keep], px[keep]] = colour
