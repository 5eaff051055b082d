"""Search strength of the compiled core's ``mcts:N`` against the Python ``mcts:N`` (issue 22's check:
core ``mcts:200`` vs Python ``mcts:200``, 2 players, seats alternated, share >= 0.45 over 200 games).

    python scripts/core_mcts_match.py [--simulations 200] [--games 200] [--minutes 10] [--players 2] [--seed 0]

Plays game ``g`` with the core agent in seat ``g % players`` and Python agents in the others (both
``MCTSAgent(N, seed=...)``; the Python one with ``compiled=False``), until ``--games`` are played or
``--minutes`` have passed (the game under way finishes). A shared win counts as half a win. Prints
one line per game and the core's win share with its 95 % Wilson interval. Needs the core
(``bash scripts/setup.sh``).
"""

from __future__ import annotations

import argparse
import time

from agents.evaluation.tournament import wilson_interval
from agents.search.mcts import MCTSAgent
from kardinal_env.kardinal import Game, Rules, compiled


def play(rules: Rules, agents: list) -> Game:
    game = Game(rules)
    while not game.is_over:
        game.play(agents[game.current_player].select_move(game))
    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not compiled.available():
        raise SystemExit("the compiled core is not available (bash scripts/setup.sh)")
    rules = Rules(players=args.players)
    start = time.perf_counter()
    points = 0.0
    played = 0
    while played < args.games and time.perf_counter() - start < 60 * args.minutes:
        g = args.seed + played
        seat = played % args.players
        agents = [MCTSAgent(args.simulations, seed=1000 * g + s, compiled=False) for s in range(args.players)]
        agents[seat] = MCTSAgent(args.simulations, seed=1000 * g + seat)
        game = play(rules, agents)
        winners = game.winners()
        point = 1.0 / len(winners) if seat in winners else 0.0
        points += point
        played += 1
        print(
            f"game {played}: core seat {seat} scores {game.scores()} point {point:g} "
            f"share {points / played:.3f} ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
    low, high = wilson_interval(points, played)
    print(
        f"core mcts:{args.simulations} vs python mcts:{args.simulations}, {args.players} players, "
        f"{played} games: share {points / played:.3f} (95 % Wilson {low:.3f}-{high:.3f})"
    )


if __name__ == "__main__":
    main()
