"""Observation encoder of Kardinal & König: one flat, ego-centric ``float32`` vector per observer.

The vector has a fixed length for a given board, whatever the player count (3–5): seat *slots* are ego-centric — slot
``k`` is seat ``(observer + k) mod n``, so slot 0 is the observer and slot 1 the seat that plays after it — and there
are always 5 slots; slots ``>= n`` stay zero. Every value is an exact count or a 0/1 flag (no scaling:
``ObservationEncoder.scale`` holds a recommended divisor per entry for networks).

**Only what the observer may know.** Its own hand; of the others only public facts. ``unseen`` counts the cards in the
others' hands and the deck together per type (public arithmetic). The four card segments come from
:func:`kardinal_env.koenig.knowledge.card_counts`. Games that differ only in the other hands and the deck order give the
same vector (tested).

Segments, in order (``S`` sites, ``C`` countries, ``T`` card types of the board; the default board: S = 54, C = 9, T =
5, length 494):

====================  =============  ==============================================================================
segment               size           content
====================  =============  ==============================================================================
``site_owner``        S × 6          per site (board order) one-hot: empty, owned by slot 0 .. slot 4
``cloisters``         C × 5          cloisters per country (board order) × slot
``advisors``          C × 5          advisors per country × slot
``turn_country``      C              one-hot: the country of this turn's first piece (zero before it)
``hand``              T              the observer's cards per type (types in ascending digit order)
``display``           T              face-up cards per type
``discard_pile``      T              discarded and played cards per type (public)
``unseen``            T              cards per type in the others' hands and the deck together
``hand_sizes``        5              cards held per slot
``cloisters_left``    5              cloisters in supply per slot
``advisors_left``     5              advisors in supply per slot
``scores``            5              running scores per slot (interim scoring included)
``projected``         5              per slot, the score if every scoring still to come happened now
``deck_size``         1              cards left in the deck
``runouts``           3              one-hot: the deck has run out 0, 1 or 2 times
``last_round``        1              1 after the second run-out (the game ends after seat n−1's turn)
``phase``             5              one-hot: place, second, discard, draw, over — only when the observer decides
                                     now, or once over (all zero otherwise: a ``second`` phase would tell that the
                                     seat on turn holds the cards for a second piece)
``to_move``           5              one-hot: the slot deciding now (all zero once over)
``turn``              2              pieces placed and cards spent (paid or discarded) this turn
``own_seat``          5              one-hot: the observer's absolute seat (the round ends after seat n−1)
``players``           3              one-hot: 3, 4, 5 players
``discard_any``       1              1 under ``discard="any"``
====================  =============  ==============================================================================

``ObservationEncoder.segments`` maps each name to its ``slice``; ``encode`` returns a new array. The core's copy
(``cpp/src/koenig/observation.hpp``) writes into a caller-owned array: :func:`kardinal_env.koenig.compiled.encode_into`.
"""

from __future__ import annotations

import numpy as np

from kardinal_env.koenig.engine import PHASES, Game
from kardinal_env.koenig.knowledge import card_counts
from kardinal_env.koenig.rules import ADVISORS, CLOISTERS, Rules
from kardinal_env.koenig.state import OVER

__all__ = ["ObservationEncoder", "SEAT_SLOTS"]

#: Seat slots in every observation (the most players a game can have).
SEAT_SLOTS = 5
_PLAYER_COUNTS = (3, 4, 5)


class ObservationEncoder:
    """Encodes a :class:`~kardinal_env.koenig.Game` for one observing seat (see the module docstring)."""

    #: The observation space's ``Box(low, high, shape, dtype)`` (the environment reads them).
    dtype = np.float32
    low, high = 0, 255

    def __init__(self, rules: Rules):
        board = rules.compiled
        self.rules = rules
        self.board = board
        S, C, T, P = board.num_sites, board.num_countries, board.num_types, SEAT_SLOTS
        layout = [  # (segment, size, recommended divisor: counts of at most a few dozen; flags 1)
            ("site_owner", S * (P + 1), 1),
            ("cloisters", C * P, 4),
            ("advisors", C * P, 4),
            ("turn_country", C, 1),
            ("hand", T, 3),
            ("display", T, 2),
            ("discard_pile", T, 10),
            ("unseen", T, 10),
            ("hand_sizes", P, 3),
            ("cloisters_left", P, CLOISTERS),
            ("advisors_left", P, ADVISORS),
            ("scores", P, 50),
            ("projected", P, 50),
            ("deck_size", 1, 20),
            ("runouts", 3, 1),
            ("last_round", 1, 1),
            ("phase", len(PHASES), 1),
            ("to_move", P, 1),
            ("turn", 2, 3),
            ("own_seat", P, 1),
            ("players", len(_PLAYER_COUNTS), 1),
            ("discard_any", 1, 1),
        ]
        self.segments: dict[str, slice] = {}
        scale: list[float] = []
        for name, size, divisor in layout:
            self.segments[name] = slice(len(scale), len(scale) + size)
            scale += [divisor] * size
        self.size = len(scale)
        self.shape = (self.size,)
        self.scale = np.array(scale, dtype=np.float32)
        at = self._at = {name: s.start for name, s in self.segments.items()}
        # Per observer: the constant part (own seat, players, option) and where each absolute value lands.
        # The board block (the first ``board_end`` entries) changes only with a piece, so it is cached;
        # ``_board_targets`` place the cloister then advisor counts, ``_seat_targets`` the per-seat values,
        # ``_owner_code[observer][owner + 1]`` a site's one-hot.
        n = rules.players
        self._slot_of_seat = [[(seat - observer) % n for seat in range(n)] for observer in range(n)]
        self._constant, self._board_targets, self._seat_targets, self._owner_code = [], [], [], []
        per_seat = ("hand_sizes", "cloisters_left", "advisors_left", "scores", "projected")
        for observer, slot in enumerate(self._slot_of_seat):
            const = np.zeros(self.size, dtype=np.float32)
            const[at["own_seat"] + observer] = 1
            const[at["players"] + _PLAYER_COUNTS.index(n)] = 1
            const[at["discard_any"]] = float(rules.discard == "any")
            self._constant.append(const)
            targets = [
                at[k] + c * P + slot[seat] for k in ("cloisters", "advisors") for c in range(C) for seat in range(n)
            ]
            self._board_targets.append(np.array(targets, dtype=np.intp))
            targets = [at[k] + slot[seat] for k in per_seat for seat in range(n)]
            self._seat_targets.append(np.array(targets, dtype=np.intp))
            self._owner_code.append(np.array([0] + [1 + k for k in slot], dtype=np.intp))
        self._board_end = self.segments["advisors"].stop
        self._site_base = at["site_owner"] + np.arange(S, dtype=np.intp) * (P + 1)
        self._board_cache: list[tuple[object, int, np.ndarray] | None] = [None] * n

    def encode(self, game: Game, observer: int) -> np.ndarray:
        """The observation of ``game`` for seat ``observer`` (a new ``float32`` array)."""
        at = self._at
        view = game.live_view()
        obs = self._constant[observer].copy()
        cached = self._board_cache[observer]  # the board block, until the next placement
        if cached is None or cached[0] is not game or cached[1] != view.placements:
            block = np.zeros(self._board_end, dtype=np.float32)
            owners = np.array(view.owner, dtype=np.intp) + 1
            block[self._site_base + self._owner_code[observer][owners]] = 1
            counts = [k for rows in (view.cloisters, view.advisors) for row in rows for k in row]
            block[self._board_targets[observer]] = counts
            cached = self._board_cache[observer] = (game, view.placements, block)
        obs[: self._board_end] = cached[2]
        obs[self._seat_targets[observer]] = (
            view.hand_sizes + view.cloisters_left + view.advisors_left + view.scores + game.projected_scores()
        )
        if view.country >= 0:
            obs[at["turn_country"] + view.country] = 1
        # Cards: own hand, display, discard pile and the unseen rest per type (hand .. unseen are
        # contiguous), as the knowledge module says the observer sees them.
        hand, display, pile, unseen = card_counts(game, observer, view)
        obs[at["hand"] : at["hand_sizes"]] = hand + display + pile + unseen
        # Turn and deck.
        obs[at["deck_size"]] = view.deck_size
        obs[at["runouts"] + view.runouts] = 1
        obs[at["last_round"]] = float(view.last_round)
        over = view.phase == OVER
        if over or view.current == observer:
            obs[at["phase"] + view.phase] = 1
        if not over:
            obs[at["to_move"] + self._slot_of_seat[observer][view.current]] = 1
        obs[at["turn"] : at["turn"] + 2] = view.pieces, view.cards
        return obs

    def describe(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """The segments of an observation by name (views, for reading and tests)."""
        return {name: obs[s] for name, s in self.segments.items()}
