"""Search-based self-play (expert iteration; AlphaZero-style) for every registered game.

``algorithm: search`` selects this trainer; docs/training.md explains its options (``search``, ``teacher``,
``full_search_share``, ``greedy_share``, ``policy_play_share``, ``baseline_targets``, ...). The rest is the PPO
trainer's, so either trainer's checkpoints resume under both. ``num_envs`` games run at once (``puct``: in lockstep,
with ``noise_fraction`` × Dir(``dirichlet_alpha``) on a full search's root); the first ``temperature_moves`` of a game
draw their move by the visits, later ones take the most visited.

An example holds the decision, the searched moves' stored actions, the target visits ``** (1 / target_temperature)``
normalised and the value target (terminal reward + ``score_shaping`` × (final margin − margin at the decision)). Updates
draw ``ceil(new * sample_reuse / minibatch_size)`` minibatches (``bucket_minibatches``: :data:`BUCKET` at a time by
size) from a replay of the latest ``replay_size`` (not in checkpoints; ``replay_warmup``); loss: cross-entropy +
``vf_coef`` × ½ squared value error; ``anneal_lr`` to 0 at ``total_steps`` stored examples (the steps).
``selfplay_workers: N > 1`` spawned processes play each iteration (weights, their share, seeds from (``seed``, step,
worker): reproducible for a given N; the program needs the ``__main__`` guard); ``device``: where a copy of the network
is updated. Logs ``charts/{SPS, searched_decisions, game_length, selfplay_seconds, update_seconds, cpu_seconds}`` and
``losses/{policy_loss, policy_kl, value_loss, entropy}``.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import math
import multiprocessing
import os
import random
import re
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn as nn

from agents.networks.base import MaskedCategorical
from agents.networks.checkpoint import make_checkpoint
from agents.search.ismcts import ISMCTSAgent
from agents.search.mcts import MCTSAgent
from agents.search.puct import PUCTAgent
from agents.training.rollout import gradient_step
from agents.training.trainer import Trainer, TrainingError
from kardinal_env.core.rewards import projected_margins, terminal_rewards

__all__ = ["SearchTrainer", "Example", "SelfPlay"]

BUCKET = 8  # bucket_minibatches: minibatches drawn at once and sorted by crop size (SearchTrainer.minibatches)


@dataclass
class Example:
    """One full search: the decision, the searched moves' stored actions and visit shares, the value target."""

    decision: Any
    actions: np.ndarray  # int64 stored actions of the root's searched moves
    probs: np.ndarray  # float32 visit shares, summing to 1
    seat: int
    margin: float  # the seat's projected margin at the decision (the shaping potential)
    value: float = 0.0


@dataclass(slots=True)
class _Game:
    game: Any
    baseline_seats: frozenset[int] = frozenset()  # seats the config's baseline plays (greedy_share games)
    policy_play: bool = False  # the searching seats play the network's move (policy_play_share games)
    examples: list[Example] = field(default_factory=list)
    searched: int = 0  # decisions searched so far (the temperature schedule)
    length: int = 0  # moves played


@dataclass
class SelfPlay:
    """What one iteration of self-play produced."""

    examples: list[Example]
    games: int
    searched: int
    lengths: list[int]
    seconds: float
    cpu_seconds: float = 0.0  # CPU time of the worker processes that played them (selfplay_workers > 1)

    def __len__(self) -> int:
        return len(self.examples)


class _OnDevice(nn.Module):
    """``net`` on ``device``, taking the CPU tensors the adapters build (moved on the way in)."""

    def __init__(self, net: nn.Module, device: torch.device):
        super().__init__()
        self.net = net.to(device)
        self.device = device

    def forward(self, *inputs):
        return self.net(*(x.to(self.device) if isinstance(x, torch.Tensor) else x for x in inputs))


_WORKER: Any = None  # a self-play worker process's own SearchTrainer


def _worker_start(config) -> None:
    """A self-play worker's setup: its own trainer of the run's config (one process, the CPU, one thread)."""
    global _WORKER
    _WORKER = SearchTrainer(
        dataclasses.replace(config, selfplay_workers=1, device="cpu", torch_threads=1, track=False, progress=False)
    )


def _worker_collect(weights: dict, words: tuple[int, ...], steps: int, envs: int) -> SelfPlay:
    """One worker's share of an iteration's self-play (see SearchTrainer._collect_in_workers)."""
    worker = _WORKER
    start = time.process_time()
    worker.net.load_state_dict(weights)
    worker.reseed(words)
    worker.config = dataclasses.replace(worker.config, steps_per_iter=steps, num_envs=envs)
    played = worker.collect_rollout()
    played.cpu_seconds = time.process_time() - start
    return played


class SearchTrainer(Trainer):
    """Search-based self-play on one validated config (``algorithm: search``); see the module docstring."""

    def __init__(self, config, checkpoint: dict | None = None):
        super().__init__(config, checkpoint)
        cfg = self.config
        self.replay: collections.deque[Example] = collections.deque(maxlen=cfg.replay_size)
        agent_class = self.adapter.builder.agent_class()
        live = make_checkpoint(self.adapter.spec, self.rules, self.net, config=dataclasses.asdict(cfg))
        self.evaluator = agent_class.from_checkpoint_dict(live, self.net, name="learner")  # plays self.net
        self.teacher: Any = None  # search=network: the network whose policy is the target
        self._baseline_targets = re.compile(cfg.baseline_targets) if cfg.baseline_targets else None
        if cfg.search == "network":
            from agents import load_agent

            self.teacher = load_agent(cfg.teacher, game=self.adapter.spec)
        self._make_searches(cfg.seed)
        # update() trains a copy of self.net on cfg.device, copied from self.net first and back after
        device = torch.device(cfg.device)
        if device.type == "cuda":
            if not torch.cuda.is_available():
                raise TrainingError(f"device {cfg.device!r}: torch sees no GPU on this machine")
            if cfg.deterministic:  # cuBLAS refuses deterministic algorithms without a workspace setting
                os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        self.learner = _OnDevice(copy.deepcopy(self.net), device)
        state = self.optimizer.state_dict()
        self.optimizer = torch.optim.Adam(self.learner.parameters(), lr=cfg.learning_rate, eps=1e-5)
        self.optimizer.load_state_dict(state)  # a resumed run's moments, moved to the device
        self._workers: Any = None  # the self-play processes (selfplay_workers > 1), started at the first rollout

    def _make_searches(self, seed: int) -> None:
        cfg = self.config
        if cfg.search == "network":
            return  # no search: the teacher (deterministic) answers every decision
        if cfg.search == "puct":
            self.searcher: Any = PUCTAgent(
                self.evaluator,
                cfg.simulations,
                seed=seed,
                c_puct=cfg.c_puct,
                score_shaping=cfg.score_shaping,
                reward=cfg.reward,
                batch_size=cfg.search_batch,
                game=self.adapter.spec,
            )
        else:
            search_class: Any = {"mcts": MCTSAgent, "ismcts": ISMCTSAgent}.get(cfg.search)
            search_class = search_class or self.adapter.wiring.load("rollout_search")  # rollout: the game's rollout:N
            self.full_search = search_class(cfg.simulations, seed=seed, game=self.adapter.spec)
            self.fast_search = search_class(cfg.fast_simulations, seed=seed + 1, game=self.adapter.spec)

    def _close_outputs(self) -> None:
        super()._close_outputs()
        self.close()

    def close(self) -> None:
        """Stop the self-play processes (``selfplay_workers`` > 1; :meth:`run` does it at its end)."""
        if self._workers is not None:
            self._workers.shutdown(cancel_futures=True)
            self._workers = None

    # ------------------------------------------------------------ self-play
    def collect_rollout(self) -> SelfPlay:  # type: ignore[override]
        """Self-play until ``steps_per_iter`` examples are stored: here or in ``selfplay_workers`` processes."""
        cfg = self.config
        if cfg.selfplay_workers > 1:
            return self._collect_in_workers()
        self.net.eval()
        t0 = time.time()
        running = [self._start() for _ in range(cfg.num_envs)]  # each at a decision with a choice
        done: list[_Game] = []
        stored = searched = 0
        while running:
            playing = [slot for slot in running if not slot.game.is_over]
            full = [self.rng_py.random() < cfg.full_search_share for _ in playing]
            searching = [
                (slot, is_full) for slot, is_full in zip(playing, full, strict=True) if is_full or not slot.policy_play
            ]
            roots = self._search([slot for slot, _ in searching], [is_full for _, is_full in searching])
            for (slot, is_full), children in zip(searching, roots, strict=True):
                if is_full:
                    self._store(slot, children)
                    stored += 1
                if not slot.policy_play:
                    self._play(slot, children)
                searched += 1
            self._play_policy([slot for slot in playing if slot.policy_play])
            still = []
            for slot in running:
                if slot.game.is_over or self._play_unsearched(slot):
                    self._finish(slot)
                    done.append(slot)
                    if stored < cfg.steps_per_iter:
                        still.append(self._start())
                else:
                    still.append(slot)
            running = still
        examples = [e for slot in done for e in slot.examples]
        return SelfPlay(examples, len(done), searched, [s.length for s in done], time.time() - t0)

    def _collect_in_workers(self) -> SelfPlay:
        cfg = self.config
        workers = cfg.selfplay_workers
        if self._workers is None:
            self._workers = ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_start, initargs=(cfg,)
            )
        t0 = time.time()
        weights = {k: v.detach().cpu() for k, v in self.net.state_dict().items()}
        share = (math.ceil(cfg.steps_per_iter / workers), math.ceil(cfg.num_envs / workers))
        jobs = [
            self._workers.submit(_worker_collect, weights, (cfg.seed, self.global_step, w), *share)
            for w in range(workers)
        ]
        parts: list[SelfPlay] = [job.result() for job in jobs]
        played = SelfPlay(
            [e for p in parts for e in p.examples],
            sum(p.games for p in parts),
            sum(p.searched for p in parts),
            [n for p in parts for n in p.lengths],
            time.time() - t0,
            sum(p.cpu_seconds for p in parts),
        )
        self.cpu_seconds += played.cpu_seconds  # the checkpoints' cpu_seconds: this process's and the workers'
        return played

    def reseed(self, words: tuple[int, ...]) -> None:
        """New random streams for self-play (game draws, moves, the searches, the baselines) from ``words``."""
        rng = np.random.default_rng(np.random.SeedSequence(list(words)))
        seed = int(rng.integers(2**31 - 2))
        self.rng = np.random.default_rng(rng.integers(2**63))
        self.rng_py = random.Random(seed)
        self.adapter.reseed_baselines(seed)
        self._make_searches(seed)

    def _start(self) -> _Game:
        """A new game (``greedy_share``: against the baseline), its first unsearched moves played."""
        cfg, n = self.config, self.rules.players
        baseline_seats: frozenset[int] = frozenset()
        if cfg.greedy_share and self.rng.random() < cfg.greedy_share:
            keep = int(self.rng.integers(n))
            baseline_seats = frozenset(s for s in range(n) if s != keep)
        policy_play = bool(cfg.policy_play_share) and self.rng.random() < cfg.policy_play_share
        slot = _Game(self.adapter.new_game(self.rng), baseline_seats, policy_play)
        self._play_unsearched(slot)
        return slot

    def _play_policy(self, slots: list[_Game]) -> None:
        """One move of the network's own in each of ``slots`` (drawn while ``temperature_moves``, then argmax)."""
        evaluated = self.evaluator.policy_value([s.game for s in slots])
        for slot, (legal, prior, _value) in zip(slots, evaluated, strict=True):
            prior = np.asarray(prior, np.float64)
            slot.game.apply_action(int(legal[self._choose(slot, prior, prior.__getitem__)]))

    def _choose(self, slot: _Game, weights: np.ndarray, key) -> int:
        """A searched decision's index: drawn by ``weights`` while ``temperature_moves``, then the largest ``key``."""
        slot.searched += 1
        slot.length += 1
        if slot.searched <= self.config.temperature_moves and weights.sum() > 0:
            return int(self.rng.choice(len(weights), p=weights / weights.sum()))
        return max(range(len(weights)), key=key)

    def _play_unsearched(self, slot: _Game) -> bool:
        """Play the moves that need no search (single legal moves, baseline seats); whether the game is over."""
        game = slot.game
        while not game.is_over:
            if game.current_player in slot.baseline_seats:
                self.adapter.apply(game, self.adapter.baseline_move(self.config.baseline, game, self.rng_py))
            else:
                moves = self.adapter.legal(game)
                if len(moves) != 1:
                    return False
                self.adapter.apply(game, moves[0])
            slot.length += 1
        return True

    def _search(self, slots: list[_Game], full: list[bool]) -> list[list[tuple[str, float, float]]]:
        """Each game's root: ``(move, visits, tie-break)`` per searched move."""
        if self._baseline_targets is None:
            return self._search_roots(slots, full)
        decided = [self._baseline_target(slot.game) for slot in slots]
        rest = [(slot, f) for slot, f, d in zip(slots, full, decided, strict=True) if d is None]
        searched = iter(self._search_roots([slot for slot, _ in rest], [f for _, f in rest]))
        return [d if d is not None else next(searched) for d in decided]

    def _search_roots(self, slots: list[_Game], full: list[bool]) -> list[list[tuple[str, float, float]]]:
        """The search at each game's root (``full``: ``simulations``, else ``fast_simulations``)."""
        cfg, games = self.config, [slot.game for slot in slots]
        if not slots:
            return []
        if cfg.search == "network":  # the teacher's policy: (move, probability, probability) per legal move
            evaluated = self.teacher.policy_value(games)
            return [
                [(g.action_to_string(int(a)), float(p), float(p)) for a, p in zip(legal, prior, strict=True)]
                for g, (legal, prior, _value) in zip(games, evaluated, strict=True)
            ]
        if cfg.search != "puct":
            searches = [self.full_search if is_full else self.fast_search for is_full in full]
            return [
                [(m, float(v), q) for m, v, q in s.root_statistics(g)] for s, g in zip(searches, games, strict=True)
            ]
        roots = self.searcher.expand_roots(games)
        for root, is_full in zip(roots, full, strict=True):
            if is_full and cfg.noise_fraction > 0 and len(root.prior) > 1:
                noise = self.rng.dirichlet([cfg.dirichlet_alpha] * len(root.prior))
                root.prior = (1 - cfg.noise_fraction) * root.prior + cfg.noise_fraction * noise
        self.searcher.search_many(
            [
                (g, root, cfg.simulations if is_full else cfg.fast_simulations)
                for g, root, is_full in zip(games, roots, full, strict=True)
            ]
        )
        return [
            [(root.moves[i], float(root.child_visits[i]), float(root.prior[i])) for i in range(len(root.moves))]
            for root in roots
        ]

    def _baseline_target(self, game) -> list[tuple[str, float, float]] | None:
        """``baseline_targets``: the baseline's move as the only child, or ``None`` (searched)."""
        pattern = self._baseline_targets
        legal = game.legal_moves()
        if pattern is None or not all(pattern.search(m) for m in legal):
            return None
        code = self.adapter.baseline_move(self.config.baseline, game, self.rng_py)
        move = next(m for m in legal if self.adapter.encode_move(game, m) == code)
        return [(move, 1.0, 1.0)]

    def _store(self, slot: _Game, children: list[tuple[str, float, float]]) -> None:
        game = slot.game
        visited = [(move, visits) for move, visits, _ in children if visits > 0]
        total = sum(v for _, v in visited)
        decision = self.adapter.prepare(game)
        actions = np.array(
            [self.adapter.stored_action(decision, self.adapter.encode_move(game, m)) for m, _ in visited], np.int64
        )
        weights = np.array([v / total for _, v in visited], np.float64) ** (1.0 / self.config.target_temperature)
        probs = (weights / weights.sum()).astype(np.float32)
        seat = game.current_player
        margin = projected_margins(game)[seat] if self.config.score_shaping else 0.0
        slot.examples.append(Example(decision, actions, probs, seat, margin))

    def _play(self, slot: _Game, children: list[tuple[str, float, float]]) -> None:
        visits = np.array([v for _, v, _ in children])
        i = self._choose(slot, visits, lambda k: (children[k][1], children[k][2]))
        self.adapter.apply(slot.game, self.adapter.encode_move(slot.game, children[i][0]))

    def _finish(self, slot: _Game) -> None:
        """Value targets of a finished game's examples."""
        cfg = self.config
        game = slot.game
        final = terminal_rewards(game, cfg.reward)
        margins = projected_margins(game) if cfg.score_shaping else [0.0] * game.num_players
        for e in slot.examples:
            e.value = final[e.seat] + cfg.score_shaping * (margins[e.seat] - e.margin)

    def lr_fraction(self, iteration: int) -> float:
        """``anneal_lr`` by stored examples: 1 at step 0, 0 at ``total_steps``."""
        return max(0.0, 1.0 - self.global_step / self.config.total_steps)

    # ------------------------------------------------------------ update
    def update(self, ro: SelfPlay) -> dict:  # type: ignore[override]
        """Minibatches from the replay (see the module docstring); the last minibatch's losses."""
        cfg, net = self.config, self.learner
        self.replay.extend(ro.examples)
        t0 = time.time()
        stats = {"policy_loss": math.nan, "policy_kl": math.nan, "value_loss": math.nan, "entropy": math.nan}
        if not self.replay or len(self.replay) < min(cfg.replay_warmup, cfg.replay_size):
            return {**stats, "updates": 0, "seconds": 0.0}
        updates = math.ceil(len(ro) * cfg.sample_reuse / cfg.minibatch_size)
        net.net.load_state_dict(self.net.state_dict())
        net.train()
        size = min(cfg.minibatch_size, len(self.replay))
        for drawn in self.minibatches(updates, size):
            batch = [self.replay[int(i)] for i in drawn]
            logits, values, mask, target = self.adapter.forward_targets(
                net, [e.decision for e in batch], [e.actions for e in batch], [e.probs for e in batch]
            )
            mask = mask.to(logits.device)
            logp = torch.where(mask, MaskedCategorical(logits, mask).log_probs, torch.zeros_like(logits))
            policy_loss = -(target * logp).sum(1).mean()
            z = torch.tensor([e.value for e in batch], dtype=values.dtype, device=values.device)
            value_loss = 0.5 * ((values - z) ** 2).mean()
            loss = policy_loss + cfg.vf_coef * value_loss
            gradient_step(self.optimizer, loss, net, cfg.max_grad_norm)
        with torch.no_grad():
            target_entropy = -(target * torch.log(target.clamp_min(1e-12))).sum(1).mean()
            entropy = -(logp.exp() * logp).sum(1).mean()
        net.eval()
        self.net.load_state_dict(net.net.state_dict())  # copies back to the CPU
        return {
            "policy_loss": policy_loss.item(),
            "policy_kl": (policy_loss - target_entropy).item(),
            "value_loss": value_loss.item(),
            "entropy": entropy.item(),
            "updates": updates,
            "seconds": time.time() - t0,
        }

    def minibatches(self, updates: int, size: int) -> list[np.ndarray]:
        """Replay indices of ``updates`` uniform minibatches (``bucket_minibatches``: cut by crop area)."""
        n = len(self.replay)
        if not self.config.bucket_minibatches or self.adapter.size(self.replay[0].decision) == 0:
            return [self.rng.integers(n, size=size) for _ in range(updates)]
        out: list[np.ndarray] = []
        for start in range(0, updates, BUCKET):
            count = min(BUCKET, updates - start)
            drawn = self.rng.integers(n, size=count * size)
            areas = np.array([self.adapter.size(self.replay[int(i)].decision) for i in drawn])
            ordered = drawn[np.argsort(areas, kind="stable")]
            out.extend(ordered[k * size : (k + 1) * size] for k in self.rng.permutation(count))
        return out

    def log_iteration(self, iteration: int, ro: SelfPlay, stats: dict) -> None:  # type: ignore[override]
        length = float(np.mean(ro.lengths)) if ro.lengths else math.nan
        self.write_scalars(
            {"searched_decisions": ro.searched, "game_length": length, "selfplay_seconds": ro.seconds}, stats
        )
        self.show_progress(
            f"iter {iteration} step {self.global_step} sps {self.sps:.1f} games {ro.games} searched {ro.searched} "
            f"policy {stats['policy_loss']:.3f} kl {stats['policy_kl']:.3f} value {stats['value_loss']:.3f} "
            f"play {ro.seconds:.1f}s upd {stats['seconds']:.1f}s"
        )
