"""Game records, format ``kardinal-record/1`` (``docs/rules.md``, "Game records").

A record is JSON::

    {"format": "kardinal-record/1",
     "rules": {"players": 3, "preset": "german", "shared_pool": false, ...every option...},
     "moves": ["H0@-1,0", "chip:2", "C@0,1", ...],
     "result": {"scores": [...], "winners": [...]}}     # null while the game is unfinished

Replaying ``moves`` from ``rules`` must reproduce ``result`` exactly. :func:`make_record` writes one,
:func:`parse_record` checks its fields (the shared checks: :mod:`kardinal_env.core.records`);
``Game.to_record()`` / ``Game.from_record(data)`` use them (:class:`~kardinal_env.core.errors.RecordError`
names the field, or the move index and rule); ``kardinal-replay FILE`` verifies a file.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from kardinal_env.core.errors import RecordError
from kardinal_env.core.records import check_move_strings, check_record_fields, check_result_shape
from kardinal_env.kardinal.rules import Rules, RulesError

__all__ = ["FORMAT", "RecordError", "RecordParts", "make_record", "parse_record"]

FORMAT = "kardinal-record/1"
_FIELDS = {"format", "rules", "moves", "result"}


class RecordParts(NamedTuple):
    """The checked fields of a record: rules, the moves to replay, and the claimed result (or None)."""

    rules: Rules
    moves: list[str]
    result: dict | None


def make_record(rules: Rules, moves: list[str], scores: list[int] | None, winners: list[int] | None) -> dict:
    """A ``kardinal-record/1`` dict; ``scores``/``winners`` are ``None`` for an unfinished game."""
    result = None if scores is None else {"scores": list(scores), "winners": list(winners or [])}
    return {"format": FORMAT, "rules": rules.to_dict(), "moves": list(moves), "result": result}


def parse_record(record: Any, source: str = "record") -> RecordParts:
    """Check a record's fields (not its moves) and return them; :class:`RecordError` names the problem."""
    check_record_fields(record, FORMAT, _FIELDS, ("rules",), source)
    try:
        rules = Rules.from_dict(record["rules"], where=f"{source}: field 'rules'")
    except RulesError as exc:
        raise RecordError(str(exc)) from None
    moves = check_move_strings(record.get("moves"), source)
    if "result" not in record:
        raise RecordError(f"{source}: missing field 'result' (null for an unfinished game)")
    return RecordParts(rules, moves, check_result_shape(record["result"], source))
