"""The planner of the Kardinal & König ``heuristic`` (:mod:`agents.baselines.koenig_heuristic`): the value of a hand,
and every plan for the rest of the seat's turn, valued.

**Value of a hand.** For its next turn: per country, the best gain in margin one piece there brings (``g1``) and two
pieces (``g2``), on the board after the planned turn; a hand pays for a country with a card naming it or a pair (a
joker); two pieces need two cards naming it, or one and a pair. The hand's value is the best country it pays for plus
``hand_second`` x the second best. Drawing is an expectimax: a display card is known, a deck card follows
:func:`deck_probabilities` (what the seat knows of the deck). The hand counts with weight ``hand`` times the chance of
another turn (none in the last round; after the first run-out it depends on the deck left).

**A decision** enumerates every plan for the rest of the turn (a discard, with ``discard="any"`` any set of up to three
cards; one piece; or two pieces in one country; with every payment), each valued as board value
(:mod:`agents.baselines.koenig_heuristic_value`, computed incrementally) + hand value. Hand values first use the
opportunities of the board before the turn; the ``replan`` best plans are valued again with those of the board after
them, and the best of those or of the discards gives the move. Draw decisions take the expectimax's best source.
:meth:`_Planner.candidates` lists the valued candidates before the tie-break.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from agents.baselines.koenig_heuristic_value import _next_turn_chance, _Position, _static
from agents.baselines.koenig_heuristic_weights import HeuristicWeights
from kardinal_env.koenig.knowledge import SeatKnowledge, deck_counts

__all__ = ["deck_probabilities", "unseen_deck_probabilities"]


def _hand_valuer(board, opportunities: tuple[list[float], list[float]], weight: float) -> Callable:
    g1, g2 = opportunities

    @functools.cache
    def value(hand: tuple[int, ...]) -> float:
        pairs = [t for t, k in enumerate(hand) if k >= 2]
        best = second = 0.0
        for c, t in enumerate(board.country_type):
            k = hand[t]
            if k >= 2 or (k and any(u != t for u in pairs)):
                v = g2[c]
            elif k or pairs:
                v = g1[c]
            else:
                continue
            if v > best:
                best, second = v, best
            elif v > second:
                second = v
        return best + weight * second

    return value


class _Draws:
    """Expectimax over the draws that refill the hand: display cards are known, deck cards follow ``probs``."""

    def __init__(self, q: Callable[[tuple[int, ...]], float], probs: list[float], deck_size: int) -> None:
        self.q = q
        self.probs = [(t, p) for t, p in enumerate(probs) if p > 0]
        self.deck_size = deck_size
        self.value = functools.cache(self._value)

    def _value(self, hand: tuple[int, ...], display: tuple[int, ...], taken: int = 0) -> float:
        return max(self.options(hand, display, taken).values(), default=self.q(hand))

    def options(self, hand: tuple[int, ...], display: tuple[int, ...], taken: int = 0) -> dict[int, float]:
        """Value per draw source (a type index for the display, -1 for the deck); empty if the hand is full."""
        out: dict[int, float] = {}
        if sum(hand) >= 3:
            return out
        for t in sorted(set(display)):
            rest = list(display)
            rest.remove(t)
            out[t] = self.value(_add(hand, t), tuple(rest), taken)
        if taken < self.deck_size and self.probs:
            out[-1] = sum(p * self.value(_add(hand, t), display, taken + 1) for t, p in self.probs)
        return out


def _add(hand: tuple[int, ...], t: int, k: int = 1) -> tuple[int, ...]:
    h = list(hand)
    h[t] += k
    return tuple(h)


def _spend(hand: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
    h = list(hand)
    for t in cards:
        h[t] -= 1
    return tuple(h)


def deck_probabilities(game, seat: int) -> list[float]:
    """Per type index, the chance the deck's next card is of that type, from
    :class:`SeatKnowledge <kardinal_env.koenig.knowledge.SeatKnowledge>`: before the first run-out, unseen cards less
    those known in other hands (taken from the display, unspent); after, the new deck (the reshuffled pile less cards
    seen taken, others' unseen draws taking each type in proportion). All zero for an empty deck."""
    k = SeatKnowledge(game, seat)
    if k.new_deck is not None:
        counts = list(k.new_deck)
    else:
        counts = list(k.unseen)
        for row in k.known_counts.values():
            for t, held in enumerate(row):
                counts[t] -= held
    total = sum(counts)
    if not k.deck_size or total <= 0:
        return [0.0] * len(counts)
    return [c / total for c in counts]


def unseen_deck_probabilities(game, seat: int) -> list[float]:
    """What a playout seat assumes of the deck's next card: per type index, the cards it cannot see (all cards less its
    hand, the display and the discard pile), normalised; all zero for an empty deck."""
    if game.deck_size() == 0:
        return [0.0] * len(game.board.types)
    counts = deck_counts(game.rules)
    index = game.board.type_index
    for t, k in enumerate(game.hand_counts(seat)):
        counts[t] -= k
    for digit in game.display() + game.discard_pile():
        counts[index[digit]] -= 1
    total = sum(counts)
    return [c / total for c in counts]


class _Planner:
    """Plans the rest of the seat's turn."""

    def __init__(self, game, w: HeuristicWeights, replan: int, deck_probs: list[float] | None = None) -> None:
        self.game = game
        self.w = w
        self.replan = replan
        self.seat = seat = game.current_player
        self.b = game.board
        self.pos = _Position(game, seat, w, _static(game.board))
        self.view = view = game.live_view()
        self.hand = tuple(game.hand_counts(seat))
        self.display = tuple(sorted(view.display))
        self.next_turn = _next_turn_chance(view, game.num_players, seat)
        if self.next_turn <= 0:
            self.probs: list[float] = []
        else:
            self.probs = deck_probabilities(game, seat) if deck_probs is None else list(deck_probs)
        self._board = functools.cache(lambda key: self.pos.try_pieces(key) if key else self.pos.value)
        self._draws = functools.cache(self._new_draws)

    def draws_after(self, pieces: tuple[int, ...]) -> _Draws:
        return self._draws(tuple(sorted(pieces)))

    def _new_draws(self, pieces: tuple[int, ...]) -> _Draws:
        pos = self.pos.copy_with(pieces) if pieces else self.pos
        return _Draws(_hand_valuer(self.b, pos.opportunities(), self.w.hand_second), self.probs, self.view.deck_size)

    def _score(self, pieces: tuple[int, ...], hand: tuple[int, ...], draws: _Draws) -> float:
        """Board value after ``pieces`` plus the value of ``hand`` with ``draws``."""
        hand_value = self.w.hand * self.next_turn * draws.value(hand, self.display) if self.next_turn > 0 else 0.0
        return self._board(tuple(sorted(pieces))) + hand_value

    def second_pieces(
        self, piece: int, c: int, hand: tuple[int, ...], budget: int
    ) -> list[tuple[int, tuple[int, ...]]]:
        """Second pieces in country ``c`` after the turn's first ``piece``, with the cards each costs."""
        b = self.b
        pos = self.pos
        me = self.seat
        pays: list[tuple[int, ...]] = []
        tc = b.country_type[c]
        if hand[tc]:
            pays.append((tc,))
        if budget >= 2:
            pays += [(t, t) for t, k in enumerate(hand) if k >= 2]
        if not pays:
            return []
        out: list[tuple[int, tuple[int, ...]]] = []
        if pos.cl_left[me] - (1 if piece >= 0 else 0) > 0:  # a cloister left for the second piece
            out += [(x, pay) for x in b.country_sites[c] if pos.owner[x] < 0 and x != piece for pay in pays]
        if pos.advisor_room(c, extra_cloister=piece >= 0, extra_advisors=0 if piece >= 0 else 1):
            out += [(-1 - c, pay) for pay in pays]
        return out

    def candidates(self) -> list[tuple[int, float]]:
        """``(move id, value)`` before the tie-break: draws, or piece-less plans and the ``replan`` best placed."""
        game = self.game
        legal = game.legal_actions()
        phase = game.phase
        if phase == "draw":
            return self._draw(legal)
        b = self.b
        plans: list[tuple[float, int, tuple[int, ...], tuple[int, ...]]] = []  # (estimate, move, pieces, hand)
        base = self.draws_after(())
        budget = 3 - self.view.cards
        hand = self.hand
        for m in legal:
            if m == b.end_id:
                plans.append((self._score((), hand, base), m, (), hand))
            elif m >= b.discard_base:
                for rest in self._discard_sets(_add(hand, m - b.discard_base, -1), budget - 1):
                    plans.append((self._score((), rest, base), m, (), rest))
            else:
                if m < b.advisor_base:  # a cloister on a site, else an advisor in a country
                    piece = m // b.pay_stride
                    c = b.site_country[piece]
                else:
                    c = (m - b.advisor_base) // b.pay_stride
                    piece = -1 - c
                cards = b.move_spends[m]
                hand1 = _spend(hand, cards)
                plans.append((self._score((piece,), hand1, base), m, (piece,), hand1))
                if phase == "place" and any(self.pos.cl[c]):
                    for piece2, cards2 in self.second_pieces(piece, c, hand1, budget - len(cards)):
                        hand2 = _spend(hand1, cards2)
                        pair = (piece, piece2)
                        plans.append((self._score(pair, hand2, base), m, pair, hand2))
        # the best plans with pieces valued again, with the opportunities of the board after them
        final: list[tuple[int, float]] = [(m, v) for v, m, pieces, _ in plans if not pieces]
        placed = sorted((p for p in plans if p[2]), key=lambda p: -p[0])
        seen: set[tuple] = set()
        for _, m, pieces, h in placed:
            key = (tuple(sorted(pieces)), h)
            if key in seen:
                continue
            seen.add(key)
            final.append((m, self._score(pieces, h, self.draws_after(pieces))))
            if len(seen) >= self.replan:
                break
        return final

    def _discard_sets(self, hand: tuple[int, ...], more: int) -> list[tuple[int, ...]]:
        """Hands left after the move's discard (already off ``hand``) and, with ``discard="any"``, up to ``more``."""
        if self.game.rules.discard != "any" or more <= 0:
            return [hand]
        out = {hand}
        for _ in range(more):
            out |= {_add(h, t, -1) for h in out for t, k in enumerate(h) if k}
        return sorted(out)

    def _draw(self, legal: list[int]) -> list[tuple[int, float]]:
        b = self.b
        if self.next_turn <= 0:  # no further turn: the first draw
            return [(legal[0], 0.0)]
        options = self.draws_after(()).options(self.hand, self.display)
        return [(m, options.get(-1 if m == b.deck_id else m - b.draw_base, 0.0)) for m in legal]
