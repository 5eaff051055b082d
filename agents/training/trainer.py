"""Self-play PPO for every registered game (CleanRL-style, as a library; :func:`agents.training.train`).

The game's :class:`agents.training.adapters.GameAdapter` and network builder hold what is game-specific;
the rollout (:mod:`agents.training.rollout`), update, pool, warm start (:mod:`agents.training.warm_start`),
logging and checkpoints are shared. A decision sees only its seat's observation; chance is dealt from
the trainer's generator, so a run is a function of its config (same machine, torch, ``torch_threads``).
A step is one stored learner decision; an iteration collects ``steps_per_iter`` (whole games) and
updates, until ``total_steps``. ``anchor_kl > 0`` adds ``anchor_kl`` × KL(starting policy || policy).

TensorBoard in ``runs/{run_name}/``: ``charts/*``, ``losses/*``, ``eval/winrate_vs_{opponent}`` (argmax, seats
alternated, game ``i`` from :func:`agents.runinfo.game_seed`; a shared win among k counts 1/k). Checkpoints (atomic):
``checkpoint.pt``, ``checkpoint_{step}.pt`` every ``checkpoint_interval``, with ``cpu_seconds``, the optimizer, pool,
anchor and random states. ``best.pt`` (``keep_best``) copies the state whose ``best`` entry records it, written after
``checkpoint.pt``; on ``--resume`` a ``best.pt`` that is not the recorded best is rewritten from the checkpoint (a
record of its step) or renamed ``best_step{N}.pt`` (``best_previous.pt``), never deleted; a recorded best not found is
dropped. Temporary files of killed writes are removed at start.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import random
import re
import time
from typing import Any

import numpy as np
import torch
import torch.nn as nn

from agents.networks.base import MaskedCategorical, model_config
from agents.networks.checkpoint import (
    CheckpointError,
    make_checkpoint,
    read_checkpoint,
    remove_temp_files,
    write_checkpoint,
)
from agents.runinfo import git_revision
from agents.training.adapters import make_adapter
from agents.training.config import ConfigError, TrainConfig
from agents.training.rollout import Rollout, evaluate_policy, gradient_step, sorted_minibatches
from agents.training.warm_start import warm_start
from kardinal_env.core.checks import is_int

__all__ = ["Trainer", "TrainingError"]


class TrainingError(RuntimeError):
    """Training cannot start (e.g. the run directory cannot be created, a package is missing)."""


#: The files the trainer writes into its run directory with :func:`write_checkpoint`.
RUN_FILES = re.compile(r"checkpoint(_[0-9]+)?\.pt|best\.pt")


class Trainer:
    """Self-play PPO on a validated :class:`TrainConfig`, optionally continuing a checkpoint dict."""

    def __init__(self, config: TrainConfig, checkpoint: dict | None = None):
        cfg = self.config = config
        self.run_dir = os.path.join(cfg.runs_dir, cfg.resolved_run_name())
        self.ckpt = checkpoint
        torch.set_num_threads(cfg.torch_threads)
        random.seed(cfg.seed)
        np.random.seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        torch.use_deterministic_algorithms(cfg.deterministic)
        self.rng = np.random.default_rng(cfg.seed)
        self.rng_py = random.Random(cfg.seed)
        self.generator = torch.Generator().manual_seed(cfg.seed)

        self.adapter = make_adapter(cfg)
        self.rules = self.adapter.rules
        self.net = self.adapter.build_net()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate, eps=1e-5)
        self.pool: list[dict] = []  # state_dicts of frozen snapshots
        self.anchor: dict | None = None  # anchor_kl: the warm start's weights (the regulariser's policy)
        self.global_step, self.start_iteration = 0, 1
        self.cpu_seconds = 0.0  # process CPU time of the runs of this chain (warm start included)
        self._cpu_mark = time.process_time()
        if checkpoint is not None:
            self._restore(checkpoint)
        elif cfg.init_weights:
            self._start_from(cfg.init_weights)
        self.pool_nets = [self._frozen(sd) for sd in self.pool]
        self.anchor_net: nn.Module | None = None if self.anchor is None else self._frozen(self.anchor)
        self.num_iterations = max(1, math.ceil(cfg.total_steps / cfg.steps_per_iter))
        self.latest = {opp: float("nan") for opp in self.adapter.opponents}
        # keep_best: the best evaluation against the baseline so far (kept across --resume)
        self.best: dict | None = dict(checkpoint["best"]) if checkpoint and checkpoint.get("best") else None
        self.sps = 0.0
        self.writer: Any = None  # a tensorboard SummaryWriter while running with track=true
        self.bar: Any = None  # a tqdm bar while running with progress=true
        self.revision = "unknown"
        self._vector_env: Any = None  # the rollouts' batched environment, built at the first rollout

    def vector_env(self) -> Any:
        if self._vector_env is None:
            self._vector_env = self.adapter.vector_env(self.config.num_envs)
        return self._vector_env

    # ------------------------------------------------------------ setup
    def _restore(self, ckpt: dict) -> None:
        self.net.load_state_dict(ckpt["model"])
        if "optimizer" in ckpt:
            self.optimizer.load_state_dict(ckpt["optimizer"])
        self.pool = list(ckpt.get("pool", []))
        self.anchor = ckpt.get("anchor")
        self.global_step = int(ckpt.get("step", 0))
        self.cpu_seconds = float(ckpt.get("cpu_seconds", 0.0))
        self.start_iteration = int(ckpt.get("iteration", 0)) + 1
        if "rng" in ckpt:
            self.rng.bit_generator.state = ckpt["rng"]["numpy"]
            version, internal, gauss = ckpt["rng"]["python"]
            self.rng_py.setstate((version, tuple(internal), gauss))
            self.generator.set_state(ckpt["rng"]["torch"])
            torch.set_rng_state(ckpt["rng"]["torch_global"])

    def _start_from(self, spec: str) -> None:
        """``init_weights``: the starting weights (and anchor); ``ConfigError`` for another network."""
        import warnings

        from agents import load_agent
        from agents.networks.checkpoint import PlayerCountWarning

        with warnings.catch_warnings():  # the config check has said it already
            warnings.simplefilter("ignore", PlayerCountWarning)
            source = load_agent(spec, game=self.adapter.spec).net
        stored, given = model_config(source), model_config(self.net)
        if stored != given:
            raise ConfigError(
                f"config key 'init_weights': the network of {spec!r} is {stored}; the config's network options "
                f"build {given} (set channels, blocks, hidden, ... to the stored ones)"
            )
        self.net.load_state_dict(source.state_dict())
        if self.config.anchor_kl > 0:
            self.anchor = {k: v.detach().clone() for k, v in self.net.state_dict().items()}

    def _frozen(self, state_dict) -> nn.Module:
        net = self.adapter.build_net()
        net.load_state_dict(state_dict)
        return net.eval()

    def log(self, msg: str) -> None:
        if self.bar is not None:
            self.bar.write(msg)
        else:
            print(msg, flush=True)

    def _open_outputs(self) -> None:
        cfg = self.config
        try:
            os.makedirs(self.run_dir, exist_ok=True)
        except OSError as exc:
            raise TrainingError(f"cannot create the run directory {self.run_dir!r}: {exc}") from None
        removed = remove_temp_files(self.run_dir, RUN_FILES)  # left by a run killed mid-write
        if removed:
            names = ", ".join(os.path.basename(p) for p in removed)
            self.log(f"removed {len(removed)} temporary file(s) of interrupted checkpoint writes: {names}")
        if self.ckpt is not None:
            self._reconcile_best(self.ckpt)
        elif os.path.exists(stale := os.path.join(self.run_dir, "best.pt")):  # an earlier run's under this name
            os.remove(stale)
        if cfg.track:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(self.run_dir)
            self.writer.add_text(
                "hyperparameters",
                "|param|value|\n|-|-|\n" + "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(cfg).items()),
            )
        self.revision = git_revision()
        if cfg.progress:
            from tqdm import tqdm  # type: ignore[import-untyped]

            self.bar = tqdm(
                total=max(cfg.total_steps, self.global_step), initial=self.global_step, unit="step", dynamic_ncols=True
            )

    def _reconcile_best(self, ckpt: dict) -> None:
        """On ``--resume``: make ``best.pt`` agree with the checkpoint's ``best`` record (module docstring)."""
        path = os.path.join(self.run_dir, "best.pt")
        record, step = self.best, int(ckpt.get("step", 0))
        if os.path.exists(path):
            try:
                found, _ = read_checkpoint(path, build=False)
            except CheckpointError:
                found = {}
            found_step, found_best = found.get("step"), found.get("best")
            if record is not None and found_best == record and found_step == record.get("step"):
                return  # the recorded best
            superseded = (  # an earlier best of this run, which the record's (at the checkpoint's step) replaces
                record is not None
                and record.get("step") == step
                and is_int(found_step)
                and found_step <= step
                and isinstance(found_best, dict)
                and isinstance(found_best.get("winrate"), float)
                and found_best["winrate"] <= record.get("winrate", float("nan"))
            )
            if not superseded:  # kept under another name (best_step{N}.pt, -2, -3, ...), never deleted
                stem = os.path.join(self.run_dir, f"best_step{found_step}" if is_int(found_step) else "best_previous")
                names = itertools.chain([f"{stem}.pt"], (f"{stem}-{k}.pt" for k in itertools.count(2)))
                aside = next(name for name in names if not os.path.exists(name))
                os.replace(path, aside)
                what = f"step {found_step}" if is_int(found_step) else "no step"
                self.log(
                    f"best.pt ({what}) is not the best that the resumed checkpoint (step {step}) records; "
                    f"renamed {os.path.basename(aside)}"
                )
        if record is None:
            return
        if record.get("step") == step:  # the same network: the run stopped between writing checkpoint.pt and best.pt
            write_checkpoint(ckpt, path)
            self.log(f"best.pt: written from the resumed checkpoint (step {step}), the best it records")
            return
        self.log(
            f"best.pt: the best that the resumed checkpoint records (step {record.get('step')}) is not in "
            f"{self.run_dir}; the next evaluation writes best.pt"
        )
        self.best = None

    def _close_outputs(self) -> None:
        for output in ("bar", "writer"):  # tqdm bar, TensorBoard writer
            if getattr(self, output) is not None:
                getattr(self, output).close()
                setattr(self, output, None)

    # ------------------------------------------------------------ named steps
    def collect_rollout(self) -> Rollout:
        self.net.eval()
        return Rollout(self).run()

    def update(self, ro: Rollout) -> dict:
        """PPO epochs over one rollout. Returns the statistics of the last minibatch / the update."""
        cfg, rng, net = self.config, self.rng, self.net
        buf = ro.buf
        batch = len(ro)
        net.train()
        b_logprob, b_value, b_adv, b_ret = (
            torch.tensor(x, dtype=torch.float32) for x in (buf["logprob"], buf["value"], ro.adv, ro.ret)
        )
        areas = np.array([self.adapter.size(d) for d in buf["decision"]])
        mb_size = max(1, math.ceil(batch / cfg.num_minibatches))
        clipfracs = []
        anchor_kl = torch.zeros(())
        t0 = time.time()
        for _epoch in range(cfg.update_epochs):
            if cfg.bucket_minibatches:
                chunks = sorted_minibatches(rng, areas, mb_size)
            else:
                order = rng.permutation(batch)
                chunks = [order[i : i + mb_size] for i in range(0, batch, mb_size)]
            for mb in chunks:
                logits, newvalue, mask, actions = self.adapter.forward(
                    net, [buf["decision"][i] for i in mb], [buf["action"][i] for i in mb]
                )
                mbt = torch.from_numpy(mb)
                dist = MaskedCategorical(logits, mask)
                newlogprob = dist.log_prob(actions)
                entropy = dist.entropy()
                logratio = newlogprob - b_logprob[mbt]
                ratio = logratio.exp()
                with torch.no_grad():
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
                mb_adv = b_adv[mbt]
                if cfg.norm_adv and len(mb) > 1:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
                if cfg.clip_vloss:
                    v_unclipped = (newvalue - b_ret[mbt]) ** 2
                    v_clipped = b_value[mbt] + (newvalue - b_value[mbt]).clamp(-cfg.clip_coef, cfg.clip_coef)
                    v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - b_ret[mbt]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_ret[mbt]) ** 2).mean()
                entropy_loss = entropy.mean()
                loss = pg_loss - cfg.ent_coef * entropy_loss + v_loss * cfg.vf_coef
                if self.anchor_net is not None and cfg.anchor_kl > 0:
                    anchor_kl = self.anchor_divergence(mb, buf, dist)
                    loss = loss + cfg.anchor_kl * anchor_kl
                gradient_step(self.optimizer, loss, net, cfg.max_grad_norm)
            if cfg.target_kl and approx_kl > cfg.target_kl:
                break
        y_pred, y_true = b_value.numpy(), b_ret.numpy()
        var_y = np.var(y_true)
        return {
            "value_loss": v_loss.item(),
            "policy_loss": pg_loss.item(),
            "entropy": entropy_loss.item(),
            "old_approx_kl": old_approx_kl.item(),
            "approx_kl": approx_kl.item(),
            "clipfrac": float(np.mean(clipfracs)),
            "anchor_kl": anchor_kl.item(),
            "explained_variance": float(np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y),
            "seconds": time.time() - t0,
        }

    def anchor_divergence(self, mb: np.ndarray, buf: dict, dist: MaskedCategorical) -> torch.Tensor:
        """The mean over minibatch ``mb`` of KL(anchor policy || ``dist``)."""
        with torch.no_grad():
            logits, _, mask, _ = self.adapter.forward(
                self.anchor_net, [buf["decision"][i] for i in mb], [buf["action"][i] for i in mb]
            )
            target = MaskedCategorical(logits, mask)
        terms = torch.where(
            target.mask, target.probs * (target.log_probs - dist.log_probs), torch.zeros_like(dist.logits)
        )
        return terms.sum(-1).mean()

    def take_snapshot(self, iteration: int) -> None:
        """Every ``snapshot_interval`` iterations (``pool_share > 0``) a frozen copy joins the pool."""
        cfg = self.config
        if cfg.pool_share > 0 and iteration % cfg.snapshot_interval == 0:
            self.pool.append({k: v.detach().clone() for k, v in self.net.state_dict().items()})
            self.pool_nets.append(self._frozen(self.pool[-1]))
            if len(self.pool) > cfg.pool_size:
                self.pool.pop(0)
                self.pool_nets.pop(0)

    def _postfix(self) -> None:
        if self.bar is not None:
            self.bar.set_postfix(sps=f"{self.sps:.0f}", **{f"wr_{k}": f"{v:.2f}" for k, v in self.latest.items()})

    def _winrates(self, sep: str = " ") -> str:
        return sep.join(f"vs {k} {v:.3f}" for k, v in self.latest.items())

    def log_iteration(self, iteration: int, ro: Rollout, stats: dict) -> None:
        """TensorBoard scalars, the progress bar (same step count as the checkpoint) or a log line."""
        charts = {"episodic_return": float(np.mean(ro.ep_returns)), "episodic_length": float(np.mean(ro.ep_lengths))}
        charts.update({f"train_winrate_vs_{k}": float(np.mean(r)) for k, r in ro.opp_results.items() if r})
        self.write_scalars({**charts, "rollout_seconds": ro.seconds}, stats)
        self.show_progress(
            f"iter {iteration} step {self.global_step} sps {self.sps:.0f} return {np.mean(ro.ep_returns):.3f} "
            f"entropy {stats['entropy']:.3f} kl {stats['approx_kl']:.5f} ev {stats['explained_variance']:.3f} "
            f"roll {ro.seconds:.1f}s upd {stats['seconds']:.1f}s"
        )

    def write_scalars(self, charts: dict, stats: dict) -> None:
        """An iteration's TensorBoard ``charts/*`` (with learning rate, SPS, update time) and ``losses/*``."""
        lr = self.optimizer.param_groups[0]["lr"]
        charts = {"learning_rate": lr, "SPS": self.sps, "update_seconds": stats["seconds"], **charts}
        losses = {f"losses/{k}": v for k, v in stats.items() if k not in ("seconds", "updates")}
        self.scalars({**{f"charts/{k}": v for k, v in charts.items()}, **losses})

    def scalars(self, values: dict, step: int | None = None) -> None:
        """TensorBoard ``{tag: value}`` at ``step`` (default: the step count) while tracking."""
        if self.writer is not None:
            for tag, value in values.items():
                self.writer.add_scalar(tag, value, self.global_step if step is None else step)

    def show_progress(self, line: str) -> None:
        """Move the progress bar to the step count, or (without a bar) log ``line``."""
        if self.bar is None:
            self.log(line)
            return
        step = self.global_step
        if step > self.bar.total:  # the last iteration overshoots total_steps: the bar shows the real count
            self.bar.total = step
        self.bar.update(step - self.bar.n)
        self._postfix()

    def evaluate(self, iteration: int, games: int) -> dict:
        """Win rates of the argmax policy against the evaluation's baselines, ``games`` each."""
        cfg = self.config
        self.net.eval()
        for opp in self.adapter.opponents:
            self.latest[opp] = evaluate_policy(self.net, self.adapter, opp, games, cfg.seed + 1000 * iteration)
            self.scalars({f"eval/winrate_vs_{opp}": self.latest[opp]})
        self._postfix()
        return dict(self.latest)

    def save_checkpoint(self, path: str, iteration: int) -> str:
        return write_checkpoint(self.checkpoint_dict(iteration), path)

    def checkpoint_dict(self, iteration: int) -> dict:
        version, internal, gauss = self.rng_py.getstate()
        return make_checkpoint(
            self.adapter.spec,
            self.rules,
            self.net,
            config=dataclasses.asdict(self.config),
            step=int(self.global_step),
            iteration=int(iteration),
            revision=self.revision,
            optimizer=self.optimizer.state_dict(),
            pool=self.pool,
            anchor=self.anchor,
            winrates={k: float(v) for k, v in self.latest.items()},
            best=self.best,
            cpu_seconds=self._count_cpu(),
            rng={
                "numpy": self.rng.bit_generator.state,
                "python": [version, list(internal), gauss],
                "torch": self.generator.get_state(),
                "torch_global": torch.get_rng_state(),
            },
        )

    def keep_if_best(self, iteration: int) -> None:
        """``keep_best``: ``checkpoint.pt`` then ``best.pt`` when this evaluation is the run's best (NaN never)."""
        cfg = self.config
        score = self.latest.get(cfg.baseline, float("nan"))
        if not cfg.keep_best or math.isnan(score) or (self.best is not None and score < self.best["winrate"]):
            return
        self.best = {"winrate": float(score), "step": int(self.global_step), "opponent": cfg.baseline}
        ckpt = self.checkpoint_dict(iteration)
        write_checkpoint(ckpt, os.path.join(self.run_dir, "checkpoint.pt"))
        write_checkpoint(ckpt, os.path.join(self.run_dir, "best.pt"))
        self.scalars({f"eval/best_winrate_vs_{cfg.baseline}": score})

    def _count_cpu(self) -> float:
        now = time.process_time()
        self.cpu_seconds += now - self._cpu_mark
        self._cpu_mark = now
        return self.cpu_seconds

    def run_warm_start(self) -> None:
        cfg = self.config
        info = warm_start(self.net, cfg, self.adapter, self.rng_py, self.rng, log=self.log)
        self.scalars({"warmstart/accuracy": info["accuracy"], "warmstart/seconds": info["seconds"]}, step=0)
        self.evaluate(0, cfg.eval_games)
        self.log(f"after warm start ({info['seconds']:.0f}s): {self._winrates()}")
        if cfg.anchor_kl > 0:  # before keep_if_best: the checkpoint.pt it may write resumes with the anchor
            self.anchor = {k: v.detach().clone() for k, v in self.net.state_dict().items()}
            self.anchor_net = self._frozen(self.anchor)
        self.keep_if_best(0)

    # ------------------------------------------------------------ the loop
    def lr_fraction(self, iteration: int) -> float:
        """``anneal_lr``: 1 at the first iteration, linearly to 0 over ``ceil(total_steps / steps_per_iter)``."""
        return max(0.0, 1.0 - (iteration - 1.0) / self.num_iterations)

    def run(self) -> str:
        """Train (warm start, then iterations until ``total_steps``); the final checkpoint's path."""
        self._open_outputs()
        try:
            return self._loop()
        finally:
            self._close_outputs()

    def _loop(self) -> str:
        cfg = self.config
        start_time = wall_start = time.time()
        self._cpu_mark = time.process_time()
        if self.ckpt is None and cfg.bc_games > 0:
            self.run_warm_start()
            start_time = time.time()  # SPS measures the PPO loop (rollouts, updates, evaluations)
        if cfg.anchor_kl > 0 and self.anchor_net is None:
            raise TrainingError(
                f"anchor_kl={cfg.anchor_kl} needs a starting policy as its anchor, but this run has none "
                "(set bc_games > 0 or init_weights, or resume a run that was trained with anchor_kl and either)"
            )
        start_step = self.global_step
        iteration = self.start_iteration - 1
        # total_steps 0: the warm start only. The steps end the run, not an iteration count (a run resumed
        # with a larger steps_per_iter would otherwise find its iterations used up).
        iterations = itertools.count(self.start_iteration) if cfg.total_steps > 0 else range(0)
        for iteration in iterations:
            if self.global_step >= cfg.total_steps:
                break
            if cfg.anneal_lr:
                self.optimizer.param_groups[0]["lr"] = self.lr_fraction(iteration) * cfg.learning_rate
            ro = self.collect_rollout()
            self.global_step += len(ro)
            stats = self.update(ro)
            self.take_snapshot(iteration)
            self.sps = (self.global_step - start_step) / (time.time() - start_time)
            self.log_iteration(iteration, ro, stats)
            self.scalars({"charts/cpu_seconds": self._count_cpu()})
            if cfg.eval_interval and iteration % cfg.eval_interval == 0 and cfg.eval_games:
                self.evaluate(iteration, cfg.eval_games)
                if self.bar is None:
                    self.log(f"eval step {self.global_step}: {self._winrates()}")
                self.keep_if_best(iteration)
            if cfg.checkpoint_interval and iteration % cfg.checkpoint_interval == 0:
                self.save_checkpoint(os.path.join(self.run_dir, f"checkpoint_{self.global_step}.pt"), iteration)
                self.save_checkpoint(os.path.join(self.run_dir, "checkpoint.pt"), iteration)
        # ``iteration``: the loop counter at the stop; it seeds the final evaluation and is stored for --resume
        trained = self.global_step - start_step
        msg = (
            f"trained {trained} steps in this run, {self.global_step} in all (total_steps={cfg.total_steps}; "
            "a step is one stored learner decision; training ends with the iteration that reaches total_steps)"
        )
        if cfg.final_eval_games:
            self.evaluate(iteration + 1, cfg.final_eval_games)
            msg += (
                f"\nfinal ({self.global_step} steps, {self.sps:.0f} steps/s, {(time.time() - wall_start) / 60:.1f} min "
                f"in all): win rate {self._winrates(', ')} "
                f"({cfg.final_eval_games} games each, seats alternated, a shared win among k winners counts 1/k)"
            )
            self.keep_if_best(iteration)
        if self.best is not None:
            msg += (
                f"\nbest.pt: step {self.best['step']}, win rate {self.best['winrate']:.3f} against "
                f"{self.best['opponent']} (the best evaluation of the run)"
            )
        self.log(msg)
        return self.save_checkpoint(os.path.join(self.run_dir, "checkpoint.pt"), iteration)
