"""Observation encoder: a lossless, ego-centric ``(C, W, W)`` uint8 tensor of a Kardinal position.

Channel-first (``C, H, W``) so a PyTorch convolution takes it as is. Square layout as in
``kardinal_env.actions``: ``row = W // 2 - y``, ``col = x + W // 2``. "Slot" means ego-centric order:
colour slot ``j`` is ``actions.colour_order(rules, observer)[j]`` (own colours first, neutral last);
seat slot ``k`` is seat ``(observer + k) mod n`` (the observer is slot 0, the next seat to play 1, …;
slots ``>= n`` stay zero).

Spatial planes (0/1 per square):

=========  =====================================================================
channel    meaning
=========  =====================================================================
0          the nave (counts as a house)
1          the clock tower (counts as a tower)
2 – 5      house of colour slot 0..3
6 – 9      tower of colour slot 0..3
10 – 13    yard of colour slot 0..3 (two yards never touch, so a yard's two
           squares are the only adjacent yard squares)
14         the cardinal
15         sites (empty squares next to a building, inside the window)
16         squares of the edifice built last (rules VI and VII: its shape and
           colour are the planes above)
=========  =====================================================================

Constant planes (the same value on every square, so convolutions see them everywhere):

=========  =====================================================================
channel    meaning
=========  =====================================================================
17 – 20    chips of colour slot 0..3 left in the supply (0..12)
21 – 36    chips held: seat slot ``k`` × colour slot ``j`` at ``21 + 4k + j`` (0..48)
37 – 48    unbuilt edifices: colour slot ``j`` × shape (house, tower, yard) at
           ``37 + 3j + s`` (0..2)
49 – 52    edifices built by seat slot ``k`` that touch the cathedral (tie-break)
53 – 56    colour slot ``j`` may be built by the observer (own, neutral or pool)
57 – 60    seat slot ``k`` is the seat that decides now (all zero once over)
61 – 63    decision phase one-hot: build, chip, cardinal
64         chip choices still owed to the deciding seat
65 – 68    rule options: substitute chips, neutral build chips put aside,
           neutral touch chips none, shared pool
69 – 71    number of players one-hot: 2, 3, 4
=========  =====================================================================

Values are raw counts; a network should scale them (dividing by 12 is a good default).
``encode`` returns a fresh array each call: observations handed out are never changed later.
"""

from __future__ import annotations

import numpy as np

from .actions import DEFAULT_WINDOW, colour_order
from .engine import Game
from .notation import KEY_LIMIT, square_key
from .rules import Rules

__all__ = ["ObservationEncoder", "NUM_CHANNELS", "SPATIAL_CHANNELS", "CHANNEL_NAMES"]

SPATIAL_CHANNELS = 17
NUM_CHANNELS = 72
_SUPPLY, _HELD, _LEFT, _TOUCH, _MINE, _TURN, _PHASE, _PENDING, _OPTIONS, _PLAYERS = (
    17, 21, 37, 49, 53, 57, 61, 64, 65, 69,
)

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


class ObservationEncoder:
    """Encodes a :class:`Game` for one observing seat into a ``(NUM_CHANNELS, W, W)`` uint8 array."""

    def __init__(self, rules: Rules, window: int = DEFAULT_WINDOW):
        self.rules = rules
        self.window = window
        self.half = half = window // 2
        self.shape = (NUM_CHANNELS, window, window)
        n = window * window
        self._plane = n
        key_to_square = np.full(KEY_LIMIT, -1, dtype=np.int64)
        for x in range(-half, half + 1):
            for y in range(-half, half + 1):
                key_to_square[square_key(x, y)] = (half - y) * window + (x + half)
        self._k2s = key_to_square
        players = rules.players
        orders = [colour_order(rules, s) for s in range(players)]
        self._slot_of_colour = [[order.index(c) for c in range(4)] for order in orders]
        self._colour_of_slot = orders
        # Constant part of the scalar block that never changes during a game.
        static = np.zeros(NUM_CHANNELS - SPATIAL_CHANNELS, dtype=np.uint8)
        static[_OPTIONS - SPATIAL_CHANNELS + 0] = rules.exhausted_colour == "substitute"
        static[_OPTIONS - SPATIAL_CHANNELS + 1] = rules.has_neutral and rules.neutral_build_chips == "put_aside"
        static[_OPTIONS - SPATIAL_CHANNELS + 2] = rules.has_neutral and rules.neutral_touch_chips == "none"
        static[_OPTIONS - SPATIAL_CHANNELS + 3] = rules.shared_pool
        static[_PLAYERS - SPATIAL_CHANNELS + players - 2] = 1
        self._static = static
        self._seat_colour_slots = []
        for seat in range(players):
            mine = [self._slot_of_colour[seat][c] for c in rules.seat_colours(seat)]
            self._seat_colour_slots.append(mine)

    def encode(self, game: Game, observer: int) -> np.ndarray:
        """The observation of ``game`` from seat ``observer``'s point of view (a new array)."""
        obs = np.zeros(self.shape, dtype=np.uint8)
        flat = obs.reshape(NUM_CHANNELS, -1)
        self._spatial(game, observer, flat)
        flat[SPATIAL_CHANNELS:] = self.scalars(game, observer)[:, None]
        return obs

    def _spatial(self, game: Game, observer: int, flat: np.ndarray) -> None:
        k2s = self._k2s
        slot = self._slot_of_colour[observer]
        plane = self._plane
        shapes = game._bshape
        colours = game._bcolour
        squares = game._bsquares
        idx = []
        for bid in range(len(shapes)):
            if bid < 2:
                ch = bid
            else:
                ch = 2 + 4 * shapes[bid] + slot[colours[bid]]
            base = ch * plane
            for k in squares[bid]:
                idx.append(base + k2s[k])
        last = len(shapes) - 1
        if last >= 2:
            for k in squares[last]:
                idx.append(16 * plane + k2s[k])
        if game._cardinal >= 0:
            idx.append(14 * plane + k2s[game._cardinal])
        raw = flat.reshape(-1)
        raw[idx] = 1
        sites = k2s[np.fromiter(game._sites, dtype=np.int64, count=len(game._sites))]
        raw[15 * plane + sites[sites >= 0]] = 1

    def scalars(self, game: Game, observer: int) -> np.ndarray:
        """The values of the constant planes (channels 17..71) as a vector."""
        v = self._static.copy()
        o = SPATIAL_CHANNELS
        n = self.rules.players
        colours = self._colour_of_slot[observer]
        supply = game._supply
        inventory = game._inventory
        for j, c in enumerate(colours):
            v[_SUPPLY - o + j] = supply[c]
            base = _LEFT - o + 3 * j
            v[base : base + 3] = inventory[3 * c : 3 * c + 3]
        held = game._held
        touch = game._cathedral_touch
        for k in range(n):
            seat = (observer + k) % n
            h = held[seat]
            base = _HELD - o + 4 * k
            for j, c in enumerate(colours):
                v[base + j] = h[c]
            v[_TOUCH - o + k] = touch[seat]
        for j in self._seat_colour_slots[observer]:
            v[_MINE - o + j] = 1
        phase = game._phase
        if phase < 3:
            v[_TURN - o + (game._current - observer) % n] = 1
            v[_PHASE - o + phase] = 1
            v[_PENDING - o] = game._pending
        return v
