"""Tournaments: play seeded games among agents and report win rates, scores, ranks and OpenSkill ratings.

Library::

    from agents.evaluation.tournament import Table, evaluate, format_table, write_outputs
    from agents.evaluation.backends import ProcessPool
    results = evaluate(["ppo:runs/default/checkpoint.pt", "greedy"], Table.of("kardinal", players=2),
                       games=200, seed=0, backend=ProcessPool(workers=2))
    print(format_table(results))

Command line (``kardinal-evaluate`` or ``python scripts/evaluate.py``)::

    kardinal-evaluate --agents mcts:200 greedy --players 2 --games 20 --seed 0 --out runs/eval
    kardinal-evaluate --game kardinal_koenig --agents ismcts:200 greedy --players 4 --games 200 --workers 2
    kardinal-evaluate --agents mcts:200 greedy --games 400 --address HOST:PORT   # Ray tasks on a cluster

**Games.** ``--game NAME``: any registered game (default: the first; ``--plugin MODULE[:ATTRIBUTE]`` loads one's own
first); ``--players`` from its seat counts; its rules options are flags (another game's is refused); in the library a
:class:`Table`. For 3 or more players compare win rates with parity, ``1/players``.

**Lineup.** Each agent spec (``agents.load_agent``) is one *participant*; the last is repeated up to the seat count
(``--agents ppo:X greedy --players 4``: one PPO agent against three independent greedy agents), a repeat labelled
``greedy#2`` and scored on its own. Every spec is checked once before any game (:func:`agents.check_spec`; a checkpoint
trained for another seat count: a warning in ``results["warnings"]``); a failure while playing, in any process, ends
the run with one :class:`EvaluationError` naming the game.

**Where, seats and seeds.** ``backend=`` (:mod:`agents.evaluation.backends`; ``--workers N``, ``--address``, ``--ray``);
seats and seeds as in :mod:`agents.evaluation.worker`: seats are balanced when ``--games`` is a multiple of
``--players`` (a warning otherwise).

**Statistics** per participant (:func:`standings`): wins — **a shared win among k winners counts 1/k**
(:func:`kardinal_env.core.rewards.win_share`), ``shared_wins`` the games won jointly — win rate with a 95% Wilson
interval, mean score, mean rank (1 = best, the game's finishing order; tied seats share the better rank), seconds per
game choosing moves, and an OpenSkill Plackett-Luce rating (mu, sigma, ordinal = mu - 3 sigma) updated over the games
in order.

**Outputs.** ``--out DIR`` writes ``DIR/results.json`` (format ``kardinal-eval/1``: options, versions, every game with
its seed, seating, scores, winners, finishing order, ranks and moves, and the summary) and ``DIR/ratings.png``;
``--save-games N`` also writes the first N games as records (``DIR/games/game_0000.json``), each with its HTML replay
where the game has one.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents import AgentSpecError, check_spec
from agents.evaluation.backends import Backend, ProcessPool, Serial
from agents.evaluation.distributed import RayTasks
from agents.evaluation.stats import wilson_interval
from agents.evaluation.worker import EvaluationError, GameTask, Setup
from agents.networks.checkpoint import PlayerCountWarning
from agents.runinfo import git_revision
from kardinal_env.core.checks import is_int
from kardinal_env.core.cli import (
    add_plugin_argument,
    add_rule_option_flags,
    given_rule_options,
    load_plugin_argv,
    seat_counts,
)
from kardinal_env.core.registry import GameSpec, game_for_record, game_names, game_of, get_game
from kardinal_env.core.registry import games as registered_games
from kardinal_env.core.rewards import WIN_DEFINITION, win_share

__all__ = [
    "Table",
    "evaluate",
    "format_table",
    "describe_rules",
    "write_outputs",
    "plot_ratings",
    "wilson_interval",
    "standings",
    "lineup",
    "build_parser",
    "main",
    "EvaluationError",
]


@dataclass(frozen=True, eq=False)
class Table:
    """The game of a tournament: registry entry, rules and seat count; :meth:`of` checks the options with
    ``spec.rules`` (a ``ValueError`` names a bad one), :meth:`from_rules` takes a registered game's rules object."""

    spec: GameSpec
    rules: Any
    players: int

    def __post_init__(self) -> None:
        if not isinstance(self.spec, GameSpec):
            raise TypeError(f"Table.spec must be a GameSpec, got {type(self.spec).__name__}")
        self.spec.check_players(self.players)

    @classmethod
    def of(cls, game: str | GameSpec | None = None, players: int | None = None, **options: Any) -> Table:
        """``game`` (default: first registered) with ``players`` seats (default: the game's) and rules ``options``."""
        spec = get_game(game_names()[0] if game is None else game)
        return cls(spec, spec.rules(players, **options), spec.check_players(players))

    @classmethod
    def from_rules(cls, rules: Any) -> Table:
        spec = game_of(rules)
        return cls(spec, rules, spec.new_game(rules, seed=0).num_players)

    @property
    def name(self) -> str:
        return self.spec.name


def lineup(agent_specs, players: int) -> list:
    """The participants of every game: the specs, the last one repeated up to ``players``."""
    specs = list(agent_specs)
    if not specs:
        raise ValueError("give at least one agent spec")
    if len(specs) > players:
        raise ValueError(f"{len(specs)} agents do not fit in a {players}-player game (at most {players})")
    return specs + [specs[-1]] * (players - len(specs))


def _labels(participants) -> list[str]:
    labels: list[str] = []
    seen: dict[str, int] = {}
    for p in participants:
        base = p if isinstance(p, str) else getattr(p, "name", type(p).__name__)
        seen[base] = seen.get(base, 0) + 1
        labels.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return labels


def _versions() -> dict:
    import numpy
    import openskill

    import kardinal_env

    v = {"python": platform.python_version(), "platform": platform.platform()}
    v |= {"kardinal_env": kardinal_env.__version__, "numpy": numpy.__version__}
    v["openskill"] = getattr(openskill, "__version__", "?")
    if "torch" in sys.modules:
        v["torch"] = sys.modules["torch"].__version__
    return v | {"git_commit": git_revision()}


def standings(labels: Sequence[str], games: Iterable[tuple[Sequence[str], dict]]) -> tuple[dict, dict]:
    """The statistics of every label over ``games`` (``(label per seat, game result)`` in order; module docstring):
    per label ``games``, ``wins``, ``shared_wins``, ``win_rate``, ``win_ci95``, ``mean_score``, ``mean_rank``,
    ``seconds_per_game`` (0 without ``seconds``), ``mu``, ``sigma``, ``ordinal``; and per label its ``(mu, sigma)``
    before and after every game. Tournaments and ladders (:mod:`agents.evaluation.report`) both count with it."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    history = {label: [(r.mu, r.sigma)] for label, r in ratings.items()}
    # per label: games, wins, shared wins, and the sums of scores, ranks and seconds
    sums: dict[str, list[Any]] = {label: [0, 0.0, 0, 0.0, 0.0, 0.0] for label in labels}
    for seated, game in games:
        winners = game["winners"]
        for seat, label in enumerate(seated):
            total = sums[label]
            total[0] += 1
            total[1] += win_share(winners, seat)
            total[2] += seat in winners and len(winners) > 1
            total[3] += game["scores"][seat]
            total[4] += game["ranks"][seat]
            total[5] += game["seconds"][seat] if "seconds" in game else 0.0
        new = model.rate([[ratings[label]] for label in seated], ranks=list(game["ranks"]))
        for seat, label in enumerate(seated):
            ratings[label] = new[seat][0]
        for label, r in ratings.items():
            history[label].append((r.mu, r.sigma))
    stats: dict[str, dict[str, Any]] = {}
    for label, (n, wins, shared, score, rank, secs) in sums.items():
        mu, sigma = ratings[label].mu, ratings[label].sigma
        stats[label] = {"games": n, "wins": wins, "shared_wins": shared, "win_rate": wins / n if n else 0.0}
        stats[label]["win_ci95"] = list(wilson_interval(wins, n))
        mean = {"mean_score": score, "mean_rank": rank, "seconds_per_game": secs}
        stats[label] |= {key: total / n if n else 0.0 for key, total in mean.items()}
        stats[label] |= {"mu": mu, "sigma": sigma, "ordinal": mu - 3 * sigma}
    return stats, history


def evaluate(
    agents: Sequence[Any],
    table: Table | GameSpec | str | None = None,
    *,
    games: int = 10,
    seed: int = 0,
    backend: Backend | None = None,
    agent_kwargs: dict | None = None,
    keep_moves: bool = True,
    save_games: int = 0,
    progress: bool = False,
    on_warning: Callable[[str], None] | None = None,
) -> dict:
    """Play ``games`` games of ``table`` (a :class:`Table`, game name or spec; ``None``: the first registered) among
    ``agents`` (specs, or agent objects with the serial back-end); the results dict (``format``, ``options``,
    ``versions``, ``labels``, ``elapsed_seconds``, ``games``, ``summary``, ``rating_history``, ``warnings``, the
    back-end's report under its name). ``agent_kwargs``: for the agents' constructors; ``keep_moves``: each game carries
    its moves; ``save_games``: the first N their record; ``progress``: a line per game on stderr;
    ``on_warning(message)`` per warning of the checks (default ``warnings.warn``). ``ValueError``
    (:class:`agents.AgentSpecError` for a bad spec) before any game, :class:`EvaluationError` if one fails."""
    if not isinstance(table, Table):
        table = Table.of(table)
    backend = Serial() if backend is None else backend
    if not isinstance(backend, Backend):
        raise TypeError(f"backend must be a Backend (Serial, ProcessPool, RayTasks), got {type(backend).__name__}")
    for name, value, lo in (("games", games, 1), ("save_games", save_games, 0), ("seed", seed, 0)):
        if not is_int(value) or value < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {value!r}")
    if save_games > games:
        raise ValueError(f"save_games ({save_games}) cannot exceed games ({games})")
    spec, players = table.spec, table.players
    participants = lineup(agents, players)
    labels = _labels(participants)
    if not backend.in_process and not all(isinstance(p, str) for p in participants):
        raise ValueError(
            f"agent objects can only be evaluated with the serial back-end, not {backend!r}; pass spec strings"
        )
    once = dict.fromkeys(p for p in participants if isinstance(p, str))  # each spec once, before any worker
    notes = [note for agent_spec in once for note in check_spec(agent_spec, players, game=spec)]
    warn = on_warning or (lambda note: warnings.warn(note, PlayerCountWarning, stacklevel=3))  # from the caller
    for note in notes:
        warn(note)
    rules_dict = table.rules.to_dict()
    setup = Setup(spec, rules_dict, seed, tuple(participants), dict(agent_kwargs or {}))
    tasks = [GameTask(g, keep_moves, g < save_games) for g in range(games)]

    def report(done: int, total: int) -> None:
        print(f"  game {done}/{total}", file=sys.stderr, flush=True)

    t0 = time.time()
    results, info = backend.run(setup, tasks, report if progress else None)
    elapsed = time.time() - t0
    for r in results:
        r["agents"] = [labels[i] for i in r["seats"]]
    stats, history = standings(labels, ((r["agents"], r) for r in results))
    specs = [p if isinstance(p, str) else labels[i] for i, p in enumerate(participants)]
    out = {
        "format": "kardinal-eval/1",
        "options": {
            "game": spec.name,
            "agents": specs,
            "players": players,
            "games": games,
            "seed": seed,
            "rules": rules_dict,
            "backend": backend.name,
            "workers": backend.workers,
            "seat_balanced": games % players == 0,
            "win_definition": WIN_DEFINITION,
        },
        "versions": _versions(),
        "labels": labels,
        "elapsed_seconds": elapsed,
        "games": results,
        "summary": [{"agent": label, "spec": spec, **stats[label]} for label, spec in zip(labels, specs)],
        "rating_history": history,
        "warnings": notes,
    }
    if info is not None:
        out[backend.name] = info
    return out


def _fmt_wins(w: float) -> str:
    return str(int(w)) if float(w).is_integer() else f"{w:.1f}" if (2 * w).is_integer() else f"{w:.2f}"


def describe_rules(game: str | None, rules: dict) -> str:
    """The game's title and the options set in ``rules`` (a dict), e.g. ``Kardinal & König, discard one,
    board default``; the bare name for a game not registered here."""
    try:
        spec = get_game(game) if game is not None else None
    except ValueError:
        spec = None
    if spec is None:
        return str(game or "unknown game")
    parts = [spec.title]
    for option in spec.rule_options:
        value = rules.get(option.name)
        label = option.name.replace("_", " ")
        if option.kind == "flag":
            if value:
                parts.append(label)
        elif value is not None:
            if isinstance(value, dict):  # e.g. a board given as data
                value = value.get("name", "custom")
            parts.append(f"{label} {value}")
    return ", ".join(parts)


_TWO_DECIMALS = ("mean_score", "mean_rank", "seconds_per_game", "mu", "sigma", "ordinal")


def format_table(results: dict) -> str:
    """A plain-text table of the summary (one row per participant, best ordinal first)."""
    opts = results["options"]
    variant = describe_rules(opts.get("game"), opts.get("rules", {}))
    parity = f", parity {1 / opts['players']:.3f}" if opts["players"] > 2 else ""
    head = (
        f"{opts['games']} games, {opts['players']} players, {variant}, seed {opts['seed']}"
        f" ({results.get('elapsed_seconds', 0.0):.1f} s){parity}"
    )
    cols = "agent|games|wins|shared|win rate|95% CI|score|rank|s/game|mu|sigma|ordinal".split("|")
    rows = []
    for s in sorted(results["summary"], key=lambda s: -s["ordinal"]):
        lo, hi = s["win_ci95"]
        counts = [s["agent"], str(s["games"]), _fmt_wins(s["wins"]), str(s.get("shared_wins", 0))]
        rates = [f"{s['win_rate']:.3f}", f"[{lo:.3f}, {hi:.3f}]"]
        rows.append(counts + rates + [f"{s[key]:.2f}" for key in _TWO_DECIMALS])
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]

    def line(cells):
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=False))
        )

    out = [head, line(cols), line(["-" * w for w in widths])] + [line(r) for r in rows]
    out.append(f"wins: {opts.get('win_definition', WIN_DEFINITION)} ('shared': games won jointly)")
    if not opts.get("seat_balanced", True):
        out.append(f"warning: {opts['games']} games is not a multiple of {opts['players']}; seats are not balanced")
    out.extend(f"warning: {w}" for w in results.get("warnings", []))
    return "\n".join(out)


def plot_ratings(results: dict, path) -> None:
    """PNG of the OpenSkill rating history (mu with a +-sigma band) and the final ordinals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [2, 1]})
    for label, hist in results["rating_history"].items():
        xs = range(len(hist))
        ax1.plot(xs, [m for m, _ in hist], label=label)
        ax1.fill_between(xs, [m - s for m, s in hist], [m + s for m, s in hist], alpha=0.15)
    ax1.set_xlabel("games played")
    ax1.set_ylabel("OpenSkill mu (band: +-sigma)")
    ax1.set_title("Plackett-Luce rating history")
    ax1.legend(fontsize=8)
    summary = sorted(results["summary"], key=lambda s: -s["ordinal"])
    names = [s["agent"] for s in summary]
    ax2.barh(names[::-1], [s["mu"] for s in summary][::-1], xerr=[3 * s["sigma"] for s in summary][::-1], capsize=3)
    ax2.set_xlabel("mu (error bar: 3 sigma)")
    ax2.set_title("final ratings")
    fig.suptitle(format_table(results).splitlines()[0], fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_outputs(results: dict, out_dir) -> dict:
    """Write ``results.json``, ``ratings.png`` and the games' records (``games/game_NNNN.json``, with an
    HTML replay where the game has one) into ``out_dir``; their paths (``json``, ``png``, ``records``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    records, games = [], []
    for g in results["games"]:
        g = dict(g)
        rec = g.pop("record", None)
        if rec is not None:
            (out / "games").mkdir(exist_ok=True)
            path = out / "games" / f"game_{g['game']:04d}.json"
            path.write_text(json.dumps(rec, indent=1) + "\n")
            g["record_file"] = str(path.relative_to(out))
            records.append(str(path))
            html_replay = game_for_record(rec).renderer("html_replay")
            if html_replay is not None:
                replay = html_replay(rec, path.with_suffix(".html"))
                g["replay_file"] = str(Path(replay).relative_to(out))
        games.append(g)
    json_path, png_path = out / "results.json", out / "ratings.png"
    json_path.write_text(json.dumps({**results, "games": games}, indent=1))
    plot_ratings(results, png_path)
    return {"json": str(json_path), "png": str(png_path), "records": records}


def _nonnegative(text: str, minimum: int = 0) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < minimum:
        want = "a positive integer" if minimum else "an integer >= 0"
        raise argparse.ArgumentTypeError(f"expected {want}, got {value}")
    return value


_positive = functools.partial(_nonnegative, minimum=1)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    from agents import SPEC_HELP

    names = game_names()
    specs = list(registered_games().values())
    parser = argparse.ArgumentParser(prog=prog, description=(__doc__ or "").split("\n\n")[0], epilog=SPEC_HELP)
    add = parser.add_argument
    agents_help = "agent specs; the last one fills the remaining seats"
    add("--agents", nargs="+", required=True, metavar="SPEC", help=agents_help)
    add("--game", default=names[0], choices=names, help=f"which registered game (default {names[0]})")
    counts = "; ".join(f"{s.name} {seat_counts(s.players)}, default {s.default_players}" for s in specs)
    seats = sorted({p for s in specs for p in s.players})
    add("--players", type=int, choices=seats, help=f"players per game ({counts})")
    add("--games", type=_positive, default=20, help="games to play (a multiple of --players balances the seats)")
    add("--seed", type=_nonnegative, default=0, help="seed of the games and agents (see module docs)")
    add("--workers", type=_positive, default=1, help="processes (default 1)")
    ray_help = "play the games as Ray tasks on this Ray cluster ('auto' or HOST:PORT)"
    add("--address", metavar="ADDR", help=f"{ray_help}; see agents.evaluation.distributed")
    add("--ray", action="store_true", help="play the games as tasks of a local Ray (--workers CPUs)")
    add("--torch-threads", type=_positive, default=1, help="torch threads per process for network agents (default 1)")
    add("--out", metavar="DIR", help="directory for results.json, ratings.png and the --save-games records")
    save_help = "write the first N games as record files (and HTML replays) under DIR/games/ (needs --out)"
    add("--save-games", type=_nonnegative, default=0, metavar="N", help=save_help)
    add("--no-moves", action="store_true", help="do not store each game's moves in the JSON")
    add("--quiet", action="store_true", help="no per-game progress on stderr")
    add_plugin_argument(parser)
    add_rule_option_flags(parser, "kardinal-evaluate")
    return parser


def main(argv=None) -> int:
    """Exit status 0; 2 for bad arguments, specs or checkpoints (before any game); 1 if a game fails; 130 on Ctrl-C."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    load_plugin_argv(argv)  # --plugin: games of one's own modules, before --game's choices are listed
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.save_games and not args.out:
        parser.error("--save-games needs --out DIR (the records are written under DIR/games/)")
    if args.save_games > args.games:
        parser.error(f"--save-games {args.save_games} is more than --games {args.games}")
    if args.out and os.path.exists(args.out) and not os.path.isdir(args.out):
        parser.error(f"--out {args.out!r} exists and is not a directory")
    if args.ray and args.address:
        parser.error("--ray starts a local Ray; --address joins a running cluster: give one of them")
    spec = get_game(args.game)
    options = given_rule_options(parser, args, spec)
    if args.address or args.ray:
        backend: Backend = RayTasks("local" if args.ray else args.address, args.workers, args.torch_threads)
    elif args.workers > 1:
        backend = ProcessPool(args.workers, torch_threads=args.torch_threads)
    else:
        backend = Serial(torch_threads=args.torch_threads)
    try:
        results = evaluate(
            args.agents,
            Table.of(spec, args.players, **options),
            games=args.games,
            seed=args.seed,
            backend=backend,
            keep_moves=not args.no_moves,
            progress=not args.quiet,
            save_games=args.save_games,
            on_warning=lambda msg: print(f"warning: {msg}", file=sys.stderr, flush=True),
        )
    except (EvaluationError, AgentSpecError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1 if isinstance(exc, EvaluationError) else 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    print(format_table(results))
    if args.out:
        paths = write_outputs(results, args.out)
        extra = f" and {len(paths['records'])} game records in {Path(args.out) / 'games'}" if paths["records"] else ""
        print(f"wrote {paths['json']}, {paths['png']}{extra}")
    return 0
