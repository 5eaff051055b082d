"""The state of a game of Kardinal & König and every public query of it (no query changes anything).

* :data:`PHASES`: the decisions of a turn (the engine's table); the state keeps the phase as an index
  (:data:`PLACE` .. :data:`OVER`). :data:`MAX_PIECES_PER_TURN` and :data:`MAX_CARDS_PER_TURN`: the most
  pieces and cards (paid or discarded) one turn takes.
* :class:`GameState`: the fields of a game (the engine deals and changes them) and the queries: the
  public state, the scorings on the current board (cached until the next piece), the history and the
  public decision log, the chance history (each card taken from the deck shown only to the seat that saw
  it), the result, :meth:`GameState.snapshot` and :meth:`GameState.live_view` (a :class:`LiveView`).

Inside, cards are type indices, sites and countries board indices, seats absolute; queries answer type digits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from kardinal_env.core.errors import GameNotOverError
from kardinal_env.core.protocol import finishing_order_from_keys
from kardinal_env.koenig import scoring

if TYPE_CHECKING:
    from kardinal_env.core.shuffle import ShuffleRng
    from kardinal_env.koenig.board import Board
    from kardinal_env.koenig.rules import Rules

PHASES = ("place", "second", "discard", "draw", "over")
PLACE, SECOND, DISCARD, DRAW, OVER = range(5)
MAX_CARDS_PER_TURN = 3
MAX_PIECES_PER_TURN = 2


class LiveView(NamedTuple):
    """Read-only live references into a game's *public* state (:meth:`Game.live_view`), for encoders that
    must not copy: never modify them; fetch a new view after every move. Indices in board order."""

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


class GameState:
    """The fields of a Kardinal & König game and its public queries (module docstring); only reads."""

    rules: Rules
    board: Board
    _n: int  # players
    _hands: list[list[int]]  # [seat][type]: counts
    _hand_size: list[int]
    _display: list[int]
    _deck: list[int]  # top of the deck at the end
    _owner: list[int]  # per site: seat, or -1 when empty
    _kids: list[tuple[tuple[int, ...], ...]]  # per country: cloister move ids of its free sites, per payment
    _cl: list[list[int]]  # [country][seat]: cloisters
    _cl_max: list[int]  # per country: the most cloisters one seat has there
    _ad: list[list[int]]  # [country][seat]: advisors
    _ad_total: list[int]
    _cl_left: list[int]
    _ad_left: list[int]
    _scores: list[int]
    _runouts: int
    _last_round: bool
    _current: int
    _phase: int  # index into PHASES
    _country: int  # this turn's country, -1 before its first piece
    _pieces: int
    _paid: int
    _discards: int
    _was_empty: bool
    _by: list[int]  # the seat that made each move of _history
    _rng: ShuffleRng
    _placements: int
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
    __slots__ = tuple(__annotations__)  # the fields above

    @property
    def history(self) -> list[str]:
        return list(map(self.board.moves.__getitem__, self._history))

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
        """The deck as shuffled before the deal (type digits, top first); ``RuntimeError`` in a determinized world."""
        if self._deck0 is None:
            raise RuntimeError("a determinized world (Game.with_hidden) does not know the deck's first order")
        return self._digits(self._deck0)

    @property
    def reshuffle_order(self) -> list[int] | None:
        """The order the pile took at the first run-out (top first), or ``None`` (before it, or in a world)."""
        return None if self._reshuffled is None else self._digits(self._reshuffled)

    @property
    def reshuffle_plan(self) -> list[int] | None:
        """The ``reshuffle=`` order given (type digits, top first), or ``None``."""
        return None if self._plan is None else self._digits(self._plan)

    def deck_takes(self, seat: int) -> list[tuple[int, int, int | None]]:
        """Every card taken from the deck after the deal, as ``seat`` saw it: ``(moves played then, taker,
        card)``, taker a seat (``draw:deck``) or ``-1`` (a refill), the type digit only where ``seat`` saw it
        (its own draws and the refills), else ``None``."""
        types = self.board.types
        return [
            (moves, taker, types[t] if (taker == seat or taker < 0) and t >= 0 else None)
            for moves, taker, t in self._takes
        ]

    def hand(self, seat: int) -> list[int]:
        """Seat's cards as a sorted list of type digits."""
        return self._digits([t for t, k in enumerate(self._hands[seat]) for _ in range(k)])

    def hand_counts(self, seat: int) -> list[int]:
        """Seat's cards as counts per type index (``board.types`` order)."""
        return list(self._hands[seat])

    def hand_size(self, seat: int) -> int:
        return self._hand_size[seat]

    def display(self) -> list[int]:
        """The face-up cards, as a sorted list of type digits."""
        return sorted(self._digits(self._display))

    def deck_size(self) -> int:
        return len(self._deck)

    def discard_pile(self) -> list[int]:
        """The (public) discard pile, type digits in the order the cards were put on it."""
        return self._digits(self._pile)

    def pieces_left(self, seat: int) -> tuple[int, int]:
        """``(cloisters, advisors)`` seat still has in its supply."""
        return self._cl_left[seat], self._ad_left[seat]

    def owners(self) -> list[int | None]:
        """Owner seat of every site (``board.site_ids`` order), ``None`` if empty."""
        return [None if o < 0 else o for o in self._owner]

    def owner(self, site: str) -> int | None:
        """Owner seat of one site (by id), ``None`` if empty."""
        return self.owners()[self.board.site_index[site]]

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
        """What each scoring kind would give on the current board (cached until the next piece)."""
        return {kind: list(points) for kind, points in zip(("cloisters", "alliances", "chains"), self._scoring_parts())}

    def _scoring_parts(self) -> tuple[list[int], list[int], list[int]]:
        """(cloister, alliance, chain) points per seat on the current board, cached."""
        now = self._now
        if now is None:
            b = self.board
            parts = self._parts  # per-country cloister points, alliance points, per-seat chain points
            countries, chains = parts[0], parts[2]
            for c, row in enumerate(self._cl):
                if countries[c] is None:
                    countries[c] = scoring.cloister_points(row)
            if parts[1] is None:
                parts[1] = scoring.alliance_points(self._ad, b.alliances)
            for s in range(self._n):
                if chains[s] is None:
                    chains[s] = scoring.seat_chain_points(self._owner, b.adjacency, s)
            now = self._now = ([sum(p) for p in zip(*countries)], list(parts[1]), list(chains))
        return now

    def projected_scores(self) -> list[int]:
        """Scores if every scoring still to come happened on the current board (public information): the
        running totals plus the cloister scoring again before the interim one, plus the final scoring."""
        if self._phase == OVER:
            return list(self._scores)
        cloisters, alliances, chains = self._scoring_parts()
        times = 2 if self._runouts == 0 else 1
        return [self._scores[s] + times * cloisters[s] + alliances[s] + chains[s] for s in range(self._n)]

    def decision_log(self) -> list[tuple[int, str]]:
        """Every move so far as ``(seat, move)``: public (a deck draw shows as ``draw:deck``)."""
        names = self.board.moves
        return [(seat, names[m]) for seat, m in zip(self._by, self._history, strict=True)]

    def live_view(self) -> LiveView:
        """The public state as live read-only references (:class:`LiveView`): no hidden card, no deck order."""
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
        """Groups of seats by final score, tied seats sharing a place; only once the game is over."""
        if self._winners is None:
            raise GameNotOverError("finishing_order() is only defined once the game is over")
        return finishing_order_from_keys(self._scores)

    def snapshot(self) -> dict:
        """Every piece of state (hidden cards included) as plain data; equal snapshots, equal games."""
        return {
            "current": self._current,
            "phase": PHASES[self._phase],
            "hands": [self.hand(s) for s in range(self._n)],
            "display": self._digits(self._display),
            "deck": self._digits(self._deck[::-1]),
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

    def _digits(self, cards: list[int]) -> list[int]:
        """Type digits of cards given as type indices."""
        return list(map(self.board.types.__getitem__, cards))
