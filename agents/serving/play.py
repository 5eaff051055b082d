"""Play any registered game in the terminal against agents.

Usage (``kardinal-play`` or ``python scripts/play.py``)::

    kardinal-play --agents greedy                    # Kardinal: you (seat 0) against greedy, 2 players
    kardinal-play --players 3 --seat 1 --agents mcts:200 random --preset german
    kardinal-play --game kardinal_koenig --players 3 --agents ismcts:200 random --discard any
    kardinal-play --agents greedy --save game.json   # write the game as a record
    kardinal-play --web --game kardinal_koenig       # play in the browser (agents.serving.webplay)

The table options (``--game``, ``--players``, rule flags, ``--agents``, ``--seat``, ``--seed``) are
:mod:`agents.serving.table`'s.

Before each of your decisions the game's text picture *for your seat* (``spec.game_text(game, seat)``: never another
seat's cards) and the numbered legal moves are drawn. Type a move in the game's notation (docs/rules.md,
docs/rules-koenig.md) or a listed move's number (a number that is itself a legal move is that move; ``#3`` means
number 3). Commands: ``help`` (list your legal moves), ``board`` (draw it again), ``quit``. An illegal move prints the
rule it breaks and asks again; the agents' moves are printed as made.

``--save FILE`` writes the game's record when the program ends — finished, or unfinished after ``quit``, end of input or
Ctrl-C (``result`` null); ``kardinal-replay FILE`` replays it. Ctrl-C ends quietly with exit status 130.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from agents import AgentSpecError
from agents.serving.table import build_agents, rule_option_argv, rule_options, seat_specs, table_parser
from kardinal_env.core.registry import GameSpec

__all__ = ["main", "play_game", "resolve_move"]

HELP = "type a move in notation or the number of a listed move, or: help, board, quit"
#: A decision with at most this many legal moves lists them every time; more are listed by ``help``.
LIST_MAX = 40


def _numbered(moves: list[str], width: int = 100) -> str:
    """The moves numbered from 1, in lines of at most ``width`` characters."""
    lines = [""]
    for i, move in enumerate(moves, 1):
        item = f"{i}) {move}"
        if lines[-1] and len(lines[-1]) + len(item) + 2 > width:
            lines.append("")
        lines[-1] += ("  " if lines[-1] else "") + item
    return "\n".join(lines)


def resolve_move(text: str, legal: list[str]) -> str:
    """The move ``text`` means on a decision with ``legal`` moves: a legal move as it is, ``N`` or ``#N`` with ``1 <= N
    <= len(legal)`` the ``N``-th legal move, anything else unchanged (the engine then says what is wrong with it)."""
    if text in legal:
        return text
    number = text[1:] if text.startswith("#") else text
    if number.isdigit() and 1 <= int(number) <= len(legal):
        return legal[int(number) - 1]
    return text


def _save(game: Any, path: str | None) -> None:
    if path:
        with open(path, "w") as fh:
            json.dump(game.to_record(), fh, indent=1)
            fh.write("\n")
        state = "finished" if game.is_over else f"unfinished, {game.move_count} moves"
        print(f"saved the game ({state}) to {path}")


def main(argv: list[str] | None = None) -> int:
    """``kardinal-play`` / ``scripts/play.py``. Exit status 0; 2 for bad arguments; 130 on Ctrl-C."""
    parser, spec = table_parser(argv, prog="kardinal-play", description=(__doc__ or "").split("\n\n")[0])
    add = parser.add_argument
    add("--save", metavar="FILE", help="write the game as a record (the game's format) at the end")
    add("--web", action="store_true", help="play in the browser (a local play page, agents.serving.webplay)")
    add("--host", default="127.0.0.1", help="with --web: address to bind (default 127.0.0.1)")
    add("--port", type=int, default=8000, help="with --web: port (default 8000; 0 picks a free one)")
    args = parser.parse_args(argv)
    options = rule_options(spec, args)
    if args.web:
        if args.save:
            parser.error("--save is for terminal play; the play page has a 'Download record' link")
        from agents.serving.webplay import main as web_main

        web_argv = ["--game", spec.name, "--players", str(args.players), "--seat", str(args.seat)]
        web_argv += ["--agents", *args.agents, "--seed", str(args.seed), "--host", args.host, "--port", str(args.port)]
        return web_main(web_argv + rule_option_argv(spec, options))
    try:
        rules = spec.rules(args.players, **options)
        specs = seat_specs(list(args.agents), args.players, args.seat)
        if args.seed < 0:
            raise ValueError(f"--seed must be >= 0, got {args.seed}")
        if args.save:
            parent = os.path.dirname(os.path.abspath(args.save))
            if os.path.isdir(args.save) or not os.path.isdir(parent):
                raise ValueError(f"--save {args.save!r}: cannot write a file there (a directory, or no such directory)")
        agents, notes = build_agents(spec, args.players, specs, args.seed)
    except (AgentSpecError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"warning: {note}", file=sys.stderr)

    game = spec.new_game(rules, seed=args.seed)
    try:
        code = play_game(spec, game, agents, args.seat)
    except KeyboardInterrupt:
        print("\ninterrupted")
        _save(game, args.save)
        return 130
    _save(game, args.save)
    return code


def play_game(spec: GameSpec, game: Any, agents: dict[int, Any], me: int) -> int:
    """Play ``game`` to its end (or ``quit`` / end of input) with the person at seat ``me`` reading
    from ``input()`` and ``agents`` (seat -> agent) at the other seats; prints to stdout. Returns 0."""
    print(
        f"{spec.title}: you are seat {me} of {game.num_players}; "
        + ", ".join(f"seat {s}: {a.name}" for s, a in sorted(agents.items()))
    )
    print(HELP)
    shown = -1
    while not game.is_over:
        seat = game.current_player
        if seat != me:
            move = agents[seat].select_move(game)
            print(f"seat {seat} ({agents[seat].name}) plays {move}")
            game.play(move)
            continue
        legal = game.legal_moves()
        if shown != game.move_count:
            print()
            print(spec.game_text(game, me))
            if len(legal) <= LIST_MAX:
                print(f"your legal moves ({len(legal)}):")
                print(_numbered(legal))
            else:
                print(f"{len(legal)} legal moves; type 'help' to list them")
            shown = game.move_count
        phase = getattr(game, "phase", None)
        try:
            line = input(f"seat {seat}{f' [{phase}]' if phase else ''}> ")
        except EOFError:
            print("\nend of input; quitting")
            return 0
        text = line.strip()
        if not text:
            continue
        cmd = text.lower()
        if cmd in ("quit", "exit", "q"):
            print("bye")
            return 0
        if cmd in ("help", "?", "h"):
            print(f"{len(legal)} legal moves:")
            print(_numbered(legal))
            continue
        if cmd == "board":
            print(spec.game_text(game, me))
            continue
        try:
            game.play(resolve_move(text, legal))
        except ValueError as exc:  # the engine's IllegalMoveError names the rule the move breaks
            print(f"illegal move: {exc}")
            if text.removeprefix("#").isdigit():
                print(f"(a number picks one of the {len(legal)} legal moves, 1..{len(legal)})")
            print("type 'help' for the legal moves")
    print()
    print(spec.game_text(game, me))
    scores, winners = game.scores(), game.winners()
    if me in winners:
        print("You win!" if len(winners) == 1 else "You share the win!")
    else:
        print(f"You lose: seat(s) {winners} win with {max(scores)} against your {scores[me]}.")
    return 0
