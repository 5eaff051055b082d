"""The Kardinal & König rules engine: exact, fast, and free of RL imports.

Usage::

    from kardinal_env.koenig import Game, Rules, IllegalMoveError
    game = Game(Rules(players=4), seed=0)
    while not game.is_over:
        game.play(game.legal_moves()[0])
    game.scores(), game.winners()

The engine knows everything (the deck order, every hand); what a seat may know is
:mod:`kardinal_env.koenig.knowledge`'s job, and the observation shows only that.

Decisions
---------
A turn is a sequence of decisions by the seat on turn, each one move string
(``kardinal_env.koenig.notation``):

=========  ==============================================  ========================================
phase      when                                            moves offered
=========  ==============================================  ========================================
place      start of a turn                                 ``K@{site}/{pay}``, ``A@{country}/{pay}``,
                                                           ``discard:{t}``
second     after a first piece in a country that held a    second pieces in the same country, and
           cloister at the start of the turn, when a       ``end``
           second piece is legal
discard    ``discard="any"``, after a discard, while       ``discard:{t}`` and ``end``
           fewer than 3 were made and cards are left
draw       the hand holds fewer than 3 cards and the       ``draw:{t}`` per type in the display,
           display or the deck has a card                  ``draw:deck`` while the deck has cards
over       the game is over                                none
=========  ==============================================  ========================================

Everything else happens by itself: the turn goes on to drawing after a piece in a country that
was empty, after the second piece, after the last possible discard, or when no second piece is
legal; the display is refilled from the deck once the hand is full; a seat without cards at the
start of its turn misses it.

Placing: one country per turn, at most two pieces, at most three cards. A piece costs one card
whose type names the country, or a pair of equal cards (a joker; offered as well when the type
names the country). A cloister needs an empty site; an advisor needs the country's advisor count,
after placing it, to be at most the largest cloister count any one seat has there (this turn's
cloisters included). A country without cloisters at the start of the turn takes exactly one
cloister. A seat without cloisters (advisors) left cannot place one. Discarding is always allowed
instead of placing.

Running out: the deck runs out when its last card is taken (a draw or a display refill). The
first time, the interim scoring (cloisters only) is added at once and the discard pile is shuffled
into a new deck; play goes on, the current draw or refill included. The second time, the deck is
not replaced: the round is finished (the game ends when the turn of seat n-1 ends, the current
one included) and the final scoring (cloisters, alliances, chains) is added. :meth:`Game.scores`
are running totals.

Errors
------
A move that is not legal raises :class:`IllegalMoveError` (a ``ValueError``) and changes nothing.
Its message starts with the rule broken, also in its ``rule`` attribute: ``"malformed move"``,
``"unknown id"``, ``"game over"``, ``"phase"``, ``"payment"``, ``"one country"``,
``"two pieces"``, ``"three cards"``, ``"empty country"``, ``"advisor limit"``, ``"supply"``,
``"site"``, ``"discard"``, ``"end"`` or ``"draw"``.

Chance
------
``Game(rules, seed)`` shuffles the deck with :class:`~kardinal_env.core.shuffle.ShuffleRng` seeded
with ``seed`` (SplitMix64 and a Fisher–Yates shuffle, documented in :mod:`kardinal_env.core.shuffle`
and implemented identically in the compiled core, so a seed deals the same game on both backends)
and later shuffles the discard pile with the same generator. ``deck=`` (and ``reshuffle=``) fix the
card orders instead (top first, as type digits): that is how records replay. The initial deck is
:attr:`Game.initial_deck` and the order the discard pile took at the reshuffle
:attr:`Game.reshuffle_order`. A ``reshuffle=`` order must hold exactly the discard pile's cards when
the deck runs out: the move that runs it out raises :class:`DeckError` otherwise (and the game is
unusable after it).

The game protocol
-----------------
``Game`` implements :mod:`kardinal_env.core.protocol`: :meth:`Game.finishing_order` (by final score;
tied seats share a place), and :meth:`Game.determinize` — a world the seat cannot tell apart,
dealt by :mod:`kardinal_env.koenig.knowledge` (what a seat may know of the cards) through
:meth:`Game.with_hidden`. :meth:`Game.deck_takes` shows each card taken from the deck only to the
seat that saw it.

Speed: moves are integer ids into the board's move table (``Board.moves``); the legal ids of a
decision are generated once and cached; the incremental state keeps per-country counts, maxima
and free sites so that no decision rescans the board.
"""

from __future__ import annotations

import json
import random
from typing import Any, ClassVar, NamedTuple, NoReturn

from kardinal_env.core.checks import is_int
from kardinal_env.core.errors import GameNotOverError, IllegalMoveError, RecordError
from kardinal_env.core.game_base import CoreRedirect, TurnBasedGame, core_class_of, resolve_rules, use_core_class
from kardinal_env.core.protocol import finishing_order_from_keys
from kardinal_env.core.records import check_replayed_result, play_record_move
from kardinal_env.core.shuffle import ShuffleRng
from kardinal_env.koenig import scoring
from kardinal_env.koenig.board import Board
from kardinal_env.koenig.knowledge import SeatKnowledge
from kardinal_env.koenig.notation import MalformedMoveError, parse_move
from kardinal_env.koenig.record import make_record, parse_record
from kardinal_env.koenig.rules import ADVISORS, CLOISTERS, DISPLAY_SIZE, HAND_SIZE, Rules

__all__ = ["Game", "IllegalMoveError", "DeckError", "PHASES"]

PHASES = ("place", "second", "discard", "draw", "over")
_PLACE, _SECOND, _DISCARD, _DRAW, _OVER = range(5)
MAX_CARDS_PER_TURN = 3
MAX_PIECES_PER_TURN = 2


class DeckError(ValueError):
    """A given deck or reshuffle order that does not hold the cards it must."""


class LiveView(NamedTuple):
    """Read-only live references into a game's *public* state (:meth:`Game.live_view`), for
    observation encoders that must not copy. Never modify the containers; fetch a new view after
    every move (the integers are values at the time of the call). Indices: sites, countries and card
    types in board order (``Board``); seats absolute."""

    owner: list[int]  # per site: seat, or -1 when empty
    cloisters: list[list[int]]  # [country][seat]
    advisors: list[list[int]]  # [country][seat]
    hand_sizes: list[int]  # per seat
    cloisters_left: list[int]  # per seat
    advisors_left: list[int]  # per seat
    scores: list[int]  # running totals per seat
    display: list[int]  # type indices of the face-up cards
    pile: list[int]  # type indices of the discard pile
    deck_size: int
    runouts: int
    last_round: bool
    phase: int  # index into PHASES
    current: int  # seat on turn (meaningless once over)
    country: int  # country index of this turn's first piece, -1 before it
    pieces: int  # pieces placed this turn
    cards: int  # cards paid or discarded this turn
    placements: int  # pieces placed in the whole game (changes exactly when the board does)


def use_core_game(core_class: type, core_wanted: Any) -> None:
    """Have ``Game(...)`` build ``core_class`` (:class:`kardinal_env.koenig.core_game.CoreGame`) whenever
    ``core_wanted()`` is not None (``KARDINAL_ENV_BACKEND`` is not ``python`` and the core is built).
    Called once, by :mod:`kardinal_env.koenig.core_game` (:class:`kardinal_env.core.game_base.CoreRedirect`)."""
    use_core_class(Game, core_class, core_wanted)


def core_game_class() -> type | None:
    """The core-backed :class:`Game` subclass ``Game(...)`` builds when the core is used
    (:class:`kardinal_env.koenig.core_game.CoreGame`, once registered), else None."""
    return core_class_of(Game)


class Game(TurnBasedGame, metaclass=CoreRedirect):
    """One game of Kardinal & König. See the module docstring for phases, rules and errors.

    ``Game(rules, seed)`` is backed by the compiled core when it is used (then it is a
    :class:`~kardinal_env.koenig.core_game.CoreGame`, a subclass with the same public API and results);
    :meth:`Game.reference` always builds this Python engine, the readable reference."""

    #: Whether the game's state lives in the compiled core (:class:`~kardinal_env.koenig.core_game.CoreGame`).
    compiled: ClassVar[bool] = False
    PHASE_NAMES = PHASES
    _OVER_PHASE = _OVER
    __slots__ = (
        "rules",
        "_now",
        "_parts",
        "board",
        "_n",
        "_T",
        "_hands",
        "_hand_size",
        "_display",
        "_deck",
        "_pile",
        "_owner",
        "_free",
        "_kids",
        "_cl",
        "_cl_total",
        "_cl_max",
        "_ad",
        "_ad_total",
        "_cl_left",
        "_ad_left",
        "_scores",
        "_interim",
        "_final",
        "_runouts",
        "_last_round",
        "_current",
        "_phase",
        "_country",
        "_pieces",
        "_paid",
        "_discards",
        "_was_empty",
        "_moves",
        "_names",
        "_history",
        "_rng",
        "_deck0",
        "_plan",
        "_reshuffled",
        "_missed",
        "_winners",
        "_placements",
        "_by",
        "_takes",
        "_knowledge",
    )

    _moves: list[int] | None
    _names: list[str] | None
    _pile: list[int]
    _history: list[int]
    _missed: list[tuple[int, int]]
    _interim: list[int] | None
    _final: dict[str, list[int]] | None
    _winners: list[int] | None
    _reshuffled: list[int] | None
    _plan: list[int] | None
    _now: tuple[list[int], list[int], list[int]] | None
    _parts: list  # [per-country cloister points | None, alliance points | None, per-seat chain points | None]
    _deck0: list[int] | None  # None in a determinized world (with_hidden): its past deal is not known
    _takes: list[tuple[int, int, int]]  # every card taken from the deck after the deal (see deck_takes)
    _knowledge: dict | None  # seat -> (move count, SeatKnowledge): determinize's cache

    def __init__(
        self,
        rules: Rules | None = None,
        seed: int | str | None = None,
        *,
        deck: list[int] | None = None,
        reshuffle: list[int] | None = None,
        **options,
    ):
        rules = resolve_rules(rules, options, Rules)
        self.rules = rules
        b = self.board = rules.compiled
        n = self._n = rules.players
        T = self._T = len(b.types)
        C = len(b.country_ids)
        self._rng = ShuffleRng(seed)
        cards = sorted(rules.deck_cards)
        if deck is None:
            order = [b.type_index[t] for t in cards]
            self._rng.shuffle(order)
        else:
            order = self._check_order(deck, cards, "deck")
        self._deck0 = order  # top first, type indices; never mutated
        self._plan = None
        if reshuffle is not None:
            plan = self._plan = self._check_order(reshuffle, None, "reshuffle")
            spare = [0] * T
            for t in cards:
                spare[b.type_index[t]] += 1
            for t in plan:
                spare[t] -= 1
            if min(spare) < 0:  # the pile at the run-out is part of the deck's cards
                types = b.types
                raise DeckError(
                    f"reshuffle: holds {card_census([types[t] for t in plan])}, more than the {rules.players}-player "
                    f"deck on board {b.name!r} has ({card_census(cards)})"
                )
        self._reshuffled = None
        self._deck = order[::-1]  # top of the deck at the end
        self._hands = [[0] * T for _ in range(n)]
        self._hand_size = [0] * n
        for seat in range(n):
            for _ in range(HAND_SIZE):
                self._hands[seat][self._deck.pop()] += 1
            self._hand_size[seat] = HAND_SIZE
        self._display = [self._deck.pop() for _ in range(DISPLAY_SIZE)]
        self._pile = []
        self._owner = [-1] * len(b.site_ids)
        self._free = [list(sites) for sites in b.country_sites]
        self._kids = [_site_ids(f, b) for f in self._free]
        self._cl = [[0] * n for _ in range(C)]
        self._cl_total = [0] * C
        self._cl_max = [0] * C
        self._ad = [[0] * n for _ in range(C)]
        self._ad_total = [0] * C
        self._cl_left = [CLOISTERS] * n
        self._ad_left = [ADVISORS] * n
        self._scores = [0] * n
        self._interim = None
        self._final = None
        self._runouts = 0
        self._last_round = False
        self._current = 0
        self._phase = _PLACE
        self._country = -1
        self._pieces = 0
        self._paid = 0
        self._discards = 0
        self._was_empty = False
        self._moves = None
        self._names = None
        self._history = []
        self._by: list[int] = []  # the seat that made each move of _history
        self._takes = []
        self._knowledge = None
        self._missed = []
        self._winners = None
        self._placements = 0
        self._now = None
        self._parts = [[None] * C, None, [None] * n]

    @classmethod
    def reference(
        cls,
        rules: Rules | None = None,
        seed: int | str | None = None,
        *,
        deck: list[int] | None = None,
        reshuffle: list[int] | None = None,
        **options,
    ) -> Game:
        """A game of the Python engine, whatever the backend (``Game(...)`` may build the core-backed
        one): the readable reference, for lockstep comparisons and determinized worlds."""
        game = Game.__new__(Game)
        game.__init__(rules, seed, deck=deck, reshuffle=reshuffle, **options)  # type: ignore[misc]
        return game

    def _check_order(self, given: object, cards: list[int] | None, what: str) -> list[int]:
        b = self.board
        if not isinstance(given, (list, tuple)) or not all(is_int(t) and t in b.type_index for t in given):
            raise DeckError(f"{what}: expected a list of card types {list(b.types)}, got {given!r}")
        given = list(given)
        if cards is not None and sorted(given) != cards:
            raise DeckError(
                f"{what}: holds {card_census(given)} but the {self.rules.players}-player deck on board "
                f"{b.name!r} is {card_census(cards)}"
            )
        return [b.type_index[t] for t in given]

    # ------------------------------------------------------------------ public state
    # current_player, phase, is_over, num_players and move_count come from TurnBasedGame.

    @property
    def history(self) -> list[str]:
        """Every move played so far, in notation."""
        names = self.board.moves
        return [names[m] for m in self._history]

    @property
    def runouts(self) -> int:
        """How often the deck has run out: 0, 1 (interim scoring done) or 2 (the last round)."""
        return self._runouts

    @property
    def last_round(self) -> bool:
        """True after the second run-out: the game ends when seat n-1's turn ends."""
        return self._last_round

    @property
    def turn_country(self) -> str | None:
        """The country of this turn's first piece, or ``None`` before one is placed."""
        return None if self._country < 0 else self.board.country_ids[self._country]

    @property
    def pieces_this_turn(self) -> int:
        return self._pieces

    @property
    def cards_this_turn(self) -> int:
        """Cards played (to pay) or discarded so far this turn."""
        return self._paid + self._discards

    @property
    def missed_turns(self) -> list[tuple[int, int]]:
        """``(moves played before it, seat)`` for every turn missed for want of cards."""
        return list(self._missed)

    @property
    def initial_deck(self) -> list[int]:
        """The whole deck as shuffled before the deal (type digits, top first). A determinized world
        (:meth:`with_hidden`) does not know it: ``RuntimeError``."""
        if self._deck0 is None:
            raise RuntimeError("a determinized world (Game.with_hidden) does not know the deck's first order")
        types = self.board.types
        return [types[t] for t in self._deck0]

    @property
    def reshuffle_order(self) -> list[int] | None:
        """The order the discard pile took at the first run-out (top first), or ``None`` before it
        (and in a determinized world dealt after it: :meth:`with_hidden` forgets it)."""
        if self._reshuffled is None:
            return None
        types = self.board.types
        return [types[t] for t in self._reshuffled]

    @property
    def reshuffle_plan(self) -> list[int] | None:
        """The reshuffle order given with ``reshuffle=`` (type digits, top first), or ``None`` when none
        was given (the discard pile is then shuffled by the game's generator)."""
        if self._plan is None:
            return None
        types = self.board.types
        return [types[t] for t in self._plan]

    def deck_takes(self, seat: int) -> list[tuple[int, int, int | None]]:
        """Every card taken from the deck after the deal, in order, as ``seat`` saw it:
        ``(moves played when it was taken, taker, card)`` with taker a seat (a ``draw:deck``) or
        ``-1`` (a display refill), and the card's type digit only where ``seat`` saw it — its own
        draws and the refills — else ``None``. The cards up to the first run-out come from the first
        deck, the later ones from the reshuffled pile (``kardinal_env.koenig.knowledge`` reads it)."""
        types = self.board.types
        return [
            (moves, taker, types[t] if (taker == seat or taker < 0) and t >= 0 else None)
            for moves, taker, t in self._takes
        ]

    def hand(self, seat: int) -> list[int]:
        """Seat's cards as a sorted list of type digits."""
        types = self.board.types
        return [types[t] for t, k in enumerate(self._hands[seat]) for _ in range(k)]

    def hand_counts(self, seat: int) -> list[int]:
        """Seat's cards as counts per type index (``board.types`` order)."""
        return list(self._hands[seat])

    def hand_size(self, seat: int) -> int:
        return self._hand_size[seat]

    def display(self) -> list[int]:
        """The face-up cards, as a sorted list of type digits."""
        types = self.board.types
        return sorted(types[t] for t in self._display)

    def deck_size(self) -> int:
        return len(self._deck)

    def discard_pile(self) -> list[int]:
        """The (public) discard pile, type digits in the order the cards were put on it."""
        types = self.board.types
        return [types[t] for t in self._pile]

    def pieces_left(self, seat: int) -> tuple[int, int]:
        """``(cloisters, advisors)`` seat still has in its supply."""
        return self._cl_left[seat], self._ad_left[seat]

    def owners(self) -> list[int | None]:
        """Owner seat of every site (``board.site_ids`` order), ``None`` if empty."""
        return [None if o < 0 else o for o in self._owner]

    def owner(self, site: str) -> int | None:
        """Owner seat of one site (by id), ``None`` if empty."""
        o = self._owner[self.board.site_index[site]]
        return None if o < 0 else o

    def cloister_counts(self) -> list[list[int]]:
        """``[country][seat]`` cloister counts (``board.country_ids`` order)."""
        return [list(row) for row in self._cl]

    def advisor_counts(self) -> list[list[int]]:
        """``[country][seat]`` advisor counts."""
        return [list(row) for row in self._ad]

    def scores(self) -> list[int]:
        """Running totals per seat: the interim scoring once it happened, the final one at the end."""
        return list(self._scores)

    def interim_scores(self) -> list[int] | None:
        """Points of the interim scoring, or ``None`` before it."""
        return None if self._interim is None else list(self._interim)

    def final_breakdown(self) -> dict[str, list[int]] | None:
        """Points of the final scoring by kind (``cloisters``, ``alliances``, ``chains``), once over."""
        return None if self._final is None else {k: list(v) for k, v in self._final.items()}

    def scoring_now(self) -> dict[str, list[int]]:
        """What each scoring kind would give on the current board (for analysis and agents).

        Cached until the next piece is placed (observations ask for it at every decision).
        """
        now = self._scoring_parts()
        return {"cloisters": list(now[0]), "alliances": list(now[1]), "chains": list(now[2])}

    def _scoring_parts(self) -> tuple[list[int], list[int], list[int]]:
        """(cloister, alliance, chain) points per seat on the current board, cached (see scoring_now)."""
        now = self._now
        if now is None:
            b = self.board
            n = self._n
            parts = self._parts  # per-country cloister points, alliance points, per-seat chain points
            cl = [0] * n
            for c, row in enumerate(self._cl):
                pts = parts[0][c]
                if pts is None:
                    pts = parts[0][c] = scoring.cloister_points(row)
                for s in range(n):
                    cl[s] += pts[s]
            if parts[1] is None:
                parts[1] = scoring.alliance_points(self._ad, b.alliances)
            chains = parts[2]
            for s in range(n):
                if chains[s] is None:
                    chains[s] = scoring.seat_chain_points(self._owner, b.adjacency, s)
            now = self._now = (cl, list(parts[1]), list(chains))
        return now

    def projected_scores(self) -> list[int]:
        """Scores if every scoring still to come happened on the current board (public information only).

        Running totals, plus the cloister scoring again if the interim scoring is still to come,
        plus the final scoring. Equals :meth:`scores` once the game is over.
        """
        if self._phase == _OVER:
            return list(self._scores)
        cloisters, alliances, chains = self._scoring_parts()
        times = 2 if self._runouts == 0 else 1
        scores = self._scores
        return [scores[s] + times * cloisters[s] + alliances[s] + chains[s] for s in range(self._n)]

    def decision_log(self) -> list[tuple[int, str]]:
        """Every move so far as ``(seat, move)``: public information (a deck draw shows as
        ``draw:deck``, never the card)."""
        names = self.board.moves
        return [(seat, names[m]) for seat, m in zip(self._by, self._history, strict=True)]

    def with_hidden(self, hands: dict[int, list[int]], deck: list[int], seed: int | str | None = None) -> Game:
        """A copy of this game in which the hidden cards are replaced: ``hands`` maps seats to their
        new hands (type digits; sizes must stay), ``deck`` is the new deck (type digits, top first),
        and future shuffles follow ``ShuffleRng(seed)`` instead of this game's generator. The
        building block of :meth:`determinize` (``kardinal_env.koenig.knowledge`` samples what a seat
        cannot see and calls it).

        The new cards must be exactly the cards they replace, as a multiset (``DeckError``
        otherwise): a sampler that follows the public information always satisfies this, so the
        check tells nothing about the true cards that the sampler did not already know.

        The copy is a *determinized world*: it forgets this game's hidden chance history — the
        first deck order (:attr:`initial_deck` raises), a reshuffle order already drawn, a
        reshuffle order given to the constructor, and the cards the seats in ``hands`` drew from the
        deck (:meth:`deck_takes` shows them as ``None`` to every seat) — so nothing in it tells two
        games apart that differ only in those. It has no record (:meth:`to_record` raises).

        When the seat on turn gets a new hand, its pending decision follows that hand: its legal
        moves are generated anew, and right after a first piece in a country that held a cloister
        (where the true hand decided between a second piece and drawing, which the other seats do not
        see) the copy goes on as its own hand allows — to a second piece, or to drawing."""
        types = self.board.type_index
        g = self.clone()
        old: list[int] = [0] * self._T
        new: list[int] = [0] * self._T
        for seat, hand in hands.items():
            if not 0 <= seat < self._n or len(hand) != self._hand_size[seat]:
                raise DeckError(
                    f"hands: seat {seat} must get {self._hand_size[seat] if 0 <= seat < self._n else 0} cards"
                )
            counts = [0] * self._T
            for t in hand:
                counts[types[t]] += 1
                new[types[t]] += 1
            for t, k in enumerate(self._hands[seat]):
                old[t] += k
            g._hands[seat] = counts
        if len(deck) != len(self._deck):
            raise DeckError(f"deck: must hold {len(self._deck)} cards, got {len(deck)}")
        for t in deck:
            new[types[t]] += 1
        for t in self._deck:
            old[t] += 1
        if old != new:
            raise DeckError("hands/deck: the new cards are not the cards they replace")
        g._deck = [types[t] for t in reversed(deck)]
        g._rng = ShuffleRng(seed)
        g._plan = None
        g._deck0 = None
        g._reshuffled = None
        g._takes = [(moves, taker, -1 if taker in hands else t) for moves, taker, t in self._takes]
        if self._current in hands and self._phase != _OVER:
            g._moves = g._names = None
            first_piece = self._history[-1] < self.board.end_id if self._history else False
            if self._phase in (_SECOND, _DRAW) and self._pieces == 1 and first_piece and not self._was_empty:
                moves = g._second_moves()
                if moves:
                    g._phase = _SECOND
                    g._moves = moves
                else:
                    g._start_draw()
        return g

    def determinize(self, seat: int, rng: random.Random) -> Game:
        """A world ``seat`` cannot tell apart from this game: the cards it cannot see (the other
        seats' hands and the deck) dealt consistently with everything it has seen (the game protocol's
        ``determinize``; the dealing is :meth:`kardinal_env.koenig.knowledge.SeatKnowledge.deal`, built
        once per position and seat). ``rng`` (a ``random.Random``, or a
        :class:`~kardinal_env.core.shuffle.ShuffleRng`) gives one ``getrandbits(64)``: the seed of the
        world's ``ShuffleRng``, which deals the cards and then seeds the world's future shuffles."""
        if not (isinstance(seat, int) and 0 <= seat < self._n):
            raise ValueError(f"determinize: seat must be 0..{self._n - 1}, got {seat!r}")
        cache = self._knowledge
        if cache is None:
            cache = self._knowledge = {}
        entry = cache.get(seat)
        moves = len(self._history)
        if entry is None or entry[0] != moves:
            entry = cache[seat] = (moves, SeatKnowledge(self, seat))
        return entry[1].deal(rng)

    def live_view(self) -> LiveView:
        """Public state and one seat's cards as live read-only references (:class:`LiveView`): the
        fast path for observation encoders. Holds no other seat's cards and not the deck order."""
        return LiveView(
            self._owner,
            self._cl,
            self._ad,
            self._hand_size,
            self._cl_left,
            self._ad_left,
            self._scores,
            self._display,
            self._pile,
            len(self._deck),
            self._runouts,
            self._last_round,
            self._phase,
            self._current,
            self._country,
            self._pieces,
            self._paid + self._discards,
            self._placements,
        )

    def hand_counts_view(self, seat: int) -> list[int]:
        """Seat's cards per type index as the engine's own list (read-only; see :meth:`live_view`)."""
        return self._hands[seat]

    def winners(self) -> list[int]:
        """Seats with the highest final score (all of them when tied); only once the game is over."""
        if self._winners is None:
            raise GameNotOverError("winners() is only defined once the game is over")
        return list(self._winners)

    def finishing_order(self) -> list[list[int]]:
        """Groups of seats from first place to last by final score (the rules have no tie-break:
        tied seats share a place); the first group is :meth:`winners`. Only once the game is over."""
        if self._winners is None:
            raise GameNotOverError("finishing_order() is only defined once the game is over")
        return finishing_order_from_keys(self._scores)

    def snapshot(self) -> dict:
        """Every piece of state (hidden cards included) as plain data; equal snapshots, equal games."""
        types = self.board.types
        return {
            "current": self._current,
            "phase": PHASES[self._phase],
            "hands": [self.hand(s) for s in range(self._n)],
            "display": [types[t] for t in self._display],
            "deck": [types[t] for t in reversed(self._deck)],
            "pile": self.discard_pile(),
            "owners": self.owners(),
            "advisors": self.advisor_counts(),
            "pieces_left": [self.pieces_left(s) for s in range(self._n)],
            "scores": self.scores(),
            "runouts": self._runouts,
            "last_round": self._last_round,
            "turn": (self._country, self._pieces, self._paid, self._discards),
            "history": list(self._history),
            "missed": list(self._missed),
            "reshuffled": self.reshuffle_order,
            "winners": self._winners,
        }

    # ------------------------------------------------------------------ moves
    def legal_move_ids(self) -> list[int]:
        """Legal moves of the current decision as ids into ``board.moves``, each once.

        The list is shared with the engine's cache: do not modify it.
        """
        moves = self._moves
        if moves is None:
            moves = self._moves = self._generate()
        return moves

    def legal_moves(self) -> list[str]:
        """Legal moves of the current decision in notation, each once (empty once the game is over)."""
        names = self._names
        if names is None:
            moves = self._moves
            if moves is None:
                moves = self._moves = self._generate()
            names = self._names = list(map(self.board.moves.__getitem__, moves))
        return list(names)

    def play(self, move: str) -> None:
        """Play one move in notation; :class:`IllegalMoveError` names the rule it breaks."""
        moves = self._moves
        if moves is None:
            moves = self._moves = self._generate()
        m = self.board.move_index.get(move) if isinstance(move, str) else None
        if m is None or m not in moves:
            self._reject(move)
        self._apply(m)

    def play_id(self, move_id: int) -> None:
        """Play a move by id (checked like :meth:`play`)."""
        if move_id not in self.legal_move_ids():
            if isinstance(move_id, int) and 0 <= move_id < self.board.num_moves:
                self._reject(self.board.moves[move_id])
            raise IllegalMoveError(f"malformed move: no move id {move_id!r} on this board", "malformed move", move_id)
        self._apply(move_id)

    def apply_legal_id(self, move_id: int) -> None:
        """Play a move id the caller *knows* is legal now (e.g. from a mask of this decision); unchecked."""
        self._apply(move_id)

    def clone(self) -> Game:
        """An independent copy (for search); it shuffles the same way this game would."""
        g = Game.__new__(Game)
        g.rules = self.rules
        g.board = self.board
        g._n = self._n
        g._T = self._T
        g._hands = [list(h) for h in self._hands]
        g._hand_size = list(self._hand_size)
        g._display = list(self._display)
        g._deck = list(self._deck)
        g._pile = list(self._pile)
        g._owner = list(self._owner)
        g._free = [list(f) for f in self._free]
        g._kids = list(self._kids)  # tuples, replaced on change: safe to share
        g._cl = [list(r) for r in self._cl]
        g._cl_total = list(self._cl_total)
        g._cl_max = list(self._cl_max)
        g._ad = [list(r) for r in self._ad]
        g._ad_total = list(self._ad_total)
        g._cl_left = list(self._cl_left)
        g._ad_left = list(self._ad_left)
        g._scores = list(self._scores)
        g._interim = self._interim
        g._final = self._final
        g._runouts = self._runouts
        g._last_round = self._last_round
        g._current = self._current
        g._phase = self._phase
        g._country = self._country
        g._pieces = self._pieces
        g._paid = self._paid
        g._discards = self._discards
        g._was_empty = self._was_empty
        g._moves = self._moves  # cached lists are replaced, never mutated: safe to share
        g._names = self._names
        g._history = list(self._history)
        g._by = list(self._by)
        g._rng = ShuffleRng.from_state(self._rng.state)
        g._deck0 = self._deck0
        g._plan = self._plan
        g._reshuffled = self._reshuffled
        g._missed = list(self._missed)
        g._winners = self._winners
        g._placements = self._placements
        g._takes = list(self._takes)
        g._knowledge = None
        g._now = self._now  # a tuple of lists never mutated: safe to share
        g._parts = [list(self._parts[0]), self._parts[1], list(self._parts[2])]
        return g

    # ------------------------------------------------------------------ records
    def to_record(self) -> dict:
        """This game as a ``kardinal-koenig-record/1`` dict (see ``kardinal_env.koenig.record``). Before
        the first run-out ``reshuffle`` is the order given to the constructor (``None`` if none was:
        the game shuffles when the run-out comes). A determinized world has none (``RuntimeError``)."""
        if self._deck0 is None:
            raise RuntimeError("a determinized world (Game.with_hidden) has no record: its hidden cards are sampled")
        over = self.is_over
        reshuffle = self.reshuffle_order
        if reshuffle is None and self._plan is not None:
            types = self.board.types
            reshuffle = [types[t] for t in self._plan]
        return make_record(
            self.rules,
            self.initial_deck,
            reshuffle,
            self.history,
            self.scores() if over else None,
            self.winners() if over else None,
        )

    @classmethod
    def from_record(cls, record: dict, source: str = "record") -> Game:
        """Replay a ``kardinal-koenig-record/1`` dict (finished or in progress); ``RecordError`` names
        the bad field, or the move index and the rule it breaks. A ``reshuffle`` must be given when
        the moves run the deck out for the first time (a finished game always has). A record that
        stops before the first run-out loads as a game in progress: with a ``reshuffle`` (cards of the
        deck that hold the discard pile so far) the game uses that order when the run-out comes
        (the move that runs the deck out raises :class:`DeckError` if the pile is not exactly its
        cards, and the game is unusable after it); without
        one it shuffles its discard pile with a generator seeded from the record's deck."""
        parts = parse_record(record, source)
        seed = "kardinal-koenig-record:" + json.dumps(parts.deck)
        try:
            game = cls(parts.rules, seed=seed, deck=parts.deck, reshuffle=parts.reshuffle)
        except DeckError as exc:
            field, _, detail = str(exc).partition(": ")
            raise RecordError(f"{source}: field {field!r}: {detail}") from None
        for i, move in enumerate(parts.moves):
            try:
                play_record_move(game, i, move, source)
            except DeckError as exc:
                raise RecordError(f"{source}: field 'reshuffle' does not fit the game at move {i}: {exc}") from None
            if parts.reshuffle is None and game.runouts:
                raise RecordError(
                    f"{source}: field 'reshuffle' is null but the deck runs out for the first time at move {i} "
                    f"({move!r})"
                )
        lacks = game._plan_lacks()
        if lacks is not None:
            raise RecordError(
                f"{source}: field 'reshuffle' cannot be the discard pile at the first run-out: it lacks "
                f"{lacks} of the pile after {len(parts.moves)} moves"
            )
        check_replayed_result(parts.result, game, source)
        return game

    def _plan_lacks(self) -> str | None:
        """For :meth:`from_record`: the cards of the discard pile so far that a reshuffle order still
        waiting for the first run-out lacks (a census), or None. Moves that stop before the first
        run-out (a finished game always ran out twice) leave the order waiting, when the pile must be
        exactly its cards; it already holds the pile so far, or it never will."""
        if self._plan is None or self._reshuffled is not None:
            return None
        missing = list(self._pile)
        for t in self._plan:
            if t in missing:
                missing.remove(t)
        if not missing:
            return None
        types = self.board.types
        return card_census([types[t] for t in missing])

    def __repr__(self) -> str:
        return (
            f"Game(players={self._n}, phase={self.phase!r}, current_player={self.current_player}, "
            f"moves={len(self._history)}, deck={len(self._deck)}, runouts={self._runouts})"
        )

    # ================================================================== internals
    def _pay_options(self, hand: list[int], country: int, budget: int) -> list[int]:
        """Payment offsets ``j`` (0 = single, 1 + t = pair of t) affordable for ``country`` within ``budget`` cards."""
        opts = [0] if hand[self.board.country_type[country]] else []
        if budget >= 2:
            opts += [1 + t for t, k in enumerate(hand) if k >= 2]
        return opts

    def _generate(self) -> list[int]:
        phase = self._phase
        b = self.board
        if phase == _DRAW:
            base = b.draw_base
            out: list[int] = [base + t for t in sorted(set(self._display))]
            if self._deck:
                out.append(b.deck_id)
            return out
        seat = self._current
        hand = self._hands[seat]
        P = b.pay_stride
        if phase == _PLACE:
            # Singles pay the countries their type names; a pair (j = 1 + t) pays every country.
            pairs = [1 + t for t, k in enumerate(hand) if k >= 2]
            type_countries = b.type_countries
            singles = [c for t, k in enumerate(hand) if k for c in type_countries[t]]
            out = []
            if self._cl_left[seat]:
                kids = self._kids
                for c in singles:
                    out += kids[c][0]
                for j in pairs:
                    for k in kids:
                        out += k[j]
            if self._ad_left[seat]:
                cl_max, ad_total = self._cl_max, self._ad_total
                abase = b.advisor_base
                if pairs:
                    country_type = b.country_type
                    for c in range(len(cl_max)):
                        if ad_total[c] < cl_max[c]:  # also excludes empty countries (cl_max 0)
                            base = abase + c * P
                            if hand[country_type[c]]:
                                out.append(base)
                            out += [base + j for j in pairs]
                else:
                    out += [abase + c * P for c in singles if ad_total[c] < cl_max[c]]
            dbase = b.discard_base
            out += [dbase + t for t, k in enumerate(hand) if k]
            return out
        if phase == _SECOND:
            return self._second_moves()
        if phase == _DISCARD:
            dbase = b.discard_base
            out = [b.end_id]
            out += [dbase + t for t, k in enumerate(hand) if k]
            return out
        return []

    def _second_moves(self) -> list[int]:
        """Second-piece moves (with ``end``) in this turn's country; empty if no second piece is legal."""
        b = self.board
        seat = self._current
        c = self._country
        opts = self._pay_options(self._hands[seat], c, MAX_CARDS_PER_TURN - self._paid)
        if not opts:
            return []
        P = b.pay_stride
        out: list[int] = []
        if self._cl_left[seat]:
            k = self._kids[c]
            for j in opts:
                out += k[j]
        if self._ad_left[seat] and self._ad_total[c] < self._cl_max[c]:
            base = b.advisor_base + c * P
            out += [base + j for j in opts]
        if out:
            out.append(b.end_id)
        return out

    def _apply(self, m: int) -> None:
        b = self.board
        self._history.append(m)
        self._by.append(self._current)
        self._names = None
        if m >= b.draw_base:  # a draw: the most frequent decision
            seat = self._current
            if m == b.deck_id:
                t = self._deck.pop()
                self._takes.append((len(self._history), seat, t))
                if not self._deck:
                    self._runout()
            else:
                t = m - b.draw_base
                self._display.remove(t)
            self._hands[seat][t] += 1
            self._hand_size[seat] += 1
            if self._hand_size[seat] >= HAND_SIZE or not (self._display or self._deck):
                self._end_turn()
            else:
                self._moves = None
            return
        if m < b.end_id:
            P = b.pay_stride
            seat = self._current
            hand = self._hands[seat]
            if m < b.advisor_base:
                site, j = divmod(m, P)
                c = b.site_country[site]
            else:
                c, j = divmod(m - b.advisor_base, P)
                site = -1
            # Pay.
            if j:
                t = j - 1
                hand[t] -= 2
                self._pile += (t, t)
                self._hand_size[seat] -= 2
                self._paid += 2
            else:
                t = b.country_type[c]
                hand[t] -= 1
                self._pile.append(t)
                self._hand_size[seat] -= 1
                self._paid += 1
            was_empty = self._cl_total[c] == 0
            self._now = None
            if site >= 0:
                self._parts[0][c] = None
                self._parts[2][seat] = None
                self._owner[site] = seat
                self._free[c].remove(site)
                self._kids[c] = _site_ids(self._free[c], b)
                row = self._cl[c]
                row[seat] += 1
                self._cl_total[c] += 1
                if row[seat] > self._cl_max[c]:
                    self._cl_max[c] = row[seat]
                self._cl_left[seat] -= 1
            else:
                self._parts[1] = None
                self._ad[c][seat] += 1
                self._ad_total[c] += 1
                self._ad_left[seat] -= 1
            self._pieces += 1
            self._placements += 1
            if self._pieces == 1:
                self._country = c
                self._was_empty = was_empty
                if not was_empty:
                    moves = self._second_moves()
                    if moves:
                        self._phase = _SECOND
                        self._moves = moves
                        return
            self._start_draw()
        elif m == b.end_id:
            self._start_draw()
        else:  # a discard
            seat = self._current
            t = m - b.discard_base
            self._hands[seat][t] -= 1
            self._hand_size[seat] -= 1
            self._pile.append(t)
            self._discards += 1
            if self.rules.discard == "one" or self._discards == MAX_CARDS_PER_TURN or not self._hand_size[seat]:
                self._start_draw()
            else:
                self._phase = _DISCARD
                self._moves = None

    def _start_draw(self) -> None:
        if self._hand_size[self._current] < HAND_SIZE and (self._display or self._deck):
            self._phase = _DRAW
            self._moves = None
        else:
            self._end_turn()

    def _runout(self) -> None:
        """The deck's last card was just taken."""
        self._runouts += 1
        if self._runouts == 1:
            points = [0] * self._n
            for row in self._cl:
                for s, p in enumerate(scoring.cloister_points(row)):
                    points[s] += p
            self._interim = points
            for s in range(self._n):
                self._scores[s] += points[s]
            pile = self._pile
            if self._plan is not None:
                if sorted(self._plan) != sorted(pile):
                    types = self.board.types
                    raise DeckError(
                        f"reshuffle: holds {card_census([types[t] for t in self._plan])} but the discard pile is "
                        f"{card_census([types[t] for t in pile])}"
                    )
                order = list(self._plan)
            else:
                order = list(pile)
                self._rng.shuffle(order)
            self._reshuffled = order
            self._pile = []
            self._deck = order[::-1]
            if not self._deck:  # cannot happen in play: the current turn's cards are on the pile
                self._runout()
        else:
            self._last_round = True

    def _end_turn(self) -> None:
        """Refill the display, then hand the turn on (or end the game)."""
        display = self._display
        while len(display) < DISPLAY_SIZE and self._deck:
            t = self._deck.pop()
            display.append(t)
            self._takes.append((len(self._history), -1, t))
            if not self._deck:
                self._runout()  # the first time the refill goes on from the new deck
        n = self._n
        seat = self._current
        self._country = -1
        self._pieces = self._paid = self._discards = 0
        self._was_empty = False
        while True:
            if self._last_round and seat == n - 1:
                self._finish()
                return
            seat = (seat + 1) % n
            if self._hand_size[seat]:
                break
            self._missed.append((len(self._history), seat))
            if not self._last_round and not any(self._hand_size):
                raise AssertionError("engine bug: no seat holds a card before the last round")
        self._current = seat
        self._phase = _PLACE
        self._moves = None

    def _finish(self) -> None:
        final = self.scoring_now()
        self._final = final
        for s in range(self._n):
            self._scores[s] += final["cloisters"][s] + final["alliances"][s] + final["chains"][s]
        self._winners = scoring.winners(self._scores)
        self._phase = _OVER
        self._moves = []

    # ------------------------------------------------------------------ diagnosis
    def _reject(self, move: object) -> NoReturn:
        rule, reason = self._explain(move)
        raise IllegalMoveError(f"{rule}: {reason} ({move!r})", rule, move)

    def _explain(self, move: object) -> tuple[str, str]:
        """(rule, reason) for a move string that is not legal now."""
        b = self.board
        try:
            p = parse_move(move)
        except MalformedMoveError as exc:
            return "malformed move", str(exc)
        phase = self._phase
        if phase == _OVER:
            return "game over", "the game is over; no move is legal"
        seat = self._current
        hand = self._hands[seat]
        if p.kind in ("K", "A"):
            if p.kind == "K":
                if p.target not in b.site_index:
                    return "unknown id", f"no site {p.target!r} on board {b.name!r}"
                site = b.site_index[p.target]
                c = b.site_country[site]
            else:
                if p.target not in b.country_index:
                    return "unknown id", f"no country {p.target!r} on board {b.name!r}"
                site = -1
                c = b.country_index[p.target]
            cname = b.country_ids[c]
            if p.card not in b.type_index:
                return "unknown id", f"no card type {p.card} on board {b.name!r} (types {list(b.types)})"
            t = b.type_index[p.card]
            cost = 2 if p.pair else 1
            if phase == _DRAW:
                if self._pieces == MAX_PIECES_PER_TURN:
                    return "two pieces", f"seat {seat} placed two pieces this turn; it must now draw"
                if self._pieces == 1 and self._was_empty:
                    return "empty country", (
                        f"{b.country_ids[self._country]} was empty at the start of the turn: it takes one "
                        "cloister and the turn goes on to drawing"
                    )
                if self._pieces == 1:
                    return "phase", f"no second piece is legal for seat {seat}; it must now draw"
                return "phase", f"seat {seat} discarded this turn and must now draw (draw:{{t}} or draw:deck)"
            if phase == _DISCARD:
                return "discard", "discarding is instead of placing: after a discard no piece may be placed"
            if phase == _SECOND and c != self._country:
                return "one country", (
                    f"this turn's pieces go to {b.country_ids[self._country]}; {cname} is another country"
                )
            if phase == _SECOND and self._paid + cost > MAX_CARDS_PER_TURN:
                return "three cards", f"{self._paid} cards are paid this turn; {cost} more would exceed 3"
            if not p.pair and c not in b.type_countries[t]:
                named = b.types[b.country_type[c]]
                return "payment", f"a type-{p.card} card does not name {cname}; pay with a type-{named} card or a pair"
            if hand[t] < cost:
                have = hand[t]
                return "payment", f"seat {seat} holds {have} card(s) of type {p.card}, the payment needs {cost}"
            if phase == _PLACE and self._cl_total[c] == 0 and site < 0:
                return "empty country", f"{cname} holds no cloister: the first piece there must be a cloister"
            if site >= 0:
                if not self._cl_left[seat]:
                    return "supply", f"seat {seat} has no cloister left"
                if self._owner[site] >= 0:
                    return "site", f"site {p.target} already holds a cloister of seat {self._owner[site]}"
            else:
                if not self._ad_left[seat]:
                    return "supply", f"seat {seat} has no advisor left"
                if self._ad_total[c] + 1 > self._cl_max[c]:
                    return "advisor limit", (
                        f"{cname} would hold {self._ad_total[c] + 1} advisors but no seat has more than "
                        f"{self._cl_max[c]} cloister(s) there"
                    )
            raise AssertionError(f"engine bug: {move!r} is rejected but no rule explains why")
        if p.kind == "end":
            if phase in (_PLACE, _DRAW):
                return "end", "'end' only stops after a first piece or during discarding (discard='any')"
            raise AssertionError(f"engine bug: {move!r} is rejected but no rule explains why")
        if p.kind == "discard":
            if p.card not in b.type_index:
                return "unknown id", f"no card type {p.card} on board {b.name!r} (types {list(b.types)})"
            if phase == _SECOND:
                return "discard", "a piece was placed this turn: discarding is instead of placing"
            if phase == _DRAW:
                return "phase", f"seat {seat} must now draw (draw:{{t}} or draw:deck)"
            if not hand[b.type_index[p.card]]:
                return "discard", f"seat {seat} holds no card of type {p.card}"
            raise AssertionError(f"engine bug: {move!r} is rejected but no rule explains why")
        # draw
        if phase != _DRAW:
            return (
                "phase",
                f"seat {seat} must now {('place or discard', 'place a second piece or end', 'discard or end')[phase]}",
            )
        if p.target is None:
            return "draw", "the deck is empty; draw from the display"
        if p.target not in b.type_index:
            return "unknown id", f"no card type {p.target} on board {b.name!r} (types {list(b.types)})"
        return "draw", f"the display holds no card of type {p.target} (display: {self.display()})"


def _site_ids(free: list[int], board: Board) -> tuple[tuple[int, ...], ...]:
    """Cloister move ids of the free sites of one country, one tuple per payment offset ``j``."""
    if not free:
        return ((),) * board.pay_stride
    site_moves = board.site_moves
    return tuple(zip(*[site_moves[s] for s in free]))


def card_census(cards: list[int]) -> str:
    """Cards (type digits) as a census for error messages: ``{type 1: 2, type 4: 1}``."""
    counts: dict[int, int] = {}
    for t in cards:
        counts[t] = counts.get(t, 0) + 1
    return "{" + ", ".join(f"type {t}: {counts[t]}" for t in sorted(counts)) + "}"
