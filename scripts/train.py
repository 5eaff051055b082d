"""Self-play PPO for Kardinal, CleanRL style: one file, a dataclass of arguments, one top-to-bottom loop.

Usage::

    .venv/bin/python scripts/train.py --config configs/default.yaml
    .venv/bin/python scripts/train.py --config configs/default.yaml --set total_steps=2000 --set run_name=smoke
    .venv/bin/python scripts/train.py --resume runs/default/checkpoint.pt --set total_steps=600000

Every ``Args`` field can be set in the YAML preset, with ``--set key=value`` (repeatable) or with
``--key value`` (later wins: YAML, then ``--set``, then flags). With ``--resume`` the checkpoint's
config is the base and the overrides apply on top.

**Self-play.** One shared policy/value network (:class:`agents.network.KardinalNet`) plays every
seat. ``num_envs`` games run in lockstep; each round, every unfinished game makes one decision, and
the decisions of all games that the learner controls go through one batched forward pass on crops.
Decisions with a single legal move are played without the network and are not stored.

**Opponents.** When a game starts, with probability ``greedy_share`` one seat (2 players: one of
the two, chosen at random; more players: all seats but one) is played by the greedy baseline, with
probability ``pool_share`` by a frozen past snapshot of the network (the pool holds the last
``pool_size`` snapshots, one taken every ``snapshot_interval`` iterations; snapshots sample from their
policy), with probability ``random_share`` by the random agent; otherwise the learner plays every
seat. Opponent decisions are never trained on.

**Rewards and advantages.** Each learner seat has its own trajectory: its decisions in order.
A decision's reward is what the seat earned by it (plus by its following forced moves): ``chip_shaping``
per chip it took, ``score_shaping`` times the change of (its projected final score − the best other
projected score) its move caused (projection: chips held + own colours' leftovers + the best colour
once more, i.e. the final score if the game ended now); at the end every learner seat gets the
terminal reward (``win_loss``: +1 win, −1 loss, shared wins +1; ``margin``: clip(margin/20, −1, 1))
on its last decision. GAE runs over each seat's own decisions (never over the interleaved sequence);
each rollout collects whole games, so no bootstrapping is needed.

**Logging.** TensorBoard in ``runs/{run_name}/`` with CleanRL's tags (charts/episodic_return,
charts/SPS, charts/learning_rate, losses/*) plus ``eval/winrate_vs_random`` and
``eval/winrate_vs_greedy`` (greedy argmax policy, seats alternated, a shared win counts one half)
every ``eval_interval`` iterations; a tqdm bar shows steps/s and the latest win rates.

**Checkpoints.** ``runs/{run_name}/checkpoint.pt`` (latest) and ``checkpoint_{step}.pt`` every
``checkpoint_interval`` iterations: ``model`` (state_dict), ``model_config``, ``config`` (all Args),
``env`` ("kardinal_v0"), ``step``, ``iteration``, ``revision`` (git HEAD or "unknown"), plus the
optimizer, the opponent pool and the random states for ``--resume``. Only tensors and plain Python
values: they load with ``torch.load(path, weights_only=True)``.

A *step* is one stored learner decision (env steps of the learner; opponent and forced moves are not
counted).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from agents.greedy import greedy_code  # noqa: E402
from agents.network import KardinalNet, MaskedCategorical, collate, crop_to_padded, full_to_crop  # noqa: E402
from agents.ppo_agent import policy_step, prepare  # noqa: E402
from agents.rewards import projected_margins, terminal_rewards  # noqa: E402
from kardinal_env.actions import ActionCodec  # noqa: E402
from kardinal_env.engine import Game  # noqa: E402
from kardinal_env.observation import ObservationEncoder  # noqa: E402
from kardinal_env.rules import Rules  # noqa: E402

ENV_VERSION = "kardinal_v0"


@dataclass
class Args:
    exp_name: str = "ppo_selfplay"
    run_name: str = ""  # default: {exp_name}__{seed}
    runs_dir: str = "runs"
    seed: int = 1
    torch_threads: int = 1
    deterministic: bool = True
    # game
    players: int = 2
    preset: str = "english"
    # rollout
    total_steps: int = 200_000
    num_envs: int = 32  # games in lockstep
    steps_per_iter: int = 2048  # learner decisions per rollout (whole games, so a little more)
    crop_margin: int = 1
    # rewards
    reward: str = "win_loss"  # or "margin"
    chip_shaping: float = 0.0
    score_shaping: float = 0.0
    # opponents
    greedy_share: float = 0.0
    pool_share: float = 0.0
    random_share: float = 0.0
    pool_size: int = 5
    snapshot_interval: int = 10
    # optional warm start: imitate the greedy baseline before PPO (0 games: off)
    bc_games: int = 0
    bc_epsilon: float = 0.1  # share of random moves in the imitation games (more varied positions)
    bc_epochs: int = 2
    bc_learning_rate: float = 1e-3
    # PPO
    learning_rate: float = 5e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 8
    update_epochs: int = 2
    bucket_minibatches: bool = True  # minibatches of similar crop size (less padding)
    norm_adv: bool = True
    clip_coef: float = 0.2
    clip_vloss: bool = False
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float = 0.0  # 0: off
    # network
    channels: int = 32
    blocks: int = 2
    hidden: int = 64
    # evaluation, checkpoints, output
    eval_interval: int = 10  # iterations
    eval_games: int = 40
    final_eval_games: int = 100
    checkpoint_interval: int = 50
    track: bool = True
    progress: bool = True


# ---------------------------------------------------------------------- configuration
def _coerce(field: dataclasses.Field, value):
    if isinstance(value, str):
        if field.type in ("bool", bool):
            return value.lower() in ("1", "true", "yes", "on")
        if field.type in ("int", int):
            return int(float(value))
        if field.type in ("float", float):
            return float(value)
        return value
    if field.type in ("float", float) and isinstance(value, int):
        return float(value)
    return value


def make_args(base: dict, overrides: dict) -> Args:
    fields = {f.name: f for f in dataclasses.fields(Args)}
    values = {}
    for source in (base, overrides):
        for k, v in source.items():
            if k not in fields:
                raise SystemExit(f"unknown config key {k!r} (known: {', '.join(fields)})")
            values[k] = _coerce(fields[k], v)
    return Args(**values)


def parse_cli(argv=None):
    p = argparse.ArgumentParser(description="Self-play PPO for Kardinal (see the module docstring).")
    p.add_argument("--config", help="YAML preset (configs/*.yaml)")
    p.add_argument("--resume", help="checkpoint to resume from")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a config key")
    for f in dataclasses.fields(Args):
        p.add_argument(f"--{f.name}", dest=f"flag_{f.name}", default=None, help=argparse.SUPPRESS)
    ns = p.parse_args(argv)
    overrides = {}
    for item in ns.set:
        if "=" not in item:
            raise SystemExit(f"--set expects KEY=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        overrides[k.strip()] = yaml.safe_load(v)
    for f in dataclasses.fields(Args):
        v = getattr(ns, f"flag_{f.name}")
        if v is not None:
            overrides[f.name] = yaml.safe_load(v)
    base = {}
    if ns.config:
        with open(ns.config) as fh:
            base = yaml.safe_load(fh) or {}
    return ns, base, overrides


def git_revision() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=os.path.dirname(os.path.abspath(__file__)),
            capture_output=True, text=True, timeout=10,
        )
        return out.stdout.strip() or "unknown" if out.returncode == 0 else "unknown"
    except Exception:
        return "unknown"


def gae(rewards: np.ndarray, values: np.ndarray, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE over one seat's complete trajectory (the last decision is terminal). Returns (adv, returns)."""
    T = len(rewards)
    adv = np.zeros(T, dtype=np.float32)
    last = 0.0
    for t in reversed(range(T)):
        terminal = t + 1 == T
        next_value = 0.0 if terminal else values[t + 1]
        delta = rewards[t] + gamma * next_value - values[t]
        last = delta + (0.0 if terminal else gamma * lam * last)
        adv[t] = last
    return adv, adv + np.asarray(values, dtype=np.float32)


def per_seat_gae(seats, rewards, values, terminal, gamma: float, lam: float):
    """Advantages and returns of one finished game's stored decisions, given in game order (seats
    interleaved). ``rewards[i]`` is what decision ``i`` earned for its own seat; ``terminal[seat]`` is
    added to that seat's last decision. GAE runs over each seat's own decisions separately."""
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


# ---------------------------------------------------------------------- opponents and evaluation
class Slot:
    """One game in the lockstep batch and who controls each seat."""

    __slots__ = ("game", "control", "traj", "pending", "returns")

    def __init__(self, game, control):
        self.game = game
        self.control = control  # per seat: "learner", "greedy", "random" or ("pool", index)
        self.traj = {s: [] for s, c in enumerate(control) if c == "learner"}  # buffer indices
        self.pending = {s: 0.0 for s in self.traj}  # rewards earned before the seat's first decision
        self.returns = {s: 0.0 for s in self.traj}


def play_round(slots, controllers, encoder, codec, margin, rng_py, generator, apply_move=None, record=None):
    """Every unfinished slot makes one decision. ``controllers`` maps a control key (anything but
    "greedy"/"random") to ``(net, greedy_flag)``; decisions of the same key share one forward pass.
    ``record(slot, decision, crop_action, logprob, value)`` is called for "learner" decisions just
    before the move is applied; ``apply_move(slot, seat, code)`` applies every move (default: the
    engine's ``apply_legal_code``)."""
    if apply_move is None:
        apply_move = _plain_apply
    groups: dict = {}
    for slot in slots:
        game = slot.game
        if game.is_over:
            continue
        seat = game.current_player
        codes = game.legal_move_codes()
        ctl = slot.control[seat]
        if len(codes) == 1:
            apply_move(slot, seat, codes[0])
        elif ctl == "greedy":
            apply_move(slot, seat, greedy_code(game, rng_py))
        elif ctl == "random":
            apply_move(slot, seat, codes[rng_py.randrange(len(codes))])
        else:
            groups.setdefault(ctl, []).append((slot, prepare(game, encoder, codec, margin)))
    for key, items in groups.items():
        net, greedy = controllers[key]
        decisions = [d for _, d in items]
        crop_a, full_a, logp, values = policy_step(net, decisions, greedy=greedy, generator=generator)
        for i, (slot, d) in enumerate(items):
            if key == "learner" and record is not None:
                record(slot, d, int(crop_a[i]), float(logp[i]), float(values[i]))
            apply_move(slot, d.seat, codec.decode_code(int(full_a[i]), d.seat))


def _plain_apply(slot, seat, code):
    slot.game.apply_legal_code(code)


def evaluate(net, rules, encoder, codec, opponent: str, games: int, seed: int, margin: int = 1) -> float:
    """Win rate of the greedy (argmax) policy against ``opponent`` ("greedy" or "random"), seats
    alternated, shared wins counting one half; all games in lockstep."""
    n = rules.players
    if games <= 0:
        return float("nan")
    slots = []
    for i in range(games):
        seat = i % n
        control = [opponent] * n
        control[seat] = "net"
        slots.append(Slot(Game(rules), control))
    rng_py = random.Random(seed)
    controllers = {"net": (net, True)}
    while any(not s.game.is_over for s in slots):
        play_round(slots, controllers, encoder, codec, margin, rng_py, None)
    score = 0.0
    for i, s in enumerate(slots):
        winners = s.game.winners()
        if i % n in winners:
            score += 1.0 / len(winners)
    return score / games


def warm_start(net, args, rules, encoder, codec, rng_py, rng, log=print) -> dict:
    """Behaviour cloning of the greedy baseline (policy: cross-entropy on its moves; value: the
    discounted per-seat return of those games with the training rewards). Returns statistics."""
    data = {"spatial": [], "scalars": [], "mask": [], "action": [], "ret": []}
    t0 = time.time()
    for _ in range(args.bc_games):
        game = Game(rules)
        seq = []  # (buffer index, seat, reward)
        while not game.is_over:
            seat = game.current_player
            codes = game.legal_move_codes()
            if rng_py.random() < args.bc_epsilon:
                code = codes[rng_py.randrange(len(codes))]
                d = None
            else:
                code = greedy_code(game, rng_py)
                d = prepare(game, encoder, codec, args.crop_margin) if len(codes) > 1 else None
            before = projected_margins(game, rules)[seat] if args.score_shaping else 0.0
            chips = sum(game._held[seat])
            game.apply_legal_code(code)
            r = 0.0
            if args.score_shaping:
                r += args.score_shaping * (projected_margins(game, rules)[seat] - before)
            if args.chip_shaping and not game.is_over:
                r += args.chip_shaping * (sum(game._held[seat]) - chips)
            if d is not None:
                i = len(data["action"])
                data["spatial"].append(d.spatial)
                data["scalars"].append(d.scalars)
                data["mask"].append(d.mask)
                data["action"].append(full_to_crop(codec.encode_code(code, seat), d.box, codec.window))
                data["ret"].append(0.0)
                seq.append([i, seat, r])
            elif seq:  # credit to the seat's last stored decision
                for item in reversed(seq):
                    if item[1] == seat:
                        item[2] += r
                        break
        final = terminal_rewards(game, rules, args.reward)
        for seat in range(rules.players):
            items = [it for it in seq if it[1] == seat]
            g = final[seat]
            for it in reversed(items):
                g = it[2] + (g if it is items[-1] else args.gamma * g)
                data["ret"][it[0]] = g
    t_gen = time.time() - t0
    n = len(data["action"])
    opt = torch.optim.Adam(net.parameters(), lr=args.bc_learning_rate, eps=1e-5)
    areas = np.array([sp.shape[1] * sp.shape[2] for sp in data["spatial"]])
    mb = 256
    net.train()
    acc = []
    for epoch in range(args.bc_epochs):
        order = np.lexsort((rng.random(n), areas))
        chunks = [order[i : i + mb] for i in range(0, n, mb)]
        acc = []
        for k in rng.permutation(len(chunks)):
            idx = chunks[k]
            sp, sc, valid, mask = collate([data["spatial"][i] for i in idx], [data["scalars"][i] for i in idx],
                                          [data["mask"][i] for i in idx])
            H, W = sp.shape[2], sp.shape[3]
            actions = torch.tensor([crop_to_padded(data["action"][i], H, W, data["spatial"][i].shape[1],
                                                   data["spatial"][i].shape[2]) for i in idx])
            ret = torch.tensor([data["ret"][i] for i in idx], dtype=torch.float32)
            logits, value = net(sp, sc, valid)
            dist = MaskedCategorical(logits, mask)
            loss = -dist.log_prob(actions).mean() + 0.5 * ((value - ret) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            acc.append((dist.mode() == actions).float().mean().item())
        log(f"warm start epoch {epoch + 1}: {n} greedy decisions, accuracy {np.mean(acc):.3f}")
    return {"decisions": n, "accuracy": float(np.mean(acc)) if acc else 0.0, "seconds": time.time() - t0,
            "generate_seconds": t_gen}


# ---------------------------------------------------------------------- main
def main(argv=None):
    ns, base, overrides = parse_cli(argv)
    ckpt = None
    if ns.resume:
        ckpt = torch.load(ns.resume, weights_only=True, map_location="cpu")
        base = {**ckpt["config"], **base}
    args = make_args(base, overrides)
    if not args.run_name:
        args.run_name = f"{args.exp_name}__{args.seed}"
    run_dir = os.path.join(args.runs_dir, args.run_name)
    os.makedirs(run_dir, exist_ok=True)

    torch.set_num_threads(max(1, args.torch_threads))
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    if args.deterministic:
        torch.use_deterministic_algorithms(True)
    rng = np.random.default_rng(args.seed)
    rng_py = random.Random(args.seed)
    generator = torch.Generator().manual_seed(args.seed)

    rules = Rules(players=args.players, preset=args.preset)
    encoder = ObservationEncoder(rules)
    codec = ActionCodec(rules)
    n = rules.players

    net = KardinalNet(args.channels, args.blocks, args.hidden)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, eps=1e-5)
    pool: list[dict] = []  # state_dicts of frozen snapshots
    global_step, start_iteration = 0, 1
    if ckpt is not None:
        net.load_state_dict(ckpt["model"])
        if "optimizer" in ckpt:
            optimizer.load_state_dict(ckpt["optimizer"])
        pool = list(ckpt.get("pool", []))
        global_step = int(ckpt["step"])
        start_iteration = int(ckpt["iteration"]) + 1
        if "rng" in ckpt:
            rng.bit_generator.state = ckpt["rng"]["numpy"]
            rng_py.setstate(_tuple_state(ckpt["rng"]["python"]))
            generator.set_state(ckpt["rng"]["torch"])
            torch.set_rng_state(ckpt["rng"]["torch_global"])
    pool_nets = []
    for sd in pool:
        pn = KardinalNet(args.channels, args.blocks, args.hidden)
        pn.load_state_dict(sd)
        pool_nets.append(pn.eval())

    writer = None
    if args.track:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(run_dir)
        writer.add_text(
            "hyperparameters",
            "|param|value|\n|-|-|\n" + "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(args).items()),
        )
    revision = git_revision()
    num_iterations = max(1, math.ceil(args.total_steps / args.steps_per_iter))
    latest = {"random": float("nan"), "greedy": float("nan")}
    bar = None
    if args.progress:
        from tqdm import tqdm

        bar = tqdm(total=args.total_steps, initial=min(global_step, args.total_steps), unit="step", dynamic_ncols=True)

    def save(path, iteration):
        torch.save(
            {
                "model": net.state_dict(),
                "model_config": dict(net.config),
                "config": dataclasses.asdict(args),
                "env": ENV_VERSION,
                "rules": rules.to_dict(),
                "step": int(global_step),
                "iteration": int(iteration),
                "revision": revision,
                "optimizer": optimizer.state_dict(),
                "pool": pool,
                "winrates": {k: float(v) for k, v in latest.items()},
                "rng": {
                    "numpy": rng.bit_generator.state,
                    "python": _list_state(rng_py.getstate()),
                    "torch": generator.get_state(),
                    "torch_global": torch.get_rng_state(),
                },
            },
            path,
        )

    def run_eval(iteration, games):
        net.eval()
        for opp in ("random", "greedy"):
            latest[opp] = evaluate(net, rules, encoder, codec, opp, games, args.seed + 1000 * iteration, args.crop_margin)
            if writer:
                writer.add_scalar(f"eval/winrate_vs_{opp}", latest[opp], global_step)
        if bar is not None:
            bar.set_postfix(sps=f"{sps:.0f}", wr_random=f"{latest['random']:.2f}", wr_greedy=f"{latest['greedy']:.2f}")

    sps = 0.0
    start_time = wall_start = time.time()
    if ckpt is None and args.bc_games > 0:
        info = warm_start(net, args, rules, encoder, codec, rng_py, rng, log=bar.write if bar is not None else print)
        if writer:
            writer.add_scalar("warmstart/accuracy", info["accuracy"], 0)
            writer.add_scalar("warmstart/seconds", info["seconds"], 0)
        run_eval(0, args.eval_games)
        msg = f"after warm start ({info['seconds']:.0f}s): vs random {latest['random']:.3f} vs greedy {latest['greedy']:.3f}"
        bar.write(msg) if bar is not None else print(msg, flush=True)
        start_time = time.time()  # SPS measures the PPO loop (rollouts, updates, evaluations)
    start_step = global_step
    sps = 0.0
    iteration = start_iteration - 1
    for iteration in range(start_iteration, num_iterations + 1):
        if global_step >= args.total_steps:
            break
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate
        net.eval()

        # ------------------------------------------------------------ rollout: whole games
        buf = {"spatial": [], "scalars": [], "mask": [], "action": [], "logprob": [], "value": [], "reward": [], "seat": []}
        adv_all: list = []
        ret_all: list = []
        ep_returns, ep_lengths, opp_results = [], [], {"greedy": [], "pool": [], "random": []}

        def new_slot():
            control = ["learner"] * n
            u = rng.random()
            kind = None
            if u < args.greedy_share:
                kind = "greedy"
            elif u < args.greedy_share + args.pool_share and pool_nets:
                kind = ("pool", int(rng.integers(len(pool_nets))))
            elif u < args.greedy_share + args.pool_share + args.random_share:
                kind = "random"
            if kind is not None:
                keep = int(rng.integers(n))
                control = [kind] * n
                control[keep] = "learner"
            return Slot(Game(rules), control)

        def apply_move(slot, seat, code):
            game = slot.game
            learner_seat = seat in slot.traj
            if learner_seat and args.chip_shaping:
                before_chips = sum(game._held[seat])
            if learner_seat and args.score_shaping:
                before_margin = projected_margins(game, rules)[seat]
            game.apply_legal_code(code)
            if not learner_seat:
                return
            r = 0.0
            if args.chip_shaping and not game.is_over:  # leftovers taken at the end are not earned
                r += args.chip_shaping * (sum(game._held[seat]) - before_chips)
            if args.score_shaping:
                r += args.score_shaping * (projected_margins(game, rules)[seat] - before_margin)
            if r:
                traj = slot.traj[seat]
                if traj:
                    buf["reward"][traj[-1]] += r
                else:
                    slot.pending[seat] += r
                slot.returns[seat] += r

        def record(slot, d, crop_action, logprob, value):
            idx = len(buf["action"])
            buf["spatial"].append(d.spatial)
            buf["scalars"].append(d.scalars)
            buf["mask"].append(d.mask)
            buf["action"].append(crop_action)
            buf["logprob"].append(logprob)
            buf["value"].append(value)
            buf["reward"].append(slot.pending[d.seat])
            buf["seat"].append(d.seat)
            slot.pending[d.seat] = 0.0
            slot.traj[d.seat].append(idx)

        def finish(slot):
            game = slot.game
            final = terminal_rewards(game, rules, args.reward)
            winners = game.winners()
            terminal = {}
            for seat in slot.traj:
                slot.returns[seat] += final[seat]
                ep_returns.append(slot.returns[seat])
                terminal[seat] = final[seat] + slot.pending[seat]
            order = sorted(i for traj in slot.traj.values() for i in traj)  # buffer order = game order
            if order:
                adv, ret = per_seat_gae(
                    [buf["seat"][i] for i in order], [buf["reward"][i] for i in order],
                    [buf["value"][i] for i in order], terminal, args.gamma, args.gae_lambda,
                )
                for j, i in enumerate(order):
                    adv_all[i] = adv[j]
                    ret_all[i] = ret[j]
            ep_lengths.append(game.move_count)
            opp = [c for c in slot.control if c != "learner"]
            if opp:
                kind = opp[0] if isinstance(opp[0], str) else "pool"
                seat = next(iter(slot.traj))
                opp_results[kind].append(1.0 / len(winners) if seat in winners else 0.0)

        controllers = {"learner": (net, False)}
        for i, pn in enumerate(pool_nets):
            controllers[("pool", i)] = (pn, False)
        slots = [new_slot() for _ in range(args.num_envs)]
        t_roll = time.time()
        while slots:
            play_round(slots, controllers, encoder, codec, args.crop_margin, rng_py, generator, apply_move, record)
            adv_all.extend([0.0] * (len(buf["action"]) - len(adv_all)))
            ret_all.extend([0.0] * (len(buf["action"]) - len(ret_all)))
            still = []
            for slot in slots:
                if slot.game.is_over:
                    finish(slot)
                    if len(buf["action"]) < args.steps_per_iter:
                        still.append(new_slot())
                else:
                    still.append(slot)
            slots = still
        t_roll = time.time() - t_roll
        batch = len(buf["action"])
        global_step += batch

        # ------------------------------------------------------------ PPO update
        net.train()
        b_logprob = torch.tensor(buf["logprob"], dtype=torch.float32)
        b_value = torch.tensor(buf["value"], dtype=torch.float32)
        b_adv = torch.tensor(adv_all, dtype=torch.float32)
        b_ret = torch.tensor(ret_all, dtype=torch.float32)
        areas = np.array([sp.shape[1] * sp.shape[2] for sp in buf["spatial"]])
        mb_size = max(1, math.ceil(batch / args.num_minibatches))
        clipfracs = []
        t_upd = time.time()
        for _epoch in range(args.update_epochs):
            if args.bucket_minibatches:
                order = np.lexsort((rng.random(batch), areas))  # by crop size, random among equals
                chunks = [order[i : i + mb_size] for i in range(0, batch, mb_size)]
                chunks = [chunks[i] for i in rng.permutation(len(chunks))]
            else:
                order = rng.permutation(batch)
                chunks = [order[i : i + mb_size] for i in range(0, batch, mb_size)]
            for mb in chunks:
                sp, sc, valid, mask = collate(
                    [buf["spatial"][i] for i in mb], [buf["scalars"][i] for i in mb], [buf["mask"][i] for i in mb]
                )
                H, W = sp.shape[2], sp.shape[3]
                actions = torch.tensor([
                    crop_to_padded(buf["action"][i], H, W, buf["spatial"][i].shape[1], buf["spatial"][i].shape[2])
                    for i in mb
                ])
                mbt = torch.from_numpy(mb)
                logits, newvalue = net(sp, sc, valid)
                dist = MaskedCategorical(logits, mask)
                newlogprob = dist.log_prob(actions)
                entropy = dist.entropy()
                logratio = newlogprob - b_logprob[mbt]
                ratio = logratio.exp()
                with torch.no_grad():
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())
                mb_adv = b_adv[mbt]
                if args.norm_adv and len(mb) > 1:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                if args.clip_vloss:
                    v_unclipped = (newvalue - b_ret[mbt]) ** 2
                    v_clipped = b_value[mbt] + (newvalue - b_value[mbt]).clamp(-args.clip_coef, args.clip_coef)
                    v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - b_ret[mbt]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_ret[mbt]) ** 2).mean()
                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
                optimizer.step()
            if args.target_kl and approx_kl > args.target_kl:
                break
        t_upd = time.time() - t_upd
        y_pred, y_true = b_value.numpy(), b_ret.numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y

        # ------------------------------------------------------------ snapshots, logging, eval, checkpoints
        if (args.pool_share > 0) and iteration % args.snapshot_interval == 0:
            pool.append({k: v.detach().clone() for k, v in net.state_dict().items()})
            pn = KardinalNet(args.channels, args.blocks, args.hidden)
            pn.load_state_dict(pool[-1])
            pool_nets.append(pn.eval())
            if len(pool) > args.pool_size:
                pool.pop(0)
                pool_nets.pop(0)
        sps = (global_step - start_step) / (time.time() - start_time)
        if writer:
            writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
            writer.add_scalar("charts/episodic_return", float(np.mean(ep_returns)), global_step)
            writer.add_scalar("charts/episodic_length", float(np.mean(ep_lengths)), global_step)
            writer.add_scalar("charts/SPS", sps, global_step)
            writer.add_scalar("charts/rollout_seconds", t_roll, global_step)
            writer.add_scalar("charts/update_seconds", t_upd, global_step)
            for kind, res in opp_results.items():
                if res:
                    writer.add_scalar(f"charts/train_winrate_vs_{kind}", float(np.mean(res)), global_step)
            writer.add_scalar("losses/value_loss", v_loss.item(), global_step)
            writer.add_scalar("losses/policy_loss", pg_loss.item(), global_step)
            writer.add_scalar("losses/entropy", entropy_loss.item(), global_step)
            writer.add_scalar("losses/old_approx_kl", old_approx_kl.item(), global_step)
            writer.add_scalar("losses/approx_kl", approx_kl.item(), global_step)
            writer.add_scalar("losses/clipfrac", float(np.mean(clipfracs)), global_step)
            writer.add_scalar("losses/explained_variance", float(explained_var), global_step)
        if bar is not None:
            bar.update(min(batch, max(0, args.total_steps - bar.n)))
            bar.set_postfix(sps=f"{sps:.0f}", wr_random=f"{latest['random']:.2f}", wr_greedy=f"{latest['greedy']:.2f}")
        else:
            print(
                f"iter {iteration} step {global_step} sps {sps:.0f} return {np.mean(ep_returns):.3f} "
                f"entropy {entropy_loss.item():.3f} kl {approx_kl.item():.5f} ev {explained_var:.3f} "
                f"roll {t_roll:.1f}s upd {t_upd:.1f}s",
                flush=True,
            )
        if args.eval_interval and iteration % args.eval_interval == 0 and args.eval_games:
            run_eval(iteration, args.eval_games)
            if bar is None:
                print(f"eval step {global_step}: vs random {latest['random']:.3f} vs greedy {latest['greedy']:.3f}", flush=True)
        if args.checkpoint_interval and iteration % args.checkpoint_interval == 0:
            save(os.path.join(run_dir, f"checkpoint_{global_step}.pt"), iteration)
            save(os.path.join(run_dir, "checkpoint.pt"), iteration)

    if args.final_eval_games:
        run_eval(iteration + 1, args.final_eval_games)
        msg = (
            f"final ({global_step} steps, {sps:.0f} steps/s, {(time.time() - wall_start) / 60:.1f} min in all): win rate vs random {latest['random']:.3f}, "
            f"vs greedy {latest['greedy']:.3f} ({args.final_eval_games} games each, seats alternated)"
        )
        if bar is not None:
            bar.write(msg)
        else:
            print(msg, flush=True)
    save(os.path.join(run_dir, "checkpoint.pt"), iteration)
    if bar is not None:
        bar.close()
    if writer:
        writer.close()
    return os.path.join(run_dir, "checkpoint.pt")


def _list_state(state):
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _tuple_state(state):
    version, internal, gauss = state
    return (version, tuple(internal), gauss)


if __name__ == "__main__":
    main()
