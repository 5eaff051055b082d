"""Determinized worlds of a game of Kardinal & König: copies in which the cards a seat cannot see are
dealt anew (the game protocol's ``determinize``, :mod:`kardinal_env.core.protocol`).

* :func:`with_hidden` — a copy of a game with the hidden cards replaced (given hands and a given deck)
  and its own generator for the shuffles to come (:meth:`Game.with_hidden
  <kardinal_env.koenig.engine.Game.with_hidden>`). The new cards must be exactly the cards they
  replace (:class:`~kardinal_env.koenig.deck.DeckError`). The copy forgets the game's hidden chance
  history, and the pending decision of the seat on turn follows its new hand.
* :func:`determinize` — a world a seat cannot tell apart from the game: what it cannot see dealt by
  :meth:`kardinal_env.koenig.knowledge.SeatKnowledge.deal` (which calls :func:`with_hidden`), the
  seat's knowledge built once per position (:meth:`Game.determinize
  <kardinal_env.koenig.engine.Game.determinize>`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kardinal_env.core.shuffle import ShuffleRng
from kardinal_env.koenig.deck import DeckError
from kardinal_env.koenig.knowledge import SeatKnowledge
from kardinal_env.koenig.state import DRAW, OVER, SECOND

if TYPE_CHECKING:
    import random

    from kardinal_env.koenig.engine import Game

__all__ = ["determinize", "with_hidden"]


def with_hidden(game: Game, hands: dict[int, list[int]], deck: list[int], seed: int | str | None = None) -> Game:
    """``game`` with the hidden cards replaced: :meth:`Game.with_hidden
    <kardinal_env.koenig.engine.Game.with_hidden>` (its docstring is the specification)."""
    types = game.board.type_index
    g = game.clone()
    old: list[int] = [0] * game._T
    new: list[int] = [0] * game._T
    for seat, hand in hands.items():
        if not 0 <= seat < game._n or len(hand) != game._hand_size[seat]:
            raise DeckError(f"hands: seat {seat} must get {game._hand_size[seat] if 0 <= seat < game._n else 0} cards")
        counts = [0] * game._T
        for t in hand:
            counts[types[t]] += 1
            new[types[t]] += 1
        for t, k in enumerate(game._hands[seat]):
            old[t] += k
        g._hands[seat] = counts
    if len(deck) != len(game._deck):
        raise DeckError(f"deck: must hold {len(game._deck)} cards, got {len(deck)}")
    for t in deck:
        new[types[t]] += 1
    for t in game._deck:
        old[t] += 1
    if old != new:
        raise DeckError("hands/deck: the new cards are not the cards they replace")
    g._deck = [types[t] for t in reversed(deck)]
    g._rng = ShuffleRng(seed)
    g._plan = None
    g._deck0 = None
    g._reshuffled = None
    g._takes = [(moves, taker, -1 if taker in hands else t) for moves, taker, t in game._takes]
    if game._current in hands and game._phase != OVER:
        g._moves = g._names = None
        first_piece = game._history[-1] < game.board.end_id if game._history else False
        if game._phase in (SECOND, DRAW) and game._pieces == 1 and first_piece and not game._was_empty:
            moves = g._second_moves()
            if moves:
                g._phase = SECOND
                g._moves = moves
            else:
                g._start_draw()
    return g


def determinize(game: Game, seat: int, rng: random.Random) -> Game:
    """A world ``seat`` cannot tell apart from ``game``: :meth:`Game.determinize
    <kardinal_env.koenig.engine.Game.determinize>` (its docstring is the specification)."""
    if not (isinstance(seat, int) and 0 <= seat < game._n):
        raise ValueError(f"determinize: seat must be 0..{game._n - 1}, got {seat!r}")
    cache = game._knowledge
    if cache is None:
        cache = game._knowledge = {}
    entry = cache.get(seat)
    moves = len(game._history)
    if entry is None or entry[0] != moves:
        entry = cache[seat] = (moves, SeatKnowledge(game, seat))
    return entry[1].deal(rng)
