"""Observation encoder: a lossless, ego-centric ``(C, W, W)`` uint8 tensor of a Kardinal position.

Channel-first (``C, H, W``) so a PyTorch convolution takes it as is. Square layout as in
``kardinal_env.kardinal.actions``: ``row = W // 2 - y``, ``col = x + W // 2``. "Slot" means ego-centric order: colour
slot ``j`` is ``actions.colour_order(rules, observer)[j]`` (own colours first, neutral last); seat slot ``k`` is seat
``(observer + k) mod n`` (the observer is slot 0, the next seat to play 1, …; slots ``>= n`` stay zero).

Spatial planes (0/1 per square):

=========  ===========================================================================================================
channel    meaning
=========  ===========================================================================================================
0          the nave (counts as a house)
1          the clock tower (counts as a tower)
2 – 5      house of colour slot 0..3
6 – 9      tower of colour slot 0..3
10 – 13    yard of colour slot 0..3 (two yards never touch, so a yard's two squares are the only adjacent yard squares)
14         the cardinal
15         sites (empty squares next to a building, inside the window)
16         squares of the edifice built last (rules VI and VII: its shape and colour are the planes above)
=========  ===========================================================================================================

Constant planes (the same value on every square, so convolutions see them everywhere):

=========  ===========================================================================================================
channel    meaning
=========  ===========================================================================================================
17 – 20    chips of colour slot 0..3 left in the supply (0..12)
21 – 36    chips held: seat slot ``k`` × colour slot ``j`` at ``21 + 4k + j`` (0..48)
37 – 48    unbuilt edifices: colour slot ``j`` × shape (house, tower, yard) at ``37 + 3j + s`` (0..2)
49 – 52    edifices built by seat slot ``k`` that touch the cathedral (tie-break)
53 – 56    colour slot ``j`` may be built by the observer (own, neutral or pool)
57 – 60    seat slot ``k`` is the seat that decides now (all zero once over)
61 – 63    decision phase one-hot: build, chip, cardinal
64         chip choices still owed to the deciding seat
65 – 68    rule options: substitute chips, neutral build chips put aside, neutral touch chips none, shared pool
69 – 71    number of players one-hot: 2, 3, 4
=========  ===========================================================================================================

Channels 0–16 are 0/1 and should be fed as they are; channels 17–71 are raw counts (at most 48) and should be scaled
(dividing *only these* by 12 is a good default — scaling the 0/1 planes too starves the network of its spatial input).
``encode`` returns a fresh array each call: observations handed out are never changed later.
"""

from __future__ import annotations

from operator import itemgetter

import numpy as np

from kardinal_env.kardinal.actions import WindowFrame
from kardinal_env.kardinal.engine import Game
from kardinal_env.kardinal.notation import KEY_STRIDE
from kardinal_env.kardinal.rules import Rules
from kardinal_env.kardinal.state import LiveView

__all__ = ["ObservationEncoder", "NUM_CHANNELS", "SPATIAL_CHANNELS", "CHANNEL_NAMES", "COUNT_SCALE"]

#: Channels 0..16: the 0/1 spatial planes.
SPATIAL_CHANNELS = 17
#: Every channel: spatial planes plus the constant (count) planes 17..71.
NUM_CHANNELS = 72
#: Recommended scale of the count planes (channels 17..71) before a network sees them.
COUNT_SCALE = 1.0 / 12.0
_NAVE, _CLOCK, _CARDINAL, _SITES, _LAST = 0, 1, 14, 15, 16

CHANNEL_NAMES: tuple[str, ...] = (
    ("nave", "clock_tower")
    + tuple(f"{s}_slot{j}" for s in ("house", "tower", "yard") for j in range(4))
    + ("cardinal", "sites", "last_built")
    + tuple(f"supply_slot{j}" for j in range(4))
    + tuple(f"held_seat{k}_slot{j}" for k in range(4) for j in range(4))
    + tuple(f"left_slot{j}_{s}" for j in range(4) for s in ("house", "tower", "yard"))
    + tuple(f"cathedral_touch_seat{k}" for k in range(4))
    + tuple(f"buildable_slot{j}" for j in range(4))
    + tuple(f"on_turn_seat{k}" for k in range(4))
    + ("phase_build", "phase_chip", "phase_cardinal", "pending_chips")
    + ("opt_substitute", "opt_neutral_put_aside", "opt_neutral_touch_none", "opt_shared_pool")
    + ("players_2", "players_3", "players_4")
)
assert len(CHANNEL_NAMES) == NUM_CHANNELS


class ObservationEncoder(WindowFrame):
    """Encodes a :class:`Game` for one observing seat into a ``(NUM_CHANNELS, W, W)`` uint8 array.

    The encoder follows one game incrementally: each seat has a preallocated block of the 17 spatial planes in its own
    slot order, and the buildings added (and the cardinal moved) since the previous call are drawn into every block;
    ``encode`` copies the observer's block and broadcasts the 55 constant values, gathered from the game in one
    ``itemgetter`` call. Another game (or one that does not continue the tracked one) rebuilds the blocks, so any game
    may be encoded at any time; following one game is just faster.
    """

    #: The observation space's ``Box(low, high, shape, dtype)`` (the environment reads them).
    dtype = np.uint8
    low, high = 0, 48

    def __init__(self, rules: Rules, window: int | None = None):
        super().__init__(rules, window)
        self.shape = (NUM_CHANNELS, self.window, self.window)
        n = self.window * self.window
        players = rules.players
        # Gather tables for the constant planes. _scalar_bytes lists the game's values in absolute
        # order: supply[4] + held[n][4] + unbuilt[4][3] + touches[n] + on_turn[n] + phase[3]
        # + pending + [0, 1]; _gathers[observer] picks channels 17..71 from it in ego-centric order.
        supply_at, held_at = 0, 4
        left_at = held_at + 4 * players
        touch_at = left_at + 12
        turn_at = touch_at + players
        phase_at = turn_at + players
        pending_at = phase_at + 3
        zero, one = pending_at + 1, pending_at + 2
        options = (
            rules.exhausted_colour == "substitute",
            rules.has_neutral and rules.neutral_build_chips == "put_aside",
            rules.has_neutral and rules.neutral_touch_chips == "none",
            rules.shared_pool,
        )
        self._gathers = []
        for seat in range(players):
            colours = self._colour_order[seat]
            seats = [(seat + k) % players for k in range(players)] + [None] * (4 - players)  # seat slots
            mine = rules.seat_colours(seat)
            src = [supply_at + c for c in colours]
            src += [held_at + 4 * s + c if s is not None else zero for s in seats for c in colours]
            src += [left_at + 3 * c + shape for c in colours for shape in range(3)]
            src += [touch_at + s if s is not None else zero for s in seats]
            src += [one if c in mine else zero for c in colours]
            src += [turn_at + s if s is not None else zero for s in seats]
            src += [phase_at + p for p in range(3)] + [pending_at]
            src += [one if flag else zero for flag in options]
            src += [one if p == players else zero for p in (2, 3, 4)]
            assert len(src) == NUM_CHANNELS - SPATIAL_CHANNELS
            self._gathers.append(itemgetter(*src))
        self._no_turn = [0] * (players + 5) + [1]  # on_turn, phase, pending, 0, 1 once the game is over
        self._turn_phase = [
            [[int(s == current) for s in range(players)] + [int(p == phase) for p in range(3)] for phase in range(3)]
            for current in range(players)
        ]
        # Per-seat spatial blocks (17 planes in that seat's slot order) kept as bytearrays seen through
        # numpy views: _sync writes single bytes through the bytearray (several times faster than numpy
        # scalar assignment) into every seat's block, encode copies one block.
        self._spatial_bytes = bytearray(players * SPATIAL_CHANNELS * n)
        self._spatial = np.frombuffer(self._spatial_bytes, dtype=np.uint8).reshape(players, SPATIAL_CHANNELS, n)
        self._spatial_views = list(self._spatial)  # per seat, saves indexing on every encode
        block = SPATIAL_CHANNELS * n
        # offsets of a plane in every seat's block: shared planes, and per (shape, colour) building planes
        self._shared_offsets = [
            tuple(seat * block + channel * n for seat in range(players)) for channel in range(SPATIAL_CHANNELS)
        ]
        slot = self._slot_of_colour
        self._building_offsets = [
            [tuple(seat * block + (2 + 4 * shape + slot[seat][c]) * n for seat in range(players)) for c in range(4)]
            for shape in range(3)
        ]
        self._game: Game | None = None  # the game the buffer shows
        self._drawn = 0  # buildings drawn into the buffer
        self._drawn_cardinal = -1

    def encode(self, game: Game, observer: int) -> np.ndarray:
        """The observation of ``game`` from seat ``observer``'s point of view (a new array). A core-backed
        game (``game.compiled``) is written by the core (``CoreGame.encode_into``, byte for byte the same)."""
        obs = np.empty(self.shape, dtype=np.uint8)
        if game.compiled:
            game.encode_into(observer, obs)  # type: ignore[attr-defined]
            return obs
        view = game.live_view()
        self._sync(game, view)
        flat = obs.reshape(NUM_CHANNELS, -1)
        flat[:SPATIAL_CHANNELS] = self._spatial_views[observer]
        flat[SPATIAL_CHANNELS:] = np.frombuffer(self._scalar_bytes(view, observer), dtype=np.uint8)[:, None]
        return obs

    def __reduce__(self):
        # The numpy views share memory with the bytearrays, which pickling would not preserve:
        # rebuild from the constructor arguments instead (the buffers refill on the next encode).
        return (ObservationEncoder, (self.rules, self.window))

    def _sync(self, game: Game, view: LiveView) -> None:
        """Bring every seat's spatial block up to date with ``game``: incrementally when it continues
        the tracked game (new buildings, a moved cardinal), from scratch otherwise."""
        built = len(view.building_squares)
        if game is not self._game or built < self._drawn:
            self._rebuild(game, view)
        if built > self._drawn:
            self._draw_buildings(view)
        if view.cardinal != self._drawn_cardinal:
            self._move_cardinal(view.cardinal)

    def _set(self, offsets: tuple, square: int, value: int) -> None:
        buf = self._spatial_bytes
        for offset in offsets:
            buf[offset + square] = value

    def _rebuild(self, game: Game, view: LiveView) -> None:
        self._spatial.fill(0)
        k2s = self._k2s
        squares = view.building_squares
        self._set(self._shared_offsets[_NAVE], k2s[squares[0][0]], 1)
        self._set(self._shared_offsets[_CLOCK], k2s[squares[1][0]], 1)
        sites = self._shared_offsets[_SITES]
        for k in view.sites:  # the complete site table (drawing marks only sites next to new buildings)
            self._set(sites, k2s[k], 1)
        self._game = game
        self._drawn = 2  # the edifices are drawn next
        self._drawn_cardinal = -1

    def _draw_buildings(self, view: LiveView) -> None:
        """Draw the buildings added since the last call (at least one), update sites and the "last built" plane."""
        k2s = self._k2s
        buf = self._spatial_bytes
        squares = view.building_squares
        start, total = self._drawn, len(squares)
        sites = self._shared_offsets[_SITES]
        last = self._shared_offsets[_LAST]
        game_sites = view.sites
        building_offsets = self._building_offsets
        shapes, colours = view.building_shapes, view.building_colours
        if start > 2:  # clear the previous "last built"
            for k in squares[start - 1]:
                self._set(last, k2s[k], 0)
        for bid in range(start, total):
            offsets = building_offsets[shapes[bid]][colours[bid]]
            for k in squares[bid]:
                sq = k2s[k]
                for offset in offsets:
                    buf[offset + sq] = 1
                for offset in sites:
                    buf[offset + sq] = 0
                for nb in (k + 1, k - 1, k + KEY_STRIDE, k - KEY_STRIDE):
                    if nb in game_sites:
                        nb_sq = k2s[nb]
                        for offset in sites:
                            buf[offset + nb_sq] = 1
        for k in squares[total - 1]:
            self._set(last, k2s[k], 1)
        self._drawn = total

    def _move_cardinal(self, card: int) -> None:
        offsets = self._shared_offsets[_CARDINAL]
        if self._drawn_cardinal >= 0:
            self._set(offsets, self._k2s[self._drawn_cardinal], 0)
        if card >= 0:
            self._set(offsets, self._k2s[card], 1)
        self._drawn_cardinal = card

    def _scalar_bytes(self, view: LiveView, observer: int) -> bytes:
        """Channels 17..71 as bytes: the game's values listed once in absolute order, then gathered
        into the observer's slot order by one precomputed ``itemgetter``."""
        phase = view.phase
        absolute = view.supply + [c for h in view.held for c in h] + view.edifices_left + view.cathedral_touches
        if phase < 3:
            absolute += self._turn_phase[view.current][phase]
            absolute += (view.pending, 0, 1)
        else:
            absolute += self._no_turn
        return bytes(self._gathers[observer](absolute))
