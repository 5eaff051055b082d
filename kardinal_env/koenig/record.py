"""Game records of Kardinal & König, format ``kardinal-koenig-record/1``.

A record is JSON::

    {"format": "kardinal-koenig-record/1",
     "rules": {"players": 4, "discard": "one", "board": "default"},   # a packaged board's name, or the board dict
     "deck": [3, 0, 4, ...],        # the whole deck after the removal, top first, as shuffled before the deal
     "reshuffle": [2, 1, ...],      # the order the discard pile took at the first run-out (top first), or null
     "moves": ["K@FR3/4", "draw:deck", ...],
     "result": {"scores": [...], "winners": [...]}}    # null (or absent) while the game is in progress

``deck`` and ``reshuffle`` fix every chance event, so replaying ``moves`` reproduces the game exactly. A record whose
moves stop early is a game in progress and loads as one. ``Game.from_record(data)`` checks everything;
:class:`RecordError` names the field, or the move index and the rule. ``reshuffle`` is required once the moves run the
deck out (every finished game) and must hold exactly the discard pile then. A record that stops before the first run-out
may carry it too (the order the game was given): it must hold the pile so far, and the game uses it at the run-out;
without it the game shuffles the pile with a generator seeded from the record's deck.

This module holds the format only (no engine): :func:`make_record` writes one, :func:`parse_record` checks its fields.
``kardinal-replay FILE`` verifies a record and prints its position.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from kardinal_env.core.errors import RecordError
from kardinal_env.core.records import check_move_strings, check_record_fields, check_result_shape
from kardinal_env.koenig.rules import Rules, RulesError

__all__ = ["FORMAT", "RecordError", "RecordParts", "make_record", "parse_record"]

FORMAT = "kardinal-koenig-record/1"
_FIELDS = {"format", "rules", "deck", "reshuffle", "moves", "result"}


class RecordParts(NamedTuple):
    """The checked fields of a record (the deck and reshuffle are checked by the engine)."""

    rules: Rules
    deck: Any
    reshuffle: Any
    moves: list[str]
    result: dict | None


def make_record(
    rules: Rules,
    deck: list[int],
    reshuffle: list[int] | None,
    moves: list[str],
    scores: list[int] | None,
    winners: list[int] | None,
) -> dict:
    """A ``kardinal-koenig-record/1`` dict; ``scores``/``winners`` are ``None`` for a game in progress."""
    return {
        "format": FORMAT,
        "rules": rules.to_dict(),
        "deck": list(deck),
        "reshuffle": None if reshuffle is None else list(reshuffle),
        "moves": list(moves),
        "result": None if scores is None else {"scores": list(scores), "winners": list(winners or [])},
    }


def parse_record(record: Any, source: str = "record") -> RecordParts:
    """Check a record's fields (not its deck or moves); :class:`RecordError` names the problem."""
    check_record_fields(record, FORMAT, _FIELDS, ("rules", "deck", "moves"), source)
    try:
        rules = Rules.from_dict(record["rules"], where=f"{source}: field 'rules'")
    except RulesError as exc:
        raise RecordError(str(exc)) from None
    moves = check_move_strings(record["moves"], source)
    result = check_result_shape(record.get("result"), source)
    return RecordParts(rules, record["deck"], record.get("reshuffle"), moves, result)
