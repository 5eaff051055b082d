"""Why a move is illegal in a game of Kardinal & König: the rule it breaks, and the message of the
:class:`~kardinal_env.core.errors.IllegalMoveError` the engine raises.

The engine (:mod:`kardinal_env.koenig.engine`) checks a move against its cached legal moves; only a move
that is not among them comes here. :func:`explain` works out the first rule the move breaks, as
``(rule, reason)``; :func:`reject` raises the error: its message is ``"{rule}: {reason} ({move!r})"`` and
its ``rule`` attribute the rule, one of ``"malformed move"``, ``"unknown id"``, ``"game over"``,
``"phase"``, ``"payment"``, ``"one country"``, ``"two pieces"``, ``"three cards"``, ``"empty country"``,
``"advisor limit"``, ``"supply"``, ``"site"``, ``"discard"``, ``"end"`` or ``"draw"``. The rules are
asked in this order: the move's form, the game being over, then for its kind of move the ids it names,
the phase and the turn's limits, the payment, an empty country, and the supply, the site or the advisor
limit. A move that is not legal and breaks none of them is an engine bug (``AssertionError``).
Nothing here changes the game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.koenig.notation import MalformedMoveError, parse_move
from kardinal_env.koenig.state import DISCARD, DRAW, MAX_CARDS_PER_TURN, MAX_PIECES_PER_TURN, OVER, PLACE, SECOND

if TYPE_CHECKING:
    from kardinal_env.koenig.engine import Game

__all__ = ["explain", "reject"]


def reject(game: Game, move: object) -> NoReturn:
    """Raise the :class:`~kardinal_env.core.errors.IllegalMoveError` for ``move``, not legal in ``game``
    now, naming the rule it breaks (:func:`explain`)."""
    rule, reason = explain(game, move)
    raise IllegalMoveError(f"{rule}: {reason} ({move!r})", rule, move)


def explain(game: Game, move: object) -> tuple[str, str]:
    """``(rule, reason)`` for a move string that is not legal in ``game`` now."""
    b = game.board
    try:
        p = parse_move(move)
    except MalformedMoveError as exc:
        return "malformed move", str(exc)
    phase = game._phase
    if phase == OVER:
        return "game over", "the game is over; no move is legal"
    seat = game._current
    hand = game._hands[seat]
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
        if phase == DRAW:
            if game._pieces == MAX_PIECES_PER_TURN:
                return "two pieces", f"seat {seat} placed two pieces this turn; it must now draw"
            if game._pieces == 1 and game._was_empty:
                return "empty country", (
                    f"{b.country_ids[game._country]} was empty at the start of the turn: it takes one "
                    "cloister and the turn goes on to drawing"
                )
            if game._pieces == 1:
                return "phase", f"no second piece is legal for seat {seat}; it must now draw"
            return "phase", f"seat {seat} discarded this turn and must now draw (draw:{{t}} or draw:deck)"
        if phase == DISCARD:
            return "discard", "discarding is instead of placing: after a discard no piece may be placed"
        if phase == SECOND and c != game._country:
            return "one country", (
                f"this turn's pieces go to {b.country_ids[game._country]}; {cname} is another country"
            )
        if phase == SECOND and game._paid + cost > MAX_CARDS_PER_TURN:
            return "three cards", f"{game._paid} cards are paid this turn; {cost} more would exceed 3"
        if not p.pair and c not in b.type_countries[t]:
            named = b.types[b.country_type[c]]
            return "payment", f"a type-{p.card} card does not name {cname}; pay with a type-{named} card or a pair"
        if hand[t] < cost:
            have = hand[t]
            return "payment", f"seat {seat} holds {have} card(s) of type {p.card}, the payment needs {cost}"
        if phase == PLACE and game._cl_total[c] == 0 and site < 0:
            return "empty country", f"{cname} holds no cloister: the first piece there must be a cloister"
        if site >= 0:
            if not game._cl_left[seat]:
                return "supply", f"seat {seat} has no cloister left"
            if game._owner[site] >= 0:
                return "site", f"site {p.target} already holds a cloister of seat {game._owner[site]}"
        else:
            if not game._ad_left[seat]:
                return "supply", f"seat {seat} has no advisor left"
            if game._ad_total[c] + 1 > game._cl_max[c]:
                return "advisor limit", (
                    f"{cname} would hold {game._ad_total[c] + 1} advisors but no seat has more than "
                    f"{game._cl_max[c]} cloister(s) there"
                )
        raise AssertionError(f"engine bug: {move!r} is rejected but no rule explains why")
    if p.kind == "end":
        if phase in (PLACE, DRAW):
            return "end", "'end' only stops after a first piece or during discarding (discard='any')"
        raise AssertionError(f"engine bug: {move!r} is rejected but no rule explains why")
    if p.kind == "discard":
        if p.card not in b.type_index:
            return "unknown id", f"no card type {p.card} on board {b.name!r} (types {list(b.types)})"
        if phase == SECOND:
            return "discard", "a piece was placed this turn: discarding is instead of placing"
        if phase == DRAW:
            return "phase", f"seat {seat} must now draw (draw:{{t}} or draw:deck)"
        if not hand[b.type_index[p.card]]:
            return "discard", f"seat {seat} holds no card of type {p.card}"
        raise AssertionError(f"engine bug: {move!r} is rejected but no rule explains why")
    # draw
    if phase != DRAW:
        return (
            "phase",
            f"seat {seat} must now {('place or discard', 'place a second piece or end', 'discard or end')[phase]}",
        )
    if p.target is None:
        return "draw", "the deck is empty; draw from the display"
    if p.target not in b.type_index:
        return "unknown id", f"no card type {p.target} on board {b.name!r} (types {list(b.types)})"
    return "draw", f"the display holds no card of type {p.target} (display: {game.display()})"
