"""Game records, format ``kardinal-record/1`` (``docs/rules.md``, "Game records").

A record is JSON::

    {"format": "kardinal-record/1",
     "rules": {"players": 3, "preset": "german", "shared_pool": false, ...every option...},
     "moves": ["H0@-1,0", "chip:2", "C@0,1", ...],
     "result": {"scores": [...], "winners": [...]}}     # null while the game is unfinished

Replaying ``moves`` from ``rules`` must reproduce ``result`` exactly. This module holds the format
only (it imports no engine): :func:`make_record` writes one, :func:`parse_record` checks the fields
and :func:`check_result` the replayed result, :func:`read_record_file` reads a file with clear
errors. ``Game.to_record()`` / ``Game.from_record(data)`` (``kardinal_env.engine``) use them, and
``python -m kardinal_env.replay FILE`` verifies a file from the command line. Every problem raises
:class:`~kardinal_env.errors.RecordError` naming the field, or the move index and the rule the move
breaks.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from .errors import RecordError
from .rules import Rules, RulesError

__all__ = [
    "FORMAT",
    "RecordError",
    "RecordParts",
    "make_record",
    "parse_record",
    "check_record_fields",
    "check_move_strings",
    "check_result_shape",
    "check_result",
    "read_record_file",
]

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


def check_record_fields(record: Any, fmt: str, fields: set[str], required: tuple[str, ...], source: str) -> dict:
    """The shared first checks of a record of either game: a JSON object, no unknown field, the
    ``format`` named ``fmt``, every ``required`` field present. :class:`RecordError` naming the problem."""
    if not isinstance(record, dict):
        raise RecordError(f"{source}: expected a JSON object, got {type(record).__name__}")
    unknown = sorted(set(record) - fields)
    if unknown:
        raise RecordError(f"{source}: unknown field(s) {unknown}")
    found = record.get("format")
    if found != fmt:
        raise RecordError(f"{source}: field 'format' must be {fmt!r}, got {found!r}")
    for key in required:
        if key not in record:
            raise RecordError(f"{source}: missing field {key!r}")
    return record


def check_move_strings(moves: Any, source: str) -> list[str]:
    """``moves`` if it is a list of strings; :class:`RecordError` naming the bad entry otherwise."""
    if not isinstance(moves, list):
        raise RecordError(f"{source}: field 'moves' must be a list of move strings, got {type(moves).__name__}")
    for i, move in enumerate(moves):
        if not isinstance(move, str):
            raise RecordError(f"{source}: move {i} must be a string, got {move!r}")
    return moves


def check_result_shape(result: Any, source: str) -> dict | None:
    """``result`` if it is null or an object with exactly ``scores`` and ``winners``."""
    if result is not None and (not isinstance(result, dict) or set(result) != {"scores", "winners"}):
        raise RecordError(f"{source}: field 'result' must be null or an object with exactly 'scores' and 'winners'")
    return result


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


def check_result(
    result: dict | None,
    moves: int,
    is_over: bool,
    scores: list[int] | None,
    winners: list[int] | None,
    source: str = "record",
) -> None:
    """Compare a record's claimed ``result`` (checked by :func:`check_result_shape`) with the game
    replayed from its ``moves`` moves (``scores``/``winners`` None while not over); either game."""
    if result is None:
        if is_over:
            raise RecordError(f"{source}: the moves end the game but field 'result' is null")
        return
    if not is_over:
        raise RecordError(f"{source}: field 'result' is given but the game is not over after {moves} moves")
    if result["scores"] != scores:
        raise RecordError(f"{source}: result.scores {result['scores']} != replayed scores {scores}")
    if result["winners"] != winners:
        raise RecordError(f"{source}: result.winners {result['winners']} != replayed winners {winners}")


def read_record_file(path: str) -> Any:
    """The JSON content of a record file; :class:`RecordError` (naming the file) when it cannot be
    read, is not UTF-8 text, or is not valid JSON."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path}: not a text (UTF-8) JSON file: {exc.reason} at byte {exc.start}") from None
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: not valid JSON: {exc}") from None
    except IsADirectoryError:
        raise RecordError(f"{path}: is a directory, not a record file") from None
    except FileNotFoundError:
        raise RecordError(f"{path}: no such file") from None
    except OSError as exc:
        raise RecordError(f"{path}: cannot be read: {exc.strerror or exc}") from None
