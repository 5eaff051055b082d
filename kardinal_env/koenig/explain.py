"""Why a move is illegal in a game of Kardinal & König: :class:`Explain`, mixed into the engine's
:class:`~kardinal_env.koenig.engine.Game` (it only reads the state).

:meth:`Explain._explain` names the first rule a move that is not legal breaks, as ``(rule, reason)``;
:meth:`Explain._reject` raises ``IllegalMoveError("{rule}: {reason} ({move!r})")``. The order: the move's form, the game
being over, then for its kind the ids it names, the phase and the turn's limits, the payment, an empty country, and the
supply, the site or the advisor limit. A move that breaks none is an engine bug (``AssertionError``).
"""

from __future__ import annotations

from typing import NoReturn

from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.koenig.notation import MalformedMoveError, ParsedMove, parse_move
from kardinal_env.koenig.state import (
    DISCARD,
    DRAW,
    MAX_CARDS_PER_TURN,
    MAX_PIECES_PER_TURN,
    OVER,
    PLACE,
    SECOND,
    GameState,
)

_MUST = ("place or discard", "place a second piece or end", "discard or end")


class Explain(GameState):
    """The diagnosis of an illegal move (module docstring)."""

    __slots__ = ()

    def _reject(self, move: object) -> NoReturn:
        """Raise the ``IllegalMoveError`` for ``move``, not legal now, naming the rule it breaks."""
        rule, reason = self._explain(move)
        raise IllegalMoveError(f"{rule}: {reason} ({move!r})", rule, move)

    def _explain(self, move: object) -> tuple[str, str]:
        """``(rule, reason)`` for a move string that is not legal now."""
        try:
            p = parse_move(move)
        except MalformedMoveError as exc:
            return "malformed move", str(exc)
        phase = self._phase
        if phase == OVER:
            return "game over", "the game is over; no move is legal"
        seat = self._current
        found: tuple[str, str] | None = None
        if p.kind in ("K", "A"):
            found = self._explain_piece(p, seat)
        elif p.kind == "end":
            if phase in (PLACE, DRAW):
                found = "end", "'end' only stops after a first piece or during discarding (discard='any')"
        elif p.kind == "discard":
            if p.card not in self.board.type_index:
                found = "unknown id", self._no_type(p.card)
            elif phase == SECOND:
                found = "discard", "a piece was placed this turn: discarding is instead of placing"
            elif phase == DRAW:
                found = "phase", f"seat {seat} must now draw (draw:{{t}} or draw:deck)"
            elif not self._hands[seat][self.board.type_index[p.card]]:
                found = "discard", f"seat {seat} holds no card of type {p.card}"
        elif phase != DRAW:
            found = "phase", f"seat {seat} must now {_MUST[phase]}"
        elif p.target is None:
            found = "draw", "the deck is empty; draw from the display"
        elif p.target not in self.board.type_index:
            found = "unknown id", self._no_type(p.target)
        else:
            found = "draw", f"the display holds no card of type {p.target} (display: {self.display()})"
        if found is None:
            raise AssertionError(f"engine bug: {move!r} is rejected but no rule explains why")
        return found

    def _explain_piece(self, p: ParsedMove, seat: int) -> tuple[str, str] | None:
        """``(rule, reason)`` for a cloister (``K``) or advisor (``A``) that is not legal now."""
        b = self.board
        phase = self._phase
        index, noun = (b.site_index, "site") if p.kind == "K" else (b.country_index, "country")
        if p.target not in index:
            return "unknown id", f"no {noun} {p.target!r} on board {b.name!r}"
        site = index[p.target] if p.kind == "K" else -1
        c = b.site_country[site] if site >= 0 else index[p.target]
        cname = b.country_ids[c]
        if p.card not in b.type_index:
            return "unknown id", self._no_type(p.card)
        t = b.type_index[p.card]
        cost = 2 if p.pair else 1
        if phase == DRAW:
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
        if phase == DISCARD:
            return "discard", "discarding is instead of placing: after a discard no piece may be placed"
        if phase == SECOND and c != self._country:
            return "one country", f"this turn's pieces go to {b.country_ids[self._country]}; {cname} is another country"
        if phase == SECOND and self._paid + cost > MAX_CARDS_PER_TURN:
            return "three cards", f"{self._paid} cards are paid this turn; {cost} more would exceed 3"
        if not p.pair and c not in b.type_countries[t]:
            named = b.types[b.country_type[c]]
            return "payment", f"a type-{p.card} card does not name {cname}; pay with a type-{named} card or a pair"
        if self._hands[seat][t] < cost:
            have = self._hands[seat][t]
            return "payment", f"seat {seat} holds {have} card(s) of type {p.card}, the payment needs {cost}"
        if phase == PLACE and self._cl_max[c] == 0 and site < 0:
            return "empty country", f"{cname} holds no cloister: the first piece there must be a cloister"
        if site >= 0:
            if not self._cl_left[seat]:
                return "supply", f"seat {seat} has no cloister left"
            if self._owner[site] >= 0:
                return "site", f"site {p.target} already holds a cloister of seat {self._owner[site]}"
            return None
        if not self._ad_left[seat]:
            return "supply", f"seat {seat} has no advisor left"
        if self._ad_total[c] + 1 > self._cl_max[c]:
            return "advisor limit", (
                f"{cname} would hold {self._ad_total[c] + 1} advisors but no seat has more than "
                f"{self._cl_max[c]} cloister(s) there"
            )
        return None

    def _no_type(self, card: object) -> str:
        return f"no card type {card} on board {self.board.name!r} (types {list(self.board.types)})"
