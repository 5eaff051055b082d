"""What one seat of a Kardinal & König game may know about the cards, and the worlds it cannot tell apart.

The *one* place that says what a seat may know of the cards: the observation encoder reads :func:`card_counts`,
``Game.determinize`` (searches call it) deals with :meth:`SeatKnowledge.deal`.

What a seat knows
=================
* **Its own hand, the display, the discard pile** (public, in the order cards were put on it), every seat's **hand
  size**, the **deck size** and the **run-outs**.
* **The unseen cards** (:func:`card_counts`, :attr:`SeatKnowledge.unseen`): the other hands and the deck together are
  the deck's cards (in the rules) minus its own hand, the display and the pile.
* **Known cards in other hands** (:attr:`SeatKnowledge.known`): a card taken from the display (``draw:{t}``, in the
  public decision log) stays known in the taker's hand until that seat spends a card of its type (pays or discards it).
* **The new deck** (:attr:`SeatKnowledge.new_deck`): the public discard pile shuffled in at the first run-out, minus the
  cards the seat has seen taken from it since (refills and its own draws). While no other seat has drawn from it that is
  the deck's exact make-up (:attr:`SeatKnowledge.deck_counts`); a seat that draws from it unseen
  (:attr:`SeatKnowledge.hidden_draws`) holds cards of that pile.

Only :meth:`Game.decision_log`, :meth:`Game.deck_takes`, the seat's own hand and the public state are read: games that
differ only in what the seat cannot see give equal knowledge, observations and, for the same ``rng``, worlds.

Dealing a world (:meth:`SeatKnowledge.deal`)
============================================
*Before the first run-out* the unseen cards not known in a hand form one pool: each other seat gets its known cards plus
a uniform share of it, the deck the rest in a uniformly random order.

*After it* two pools must not mix: the cards hidden in the other hands at the run-out, and the new deck. The deal
replays the other seats' moves since the run-out: a card drawn unseen from the new deck is a placeholder; a card spent
that is not known in the spender's hand turns one of its placeholders into that card, old or new-deck, chosen at random
in proportion to the placeholders and the matching cards left in each pool (a choice that makes a later spend impossible
is undone). Then the old placeholders get a random share of the old cards left, and the new-deck placeholders and the
deck a random order of the new-deck cards left. Every world is possible in its cards.

The world is :meth:`Game.with_hidden` with those hands and that deck; its later shuffles follow a fresh seed, and a
pending decision of another seat follows its dealt hand (after a first piece: a second piece or drawing).

**The draws.** Every random number of a deal comes from one :class:`~kardinal_env.core.shuffle.ShuffleRng` (integer
draws only), in the order :func:`deal_hidden` spells out, seeded as :meth:`SeatKnowledge.deal` says. The dealer reads
only :meth:`SeatKnowledge.deal_data` (plain counts, no hidden card); the compiled core (``koenig_search.deal_world``,
its ISMCTS) deals from the same data: the same data and generator state give the same world.

Not used: what a choice reveals beyond the cards spent (a seat that drew right after a first piece in a country with a
cloister could not pay for a second piece there). A world may give such a seat cards that would have allowed the other
choice.

Counts are per card type *index* (``board.types`` order); :attr:`SeatKnowledge.known` and a world's cards are type
digits. ``Game.determinize`` keeps the knowledge of the last position per seat.
"""

from __future__ import annotations

from itertools import islice
from typing import Any, NamedTuple

from kardinal_env.core.checks import is_int
from kardinal_env.core.shuffle import ShuffleRng
from kardinal_env.koenig.rules import DISPLAY_SIZE, HAND_SIZE, REMOVED_PER_TYPE

__all__ = ["CardCounts", "SeatKnowledge", "UnknownDrawsError", "card_counts", "deal_hidden", "deck_counts"]

#: Random replays of the moves since the run-out before the exhaustive one.
_ATTEMPTS = 20
_BUDGET = 4000  # steps one random replay may take, undone choices included


class CardCounts(NamedTuple):
    """What a seat sees of the cards, per type index; ``unseen``: the other hands and the deck together."""

    hand: list[int]
    display: list[int]
    pile: list[int]
    unseen: list[int]


def deck_counts(rules: Any) -> list[int]:
    """The deck's cards per type index (the board's less the removal for the player count)."""
    removed = REMOVED_PER_TYPE[rules.players]
    return [count - removed for count in rules.compiled.counts]


def card_counts(game: Any, seat: int, view: Any = None) -> CardCounts:
    """What ``seat`` sees of the cards of ``game``; ``view``: the game's ``live_view()`` if the caller has one."""
    view = view or game.live_view()
    hand = list(game.hand_counts_view(seat))
    display, pile = _tally(view.display, len(hand)), _tally(view.pile, len(hand))
    unseen = [k - h - d - p for k, h, d, p in zip(deck_counts(game.rules), hand, display, pile)]
    return CardCounts(hand, display, pile, unseen)


def _tally(cards: Any, size: int) -> list[int]:
    counts = [0] * size
    for t in cards:
        counts[t] += 1
    return counts


def _cards(counts: Any) -> list[int]:  # the type indices of per-type counts, in order
    return [t for t, k in enumerate(counts) for _ in range(k)]


class UnknownDrawsError(ValueError):
    """A seat's knowledge asked of a world dealt for another seat after the first run-out (its draws
    from the new deck are not recorded there)."""


class _DeadEnd(Exception):  # a random replay took too many steps
    pass


class SeatKnowledge:
    """Everything ``seat`` knows about the cards of ``game`` now (module docstring); build a new one after a move.

    Counts per type index: ``hand``, ``display``, ``pile``, ``unseen``, ``known_counts`` (other seat ->
    counts), ``new_deck`` (``None`` before the first run-out); ``hand_sizes`` (every seat), ``deck_size``,
    ``runouts``, ``hidden_draws`` (other seat -> cards it drew from the new deck unseen)."""

    __slots__ = tuple(
        "game seat hand display pile unseen known_counts hand_sizes deck_size runouts new_deck hidden_draws"
        " _others _pool _start _steps _data".split()
    )

    def __init__(self, game: Any, seat: int):
        n = game.num_players
        if not is_int(seat) or not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")
        b = game.board
        self.game = game
        self.seat = seat
        self.hand, self.display, self.pile, self.unseen = card_counts(game, seat)
        T = len(self.hand)
        self.hand_sizes = [game.hand_size(s) for s in range(n)]
        self.deck_size = game.deck_size()
        self.runouts = game.runouts
        others = self._others = [s for s in range(n) if s != seat]
        index, spends, draw_base, deck_id = b.move_index, b.move_spends, b.draw_base, b.deck_id
        log = [(s, index[m]) for s, m in game.decision_log()]
        takes = game.deck_takes(seat)
        first = len(game.rules.deck_cards) - n * HAND_SIZE - DISPLAY_SIZE  # cards taken from the first deck
        split = len(log) if self.runouts == 0 else takes[first - 1][0]  # moves played at the first run-out
        known = {s: [0] * T for s in others}

        def follow(moves: list[tuple[int, int]]) -> None:
            # a display draw stays known until a card of its type is spent
            for s, m in moves:
                if s == seat:
                    continue
                if draw_base <= m < deck_id:
                    known[s][m - draw_base] += 1
                for t in spends[m]:  # none for a draw
                    if known[s][t]:
                        known[s][t] -= 1

        follow(log[:split])
        self._data: dict | None = None
        self.hidden_draws = {s: 0 for s in others}
        self._steps: list[tuple[int, int, int]] = []
        self._start: tuple[dict[int, list[int]], dict[int, int]] | None = None
        self.new_deck: list[int] | None = None
        held = self.unseen  # the cards to share out, known ones included (after a run-out: see below)
        if self.runouts:
            reshuffled = _tally((t for _, m in log[:split] for t in spends[m]), T)  # the pile at the run-out
            for _, taker, card in takes[first:]:
                if card is not None:
                    reshuffled[b.type_index[card]] -= 1
                elif taker in self.hidden_draws:
                    self.hidden_draws[taker] += 1
                else:
                    raise UnknownDrawsError(
                        f"seat {seat}'s own draws are not known in this game (a world dealt for another seat)"
                    )
            self.new_deck = reshuffled
            # The other hands at the run-out, together: the unseen cards now, plus what they spent since,
            # minus what they took from the display since, minus the new deck's cards.
            held = [self.unseen[t] - reshuffled[t] for t in range(T)]
            sizes = {s: self.hand_sizes[s] for s in others}
            steps = self._steps
            for s, m in log[split:]:
                if s == seat:
                    continue
                if m >= draw_base:
                    sizes[s] -= 1
                    if m == deck_id:
                        steps.append((_NEW, s, -1))
                    else:
                        held[m - draw_base] -= 1
                        steps.append((_SHOWN, s, m - draw_base))
                else:
                    for t in spends[m]:
                        sizes[s] += 1
                        held[t] += 1
                        steps.append((_SPEND, s, t))
            for s in others:  # the deck's takes and the decision log agree (else an engine bug)
                drawn = sum(1 for kind, who, _ in steps if kind == _NEW and who == s)
                if drawn != self.hidden_draws[s]:  # pragma: no cover - an engine bug
                    raise AssertionError(f"seat {s}: {drawn} draws from the new deck, {self.hidden_draws[s]} taken")
            self._start = ({s: list(known[s]) for s in others}, sizes)
        self._pool = [held[t] - sum(known[s][t] for s in others) for t in range(T)]
        follow(log[split:])  # nothing before the first run-out: split is the whole log
        self.known_counts = known
        self._check()

    def _check(self) -> None:
        """The public facts add up (else an engine or knowledge bug: ``AssertionError``)."""
        hidden = sum(self.hand_sizes[s] for s in self._others) + self.deck_size
        problems = []
        if sum(self.unseen) != hidden or min(self.unseen) < 0:
            problems.append(f"unseen {self.unseen} for {hidden} hidden cards")
        if min(self._pool) < 0:
            problems.append(f"pool {self._pool}")
        for s, row in self.known_counts.items():
            if sum(row) > self.hand_sizes[s] or any(k > u for k, u in zip(row, self.unseen)):
                problems.append(f"known {row} in seat {s}'s hand of {self.hand_sizes[s]}")
        if self.new_deck is not None and self._start is not None:
            if min(self.new_deck) < 0 or sum(self.new_deck) != self.deck_size + sum(self.hidden_draws.values()):
                problems.append(f"new deck {self.new_deck}")
            start, sizes = self._start
            slots = [sizes[s] - sum(start[s]) for s in self._others]  # the hidden cards of each hand then
            if min(slots) < 0 or sum(self._pool) != sum(slots):
                problems.append(f"hands at the run-out {sizes}, pool {self._pool}")
        if problems:  # pragma: no cover - a bug
            raise AssertionError(f"seat {self.seat}'s knowledge does not add up: {'; '.join(problems)}")

    # ------------------------------------------------------------------ views
    @property
    def known(self) -> dict[int, list[int]]:
        """Per other seat, the cards known to be in its hand (type digits, sorted)."""
        return {s: [self.game.board.types[t] for t in _cards(row)] for s, row in self.known_counts.items()}

    @property
    def unseen_cards(self) -> list[int]:
        """The cards the seat cannot see (the other hands and the deck), as sorted type digits."""
        return [self.game.board.types[t] for t in _cards(self.unseen)]

    @property
    def deck_counts(self) -> list[int] | None:
        """The deck's exact make-up when the seat knows it (after the first run-out while no other seat drew
        from the new deck unseen, or an empty deck), else ``None``."""
        if self.deck_size == 0:
            return [0] * len(self.hand)
        if self.new_deck is not None and not any(self.hidden_draws.values()):
            return list(self.new_deck)
        return None

    def to_dict(self) -> dict:
        """Every public attribute (and the replay the deal uses) as plain data: equal dicts, equal knowledge."""
        public = "seat hand display pile unseen known hand_sizes deck_size runouts new_deck hidden_draws deck_counts"
        data = {name: getattr(self, name) for name in public.split()}
        return {**data, "pool": self._pool, "start": self._start, "steps": self._steps}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SeatKnowledge) and self.to_dict() == other.to_dict()  # so unhashable

    def __repr__(self) -> str:
        return (
            f"SeatKnowledge(seat={self.seat}, unseen={self.unseen_cards}, known={self.known}, "
            f"deck_size={self.deck_size}, new_deck={self.new_deck})"
        )

    # ------------------------------------------------------------------ dealing
    def deal_data(self) -> dict:
        """What dealing a world needs, as plain data (counts per type index; built once; no hidden card), for
        :func:`deal_hidden` and the core: ``seat``, ``hand_sizes``, ``deck_size``, ``pool`` (the cards to share out: the
        unseen ones not known in a hand, or after the first run-out the other hands' hidden cards then), ``known`` (per
        seat, known cards; its own row zeros), ``new_deck``, ``start_known`` and ``start_sizes`` (per seat at the
        run-out; ``None`` before it) and ``steps`` (the other seats' moves since the run-out as ``[kind, seat, type]``:
        0 a display draw, 1 a new-deck draw with type -1, 2 a card spent)."""
        data = self._data
        if data is None:
            n, T = len(self.hand_sizes), len(self.hand)
            zero = [0] * T
            start = self._start
            data = self._data = {
                "seat": self.seat,
                "hand_sizes": list(self.hand_sizes),
                "deck_size": self.deck_size,
                "pool": list(self._pool),
                "known": [list(self.known_counts.get(s, zero)) for s in range(n)],
                "new_deck": None if self.new_deck is None else list(self.new_deck),
                "start_known": None if start is None else [list(start[0].get(s, zero)) for s in range(n)],
                "start_sizes": None if start is None else [start[1].get(s, 0) for s in range(n)],
                "steps": [list(step) for step in self._steps],
            }
        return data

    def deal(self, rng: Any) -> Any:
        """A world the seat cannot tell apart (module docstring): one ``rng.getrandbits(64)`` seeds the
        world's ``ShuffleRng``, which deals (:meth:`sample`) and then gives the world's shuffle seed."""
        world_rng = ShuffleRng(rng.getrandbits(64))
        hands, deck = self.sample(world_rng)
        return self.game.with_hidden(hands, deck, seed=world_rng.next())

    def sample(self, rng: ShuffleRng) -> tuple[dict[int, list[int]], list[int]]:
        """``(other seat -> hand, deck top first)`` of one world, type digits (:func:`deal_hidden`)."""
        types = self.game.board.types
        hands, deck = deal_hidden(self.deal_data(), rng)
        return {s: [types[t] for t in cards] for s, cards in hands.items()}, [types[t] for t in deck]


def deal_hidden(data: dict, rng: ShuffleRng) -> tuple[dict[int, list[int]], list[int]]:
    """One world from :meth:`SeatKnowledge.deal_data` and ``rng`` (a ``ShuffleRng``): ``(other seat -> hand as sorted
    type indices, deck top first)``. The core's copy: ``cpp/src/koenig/worlds.hpp``.

    The draws, in order. *Before the first run-out*: the pool's cards in type order are shuffled (``rng.shuffle``); each
    other seat in seat order gets its known cards and the next cards of the shuffled pool to its hand size; the deck is
    the rest, in that order. *After it*: up to ``_ATTEMPTS`` random replays of ``steps`` of at most ``_BUDGET`` steps
    each (then one without a limit); a spend of a card not held turns a placeholder of the spender into it, old or
    new-deck: ``rng.weighted([old placeholders * old cards of the type, new placeholders * new cards of it])`` chooses
    which is tried first (the other is tried when that one leads nowhere). Then the old cards left in type order are
    shuffled, then the new-deck cards left; each other seat in seat order takes its share of the old ones, then of the
    new ones, and the deck is the new-deck cards left over."""
    sizes = data["hand_sizes"]
    others = [s for s in range(len(sizes)) if s != data["seat"]]
    if data["new_deck"] is None:
        pool = _cards(data["pool"])
        rng.shuffle(pool)
        rest, known = iter(pool), data["known"]
        hands = {s: _cards(known[s]) + list(islice(rest, sizes[s] - sum(known[s]))) for s in others}
        deck = list(rest)
    else:
        for _ in range(_ATTEMPTS):
            try:
                hands, deck = _replay(data, others, rng, _BUDGET)
                break
            except _DeadEnd:
                continue
        else:  # pragma: no cover - twenty unlucky replays in a row
            hands, deck = _replay(data, others, rng, None)
    if len(deck) != data["deck_size"]:  # pragma: no cover - a bug
        raise AssertionError(f"dealt a deck of {len(deck)} cards, the game has {data['deck_size']}")
    return {s: sorted(cards) for s, cards in hands.items()}, deck


def _replay(
    data: dict, others: list[int], rng: ShuffleRng, budget: int | None
) -> tuple[dict[int, list[int]], list[int]]:
    """One world after a run-out (module docstring); :class:`_DeadEnd` after ``budget`` steps."""
    start, sizes = data["start_known"], data["start_sizes"]
    held = {s: list(start[s]) for s in others}  # cards known or chosen in each hand
    old_slots = {s: sizes[s] - sum(start[s]) for s in others}
    new_slots = dict.fromkeys(others, 0)
    old = list(data["pool"])
    new = list(data["new_deck"])
    steps = data["steps"]
    spent = 0

    def walk(first: int) -> bool:
        # Follow the steps that need no choice; recurse at a choice, so that it can be undone (the depth is
        # the number of cards spent from placeholders, a few dozen at most).
        nonlocal spent
        for i in range(first, len(steps)):
            spent += 1
            if budget is not None and spent > budget:
                raise _DeadEnd
            kind, s, t = steps[i]
            if kind == _SHOWN:
                held[s][t] += 1
            elif kind == _NEW:
                new_slots[s] += 1
            elif held[s][t]:
                held[s][t] -= 1
            else:
                weights = (old_slots[s] * old[t], new_slots[s] * new[t])
                if any(weights):
                    tried = rng.weighted(weights)
                    for choice in (tried, 1 - tried):
                        if weights[choice]:
                            slots, pool = (old_slots, old) if choice == 0 else (new_slots, new)
                            slots[s] -= 1
                            pool[t] -= 1
                            if walk(i + 1):
                                return True
                            slots[s] += 1
                            pool[t] += 1
                for kind, s, t in steps[first:i]:  # a dead end: undo this call's steps (none was a choice)
                    if kind == _SHOWN:
                        held[s][t] -= 1
                    elif kind == _NEW:
                        new_slots[s] -= 1
                    else:
                        held[s][t] += 1
                return False
        return True

    if not walk(0):  # pragma: no cover - the true cards are one answer
        raise AssertionError(f"no world fits seat {data['seat']}'s knowledge")
    old_cards, new_cards = _cards(old), _cards(new)
    rng.shuffle(old_cards)
    rng.shuffle(new_cards)
    old_rest, new_rest = iter(old_cards), iter(new_cards)
    hands = {
        s: _cards(held[s]) + list(islice(old_rest, old_slots[s])) + list(islice(new_rest, new_slots[s])) for s in others
    }
    left = len(list(old_rest))
    if left:  # pragma: no cover - a bug
        raise AssertionError(f"{left} cards of the old hands are left over")
    return hands, list(new_rest)


#: Steps of the replay after a run-out: a display draw (the card is known), a draw from the new deck
#: (a placeholder), a card spent.
_SHOWN, _NEW, _SPEND = range(3)
