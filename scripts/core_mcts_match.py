"""Search strength of the compiled core's ``mcts:N`` against the Python ``mcts:N``: the command line of
:mod:`agents.search.core_match` (its docstring says how the games are played). Needs the core.

    python scripts/core_mcts_match.py [--simulations 200] [--games 200] [--minutes 10] [--players 2] [--seed 0]
"""

from __future__ import annotations

import argparse
from functools import partial

from agents.search.core_match import core_mcts_match
from kardinal_env.kardinal import compiled


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
    core_mcts_match(args.simulations, args.games, args.minutes, args.players, args.seed, partial(print, flush=True))


if __name__ == "__main__":
    main()
