"""The Kardinal rules engine: a pure implementation of the rules in ``docs/rules.md`` (no RL imports).

Usage::

    from kardinal_env.kardinal import Game, Rules

    from kardinal_env import IllegalMoveError
    game = Game(Rules(players=3, preset="german"))
    while not game.is_over:
        game.play(game.legal_moves()[0])
    game.scores(), game.winners()

A turn is a sequence of decisions by the same seat, each one string in docs/rules.md notation:

======== ============================================== =========================================
phase    who decides                                    moves offered
======== ============================================== =========================================
build    the seat on turn (seats without a legal build  ``H{c}@x,y``, ``T{c}@x,y``,
         are skipped; see :attr:`Game.current_player`)  ``Y{c}@x1,y1:x2,y2``
chip     same seat: the compensation chip after the     ``chip:{c}`` for each colour left in the
         game's first build, or one substitute chip     supply
         per touched edifice of an exhausted colour
         (``exhausted_colour="substitute"``)
cardinal same seat: placement on the first turn         ``C@x,y`` for each site (first turn), or
         (compulsory), later optional                   ``C-`` and ``C@x,y`` for each other site
over     nobody (``current_player is None``)            none
======== ============================================== =========================================

After the cardinal decision play passes to the next seat that has a legal build; if no seat has
one, the game is over and final scoring (own colours' leftovers, one colour doubled, the cathedral
tie-break) is applied.

Illegal input raises :class:`IllegalMoveError` (a ``ValueError``) whose message starts with the
rule it breaks: ``"rule 0 (placement)"``, ``"rule I"`` .. ``"rule VII"``, ``"window"``,
``"phase"``, ``"chip"``, ``"cardinal"``, ``"game over"``, or ``"malformed move"``; its ``rule``
attribute holds that name.

The game protocol (``kardinal_env.core.protocol``): :meth:`Game.finishing_order` ranks the seats by
score, then by edifices touching the cathedral (seats tied on both share a place; the first group
is :meth:`Game.winners`); :meth:`Game.determinize` is :meth:`Game.clone` (no chance, nothing hidden);
``Game(rules, seed)`` accepts a seed and ignores it.

Speed: the engine keeps incremental state instead of rescanning the board. ``_sites`` maps every
site (empty square next to a building) to a bit summary of its neighbours (bits 0-2: a house, tower
or yard touches it, the nave counting as a house and the clock tower as a tower; bits 3-6: an
edifice of colour 0-3 touches it), so rules 0 and II-V for one square are two bit tests, and a yard
is tested on the OR of its two squares' summaries.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from kardinal_env.core import backend
from kardinal_env.core.errors import GameNotOverError, IllegalMoveError
from kardinal_env.core.game_base import CoreRedirect, TurnBasedGame, resolve_rules, use_core_class
from kardinal_env.core.protocol import finishing_order_from_keys
from kardinal_env.core.records import check_replayed_result, play_record_move
from kardinal_env.kardinal.notation import (
    BUILD,
    CARDINAL,
    CHIP,
    HOUSE,
    KEY_LIMIT,
    KEY_STRIDE,
    NEIGHBOUR_STEPS,
    SHAPE_NAMES,
    TOWER,
    YARD,
    MalformedMoveError,
    format_move,
    key_text,
    key_xy,
    parse_move,
    square_key,
)
from kardinal_env.kardinal.record import make_record, parse_record
from kardinal_env.kardinal.rules import Rules

__all__ = [
    "Game",
    "IllegalMoveError",
    "Building",
    "BuildChips",
    "LiveView",
    "PHASES",
    "TOTAL_CHIPS",
    "CHIPS_PER_COLOUR",
]

PHASES = ("build", "chip", "cardinal", "over")
_BUILD_PHASE, _CHIP_PHASE, _CARDINAL_PHASE, _OVER = 0, 1, 2, 3
CHIPS_PER_COLOUR = 12
TOTAL_CHIPS = 4 * CHIPS_PER_COLOUR
EDIFICES_PER_SHAPE = 2  # per colour

_HOUSE_BIT, _TOWER_BIT, _YARD_BIT = 1, 2, 4
_SHAPE_BIT = (_HOUSE_BIT, _TOWER_BIT, _YARD_BIT)
_COLOUR_BIT = (8, 16, 32, 64)
NAVE, CLOCK_TOWER = 0, 1  # building ids of the cathedral's two parts
_NAVE_KEY = square_key(0, 0)
_CLOCK_KEY = square_key(1, 0)
_KEEP_CARDINAL = (CARDINAL, -1, -1, -1, -1)
_PLACE_CARDINAL = (CARDINAL, -1, -1)  # + (key, -1)
_CHIP_CODES = tuple((CHIP, -1, c, -1, -1) for c in range(4))
_ROMAN = ("0 (placement)", "I", "II", "III", "IV", "V", "VI", "VII")


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

    ``colours``: the colour of each regular chip it takes from the supply (one per touched edifice
    whose colour still has chips; touches that score nothing are left out); ``substitutes``: the
    substitute chips it earns (``exhausted_colour="substitute"``: one per touched edifice of an
    exhausted colour, as far as the supply still holds chips; the builder chooses their colours);
    ``set_aside``: the chips go to nobody (a neutral build under ``neutral_build_chips="put_aside"``);
    ``touches_cathedral``: the build touches the cathedral (the tie-break count). The compensation
    chip of the game's first build is not included.
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
    """Read-only live references into a game's state: the one fast path for observation encoders.

    The containers are the engine's own (no copies): never modify them, and call
    :meth:`Game.live_view` again after every move (the integers are values at the time of the call).
    Square keys as in ``kardinal_env.kardinal.notation``; building ids as in :meth:`Game.buildings`.
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


def _window_mask(window: int | None) -> bytes | None:
    if window is None:
        return None
    half = window // 2
    mask = bytearray(KEY_LIMIT)
    for x in range(-half, half + 1):
        for y in range(-half, half + 1):
            mask[square_key(x, y)] = 1
    return bytes(mask)


def use_core_game(core_class: type) -> None:
    """Have ``Game(...)`` build ``core_class`` (:class:`kardinal_env.kardinal.core_game.CoreGame`) when the
    compiled core is used (:func:`kardinal_env.core.backend.core_module`: the backend is not ``python``
    and the core is built). Called once, by :mod:`kardinal_env.kardinal.core_game`
    (:class:`kardinal_env.core.game_base.CoreRedirect`)."""
    use_core_class(Game, core_class, _core_wanted)


def _core_wanted() -> Any:
    return backend.core_module()


class Game(TurnBasedGame, metaclass=CoreRedirect):
    """One game of Kardinal. See the module docstring for phases, notation and errors.

    ``Game(rules)`` is backed by the compiled core when it is used (then it is a
    :class:`~kardinal_env.kardinal.core_game.CoreGame`, a subclass with the same public API and
    results); :meth:`Game.reference` always builds this Python engine, the readable reference."""

    #: Whether the game's state lives in the compiled core (:class:`~kardinal_env.kardinal.core_game.CoreGame`).
    compiled: ClassVar[bool] = False
    PHASE_NAMES = PHASES
    _OVER_PHASE = _OVER
    __slots__ = (
        "rules",
        "_n",
        "_seat_colours",
        "_inside",
        "_cells",
        "_bshape",
        "_bcolour",
        "_bbuilder",
        "_bsquares",
        "_sites",
        "_inventory",
        "_supply",
        "_held",
        "_aside",
        "_last_shape",
        "_last_colour",
        "_cardinal",
        "_current",
        "_phase",
        "_pending",
        "_chip_dest",
        "_moves",
        "_text_index",
        "_history",
        "_cathedral_touch",
        "_scores",
        "_winners",
    )

    def __init__(self, rules: Rules | None = None, seed: int | None = None, **options):
        # ``seed`` is part of the game protocol (a game with chance deals with it); Kardinal has no
        # chance element, so every seed gives the same game.
        self.rules = rules = resolve_rules(rules, options, Rules)
        n = rules.players
        self._n = n
        self._seat_colours = tuple(rules.seat_colours(s) for s in range(n))
        self._inside = _window_mask(rules.window)
        # Buildings: id 0 the nave, id 1 the clock tower, then edifices in build order.
        self._cells: dict[int, int] = {_NAVE_KEY: NAVE, _CLOCK_KEY: CLOCK_TOWER}
        self._bshape = [HOUSE, TOWER]
        self._bcolour = [-1, -1]
        self._bbuilder = [-1, -1]
        self._bsquares: list[tuple[int, ...]] = [(_NAVE_KEY,), (_CLOCK_KEY,)]
        self._sites: dict[int, int] = {}
        for key, bit in ((_NAVE_KEY, _HOUSE_BIT), (_CLOCK_KEY, _TOWER_BIT)):
            for step in NEIGHBOUR_STEPS:
                nb = key + step
                if nb not in self._cells and self._is_inside(nb):
                    self._sites[nb] = self._sites.get(nb, 0) | bit
        self._inventory = [EDIFICES_PER_SHAPE] * 12  # index colour * 3 + shape
        self._supply = [CHIPS_PER_COLOUR] * 4
        self._held = [[0, 0, 0, 0] for _ in range(n)]
        self._aside = [0, 0, 0, 0]
        self._last_shape = -1
        self._last_colour = -1
        self._cardinal = -1
        self._current = 0
        self._phase = _BUILD_PHASE
        self._pending = 0
        self._chip_dest = -1  # who gets the chips of a chip decision: a seat, or -1 (set aside)
        self._history: list[tuple] = []
        self._cathedral_touch = [0] * n
        self._scores: list[int] | None = None
        self._winners: list[int] | None = None
        self._text_index: dict[str, tuple] | None = None
        self._moves: list[tuple] | None = self._builds_for(0, -1)  # never empty: the cathedral has six free sites

    @classmethod
    def reference(cls, rules: Rules | None = None, seed: int | None = None, **options) -> Game:
        """A game of the Python engine, whatever the backend (``Game(...)`` may build the core-backed
        one): for lockstep comparisons and error explanations."""
        game = Game.__new__(Game)
        game.__init__(rules, seed, **options)  # type: ignore[misc]
        return game

    # ------------------------------------------------------------------ public state
    # current_player, phase, is_over, num_players and move_count come from TurnBasedGame.

    @property
    def history(self) -> list[str]:
        """Every move played so far, in notation."""
        return [format_move(c) for c in self._history]

    @property
    def history_codes(self) -> list[tuple]:
        """Every move played so far, as move codes (what ``history`` formats; a copy)."""
        return list(self._history)

    @property
    def cardinal(self) -> tuple[int, int] | None:
        """Square of the cardinal, or ``None`` before it is placed."""
        return None if self._cardinal < 0 else key_xy(self._cardinal)

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
        for bid, shape in enumerate(self._bshape):
            squares = tuple(key_xy(k) for k in self._bsquares[bid])
            if bid == NAVE:
                out.append(Building(bid, "nave", None, squares, None))
            elif bid == CLOCK_TOWER:
                out.append(Building(bid, "clock tower", None, squares, None))
            else:
                out.append(Building(bid, SHAPE_NAMES[shape], self._bcolour[bid], squares, self._bbuilder[bid]))
        return out

    def sites(self) -> list[tuple[int, int]]:
        """Every site (empty square next to a building; in the window variant, inside the window)."""
        return [key_xy(k) for k in sorted(self._sites)]

    def scores(self) -> list[int]:
        """Final scores per seat (docs/rules.md: chips held plus the best colour once more)."""
        if self._scores is None:
            raise GameNotOverError("scores() is only defined once the game is over")
        return list(self._scores)

    def winners(self) -> list[int]:
        """Winning seats (highest score, then most edifices touching the cathedral; ties kept)."""
        if self._winners is None:
            raise GameNotOverError("winners() is only defined once the game is over")
        return list(self._winners)

    def finishing_order(self) -> list[list[int]]:
        """Groups of seats from first place to last (docs/rules.md): by score, then by edifices
        touching the cathedral; seats still tied share a group. The first group is :meth:`winners`.
        Only once the game is over."""
        if self._scores is None:
            raise GameNotOverError("finishing_order() is only defined once the game is over")
        return finishing_order_from_keys(list(zip(self._scores, self._cathedral_touch, strict=True)))

    def determinize(self, seat: int, rng: random.Random) -> Game:
        """Kardinal has neither chance nor hidden information: every seat sees the whole game, so its
        only world is this one (:meth:`clone`; ``seat`` and ``rng`` are not used)."""
        return self.clone()

    def chips_held(self, seat: int) -> int:
        """Total chips ``seat`` holds now."""
        return sum(self._held[seat])

    def projected_holdings(self, seat: int) -> list[int]:
        """Chips per colour ``seat`` would hold if the game ended now: its chips plus the supply's
        leftovers of its own colours (docs/rules.md final scoring)."""
        held = list(self._held[seat])
        supply = self._supply
        for c in self.rules.owned_colours(seat):
            held[c] += supply[c]
        return held

    def projected_scores(self) -> list[int]:
        """Per seat, the final score if the game ended now: :meth:`projected_holdings` plus the best
        colour once more. Equals :meth:`scores` once the game is over (final scoring uses it)."""
        if self._scores is not None:
            return list(self._scores)
        out = []
        for seat in range(self._n):
            h = self.projected_holdings(seat)
            out.append(sum(h) + max(h))
        return out

    @property
    def cardinal_key(self) -> int:
        """Square key of the cardinal (``kardinal_env.kardinal.notation``), ``-1`` before it is placed."""
        return self._cardinal

    def may_keep_cardinal(self) -> bool:
        """Whether ``C-`` is allowed in a cardinal decision: only once the cardinal stands somewhere."""
        return self._cardinal >= 0

    def is_cardinal_target(self, key: int) -> bool:
        """Whether the cardinal may be moved to square ``key`` now: a site, not its own square."""
        return key != self._cardinal and key in self._sites

    def cardinal_target_keys(self) -> list[int]:
        """Square keys the cardinal may be moved to now (ascending), whatever the phase."""
        card = self._cardinal
        return [k for k in sorted(self._sites) if k != card]

    def builds_for(self, seat: int, ignore_cardinal: bool = False) -> list[tuple]:
        """Every build ``seat`` could make in the current position (move codes), as if it were on turn
        now; with ``ignore_cardinal`` as if the cardinal stood nowhere (rule I lifted). A new list."""
        return self._builds_for(seat, -1 if ignore_cardinal else self._cardinal)

    def next_builder(self, ignore_cardinal: bool = False) -> tuple[int | None, list[tuple]]:
        """The seat that builds after the current seat's turn and its builds: the first following
        seat (in turn order, wrapping round to the current seat itself) that has a legal build;
        ``(None, [])`` if none has, which ends the game. Seats passed over are skipped. With
        ``ignore_cardinal`` the cardinal is taken as standing nowhere (where will it hurt?)."""
        n = self._n
        seat = self._current
        card = -1 if ignore_cardinal else self._cardinal
        for i in range(1, n + 1):
            nxt = (seat + i) % n
            moves = self._builds_for(nxt, card)
            if moves:
                return nxt, moves
        return None, []

    def build_chips(self, code: tuple) -> BuildChips:
        """What the build ``code`` (a build move code, legal or not) would score for the seat on turn
        in the current position; see :class:`BuildChips`. The engine scores every build with it."""
        _, _shape, colour, k1, k2 = code
        colours, substitutes, set_aside, cathedral = self._score(
            colour, self._touched((k1,) if k2 < 0 else (k1, k2)), list(self._supply)
        )
        return BuildChips(tuple(colours), substitutes, set_aside, cathedral)

    def live_view(self) -> LiveView:
        """The game's state as live read-only references (:class:`LiveView`): for observation
        encoders that must not copy. Everything else should use the other public methods."""
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

    # ------------------------------------------------------------------ moves
    def legal_move_codes(self) -> list[tuple]:
        """Legal moves of the current decision as internal codes (see ``kardinal_env.kardinal.notation``).

        The list is shared with the engine's cache: do not modify it.
        """
        if self._moves is None:
            self._moves = self._generate()
        return self._moves

    def legal_moves(self) -> list[str]:
        """Legal moves of the current decision in docs/rules.md notation (empty once the game is over)."""
        index = self._text_index
        if index is None:
            index = self._text_index = {format_move(c): c for c in self.legal_move_codes()}
        return list(index)

    def play(self, move: str) -> None:
        """Play one move in notation; :class:`IllegalMoveError` names the rule it breaks."""
        index = self._text_index
        code = index.get(move) if index is not None and isinstance(move, str) else None
        if code is None:
            code = self._checked_code(move)
        self._apply(code)

    def is_legal_code(self, code: tuple) -> bool:
        """Whether ``code`` is one of :meth:`legal_move_codes` (a cardinal decision is answered from
        the site table without listing the moves)."""
        if self._phase == _CARDINAL_PHASE:
            if code == _KEEP_CARDINAL:
                return self.may_keep_cardinal()
            if not (isinstance(code, tuple) and len(code) == 5 and code[:3] == _PLACE_CARDINAL and code[4] == -1):
                return False
            return self.is_cardinal_target(code[3])
        return code in self.legal_move_codes()

    def play_code(self, code: tuple) -> None:
        """Play a legal move code (as listed by :meth:`legal_move_codes`). Checked like :meth:`play`."""
        if not self.is_legal_code(code):
            self._raise_illegal(code, format_move(code))
        self._apply(code)

    def apply_legal_code(self, code: tuple) -> None:
        """Play a move code the caller *knows* is legal (e.g. checked against a mask built from
        :meth:`legal_move_codes` for this decision). Skips the legality check: the fast path for
        environments and search. Anything else must use :meth:`play` or :meth:`play_code`."""
        self._apply(code)

    def clone(self) -> Game:
        """An independent copy (for search)."""
        g = Game.__new__(Game)  # not Game(): that may build the core-backed game
        g.rules = self.rules
        g._n = self._n
        g._seat_colours = self._seat_colours
        g._inside = self._inside
        g._cells = dict(self._cells)
        g._bshape = list(self._bshape)
        g._bcolour = list(self._bcolour)
        g._bbuilder = list(self._bbuilder)
        g._bsquares = list(self._bsquares)
        g._sites = dict(self._sites)
        g._inventory = list(self._inventory)
        g._supply = list(self._supply)
        g._held = [list(h) for h in self._held]
        g._aside = list(self._aside)
        g._last_shape = self._last_shape
        g._last_colour = self._last_colour
        g._cardinal = self._cardinal
        g._current = self._current
        g._phase = self._phase
        g._pending = self._pending
        g._chip_dest = self._chip_dest
        g._moves = self._moves  # cached lists are replaced, never mutated: safe to share
        g._text_index = self._text_index
        g._history = list(self._history)
        g._cathedral_touch = list(self._cathedral_touch)
        g._scores = self._scores
        g._winners = self._winners
        return g

    # ------------------------------------------------------------------ records
    def to_record(self) -> dict:
        """This game so far as a ``kardinal-record/1`` dict (``result`` is None until it is over)."""
        over = self.is_over
        return make_record(self.rules, self.history, self.scores() if over else None, self.winners() if over else None)

    @classmethod
    def from_record(cls, record: dict, source: str = "record") -> Game:
        """Replay a ``kardinal-record/1`` dict (finished or partial) and return the game;
        :class:`~kardinal_env.core.errors.RecordError` names the bad field, or the move index and rule."""
        parts = parse_record(record, source)
        game = cls(parts.rules)
        for i, move in enumerate(parts.moves):
            play_record_move(game, i, move, source)
        check_replayed_result(parts.result, game, source)
        return game

    # ------------------------------------------------------------------ text
    def __repr__(self) -> str:
        return (
            f"Game(players={self._n}, phase={self.phase!r}, current_player={self.current_player}, "
            f"moves={len(self._history)})"
        )

    # ================================================================== internals
    def _is_inside(self, key: int) -> bool:
        return self._inside is None or bool(self._inside[key])

    def _builds_for(self, seat: int, card: int) -> list[tuple]:
        """Every legal build of ``seat`` in the current position (as move codes), the cardinal
        standing on key ``card`` (``-1``: nowhere)."""
        last_shape, last_colour = self._last_shape, self._last_colour
        inv = self._inventory
        sites = self._sites
        out = []
        pairs = None
        for c in self._seat_colours[seat]:
            if c == last_colour:  # rule VII
                continue
            cbit = _COLOUR_BIT[c]
            base = 3 * c
            if inv[base] and last_shape != HOUSE:  # rule VI
                forbid = _HOUSE_BIT | cbit
                out += [(BUILD, HOUSE, c, k, -1) for k, m in sites.items() if not m & forbid and k != card]
            if inv[base + 1] and last_shape != TOWER:
                forbid = _TOWER_BIT | cbit
                out += [
                    (BUILD, TOWER, c, k, -1)
                    for k, m in sites.items()
                    if m & _HOUSE_BIT and not m & forbid and k != card
                ]
            if inv[base + 2] and last_shape != YARD:
                if pairs is None:
                    pairs = self._yard_squares(card)
                out += [(BUILD, YARD, c, a, b) for a, b, m in pairs if not m & cbit]
        return out

    def _yard_squares(self, card: int) -> list[tuple[int, int, int]]:
        """Pairs of adjacent free squares a yard may use under rules 0, I, III and IV, whatever its colour.

        Returns ``(low key, high key, neighbour summary)``: at least one square is a site, neither
        holds the cardinal, together they touch a house and no yard. Only rule V (colour) is left
        to the caller.
        """
        sites = self._sites
        site_summary = sites.get
        cells = self._cells
        inside = self._inside
        out: list[tuple[int, int, int]] = []
        append = out.append
        for a, ma in sites.items():
            if ma & _YARD_BIT or a == card:
                continue
            for b in (a + 1, a + KEY_STRIDE):  # the square to the right / above
                mb = site_summary(b)
                if mb is None:  # a free non-site square: the house must touch a
                    if ma & _HOUSE_BIT and b not in cells and (inside is None or inside[b]):
                        append((a, b, ma))
                elif not mb & _YARD_BIT and b != card and (ma | mb) & _HOUSE_BIT:
                    append((a, b, ma | mb))
            if ma & _HOUSE_BIT:  # with a free non-site square to the left / below (site pairs come above)
                for b in (a - 1, a - KEY_STRIDE):
                    if b not in sites and b not in cells and (inside is None or inside[b]):
                        append((b, a, ma))
        return out

    def _generate(self) -> list[tuple]:
        phase = self._phase
        if phase == _BUILD_PHASE:
            return self._builds_for(self._current, self._cardinal)
        if phase == _CHIP_PHASE:
            return [_CHIP_CODES[c] for c in range(4) if self._supply[c]]
        if phase == _CARDINAL_PHASE:
            moves = [(CARDINAL, -1, -1, k, -1) for k in self.cardinal_target_keys()]
            if self.may_keep_cardinal():
                moves.insert(0, _KEEP_CARDINAL)
            return moves
        return []

    def _apply(self, code: tuple) -> None:
        kind = code[0]
        if kind == BUILD:
            self._apply_build(code)
        elif kind == CHIP:
            c = code[2]
            self._supply[c] -= 1
            dest = self._chip_dest
            (self._aside if dest < 0 else self._held[dest])[c] += 1
            self._pending -= 1
            if not self._pending or not any(self._supply):
                self._pending = 0
                self._chip_dest = -1
                self._phase = _CARDINAL_PHASE
        else:
            if code[3] >= 0:
                self._cardinal = code[3]
            self._end_turn()
        self._history.append(code)
        if kind != CARDINAL:
            self._moves = None
        self._text_index = None

    def _touched(self, squares: tuple[int, ...]) -> set[int]:
        """Ids of the buildings next to ``squares`` (the cathedral's parts included)."""
        cells = self._cells
        touched = set()
        for k in squares:
            for step in NEIGHBOUR_STEPS:
                b = cells.get(k + step)
                if b is not None:
                    touched.add(b)
        return touched

    def _score(self, colour: int, touched: set[int], supply: list[int]) -> tuple[list[int], int, bool, bool]:
        """docs/rules.md Scoring of a build of ``colour`` touching the buildings ``touched`` (the one
        place this rule lives; :meth:`build_chips` and :meth:`_apply_build` both use it): ``(colours
        of the regular chips, substitute chips, set aside, touches the cathedral)``. Takes the regular
        chips out of ``supply`` (the engine's own when building, a copy when asking)."""
        rules = self.rules
        neutral = rules.has_neutral
        skip_neutral_touch = neutral and rules.neutral_touch_chips == "none"
        bcolour = self._bcolour
        colours = []
        exhausted = 0
        touches_cathedral = False
        for b in touched:
            if b <= CLOCK_TOWER:
                touches_cathedral = True
                continue
            c = bcolour[b]
            if skip_neutral_touch and c == 3:
                continue
            if supply[c]:
                supply[c] -= 1
                colours.append(c)
            else:
                exhausted += 1
        substitutes = 0
        if exhausted and rules.exhausted_colour == "substitute":
            substitutes = min(exhausted, sum(supply))
        set_aside = neutral and colour == 3 and rules.neutral_build_chips == "put_aside"
        return colours, substitutes, set_aside, touches_cathedral

    def _apply_build(self, code: tuple) -> None:
        _, shape, colour, k1, k2 = code
        cells = self._cells
        sites = self._sites
        bid = len(self._bshape)
        squares: tuple[int, ...] = (k1,) if k2 < 0 else (k1, k2)
        supply = self._supply
        colours, substitutes, set_aside, touches_cathedral = self._score(colour, self._touched(squares), supply)
        for k in squares:
            cells[k] = bid
            sites.pop(k, None)
        bit = _SHAPE_BIT[shape] | _COLOUR_BIT[colour]
        inside = self._inside
        for k in squares:
            for step in NEIGHBOUR_STEPS:
                nb = k + step
                if nb in cells or (inside is not None and not inside[nb]):
                    continue
                sites[nb] = sites.get(nb, 0) | bit
        seat = self._current
        self._bshape.append(shape)
        self._bcolour.append(colour)
        self._bbuilder.append(seat)
        self._bsquares.append(squares)
        self._inventory[3 * colour + shape] -= 1
        self._last_shape = shape
        self._last_colour = colour
        dest = self._aside if set_aside else self._held[seat]
        for c in colours:
            dest[c] += 1
        if touches_cathedral:
            self._cathedral_touch[seat] += 1
        pending = 1 if bid == 2 else substitutes  # bid 2 is the game's first edifice
        if pending and any(supply):
            self._pending = pending
            self._chip_dest = -1 if set_aside else seat  # who gets the chosen chips
            self._phase = _CHIP_PHASE
        else:
            self._phase = _CARDINAL_PHASE

    def _end_turn(self) -> None:
        seat, moves = self.next_builder()
        if seat is None:
            self._finish()
            return
        self._current = seat
        self._phase = _BUILD_PHASE
        self._moves = moves

    def _finish(self) -> None:
        rules = self.rules
        supply = self._supply
        scores = self.projected_scores()
        self._held = [self.projected_holdings(seat) for seat in range(self._n)]
        for seat in range(self._n):
            for c in rules.owned_colours(seat):
                supply[c] = 0
        if rules.has_neutral:
            self._aside[3] += supply[3]
            supply[3] = 0
        best = max(scores)
        tied = [s for s in range(self._n) if scores[s] == best]
        most = max(self._cathedral_touch[s] for s in tied)
        self._scores = scores
        self._winners = [s for s in tied if self._cathedral_touch[s] == most]
        self._phase = _OVER
        self._moves = []

    # ------------------------------------------------------------------ diagnosis
    def _checked_code(self, move: object) -> tuple:
        try:
            code = parse_move(move)
        except MalformedMoveError as exc:
            raise IllegalMoveError(str(exc), "malformed move", move) from None
        if code not in self.legal_move_codes():
            self._raise_illegal(code, move)
        return code

    def _raise_illegal(self, code: tuple, move: object) -> None:
        rule, reason = self._explain(code)
        raise IllegalMoveError(f"{rule}: {reason} ({move!r})", rule, move)

    def _describe(self, bid: int) -> str:
        if bid == NAVE:
            return "the nave"
        if bid == CLOCK_TOWER:
            return "the clock tower"
        squares = ":".join(key_text(k) for k in self._bsquares[bid])
        return f"{SHAPE_NAMES[self._bshape[bid]]} {self._bcolour[bid]} at {squares}"

    def _explain(self, code: tuple) -> tuple[str, str]:
        """(rule, reason) for a parsed move that is not legal now."""
        phase = self._phase
        kind = code[0]
        if phase == _OVER:
            return "game over", "the game is over; no move is legal"
        if kind != phase:
            hints = {
                _BUILD_PHASE: "a build (H/T/Y)",
                _CHIP_PHASE: "a chip choice chip:{c}",
                _CARDINAL_PHASE: "a cardinal decision C@x,y or C-",
            }
            return (
                "phase",
                f"seat {self._current} must now make {hints[phase]}, not a {('build', 'chip', 'cardinal')[kind]}",
            )
        if phase == _CHIP_PHASE:
            return "chip", f"no chip of colour {code[2]} is left in the supply"
        if phase == _CARDINAL_PHASE:
            k = code[3]
            if k < 0:
                return "cardinal", "the first player must place the cardinal on the first turn; C- is not allowed"
            if not self._is_inside(k):
                return "window", f"{key_text(k)} lies outside the {self.rules.window}x{self.rules.window} window"
            if k == self._cardinal:
                return "cardinal", f"the cardinal already stands on {key_text(k)}; play C- to leave it there"
            if k in self._cells:
                return "cardinal", f"{key_text(k)} is occupied by {self._describe(self._cells[k])}, not a site"
            return "cardinal", f"{key_text(k)} is not a site (an empty square next to a building)"
        return self._explain_build(code)

    def _explain_build(self, code: tuple) -> tuple[str, str]:
        _, shape, colour, k1, k2 = code
        seat = self._current
        name = SHAPE_NAMES[shape]
        squares = (k1,) if k2 < 0 else (k1, k2)
        where = ":".join(key_text(k) for k in squares)
        what = f"{name} {colour} at {where}"
        placement = "rule " + _ROMAN[0]
        if colour not in self._seat_colours[seat]:
            return (
                placement,
                f"seat {seat} may not build colour {colour} (its colours: {list(self._seat_colours[seat])})",
            )
        if not self._inventory[3 * colour + shape]:
            return placement, f"no {name} of colour {colour} is left to build"
        for k in squares:
            if not self._is_inside(k):
                return "window", f"{key_text(k)} lies outside the {self.rules.window}x{self.rules.window} window"
            if k in self._cells:
                return placement, f"{key_text(k)} is occupied by {self._describe(self._cells[k])}"
        touched = []
        for k in squares:
            for step in NEIGHBOUR_STEPS:
                b = self._cells.get(k + step)
                if b is not None and b not in touched:
                    touched.append(b)
        if not touched:
            return placement, f"{what} touches no building"
        if self._cardinal in squares:
            return "rule I", f"the cardinal stands on {key_text(self._cardinal)}"
        houses = [b for b in touched if self._bshape[b] == HOUSE]
        if shape == TOWER and not houses:
            return "rule II", f"{what} touches no house (the nave counts as a house)"
        if shape == YARD and not houses:
            return "rule III", f"{what} touches no house (the nave counts as a house)"
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
