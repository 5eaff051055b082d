"""Text and image pictures of a game (no pygame; numpy is imported only for images).

``game_text(game)`` draws the castle inside its bounding box plus one square of margin, top row =
highest ``y``. Each square is three characters:

========  ==========================================
``N  ``   the nave (counts as a house)
``K  ``   the clock tower (counts as a tower)
``H2 ``   house of colour 2 (``T`` tower, ``Y`` yard)
``H2*``   the edifice built last
`` @ ``   the cardinal (on a site)
`` . ``   a site (empty square next to a building)
========  ==========================================

followed by the phase, the seat on turn, the supply, chips held and, once over, the scores.
"""

from __future__ import annotations

from .engine import Game
from .notation import SHAPE_LETTERS
from .window import LOSSLESS_WINDOW

__all__ = ["game_text", "LEGEND"]

LEGEND = "N nave  K clock tower  H house  T tower  Y yard (digit = colour, * = built last)  @ cardinal  . site"


def _letters(game: Game) -> dict[tuple[int, int], str]:
    cells: dict[tuple[int, int], str] = {}
    buildings = game.buildings()
    last_id = len(buildings) - 1 if len(buildings) > 2 else -1
    for b in buildings:
        if b.colour is None:
            text = "N  " if b.shape == "nave" else "K  "
        else:
            mark = "*" if b.id == last_id else " "
            text = f"{SHAPE_LETTERS['house tower yard'.split().index(b.shape)]}{b.colour}{mark}"
        for sq in b.squares:
            cells[sq] = text
    for sq in game.sites():
        cells[sq] = " . "
    if game.cardinal is not None:
        cells[game.cardinal] = " @ "
    return cells


def game_text(game: Game, legend: bool = True) -> str:
    """A readable multi-line picture of the position, with a legend and the chip counts."""
    cells = _letters(game)
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    lines = ["     " + "".join(f"{x:>3}" for x in range(x0, x1 + 1))]
    for y in range(y1, y0 - 1, -1):
        row = "".join(cells.get((x, y), "   ") for x in range(x0, x1 + 1))
        lines.append(f"{y:>4} {row}".rstrip())
    if legend:
        lines.append(LEGEND)
    if game.is_over:
        lines.append("phase: over")
    else:
        lines.append(f"phase: {game.phase}  seat on turn: {game.current_player}")
    lines.append(f"supply: {game.supply()}  set aside: {game.set_aside()}")
    for seat, held in enumerate(game.chips()):
        lines.append(f"seat {seat} (colours {list(game.seat_colours(seat))}): chips {held}")
    if game.is_over:
        lines.append(f"scores: {game.scores()}  winners: {game.winners()}")
    return "\n".join(lines)


# RGB colours of the four edifice colours, the cathedral, the cardinal, sites and the background.
_PALETTE = {
    0: (230, 230, 230),  # white
    1: (60, 60, 60),  # dark grey
    2: (200, 150, 60),  # ochre
    3: (70, 110, 200),  # blue
}
_BACKGROUND = (34, 85, 34)
_CATHEDRAL = (150, 40, 160)
_CARDINAL = (220, 20, 30)
_SITE = (60, 120, 60)
_GRID = (25, 65, 25)


def game_image(game: Game, window: int = LOSSLESS_WINDOW, cell: int = 12):
    """An ``(window*cell, window*cell, 3)`` uint8 picture of the window (top row = highest ``y``).

    Colour = edifice colour; shape: a house fills its square, a tower is a filled disc-like
    diamond on a dark square, a yard fills both squares with a dark stripe along its length; the
    cathedral is purple (the clock tower with a dark centre), the cardinal a red dot, sites a
    lighter green.
    """
    import numpy as np

    half = window // 2
    img = np.empty((window * cell, window * cell, 3), dtype=np.uint8)
    img[:] = _BACKGROUND
    img[::cell, :] = _GRID
    img[:, ::cell] = _GRID

    def box(x: int, y: int, inset: int = 1):
        r, c = (half - y) * cell, (x + half) * cell
        return slice(r + inset, r + cell - inset + 1), slice(c + inset, c + cell - inset + 1)

    yy, xx = np.mgrid[0:cell, 0:cell]
    centre = (cell - 1) / 2
    diamond = (np.abs(yy - centre) + np.abs(xx - centre)) <= cell * 0.42
    disc = (yy - centre) ** 2 + (xx - centre) ** 2 <= (cell * 0.28) ** 2

    def inside(x: int, y: int) -> bool:
        return -half <= x <= half and -half <= y <= half

    for x, y in game.sites():
        if inside(x, y):
            img[box(x, y, 3)] = _SITE
    for b in game.buildings():
        if b.colour is None:
            colour = _CATHEDRAL
        else:
            colour = _PALETTE[b.colour]
        for x, y in b.squares:
            if not inside(x, y):
                continue
            rows, cols = box(x, y)
            r0, c0 = (half - y) * cell, (x + half) * cell
            if b.shape in ("tower", "clock tower"):
                img[rows, cols] = (20, 20, 20)
                patch = img[r0 : r0 + cell, c0 : c0 + cell]
                patch[diamond] = colour
            else:
                img[rows, cols] = colour
        if b.shape == "yard":
            (xa, ya), (xb, yb) = b.squares
            if inside(xa, ya) and inside(xb, yb):
                r0, c0 = (half - max(ya, yb)) * cell, (min(xa, xb) + half) * cell
                mid = cell // 2
                if ya == yb:  # horizontal: stripe along the row
                    img[r0 + mid - 1 : r0 + mid + 1, c0 + 2 : c0 + 2 * cell - 2] = (20, 20, 20)
                else:
                    img[r0 + 2 : r0 + 2 * cell - 2, c0 + mid - 1 : c0 + mid + 1] = (20, 20, 20)
    if game.cardinal is not None and inside(*game.cardinal):
        x, y = game.cardinal
        r0, c0 = (half - y) * cell, (x + half) * cell
        img[r0 : r0 + cell, c0 : c0 + cell][disc] = _CARDINAL
    return img
