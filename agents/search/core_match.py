"""The compiled ``mcts:N`` against the Python ``mcts:N`` on Kardinal, a strength check (``mcts:200``, 2 players, core
win share >= 0.45 over 200 games; figures: docs/benchmarks.md); ``scripts/core_mcts_match.py`` is its command line.

Game ``g`` (from 0) puts the core agent in seat ``g % players``, Python ones (``compiled=False``) elsewhere, each
``MCTSAgent(N, seed=1000 * (seed + g) + seat)``, until ``games`` are done or ``minutes`` have passed (the game under way
finishes). The core's share counts a win shared by ``k`` seats as ``1/k``, with its 95 % Wilson interval.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from agents.evaluation.stats import wilson_interval
from agents.search.mcts import MCTSAgent
from kardinal_env.core.rewards import win_share
from kardinal_env.kardinal import Game, Rules

__all__ = ["core_mcts_match"]


def core_mcts_match(
    simulations: int = 200,
    games: int = 200,
    minutes: float = 10.0,
    players: int = 2,
    seed: int = 0,
    log: Callable[[str], None] = print,
) -> float:
    """Play the match, ``log`` a line per game and the summary; the core's share."""
    rules = Rules(players=players)
    start = time.perf_counter()
    points, played = 0.0, 0
    while played < games and time.perf_counter() - start < 60 * minutes:
        g, seat = seed + played, played % players
        agents = [MCTSAgent(simulations, seed=1000 * g + s, compiled=s == seat) for s in range(players)]
        game = Game(rules)
        while (turn := game.current_player) is not None:  # None once the game is over
            game.play(agents[turn].select_move(game))
        point = win_share(game.winners(), seat)
        points, played = points + point, played + 1
        log(
            f"game {played}: core seat {seat} scores {game.scores()} point {point:g} "
            f"share {points / played:.3f} ({time.perf_counter() - start:.0f} s)"
        )
    low, high = wilson_interval(points, played)
    log(
        f"core mcts:{simulations} vs python mcts:{simulations}, {players} players, "
        f"{played} games: share {points / played:.3f} (95 % Wilson {low:.3f}-{high:.3f})"
    )
    return points / played
