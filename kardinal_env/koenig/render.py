"""The ``rgb_array`` picture of a Kardinal & König game (the text view is :mod:`kardinal_env.koenig.text`).

:func:`game_image`: a ``uint8`` ``H x W x 3`` picture drawn from the board's ``layout`` (a ring of the countries when it
has none): roads as grey lines, alliance links dashed and numbered in the board's order, sites as discs coloured by
owner (grey when empty), each seal a square with the country code and its advisors per seat, and a panel with the seat
to move, scores, pieces left, display and deck. The picture is public: no hand, and not the deciding seat's phase (a
``second`` phase would tell that it holds the cards for a second piece).
"""

from __future__ import annotations

import math

import numpy as np

from kardinal_env.core.drawing import TEXT_ADVANCE, Canvas
from kardinal_env.koenig.engine import Game

__all__ = ["game_image", "layout_positions", "IMAGE_SIZE", "SEAT_COLOURS"]

#: Default picture size ``(width, height)``.
IMAGE_SIZE = (720, 640)
#: Colour of seat 0..4.
SEAT_COLOURS = ((214, 48, 49), (9, 132, 227), (0, 166, 81), (253, 203, 110), (162, 92, 230))
_BACKGROUND = (238, 232, 213)
_EMPTY = (170, 170, 170)
_ROAD = (120, 110, 95)
_ALLIANCE = (150, 60, 120)
_INK = (25, 25, 25)
_PANEL = (24, 28, 32)
_TINTS = tuple(
    tuple(bytes.fromhex(c)) for c in "ded1b0 cedebe d6cce2 e2c8c4 c4d8e2 e6dcaa c8e2d6 e2d4be d4d4d4".split()
)
_TEXT = (235, 235, 235)


def layout_positions(game: Game) -> dict[str, tuple[float, float]]:
    """Layout positions of every site and seal (a ring of countries when the board has none)."""
    board = game.board
    out = {k: (float(x), float(y)) for k, (x, y) in (board.data.get("layout") or {}).items()}
    for c, cid in enumerate(board.country_ids):
        angle = 2 * math.pi * c / board.num_countries
        cx, cy = 50 + 35 * math.cos(angle), 50 + 35 * math.sin(angle)
        out.setdefault(cid, (cx, cy))
        sites = board.country_sites[c]
        for j, s in enumerate(sites):
            a = 2 * math.pi * j / len(sites)
            out.setdefault(board.site_ids[s], (cx + 8 * math.cos(a), cy + 8 * math.sin(a)))
    return out


def game_image(game: Game, size: tuple[int, int] = IMAGE_SIZE) -> np.ndarray:
    """The map as a ``uint8`` picture of ``size = (width, height)`` pixels (see the module docstring)."""
    width, height = size
    if not (isinstance(width, int) and isinstance(height, int) and width >= 200 and height >= 200):
        raise ValueError(f"size must be two integers >= 200 (width, height), got {size!r}")
    board = game.board
    n = game.num_players
    cv = Canvas(width, height, _BACKGROUND)
    panel_w = max(150, width // 4)
    map_w = width - panel_w
    pos = layout_positions(game)
    xs, ys = zip(*pos.values())
    margin = 44
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1.0)
    unit = min(map_w - 2 * margin, height - 2 * margin) / span
    x_off = margin + (map_w - 2 * margin - unit * (max(xs) - min(xs))) / 2 - unit * min(xs)
    y_off = margin + (height - 2 * margin - unit * (max(ys) - min(ys))) / 2 - unit * min(ys)

    def px(key: str) -> tuple[float, float]:
        x, y = pos[key]
        return x_off + unit * x, y_off + unit * y

    # Country areas (a pale tint around each site and its seal), alliances (dashed, numbered), roads,
    # then sites and seals on top.
    radius = max(4.0, unit * 2.2)
    for c, cid in enumerate(board.country_ids):
        tint = _TINTS[c % len(_TINTS)]
        sx, sy = px(cid)
        for s in board.country_sites[c]:
            x, y = px(board.site_ids[s])
            cv.line(sx, sy, x, y, tint, radius)
            cv.disc(x, y, radius * 2.4, tint)
    for number, (a, b) in enumerate(board.alliances, 1):
        (x0, y0), (x1, y1) = px(board.country_ids[a]), px(board.country_ids[b])
        for d in range(0, 12, 2):  # every other twelfth of the line
            t0, t1 = d / 12, (d + 1) / 12
            cv.line(x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0, x0 + (x1 - x0) * t1, y0 + (y1 - y0) * t1, _ALLIANCE, 2)
        label = str(number)
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        w = len(label) * TEXT_ADVANCE + 3
        cv.rect(int(mx - w / 2), int(my - 6), int(mx + w / 2), int(my + 6), _BACKGROUND)
        cv.text(int(mx - w / 2) + 2, int(my - 3), label, _ALLIANCE, 1)
    for a, b in board.roads:
        (x0, y0), (x1, y1) = px(board.site_ids[a]), px(board.site_ids[b])
        cv.line(x0, y0, x1, y1, _ROAD, 2)
    for s, owner in enumerate(game.owners()):
        x, y = px(board.site_ids[s])
        cv.disc(x, y, radius + 1.5, _INK)
        cv.disc(x, y, radius, _EMPTY if owner is None else SEAT_COLOURS[owner])
    advisors = game.advisor_counts()
    for c, cid in enumerate(board.country_ids):
        x, y = px(cid)
        counts = advisors[c]
        box_w = max(3 * TEXT_ADVANCE + 4, 11 * n + 4)
        x0, y0 = int(x - box_w / 2), int(y - 12)
        cv.rect(x0, y0, x0 + box_w, y0 + 24, (250, 250, 250))
        cv.frame(x0, y0, x0 + box_w, y0 + 24, _INK, 2)
        cv.text(x0 + 3, y0 + 3, cid, _INK, 1)
        for seat in range(n):
            if counts[seat]:
                bx = x0 + 3 + 11 * seat
                cv.rect(bx, y0 + 12, bx + 9, y0 + 21, SEAT_COLOURS[seat])
                cv.text(bx + 2, y0 + 13, str(min(counts[seat], 9)), _INK, 1)
    _draw_panel(cv, game, map_w, panel_w, height)
    return cv.img


def _draw_panel(cv: Canvas, game: Game, x0: int, w: int, height: int) -> None:
    cv.rect(x0, 0, x0 + w, height, _PANEL)
    x, y = x0 + 8, 8
    line = 14
    cv.text(x, y, "GAME OVER" if game.is_over else f"SEAT {game.current_player} TO MOVE", _TEXT, 1)
    y += line + 4
    scores = game.scores()
    winners = set(game.winners()) if game.is_over else set()
    for seat in range(game.num_players):
        cloisters, advisors = game.pieces_left(seat)
        cv.rect(x, y, x + 10, y + 10, SEAT_COLOURS[seat])
        mark = "*" if seat in winners else " "
        cv.text(x + 14, y + 2, f"{scores[seat]:>3}{mark} K{cloisters:>2} A{advisors}", _TEXT, 1)
        y += line
    rows = [f"DECK {game.deck_size()}", "DISPLAY " + " ".join(str(t) for t in game.display())]
    rows += [f"DISCARDS {len(game.discard_pile())}", f"RUN-OUTS {game.runouts}"]
    if game.turn_country is not None:
        rows.append(f"TURN IN {game.turn_country}")
    for row_y, row in enumerate(rows):
        cv.text(x, y + 6 + row_y * line, row, _TEXT, 1)
