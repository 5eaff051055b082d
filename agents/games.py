"""Transitional: the registry of games (:mod:`kardinal_env.core.registry`) under the old names."""

from __future__ import annotations

from kardinal_env.core.registry import GameSpec, game_of, games, get_game

__all__ = ["GameKind", "GAMES", "game_kind", "kind_of", "add_table_arguments"]

GameKind = GameSpec
GAMES = games()


def game_kind(name: str) -> GameSpec:
    try:
        return get_game(name)
    except ValueError:
        raise ValueError(f"game must be one of {list(games())}, got {name!r}") from None


def kind_of(obj) -> GameSpec:
    return game_of(obj)


def add_table_arguments(parser) -> None:
    """The command-line options of a Kardinal table a person sits at."""
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4], help="players per game")
    parser.add_argument("--seat", type=int, default=0, help="your seat (0 moves first)")
    parser.add_argument(
        "--agents",
        nargs="+",
        default=["greedy"],
        metavar="SPEC",
        help="agent specs for the other seats (random, greedy, mcts:N, ppo:PATH, puct:N:PATH, ...)",
    )
    parser.add_argument("--preset", default="english", choices=["english", "german"], help="rules preset")
    parser.add_argument("--shared-pool", action="store_true", help="shared-pool variant (3-4 players)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the agents")
