"""The text picture of a Kardinal game (``ansi`` render mode, ``kardinal-replay``, terminal play).

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

from kardinal_env.kardinal.engine import Game

__all__ = ["game_text", "LEGEND"]

LEGEND = "N nave  K clock tower  H house  T tower  Y yard (digit = colour, * = built last)  @ cardinal  . site"


def game_text(game: Game, seat: int | None = None, legend: bool = True) -> str:
    """A readable multi-line picture of the position, with a legend and the chip counts. Kardinal has
    no hidden information: every ``seat`` sees the same picture."""
    cells: dict[tuple[int, int], str] = {}  # square -> its three characters
    buildings = game.buildings()
    last_id = len(buildings) - 1 if len(buildings) > 2 else -1
    for b in buildings:
        if b.colour is None:
            text = "N  " if b.shape == "nave" else "K  "
        else:
            text = f"{b.shape[0].upper()}{b.colour}{'*' if b.id == last_id else ' '}"  # H, T or Y, * built last
        for sq in b.squares:
            cells[sq] = text
    for sq in game.sites():
        cells[sq] = " . "
    if game.cardinal is not None:
        cells[game.cardinal] = " @ "
    xs, ys = zip(*cells, strict=True)
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    lines = ["     " + "".join(f"{x:>3}" for x in range(x0, x1 + 1))]
    for y in range(y1, y0 - 1, -1):
        row = "".join(cells.get((x, y), "   ") for x in range(x0, x1 + 1))
        lines.append(f"{y:>4} {row}".rstrip())
    if legend:
        lines.append(LEGEND)
    lines.append("phase: over" if game.is_over else f"phase: {game.phase}  seat on turn: {game.current_player}")
    lines.append(f"supply: {game.supply()}  set aside: {game.set_aside()}")
    for seat, held in enumerate(game.chips()):
        lines.append(f"seat {seat} (colours {list(game.seat_colours(seat))}): chips {held}")
    if game.is_over:
        lines.append(f"scores: {game.scores()}  winners: {game.winners()}")
    return "\n".join(lines)
