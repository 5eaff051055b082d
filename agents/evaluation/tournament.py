"""Tournaments: play seeded games among agents and report win rates, scores, ranks and OpenSkill ratings.

Library::

    from agents.evaluation.tournament import evaluate, format_table, write_outputs
    results = evaluate(["ppo:runs/default/checkpoint.pt", "greedy"], players=2, games=200, seed=0, workers=2)
    print(format_table(results))

Command line (``kardinal-evaluate`` or ``python scripts/evaluate.py``)::

    kardinal-evaluate --agents mcts:200 greedy --players 2 --games 20 --seed 0 --out runs/eval
    kardinal-evaluate --agents ppo:runs/x/ckpt.pt greedy random --players 3 --games 30 --save-games 3 --out runs/eval3
    kardinal-evaluate --game kardinal_koenig --agents ismcts:200 greedy --players 4 --games 200 --workers 2
    kardinal-evaluate --agents mcts:200 greedy --games 400 --address HOST:PORT   # Ray tasks on a cluster

**Games.** ``--game kardinal`` (default; 2–4 players, ``--preset``, ``--shared-pool``) or
``--game kardinal_koenig`` (3–5 players, ``--discard``, ``--board``); see :mod:`agents.games`.
For 3–5 players the win rate to compare with is parity, ``1/players``.

**Lineup.** Each agent spec (see ``agents.load_agent``) is one *participant*. With fewer specs than
players, the last spec is repeated to fill the seats (``--agents ppo:X greedy --players 4`` is one
PPO agent against three independent greedy agents); more specs than players is an error. A spec
that occurs more than once gets a label suffix (``greedy``, ``greedy#2``, ...) and each copy is
scored on its own.

**Checks first.** Every spec is checked once in the calling process before any game or worker
starts (:func:`agents.check_spec`): syntax, checkpoint files (a file that is not a kardinal-env
checkpoint gives ``ppo:PATH: not a kardinal-env checkpoint (...)``), and a checkpoint trained for
another number of players than the games gets a warning naming both counts (``results["warnings"]``,
printed by the command line). A failure while playing — in the calling process or in a worker —
ends the run with one :class:`EvaluationError` naming the game (workers are stopped; nothing hangs).

**Seats.** Game ``g`` seats participant ``(s + g) % players`` at seat ``s``: every participant sits
in every seat equally often when ``--games`` is a multiple of ``--players`` (a warning is printed
otherwise). Kardinal has no chance element, so a game's course depends only on the agents;
Kardinal & König shuffles game ``g``'s deck with seed ``seed * 1_000_003 + g`` (the same deck for
every seating of that game number). Agent ``i`` in game ``g`` is seeded with
``(seed * 1_000_003 + g) * 16 + i`` (``reset(seed)`` when the agent has it), so results do not
depend on ``--workers``.

**Statistics** per participant: wins — **a shared win among k winners counts 1/k** (the one
definition of :mod:`agents.winrate`, also used by training's ``eval/winrate_*``), so wins can be
fractional and the win rates of a game's seats sum to 1; ``shared_wins`` counts the games it won
jointly — win rate with a 95% Wilson score interval, mean score, mean rank (1 = best; seats ordered
by score, then — in Kardinal — the cathedral tie-break; tied seats share the better rank), mean seconds per game
spent choosing moves, and an OpenSkill Plackett-Luce rating (mu, sigma, ordinal = mu - 3 sigma)
updated over the games in order.

**Outputs.** ``--out DIR`` writes ``DIR/results.json`` (options, versions, every game with its seed,
seating, scores, winners, ranks and moves, and the summary) and ``DIR/ratings.png`` (rating history
and final ratings). ``--save-games N`` also writes the first N games as game records
(``kardinal-record/1`` or ``kardinal-koenig-record/1``, ``DIR/games/game_0000.json``, ...;
``kardinal-replay FILE`` replays one), and an HTML replay beside each (``game_0000.html``,
``kardinal_env.kardinal.replay_html`` / ``kardinal_env.koenig.replay_html``: open it in a browser); each
game in ``results.json`` names its files.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

from agents import AgentSpecError, check_spec, load_agent
from agents.games import GAMES, game_kind, kind_of
from agents.networks.checkpoint import PlayerCountWarning
from agents.winrate import DEFINITION, win_share
from kardinal_env.kardinal.replay_html import write_replay_html
from kardinal_env.koenig.replay_html import write_replay_html as write_koenig_replay_html

__all__ = [
    "evaluate",
    "format_table",
    "write_outputs",
    "plot_ratings",
    "wilson_interval",
    "lineup",
    "main",
    "EvaluationError",
]

SEED_STRIDE = 1_000_003
KARDINAL_RECORD = "kardinal-record/1"
_ROOT = Path(__file__).resolve().parent.parent


class EvaluationError(RuntimeError):
    """A game of the tournament failed (an agent raised, or a worker process died); names the game."""


# ---------------------------------------------------------------------------------------- helpers
def wilson_interval(successes: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% Wilson score interval of a binomial proportion (``(0, 1)`` when ``n == 0``)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def lineup(agent_specs, players: int) -> list:
    """The participants of every game: the specs, the last one repeated up to ``players``."""
    specs = list(agent_specs)
    if not specs:
        raise ValueError("give at least one agent spec")
    if len(specs) > players:
        raise ValueError(f"{len(specs)} agents do not fit in a {players}-player game (at most {players})")
    return specs + [specs[-1]] * (players - len(specs))


def _labels(participants) -> list[str]:
    labels, seen = [], {}
    for p in participants:
        base = p if isinstance(p, str) else getattr(p, "name", type(p).__name__)
        seen[base] = seen.get(base, 0) + 1
        labels.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return labels


def _agent_seed(seed: int, game_index: int, participant: int) -> int:
    return (seed * SEED_STRIDE + game_index) * 16 + participant


def _ranks(scores, touches) -> list[int]:
    keys = list(zip(scores, touches, strict=False))
    return [1 + sum(1 for other in keys if other > k) for k in keys]


# ---------------------------------------------------------------------------------------- games
_WORKER: dict = {}  # per process: participants' agent objects, or the error that building them raised


def _set_torch_threads(threads: int | None) -> None:
    """Limit torch's intra-op threads (only if a network agent has imported torch)."""
    if threads and "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


def _init_worker(participants, agent_kwargs, torch_threads=None) -> None:
    """Build the agents of this process. Never raises (a pool would restart a failing initializer
    forever): the error is kept and reported by the first game."""
    warnings.filterwarnings("ignore", category=PlayerCountWarning)  # the caller has reported it once
    _WORKER.clear()
    try:
        agents = []
        for i, p in enumerate(participants):
            if isinstance(p, str):
                agents.append(load_agent(p, seed=i, **(agent_kwargs or {})))
            else:
                agents.append(p)
        _WORKER["agents"] = agents
        _set_torch_threads(torch_threads)
    except Exception as exc:  # reported by _play_task, in the caller
        _WORKER["error"] = f"building the agents failed: {type(exc).__name__}: {exc}"


def _play_task(task) -> dict:
    """Play one game; any failure becomes one :class:`EvaluationError` naming the game."""
    if "error" in _WORKER:
        raise EvaluationError(_WORKER["error"])
    try:
        return _play_one(task)
    except Exception as exc:
        raise EvaluationError(f"game {task[0]}: {type(exc).__name__}: {exc}") from exc


def _play_one(task) -> dict:
    g, seed, game_name, rules_dict, n_participants, keep_moves, keep_record = task
    agents = _WORKER["agents"]
    kind = game_kind(game_name)
    rules = kind.rules_from_dict(rules_dict)
    players = rules.players
    seats = [(s + g) % n_participants for s in range(players)]
    for i, agent in enumerate(agents):
        reset = getattr(agent, "reset", None)
        if callable(reset):
            reset(_agent_seed(seed, g, i))
    game = kind.new_game(rules, seed=seed * SEED_STRIDE + g)
    think = [0.0] * players
    decisions = [0] * players
    while not game.is_over:
        seat = game.current_player
        t0 = time.perf_counter()
        move = agents[seats[seat]].select_move(game)
        think[seat] += time.perf_counter() - t0
        decisions[seat] += 1
        game.play(move)  # an illegal move raises IllegalMoveError naming the rule
    scores = game.scores()
    touches = game.cathedral_touches() if game_name == "kardinal" else [0] * players
    out = {
        "game": g,
        "seed": seed * SEED_STRIDE + g,
        "agent_seeds": [_agent_seed(seed, g, i) for i in range(n_participants)],
        "seats": seats,
        "scores": scores,
        "winners": game.winners(),
        "ranks": _ranks(scores, touches),
        "num_moves": game.move_count,
        "decisions": decisions,
        "seconds": [round(t, 4) for t in think],
    }
    if game_name == "kardinal":
        out["cathedral_touches"] = touches
        out["chips"] = game.chips()
    if keep_moves:
        out["moves"] = game.history
    if keep_record:
        out["record"] = game.to_record()
    return out


def _run_parallel(tasks, workers, participants, agent_kwargs, torch_threads, progress) -> list:
    """Games in ``workers`` spawned processes. The first failure cancels the rest and is raised."""
    import multiprocessing as mp
    from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    results = []
    ex = ProcessPoolExecutor(
        workers,
        mp_context=mp.get_context("spawn"),
        initializer=_init_worker,
        initargs=(participants, agent_kwargs, torch_threads or 1),
    )
    try:
        pending = {ex.submit(_play_task, t) for t in tasks}
        while pending:
            done, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for fut in sorted(done, key=lambda f: f.exception() is None):  # failures first
                exc = fut.exception()
                if isinstance(exc, BrokenProcessPool):
                    raise EvaluationError(f"a worker process died ({exc}); no result for the remaining games")
                if exc is not None:
                    raise exc if isinstance(exc, EvaluationError) else EvaluationError(f"{type(exc).__name__}: {exc}")
                results.append(fut.result())
                if progress:
                    print(f"  game {len(results)}/{len(tasks)}", file=sys.stderr, flush=True)
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
    return results


def _versions() -> dict:
    import numpy

    import kardinal_env

    v = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "kardinal_env": kardinal_env.__version__,
        "numpy": numpy.__version__,
    }
    try:
        import openskill

        v["openskill"] = getattr(openskill, "__version__", "?")
    except ImportError:  # pragma: no cover
        pass
    if "torch" in sys.modules:
        v["torch"] = sys.modules["torch"].__version__
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=_ROOT, capture_output=True, text=True, timeout=5
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=_ROOT,
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
        if commit:
            v["git_commit"] = commit + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):  # pragma: no cover
        pass
    return v


def _ratings(games, labels, players):
    """OpenSkill Plackett-Luce ratings over the games in order, with the history per participant."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating(name=label) for label in labels]
    history = [[(r.mu, r.sigma)] for r in ratings]
    for game in games:
        seats = game["seats"]
        teams = [[ratings[seats[s]]] for s in range(players)]
        new = model.rate(teams, ranks=list(game["ranks"]))
        for s in range(players):
            ratings[seats[s]] = new[s][0]
        for i, r in enumerate(ratings):
            history[i].append((r.mu, r.sigma))
    return ratings, history


def evaluate(
    agent_specs,
    players: int | None = None,
    games: int = 10,
    seed: int = 0,
    preset: str = "english",
    shared_pool: bool = False,
    workers: int = 1,
    rules=None,
    agent_kwargs: dict | None = None,
    keep_moves: bool = True,
    progress: bool = False,
    torch_threads: int | None = None,
    save_games: int = 0,
    on_warning=None,
    game: str = "kardinal",
    discard: str | None = None,
    board=None,
    address: str | None = None,
) -> dict:
    """Play ``games`` games and return the results dict (``options``, ``versions``, ``labels``,
    ``games``, ``summary``, ``rating_history``, ``warnings``). ``agent_specs`` holds spec strings or
    ready agent objects (objects need ``workers=1``). See the module docstring for checks, seating,
    seeding and how shared wins count. ``save_games``: the first N games also carry their
    ``kardinal-record/1`` record (``game["record"]``; :func:`write_outputs` writes them as files).
    ``torch_threads``: torch intra-op threads for network agents; worker processes use 1 unless
    given (several processes with several threads each oversubscribe the cores), the calling
    process is left as it is unless given. ``on_warning(message)`` is called for each warning found
    by the checks before the games start (default: ``warnings.warn``).

    ``game``: ``"kardinal"`` (options ``preset``, ``shared_pool``) or ``"kardinal_koenig"`` (options
    ``discard``, ``board``); ``players`` defaults to the game's usual count (2 and 4); ``rules``, a
    rules object of either game, overrides all of these.

    ``address``: play the games as Ray tasks on that cluster (``"auto"``, ``"HOST:PORT"``) or on a
    private local Ray (``"local"``, ``workers`` CPUs): same per-game results; see
    :mod:`agents.evaluation.distributed`. ``results["ray"]`` then says how many games each node played.

    Raises ``ValueError`` (:class:`agents.AgentSpecError` for a bad spec or checkpoint) before any
    game starts, :class:`EvaluationError` if a game fails."""
    if rules is None:
        kind = game_kind(game)
        if players is None:
            players = kind.default_players
        if kind.name == "kardinal":
            rules = kind.rules(players, preset=preset, shared_pool=shared_pool)
        else:
            rules = kind.rules(players, discard=discard, board=board)
    kind = kind_of(rules)
    players = rules.players
    for name, value, lo in (("games", games, 1), ("workers", workers, 1), ("save_games", save_games, 0)):
        if not isinstance(value, int) or isinstance(value, bool) or value < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {value!r}")
    if save_games > games:
        raise ValueError(f"save_games ({save_games}) cannot exceed games ({games})")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    if torch_threads is not None and (not isinstance(torch_threads, int) or torch_threads < 1):
        raise ValueError(f"torch_threads must be a positive integer, got {torch_threads!r}")
    participants = lineup(agent_specs, players)
    labels = _labels(participants)
    if (workers > 1 or address) and not all(isinstance(p, str) for p in participants):
        raise ValueError("agent objects can only be evaluated with workers=1 and no address; pass spec strings")
    notes = []
    for spec in dict.fromkeys(p for p in participants if isinstance(p, str)):  # once per spec, before any worker
        notes.extend(check_spec(spec, players, game=kind.name))
    for note in notes:
        if on_warning is None:
            warnings.warn(note, PlayerCountWarning, stacklevel=2)
        else:
            on_warning(note)
    rules_dict = rules.to_dict()
    tasks = [(g, seed, kind.name, rules_dict, len(participants), keep_moves, g < save_games) for g in range(games)]
    t0 = time.time()
    ray_info = None
    if address:
        from agents.evaluation.distributed import run_on_ray

        results, ray_info = run_on_ray(
            tasks, participants, agent_kwargs, torch_threads, address, workers, None, progress
        )
    elif workers > 1:
        results = _run_parallel(tasks, workers, participants, agent_kwargs, torch_threads, progress)
        results.sort(key=lambda r: r["game"])
    else:
        results = []
        saved = dict(_WORKER)
        try:
            with warnings.catch_warnings():
                _init_worker(participants, agent_kwargs, torch_threads)
                for task in tasks:
                    results.append(_play_task(task))
                    if progress:
                        print(f"  game {len(results)}/{games}", file=sys.stderr, flush=True)
        finally:
            _WORKER.clear()
            _WORKER.update(saved)
    elapsed = time.time() - t0
    for r in results:
        r["agents"] = [labels[i] for i in r["seats"]]
    ratings, history = _ratings(results, labels, players)
    summary = []
    for i, label in enumerate(labels):
        n = shared = 0
        wins = score_sum = rank_sum = secs = 0.0
        for r in results:
            for s, who in enumerate(r["seats"]):
                if who != i:
                    continue
                n += 1
                wins += win_share(s, r["winners"])
                shared += s in r["winners"] and len(r["winners"]) > 1
                score_sum += r["scores"][s]
                rank_sum += r["ranks"][s]
                secs += r["seconds"][s]
        lo, hi = wilson_interval(wins, n)
        rt = ratings[i]
        summary.append(
            {
                "agent": label,
                "spec": participants[i] if isinstance(participants[i], str) else label,
                "games": n,
                "wins": wins,
                "shared_wins": shared,
                "win_rate": wins / n if n else 0.0,
                "win_ci95": [lo, hi],
                "mean_score": score_sum / n if n else 0.0,
                "mean_rank": rank_sum / n if n else 0.0,
                "seconds_per_game": secs / n if n else 0.0,
                "mu": rt.mu,
                "sigma": rt.sigma,
                "ordinal": rt.mu - 3 * rt.sigma,
            }
        )
    balanced = games % players == 0
    out = {
        "format": "kardinal-eval/1",
        "options": {
            "game": kind.name,
            "agents": [p if isinstance(p, str) else labels[i] for i, p in enumerate(participants)],
            "players": players,
            "games": games,
            "seed": seed,
            "rules": rules.to_dict(),
            "workers": workers,
            "seat_balanced": balanced,
            "win_definition": DEFINITION,
        },
        "versions": _versions(),
        "labels": labels,
        "elapsed_seconds": elapsed,
        "games": results,
        "summary": summary,
        "rating_history": {labels[i]: history[i] for i in range(len(labels))},
        "warnings": notes,
    }
    if ray_info is not None:
        out["ray"] = ray_info
    return out


# ---------------------------------------------------------------------------------------- output
def _fmt_wins(w: float) -> str:
    return str(int(w)) if float(w).is_integer() else f"{w:.1f}" if (2 * w).is_integer() else f"{w:.2f}"


def format_table(results: dict) -> str:
    """A plain-text table of the summary (one row per participant, best ordinal first)."""
    opts = results["options"]
    rules = opts["rules"]
    if opts.get("game", "kardinal") == "kardinal":
        variant = f"preset {rules['preset']}{', shared pool' if rules.get('shared_pool') else ''}"
    else:
        board = rules["board"] if isinstance(rules["board"], str) else rules["board"].get("name", "custom")
        variant = f"Kardinal & König, discard {rules['discard']}, board {board}"
    parity = f", parity {1 / opts['players']:.3f}" if opts["players"] > 2 else ""
    head = (
        f"{opts['games']} games, {opts['players']} players, {variant}, seed {opts['seed']}"
        f" ({results.get('elapsed_seconds', 0.0):.1f} s){parity}"
    )
    cols = [
        "agent",
        "games",
        "wins",
        "shared",
        "win rate",
        "95% CI",
        "score",
        "rank",
        "s/game",
        "mu",
        "sigma",
        "ordinal",
    ]
    rows = []
    for s in sorted(results["summary"], key=lambda s: -s["ordinal"]):
        lo, hi = s["win_ci95"]
        rows.append(
            [
                s["agent"],
                str(s["games"]),
                _fmt_wins(s["wins"]),
                str(s.get("shared_wins", 0)),
                f"{s['win_rate']:.3f}",
                f"[{lo:.3f}, {hi:.3f}]",
                f"{s['mean_score']:.2f}",
                f"{s['mean_rank']:.2f}",
                f"{s['seconds_per_game']:.2f}",
                f"{s['mu']:.2f}",
                f"{s['sigma']:.2f}",
                f"{s['ordinal']:.2f}",
            ]
        )
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]

    def line(cells):
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=False))
        )

    out = [head, line(cols), line(["-" * w for w in widths])] + [line(r) for r in rows]
    out.append(f"wins: {DEFINITION} ('shared': games won jointly)")
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
        mu = [m for m, _ in hist]
        sg = [s for _, s in hist]
        xs = range(len(hist))
        ax1.plot(xs, mu, label=label)
        ax1.fill_between(
            xs, [m - s for m, s in zip(mu, sg, strict=False)], [m + s for m, s in zip(mu, sg, strict=False)], alpha=0.15
        )
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
    """Write ``results.json``, ``ratings.png`` and the games' records (``games/game_NNNN.json``, for
    the games that carry one) into ``out_dir``; return their paths (``json``, ``png``, ``records``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    records = []
    games = []
    for g in results["games"]:
        g = dict(g)
        rec = g.pop("record", None)
        if rec is not None:
            (out / "games").mkdir(exist_ok=True)
            path = out / "games" / f"game_{g['game']:04d}.json"
            path.write_text(json.dumps(rec, indent=1) + "\n")
            g["record_file"] = str(path.relative_to(out))
            records.append(str(path))
            write_html = write_replay_html if rec.get("format") == KARDINAL_RECORD else write_koenig_replay_html
            replay = write_html(rec, path.with_suffix(".html"), source=str(path))
            g["replay_file"] = str(Path(replay).relative_to(out))
        games.append(g)
    json_path = out / "results.json"
    png_path = out / "ratings.png"
    with open(json_path, "w") as f:
        json.dump({**results, "games": games}, f, indent=1)
    plot_ratings(results, png_path)
    return {"json": str(json_path), "png": str(png_path), "records": records}


# ---------------------------------------------------------------------------------------- CLI
def _nonnegative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {value}")
    return value


def _positive(text: str) -> int:
    value = _nonnegative(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    from agents import SPEC_HELP

    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0], epilog=SPEC_HELP)
    parser.add_argument(
        "--agents", nargs="+", required=True, metavar="SPEC", help="agent specs; the last one fills the remaining seats"
    )
    parser.add_argument(
        "--game", default="kardinal", choices=list(GAMES), help="which game (default kardinal; see agents.games)"
    )
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        choices=[2, 3, 4, 5],
        help="players per game (kardinal 2-4, default 2; kardinal_koenig 3-5, default 4)",
    )
    parser.add_argument(
        "--games", type=_positive, default=20, help="games to play (a multiple of --players balances the seats)"
    )
    parser.add_argument("--seed", type=_nonnegative, default=0, help="seed of the agents (see the module docs)")
    parser.add_argument("--preset", default="english", choices=["english", "german"], help="kardinal: rules preset")
    parser.add_argument("--shared-pool", action="store_true", help="kardinal: shared-pool variant (3-4 players)")
    parser.add_argument("--discard", default=None, choices=["one", "any"], help="kardinal_koenig: discard option")
    parser.add_argument("--board", default=None, help="kardinal_koenig: a board name or board file (default board)")
    parser.add_argument("--workers", type=_positive, default=1, help="processes (default 1)")
    parser.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="play the games as Ray tasks on this Ray cluster ('auto' or HOST:PORT); see agents.evaluation.distributed",
    )
    parser.add_argument("--ray", action="store_true", help="play the games as tasks of a local Ray (--workers CPUs)")
    parser.add_argument(
        "--torch-threads", type=_positive, default=1, help="torch threads per process for network agents (default 1)"
    )
    parser.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="directory for results.json, ratings.png and the --save-games records",
    )
    parser.add_argument(
        "--save-games",
        type=_nonnegative,
        default=0,
        metavar="N",
        help="write the first N games as record files (and HTML replays) under DIR/games/ (needs --out)",
    )
    parser.add_argument("--no-moves", action="store_true", help="do not store each game's moves in the JSON")
    parser.add_argument("--quiet", action="store_true", help="no per-game progress on stderr")
    return parser


def main(argv=None) -> int:
    """``kardinal-evaluate`` / ``scripts/evaluate.py``. Exit status 0; 2 for bad arguments, specs or
    checkpoints (before any game); 1 if a game fails; 130 on Ctrl-C."""
    os.environ.setdefault("MPLBACKEND", "Agg")
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
    if args.game == "kardinal" and (args.discard or args.board):
        parser.error("--discard and --board are options of --game kardinal_koenig")
    if args.game == "kardinal_koenig" and (args.preset != "english" or args.shared_pool):
        parser.error("--preset and --shared-pool are options of --game kardinal")
    try:
        results = evaluate(
            args.agents,
            players=args.players,
            game=args.game,
            discard=args.discard,
            board=args.board,
            games=args.games,
            seed=args.seed,
            preset=args.preset,
            shared_pool=args.shared_pool,
            workers=args.workers,
            address="local" if args.ray else args.address,
            keep_moves=not args.no_moves,
            progress=not args.quiet,
            torch_threads=args.torch_threads,
            save_games=args.save_games,
            on_warning=lambda msg: print(f"warning: {msg}", file=sys.stderr, flush=True),
        )
    except EvaluationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (AgentSpecError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    print(format_table(results))
    if args.out:
        paths = write_outputs(results, args.out)
        extra = f" and {len(paths['records'])} game records in {Path(args.out) / 'games'}" if paths["records"] else ""
        print(f"wrote {paths['json']}, {paths['png']}{extra}")
    return 0
