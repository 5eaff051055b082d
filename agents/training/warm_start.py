"""The PPO trainer's warm start (``bc_games > 0``): behaviour cloning of the config's ``baseline``.

Policy: cross-entropy on its moves (``bc_epsilon`` random moves are played, not learned); value: the
discounted return under the training rewards; ``bc_epochs`` passes of size-sorted minibatches of 256
at ``bc_learning_rate`` (``bc_anneal_lr``: to zero). Decisions are kept compact (``GameAdapter.compact``).
"""

from __future__ import annotations

import math
import time

import numpy as np
import torch

from agents.networks.base import MaskedCategorical
from agents.training.adapters import GameAdapter
from agents.training.config import TrainConfig
from agents.training.rollout import gradient_step, sorted_minibatches
from kardinal_env.core.rewards import ShapingTracker, terminal_rewards

__all__ = ["warm_start"]


class _Progress:
    """A tqdm bar, or log lines at every tenth when bars are off."""

    def __init__(self, total: int, desc: str, enabled: bool, log):
        self.total, self.desc, self.log, self.n = total, desc, log, 0
        self.bar = None
        self.step = max(1, total // 10)
        if enabled and total > 0:
            from tqdm import tqdm  # type: ignore[import-untyped]

            self.bar = tqdm(total=total, desc=desc, unit="", dynamic_ncols=True, leave=False)

    def update(self) -> None:
        self.n += 1
        if self.bar is not None:
            self.bar.update(1)
        elif self.n % self.step == 0 or self.n == self.total:
            self.log(f"{self.desc}: {self.n}/{self.total}")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def warm_start(net, cfg: TrainConfig, adapter: GameAdapter, rng_py, rng, log=print) -> dict:
    """Behaviour cloning of the config's ``baseline`` (see the module docstring); returns statistics."""
    data: dict[str, list] = {"decision": [], "action": [], "ret": []}
    shaping = ShapingTracker(cfg.chip_shaping, cfg.score_shaping)
    t0 = time.time()
    progress = _Progress(cfg.bc_games, f"warm start: {cfg.baseline} games", cfg.progress, log)
    for _ in range(cfg.bc_games):
        game = adapter.new_game(rng)
        stored: dict[int, list] = {}  # seat -> its stored decisions' [buffer index, reward]
        while not game.is_over:
            seat = game.current_player
            codes = adapter.legal(game)
            if rng_py.random() < cfg.bc_epsilon:
                code = codes[rng_py.randrange(len(codes))]
                d = None
            else:
                code = adapter.baseline_move(cfg.baseline, game, rng_py)
                d = adapter.prepare(game) if len(codes) > 1 else None
            shaping.before(game, seat)
            adapter.apply(game, code)
            r = shaping.reward(game, seat)
            if d is not None:
                i = len(data["action"])
                data["decision"].append(adapter.compact(d))
                data["action"].append(adapter.stored_action(d, code))
                data["ret"].append(0.0)
                stored.setdefault(seat, []).append([i, r])
            elif stored.get(seat):  # credit to the seat's last stored decision
                stored[seat][-1][1] += r
        final = terminal_rewards(game, cfg.reward)
        for seat, items in stored.items():
            g = final[seat]
            for it in reversed(items):
                g = it[1] + (g if it is items[-1] else cfg.gamma * g)
                data["ret"][it[0]] = g
        progress.update()
    progress.close()
    t_gen = time.time() - t0
    n = len(data["action"])
    log(f"warm start: {cfg.bc_games} {cfg.baseline} games, {n} decisions ({t_gen:.0f}s)")
    opt = torch.optim.Adam(net.parameters(), lr=cfg.bc_learning_rate, eps=1e-5)
    areas = np.array([adapter.size(d) for d in data["decision"]])
    mb = 256
    net.train()
    acc: list[float] = []
    n_chunks = math.ceil(n / mb)
    total_updates, updates = max(1, cfg.bc_epochs * n_chunks), 0
    progress = _Progress(cfg.bc_epochs * n_chunks, "warm start: training minibatches", cfg.progress, log)
    for epoch in range(cfg.bc_epochs):
        acc = []
        for idx in sorted_minibatches(rng, areas, mb):
            ret = torch.tensor([data["ret"][i] for i in idx], dtype=torch.float32)
            logits, value, mask, actions = adapter.forward(
                net, [data["decision"][i] for i in idx], [data["action"][i] for i in idx]
            )
            dist = MaskedCategorical(logits, mask)
            loss = -dist.log_prob(actions).mean() + 0.5 * ((value - ret) ** 2).mean()
            if cfg.bc_anneal_lr:  # linearly to zero over the warm start's updates
                for group in opt.param_groups:
                    group["lr"] = cfg.bc_learning_rate * (1.0 - updates / total_updates)
            gradient_step(opt, loss, net, 1.0)
            updates += 1
            acc.append((dist.mode() == actions).float().mean().item())
            progress.update()
        log(f"warm start epoch {epoch + 1}: {n} {cfg.baseline} decisions, accuracy {np.mean(acc):.3f}")
    progress.close()
    return {
        "decisions": n,
        "accuracy": float(np.mean(acc)) if acc else 0.0,
        "seconds": time.time() - t0,
        "generate_seconds": t_gen,
    }
