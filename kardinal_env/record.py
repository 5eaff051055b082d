"""Game records, format ``kardinal-record/1`` (RULES.md "Game record").

A record is JSON::

    {"format": "kardinal-record/1",
     "rules": {"players": 3, "preset": "german", "shared_pool": false, ...every option...},
     "moves": ["H0@-1,0", "chip:2", "C@0,1", ...],
     "result": {"scores": [...], "winners": [...]}}     # null while the game is unfinished

Replaying ``moves`` from ``rules`` must reproduce ``result`` exactly. :func:`game_from_record`
checks everything and raises :class:`RecordError` naming the field, or the move index and the
rule the move breaks.

Command line::

    python -m kardinal_env.record replay FILE     # verify a record, print the final position and scores
"""

from __future__ import annotations

import argparse
import json
import sys

from .engine import Game, IllegalMoveError
from .errors import RecordError
from .rules import Rules, RulesError

__all__ = ["FORMAT", "RecordError", "game_to_record", "game_from_record", "load_record", "main"]

FORMAT = "kardinal-record/1"


def game_to_record(game: Game) -> dict:
    """The record of ``game`` so far (``result`` is ``None`` until the game is over)."""
    result = None
    if game.is_over:
        result = {"scores": game.scores(), "winners": game.winners()}
    return {"format": FORMAT, "rules": game.rules.to_dict(), "moves": game.history, "result": result}


def game_from_record(record: dict, source: str = "record") -> Game:
    """Replay a record and return the game; checks format, rules, every move and the result."""
    if not isinstance(record, dict):
        raise RecordError(f"{source}: expected a JSON object, got {type(record).__name__}")
    unknown = sorted(set(record) - {"format", "rules", "moves", "result"})
    if unknown:
        raise RecordError(f"{source}: unknown field(s) {unknown}")
    fmt = record.get("format")
    if fmt != FORMAT:
        raise RecordError(f"{source}: field 'format' must be {FORMAT!r}, got {fmt!r}")
    if "rules" not in record:
        raise RecordError(f"{source}: missing field 'rules'")
    try:
        rules = Rules.from_dict(record["rules"], where=f"{source}: field 'rules'")
    except RulesError as exc:
        raise RecordError(str(exc)) from None
    moves = record.get("moves")
    if not isinstance(moves, list):
        raise RecordError(f"{source}: field 'moves' must be a list of move strings, got {type(moves).__name__}")
    game = Game(rules)
    for i, move in enumerate(moves):
        if not isinstance(move, str):
            raise RecordError(f"{source}: move {i} must be a string, got {move!r}")
        try:
            game.play(move)
        except IllegalMoveError as exc:
            raise RecordError(f"{source}: move {i} ({move!r}) is illegal: {exc}") from None
    if "result" not in record:
        raise RecordError(f"{source}: missing field 'result' (null for an unfinished game)")
    result = record["result"]
    if result is None:
        if game.is_over:
            raise RecordError(f"{source}: the moves end the game but field 'result' is null")
        return game
    if not game.is_over:
        raise RecordError(f"{source}: field 'result' is given but the game is not over after {len(moves)} moves")
    if not isinstance(result, dict) or set(result) != {"scores", "winners"}:
        raise RecordError(f"{source}: field 'result' must be an object with exactly 'scores' and 'winners'")
    if result["scores"] != game.scores():
        raise RecordError(f"{source}: result.scores {result['scores']} != replayed scores {game.scores()}")
    if result["winners"] != game.winners():
        raise RecordError(f"{source}: result.winners {result['winners']} != replayed winners {game.winners()}")
    return game


def load_record(path: str) -> Game:
    """Read a record file and replay it (:class:`RecordError` on any problem)."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: not valid JSON: {exc}") from None
    return game_from_record(data, source=path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kardinal_env.record", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    replay = sub.add_parser("replay", help="verify a record and print the final position and scores")
    replay.add_argument("file")
    args = parser.parse_args(argv)
    from .render import game_text

    try:
        game = load_record(args.file)
    except (RecordError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(game_text(game))
    print(f"record OK: {game.move_count} moves replayed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
