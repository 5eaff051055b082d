"""The card orders a game of Kardinal & König is given (type digits, top first: the deck's first order and the discard
pile's at the first run-out) and their checks (:func:`check_order`, :func:`check_plan`, :func:`check_pile`):
:class:`DeckError` (a ``ValueError``) says what does not fit, :func:`card_census` writes cards for its messages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from kardinal_env.core.checks import is_int

if TYPE_CHECKING:
    from kardinal_env.koenig.board import Board

__all__ = ["DeckError", "card_census", "check_order", "check_pile", "check_plan"]


class DeckError(ValueError):
    """A given deck or reshuffle order that does not hold the cards it must."""


def card_census(cards: Iterable[int]) -> str:
    """Cards (type digits) as a census for error messages: ``{type 1: 2, type 4: 1}``."""
    counts = Counter(cards)
    return "{" + ", ".join(f"type {t}: {counts[t]}" for t in sorted(counts)) + "}"


def check_order(b: Board, players: int, given: object, cards: list[int] | None, what: str) -> list[int]:
    """``given`` (type digits) as type indices; :class:`DeckError` (prefixed ``what``) unless it is a list of card types
    of board ``b`` and, where ``cards`` (the ``players``-player deck's cards, sorted) is given, exactly those."""
    if not isinstance(given, (list, tuple)) or not all(is_int(t) and t in b.type_index for t in given):
        raise DeckError(f"{what}: expected a list of card types {list(b.types)}, got {given!r}")
    if cards is not None and sorted(given) != cards:
        raise DeckError(
            f"{what}: holds {card_census(given)} but the {players}-player deck on board "
            f"{b.name!r} is {card_census(cards)}"
        )
    return [b.type_index[t] for t in given]


def check_plan(b: Board, players: int, plan: list[int], cards: list[int]) -> None:
    """:class:`DeckError` when the reshuffle order ``plan`` (type indices) holds more cards of a type than the
    ``players``-player deck (``cards``, type digits) has: the pile at the run-out is part of the deck's cards."""
    if Counter(plan) - Counter(b.type_index[t] for t in cards):
        raise DeckError(
            f"reshuffle: holds {_census(b, plan)}, more than the {players}-player "
            f"deck on board {b.name!r} has ({card_census(cards)})"
        )


def check_pile(b: Board, plan: list[int], pile: list[int]) -> None:
    """:class:`DeckError` unless the reshuffle order ``plan`` holds exactly the discard pile's cards
    (both type indices), when the deck runs out for the first time."""
    if sorted(plan) != sorted(pile):
        raise DeckError(f"reshuffle: holds {_census(b, plan)} but the discard pile is {_census(b, pile)}")


def _census(b: Board, cards: list[int]) -> str:
    """:func:`card_census` of cards given as type indices of board ``b``."""
    return card_census([b.types[t] for t in cards])
