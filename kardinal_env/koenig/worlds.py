"""Determinized worlds of a game of Kardinal & König: :class:`Worlds`, mixed into
:class:`~kardinal_env.koenig.engine.Game`: copies in which the cards a seat cannot see are dealt anew.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from kardinal_env.core.shuffle import ShuffleRng
from kardinal_env.koenig.deck import DeckError
from kardinal_env.koenig.knowledge import SeatKnowledge
from kardinal_env.koenig.state import DRAW, OVER, SECOND, GameState

if TYPE_CHECKING:
    import random


class Worlds(GameState):
    """:meth:`with_hidden` and :meth:`determinize` of the engine."""

    __slots__ = ()

    if TYPE_CHECKING:  # the engine's

        def clone(self) -> Worlds: ...
        def _second_moves(self) -> list[int]: ...
        def _start_draw(self) -> None: ...

    def with_hidden(self, hands: dict[int, list[int]], deck: list[int], seed: int | str | None = None) -> Any:
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

    def determinize(self, seat: int, rng: random.Random) -> Worlds:
        """A world ``seat`` cannot tell apart from this game (the protocol's ``determinize``): the other hands
        and the deck dealt by :meth:`~kardinal_env.koenig.knowledge.SeatKnowledge.deal` (built once per
        position and seat) from one ``rng.getrandbits(64)``."""
        if not (isinstance(seat, int) and 0 <= seat < self._n):
            raise ValueError(f"determinize: seat must be 0..{self._n - 1}, got {seat!r}")
        if self._knowledge is None:
            self._knowledge = {}
        moves = len(self._history)
        entry = self._knowledge.get(seat)
        if entry is None or entry[0] != moves:
            entry = self._knowledge[seat] = (moves, SeatKnowledge(self, seat))
        return entry[1].deal(rng)
