"""The PPO trainer's self-play: one iteration's rollout, the seats' players, rewards and per-seat
advantages; and its evaluation games (:func:`evaluate_policy`).

Rollouts run in a :class:`kardinal_env.vector.VectorEnv` of ``num_envs`` games (one decision per game a ``step``; the
learner's in one forward pass on its seat's own observation; baselines read a copy of the game); single legal moves are
not stored; finished slots restart until the iteration has its steps (``tests/test_rollout.py`` compares it with the
game-by-game :func:`play_round`). A new game has, with probability ``greedy_share``, the ``baseline`` in one seat (2
players) or all but one; with ``pool_share`` a frozen snapshot (the last ``pool_size``, one every ``snapshot_interval``
iterations); with ``random_share`` random; else the learner in every seat. A decision earns its seat's shaping up to its
next one (:mod:`kardinal_env.core.rewards`), the last one the terminal reward; GAE runs per seat over whole games.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
import torch

from agents.training.adapters import GameAdapter
from kardinal_env.core.rewards import win_share

__all__ = ["Rollout", "Slot", "play_round", "evaluate_policy", "gae", "per_seat_gae", "sorted_minibatches"]

_BUFFER_KEYS = ("decision", "action", "logprob", "value", "reward", "seat")


def gae(rewards: np.ndarray, values: np.ndarray, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE over one seat's complete trajectory (the last decision is terminal). Returns (adv, returns)."""
    T = len(rewards)
    adv = np.zeros(T, dtype=np.float32)
    last = 0.0
    for t in reversed(range(T)):
        next_value = values[t + 1] if t + 1 < T else 0.0
        last = rewards[t] + gamma * next_value - values[t] + gamma * lam * last
        adv[t] = last
    return adv, adv + np.asarray(values, dtype=np.float32)


def per_seat_gae(seats, rewards, values, terminal, gamma: float, lam: float):
    """Advantages and returns of a game's decisions in order: GAE per seat, ``terminal`` on its last."""
    seats = np.asarray(seats)
    rewards = np.asarray(rewards, dtype=np.float32).copy()
    values = np.asarray(values, dtype=np.float32)
    adv = np.zeros(len(seats), dtype=np.float32)
    ret = np.zeros(len(seats), dtype=np.float32)
    for seat in np.unique(seats):
        idx = np.flatnonzero(seats == seat)
        rewards[idx[-1]] += terminal[int(seat)]
        a, r = gae(rewards[idx], values[idx], gamma, lam)
        adv[idx] = a
        ret[idx] = r
    return adv, ret


def gradient_step(optimizer, loss, net, max_grad_norm: float) -> None:
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
    optimizer.step()


def sorted_minibatches(rng: np.random.Generator, sizes: np.ndarray, size: int) -> list[np.ndarray]:
    """Minibatches of ``size`` indices sorted by ``sizes`` (random among equals: less padding), in random order."""
    order = np.lexsort((rng.random(len(sizes)), sizes))
    chunks = [order[i : i + size] for i in range(0, len(order), size)]
    return [chunks[i] for i in rng.permutation(len(chunks))]


class Slot:
    """One game in the lockstep batch and who controls each seat."""

    __slots__ = ("game", "control", "traj", "pending", "returns")

    def __init__(self, game, control):
        self.game = game
        self.control = control  # per seat: "learner", "random", a baseline's name or ("pool", index)
        self.traj = {s: [] for s, c in enumerate(control) if c == "learner"}  # buffer indices
        self.pending = {s: 0.0 for s in self.traj}  # rewards earned before the seat's first decision
        self.returns = {s: 0.0 for s in self.traj}


def play_round(slots, controllers, adapter: GameAdapter, rng_py, generator, apply_move=None, record=None):
    """Every unfinished slot decides once; see :meth:`Rollout.actions` (``record``, ``apply_move``: hooks)."""
    apply_move = apply_move or (lambda slot, seat, move: adapter.apply(slot.game, move))

    groups: dict = {}
    for slot in slots:
        game = slot.game
        if game.is_over:
            continue
        seat = game.current_player
        codes = adapter.legal(game)
        ctl = slot.control[seat]
        if len(codes) == 1:
            apply_move(slot, seat, codes[0])
        elif ctl == "random":
            apply_move(slot, seat, codes[rng_py.randrange(len(codes))])
        elif isinstance(ctl, str) and ctl in adapter.wiring.baselines:
            apply_move(slot, seat, adapter.baseline_move(ctl, game, rng_py))
        else:
            groups.setdefault(ctl, []).append((slot, adapter.prepare(game)))
    for key, items in groups.items():
        net, greedy = controllers[key]
        decisions = [d for _, d in items]
        stored, moves, logp, values = adapter.policy_step(net, decisions, greedy=greedy, generator=generator)
        for i, (slot, d) in enumerate(items):
            if key == "learner" and record is not None:
                record(slot, d, int(stored[i]), float(logp[i]), float(values[i]))
            apply_move(slot, d.seat, moves[i])


def evaluate_policy(net, adapter: GameAdapter, opponent: str, games: int, seed: int) -> float:
    """Win rate of the argmax policy against ``opponent`` in the other seats, seats rotated (NaN for no games)."""
    n = adapter.rules.players
    if games <= 0:
        return float("nan")
    slots = [
        Slot(adapter.eval_game(seed, i), ["net" if s == i % n else opponent for s in range(n)]) for i in range(games)
    ]
    rng_py = random.Random(seed)
    while any(not s.game.is_over for s in slots):
        play_round(slots, {"net": (net, True)}, adapter, rng_py, None)
    return sum(win_share(winners=s.game.winners(), seat=i % n) for i, s in enumerate(slots)) / games


class Rollout:
    """One iteration's rollout: the buffer and each finished game's per-seat advantages."""

    def __init__(self, trainer: Any):  # an agents.training.trainer.Trainer (not imported: no import cycle)
        self.t = trainer
        self.buf: dict[str, list] = {k: [] for k in _BUFFER_KEYS}
        self.adv: list = []
        self.ret: list = []
        self.ep_returns: list = []
        self.ep_lengths: list = []
        self.opp_results: dict = {trainer.config.baseline: [], "pool": [], "random": []}
        self.seconds = 0.0

    def __len__(self) -> int:
        return len(self.buf["action"])

    def new_slot(self) -> Slot:
        """Who plays the seats of a new game, drawn from the opponent shares."""
        cfg, rng, n = self.t.config, self.t.rng, self.t.rules.players
        u = rng.random()
        kind: str | tuple[str, int] | None = None
        if u < cfg.greedy_share:
            kind = cfg.baseline
        elif u < cfg.greedy_share + cfg.pool_share and self.t.pool_nets:
            kind = ("pool", int(rng.integers(len(self.t.pool_nets))))
        elif u < cfg.greedy_share + cfg.pool_share + cfg.random_share:
            kind = "random"
        control: list = ["learner" if kind is None else kind] * n
        if kind is not None:
            control[int(rng.integers(n))] = "learner"
        return Slot(None, control)

    def record(self, slot: Slot, d, stored_action: int, logprob: float, value: float) -> None:
        """Store a learner decision (called just before its move is played)."""
        slot.traj[d.seat].append(len(self))
        for key, item in zip(_BUFFER_KEYS, (d, stored_action, logprob, value, slot.pending[d.seat], d.seat)):
            self.buf[key].append(item)
        slot.pending[d.seat] = 0.0

    def earn(self, slot: Slot, rewards: np.ndarray) -> None:
        """A step's rewards for ``slot``'s learner seats: to each seat's last stored decision, else ``pending``."""
        for seat, traj in slot.traj.items():
            r = float(rewards[seat])
            if not r:
                continue
            if traj:
                self.buf["reward"][traj[-1]] += r
            else:
                slot.pending[seat] += r
            slot.returns[seat] += r

    def finish(self, slot: Slot, info: dict) -> None:
        """A game is over (``info``: its ``final_info``): per-seat GAE of its decisions, episode statistics."""
        cfg, buf = self.t.config, self.buf
        self.ep_returns.extend(slot.returns.values())
        order = sorted(i for traj in slot.traj.values() for i in traj)  # buffer order = game order
        if order:
            adv, ret = per_seat_gae(
                [buf["seat"][i] for i in order],
                [buf["reward"][i] for i in order],
                [buf["value"][i] for i in order],
                slot.pending,  # the rewards since each seat's last decision (or of a seat with none: dropped)
                cfg.gamma,
                cfg.gae_lambda,
            )
            for j, i in enumerate(order):
                self.adv[i] = adv[j]
                self.ret[i] = ret[j]
        self.ep_lengths.append(info["move_count"])
        opp = [c for c in slot.control if c != "learner"]
        if opp:
            kind = opp[0] if isinstance(opp[0], str) else "pool"
            seat = next(iter(slot.traj))
            self.opp_results[kind].append(win_share(winners=info["winners"], seat=seat))

    def actions(self, env, slots: list[Slot | None], controllers: dict) -> np.ndarray:
        """Every game's next action (a done slot, ``None``: its first legal one); learner decisions recorded."""
        t = self.t
        adapter, rng_py = t.adapter, t.rng_py
        legal_ids = env.legal_actions()
        actions = np.empty(env.num_envs, dtype=np.int64)
        groups: dict = {}
        for i, slot in enumerate(slots):
            legal = legal_ids[i]
            seat = int(env.current_player[i])
            ctl = None if slot is None else slot.control[seat]
            if ctl is None or len(legal) == 1:
                actions[i] = legal[0]
            elif ctl == "random":
                actions[i] = legal[rng_py.randrange(len(legal))]
            elif isinstance(ctl, str) and ctl in adapter.wiring.baselines:
                game = env.game(i)
                actions[i] = adapter.action_of(game, adapter.baseline_move(ctl, game, rng_py))
            else:
                game = env.game(i) if adapter.reads_game else None
                groups.setdefault(ctl, []).append((i, adapter.decision_of(env.observation[i], legal, seat, game)))
        for key, items in groups.items():
            net, greedy = controllers[key]
            decisions = [d for _, d in items]
            stored, ids, logp, values = adapter.policy_actions(net, decisions, greedy=greedy, generator=t.generator)
            for k, (i, d) in enumerate(items):
                if key == "learner":
                    slot = slots[i]
                    assert slot is not None
                    self.record(slot, d, int(stored[k]), float(logp[k]), float(values[k]))
                actions[i] = ids[k]
        return actions

    def run(self) -> Rollout:
        """Play until ``steps_per_iter`` steps are stored and every game in flight has finished."""
        t, cfg = self.t, self.t.config
        controllers: dict = {"learner": (t.net, False)}
        for i, pn in enumerate(t.pool_nets):
            controllers[("pool", i)] = (pn, False)
        env = t.vector_env()
        seeds = [int(t.rng.integers(2**31)) for _ in range(env.num_envs)] if t.adapter.spec.chance else None
        env.reset(seed=seeds)
        slots: list[Slot | None] = [self.new_slot() for _ in range(env.num_envs)]
        t0 = time.time()
        while any(slot is not None for slot in slots):
            out = env.step(self.actions(env, slots, controllers))
            self.adv.extend([0.0] * (len(self) - len(self.adv)))
            self.ret.extend([0.0] * (len(self) - len(self.ret)))
            for i, slot in enumerate(slots):
                if slot is None:
                    continue
                self.earn(slot, out.rewards[i])
                if out.terminated[i]:
                    self.finish(slot, out.info["final_info"][i])
                    slots[i] = self.new_slot() if len(self) < cfg.steps_per_iter else None
        self.seconds = time.time() - t0
        return self
