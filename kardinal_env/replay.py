"""Verify a game record and show its final position: ``python -m kardinal_env.replay FILE``.

Reads a ``kardinal-record/1`` file (``kardinal_env.record``), replays every move through the engine,
checks the recorded result, prints the final position as text and ``record OK: N moves replayed``.
Exit status 0 when the record is valid, 1 (with ``error: FILE: what is wrong`` on stderr) otherwise.
Also installed as the console command ``kardinal-replay``.
"""

from __future__ import annotations

import argparse
import sys

from .engine import Game
from .errors import RecordError
from .record import FORMAT, read_record_file
from .render import game_text

__all__ = ["main", "replay_file"]


def replay_file(path: str) -> tuple[Game, str]:
    """Replay the record in ``path``: the game and its text picture (:class:`RecordError` if invalid)."""
    data = read_record_file(path)
    fmt = data.get("format") if isinstance(data, dict) else None
    if fmt != FORMAT:
        raise RecordError(f"{path}: field 'format' must be {FORMAT!r}, got {fmt!r}")
    game = Game.from_record(data, source=path)
    return game, game_text(game)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kardinal-replay", description=__doc__.split("\n")[0])
    parser.add_argument("file", help="a record file (JSON)")
    args = parser.parse_args(argv)
    try:
        game, text = replay_file(args.file)
    except RecordError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(text)
    print(f"record OK: {game.move_count} moves replayed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
