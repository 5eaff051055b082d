"""Why a move is illegal: :class:`Explain`, the engine's diagnosis (mixed into
:class:`~kardinal_env.kardinal.engine.Game`, read-only; the core-backed game explains on its moves replayed into the
Python engine).

A parsed move code that is not legal comes here: :meth:`Explain._raise_illegal` raises the
:class:`~kardinal_env.core.errors.IllegalMoveError` ``"{rule}: {reason} ({move!r})"`` of the first rule it breaks, asked
in this order: the game being over, the phase (a decision's moves are of its kind); for a chip the supply; for a
cardinal move ``C-`` on the first turn, the window, the cardinal's own square, an occupied square, a square that is no
site; for a build the seat's colours, the edifices left, the window, an occupied square and touching nothing (rule 0),
the cardinal (I), a house to touch (II, III), the same shape (IV), the same colour (V), the shape and colour built just
before (VI, VII). Breaking none of them is an engine bug (``AssertionError``).
"""

from __future__ import annotations

from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.kardinal.notation import HOUSE, NEIGHBOUR_STEPS, SHAPE_NAMES, TOWER, format_move, key_text
from kardinal_env.kardinal.state import BUILD_PHASE, CHIP_PHASE, CLOCK_TOWER, OVER, PHASES, GameState

_PHASE_HINTS = ("a build (H/T/Y)", "a chip choice chip:{c}", "a cardinal decision C@x,y or C-")


class Explain(GameState):
    """The diagnosis of an illegal move (see the module docstring)."""

    __slots__ = ()

    def _raise_illegal(self, code: tuple, move: object) -> None:
        """Raise the ``IllegalMoveError`` of ``code`` (given as ``move``), not legal now."""
        rule, reason = self._explain(code)
        raise IllegalMoveError(f"{rule}: {reason} ({move!r})", rule, move)

    def _explain(self, code: tuple) -> tuple[str, str]:
        """``(rule, reason)`` for a parsed move that is not legal now."""
        phase = self._phase
        kind = code[0]
        if phase == OVER:
            return "game over", "the game is over; no move is legal"
        if kind != phase:
            return "phase", f"seat {self._current} must now make {_PHASE_HINTS[phase]}, not a {PHASES[kind]}"
        if phase == CHIP_PHASE:
            return "chip", f"no chip of colour {code[2]} is left in the supply"
        if phase == BUILD_PHASE:
            return self._explain_build(code)
        k = code[3]
        if k < 0:
            return "cardinal", "the first player must place the cardinal on the first turn; C- is not allowed"
        if not self._is_inside(k):
            return "window", self._outside(k)
        if k == self._cardinal:
            return "cardinal", f"the cardinal already stands on {key_text(k)}; play C- to leave it there"
        if k in self._cells:
            return "cardinal", f"{key_text(k)} is occupied by {self._describe(self._cells[k])}, not a site"
        return "cardinal", f"{key_text(k)} is not a site (an empty square next to a building)"

    def _explain_build(self, code: tuple) -> tuple[str, str]:
        _, shape, colour, k1, k2 = code
        seat = self._current
        cells = self._cells
        mine = self._seat_colours[seat]
        name = SHAPE_NAMES[shape]
        squares = (k1,) if k2 < 0 else (k1, k2)
        what = f"{name} {colour} at {':'.join(key_text(k) for k in squares)}"
        placement = "rule 0 (placement)"
        if colour not in mine:
            return placement, f"seat {seat} may not build colour {colour} (its colours: {list(mine)})"
        if not self._inventory[3 * colour + shape]:
            return placement, f"no {name} of colour {colour} is left to build"
        for k in squares:
            if not self._is_inside(k):
                return "window", self._outside(k)
            if k in cells:
                return placement, f"{key_text(k)} is occupied by {self._describe(cells[k])}"
        touched = list(dict.fromkeys(cells[k + step] for k in squares for step in NEIGHBOUR_STEPS if k + step in cells))
        if not touched:
            return placement, f"{what} touches no building"
        if self._cardinal in squares:
            return "rule I", f"the cardinal stands on {key_text(self._cardinal)}"
        if shape != HOUSE and all(self._bshape[b] != HOUSE for b in touched):
            return "rule II" if shape == TOWER else "rule III", f"{what} touches no house (the nave counts as a house)"
        for b in touched:
            if self._bshape[b] == shape:
                return "rule IV", f"{what} touches {self._describe(b)}"
        for b in touched:
            if self._bcolour[b] == colour:
                return "rule V", f"{what} touches {self._describe(b)} of the same colour"
        if shape == self._last_shape:
            return "rule VI", f"the edifice built just before was a {name}; a {name} may not follow it"
        if colour == self._last_colour:
            return "rule VII", f"the edifice built just before was colour {colour}; colour {colour} may not follow it"
        raise AssertionError(f"engine bug: {format_move(code)} is rejected but no rule explains why")

    def _outside(self, key: int) -> str:
        window = self.rules.window
        return f"{key_text(key)} lies outside the {window}x{window} window"

    def _describe(self, bid: int) -> str:
        """Building ``bid`` in words, for a reason: ``"the nave"``, ``"tower 2 at 3,-1"``."""
        if bid <= CLOCK_TOWER:
            return ("the nave", "the clock tower")[bid]
        squares = ":".join(key_text(k) for k in self._bsquares[bid])
        return f"{SHAPE_NAMES[self._bshape[bid]]} {self._bcolour[bid]} at {squares}"
