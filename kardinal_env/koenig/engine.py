"""The Kardinal & König rules engine: exact, fast, and free of RL imports.

Usage::

    from kardinal_env.koenig import Game, Rules, IllegalMoveError
    game = Game(Rules(players=4), seed=0)
    while not game.is_over:
        game.play(game.legal_moves()[0])
    game.scores(), game.winners()

The engine knows everything; what a seat may know is :mod:`kardinal_env.koenig.knowledge`'s job.

Decisions
---------
A turn is a sequence of decisions by the seat on turn, each one move string (``kardinal_env.koenig.notation``):

=========  ================================================================  ===========================================
phase      when                                                              moves offered
=========  ================================================================  ===========================================
place      start of a turn                                                   ``K@{site}/{pay}``, ``A@{country}/{pay}``,
                                                                             ``discard:{t}``
second     after a first piece in a country that held a cloister at the      second pieces in the same country, and
           start of the turn, when a second piece is legal                   ``end``
discard    ``discard="any"``, after a discard, while fewer than 3 were made  ``discard:{t}`` and ``end``
           and cards are left
draw       the hand holds fewer than 3 cards and the display or the deck     ``draw:{t}`` per type in the display,
           has a card                                                        ``draw:deck`` while the deck has cards
over       the game is over                                                  none
=========  ================================================================  ===========================================

Everything else happens by itself: the turn goes on to drawing after a piece in a country that was empty, after the
second piece, after the last possible discard, or when no second piece is legal; the display is refilled from the deck
once the hand is full; a seat without cards at the start of its turn misses it.

Placing: one country per turn, at most two pieces, at most three cards. A piece costs one card whose type names the
country, or a pair of equal cards (a joker; offered as well when the type names the country). A cloister needs an empty
site; an advisor needs the country's advisor count, after placing it, to be at most the largest cloister count any one
seat has there (this turn's cloisters included). A country without cloisters at the start of the turn takes exactly one
cloister. A seat without cloisters (advisors) left cannot place one. Discarding is always allowed instead of placing.

Running out: the deck runs out when its last card is taken (a draw or a display refill). The first time, the interim
scoring (cloisters only) is added at once and the discard pile is shuffled into a new deck; play goes on, the current
draw or refill included. The second time, the deck is not replaced: the round is finished (the game ends when the turn
of seat n-1 ends, the current one included) and the final scoring (cloisters, alliances, chains) is added.
:meth:`Game.scores` are running totals.

Errors
------
A move that is not legal raises :class:`IllegalMoveError` (a ``ValueError``) and changes nothing. Its message starts
with the rule broken, also in its ``rule`` attribute: ``"malformed move"``, ``"unknown id"``, ``"game over"``,
``"phase"``, ``"payment"``, ``"one country"``, ``"two pieces"``, ``"three cards"``, ``"empty country"``, ``"advisor
limit"``, ``"supply"``, ``"site"``, ``"discard"``, ``"end"`` or ``"draw"`` (:mod:`kardinal_env.koenig.explain` works it
out).

Chance
------
``Game(rules, seed)`` shuffles the deck, and later the discard pile, with :class:`~kardinal_env.core.shuffle.ShuffleRng`
seeded with ``seed`` (the compiled core's too: a seed deals the same game on both backends). ``deck=`` and
``reshuffle=`` fix the card orders instead (type digits, top first: how records replay); :attr:`Game.initial_deck` and
:attr:`Game.reshuffle_order` give them. A ``reshuffle=`` order must hold exactly the discard pile when the deck runs
out: that move raises :class:`DeckError` otherwise (and the game is unusable after it). :mod:`kardinal_env.koenig.deck`
checks them.

The game protocol
-----------------
``Game`` implements :mod:`kardinal_env.core.protocol` (action ids are ``board.moves`` indices):
:meth:`Game.finishing_order` by final score (tied seats share a place), and :meth:`Game.determinize`, a world the seat
cannot tell apart, dealt by :mod:`kardinal_env.koenig.knowledge` through :meth:`Game.with_hidden`.
:meth:`Game.deck_takes` shows each card taken from the deck only to the seat that saw it.

This module deals and plays (the rules above) and makes the determinized worlds; :mod:`~kardinal_env.koenig.state`
holds the fields and every query, :mod:`~kardinal_env.koenig.explain` the diagnosis of an illegal move,
:mod:`~kardinal_env.koenig.deck` the checks of given card orders. Speed: the legal ids of a decision are generated once
and cached, and the state keeps per-country counts, maxima and free sites' move ids, so no decision rescans the board.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, ClassVar

from kardinal_env.core.checks import check_action
from kardinal_env.core.errors import IllegalMoveError, RecordError
from kardinal_env.core.fields import copy_fields
from kardinal_env.core.game_base import TurnBasedGame, core_subclass, resolve_rules
from kardinal_env.core.records import check_replayed_result, play_record_move
from kardinal_env.core.shuffle import ShuffleRng
from kardinal_env.koenig import scoring
from kardinal_env.koenig.board import Board
from kardinal_env.koenig.deck import DeckError, card_census, check_order, check_pile, check_plan
from kardinal_env.koenig.explain import Explain
from kardinal_env.koenig.knowledge import SeatKnowledge
from kardinal_env.koenig.record import make_record, parse_record
from kardinal_env.koenig.rules import ADVISORS, CLOISTERS, DISPLAY_SIZE, HAND_SIZE, Rules
from kardinal_env.koenig.state import DISCARD, DRAW, MAX_CARDS_PER_TURN, OVER, PHASES, PLACE, SECOND

if TYPE_CHECKING:
    import random

__all__ = ["Game", "IllegalMoveError", "DeckError", "PHASES"]

Seed = int | str | None
Cards = list[int] | None  # a card order (type digits, top first)


class Game(TurnBasedGame, Explain):
    """One game of Kardinal & König (module docstring); a :class:`~kardinal_env.koenig.core_game.CoreGame`
    (same API and results) when the compiled core is used, whereas :meth:`Game.reference` is always this engine."""

    #: Whether the game's state lives in the compiled core (:class:`~kardinal_env.koenig.core_game.CoreGame`).
    compiled: ClassVar[bool] = False
    PHASE_NAMES = PHASES
    _OVER_PHASE = OVER
    __slots__ = ()  # the fields are GameState's

    def __new__(cls, rules: Rules | None = None, seed: Seed = None, *, backend: str | None = None, **kw):
        return object.__new__(core_subclass(cls, Game, backend, "kardinal_env.koenig.core_game"))

    def __getnewargs_ex__(self) -> tuple[tuple, dict]:
        return (), {"backend": "python"}  # unpickling rebuilds the class it was, never redirected

    def __init__(
        self, rules: Rules | None = None, seed: Seed = None, *, deck: Cards = None, reshuffle: Cards = None, **options
    ):
        options.pop("backend", None)  # __new__'s choice
        rules = self.rules = resolve_rules(rules, options, Rules)
        b = self.board = rules.compiled
        n = self._n = rules.players
        T = len(b.types)
        C = len(b.country_ids)
        self._rng = ShuffleRng(seed)
        cards = rules.deck_cards  # sorted
        if deck is None:
            order = [b.type_index[t] for t in cards]
            self._rng.shuffle(order)
        else:
            order = check_order(b, n, deck, cards, "deck")
        self._deck0 = order  # top first, type indices; never mutated
        self._plan = None
        if reshuffle is not None:
            plan = self._plan = check_order(b, n, reshuffle, None, "reshuffle")
            check_plan(b, n, plan, cards)  # the pile at the run-out is part of the deck's cards
        self._reshuffled = None
        self._deck = order[::-1]  # top of the deck at the end
        self._hands = [[0] * T for _ in range(n)]
        for hand in self._hands:
            for _ in range(HAND_SIZE):
                hand[self._deck.pop()] += 1
        self._hand_size = [HAND_SIZE] * n
        self._display = [self._deck.pop() for _ in range(DISPLAY_SIZE)]
        self._pile = []
        self._owner = [-1] * len(b.site_ids)
        self._kids = [_cloister_ids(self._owner, b, c) for c in range(C)]
        self._cl = [[0] * n for _ in range(C)]
        self._cl_max = [0] * C
        self._ad = [[0] * n for _ in range(C)]
        self._ad_total = [0] * C
        self._cl_left = [CLOISTERS] * n
        self._ad_left = [ADVISORS] * n
        self._scores = [0] * n
        self._interim = self._final = self._moves = self._names = self._knowledge = self._winners = self._now = None
        self._runouts = self._current = self._pieces = self._paid = self._discards = self._placements = 0
        self._last_round = self._was_empty = False
        self._phase = PLACE
        self._country = -1
        self._history = []
        self._by = []  # the seat that made each move of _history
        self._takes = []
        self._missed = []
        self._parts = [[None] * C, None, [None] * n]

    @classmethod
    def reference(cls, rules: Rules | None = None, seed: Seed = None, **kw) -> Game:
        """A game of the Python engine (arguments as ``Game``), whatever the backend: the reference."""
        return Game(rules, seed, backend="python", **kw)

    # The queries (hand, scores, snapshot, live_view, ...) are GameState's; current_player, phase, ... TurnBasedGame's.

    # ------------------------------------------------------------------ moves (action ids: board.moves[id])
    @property
    def num_actions(self) -> int:
        return self.board.num_moves

    def legal_actions(self) -> list[int]:
        """The legal move ids, in the order of :meth:`legal_moves` (the engine's cached list: do not modify it)."""
        moves = self._moves
        if moves is None:
            moves = self._moves = self._generate()
        return moves

    def legal_moves(self) -> list[str]:
        names = self._names
        if names is None:
            names = self._names = list(map(self.board.moves.__getitem__, self.legal_actions()))
        return list(names)

    def play(self, move: str) -> None:
        m = self.board.move_index.get(move) if isinstance(move, str) else None
        if m is None or m not in self.legal_actions():
            self._reject(move)
        self._apply(m)

    def apply_action(self, action: int) -> None:
        m = check_action(action, self.board.num_moves)
        if m not in self.legal_actions():
            self._reject(self.board.moves[m])
        self._apply(m)

    def action_to_string(self, action: int) -> str:
        return self.board.moves[check_action(action, self.board.num_moves)]

    def string_to_action(self, move: str) -> int:
        return self.board.move_id(move)

    def clone(self) -> Game:
        """An independent copy (for search); it shuffles the same way this game would."""
        g = object.__new__(Game)
        copy_fields(self, g, _SAME, _LISTS, ("_hands", "_cl", "_ad"))
        g._rng = ShuffleRng.from_state(self._rng.state)
        g._knowledge = None
        g._parts = [list(self._parts[0]), self._parts[1], list(self._parts[2])]
        return g

    # ------------------------------------------------------------------ determinized worlds
    def with_hidden(self, hands: dict[int, list[int]], deck: list[int], seed: int | str | None = None) -> Game:
        """A copy of this game with the hidden cards replaced: ``hands`` maps seats to new hands (type digits,
        same sizes), ``deck`` is the new deck (top first), and future shuffles follow ``ShuffleRng(seed)``.
        The new cards must be exactly the cards they replace, as a multiset (``DeckError`` otherwise; a
        sampler that follows the public information always satisfies this).

        The copy is a *determinized world*: it forgets the hidden chance history (the first deck order:
        :attr:`initial_deck` raises; a reshuffle order drawn or given; the cards the seats in ``hands``
        drew from the deck, which :meth:`deck_takes` shows as ``None``) and has no record. When the seat
        on turn gets a new hand, its pending decision follows that hand: right after a first piece in a
        country that held a cloister, the copy goes on to a second piece or to drawing as the hand allows."""
        types = self.board.type_index
        n, T = self._n, len(self.board.types)
        g = self.clone()
        old, new = Counter(self._deck), Counter[int]()  # the cards replaced and the new ones, by type index
        for seat, hand in hands.items():
            if not 0 <= seat < n or len(hand) != self._hand_size[seat]:
                raise DeckError(f"hands: seat {seat} must get {self._hand_size[seat] if 0 <= seat < n else 0} cards")
            counts = Counter(types[t] for t in hand)
            g._hands[seat] = [counts[t] for t in range(T)]
            new += counts
            old.update(dict(enumerate(self._hands[seat])))
        if len(deck) != len(self._deck):
            raise DeckError(f"deck: must hold {len(self._deck)} cards, got {len(deck)}")
        new.update(types[t] for t in deck)
        if old != new:
            raise DeckError("hands/deck: the new cards are not the cards they replace")
        g._deck = [types[t] for t in reversed(deck)]
        g._rng = ShuffleRng(seed)
        g._plan = g._deck0 = g._reshuffled = None
        g._takes = [(moves, taker, -1 if taker in hands else t) for moves, taker, t in self._takes]
        if self._current in hands and self._phase != OVER:
            g._moves = g._names = None
            first_piece = bool(self._history) and self._history[-1] < self.board.end_id
            if self._phase in (SECOND, DRAW) and self._pieces == 1 and first_piece and not self._was_empty:
                moves = g._second_moves()
                if moves:
                    g._phase = SECOND
                    g._moves = moves
                else:
                    g._start_draw()
        return g

    def determinize(self, seat: int, rng: random.Random) -> Game:
        """A world ``seat`` cannot tell apart from this game (the protocol's ``determinize``): the other hands
        and the deck dealt by :meth:`~kardinal_env.koenig.knowledge.SeatKnowledge.deal` (built once per
        position and seat) from one ``rng.getrandbits(64)``."""
        if not (isinstance(seat, int) and 0 <= seat < self._n):
            raise ValueError(f"determinize: seat must be 0..{self._n - 1}, got {seat!r}")
        cache = self._knowledge = self._knowledge or {}
        entry = cache.get(seat)
        if entry is None or entry[0] != len(self._history):
            entry = cache[seat] = (len(self._history), SeatKnowledge(self, seat))
        return entry[1].deal(rng)

    # ------------------------------------------------------------------ records
    def to_record(self) -> dict:
        """This game as a ``kardinal-koenig-record/1`` dict; before the first run-out ``reshuffle`` is the
        order given to the constructor (or ``None``). A determinized world has none (``RuntimeError``)."""
        if not self.compiled and self._deck0 is None:
            raise RuntimeError("a determinized world (Game.with_hidden) has no record: its hidden cards are sampled")
        over = self.is_over
        reshuffle = self.reshuffle_order
        return make_record(
            self.rules,
            self.initial_deck,
            self.reshuffle_plan if reshuffle is None else reshuffle,
            self.history,
            self.scores() if over else None,
            self.winners() if over else None,
        )

    @classmethod
    def from_record(cls, record: dict, source: str = "record") -> Game:
        """Replay a ``kardinal-koenig-record/1`` dict, finished or in progress (the rules of ``reshuffle``:
        :mod:`kardinal_env.koenig.record`); ``RecordError`` names the bad field, or the move index and the rule."""
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
        plan = game.reshuffle_plan
        if plan is not None and game.reshuffle_order is None:  # a plan still waiting must hold the pile so far
            missing = Counter(game.discard_pile()) - Counter(plan)
            if missing:
                raise RecordError(
                    f"{source}: field 'reshuffle' cannot be the discard pile at the first run-out: it lacks "
                    f"{card_census(list(missing.elements()))} of the pile after {len(parts.moves)} moves"
                )
        check_replayed_result(parts.result, game, source)
        return game

    def __repr__(self) -> str:
        return (
            f"Game(players={self._n}, phase={self.phase!r}, current_player={self.current_player}, "
            f"moves={len(self._history)}, deck={len(self._deck)}, runouts={self._runouts})"
        )

    # ================================================================== internals
    def _generate(self) -> list[int]:
        phase = self._phase
        b = self.board
        if phase == DRAW:
            return [b.draw_base + t for t in sorted(set(self._display))] + ([b.deck_id] if self._deck else [])
        seat = self._current
        hand = self._hands[seat]
        P = b.pay_stride
        if phase == PLACE:
            # Singles pay the countries their type names; a pair (j = 1 + t) pays every country.
            pairs = [1 + t for t, k in enumerate(hand) if k >= 2]
            singles = [c for t, k in enumerate(hand) if k for c in b.type_countries[t]]
            out: list[int] = []
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
                    for c in range(len(cl_max)):
                        if ad_total[c] < cl_max[c]:  # also excludes empty countries (cl_max 0)
                            base = abase + c * P
                            if hand[b.country_type[c]]:
                                out.append(base)
                            out += [base + j for j in pairs]
                else:
                    out += [abase + c * P for c in singles if ad_total[c] < cl_max[c]]
            return out + [b.discard_base + t for t, k in enumerate(hand) if k]
        if phase == SECOND:
            return self._second_moves()
        if phase == DISCARD:
            return [b.end_id] + [b.discard_base + t for t, k in enumerate(hand) if k]
        return []

    def _second_moves(self) -> list[int]:
        """Second-piece moves (with ``end``) in this turn's country; empty if no second piece is legal."""
        b = self.board
        seat = self._current
        c = self._country
        hand = self._hands[seat]
        # Payment offsets j (0 single, 1 + t pair of t) affordable within the turn's three cards.
        opts = [0] if hand[b.country_type[c]] else []
        if self._paid <= MAX_CARDS_PER_TURN - 2:
            opts += [1 + t for t, k in enumerate(hand) if k >= 2]
        out: list[int] = []
        if self._cl_left[seat]:
            for j in opts:
                out += self._kids[c][j]
        if self._ad_left[seat] and self._ad_total[c] < self._cl_max[c]:
            base = b.advisor_base + c * b.pay_stride
            out += [base + j for j in opts]
        if out:
            out.append(b.end_id)
        return out

    def _apply(self, m: int) -> None:
        b = self.board
        seat = self._current
        self._history.append(m)
        self._by.append(seat)
        self._names = None
        if m >= b.draw_base:  # a draw: the most frequent decision
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
        if m == b.end_id:
            self._start_draw()
            return
        spent = b.move_spends[m]  # a discard's card, or a piece's: one naming its country or a pair
        self._hands[seat][spent[0]] -= len(spent)
        self._hand_size[seat] -= len(spent)
        self._pile += spent
        if m > b.end_id:  # a discard
            self._discards += 1
            if self.rules.discard == "one" or self._discards == MAX_CARDS_PER_TURN or not self._hand_size[seat]:
                self._start_draw()
            else:
                self._phase = DISCARD
                self._moves = None
            return
        self._paid += len(spent)
        if m < b.advisor_base:
            site = m // b.pay_stride
            c = b.site_country[site]
        else:
            site, c = -1, (m - b.advisor_base) // b.pay_stride
        was_empty = self._cl_max[c] == 0
        self._now = None
        if site >= 0:
            self._parts[0][c] = None
            self._parts[2][seat] = None
            self._owner[site] = seat
            self._kids[c] = _cloister_ids(self._owner, b, c)
            row = self._cl[c]
            row[seat] += 1
            self._cl_max[c] = max(self._cl_max[c], row[seat])
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
                    self._phase = SECOND
                    self._moves = moves
                    return
        self._start_draw()

    def _start_draw(self) -> None:
        if self._hand_size[self._current] < HAND_SIZE and (self._display or self._deck):
            self._phase = DRAW
            self._moves = None
        else:
            self._end_turn()

    def _runout(self) -> None:  # the deck's last card was just taken
        self._runouts += 1
        if self._runouts == 1:
            points = self._interim = list(self._scoring_parts()[0])  # the cloister scoring of the board now
            for s in range(self._n):
                self._scores[s] += points[s]
            if self._plan is not None:
                check_pile(self.board, self._plan, self._pile)
                order = list(self._plan)
            else:
                order = list(self._pile)
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
        self._phase = PLACE
        self._moves = None

    def _finish(self) -> None:
        final = self._final = self.scoring_now()  # cloisters, alliances, chains
        for s in range(self._n):
            self._scores[s] += sum(points[s] for points in final.values())
        self._winners = scoring.winners(self._scores)
        self._phase = OVER
        self._moves = []


# clone's fields: _SAME are never changed in place (the cached lists and tuples are replaced), _LISTS are copied.
_SAME = (
    "rules board _n _interim _final _runouts _last_round _current _phase _country _pieces _paid _discards"
    " _was_empty _moves _names _deck0 _plan _reshuffled _winners _placements _now"
).split()
_LISTS = "_hand_size _display _deck _pile _owner _kids _cl_max _ad_total _cl_left _ad_left _scores".split()
_LISTS += "_history _by _missed _takes".split()


def _cloister_ids(owner: list[int], board: Board, c: int) -> tuple[tuple[int, ...], ...]:
    """Cloister move ids of the free sites of country ``c``, one tuple per payment offset ``j``."""
    free = [board.site_moves[s] for s in board.country_sites[c] if owner[s] < 0]
    return tuple(zip(*free)) if free else ((),) * board.pay_stride
