"""League self-play PPO for Kardinal with Ray RLlib (new API stack): the code of ``scripts/train_rllib.py``.

Usage::

    python scripts/train_rllib.py                                  # tiny run on a local Ray (2 CPUs)
    python scripts/train_rllib.py --players 3 --window 11 --iterations 50 --train-batch-size 4000
    python scripts/train_rllib.py --address auto --num-env-runners 8 --iterations 500   # existing cluster
    python scripts/evaluate.py --agents rllib:runs/rllib/checkpoint greedy --players 2 --games 20

Needs ``pip install "kardinal-env[rllib]"``. The algorithm comes from
``kardinal_env.integrations.rllib.kardinal_ppo_config``: the environment ``"kardinal_v0"``
(registered by name), the masking ``KardinalMaskedRLModule`` as ``"main"``, and — unless
``--no-league`` — the league: ``"main"`` takes one seat per game, every other seat draws an
opponent from ``"random"`` and frozen snapshots of ``"main"``, and a new snapshot is added whenever
``"main"``'s win rate over the last 100 games passes ``--win-rate-threshold``.

Without ``--address`` it starts a local Ray instance (``ray.init(num_cpus=2,
include_dashboard=False)``, object store ``--object-store-mb``); with ``--address`` it joins an
existing cluster (``auto`` or ``host:port``) and leaves it running. What runs where: the learner
(``num_learners=0``) and the league bookkeeping run in this driver process; each of the
``--num-env-runners`` env runners is a Ray actor (one CPU each) that Ray places on any node of the
cluster, and receives the environment creator, the module classes and the league mapping (frozen
snapshots included) from the driver; every node needs kardinal-env and ray installed. Each
progress line names the driver's node (``driver_node``) and the nodes of the env runners
(``env_runner_nodes``, Ray node ids).

Checkpoints: ``OUT/checkpoint`` (the latest, overwritten every ``--checkpoint-every`` iterations
and at the end) is an ordinary RLlib Algorithm checkpoint (``Algorithm.from_checkpoint`` resumes
it; ``--resume OUT/checkpoint`` continues training with the league's frozen snapshots; the
league callback's episode counter and the win-rate window start afresh). ``agents.networks.rllib_agent.RLlibAgent`` plays its
``"main"`` module, so ``scripts/evaluate.py --agents rllib:OUT/checkpoint`` evaluates it. One JSON
line per iteration goes to stdout and to ``OUT/progress.jsonl``. The driver writes the checkpoint
(its learner holds the weights), so ``--out`` is a path of the driver's machine; to resume or
evaluate from another node, put it on storage every node reaches (NFS, a mounted bucket).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

__all__ = ["build_config", "env_runner_nodes", "main", "parse_args"]


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="League self-play PPO for Kardinal with Ray RLlib (new API stack).",
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--address", default=None, help="existing Ray cluster ('auto' or host:port); default: start a local one"
    )
    p.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray instance (ignored with --address)")
    p.add_argument("--object-store-mb", type=int, default=256, help="object store of the local Ray instance, MiB")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--window", type=int, default=9, help="odd observation/action window (53 = the full game)")
    p.add_argument("--preset", default="english")
    p.add_argument("--shared-pool", action="store_true")
    p.add_argument("--reward", default="win_loss", choices=("win_loss", "margin"))
    p.add_argument("--chip-shaping", type=float, default=0.0)
    p.add_argument("--iterations", type=int, default=2, help="training iterations (tiny by default)")
    p.add_argument("--train-batch-size", type=int, default=512, help="env steps per iteration")
    p.add_argument("--minibatch-size", type=int, default=128)
    p.add_argument("--num-epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--channels", type=int, default=32, help="conv channels of the module")
    p.add_argument("--blocks", type=int, default=3, help="conv layers of the module")
    p.add_argument("--num-env-runners", type=int, default=0, help="0 = sample in the driver process")
    p.add_argument("--num-envs-per-env-runner", type=int, default=1)
    p.add_argument("--no-league", action="store_true", help="pure self-play: every seat plays 'main'")
    p.add_argument("--win-rate-threshold", type=float, default=0.6)
    p.add_argument("--min-episodes", type=int, default=20, help="episodes between league snapshots, at least")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/rllib", help="output directory (checkpoint, progress.jsonl)")
    p.add_argument("--checkpoint-every", type=int, default=10)
    p.add_argument("--resume", default=None, help="an Algorithm checkpoint to continue from")
    return p.parse_args(argv)


def build_config(args: argparse.Namespace):
    from kardinal_env.integrations.rllib import kardinal_ppo_config

    env_config = {"preset": args.preset, "reward": args.reward, "chip_shaping": args.chip_shaping}
    if args.shared_pool:
        env_config["shared_pool"] = True
    return kardinal_ppo_config(
        players=args.players,
        window=args.window,
        env_config=env_config,
        league=not args.no_league,
        win_rate_threshold=args.win_rate_threshold,
        min_episodes=args.min_episodes,
        model_config={"channels": args.channels, "blocks": args.blocks},
        train_batch_size=args.train_batch_size,
        minibatch_size=args.minibatch_size,
        num_epochs=args.num_epochs,
        lr=args.lr,
        num_env_runners=args.num_env_runners,
        num_envs_per_env_runner=args.num_envs_per_env_runner,
        seed=args.seed,
    )


def env_runner_nodes(algo) -> list[str]:
    """The Ray node id of every remote env runner of ``algo`` (empty when sampling in the driver)."""
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
    import ray

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(
            num_cpus=args.num_cpus,
            include_dashboard=False,
            object_store_memory=args.object_store_mb * 1024 * 1024,
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = (out / "checkpoint").resolve()
    algo = None
    try:
        algo = build_config(args).build_algo()
        if args.resume:
            from kardinal_env.integrations.rllib import restore_league

            restore_league(algo, Path(args.resume).resolve())  # snapshots first, then all weights
        driver_node = ray.get_runtime_context().get_node_id()
        start = time.perf_counter()
        with open(out / "progress.jsonl", "a") as log:
            for it in range(1, args.iterations + 1):
                result = algo.train()
                summary = _summary(it, result, time.perf_counter() - start)
                summary["driver_node"] = driver_node
                summary["env_runner_nodes"] = env_runner_nodes(algo)
                line = json.dumps(summary)
                print(line, flush=True)
                log.write(line + "\n")
                log.flush()
                if it % args.checkpoint_every == 0 or it == args.iterations:
                    algo.save_to_path(str(checkpoint))
        if args.iterations <= 0:
            algo.save_to_path(str(checkpoint))
        print(f"checkpoint: {checkpoint}")
        print(f"evaluate:   python scripts/evaluate.py --agents rllib:{checkpoint} greedy --players {args.players}")
    finally:
        if algo is not None:
            algo.stop()
        ray.shutdown()
    return 0
