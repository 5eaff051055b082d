"""The rgb picture of a Kardinal game: :func:`game_image`, the ``rgb_array`` frame (numpy and the 5x7 bitmap font of
``kardinal_env.core.drawing``; no pygame, Pillow or matplotlib)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kardinal_env.core.checks import is_int
from kardinal_env.kardinal.engine import Game
from kardinal_env.kardinal.window import LOSSLESS_WINDOW

if TYPE_CHECKING:
    from kardinal_env.core.drawing import Canvas

__all__ = ["game_image", "IMAGE_SIZE"]

# RGB colours of the four edifice colours (white, dark grey, ochre, blue), the cathedral, the cardinal,
# sites and the background.
_PALETTE = ((235, 235, 235), (70, 70, 70), (215, 160, 60), (70, 110, 210))
_BACKGROUND = (34, 85, 34)
_OUTSIDE = (20, 45, 20)  # squares outside a window variant's window
_CATHEDRAL = (150, 40, 160)
_CARDINAL = (220, 20, 30)
_SITE = (60, 120, 60)
_GRID = (25, 65, 25)
_DARK = (20, 20, 20)
_LAST = (255, 225, 40)  # outline of the edifice built last
_PANEL = (24, 28, 32)
_TEXT = (235, 235, 235)
_WINNER = (255, 225, 40)

#: Default ``game_image`` size ``(width, height)`` in pixels: the ``rgb_array`` frame of the env.
IMAGE_SIZE = (640, 640)


def _draw_building(cv: Canvas, shape: str, colour, x0: int, y0: int, x1: int, y1: int, size: int, last: bool) -> None:
    """A building over pixels ``x0..x1, y0..y1`` (one square, two for a yard), squares ``size`` pixels wide."""
    inset = max(1, size // 12)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if shape in ("tower", "clock tower"):
        cv.rect(x0 + inset, y0 + inset, x1 - inset, y1 - inset, _DARK)
        cv.disc(cx, cy, size * 0.36, colour)
    else:  # house, nave, yard
        cv.rect(x0 + inset, y0 + inset, x1 - inset, y1 - inset, colour)
        cv.frame(x0 + inset, y0 + inset, x1 - inset, y1 - inset, _DARK, max(1, size // 16))
    if shape == "nave":
        cv.disc(cx, cy, size * 0.14, _DARK)
    if shape == "yard":  # a dark stripe along it
        half = max(1, size // 14)
        if x1 - x0 > y1 - y0:
            cv.rect(x0 + size // 4, (y0 + y1) // 2 - half, x1 - size // 4, (y0 + y1) // 2 + half, _DARK)
        else:
            cv.rect((x0 + x1) // 2 - half, y0 + size // 4, (x0 + x1) // 2 + half, y1 - size // 4, _DARK)
    if last:
        cv.frame(x0, y0, x1, y1, _LAST, max(2, size // 10))


def game_image(game: Game, window: int | None = LOSSLESS_WINDOW, size: tuple[int, int] = IMAGE_SIZE):
    """A ``(height, width, 3)`` uint8 picture of the position, ``size=(width, height)`` whatever the position (a stable
    frame size for videos).

    The board shows the bounding box of buildings, sites and the cardinal plus one square of margin (at least 7 x 7),
    top row = highest ``y``. Edifice colours 0 white, 1 dark grey, 2 ochre, 3 blue: a house fills its square, a tower is
    a disc on a dark square, a yard one piece over two squares with a dark stripe; the cathedral is purple, the cardinal
    a red disc, sites lighter green, the edifice built last outlined in yellow, squares outside a window variant's
    window darker. Below: the move, phase and seat on turn (or the winners), per seat its colours, chips per colour,
    total and score (projected while the game runs), the supply, and a legend.
    """
    from kardinal_env.core.drawing import Canvas  # numpy: only for images

    if not isinstance(size, tuple | list) or len(size) != 2 or not all(is_int(v) for v in size):
        raise ValueError(f"game_image: size must be (width, height) in pixels, got {size!r}")
    width, height = size
    if width < 96 or height < 96:
        raise ValueError(f"game_image: size must be at least (96, 96) pixels, got {size!r}")
    scale = max(1, min(width, height) // 320)
    line = 9 * scale
    panel_h = (game.num_players + 3) * line + 2 * scale + 4  # a line per seat, the head, the supply and the legend
    board_h = height - panel_h
    if board_h < 32:
        raise ValueError(f"game_image: size {size!r} leaves no room for the board below {panel_h} pixels of text")
    cv = Canvas(width, height, _BACKGROUND)

    buildings = game.buildings()
    squares = [sq for b in buildings for sq in b.squares] + game.sites()  # the cardinal stands on a site
    xs, ys = zip(*squares, strict=True)
    x0, x1, y0, y1 = min(xs) - 1, max(xs) + 1, min(ys) - 1, max(ys) + 1
    ncols, nrows = max(7, x1 - x0 + 1), max(7, y1 - y0 + 1)
    x0 -= (ncols - (x1 - x0 + 1)) // 2
    y0 -= (nrows - (y1 - y0 + 1)) // 2
    y1 = y0 + nrows - 1
    cell = max(2, min(width // ncols, board_h // nrows))
    ox = (width - cell * ncols) // 2
    oy = (board_h - cell * nrows) // 2

    def corner(x: int, y: int) -> tuple[int, int]:
        return ox + (x - x0) * cell, oy + (y1 - y) * cell

    half = None if window is None or window >= LOSSLESS_WINDOW else window // 2
    for x in range(x0, x0 + ncols):
        for y in range(y0, y1 + 1):
            px, py = corner(x, y)
            if half is not None and (abs(x) > half or abs(y) > half):
                cv.rect(px, py, px + cell, py + cell, _OUTSIDE)
            cv.frame(px, py, px + cell + 1, py + cell + 1, _GRID, 1)
    for x, y in game.sites():
        px, py = corner(x, y)
        inset = max(2, cell // 6)
        cv.rect(px + inset, py + inset, px + cell - inset + 1, py + cell - inset + 1, _SITE)
    last_id = len(buildings) - 1 if len(buildings) > 2 else -1
    for b in buildings:
        colour = _CATHEDRAL if b.colour is None else _PALETTE[b.colour]
        xs, ys = zip(*b.squares, strict=True)
        (ax, ay), (bx, by) = corner(min(xs), max(ys)), corner(max(xs), min(ys))
        _draw_building(cv, b.shape, colour, ax, ay, bx + cell, by + cell, cell, b.id == last_id)
    if game.cardinal is not None:
        px, py = corner(*game.cardinal)
        cv.disc(px + cell / 2, py + cell / 2, cell * 0.3, _CARDINAL)
        cv.disc(px + cell / 2, py + cell / 2, cell * 0.1, _TEXT)

    _draw_panel(cv, game, board_h, scale, line)
    return cv.img


def _swatch(cv: Canvas, x: int, y: int, colour, scale: int) -> int:
    side = 7 * scale
    cv.rect(x, y, x + side, y + side, colour)
    cv.frame(x, y, x + side, y + side, _DARK, 1)
    return x + side + 2 * scale


def _draw_panel(cv: Canvas, game: Game, top: int, scale: int, line: int) -> None:
    cv.rect(0, top, cv.width, cv.height, _PANEL)
    x, y = 3 * scale, top + 2 + scale
    text = cv.text
    if game.is_over:
        won = game.winners()
        head = f"MOVE {game.move_count}  GAME OVER  WINNER{'S' if len(won) > 1 else ''}: "
        head += " ".join(f"SEAT {s}" for s in won)
    else:
        head = f"MOVE {game.move_count}  {game.phase.upper()}  SEAT {game.current_player} TO PLAY"
        if game.pending_chips:
            head += f"  ({game.pending_chips} CHIP{'S' if game.pending_chips > 1 else ''} TO TAKE)"
    text(x, y, head, _TEXT, scale)
    y += line
    scores = game.projected_scores()
    winners: set[int] = set(game.winners()) if game.is_over else set()
    label = "SCORE" if game.is_over else "SCORE NOW"
    for seat, held in enumerate(game.chips()):
        colour = _WINNER if seat in winners else _TEXT
        cx = text(x, y, f"SEAT {seat} ", colour, scale)
        for c in game.seat_colours(seat):
            cx = _swatch(cv, cx, y, _PALETTE[c], scale)
        cx = max(cx, x + 6 * scale * 11)
        for c, count in enumerate(held):
            cx = _swatch(cv, cx, y, _PALETTE[c], scale)
            cx = text(cx, y, f"{count:<3}", colour, scale)
        text(cx, y, f"={sum(held):>3}  {label} {scores[seat]}", colour, scale)
        y += line
    cx = max(text(x, y, "SUPPLY", _TEXT, scale), x + 6 * scale * 11)
    for c, count in enumerate(game.supply()):
        cx = _swatch(cv, cx, y, _PALETTE[c], scale)
        cx = text(cx, y, f"{count:<3}", _TEXT, scale)
    aside = game.set_aside()
    if any(aside):
        text(cx + 4 * scale, y, f"SET ASIDE {sum(aside)}", _TEXT, scale)
    y += line
    # Legend: one icon per shape, the cathedral, the cardinal and the last-built outline.
    side = 7 * scale
    cx = x
    for shape, name in (("house", "HOUSE"), ("tower", "TOWER"), ("yard", "YARD"), ("nave", "CATHEDRAL")):
        width = 2 * side if shape == "yard" else side
        colour = _CATHEDRAL if shape == "nave" else _PALETTE[0]
        _draw_building(cv, shape, colour, cx, y, cx + width, y + side, side, False)
        cx = text(cx + width + 2 * scale, y, name, _TEXT, scale) + 3 * scale
    cv.disc(cx + side / 2, y + side / 2, side * 0.45, _CARDINAL)
    cx = text(cx + side + 2 * scale, y, "CARDINAL", _TEXT, scale) + 3 * scale
    cv.frame(cx, y, cx + side, y + side, _LAST, max(1, scale))
    text(cx + side + 2 * scale, y, "LAST", _TEXT, scale)
