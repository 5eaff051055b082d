"""Speed benchmarks of every registered game. Prints numbers; asserts nothing.

    python scripts/benchmark.py NAME [--game GAME] [--players N] [--seconds 2] [--repeats 5] [rules options]

NAME is one of the benchmarks below (default ``engine``); ``--game`` picks one of the games it applies to (default: the
first; ``vector`` measures every game, ``--game`` picks its AEC row). ``--players``: default 4 where the game plays it,
else its default (``puct``: the model's; ``search-training``: the preset's). The rules options are the games' own
(``--discard one``, ...). The library is ``kardinal_env.benchmarks`` and ``agents.benchmarks``; docs/benchmarks.md has
the figures. The earlier names ``koenig-engine``, ``-core``, ``-env``, ``-obs``, ``-ismcts``, ``-heuristic`` and
``-rollout`` are ``engine``, ``core``, ``env``, ``core-obs``, ``core-ismcts``, ``heuristic`` and ``rollout`` with
``--game kardinal_koenig``. Run nothing else meanwhile: figures move 10-40 % between runs on a shared machine; the
side-by-side ratio is the stable number.
"""

from __future__ import annotations

import argparse
import inspect
import textwrap

import agents.benchmarks  # noqa: F401  (registers the search and training benchmarks)
from kardinal_env.benchmarks import BENCHMARKS as benchmarks
from kardinal_env.core.cli import add_plugin_argument, add_rule_option_flags, given_rule_options, load_plugin_argv
from kardinal_env.core.registry import game_names

#: The earlier per-game names (cited by the docs and the changelog): the benchmark and its game.
ALIASES = {
    f"koenig-{old}": (name, "kardinal_koenig")
    for old, name in [("obs", "core-obs"), ("ismcts", "core-ismcts")]
    + [(name, name) for name in ("engine", "core", "env", "heuristic", "rollout")]
}


def _catalogue() -> str:
    """Each benchmark, the games it applies to and what it times (its function's docstring)."""
    parts = ["benchmarks:"]
    for bench in benchmarks.values():
        doc = textwrap.indent(inspect.getdoc(bench.run) or "", "    ")
        parts.append(f"  {bench.name} (games: {', '.join(bench.games()) or 'none here'})\n{doc}")
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> None:
    load_plugin_argv(argv)  # --plugin: games of one's own modules, before the parser lists the games
    parser = argparse.ArgumentParser(
        description=__doc__, epilog=_catalogue(), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("what", nargs="?", default="engine", choices=[*benchmarks, *ALIASES], metavar="NAME")
    parser.add_argument("--game", choices=game_names(), default=None, help="the game (default: see above)")
    parser.add_argument("--players", type=int, default=None, help="seats (default: see above)")
    parser.add_argument("--seconds", type=float, default=None, help="per figure and repeat (default 2)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--simulations",
        type=int,
        default=None,
        help="per decision: core-mcts, core-ismcts (default 200), puct (256), rollout (its N: 512), "
        "search-training (the teacher's: 800)",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="core-obs (default 20): random games whose positions are encoded; heuristic (2): whole games per repeat",
    )
    parser.add_argument("--window", type=int, default=None, help="core-obs: a window variant (the rules' window=W)")
    parser.add_argument("--model", default=None, help="puct only: the network searched (a path or zoo:NAME)")
    parser.add_argument("--rollouts", type=int, default=None, help="puct only: playouts from every new leaf")
    parser.add_argument(
        "--num-envs", default="8,32,128,512", help="vector only: games per VectorEnv, a comma-separated list"
    )
    parser.add_argument("--threads", default="0,2", help="vector only: VectorEnv threads, a comma-separated list")
    parser.add_argument("--workers", type=int, default=None, help="search-training only: self-play processes (1)")
    parser.add_argument("--device", default=None, help="search-training only: where the updates run (cpu, cuda)")
    parser.add_argument(
        "--config",
        default=None,
        help="search-training only: the preset or YAML file (default: the game's first preset of the search trainer)",
    )
    add_rule_option_flags(parser, "scripts/benchmark.py")
    add_plugin_argument(parser)
    args = parser.parse_args(argv)

    name, alias_game = ALIASES.get(args.what, (args.what, None))
    if alias_game is not None and args.game not in (None, alias_game):
        parser.error(f"{args.what} is {name} --game {alias_game}; use {name} --game {args.game}")
    bench = benchmarks[name]
    game = args.game or alias_game
    try:
        spec = bench.game(game)  # the game whose rules options apply
    except ValueError as exc:
        parser.error(str(exc))
    options = given_rule_options(parser, args, spec)
    if args.window is not None:
        options["window"] = args.window
    sizes = tuple(int(x) for x in args.num_envs.split(","))
    values = {
        **vars(args),
        "game": game,  # None: the benchmark's default, the first game it applies to
        "options": options or None,
        "sizes": sizes,
        "threads": tuple(int(x) for x in args.threads.split(",")),
        "compare_at": 32 if 32 in sizes else sizes[0],
    }
    takes = inspect.signature(bench.run).parameters
    if options and "options" not in takes:
        parser.error(f"{name} takes no rules options")
    bench.run(**{key: value for key, value in values.items() if key in takes and value is not None})


if __name__ == "__main__":
    main()
