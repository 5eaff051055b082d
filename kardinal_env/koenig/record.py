"""Game records of Kardinal & König, format ``kardinal-koenig-record/1``.

A record is JSON::

    {"format": "kardinal-koenig-record/1",
     "rules": {"players": 4, "discard": "one", "board": "default"},   # a packaged board's name, or the board dict
     "deck": [3, 0, 4, ...],        # the whole deck after the removal, top first, as shuffled before the deal
     "reshuffle": [2, 1, ...],      # the order the discard pile took at the first run-out (top first), or null
     "moves": ["K@FR3/4", "draw:deck", ...],
     "result": {"scores": [...], "winners": [...]}}    # null (or absent) while the game is in progress

``deck`` and ``reshuffle`` fix every chance event, so replaying ``moves`` reproduces the game
exactly. A record whose moves stop early is a game in progress and loads as one.
:func:`game_from_record` checks everything and raises :class:`RecordError` naming the field, or
the move index and the rule the move breaks. A ``reshuffle`` must be given exactly when the moves
run the deck out for the first time, and hold exactly the discard pile's cards at that moment. A
game loaded from a record that stops before the first run-out shuffles its discard pile later with
a generator seeded from the record's deck (deterministic, but not the original game's).

Command line::

    python -m kardinal_env.koenig.record replay FILE          # verify a record, print the position and scores
    python -m kardinal_env.koenig.record random [--players 4] [--discard one] [--seed 0] [--board B] [--moves N]
                                                              # print the record of a uniformly random game
"""

from __future__ import annotations

import argparse
import json
import random
import sys

from ..errors import RecordError
from .engine import DeckError, Game, IllegalMoveError
from .rules import Rules, RulesError

__all__ = ["FORMAT", "RecordError", "game_to_record", "game_from_record", "load_record", "main"]

FORMAT = "kardinal-koenig-record/1"
_FIELDS = {"format", "rules", "deck", "reshuffle", "moves", "result"}


def game_to_record(game: Game) -> dict:
    """The record of ``game`` so far (``result`` is ``None`` until the game is over)."""
    result = None
    if game.is_over:
        result = {"scores": game.scores(), "winners": game.winners()}
    return {
        "format": FORMAT,
        "rules": game.rules.to_dict(),
        "deck": game.initial_deck,
        "reshuffle": game.reshuffle_order,
        "moves": game.history,
        "result": result,
    }


def game_from_record(record: dict, source: str = "record") -> Game:
    """Replay a record and return the game; checks format, rules, deck, every move and the result."""
    if not isinstance(record, dict):
        raise RecordError(f"{source}: expected a JSON object, got {type(record).__name__}")
    unknown = sorted(set(record) - _FIELDS)
    if unknown:
        raise RecordError(f"{source}: unknown field(s) {unknown}")
    fmt = record.get("format")
    if fmt != FORMAT:
        raise RecordError(f"{source}: field 'format' must be {FORMAT!r}, got {fmt!r}")
    for key in ("rules", "deck", "moves"):
        if key not in record:
            raise RecordError(f"{source}: missing field {key!r}")
    try:
        rules = Rules.from_dict(record["rules"], where=f"{source}: field 'rules'")
    except RulesError as exc:
        raise RecordError(str(exc)) from None
    deck = record["deck"]
    reshuffle = record.get("reshuffle")
    seed = "kardinal-koenig-record:" + json.dumps(deck)
    try:
        game = Game(rules, seed=seed, deck=deck, reshuffle=reshuffle)
    except DeckError as exc:
        raise RecordError(f"{source}: field {str(exc).split(':')[0]!r}: {str(exc).split(': ', 1)[1]}") from None
    moves = record["moves"]
    if not isinstance(moves, list):
        raise RecordError(f"{source}: field 'moves' must be a list of move strings, got {type(moves).__name__}")
    for i, move in enumerate(moves):
        if not isinstance(move, str):
            raise RecordError(f"{source}: move {i} must be a string, got {move!r}")
        try:
            game.play(move)
        except IllegalMoveError as exc:
            raise RecordError(f"{source}: move {i} ({move!r}) is illegal: {exc}") from None
        except DeckError as exc:
            raise RecordError(f"{source}: field 'reshuffle' does not fit the game at move {i}: {exc}") from None
        if reshuffle is None and game.runouts:
            raise RecordError(
                f"{source}: field 'reshuffle' is null but the deck runs out for the first time at move {i} ({move!r})"
            )
    if reshuffle is not None and game.reshuffle_order is None:
        raise RecordError(f"{source}: field 'reshuffle' is given but the deck never runs out during the moves")
    result = record.get("result")
    if result is None:
        if game.is_over:
            raise RecordError(f"{source}: the moves end the game but field 'result' is null or missing")
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


def random_game(rules: Rules, seed: int, max_moves: int | None = None) -> Game:
    """A game of uniformly random legal moves (``seed`` fixes the shuffles and the choices)."""
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    while not game.is_over and (max_moves is None or game.move_count < max_moves):
        game.play(rng.choice(game.legal_moves()))
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kardinal_env.koenig.record", description="Kardinal & König game records."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    replay = sub.add_parser("replay", help="verify a record and print the position and scores")
    replay.add_argument("file")
    rand = sub.add_parser("random", help="print the record of a uniformly random game")
    rand.add_argument("--players", type=int, default=4)
    rand.add_argument("--discard", default="one")
    rand.add_argument("--board", default=None, help="packaged board name or path (default: the default board)")
    rand.add_argument("--seed", type=int, default=0)
    rand.add_argument("--moves", type=int, default=None, help="stop after this many moves (a game in progress)")
    args = parser.parse_args(argv)
    from .text import game_text

    if args.command == "random":
        try:
            rules = Rules(players=args.players, discard=args.discard, board=args.board)
        except RulesError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(json.dumps(random_game(rules, args.seed, args.moves).to_record()))
        return 0
    try:
        game = load_record(args.file)
    except (RecordError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(game_text(game))
    state = "game over" if game.is_over else "game in progress"
    print(f"record OK: {game.move_count} moves replayed ({state})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
