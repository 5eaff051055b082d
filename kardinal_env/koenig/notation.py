"""Move notation of Kardinal & König: one string per decision.

==========================  =================================================================
``K@{site}/{pay}``          a cloister on ``site``, e.g. ``K@SW2/3``, ``K@FR1/00``
``A@{country}/{pay}``       an advisor on the seal of ``country``, e.g. ``A@IT/2``
``end``                     stop after the first piece, or stop discarding (``discard="any"``)
``discard:{t}``             discard one card of type ``t``
``draw:{t}``                take a display card of type ``t``
``draw:deck``               take the top card of the deck
==========================  =================================================================

``{pay}`` is one digit ``t`` (one card of type ``t``, which must name the piece's country) or two
equal digits ``tt`` (a pair of type ``t``: a joker for any country). Site and country names are the
board's ids. Only this spelling is accepted: no spaces, no other separators; two different digits
are not a payment. :func:`parse_move` checks spelling only and raises :class:`MalformedMoveError`
saying what is wrong; whether the ids exist and the move is legal is the engine's question.

The engine itself works on integer move ids, the positions in the board's move table
(:class:`kardinal_env.koenig.board.Board`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["MalformedMoveError", "ParsedMove", "parse_move"]

_PLACE_RE = re.compile(r"([KA])@([^/@:\s]+)/([0-9])([0-9])?")
_DISCARD_RE = re.compile(r"discard:([0-9])")
_DRAW_RE = re.compile(r"draw:([0-9]|deck)")
_EXPECTED = "expected K@{site}/{pay}, A@{country}/{pay}, end, discard:{t}, draw:{t} or draw:deck"


class MalformedMoveError(ValueError):
    """A move string that is not in the notation."""


class ParsedMove(NamedTuple):
    """A spelled-out move. ``kind`` is ``"K"``, ``"A"``, ``"end"``, ``"discard"`` or ``"draw"``; ``target``: the site
    (K) or country (A) id, for draws the type digit or ``None`` for the deck; ``card``: the payment's card type (K, A)
    or the discarded type; ``pair``: a pair pays."""

    kind: str
    target: str | int | None = None
    card: int | None = None
    pair: bool = False


def parse_move(move: object) -> ParsedMove:
    """Parse a move string; :class:`MalformedMoveError` if it is not in the notation."""
    if not isinstance(move, str):
        raise MalformedMoveError(f"malformed move {move!r}: a move is a string ({_EXPECTED})")
    if move == "end":
        return ParsedMove("end")
    if m := _PLACE_RE.fullmatch(move):
        kind, target, d1, d2 = m.groups()
        if d2 is not None and d2 != d1:
            raise MalformedMoveError(
                f"malformed move {move!r}: a payment is one card type or a pair of the same type, not {d1}{d2}"
            )
        return ParsedMove(kind, target, int(d1), d2 is not None)
    if m := _DISCARD_RE.fullmatch(move):
        return ParsedMove("discard", None, int(m.group(1)))
    if m := _DRAW_RE.fullmatch(move):
        return ParsedMove("draw", None if m.group(1) == "deck" else int(m.group(1)))
    raise MalformedMoveError(f"malformed move {move!r}: {_EXPECTED}")
