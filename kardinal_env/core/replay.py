"""Verify a game record and show its final position: ``kardinal-replay FILE`` (``python -m kardinal_env.core.replay``).

Reads a record of any registered game (the one whose ``record_format`` is the record's ``format``), replays every move
through the game's engine (``spec.from_record``, which checks the recorded result), prints the final position as text
and ``record OK: N moves replayed``. ``-o/--output game.html`` also writes a self-contained HTML replay (the game's
``html_replay`` renderer; a game without one is an error) and prints ``wrote HTML replay: game.html``. Exit status 0 for
a valid record, 1 (``error: FILE: what is wrong`` on stderr) otherwise, 2 for bad arguments. ``--plugin
MODULE[:ATTRIBUTE]`` (repeatable) first loads a game of one's own module.

Python: :func:`replay_file` (the game and its text picture), :func:`write_html` (record file to HTML).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from kardinal_env.core.cli import add_plugin_argument, load_plugin_argv
from kardinal_env.core.errors import RecordError
from kardinal_env.core.records import read_record_file
from kardinal_env.core.registry import GameSpec, UnknownGameError, game_for_record, games

__all__ = ["main", "replay_file", "write_html"]


def _read(path: str) -> tuple[Any, GameSpec]:
    data = read_record_file(path)
    if not isinstance(data, dict):
        raise RecordError(f"{path}: expected a JSON object, got {type(data).__name__}")
    try:
        return data, game_for_record(data)
    except UnknownGameError:
        formats = [repr(spec.record_format) for spec in games().values()]
        choices = formats[0] if len(formats) == 1 else ", ".join(formats[:-1]) + " or " + formats[-1]
        raise RecordError(f"{path}: field 'format' must be {choices}, got {data.get('format')!r}") from None


def replay_file(path: str) -> tuple[Any, str]:
    """The game of the record in ``path`` and its text picture (:class:`RecordError` if invalid)."""
    data, spec = _read(path)
    game = spec.from_record(data, source=path)
    return game, spec.game_text(game, None)


def write_html(path: str, output: str) -> str:
    """Write the record file ``path`` as an HTML replay to ``output`` and return it (:class:`RecordError`)."""
    data, spec = _read(path)
    if spec.renderers.html_replay is None:
        raise RecordError(f"{path}: the game {spec.name!r} has no HTML replay")
    write_replay_html = spec.renderer("html_replay")
    try:
        return write_replay_html(data, output, source=path)
    except OSError as exc:
        raise RecordError(f"{output}: cannot write the HTML replay: {exc.strerror or exc}") from None


def main(argv: list[str] | None = None) -> int:
    load_plugin_argv(argv, "kardinal-replay")  # --plugin: a game of one's own module, before the record is read
    parser = argparse.ArgumentParser(prog="kardinal-replay", description=(__doc__ or "").split("\n")[0])
    parser.add_argument("file", help="a record file (JSON)")
    parser.add_argument("-o", "--output", metavar="HTML", help="also write a self-contained HTML replay to this file")
    add_plugin_argument(parser)
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
