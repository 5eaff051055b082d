"""The Kardinal rules engine: a pure implementation of ``docs/rules.md`` (standard library only; the package docstring
plays a game with it).

A turn is a sequence of decisions by the same seat, each one string in docs/rules.md notation:

======== =========================================================== ===================================================
phase    who decides                                                 moves offered
======== =========================================================== ===================================================
build    the seat on turn (seats without a legal build are skipped;  ``H{c}@x,y``, ``T{c}@x,y``, ``Y{c}@x1,y1:x2,y2``
         see :attr:`Game.current_player`)
chip     same seat: the compensation chip after the game's first     ``chip:{c}`` for each colour left in the supply
         build, or one substitute chip per touched edifice of an
         exhausted colour (``exhausted_colour="substitute"``)
cardinal same seat: placement on the first turn (compulsory), later  ``C@x,y`` for each site (first turn), or ``C-`` and
         optional                                                    ``C@x,y`` for each other site
over     nobody (``current_player is None``)                         none
======== =========================================================== ===================================================

After the cardinal decision play passes to the next seat with a legal build; if none has one, the game is over and final
scoring (own colours' leftovers, one colour doubled, the cathedral tie-break) applies.

Illegal input raises :class:`IllegalMoveError` (a ``ValueError``) whose message starts with the rule it breaks (its
``rule`` attribute): ``"rule 0 (placement)"``, ``"rule I"`` .. ``"rule VII"``, ``"window"``, ``"phase"``, ``"chip"``,
``"cardinal"``, ``"game over"`` or ``"malformed move"``.

The game protocol (``kardinal_env.core.protocol``): :meth:`Game.finishing_order` ranks by score, then by edifices
touching the cathedral (seats tied on both share a place; the first group is :meth:`Game.winners`);
:meth:`Game.determinize` is :meth:`Game.clone`; ``Game(rules, seed)`` ignores the seed (no chance).

This module plays the rules move by move; :mod:`kardinal_env.kardinal.state` holds the fields and the read-only queries
(mixed into :class:`Game`, with the incremental site table that makes rules 0 and II-V two bit tests per square),
:mod:`kardinal_env.kardinal.explain` the diagnosis of an illegal move.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.core.game_base import TurnBasedGame, core_subclass, resolve_rules
from kardinal_env.core.protocol import finishing_order_from_keys
from kardinal_env.core.records import check_replayed_result, play_record_move
from kardinal_env.kardinal.explain import Explain
from kardinal_env.kardinal.notation import (
    BUILD,
    CARDINAL,
    CHIP,
    HOUSE,
    KEEP_CARDINAL,
    KEY_STRIDE,
    NEIGHBOUR_STEPS,
    TOWER,
    YARD,
    MalformedMoveError,
    format_move,
    parse_move,
    window_keys,
)
from kardinal_env.kardinal.record import make_record, parse_record
from kardinal_env.kardinal.rules import Rules
from kardinal_env.kardinal.state import (
    BUILD_PHASE,
    CARDINAL_PHASE,
    CHIP_PHASE,
    CHIPS_PER_COLOUR,
    CLOCK_KEY,
    CLOCK_TOWER,
    COLOUR_BIT,
    EDIFICES_PER_SHAPE,
    HOUSE_BIT,
    NAVE,
    NAVE_KEY,
    OVER,
    PHASES,
    SHAPE_BIT,
    TOWER_BIT,
    YARD_BIT,
    BuildChips,
    GameState,
)

__all__ = ["Game", "IllegalMoveError", "action_codec"]

_PLACE_CARDINAL = (CARDINAL, -1, -1)  # + (key, -1); key -1: C-
_CHIP_CODES = tuple((CHIP, -1, c, -1, -1) for c in range(4))
_TEXTS: dict[tuple, str] = {}  # move code -> notation (legal_moves)
#: The fields :meth:`Game.clone` copies (one level deep; ``_held`` two); it shares the others.
_MUTABLE: tuple[str, ...] = ("_cells", "_sites", "_bshape", "_bcolour", "_bbuilder", "_bsquares", "_inventory")
_MUTABLE += ("_supply", "_aside", "_history", "_cathedral_touch")


def action_codec(rules: Rules) -> Any:
    """The :class:`~kardinal_env.kardinal.actions.ActionCodec` of ``rules``, kept on it (imported on first
    use: the engine needs only the standard library)."""
    codec = rules.__dict__.get("_action_codec")
    if codec is None:
        from kardinal_env.kardinal.actions import ActionCodec

        codec = ActionCodec(rules)
        object.__setattr__(rules, "_action_codec", codec)  # Rules is frozen: a cache, not a field
    return codec


class Game(TurnBasedGame, Explain):
    """One game of Kardinal (see the module docstring). ``Game(rules)`` is a
    :class:`~kardinal_env.kardinal.core_game.CoreGame` (same API and results) when the compiled core is
    used; :meth:`Game.reference` always builds this Python engine, the readable reference."""

    #: Whether the game's state lives in the compiled core (:class:`~kardinal_env.kardinal.core_game.CoreGame`).
    compiled: ClassVar[bool] = False
    PHASE_NAMES = PHASES
    _OVER_PHASE = OVER
    __slots__ = ()  # the fields are GameState's

    def __new__(cls, rules: Rules | None = None, seed: int | None = None, *, backend: str | None = None, **options):
        return object.__new__(core_subclass(cls, Game, backend, "kardinal_env.kardinal.core_game"))

    def __getnewargs_ex__(self) -> tuple[tuple, dict]:
        return (), {"backend": "python"}  # unpickling rebuilds the class it was, never redirected

    def __init__(self, rules: Rules | None = None, seed: int | None = None, *, backend: str | None = None, **options):
        # ``seed`` is the game protocol's; Kardinal has no chance, so every seed gives the same game.
        self.rules = rules = resolve_rules(rules, options, Rules)
        self._n = n = rules.players
        self._seat_colours = tuple(rules.seat_colours(s) for s in range(n))
        self._inside = None if rules.window is None else frozenset(window_keys(rules.window))
        # Buildings: id 0 the nave, id 1 the clock tower, then edifices in build order.
        self._cells = {NAVE_KEY: NAVE, CLOCK_KEY: CLOCK_TOWER}
        self._bshape = [HOUSE, TOWER]
        self._bcolour = [-1, -1]
        self._bbuilder = [-1, -1]
        self._bsquares = [(NAVE_KEY,), (CLOCK_KEY,)]
        self._sites = {}
        self._add_sites((NAVE_KEY,), HOUSE_BIT)
        self._add_sites((CLOCK_KEY,), TOWER_BIT)
        self._inventory = [EDIFICES_PER_SHAPE] * 12  # index colour * 3 + shape
        self._supply = [CHIPS_PER_COLOUR] * 4
        self._held = [[0, 0, 0, 0] for _ in range(n)]
        self._aside = [0, 0, 0, 0]
        self._last_shape = self._last_colour = self._cardinal = self._chip_dest = -1
        self._current = self._pending = 0
        self._phase = BUILD_PHASE
        self._history = []
        self._cathedral_touch = [0] * n
        self._scores = self._winners = self._text_index = self._action_index = None
        self._moves = self._builds_for(0, -1)  # never empty: the cathedral has six free sites

    @classmethod
    def reference(cls, rules: Rules | None = None, seed: int | None = None, **options) -> Game:
        """A game of the Python engine whatever the backend (lockstep comparisons, error explanations)."""
        return Game(rules, seed, backend="python", **options)

    # ------------------------------------------------------------------ queries that apply the rules
    # (the read-only ones are GameState's; current_player, phase, is_over, ... TurnBasedGame's)

    def determinize(self, seat: int, rng: random.Random) -> Game:
        """:meth:`clone`: no chance, nothing hidden, so a seat's only world is this one."""
        return self.clone()

    def builds_for(self, seat: int, ignore_cardinal: bool = False) -> list[tuple]:
        """Every build (move codes, a new list) ``seat`` could make now as if on turn; with
        ``ignore_cardinal`` as if the cardinal stood nowhere (rule I lifted)."""
        return self._builds_for(seat, -1 if ignore_cardinal else self._cardinal)

    def next_builder(self, ignore_cardinal: bool = False) -> tuple[int | None, list[tuple]]:
        """``(seat, its builds)`` of the first following seat (wrapping round to the current one) with a
        legal build, who builds after this turn; ``(None, [])`` if none has (the game ends). With
        ``ignore_cardinal`` as if the cardinal stood nowhere."""
        card = -1 if ignore_cardinal else self._cardinal
        for i in range(1, self._n + 1):
            seat = (self._current + i) % self._n
            if moves := self._builds_for(seat, card):
                return seat, moves
        return None, []

    def build_chips(self, code: tuple) -> BuildChips:
        """What the build ``code`` (legal or not) would score for the seat on turn now (:class:`BuildChips`)."""
        _, _shape, colour, k1, k2 = code
        return self._score(colour, self._touched((k1,) if k2 < 0 else (k1, k2)), list(self._supply))

    # ------------------------------------------------------------------ moves
    def legal_move_codes(self) -> list[tuple]:
        """Legal moves of the current decision as move codes (the engine's cached list: do not modify it)."""
        if self._moves is None:
            self._moves = self._generate()
        return self._moves

    def legal_moves(self) -> list[str]:
        """Legal moves of the current decision in docs/rules.md notation (empty once the game is over)."""
        index = self._text_index
        if index is None:
            texts = _TEXTS  # a code's notation is formatted once per process (the core shares its tuples)
            if len(texts) > 200_000:
                texts.clear()
            index = self._text_index = {}
            for code in self.legal_move_codes():
                if (text := texts.get(code)) is None:
                    text = texts[code] = format_move(code)
                index[text] = code
        return list(index)

    def play(self, move: str) -> None:
        """Play one move in notation; :class:`IllegalMoveError` names the rule it breaks."""
        index = self._text_index
        code = index.get(move) if index is not None and isinstance(move, str) else None
        if code is None:
            try:
                code = parse_move(move)
            except MalformedMoveError as exc:
                raise IllegalMoveError(str(exc), "malformed move", move) from None
            if code not in self.legal_move_codes():
                self._raise_illegal(code, move)  # the rule it breaks: Explain (kardinal_env.kardinal.explain)
        self._apply(code)

    # ------------------------------------------------------------------ action ids (the game protocol)
    @property
    def num_actions(self) -> int:
        """``17·W² + 5`` for the rules' window ``W`` (:mod:`kardinal_env.kardinal.actions`)."""
        return action_codec(self.rules).num_actions

    def legal_actions(self) -> Any:
        """The deciding seat's legal action ids in the order of :meth:`legal_moves`: a new list (the
        core-backed game gives an ``int64`` array)."""
        index = self._action_index
        if index is None:
            codes = self.legal_move_codes()
            ids = action_codec(self.rules).actions_of_codes(codes, self._current) if codes else []
            index = self._action_index = dict(zip(ids, codes, strict=True))
        return list(index)

    def apply_action(self, action: int) -> None:
        """Play the move of ``action`` for the deciding seat; :class:`IllegalMoveError` names the rule
        otherwise (``"action"`` for anything but an id of ``Discrete(num_actions)``)."""
        index = self._action_index
        code = index.get(action) if index is not None and type(action) is int else None
        if code is None:  # not listed yet, not a plain int, or not legal: decode and check
            self.play_code(self._code_of(action))
        else:
            self._apply(code)

    def action_to_string(self, action: int) -> str:
        return format_move(self._code_of(action))

    def string_to_action(self, move: str) -> int:
        return action_codec(self.rules).encode(self, move)

    def _code_of(self, action: object) -> tuple:
        """The move code of an action id for the deciding seat (``IllegalMoveError`` otherwise)."""
        return action_codec(self.rules).code_of(self, action)

    def is_legal_code(self, code: tuple) -> bool:
        """Whether ``code`` is one of :meth:`legal_move_codes` (a cardinal move: from the site table)."""
        if self._phase == CARDINAL_PHASE:
            if not (isinstance(code, tuple) and len(code) == 5 and code[:3] == _PLACE_CARDINAL and code[4] == -1):
                return False
            return self.may_keep_cardinal() if code[3] == -1 else self.is_cardinal_target(code[3])  # C- or C@
        return code in self.legal_move_codes()

    def play_code(self, code: tuple) -> None:
        """Play a legal move code, checked like :meth:`play`."""
        if not self.is_legal_code(code):
            self._raise_illegal(code, format_move(code))
        self._apply(code)

    def clone(self) -> Game:
        """An independent copy (for search)."""
        g = object.__new__(Game)  # not Game(): that may build the core-backed game
        for name in GameState.__slots__:  # values, and caches that are replaced, never mutated: shared
            setattr(g, name, getattr(self, name))
        for name in _MUTABLE:
            setattr(g, name, getattr(self, name).copy())
        g._held = [list(h) for h in self._held]
        return g

    # ------------------------------------------------------------------ records
    def to_record(self) -> dict:
        """This game so far as a ``kardinal-record/1`` dict (``result`` is None until it is over)."""
        over = self.is_over
        return make_record(self.rules, self.history, self.scores() if over else None, self.winners() if over else None)

    @classmethod
    def from_record(cls, record: dict, source: str = "record") -> Game:
        """The game of a ``kardinal-record/1`` dict (finished or partial); ``RecordError`` names the bad
        field, or the move index and rule."""
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
            cbit = COLOUR_BIT[c]
            base = 3 * c
            if inv[base] and last_shape != HOUSE:  # rule VI
                forbid = HOUSE_BIT | cbit
                out += [(BUILD, HOUSE, c, k, -1) for k, m in sites.items() if not m & forbid and k != card]
            if inv[base + 1] and last_shape != TOWER:
                forbid = TOWER_BIT | cbit
                out += [
                    (BUILD, TOWER, c, k, -1) for k, m in sites.items() if m & HOUSE_BIT and not m & forbid and k != card
                ]
            if inv[base + 2] and last_shape != YARD:
                if pairs is None:
                    pairs = self._yard_squares(card)
                out += [(BUILD, YARD, c, a, b) for a, b, m in pairs if not m & cbit]
        return out

    def _yard_squares(self, card: int) -> list[tuple[int, int, int]]:
        """``(low key, high key, neighbour summary)`` of the square pairs a yard of any colour may use
        (rules 0, I, III, IV: a site among them, no cardinal, a house and no yard touched; rule V is the caller's)."""
        sites = self._sites
        site_summary = sites.get
        cells = self._cells
        inside = self._inside
        out: list[tuple[int, int, int]] = []
        append = out.append
        for a, ma in sites.items():
            if ma & YARD_BIT or a == card:
                continue
            for b in (a + 1, a + KEY_STRIDE):  # the square to the right / above
                mb = site_summary(b)
                if mb is None:  # a free non-site square: the house must touch a
                    if ma & HOUSE_BIT and b not in cells and (inside is None or b in inside):
                        append((a, b, ma))
                elif not mb & YARD_BIT and b != card and (ma | mb) & HOUSE_BIT:
                    append((a, b, ma | mb))
            if ma & HOUSE_BIT:  # with a free non-site square to the left / below (site pairs come above)
                for b in (a - 1, a - KEY_STRIDE):
                    if b not in sites and b not in cells and (inside is None or b in inside):
                        append((b, a, ma))
        return out

    def _generate(self) -> list[tuple]:
        phase = self._phase
        if phase == BUILD_PHASE:
            return self._builds_for(self._current, self._cardinal)
        if phase == CHIP_PHASE:
            return [_CHIP_CODES[c] for c in range(4) if self._supply[c]]
        if phase == CARDINAL_PHASE:
            keep = [KEEP_CARDINAL] if self.may_keep_cardinal() else []
            return keep + [(CARDINAL, -1, -1, k, -1) for k in self.cardinal_target_keys()]
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
                self._phase = CARDINAL_PHASE
        else:
            if code[3] >= 0:
                self._cardinal = code[3]
            self._end_turn()
        self._history.append(code)
        if kind != CARDINAL:
            self._moves = None
        self._text_index = self._action_index = None

    def _touched(self, squares: tuple[int, ...]) -> set[int]:
        """Ids of the buildings next to ``squares`` (the cathedral's parts included)."""
        cells = self._cells
        return {cells[k + step] for k in squares for step in NEIGHBOUR_STEPS if k + step in cells}

    def _score(self, colour: int, touched: set[int], supply: list[int]) -> BuildChips:
        """docs/rules.md Scoring, the one place it lives: the :class:`BuildChips` of a build of ``colour`` touching
        ``touched``; takes the chips out of ``supply``."""
        rules = self.rules
        neutral = rules.has_neutral
        skip_neutral_touch = neutral and rules.neutral_touch_chips == "none"
        bcolour = self._bcolour
        colours = []
        exhausted = 0
        for b in touched:
            c = bcolour[b]
            if b <= CLOCK_TOWER or skip_neutral_touch and c == 3:  # the cathedral has no colour
                continue
            if supply[c]:
                supply[c] -= 1
                colours.append(c)
            else:
                exhausted += 1
        substitutes = min(exhausted, sum(supply)) if rules.exhausted_colour == "substitute" else 0
        set_aside = neutral and colour == 3 and rules.neutral_build_chips == "put_aside"
        return BuildChips(tuple(colours), substitutes, set_aside, NAVE in touched or CLOCK_TOWER in touched)

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
        self._add_sites(squares, SHAPE_BIT[shape] | COLOUR_BIT[colour])
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
            self._phase = CHIP_PHASE
        else:
            self._phase = CARDINAL_PHASE

    def _add_sites(self, squares: tuple[int, ...], bit: int) -> None:
        """Mark the free squares (inside the window) next to new ``squares`` as sites touched by ``bit``."""
        cells, sites, inside = self._cells, self._sites, self._inside
        for k in squares:
            for step in NEIGHBOUR_STEPS:
                nb = k + step
                if nb not in cells and (inside is None or nb in inside):
                    sites[nb] = sites.get(nb, 0) | bit

    def _end_turn(self) -> None:
        seat, moves = self.next_builder()
        if seat is None:
            self._finish()
            return
        self._current = seat
        self._phase = BUILD_PHASE
        self._moves = moves

    def _finish(self) -> None:
        rules = self.rules
        supply = self._supply
        self._scores = scores = self.projected_scores()
        self._held = [self.projected_holdings(seat) for seat in range(self._n)]
        for seat in range(self._n):
            for c in rules.owned_colours(seat):
                supply[c] = 0
        if rules.has_neutral:
            self._aside[3] += supply[3]
            supply[3] = 0
        self._winners = finishing_order_from_keys(list(zip(scores, self._cathedral_touch, strict=True)))[0]
        self._phase = OVER
        self._moves = []
