"""Play Kardinal in the terminal against agents.

Usage::

    python scripts/play.py --agents greedy                    # you (seat 0) against greedy, 2 players
    python scripts/play.py --players 3 --seat 1 --agents mcts:200 random --preset german

The board is drawn after every move (``kardinal_env.render.game_text``). On your decisions type a
move in RULES.md notation (``H0@2,0``, ``T1@2,0``, ``Y0@-1,1:0,1``, ``chip:2``, ``C@0,1``, ``C-``).
Commands: ``help`` (list your legal moves), ``board`` (draw the position again), ``quit``.
An illegal move prints the engine's reason (the rule it breaks) and asks again.

The agent specs fill the other seats in order; the last spec repeats if there are more seats.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from agents import AgentSpecError, load_agent  # noqa: E402
from kardinal_env import Game, IllegalMoveError, Rules, RulesError  # noqa: E402
from kardinal_env.render import game_text  # noqa: E402

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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4])
    parser.add_argument("--seat", type=int, default=0, help="your seat (0 moves first)")
    parser.add_argument("--agents", nargs="+", default=["greedy"], help="agent specs for the other seats")
    parser.add_argument("--preset", default="english", choices=["english", "german"])
    parser.add_argument("--shared-pool", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        rules = Rules(players=args.players, preset=args.preset, shared_pool=args.shared_pool)
        if not 0 <= args.seat < args.players:
            raise ValueError(f"--seat must be 0..{args.players - 1}")
        others = [s for s in range(args.players) if s != args.seat]
        specs = list(args.agents) + [args.agents[-1]] * max(0, len(others) - len(args.agents))
        agents = {seat: load_agent(spec, seed=args.seed * 16 + seat) for seat, spec in zip(others, specs, strict=False)}
    except (AgentSpecError, RulesError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    game = Game(rules)
    print(
        f"You are seat {args.seat} (colours {list(game.seat_colours(args.seat))}). "
        + ", ".join(f"seat {s}: {a.name}" for s, a in agents.items())
    )
    print(HELP)
    shown = -1
    while not game.is_over:
        seat = game.current_player
        if seat != args.seat:
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
    if args.seat in winners:
        print("You win!" if len(winners) == 1 else "You share the win!")
    else:
        print(f"You lose: seat(s) {winners} win with {max(scores)} against your {scores[args.seat]}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
