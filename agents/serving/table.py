"""The table a person sits at: the options ``kardinal-play`` and the web play server share, read from the registry of
games (:mod:`kardinal_env.core.registry`), and the agents for the other seats.

Command line (:func:`table_parser`)::

    --game NAME        a registered game (default: the first one, ``kardinal``)
    --players N        the game's seat counts (``spec.players``; default ``spec.default_players``)
    --seat S           your seat (0 moves first)
    --agents SPEC...   agent specs for the other seats (``agents.load_agent``), the last one repeated
    --seed N           seed of the agents (seat ``s`` gets ``seed * 16 + s``) and of the deal
    one flag per rule option of the game (``spec.rule_options``: ``--preset``, ``--board``, ...)

``--players`` and the rule-option flags depend on the game, so the parser is built once :func:`game_from_argv` has read
``--game``; ``--game NAME --help`` lists that game's options. Every game-dependent value comes from its
:class:`~kardinal_env.core.registry.GameSpec`.
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any

from agents import check_spec, load_agent
from agents.networks.checkpoint import PlayerCountWarning
from agents.registry import game_agents
from kardinal_env.core.checks import is_int
from kardinal_env.core.cli import add_plugin_argument, load_plugin_argv
from kardinal_env.core.registry import GameSpec, game_names, get_game

__all__ = [
    "default_game",
    "game_from_argv",
    "table_parser",
    "add_table_arguments",
    "rule_options",
    "rule_option_argv",
    "seat_specs",
    "build_agents",
]


def default_game() -> GameSpec:
    """The game tools play when none is named: the first registered one."""
    return get_game(game_names()[0])


def game_from_argv(argv: list[str] | None) -> GameSpec:
    """The game ``--game`` names in ``argv``, else the default game (the full parser then reports an unknown name)."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--game")
    known, _ = pre.parse_known_args(argv)
    if known.game is None:
        return default_game()
    try:
        return get_game(known.game)
    except ValueError:
        return default_game()


def add_table_arguments(parser: argparse.ArgumentParser, spec: GameSpec) -> None:
    """``--game``, ``--players``, ``--seat``, ``--agents``, ``--seed`` and ``spec``'s rule-option flags."""
    add = parser.add_argument
    add("--game", default=default_game().name, choices=game_names(), help="the game (default %(default)s)")
    players_help = f"players per game of {spec.name} (default %(default)s)"
    add("--players", type=int, default=spec.default_players, choices=list(spec.players), help=players_help)
    add("--seat", type=int, default=0, help="your seat (0 moves first)")
    agents = ["greedy" if "greedy" in game_agents(spec).baselines else "random"]
    agents_help = "agent specs for the other seats, the last one repeated (random, greedy, mcts:N, ppo:PATH, ..."
    add("--agents", nargs="+", default=agents, metavar="SPEC", help=f"{agents_help}; default %(default)s)")
    for option in spec.rule_options:
        kind: dict[str, Any] = {"action": "store_true"} if option.kind == "flag" else {"default": option.default}
        kind |= {"choices": list(option.choices)} if option.kind == "choice" else {}
        kind |= {"metavar": "VALUE"} if option.kind not in ("flag", "choice") else {}
        add(option.flag, dest=option.name, help=option.help, **kind)
    add("--seed", type=int, default=0, help="seed of the agents (seed * 16 + seat) and of the deal")


def table_parser(argv: list[str] | None, **kw: Any) -> tuple[argparse.ArgumentParser, GameSpec]:
    """An ``ArgumentParser(**kw)`` with the table options of the game ``argv`` names, and that game
    (the ``--plugin`` modules of ``argv`` loaded first, so a game they register can be named)."""
    load_plugin_argv(argv, kw.get("prog"))
    spec = game_from_argv(argv)
    parser = argparse.ArgumentParser(**kw)
    add_plugin_argument(parser)
    add_table_arguments(parser, spec)
    return parser, spec


def rule_options(spec: GameSpec, args: argparse.Namespace) -> dict[str, Any]:
    """The rule options (besides ``players``) the parsed ``args`` give, for ``spec.rules(players, **options)``
    (``None``: the rules' default; a flag left off is left out)."""
    options = {}
    for option in spec.rule_options:
        value = getattr(args, option.name, None)
        options[option.name] = (True if value else None) if option.kind == "flag" else value
    return options


def rule_option_argv(spec: GameSpec, options: dict[str, Any]) -> list[str]:
    """Command-line flags that give ``options`` again (the inverse of :func:`rule_options`)."""
    argv: list[str] = []
    for option in spec.rule_options:
        value = options.get(option.name)
        if value is None or value is False:
            continue
        argv += [option.flag] if option.kind == "flag" else [option.flag, str(value)]
    return argv


def seat_specs(specs: list[str], players: int, human_seat: int, what: str = "--seat") -> dict[int, str]:
    """Agent spec per other seat (in turn order, the last spec repeated); ``ValueError`` for a bad seat
    (named ``what`` in the message) or too few / too many specs."""
    if not is_int(human_seat) or not 0 <= human_seat < players:
        raise ValueError(f"{what} must be 0..{players - 1}, got {human_seat!r}")
    others = [s for s in range(players) if s != human_seat]
    if not specs:
        raise ValueError("give at least one agent spec for the other seats")
    if len(specs) > len(others):
        raise ValueError(f"{len(specs)} agent specs for {len(others)} other seats")
    filled = list(specs) + [specs[-1]] * (len(others) - len(specs))
    return dict(zip(others, filled, strict=True))


def build_agents(spec: GameSpec, players: int, specs: dict[int, str], seed: int) -> tuple[dict[int, Any], list[str]]:
    """The agents of ``specs`` (seat -> spec) for ``spec``'s game, seat ``s`` seeded ``seed * 16 + s``, and the
    warnings of :func:`agents.check_spec` (once per spec); :class:`~agents.AgentSpecError` for a bad spec."""
    notes = [note for text in dict.fromkeys(specs.values()) for note in check_spec(text, players, game=spec.name)]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=PlayerCountWarning)  # in the notes just above
        agents = {seat: load_agent(text, game=spec, seed=seed * 16 + seat) for seat, text in specs.items()}
    return agents, notes
