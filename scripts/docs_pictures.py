"""Write the picture of a position (a game's ``rgb_array`` frame) as a PNG, for the documentation.

    python scripts/docs_pictures.py --game kardinal --players 4 --moves 40 --seed 3 --out docs/images/kardinal-frame.png

plays ``--moves`` random legal moves (seeded) of a registered game and draws the position with the
game's image renderer (:mod:`kardinal_env.core.picture`, the library). ``bash scripts/docs.sh
pictures`` makes the pictures of the game pages. Exit status 0; 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import sys

from kardinal_env.core.picture import write_position_png
from kardinal_env.core.registry import game_names


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=game_names(), help="a registered game")
    parser.add_argument("--players", type=int, default=None, help="seats (default: the game's default)")
    parser.add_argument("--moves", type=int, default=0, help="random legal moves to play first")
    parser.add_argument("--seed", type=int, default=0, help="seed of the moves and of the game's chance")
    parser.add_argument("--out", required=True, help="the PNG file to write")
    args = parser.parse_args(argv)
    try:
        path = write_position_png(args.game, args.out, players=args.players, moves=args.moves, seed=args.seed)
    except ValueError as exc:
        parser.error(str(exc))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
