"""The RL-library integrations on every game, not only Kardinal: Kardinal & König and a third game.

``tests/test_integrations.py`` trains each library on Kardinal; here each library trains a few steps
on Kardinal & König (3 players, its flat ``float32`` observation, chance) through the same code
paths — the registry (``get_game``, the game's codec and encoder, its environment module), never a
comparison of game names — and SB3 and Tianshou also on Nim (``tests/third_game.py``), a game the
test registers with one call and that has no environment module of its own (the generic
environment serves it). Every check can fail: shapes, masks respected at every stored step, losses
finite, weights changed by an update, a learned policy's moves legal in a whole game. Every random
number is seeded. Marked ``integration``; skipped where a library is missing.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.registry import game_agents
from kardinal_env import kardinal_koenig_v1
from kardinal_env.core.registry import get_game

KK = "kardinal_koenig"
PLAYERS = 3


def _play_full_game(agent, spec, rules, seed: int = 0, agent_seat: int = 0):
    """``agent`` in ``agent_seat`` against the game's random baseline; every move is checked against
    ``game.legal_moves()`` before the engine plays it."""
    game = spec.new_game(rules, seed=seed)
    other = game_agents(spec).baseline("random")(seed=seed)
    decisions = 0
    while not game.is_over:
        mover = agent if game.current_player == agent_seat else other
        move = mover.select_move(game)
        assert move in game.legal_moves(), (mover, move)
        decisions += mover is agent
        game.play(move)
    assert decisions > 0
    return game


@pytest.fixture
def nim():
    import third_game

    with third_game.registered() as spec:
        yield spec


# ---------------------------------------------------------------------- Stable-Baselines3
@pytest.mark.integration
@pytest.mark.timeout(300)
def test_sb3_maskable_ppo_on_kardinal_koenig_observation_only_and_self_play():
    pytest.importorskip("sb3_contrib")
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    from kardinal_env.integrations.sb3 import ObservationOnly, SB3Agent, SelfPlayCallback, make_self_play_env

    spec = get_game(KK)
    # The registered Gym view against bots, observation only: MlpPolicy on the flat vector.
    with pytest.raises(ValueError, match="MultiInputPolicy"):
        MaskablePPO("MlpPolicy", gym.make(spec.gym_id, players=PLAYERS))
    greedy = game_agents(spec).baseline("greedy")(seed=0)
    env = ObservationOnly(gym.make(spec.gym_id, players=PLAYERS, opponents=greedy))
    size = spec.make_encoder(spec.rules(players=PLAYERS)).shape
    assert env.observation_space.shape == size and env.observation_space.dtype == np.float32
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(128)
    obs, _ = env.reset(seed=4)
    mask = env.action_masks()
    action, _ = model.predict(obs, action_masks=mask, deterministic=True)
    assert mask.dtype == bool and mask.sum() > 1 and mask[int(action)]

    # The trained policy as an agent: a frozen copy (after learn) with the same weights plays a whole game.
    agent = SB3Agent.from_model(model, greedy=True)
    live = model.policy.state_dict()
    assert all(torch.equal(v.cpu(), live[k].cpu()) for k, v in agent.policy.state_dict().items())
    game = _play_full_game(agent, spec, spec.rules(players=PLAYERS), seed=7)
    assert game.is_over and game.winners()

    # Self-play: the learner's seat against random, itself and frozen snapshots.
    env = make_self_play_env(KK, players=PLAYERS, pool=("random", "self"), max_pool=3)
    obs, info = env.reset(seed=1)
    assert obs.shape == size and env.aec.game.current_player == info["learner_seat"]
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    callback = SelfPlayCallback(snapshot_every=128)
    model.learn(256, callback=callback)
    assert callback.snapshots >= 2 and len(env.pool) == 3 and isinstance(env.pool[-1], SB3Agent)


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_sb3_self_play_on_a_third_game_registered_by_the_test(nim):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from kardinal_env.integrations.sb3 import SB3Agent, make_self_play_env, make_vs_bots_env

    env = make_self_play_env("nim", pool=("random",))
    rules = nim.rules()
    assert env.observation_space.shape == nim.make_encoder(rules).shape and env.action_space.n == 3
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=2, seed=0, device="cpu")
    model.learn(128)
    vs = make_vs_bots_env("nim", players=3, opponents=game_agents(nim).baseline("greedy")(seed=0))
    obs, _ = vs.reset(seed=2)
    assert obs.shape == nim.make_encoder(nim.rules(players=3)).shape
    agent = SB3Agent.from_model(model, greedy=True)
    for seed in range(3):
        _play_full_game(agent, nim, rules, seed=seed, agent_seat=seed % 2)


# ---------------------------------------------------------------------- TorchRL
@pytest.mark.integration
@pytest.mark.timeout(300)
def test_torchrl_on_kardinal_koenig_collects_legal_actions_and_a_finite_ppo_loss():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    from tensordict.nn import TensorDictModule
    from torch import nn
    from torchrl.collectors import Collector
    from torchrl.envs import PettingZooWrapper
    from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE

    torch.manual_seed(0)
    seats = [f"player_{s}" for s in range(PLAYERS)]
    env = PettingZooWrapper(
        env=kardinal_koenig_v1.env(players=PLAYERS),
        use_mask=True,
        group_map={"players": seats},
        categorical_actions=True,
        seed=0,
    )
    spec = get_game(KK)
    size = spec.make_encoder(spec.rules(players=PLAYERS)).shape[0]
    obs_key, mask_key = ("players", "observation", "observation"), ("players", "action_mask")
    n_actions = env.full_action_spec["players", "action"].space.n
    assert n_actions == spec.new_game(spec.rules(players=PLAYERS), seed=0).num_actions
    td = env.reset()
    assert td[obs_key].shape == (PLAYERS, size) and td[obs_key].dtype == torch.float32

    def mlp(out: int) -> nn.Module:
        return nn.Sequential(nn.Linear(size, 64), nn.Tanh(), nn.Linear(64, out))

    actor = ProbabilisticActor(
        TensorDictModule(mlp(n_actions), in_keys=[obs_key], out_keys=[("players", "logits")]),
        in_keys={"logits": ("players", "logits"), "mask": mask_key},
        out_keys=[("players", "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=("players", "action_log_prob"),
    )
    critic = ValueOperator(mlp(1), in_keys=[obs_key], out_keys=[("players", "state_value")])
    collector = Collector(env, actor, frames_per_batch=160, total_frames=160, auto_register_policy_transforms=False)
    data = next(iter(collector))
    collector.shutdown()
    acting = data["players", "mask"]  # (160, 3): the seat that decided at each step
    assert data.batch_size == (160,) and (acting.sum(-1) == 1).all()
    assert acting.any(0).all()  # every seat decided
    chosen = data["players", "action"][acting]
    assert data["players", "action_mask"][acting].gather(-1, chosen[:, None]).all()  # only legal moves
    assert (data["players", "action_mask"][acting].sum(-1) < n_actions).all()  # real masks for the acting seat

    keys = dict(
        reward=("players", "reward"),
        done=("players", "done"),
        terminated=("players", "terminated"),
        value=("players", "state_value"),
        advantage=("players", "advantage"),
        value_target=("players", "value_target"),
    )
    gae = GAE(gamma=0.99, lmbda=0.95, value_network=critic)
    gae.set_keys(**keys)
    loss = ClipPPOLoss(actor, critic)
    loss.set_keys(action=("players", "action"), sample_log_prob=("players", "action_log_prob"), **keys)
    with torch.no_grad():
        gae(data)
    out = loss(data)
    total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
    assert torch.isfinite(total)
    total.backward()
    grads = [p.grad for p in actor.parameters() if p.grad is not None]
    assert grads and all(torch.isfinite(g).all() for g in grads) and any(g.abs().sum() > 0 for g in grads)


# ---------------------------------------------------------------------- Tianshou
def _tianshou_dqn_collect(game: str, players: int, steps: int, **options):
    """DQN for seat 0, random legal moves for the others; ``steps`` collected on 2 envs. Returns
    ``(result, buffer, algo, qnet)``."""
    import torch
    from tianshou.algorithm import DQN
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from torch import nn

    from kardinal_env.integrations.tianshou import make_env

    np.random.seed(0)
    torch.manual_seed(0)

    def make():
        return make_env(game, players=players, **options)

    env = make()
    size = int(np.prod(env.observation_space["observation"].shape))

    class QNet(nn.Module):
        def __init__(self, n: int):
            super().__init__()
            self.body = nn.Sequential(nn.Flatten(), nn.Linear(size, 32), nn.ReLU(), nn.Linear(32, n))

        def forward(self, obs, state=None, info=None):
            return self.body(torch.as_tensor(np.asarray(obs), dtype=torch.float32)), state

    qnet = QNet(env.action_space.n)
    dqn = DQN(
        policy=DiscreteQLearningPolicy(
            model=qnet,
            action_space=env.action_space,
            observation_space=env.observation_space["observation"],
            eps_training=0.1,
        ),
        optim=AdamOptimizerFactory(lr=1e-3),
        gamma=0.9,
        target_update_freq=10,
    )
    others = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in range(players - 1)]
    algo = MultiAgentOffPolicyAlgorithm(algorithms=[dqn, *others], env=env)
    buffer = VectorReplayBuffer(2000, 2)
    collector = Collector(algo, DummyVectorEnv([make, make]), buffer, exploration_noise=True)
    collector.reset()
    return collector.collect(n_step=steps), buffer, algo, qnet


def _check_tianshou(result, buffer, algo, qnet, players: int, steps: int) -> None:
    import torch
    from tianshou.utils.torch_utils import policy_within_training_step

    assert result.n_collected_steps >= steps and result.n_collected_episodes >= 1
    stored = buffer[buffer.sample_indices(0)]
    masks = np.asarray(stored.obs.mask, dtype=bool)
    assert masks[np.arange(len(stored.act)), np.asarray(stored.act, dtype=np.int64)].all()  # legal at every step
    seats = {str(a) for a in np.asarray(stored.obs.agent_id)}
    assert seats == {f"player_{s}" for s in range(players)}
    ends = np.asarray(stored.terminated, dtype=bool)
    shares = np.asarray(stored.info.win_share)
    assert shares.shape == (len(stored.act), players)
    assert ends.any() and np.allclose(shares[ends].sum(axis=1), 1.0) and not shares[~ends].any()
    before = [p.detach().clone() for p in qnet.parameters()]
    with policy_within_training_step(algo.policy):
        algo.update(sample_size=32, buffer=buffer)
    assert any(not torch.equal(a, b) for a, b in zip(before, qnet.parameters()))


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_tianshou_on_kardinal_koenig_collects_legal_actions_and_updates():
    pytest.importorskip("tianshou")
    collected = _tianshou_dqn_collect(KK, PLAYERS, 400)
    _check_tianshou(*collected, players=PLAYERS, steps=400)


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_tianshou_on_a_third_game_registered_by_the_test(nim):
    pytest.importorskip("tianshou")
    collected = _tianshou_dqn_collect("nim", 3, 64, pile="7")
    _check_tianshou(*collected, players=3, steps=64)


# ---------------------------------------------------------------------- Ray RLlib
@pytest.mark.integration
@pytest.mark.timeout(400)
def test_rllib_league_on_kardinal_koenig_trains_an_mlp_module_that_plays_legal_moves(tmp_path):
    pytest.importorskip("ray.rllib")
    import torch
    from ray.rllib.core.rl_module.rl_module import RLModule

    from kardinal_env.integrations import rllib_train
    from kardinal_env.integrations.common import GameFeaturizer
    from kardinal_env.integrations.rllib import MaskedMLPRLModule

    out = tmp_path / "rllib"
    args = ["--game", KK, "--players", str(PLAYERS), "--discard", "any", "--hidden", "32"]
    args += ["--iterations", "1", "--train-batch-size", "400", "--minibatch-size", "200", "--num-epochs", "1"]
    args += ["--win-rate-threshold", "-1", "--min-episodes", "0", "--object-store-mb", "128", "--out", str(out)]
    assert rllib_train.main(args) == 0
    progress = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    last = progress[-1]
    assert last["env_steps"] >= 400 and last["episodes"] >= 1 and last["league_size"] == 3
    assert 0.0 <= last["win_rate"] <= 1.0 and np.isfinite(last["policy_loss"])
    modules = Path(out) / "checkpoint" / "learner_group" / "learner" / "rl_module"
    assert (modules / "main_v1").is_dir()

    module = RLModule.from_checkpoint(str(modules / "main"))
    assert isinstance(module, MaskedMLPRLModule)
    spec = get_game(KK)
    rules = spec.rules(players=PLAYERS, discard="any")
    scale = spec.make_encoder(rules).scale
    assert torch.allclose(module.inv_scale, torch.as_tensor(1.0 / scale))  # the encoder's divisors
    featurizer = GameFeaturizer()

    class ModuleAgent:
        """The trained module's most likely legal action (masked logits)."""

        def select_move(self, game):
            obs = {
                "observation": torch.as_tensor(featurizer.observation(game))[None],
                "action_mask": torch.as_tensor(featurizer.action_mask(game))[None],
            }
            with torch.no_grad():
                logits = module.forward_inference({"obs": obs})["action_dist_inputs"][0].numpy()
            mask = featurizer.action_mask(game).astype(bool)
            assert np.isfinite(logits).all() and (logits[~mask] < -1e30).all() and (logits[mask] > -1e30).all()
            return featurizer.decode(game, int(np.argmax(logits)))

    game = _play_full_game(ModuleAgent(), spec, rules, seed=3)
    assert game.is_over and game.winners()

    with pytest.raises(SystemExit):  # a rules option of another game is a usage error naming it
        rllib_train.parse_args(["--game", KK, "--preset", "german"])
    assert rllib_train.main(["--game", KK, "--window", "9", "--out", str(tmp_path / "bad")]) == 2
