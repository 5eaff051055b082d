"""The self-play rollout through the batched environment (``agents.training.rollout.Rollout`` on
``kardinal_env.vector.VectorEnv``) against a reference rollout written here game by game: the same
trainer state plays the same games on the registry's ``Game`` objects (``play_round``, each move's
shaping from ``rewards.ShapingTracker``, the terminal rewards from ``rewards.terminal_rewards``), the
way the trainer collected before it stepped a batched environment.

Both draw from the trainer's generators in the same order (for Kardinal & König, a game with chance,
the reference deals slot i's games from a ``random.Random`` seeded as the rollout seeds the
environment's slot i), so they must store the same decisions (seats, observations or crops, masks,
actions, log-probabilities, values) and the same rewards, advantages and returns (up to float32: the
environment's rewards are float32), and count the same games, lengths and results — with learner,
pool, baseline and random seats, forced moves, score and chip shaping, on both backends of the
environment, for both games.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import kardinal_core_or_skip

from agents.training.config import make_config
from agents.training.rollout import Rollout, Slot, per_seat_gae, play_round
from agents.training.trainer import Trainer
from kardinal_env.core.rewards import ShapingTracker, terminal_rewards

BASE = {
    "game": "kardinal",
    "players": 3,
    "num_envs": 5,
    "steps_per_iter": 120,
    "channels": 8,
    "blocks": 1,
    "hidden": 16,
    "greedy_share": 0.3,
    "pool_share": 0.3,
    "random_share": 0.2,
    "score_shaping": 0.05,
    "chip_shaping": 0.02,
    "reward": "margin",
    "bc_games": 0,
    "track": False,
    "progress": False,
    "seed": 7,
}


def _trainer(tmp_path, **options) -> Trainer:
    cfg = make_config(("test", {**BASE, "runs_dir": str(tmp_path), **options}))
    trainer = Trainer(cfg)
    trainer.pool = [trainer.net.state_dict()]  # one frozen snapshot, so pool seats play too
    trainer.pool_nets = [trainer._frozen(sd) for sd in trainer.pool]
    trainer.net.eval()
    return trainer


class ReferenceRollout(Rollout):
    """The rollout game by game: registry games in slots, ``play_round``, ShapingTracker."""

    def run(self) -> ReferenceRollout:
        t, cfg = self.t, self.t.config
        controllers: dict = {"learner": (t.net, False)}
        for i, pn in enumerate(t.pool_nets):
            controllers[("pool", i)] = (pn, False)
        shaping = ShapingTracker(cfg.chip_shaping, cfg.score_shaping)
        spec = t.adapter.spec
        # a game with chance: slot i deals its games from its own generator, seeded from the trainer's
        # (what VectorEnv.reset(seed=[...]) does); the seeds are drawn before the slots' opponents
        generators = [random.Random(int(t.rng.integers(2**31))) for _ in range(cfg.num_envs)] if spec.chance else []
        index: dict[int, int] = {}  # id(slot) -> its slot number

        def new_slot(i: int) -> Slot:
            slot = self.new_slot()
            seed = generators[i].getrandbits(64) if generators else None
            slot.game = spec.new_game(t.rules, seed=seed)
            index[id(slot)] = i
            return slot

        def apply_move(slot, seat, move):
            learner = seat in slot.traj
            if learner:
                shaping.before(slot.game, seat)
            t.adapter.apply(slot.game, move)
            if learner:
                self.earn(slot, _at(seat, shaping.reward(slot.game, seat), t.rules.players))

        slots = [new_slot(i) for i in range(cfg.num_envs)]
        while slots:
            play_round(slots, controllers, t.adapter, t.rng_py, t.generator, apply_move, self.record)
            self.adv.extend([0.0] * (len(self) - len(self.adv)))
            self.ret.extend([0.0] * (len(self) - len(self.ret)))
            still = []
            for slot in slots:
                if slot.game.is_over:
                    game = slot.game
                    self.earn(slot, np.asarray(terminal_rewards(game, cfg.reward)))
                    self.finish(slot, {"winners": game.winners(), "move_count": game.move_count})
                    if len(self) < cfg.steps_per_iter:
                        still.append(new_slot(index[id(slot)]))
                else:
                    still.append(slot)
            slots = still
        return self


def _at(seat: int, value: float, players: int) -> np.ndarray:
    out = np.zeros(players)
    out[seat] = value
    return out


KOENIG = {"game": "kardinal_koenig", "players": 4, "chip_shaping": 0.0, "steps_per_iter": 150}


@pytest.mark.parametrize(
    "backend, options",
    [("python", {}), ("core", {}), ("python", KOENIG), ("core", KOENIG)],
    ids=["kardinal-python", "kardinal-core", "koenig-python", "koenig-core"],
)
def test_rollout_through_the_batched_env_equals_the_game_by_game_rollout(tmp_path, backend, options, monkeypatch):
    if backend == "core":
        kardinal_core_or_skip()
        monkeypatch.delenv("KARDINAL_ENV_BACKEND", raising=False)
    else:
        monkeypatch.setenv("KARDINAL_ENV_BACKEND", "python")
    vector = _trainer(tmp_path, **options)
    reference = _trainer(tmp_path, **options)
    koenig = bool(options)
    for _ in range(2):  # two iterations: the second starts from the generators the first left
        a = Rollout(vector).run()
        b = ReferenceRollout(reference).run()
        assert vector.vector_env().backend == backend
        assert len(a) == len(b) >= 120
        assert a.buf["seat"] == b.buf["seat"] and a.buf["action"] == b.buf["action"]
        assert a.buf["logprob"] == b.buf["logprob"] and a.buf["value"] == b.buf["value"]
        for d, e in zip(a.buf["decision"], b.buf["decision"], strict=True):
            assert np.array_equal(d.mask, e.mask)
            if koenig:
                assert np.array_equal(d.obs, e.obs) and d.legal == e.legal
            else:
                assert d.box == e.box and np.array_equal(d.spatial, e.spatial)
        assert np.allclose(a.buf["reward"], b.buf["reward"], atol=1e-6)
        assert np.count_nonzero(b.buf["reward"]) > 20  # shaping and terminal rewards were earned
        assert np.allclose(a.adv, b.adv, atol=1e-5) and np.allclose(a.ret, b.ret, atol=1e-5)
        assert a.ep_lengths == b.ep_lengths and np.allclose(a.ep_returns, b.ep_returns, atol=1e-5)
        assert a.opp_results == b.opp_results
        played = [k for k in a.opp_results if a.opp_results[k]]  # greedy, pool and random seats
        assert len(played) >= (1 if koenig else 3)  # (K&K: few, long games; at least one kind)
        assert vector.rng.random() == reference.rng.random()  # the same draws from the generators
        assert vector.rng_py.random() == reference.rng_py.random()


def test_per_seat_gae_sees_the_terminal_reward_once(tmp_path):
    """The rollout folds the terminal reward into each seat's last decision and passes nothing as
    ``terminal`` for a seat with decisions: the same advantages as adding it in per_seat_gae."""
    seats, rewards, values = [0, 1, 0, 1], [0.1, 0.0, 0.2, -0.1], [0.0, 0.1, 0.2, 0.3]
    folded = list(rewards)
    folded[2] += 1.0
    folded[3] += -1.0
    a = per_seat_gae(seats, folded, values, {0: 0.0, 1: 0.0}, 0.99, 0.95)
    b = per_seat_gae(seats, rewards, values, {0: 1.0, 1: -1.0}, 0.99, 0.95)
    assert np.allclose(a[0], b[0]) and np.allclose(a[1], b[1])
