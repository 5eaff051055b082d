"""The state of a game of Kardinal and every query that only reads it.

* :data:`PHASES` — the names of a turn's decisions; the state keeps the phase as an index into it
  (:data:`BUILD_PHASE` .. :data:`OVER`), equal to the move kinds of :mod:`kardinal_env.kardinal.notation`.
  :data:`CHIPS_PER_COLOUR` and :data:`EDIFICES_PER_SHAPE` (per colour): the material.
* :class:`GameState` — the fields of a game (the engine sets them up and changes them move by move) and the read-only
  queries; those that apply the rules (legal builds, scoring, turn order) are the engine's.
* :class:`Building`, :class:`BuildChips`, :class:`LiveView` — what the queries answer.

The board inside: squares are keys (``notation.square_key``); buildings are ids, :data:`NAVE` and :data:`CLOCK_TOWER`
(on :data:`NAVE_KEY` and :data:`CLOCK_KEY`) first, then the edifices in build order. ``_sites`` maps every site (empty
square next to a building, inside the window if there is one) to a bit summary of its neighbours: bits 0-2
(:data:`SHAPE_BIT`) a house, tower or yard touches it, the nave counting as a house and the clock tower as a tower; bits
3-6 (:data:`COLOUR_BIT`) an edifice of colour 0-3 touches it. Colours are 0..3, seats absolute.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from kardinal_env.core.errors import GameNotOverError
from kardinal_env.core.protocol import finishing_order_from_keys
from kardinal_env.kardinal.notation import SHAPE_NAMES, format_move, key_xy, square_key

if TYPE_CHECKING:
    from kardinal_env.kardinal.rules import Rules

PHASES = ("build", "chip", "cardinal", "over")
BUILD_PHASE, CHIP_PHASE, CARDINAL_PHASE, OVER = 0, 1, 2, 3
CHIPS_PER_COLOUR = 12
EDIFICES_PER_SHAPE = 2  # per colour

HOUSE_BIT, TOWER_BIT, YARD_BIT = 1, 2, 4
SHAPE_BIT = (HOUSE_BIT, TOWER_BIT, YARD_BIT)
COLOUR_BIT = (8, 16, 32, 64)
NAVE, CLOCK_TOWER = 0, 1  # building ids of the cathedral's two parts
NAVE_KEY = square_key(0, 0)
CLOCK_KEY = square_key(1, 0)


@dataclass(frozen=True)
class Building:
    """One building on the table. The cathedral's parts have ``colour = None`` and ``builder = None``."""

    id: int
    shape: str  # "house" | "tower" | "yard" | "nave" | "clock tower"
    colour: int | None
    squares: tuple[tuple[int, int], ...]
    builder: int | None


class BuildChips(NamedTuple):
    """What a build would score for its builder (:meth:`Game.build_chips`), docs/rules.md Scoring.

    ``colours``: the colour of each regular chip it takes from the supply; ``substitutes``: the substitute chips it
    earns (``exhausted_colour="substitute"``, as far as the supply holds chips; the builder chooses their colours);
    ``set_aside``: the chips go to nobody (a neutral build under ``neutral_build_chips="put_aside"``);
    ``touches_cathedral``: the tie-break count. The compensation chip of the game's first build is not included.
    """

    colours: tuple[int, ...]
    substitutes: int
    set_aside: bool
    touches_cathedral: bool

    @property
    def chips(self) -> int:
        """Chips the builder takes (0 when they are set aside)."""
        return 0 if self.set_aside else len(self.colours) + self.substitutes


class LiveView(NamedTuple):
    """Read-only live references into a game's state for observation encoders: the engine's own containers (never
    modify them; call :meth:`Game.live_view` again after every move: the integers are values at the time of the call).
    """

    building_squares: list[tuple[int, ...]]  # per building id: its square keys
    building_shapes: list[int]  # per building id: HOUSE / TOWER / YARD (nave: HOUSE, clock tower: TOWER)
    building_colours: list[int]  # per building id: colour 0..3, -1 for the cathedral
    sites: dict[int, int]  # site key -> neighbour bit summary (see the module docstring)
    cardinal: int  # key of the cardinal's square, -1 before it is placed
    supply: list[int]  # per colour
    held: list[list[int]]  # per seat, per colour
    edifices_left: list[int]  # index colour * 3 + shape
    cathedral_touches: list[int]  # per seat
    phase: int  # index into PHASES
    current: int  # seat deciding (meaningless once over)
    pending: int  # chip choices owed


class GameState:
    """The fields of a Kardinal game (its ``__slots__``) and the queries that only read them."""

    rules: Rules
    _n: int  # players
    _seat_colours: tuple[tuple[int, ...], ...]  # per seat: the colours it may build
    _inside: frozenset[int] | None  # the square keys inside the window (None: no window)
    _cells: dict[int, int]  # built square key -> building id
    _bshape: list[int]  # per building id: HOUSE / TOWER / YARD (nave: HOUSE, clock tower: TOWER)
    _bcolour: list[int]  # per building id: colour, -1 for the cathedral
    _bbuilder: list[int]  # per building id: seat, -1 for the cathedral
    _bsquares: list[tuple[int, ...]]  # per building id: its square keys
    _sites: dict[int, int]  # site key -> neighbour bit summary
    _inventory: list[int]  # unbuilt edifices, index colour * 3 + shape
    _supply: list[int]  # per colour
    _held: list[list[int]]  # [seat][colour]
    _aside: list[int]  # per colour: chips that belong to nobody
    _last_shape: int  # of the edifice built last, -1 before the first
    _last_colour: int
    _cardinal: int  # key of the cardinal's square, -1 before it is placed
    _current: int
    _phase: int  # index into PHASES
    _pending: int  # chip choices owed
    _chip_dest: int  # who gets the chips of a chip decision: a seat, or -1 (set aside)
    _moves: list[tuple] | None  # the current decision's legal move codes (None: not generated yet)
    _text_index: dict[str, tuple] | None  # their notation -> code (None: not made yet)
    _action_index: dict[int, tuple] | None  # their action ids -> code (None: not made yet)
    _history: list[tuple]  # move codes
    _cathedral_touch: list[int]  # per seat
    _scores: list[int] | None  # once the game is over
    _winners: list[int] | None
    __slots__ = tuple(__annotations__)  # the fields above

    # current_player, phase, is_over, num_players and move_count come from TurnBasedGame.

    @property
    def history(self) -> list[str]:
        """Every move played so far, in notation."""
        return [format_move(c) for c in self._history]

    @property
    def history_codes(self) -> list[tuple]:
        """Every move played so far, as move codes (a copy)."""
        return list(self._history)

    @property
    def cardinal(self) -> tuple[int, int] | None:
        """Square of the cardinal, or ``None`` before it is placed."""
        key = self.cardinal_key
        return None if key < 0 else key_xy(key)

    @property
    def cardinal_key(self) -> int:
        """Square key of the cardinal, ``-1`` before it is placed."""
        return self._cardinal

    @property
    def last_built(self) -> tuple[int, int] | None:
        """``(shape, colour)`` of the edifice built last (rules VI and VII), or ``None``."""
        return None if self._last_shape < 0 else (self._last_shape, self._last_colour)

    @property
    def pending_chips(self) -> int:
        """Chip choices still owed to the seat on turn (compensation or substitutes)."""
        return self._pending

    def seat_colours(self, seat: int) -> tuple[int, ...]:
        """Colours seat ``seat`` may build (own colours, neutral stock, or the shared pool)."""
        return self._seat_colours[seat]

    def chips(self) -> list[list[int]]:
        """Chips held: one list per seat, one count per colour."""
        return [list(h) for h in self._held]

    def chips_held(self, seat: int) -> int:
        """Total chips ``seat`` holds now."""
        return sum(self._held[seat])

    def supply(self) -> list[int]:
        """Chips left in the common supply, one count per colour."""
        return list(self._supply)

    def set_aside(self) -> list[int]:
        """Chips that left the supply but belong to nobody (neutral put-aside), per colour."""
        return list(self._aside)

    def edifices_left(self) -> list[list[int]]:
        """Unbuilt edifices per colour: ``[houses, towers, yards]`` for colours 0..3."""
        inv = self._inventory
        return [inv[3 * c : 3 * c + 3] for c in range(4)]

    def cathedral_touches(self) -> list[int]:
        """Per seat: edifices that seat built which touch the cathedral (the tie-break)."""
        return list(self._cathedral_touch)

    def buildings(self) -> list[Building]:
        """Every building, the cathedral's parts first, then edifices in build order."""
        out = []
        for bid, (shape, colour, builder, keys) in enumerate(self._rows()):
            squares = tuple(key_xy(k) for k in keys)
            if bid <= CLOCK_TOWER:
                out.append(Building(bid, ("nave", "clock tower")[bid], None, squares, None))
            else:
                out.append(Building(bid, SHAPE_NAMES[shape], colour, squares, builder))
        return out

    def _rows(self) -> Iterable[tuple[int, int, int, tuple[int, ...]]]:
        """``(shape, colour, builder, square keys)`` per building id."""
        return zip(self._bshape, self._bcolour, self._bbuilder, self._bsquares, strict=True)

    def sites(self) -> list[tuple[int, int]]:
        """Every site (empty square next to a building; in the window variant, inside the window)."""
        return [key_xy(k) for k in sorted(self._sites)]

    def scores(self) -> list[int]:
        """Final scores per seat (docs/rules.md: chips held plus the best colour once more)."""
        return list(self._over("scores", self._scores))

    def winners(self) -> list[int]:
        """Winning seats (highest score, then most edifices touching the cathedral; ties kept)."""
        return list(self._over("winners", self._winners))

    def finishing_order(self) -> list[list[int]]:
        """Groups of seats from first place to last: by score, then by edifices touching the cathedral
        (seats still tied share a group); the first group is :meth:`winners`. Only once the game is over."""
        try:
            scores = self.scores()
        except GameNotOverError:
            raise GameNotOverError("finishing_order() is only defined once the game is over") from None
        return finishing_order_from_keys(list(zip(scores, self.cathedral_touches(), strict=True)))

    @staticmethod
    def _over(query: str, value: list[int] | None) -> list[int]:
        """``value``, defined only once the game is over (``GameNotOverError`` naming ``query`` before)."""
        if value is None:
            raise GameNotOverError(f"{query}() is only defined once the game is over")
        return value

    def projected_holdings(self, seat: int) -> list[int]:
        """Chips per colour ``seat`` would hold if the game ended now: its chips plus the supply's
        leftovers of its own colours (docs/rules.md final scoring)."""
        held = list(self._held[seat])
        for c in self.rules.owned_colours(seat):
            held[c] += self._supply[c]
        return held

    def projected_scores(self) -> list[int]:
        """Per seat, the final score if the game ended now: :meth:`projected_holdings` plus the best
        colour once more. Equals :meth:`scores` once the game is over (final scoring uses it)."""
        holdings = [self.projected_holdings(seat) for seat in range(self._n)]  # once over: the chips held
        return [sum(h) + max(h) for h in holdings]

    def may_keep_cardinal(self) -> bool:
        """Whether ``C-`` is allowed in a cardinal decision: only once the cardinal stands somewhere."""
        return self.cardinal_key >= 0

    def is_cardinal_target(self, key: int) -> bool:
        """Whether the cardinal may be moved to square ``key`` now: a site, not its own square."""
        return key != self._cardinal and key in self._sites

    def cardinal_target_keys(self) -> list[int]:
        """Square keys the cardinal may be moved to now (ascending), whatever the phase."""
        card = self._cardinal
        return [k for k in sorted(self._sites) if k != card]

    def live_view(self) -> LiveView:
        """The game's state as live read-only references (:class:`LiveView`), for observation encoders."""
        return LiveView(
            self._bsquares,
            self._bshape,
            self._bcolour,
            self._sites,
            self._cardinal,
            self._supply,
            self._held,
            self._inventory,
            self._cathedral_touch,
            self._phase,
            self._current,
            self._pending,
        )

    def _is_inside(self, key: int) -> bool:
        """Whether square ``key`` lies inside the window (always, without one)."""
        return self._inside is None or key in self._inside
