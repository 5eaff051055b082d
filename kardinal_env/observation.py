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

Channels 0–16 are 0/1 and should be fed as they are; channels 17–71 are raw counts (at most 48) and
should be scaled (dividing *only these* by 12 is a good default — scaling the 0/1 planes too starves
the network of its spatial input).
``encode`` returns a fresh array each call: observations handed out are never changed later.
"""

from __future__ import annotations

import numpy as np

from .actions import DEFAULT_WINDOW, colour_order, seat_order, window_layout
from .engine import Game
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
    """Encodes a :class:`Game` for one observing seat into a ``(NUM_CHANNELS, W, W)`` uint8 array.

    The encoder follows one game incrementally: the spatial planes live in preallocated buffers (one
    shared by all observers, plus each seat's 12 building planes in its colour-slot order) that are
    updated with the buildings added since the previous call; each ``encode`` copies them and writes
    the constant planes. Passing a different game
    (or one that is not a continuation of the tracked one) rebuilds the buffer from scratch, so any
    game may be encoded at any time; following one game is just faster. ``encode`` always returns a
    new array: observations handed out are never changed later.
    """

    def __init__(self, rules: Rules, window: int = DEFAULT_WINDOW):
        key_to_square, _ = window_layout(rules, window)
        self.rules = rules
        self.window = window
        self.half = window // 2
        self.shape = (NUM_CHANNELS, window, window)
        n = window * window
        self._plane = n
        self._k2s = key_to_square.tolist()
        players = rules.players
        orders = [colour_order(rules, s) for s in range(players)]
        self._colour_of_slot = orders
        self._slot_of_colour = [[order.index(c) for c in range(4)] for order in orders]
        static = [0] * (NUM_CHANNELS - SPATIAL_CHANNELS)
        static[_OPTIONS - SPATIAL_CHANNELS + 0] = int(rules.exhausted_colour == "substitute")
        static[_OPTIONS - SPATIAL_CHANNELS + 1] = int(rules.has_neutral and rules.neutral_build_chips == "put_aside")
        static[_OPTIONS - SPATIAL_CHANNELS + 2] = int(rules.has_neutral and rules.neutral_touch_chips == "none")
        static[_OPTIONS - SPATIAL_CHANNELS + 3] = int(rules.shared_pool)
        static[_PLAYERS - SPATIAL_CHANNELS + players - 2] = 1
        # Gather tables for scalars(): the absolute vector is supply[4] + held[n][4] + inventory[12]
        # + touch[n] + [0]; targets are the per-game-changing positions of the scalar block.
        o = SPATIAL_CHANNELS
        zero = 4 + 4 * players + 12 + players
        targets = list(range(_SUPPLY - o, _SUPPLY - o + 4)) + list(range(_HELD - o, _HELD - o + 16))
        targets += list(range(_LEFT - o, _LEFT - o + 12)) + list(range(_TOUCH - o, _TOUCH - o + 4))
        self._targets = np.array(targets, dtype=np.intp)
        self._templates, self._sources = [], []
        for seat in range(players):
            colours = orders[seat]
            seats = seat_order(rules, seat)
            src = list(colours)
            for k in range(4):
                src += [4 + 4 * seats[k] + c for c in colours] if k < players else [zero] * 4
            src += [4 + 4 * players + 3 * c + s for c in colours for s in range(3)]
            src += [4 + 4 * players + 12 + seats[k] if k < players else zero for k in range(4)]
            self._sources.append(np.array(src, dtype=np.intp))
            template = np.array(static, dtype=np.uint8)
            for c in rules.seat_colours(seat):
                template[_MINE - o + colours.index(c)] = 1
            self._templates.append(template)
        self._shared = np.zeros((5, n), dtype=np.uint8)  # nave, clock tower, cardinal, sites, last built
        self._colour_planes = [np.zeros((12, n), dtype=np.uint8) for _ in range(players)]
        self._game = None  # the game the buffer shows
        self._drawn = 0  # buildings drawn into the buffer
        self._drawn_cardinal = -1

    def encode(self, game: Game, observer: int) -> np.ndarray:
        """The observation of ``game`` from seat ``observer``'s point of view (a new array)."""
        self._sync(game)
        obs = np.empty(self.shape, dtype=np.uint8)
        flat = obs.reshape(NUM_CHANNELS, -1)
        shared = self._shared
        flat[0:2] = shared[0:2]
        flat[2:14] = self._colour_planes[observer]
        flat[14:SPATIAL_CHANNELS] = shared[2:5]
        flat[SPATIAL_CHANNELS:] = self.scalars(game, observer)[:, None]
        return obs

    def site_squares(self, game: Game) -> np.ndarray:
        """Square indices of every site of ``game`` (ascending), read from the synced sites plane."""
        self._sync(game)
        return np.flatnonzero(self._shared[3])

    def _sync(self, game: Game) -> None:
        """Bring the buffers up to date with ``game`` (incrementally when it continues the tracked game).

        ``_shared`` holds the observer-independent planes (nave, clock tower, cardinal, sites, last
        built); ``_colour_planes[seat]`` the 12 building planes in that seat's colour-slot order.
        """
        k2s = self._k2s
        squares = game._bsquares
        shared = self._shared
        if game is not self._game or len(squares) < self._drawn:
            shared.fill(0)
            for planes in self._colour_planes:
                planes.fill(0)
            shared[0, k2s[squares[0][0]]] = 1
            shared[1, k2s[squares[1][0]]] = 1
            sites = shared[3]
            for k in game._sites:
                sites[k2s[k]] = 1
            self._game = game
            self._drawn = 2
            self._drawn_cardinal = -1
            start = 2
            rebuilt = True
        else:
            start = self._drawn
            rebuilt = False
        total = len(squares)
        if total > start:
            shapes = game._bshape
            colours = game._bcolour
            game_sites = game._sites
            sites = shared[3]
            last = shared[4]
            if not rebuilt and start > 2:  # clear the previous "last built"
                for k in squares[start - 1]:
                    last[k2s[k]] = 0
            for bid in range(start, total):
                shape, colour = shapes[bid], colours[bid]
                for k in squares[bid]:
                    sq = k2s[k]
                    for planes, slot in zip(self._colour_planes, self._slot_of_colour):
                        planes[4 * shape + slot[colour], sq] = 1
                    sites[sq] = 0
                    if not rebuilt:
                        for nb in (k + 1, k - 1, k + 128, k - 128):
                            if nb in game_sites:
                                sites[k2s[nb]] = 1
            for k in squares[total - 1]:
                last[k2s[k]] = 1
            self._drawn = total
        card = game._cardinal
        if card != self._drawn_cardinal:
            if self._drawn_cardinal >= 0:
                shared[2, k2s[self._drawn_cardinal]] = 0
            if card >= 0:
                shared[2, k2s[card]] = 1
            self._drawn_cardinal = card

    def scalars(self, game: Game, observer: int) -> np.ndarray:
        """The values of the constant planes (channels 17..71) as a uint8 vector.

        The engine's counts are concatenated into one absolute vector (supply, chips held per seat,
        unbuilt edifices, cathedral touches, a trailing zero) and gathered into the observer's slot
        order with one precomputed index array; turn, phase and pending chips are set last.
        """
        held = game._held
        absolute = game._supply + [c for h in held for c in h] + game._inventory + game._cathedral_touch + [0]
        v = self._templates[observer].copy()
        v[self._targets] = np.array(absolute, dtype=np.uint8)[self._sources[observer]]
        phase = game._phase
        if phase < 3:
            o = SPATIAL_CHANNELS
            v[_TURN - o + (game._current - observer) % self.rules.players] = 1
            v[_PHASE - o + phase] = 1
            v[_PENDING - o] = game._pending
        return v
