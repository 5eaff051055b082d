"""Play one full game between random agents and print the final position and scores."""

from __future__ import annotations

import argparse
import random

from kardinal_env.kardinal import Game, Rules
from kardinal_env.kardinal.text import game_text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--preset", default="english", choices=["english", "german"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    game = Game(Rules(players=args.players, preset=args.preset))
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    print(game_text(game))
    print(f"{game.move_count} moves")


if __name__ == "__main__":
    main()
