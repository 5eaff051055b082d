"""Why a move is illegal in a game of Kardinal: the rule it breaks, and the message of the
:class:`~kardinal_env.core.errors.IllegalMoveError` the engine raises.

The engine (:mod:`kardinal_env.kardinal.engine`) checks a move against its legal moves; only a parsed
move code that is not among them comes here (a string that does not parse is refused by the engine
as ``"malformed move"``). :func:`explain` works out the first rule the move breaks, as
``(rule, reason)``; :func:`reject` raises the error: its message is ``"{rule}: {reason} ({move!r})"``
and its ``rule`` attribute the rule, one of ``"game over"``, ``"phase"``, ``"chip"``, ``"cardinal"``,
``"window"``, ``"rule 0 (placement)"`` and ``"rule I"`` .. ``"rule VII"`` (docs/rules.md). The rules
are asked in this order: the game being over, the phase (a decision's moves are of its kind), then
for a chip the supply; for a cardinal move ``C-`` on the first turn, the window, the cardinal's own
square, an occupied square, a square that is no site; for a build the seat's colours, the edifices
left, the window, an occupied square (rule 0), a build touching nothing (rule 0), the cardinal
(rule I), a house to touch (rules II and III), the same shape (IV), the same colour (V), the shape
and the colour built just before (VI, VII). A move that is not legal and breaks none of them is an
engine bug (``AssertionError``). Nothing here changes the game; the core-backed game explains with
this too, on its position replayed into the Python engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.kardinal.notation import HOUSE, NEIGHBOUR_STEPS, SHAPE_NAMES, TOWER, YARD, format_move, key_text
from kardinal_env.kardinal.state import BUILD_PHASE, CARDINAL_PHASE, CHIP_PHASE, CLOCK_TOWER, NAVE, OVER

if TYPE_CHECKING:
    from kardinal_env.kardinal.engine import Game

__all__ = ["explain", "reject"]

_ROMAN = ("0 (placement)", "I", "II", "III", "IV", "V", "VI", "VII")


def reject(game: Game, code: tuple, move: object) -> NoReturn:
    """Raise the :class:`~kardinal_env.core.errors.IllegalMoveError` for the move code ``code`` (given
    as ``move``), not legal in ``game`` now, naming the rule it breaks (:func:`explain`)."""
    rule, reason = explain(game, code)
    raise IllegalMoveError(f"{rule}: {reason} ({move!r})", rule, move)


def _describe(game: Game, bid: int) -> str:
    """Building ``bid`` in words, for a reason: ``"the nave"``, ``"tower 2 at 3,-1"``."""
    if bid == NAVE:
        return "the nave"
    if bid == CLOCK_TOWER:
        return "the clock tower"
    squares = ":".join(key_text(k) for k in game._bsquares[bid])
    return f"{SHAPE_NAMES[game._bshape[bid]]} {game._bcolour[bid]} at {squares}"


def explain(game: Game, code: tuple) -> tuple[str, str]:
    """(rule, reason) for a parsed move that is not legal now."""
    phase = game._phase
    kind = code[0]
    if phase == OVER:
        return "game over", "the game is over; no move is legal"
    if kind != phase:
        hints = {
            BUILD_PHASE: "a build (H/T/Y)",
            CHIP_PHASE: "a chip choice chip:{c}",
            CARDINAL_PHASE: "a cardinal decision C@x,y or C-",
        }
        return (
            "phase",
            f"seat {game._current} must now make {hints[phase]}, not a {('build', 'chip', 'cardinal')[kind]}",
        )
    if phase == CHIP_PHASE:
        return "chip", f"no chip of colour {code[2]} is left in the supply"
    if phase == CARDINAL_PHASE:
        k = code[3]
        if k < 0:
            return "cardinal", "the first player must place the cardinal on the first turn; C- is not allowed"
        if not game._is_inside(k):
            return "window", f"{key_text(k)} lies outside the {game.rules.window}x{game.rules.window} window"
        if k == game._cardinal:
            return "cardinal", f"the cardinal already stands on {key_text(k)}; play C- to leave it there"
        if k in game._cells:
            return "cardinal", f"{key_text(k)} is occupied by {_describe(game, game._cells[k])}, not a site"
        return "cardinal", f"{key_text(k)} is not a site (an empty square next to a building)"
    return _explain_build(game, code)


def _explain_build(game: Game, code: tuple) -> tuple[str, str]:
    """(rule, reason) for a build code that is not legal now, in the build phase."""
    _, shape, colour, k1, k2 = code
    seat = game._current
    name = SHAPE_NAMES[shape]
    squares = (k1,) if k2 < 0 else (k1, k2)
    where = ":".join(key_text(k) for k in squares)
    what = f"{name} {colour} at {where}"
    placement = "rule " + _ROMAN[0]
    if colour not in game._seat_colours[seat]:
        return (
            placement,
            f"seat {seat} may not build colour {colour} (its colours: {list(game._seat_colours[seat])})",
        )
    if not game._inventory[3 * colour + shape]:
        return placement, f"no {name} of colour {colour} is left to build"
    for k in squares:
        if not game._is_inside(k):
            return "window", f"{key_text(k)} lies outside the {game.rules.window}x{game.rules.window} window"
        if k in game._cells:
            return placement, f"{key_text(k)} is occupied by {_describe(game, game._cells[k])}"
    touched = []
    for k in squares:
        for step in NEIGHBOUR_STEPS:
            b = game._cells.get(k + step)
            if b is not None and b not in touched:
                touched.append(b)
    if not touched:
        return placement, f"{what} touches no building"
    if game._cardinal in squares:
        return "rule I", f"the cardinal stands on {key_text(game._cardinal)}"
    houses = [b for b in touched if game._bshape[b] == HOUSE]
    if shape == TOWER and not houses:
        return "rule II", f"{what} touches no house (the nave counts as a house)"
    if shape == YARD and not houses:
        return "rule III", f"{what} touches no house (the nave counts as a house)"
    for b in touched:
        if game._bshape[b] == shape:
            return "rule IV", f"{what} touches {_describe(game, b)}"
    for b in touched:
        if game._bcolour[b] == colour:
            return "rule V", f"{what} touches {_describe(game, b)} of the same colour"
    if shape == game._last_shape:
        return "rule VI", f"the edifice built just before was a {name}; a {name} may not follow it"
    if colour == game._last_colour:
        return "rule VII", f"the edifice built just before was colour {colour}; colour {colour} may not follow it"
    raise AssertionError(f"engine bug: {format_move(code)} is rejected but no rule explains why")
