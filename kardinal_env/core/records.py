"""The checks every game's record format shares: a JSON object with a ``format`` field and no unknown fields, moves as
strings, a ``result`` of ``scores`` and ``winners`` that the replayed game must reproduce, replaying the moves, and
reading a record file. Each game's ``record`` module and engine's ``from_record`` use these; every problem raises
:class:`~kardinal_env.core.errors.RecordError` naming the file or field."""

from __future__ import annotations

import json
from typing import Any

from kardinal_env.core.errors import IllegalMoveError, RecordError

__all__ = [
    "check_record_fields",
    "check_move_strings",
    "check_result_shape",
    "check_result",
    "play_record_move",
    "check_replayed_result",
    "read_record_file",
]


def check_record_fields(record: Any, fmt: str, fields: set[str], required: tuple[str, ...], source: str) -> dict:
    """A JSON object with no unknown field, ``format`` ``fmt`` and every ``required`` field."""
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
    if not isinstance(moves, list):
        raise RecordError(f"{source}: field 'moves' must be a list of move strings, got {type(moves).__name__}")
    for i, move in enumerate(moves):
        if not isinstance(move, str):
            raise RecordError(f"{source}: move {i} must be a string, got {move!r}")
    return moves


def check_result_shape(result: Any, source: str) -> dict | None:
    if result is not None and (not isinstance(result, dict) or set(result) != {"scores", "winners"}):
        raise RecordError(f"{source}: field 'result' must be null or an object with exactly 'scores' and 'winners'")
    return result


def check_result(
    result: dict | None,
    moves: int,
    is_over: bool,
    scores: list[int] | None,
    winners: list[int] | None,
    source: str = "record",
) -> None:
    """Compare a record's claimed ``result`` with the replayed game (``scores``/``winners`` None while not over)."""
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


def play_record_move(game: Any, index: int, move: str, source: str = "record") -> None:
    """``game.play(move)``; an ``IllegalMoveError`` becomes a :class:`RecordError` naming the move."""
    try:
        game.play(move)
    except IllegalMoveError as exc:
        raise RecordError(f"{source}: move {index} ({move!r}) is illegal: {exc}") from None


def check_replayed_result(result: dict | None, game: Any, source: str = "record") -> None:
    over = game.is_over
    scores, winners = (game.scores(), game.winners()) if over else (None, None)
    check_result(result, game.move_count, over, scores, winners, source)


def read_record_file(path: str) -> Any:
    """The JSON content of a record file; :class:`RecordError` naming the file when it cannot be read."""
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
