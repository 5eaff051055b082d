"""Prototype: the project's self-play PPO (:mod:`agents.training.trainer`) with its rollouts on Ray actors.

The learner stays one process (the caller's :class:`agents.training.trainer.Trainer`: network, optimizer, PPO
update, snapshots); each iteration it broadcasts the current weights (and the frozen pool) to
``workers`` Ray actors. Each actor owns a :class:`~agents.training.trainer.Trainer` of its own (same config,
its own seed ``seed * 1000 + 1 + index``, ``steps_per_iter`` and ``num_envs`` split between the
actors) and runs the
unchanged :class:`~agents.training.trainer.Rollout` — whole games in lockstep, per-seat GAE computed on the
actor — and returns the buffer; the learner concatenates the buffers and runs
:meth:`~agents.training.trainer.Trainer.update` on them. Network decisions in the buffer are the adapter's
``Decision`` objects, pickled to the learner.

It is a measurement prototype, not a training entry point: no checkpoints, evaluations or logging,
and runs are not bit-identical to ``kardinal-train`` (each actor draws from its own random
streams, the rollout is split into ``workers`` parts). :func:`measure` gives steps/s;
``python -m agents.ray_rollouts --workers 1 2 --iterations 3`` prints them, next to the in-process
loop of the same config (``workers=0``). Needs ray and torch.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time

__all__ = ["RayRolloutLearner", "measure", "main"]


class _RolloutWorker:
    """Body of the Ray actor: a Trainer used only for its rollouts."""

    def __init__(self, config, index: int):
        from agents.training.trainer import Trainer

        self.trainer = Trainer(config)
        self.index = index

    def collect(self, weights, pool: list) -> dict:
        t = self.trainer
        t.net.load_state_dict(weights)
        if len(t.pool_nets) != len(pool):
            t.pool_nets = [t._frozen(sd) for sd in pool]
        else:
            for net, sd in zip(t.pool_nets, pool, strict=True):
                net.load_state_dict(sd)
        ro = t.collect_rollout()
        return {
            "buf": ro.buf,
            "adv": ro.adv,
            "ret": ro.ret,
            "ep_returns": ro.ep_returns,
            "ep_lengths": ro.ep_lengths,
            "opp_results": ro.opp_results,
            "seconds": ro.seconds,
        }


class RayRolloutLearner:
    """One learner process, rollouts on ``workers`` Ray actors (see the module docstring)."""

    def __init__(self, config, workers: int):
        import ray

        from agents.training.trainer import Trainer

        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.config = config
        self.trainer = Trainer(config)
        share = math.ceil(config.steps_per_iter / workers)
        envs = math.ceil(config.num_envs / workers)
        actor = ray.remote(num_cpus=1)(_RolloutWorker)
        self.actors = [
            actor.remote(
                dataclasses.replace(config, seed=config.seed * 1000 + 1 + i, steps_per_iter=share, num_envs=envs), i
            )
            for i in range(workers)
        ]

    def close(self) -> None:
        """Stop the actors (their CPUs go back to the cluster)."""
        import ray

        for actor in self.actors:
            ray.kill(actor)
        self.actors = []

    def iteration(self) -> dict:
        """Collect on every actor, update once; returns step counts and the time split."""
        import ray

        from agents.training.trainer import Rollout

        t = self.trainer
        t0 = time.perf_counter()
        weights = ray.put({k: v.detach().cpu() for k, v in t.net.state_dict().items()})
        pool = ray.put(list(t.pool))
        parts = ray.get([a.collect.remote(weights, pool) for a in self.actors])
        ro = Rollout(t)
        for part in parts:
            for key, values in part["buf"].items():
                ro.buf[key].extend(values)
            ro.adv.extend(part["adv"])
            ro.ret.extend(part["ret"])
            ro.ep_returns.extend(part["ep_returns"])
            ro.ep_lengths.extend(part["ep_lengths"])
            for kind, res in part["opp_results"].items():
                ro.opp_results[kind].extend(res)
        t1 = time.perf_counter()
        stats = t.update(ro)
        t.global_step += len(ro)
        t2 = time.perf_counter()
        return {"steps": len(ro), "collect_s": t1 - t0, "update_s": t2 - t1, "loss": float(stats["value_loss"])}


def _in_process_iteration(trainer) -> dict:
    t0 = time.perf_counter()
    ro = trainer.collect_rollout()
    t1 = time.perf_counter()
    stats = trainer.update(ro)
    trainer.global_step += len(ro)
    t2 = time.perf_counter()
    return {"steps": len(ro), "collect_s": t1 - t0, "update_s": t2 - t1, "loss": float(stats["value_loss"])}


def measure(config, workers: int, iterations: int) -> dict:
    """Steps/s of ``iterations`` PPO iterations (after one warm-up iteration) with rollouts on
    ``workers`` Ray actors (``workers=0``: the in-process loop of :mod:`agents.training.trainer`). The caller
    must have connected to Ray (``ray.init``) for ``workers >= 1``."""
    if workers == 0:
        from agents.training.trainer import Trainer

        trainer = Trainer(config)
        step = lambda: _in_process_iteration(trainer)  # noqa: E731
    else:
        learner = RayRolloutLearner(config, workers)
        step = learner.iteration
    try:
        step()  # warm-up: actor start, first forward passes
        rows = [step() for _ in range(iterations)]
    finally:
        if workers:
            learner.close()
    steps = sum(r["steps"] for r in rows)
    collect = sum(r["collect_s"] for r in rows)
    update = sum(r["update_s"] for r in rows)
    return {
        "workers": workers,
        "iterations": iterations,
        "steps": steps,
        "steps_per_s": round(steps / (collect + update), 1),
        "collect_steps_per_s": round(steps / collect, 1),
        "collect_s": round(collect, 2),
        "update_s": round(update, 2),
    }


def main(argv=None) -> int:
    from agents.training.config import make_config

    p = argparse.ArgumentParser(
        description="Steps/s of agents.training.trainer's PPO with rollouts on Ray actors (prototype)."
    )
    p.add_argument("--workers", type=int, nargs="+", default=[0, 1, 2], help="0 = in-process rollouts")
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--steps-per-iter", type=int, default=2048)
    p.add_argument("--address", default=None, help="a Ray cluster; default: a local Ray with max(--workers) CPUs")
    args = p.parse_args(argv)
    cfg = make_config(("defaults", {}), ("command line", {"steps_per_iter": args.steps_per_iter, "progress": False}))
    import ray

    if args.address:
        ray.init(address=args.address, log_to_driver=False)
    else:
        ray.init(num_cpus=max(1, *args.workers), include_dashboard=False, log_to_driver=False)
    try:
        for w in args.workers:
            print(json.dumps(measure(cfg, w, args.iterations)), flush=True)
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
