"""Command line for Kardinal & König records: ``python -m kardinal_env.koenig.cli {replay,random}``.

* ``replay FILE`` — replay a ``kardinal-koenig-record/1`` file, check it, print the position (every
  hand: a record fixes the whole deck) and ``record OK: N moves replayed (game over|game in progress)``.
  ``kardinal-replay FILE`` does the same and also knows Kardinal's records.
* ``random [--players 4] [--discard one] [--seed 0] [--board B] [--moves N]`` — print the record of
  a uniformly random game (stopped after N moves: a game in progress).

Exit status 0, or 1 with ``error: ...`` on stderr.
"""

from __future__ import annotations

import argparse
import json
import random
import sys

from kardinal_env.core.errors import RecordError
from kardinal_env.koenig.engine import Game
from kardinal_env.koenig.rules import Rules, RulesError
from kardinal_env.koenig.text import game_text

__all__ = ["main", "random_game"]


def random_game(rules: Rules, seed: int, max_moves: int | None = None) -> Game:
    """A game of uniformly random legal moves (``seed`` fixes the shuffles and the choices)."""
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    while not game.is_over and (max_moves is None or game.move_count < max_moves):
        game.play(rng.choice(game.legal_moves()))
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kardinal_env.koenig.cli", description="Kardinal & König game records."
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
    if args.command == "random":
        try:
            rules = Rules(players=args.players, discard=args.discard, board=args.board)
        except RulesError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(json.dumps(random_game(rules, args.seed, args.moves).to_record()))
        return 0
    try:
        game = Game.load(args.file)
    except RecordError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(game_text(game))
    state = "game over" if game.is_over else "game in progress"
    print(f"record OK: {game.move_count} moves replayed ({state})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
