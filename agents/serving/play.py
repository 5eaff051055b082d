"""Play Kardinal in the terminal against agents.

Usage (``kardinal-play`` or ``python scripts/play.py``)::

    kardinal-play --agents greedy                    # you (seat 0) against greedy, 2 players
    kardinal-play --players 3 --seat 1 --agents mcts:200 random --preset german
    kardinal-play --agents greedy --save game.json   # write the game as a kardinal-record/1 record
    kardinal-play --web --agents ppo:runs/default/checkpoint.pt   # play in the browser (agents.serving.webplay)

The board is drawn after every move (``kardinal_env.kardinal.text.game_text``). On your decisions type a
move in RULES.md notation (``H0@2,0``, ``T1@2,0``, ``Y0@-1,1:0,1``, ``chip:2``, ``C@0,1``, ``C-``).
Commands: ``help`` (list your legal moves), ``board`` (draw the position again), ``quit``.
An illegal move prints the engine's reason (the rule it breaks) and asks again.

The agent specs fill the other seats in order; the last spec repeats if there are more seats.

``--save FILE`` writes the game as a ``kardinal-record/1`` record when the program ends — finished,
or unfinished after ``quit``, end of input or Ctrl-C (then ``result`` is null) — and ``python -m
kardinal_env.core.replay FILE`` (``kardinal-replay``) replays it. Ctrl-C ends quietly with exit status 130.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

from agents import AgentSpecError, check_spec, load_agent
from agents.games import add_table_arguments
from agents.networks.checkpoint import PlayerCountWarning
from kardinal_env import IllegalMoveError
from kardinal_env.kardinal import Game, Rules, RulesError
from kardinal_env.kardinal.text import game_text

__all__ = ["main"]

HELP = "type a move (e.g. H0@2,0  T1@0,1  Y1@-1,1:0,1  chip:2  C@0,1  C-), or: help, board, quit"


def _columns(moves, width=100) -> str:
    lines, line = [], ""
    for m in moves:
        if line and len(line) + len(m) + 2 > width:
            lines.append(line)
            line = ""
        line += ("  " if line else "") + m
    if line:
        lines.append(line)
    return "\n".join(lines)


def _save(game: Game, path: str | None) -> None:
    if path:
        with open(path, "w") as fh:
            json.dump(game.to_record(), fh, indent=1)
            fh.write("\n")
        state = "finished" if game.is_over else f"unfinished, {game.move_count} moves"
        print(f"saved the game ({state}) to {path}")


def main(argv=None) -> int:
    """``kardinal-play`` / ``scripts/play.py``. Exit status 0; 2 for bad arguments; 130 on Ctrl-C."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_table_arguments(parser)
    parser.add_argument("--save", metavar="FILE", help="write the game as a kardinal-record/1 record at the end")
    parser.add_argument(
        "--web", action="store_true", help="play in the browser (a local play page, agents.serving.webplay)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="with --web: address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="with --web: port (default 8000; 0 picks a free one)")
    args = parser.parse_args(argv)
    if args.web:
        if args.save:
            parser.error("--save is for terminal play; the play page has a 'Download record' link")
        from agents.serving.webplay import main as web_main

        web_argv = ["--players", str(args.players), "--seat", str(args.seat), "--agents", *args.agents]
        web_argv += ["--preset", args.preset, "--seed", str(args.seed), "--host", args.host, "--port", str(args.port)]
        return web_main(web_argv + (["--shared-pool"] if args.shared_pool else []))
    try:
        rules = Rules(players=args.players, preset=args.preset, shared_pool=args.shared_pool)
        if not 0 <= args.seat < args.players:
            raise ValueError(f"--seat must be 0..{args.players - 1}, got {args.seat}")
        if args.seed < 0:
            raise ValueError(f"--seed must be >= 0, got {args.seed}")
        if args.save:
            parent = os.path.dirname(os.path.abspath(args.save))
            if os.path.isdir(args.save) or not os.path.isdir(parent):
                raise ValueError(f"--save {args.save!r}: cannot write a file there (a directory, or no such directory)")
        others = [s for s in range(args.players) if s != args.seat]
        specs = list(args.agents) + [args.agents[-1]] * max(0, len(others) - len(args.agents))
        if len(args.agents) > len(others):
            raise ValueError(f"{len(args.agents)} agent specs for {len(others)} other seats")
        for spec in dict.fromkeys(specs):
            for note in check_spec(spec, args.players):
                print(f"warning: {note}", file=sys.stderr)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=PlayerCountWarning)  # reported just above
            agents = {
                seat: load_agent(spec, seed=args.seed * 16 + seat) for seat, spec in zip(others, specs, strict=False)
            }
    except (AgentSpecError, RulesError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    game = Game(rules)
    try:
        code = _play(game, agents, args.seat)
    except KeyboardInterrupt:
        print("\ninterrupted")
        _save(game, args.save)
        return 130
    _save(game, args.save)
    return code


def _play(game: Game, agents: dict, me: int) -> int:
    print(
        f"You are seat {me} (colours {list(game.seat_colours(me))}). "
        + ", ".join(f"seat {s}: {a.name}" for s, a in agents.items())
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
        if shown != game.move_count:
            print()
            print(game_text(game))
            shown = game.move_count
        try:
            line = input(f"seat {seat} [{game.phase}]> ")
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
            moves = game.legal_moves()
            print(f"{len(moves)} legal moves:")
            print(_columns(moves))
            continue
        if cmd == "board":
            print(game_text(game))
            continue
        try:
            game.play(text)
        except IllegalMoveError as exc:
            print(f"illegal move: {exc}")
            print("type 'help' for the legal moves")
    print()
    print(game_text(game))
    scores, winners = game.scores(), game.winners()
    if me in winners:
        print("You win!" if len(winners) == 1 else "You share the win!")
    else:
        print(f"You lose: seat(s) {winners} win with {max(scores)} against your {scores[me]}.")
    return 0
