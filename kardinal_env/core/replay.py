"""Verify a game record and show its final position: ``python -m kardinal_env.core.replay FILE``.

Reads a record of either game — ``kardinal-record/1`` (Kardinal, ``kardinal_env.kardinal.record``) or
``kardinal-koenig-record/1`` (Kardinal & König, ``kardinal_env.koenig.record``) — replays every move
through the engine, checks the recorded result, prints the final position as text and
``record OK: N moves replayed``.
With ``-o/--output game.html`` it also writes the game as a self-contained HTML replay
(``kardinal_env.kardinal.replay_html``, or ``kardinal_env.koenig.replay_html`` for Kardinal & König: step
through every position in a browser) and prints
``wrote HTML replay: game.html``. Exit status 0 when the record is valid, 1 (with
``error: FILE: what is wrong`` on stderr) otherwise; 2 for bad arguments.
Also installed as the console command ``kardinal-replay``.

Python: :func:`replay_file` (the game and its text picture) and :func:`write_html` (record file to
HTML file, either game); ``write_replay_html(record, path)`` of ``kardinal_env.kardinal.replay_html`` or
``kardinal_env.koenig.replay_html`` for a record dict.
"""

from __future__ import annotations

import argparse
import os
import sys

from kardinal_env.core.errors import RecordError
from kardinal_env.kardinal.engine import Game
from kardinal_env.kardinal.record import FORMAT, read_record_file
from kardinal_env.kardinal.text import game_text
from kardinal_env.koenig import Game as KoenigGame
from kardinal_env.koenig.record import FORMAT as KOENIG_FORMAT
from kardinal_env.koenig.text import game_text as koenig_text

__all__ = ["main", "replay_file", "write_html"]


def replay_file(path: str) -> tuple[Game | KoenigGame, str]:
    """Replay the record in ``path`` (either game): the game and its text picture
    (:class:`RecordError` if invalid)."""
    data = read_record_file(path)
    fmt = data.get("format") if isinstance(data, dict) else None
    if fmt == KOENIG_FORMAT:
        koenig = KoenigGame.from_record(data, source=path)
        return koenig, koenig_text(koenig)
    if fmt != FORMAT:
        raise RecordError(f"{path}: field 'format' must be {FORMAT!r} or {KOENIG_FORMAT!r}, got {fmt!r}")
    game = Game.from_record(data, source=path)
    return game, game_text(game)


def write_html(path: str, output: str) -> str:
    """Write the record file ``path`` as an HTML replay to ``output`` (:class:`RecordError` naming
    ``path`` if the record is invalid, or ``output`` if it cannot be written); returns ``output``."""
    data = read_record_file(path)
    if isinstance(data, dict) and data.get("format") == KOENIG_FORMAT:
        from kardinal_env.koenig.replay_html import write_replay_html
    else:
        from kardinal_env.kardinal.replay_html import write_replay_html
    try:
        return write_replay_html(data, output, source=path)
    except OSError as exc:
        raise RecordError(f"{output}: cannot write the HTML replay: {exc.strerror or exc}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kardinal-replay", description=__doc__.split("\n")[0])
    parser.add_argument("file", help="a record file (JSON)")
    parser.add_argument("-o", "--output", metavar="HTML", help="also write a self-contained HTML replay to this file")
    args = parser.parse_args(argv)
    if args.output is not None and (os.path.isdir(args.output) or not args.output.strip()):
        parser.error(f"-o/--output {args.output!r}: give a file name, not a directory")
    try:
        game, text = replay_file(args.file)
        if args.output is not None:
            write_html(args.file, args.output)
    except RecordError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(text)
    print(f"record OK: {game.move_count} moves replayed")
    if args.output is not None:
        print(f"wrote HTML replay: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
