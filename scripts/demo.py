"""Play one full game of a registered game between random agents and print the final position and scores."""

from __future__ import annotations

import argparse
import sys

from kardinal_env.core.cli import add_rule_option_flags, given_rule_options
from kardinal_env.core.picture import position_after
from kardinal_env.core.registry import game_names, get_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="kardinal", choices=game_names())
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0, help="seed of the moves and of the game's chance")
    add_rule_option_flags(parser, "scripts/demo.py")
    args = parser.parse_args()
    spec = get_game(args.game)
    game = position_after(args.game, args.players, sys.maxsize, args.seed, **given_rule_options(parser, args, spec))
    print(spec.game_text(game))
    print(f"{game.move_count} moves")


if __name__ == "__main__":
    main()
