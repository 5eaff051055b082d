"""League self-play PPO with Ray RLlib (new API stack) for any registered game: the code of ``scripts/train_rllib.py``.

Usage::

    python scripts/train_rllib.py --window 9                       # tiny Kardinal run on a local Ray (2 CPUs)
    python scripts/train_rllib.py --game kardinal_koenig --players 3 --iterations 50 --train-batch-size 4000
    python scripts/train_rllib.py --players 3 --window 11 --iterations 50 --train-batch-size 4000
    python scripts/train_rllib.py --address auto --num-env-runners 8 --iterations 500   # existing cluster
    python scripts/evaluate.py --agents rllib:runs/rllib/checkpoint greedy --players 2 --games 20

Needs ``pip install "kardinal-env[rllib]"``. The algorithm is ``kardinal_env.integrations.rllib.ppo_config``: a masking
module as ``"main"`` and, unless ``--no-league``, the league (``"random"`` and frozen snapshots of ``"main"``, added
when its win rate over the last 100 games passes ``--win-rate-threshold``).

Environment options: ``--players``, the registered games' rules options (``--preset``, ``--discard``,
...; another game's option is a usage error), ``--reward``, Kardinal's ``--window`` and
``--chip-shaping`` (default: the lossless window 53) or any ``--env-option KEY=VALUE``.

Without ``--address`` it starts a local Ray (``num_cpus=2``, no dashboard, object store ``--object-store-mb``); with
``--address`` (``auto`` or ``host:port``) it joins a cluster and leaves it running. The learner and the league run in
the driver, the ``--num-env-runners`` env runners on any node (each needs kardinal-env and ray); progress lines name
their nodes (``docs/cluster.md``).

Checkpoints: ``OUT/checkpoint`` (every ``--checkpoint-every`` iterations and at the end) is an ordinary RLlib
checkpoint; ``--resume OUT/checkpoint`` continues with the league's snapshots (the callback's counters start afresh),
and ``scripts/evaluate.py --agents rllib:OUT/checkpoint`` evaluates its ``"main"``. One JSON line per iteration goes to
stdout and ``OUT/progress.jsonl``. ``--out`` is a path on the driver's machine (to resume or evaluate elsewhere, use
storage every node reaches).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from kardinal_env.core.cli import add_plugin_argument, add_rule_option_flags, given_rule_options, load_plugin_argv
from kardinal_env.core.registry import games

__all__ = ["build_config", "env_config", "env_runner_nodes", "main", "parse_args"]


def _env_option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE with KEY a name, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def build_parser() -> argparse.ArgumentParser:
    names = list(games())
    p = argparse.ArgumentParser(
        description="League self-play PPO with Ray RLlib (new API stack) for any registered game.",
        epilog=(__doc__ or "").split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--address", default=None, help="existing Ray cluster ('auto' or host:port); default: start a local one"
    )
    p.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray instance (ignored with --address)")
    p.add_argument("--object-store-mb", type=int, default=256, help="object store of the local Ray instance, MiB")
    p.add_argument("--game", default="kardinal", choices=names, help="which registered game (default kardinal)")
    counts = "; ".join(f"{s.name}: {list(s.players)}, default {s.default_players}" for s in games().values())
    p.add_argument("--players", type=int, default=None, help=f"seats ({counts})")
    p.add_argument("--reward", default=None, choices=("win_loss", "margin"), help="reward scheme (default win_loss)")
    p.add_argument("--window", type=int, default=None, help="env option window (Kardinal; default: the full game)")
    p.add_argument("--chip-shaping", type=float, default=None, help="env option chip_shaping (Kardinal)")
    p.add_argument(
        "--env-option",
        type=_env_option,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any other option of the game's environment (VALUE read as JSON when it parses)",
    )
    add_plugin_argument(p)
    add_rule_option_flags(p, "the RLlib trainer")
    p.add_argument("--iterations", type=int, default=2, help="training iterations (tiny by default)")
    p.add_argument("--train-batch-size", type=int, default=512, help="env steps per iteration")
    p.add_argument("--minibatch-size", type=int, default=128)
    p.add_argument("--num-epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--channels", type=int, default=None, help="conv channels of a board module (default 32)")
    p.add_argument("--blocks", type=int, default=None, help="conv layers of a board module (default 3)")
    p.add_argument("--hidden", type=int, nargs="+", default=None, help="layer sizes of an MLP module (default 128 128)")
    p.add_argument("--num-env-runners", type=int, default=0, help="0 = sample in the driver process")
    p.add_argument("--num-envs-per-env-runner", type=int, default=1)
    p.add_argument("--no-league", action="store_true", help="pure self-play: every seat plays 'main'")
    p.add_argument("--win-rate-threshold", type=float, default=0.6)
    p.add_argument("--min-episodes", type=int, default=20, help="episodes between league snapshots, at least")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/rllib", help="output directory (checkpoint, progress.jsonl)")
    p.add_argument("--checkpoint-every", type=int, default=10)
    p.add_argument("--resume", default=None, help="an Algorithm checkpoint to continue from")
    return p


def parse_args(argv=None) -> argparse.Namespace:
    load_plugin_argv(argv)  # --plugin: games of one's own modules, before --game's choices are listed
    parser = build_parser()
    args = parser.parse_args(argv)
    spec = games()[args.game]
    if args.players is not None and args.players not in spec.players:
        parser.error(f"--players {args.players}: {spec.name} plays {list(spec.players)}")
    args.rule_options = given_rule_options(parser, args, spec)
    return args


def env_config(args: argparse.Namespace) -> dict[str, Any]:
    given = {"reward": args.reward, "window": args.window, "chip_shaping": args.chip_shaping}
    given = {key: value for key, value in given.items() if value is not None}
    return {**args.rule_options, **given, **dict(args.env_option)}


def build_config(args: argparse.Namespace):
    from kardinal_env.integrations.rllib import ppo_config

    sizes = {"channels": args.channels, "blocks": args.blocks, "hidden": args.hidden}
    model_config = {key: value for key, value in sizes.items() if value is not None}
    alike = "game players win_rate_threshold min_episodes train_batch_size minibatch_size num_epochs lr seed".split()
    return ppo_config(
        env_config=env_config(args),
        league=not args.no_league,
        model_config=model_config,
        num_env_runners=args.num_env_runners,
        num_envs_per_env_runner=args.num_envs_per_env_runner,
        **{name: getattr(args, name) for name in alike},  # the options the command line names alike
    )


def env_runner_nodes(algo) -> list[str]:
    """The Ray node id of every remote env runner of ``algo`` (none when sampling in the driver)."""
    group = getattr(algo, "env_runner_group", None)
    if group is None or group.num_remote_env_runners() == 0:
        return []
    return list(group.foreach_env_runner(_node_id, local_env_runner=False))


def _node_id(_env_runner) -> str:
    import ray

    return ray.get_runtime_context().get_node_id()


def _summary(it: int, result: dict, seconds: float) -> dict:
    env = result.get("env_runners", {})
    learner = result.get("learners", {}).get("main", {})
    timers = result.get("timers", {})

    def num(x):
        try:
            return round(float(x), 4)
        except (TypeError, ValueError):
            return None

    return {
        "iteration": it,
        "seconds": round(seconds, 1),
        "env_steps": result.get("num_env_steps_sampled_lifetime"),
        "episodes": env.get("num_episodes_lifetime", env.get("num_episodes")),
        "episode_len_mean": num(env.get("episode_len_mean")),
        "win_rate": num(env.get("win_rate")),
        "league_size": result.get("league_size"),
        "policy_loss": num(learner.get("policy_loss")),
        "vf_loss": num(learner.get("vf_loss")),
        "entropy": num(learner.get("entropy")),
        # RLlib's timers (smoothed over iterations): sampling on the env runners, the learner's update.
        "sample_s": num(timers.get("env_runner_sampling_timer")),
        "learn_s": num(timers.get("learner_update_timer")),
    }


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        config = build_config(args)  # builds one environment: bad environment options fail here, before Ray
    except (TypeError, ValueError) as exc:
        print(f"train_rllib: error: {exc}", file=sys.stderr)
        return 2
    import ray

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(  # "local": a new instance even when a `ray start` cluster runs on this machine
            address="local",
            num_cpus=args.num_cpus,
            include_dashboard=False,
            object_store_memory=args.object_store_mb * 1024 * 1024,
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = (out / "checkpoint").resolve()
    algo = None
    try:
        algo = config.build_algo()
        if args.resume:
            from kardinal_env.integrations.rllib import restore_league

            restore_league(algo, args.resume)  # snapshots first, then all weights
        driver_node = ray.get_runtime_context().get_node_id()
        start = time.perf_counter()
        with open(out / "progress.jsonl", "a") as log:
            for it in range(1, args.iterations + 1):
                summary = _summary(it, algo.train(), time.perf_counter() - start)
                line = json.dumps({**summary, "driver_node": driver_node, "env_runner_nodes": env_runner_nodes(algo)})
                for stream in (sys.stdout, log):
                    print(line, file=stream, flush=True)
                if it % args.checkpoint_every == 0 or it == args.iterations:
                    algo.save_to_path(str(checkpoint))
        if args.iterations <= 0:
            algo.save_to_path(str(checkpoint))
        print(f"checkpoint: {checkpoint}")
        players = args.players or games()[args.game].default_players
        print(
            f"evaluate:   python scripts/evaluate.py --game {args.game} --agents rllib:{checkpoint} greedy "
            f"--players {players}"
        )
    finally:
        if algo is not None:
            algo.stop()
        ray.shutdown()
    return 0
