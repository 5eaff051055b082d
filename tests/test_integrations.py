"""Third-party RL libraries on every game: SB3/sb3-contrib, TorchRL, Tianshou and Ray RLlib.

Each library trains with a tiny budget on Kardinal (``kardinal_v0``: 2 players, a 9x9 window to stay
fast on two CPU cores), on Kardinal & König (3 players, its flat ``float32`` observation, chance) and,
for SB3 and Tianshou, on Nim (``tests/third_game.py``, registered by the test, served by the generic
environment), through the same code paths: the registry, never a comparison of game names. The SB3
features extractors get two more tests (shapes and crop semantics; MaskablePPO on the full 53 window,
in a fresh process for its peak memory). Every check can fail: shapes, masks respected at every stored
step, losses finite, weights changed by an update, a learned policy's moves legal in a whole game.

All are marked ``integration`` (``pytest -m integration``, with the documentation blocks of
``tests/test_docs.py`` that import an RL library) and need the extras (``pip install -e
".[integrations]"``); where a library is missing the test is skipped with ``importorskip``. CI installs
every extra, so there they run. Every random number is seeded, so an outcome does not depend on the
run: the Tianshou test once failed now and then because an unseeded run stored a game with one winner
and later one with a shared win, whose ``winners`` list did not fit the buffer
(``kardinal_env.integrations.tianshou``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import train_rllib_args

from agents.registry import game_agents
from kardinal_env import kardinal_v0
from kardinal_env.core.registry import get_game
from kardinal_env.kardinal import Game, Rules

ROOT = Path(__file__).resolve().parent.parent
W = 9  # small window: observation (72, 9, 9), 17 * 81 + 5 = 1382 actions
KK = "kardinal_koenig"
THIRD_PARTY = ("torch", "ray", "stable_baselines3", "sb3_contrib", "torchrl", "tensordict", "tianshou")
#: (game, players, environment options) of the tests run on each built-in game.
GAMES = [pytest.param("kardinal", 2, {"window": W}, id="kardinal"), pytest.param(KK, 3, {}, id=KK)]


def _play_full_game(agent, spec, rules, seed: int = 0, agent_seat: int = 0):
    """``agent`` in ``agent_seat`` against the game's random baseline; every move is checked against
    ``game.legal_moves()`` before the engine plays it."""
    spec = get_game(spec)
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


def test_importing_kardinal_env_imports_no_rl_library():
    """The integrations are opt-in: the package, the env and the gym view import none of the libraries."""
    code = (
        "import sys, kardinal_env, kardinal_env.kardinal.env, kardinal_env.koenig.env, kardinal_env.core.single_agent, "
        "kardinal_env.integrations, kardinal_env.integrations.common\n"
        f"bad = sorted(m for m in {THIRD_PARTY!r} if m in sys.modules)\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# ---------------------------------------------------------------------- Stable-Baselines3
@pytest.mark.integration
@pytest.mark.timeout(300)
@pytest.mark.parametrize("game, players, options", GAMES)
def test_sb3_gym_view_observation_only_frozen_agent_and_self_play_snapshots(game, players, options):
    """``MaskablePPO("MlpPolicy", gym.make(...))`` needs ``MultiInputPolicy`` on the Dict view; wrapped in
    ``ObservationOnly`` it trains with ``MlpPolicy`` and the mask still comes from ``action_masks()``. A
    frozen copy of the trained policy plays a whole game; self-play adds snapshots to a bounded pool."""
    pytest.importorskip("sb3_contrib")
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    from kardinal_env.integrations.sb3 import ObservationOnly, SB3Agent, SelfPlayCallback, make_self_play_env

    spec = get_game(game)
    with pytest.raises(ValueError, match="MultiInputPolicy"):
        MaskablePPO("MlpPolicy", gym.make(spec.gym_id, players=players, **options))
    greedy = game_agents(spec).baseline("greedy")(seed=0)
    env = ObservationOnly(gym.make(spec.gym_id, players=players, opponents=greedy, **options))
    board = spec.load("env_module").raw_env(players=players, **options).observation_space("player_0")["observation"]
    assert env.observation_space == board
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(128)
    obs, _ = env.reset(seed=3)
    for _ in range(3):
        mask = env.action_masks()
        assert mask.dtype == bool and mask.sum() > 1
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert mask[int(action)]
        obs, _, done, _, _ = env.step(int(action))
        assert obs.shape == board.shape and not done
    with pytest.raises(ValueError, match="Dict observation space with key 'observation'"):
        ObservationOnly(env)

    # The trained policy as an agent: a frozen copy (after learn) with the same weights plays a whole game.
    agent = SB3Agent.from_model(model, greedy=True, env_options=options)
    live = model.policy.state_dict()
    assert all(torch.equal(v.cpu(), live[k].cpu()) for k, v in agent.policy.state_dict().items())
    rules = spec.load("rules_class")(players=players, **options)  # Kardinal's Rules take the window too
    assert _play_full_game(agent, spec, rules, seed=7).winners()

    # Self-play: the learner's seat against random, itself and frozen snapshots.
    env = make_self_play_env(game, players=players, pool=("random", "self"), max_pool=3, **options)
    obs, info = env.reset(seed=1)
    assert obs.shape == board.shape and env.aec.game.current_player == info["learner_seat"]
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    callback = SelfPlayCallback(snapshot_every=128)
    model.learn(256, callback=callback)
    assert model.num_timesteps >= 256
    assert callback.snapshots >= 2 and len(env.pool) == 3 and isinstance(env.pool[-1], SB3Agent)


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_sb3_self_play_rewards_cnn_extractor_vs_bots_and_saved_agent(tmp_path):
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from kardinal_env.integrations.sb3 import KardinalCNN, SB3Agent, make_self_play_env, make_vs_bots_env

    # The self-play wrapper: every transition is the learner seat's decision and its own reward.
    env = make_self_play_env("kardinal", players=2, window=W, pool=("random",))
    for episode in range(3):
        obs, info = env.reset(seed=episode)
        assert obs.shape == (72, W, W)
        seat, total, done = info["learner_seat"], 0.0, False
        while not done:
            mask = env.action_masks()
            assert mask.any() and env.aec.game.current_player == seat
            obs, reward, done, _, info = env.step(int(np.flatnonzero(mask)[episode % mask.sum()]))
            total += reward
        assert total == (1.0 if seat in info["winners"] else -1.0)  # terminal ±1 of the learner's seat

    # The single-agent view against bots, observation only, with the CNN extractor.
    greedy = game_agents("kardinal").baseline("greedy")
    vs_env = make_vs_bots_env("kardinal", players=2, window=W, opponents=greedy(seed=0))
    assert vs_env.observation_space.shape == (72, W, W)
    extractor = dict(features_extractor_class=KardinalCNN, features_extractor_kwargs=dict(channels=8, blocks=2))
    model = MaskablePPO(
        "MlpPolicy", vs_env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu", policy_kwargs=extractor
    )
    model.learn(total_timesteps=256)
    obs, _ = vs_env.reset(seed=1)
    mask = vs_env.action_masks()
    action, _ = model.predict(obs, action_masks=mask, deterministic=True)
    assert mask[int(action)]

    path = tmp_path / "maskable_ppo.zip"
    model.save(path)
    agent = SB3Agent.load(path, greedy=True, env_options={"window": W})
    assert _play_full_game(agent, "kardinal", Rules(players=2, window=W)).winners()
    with pytest.raises(ValueError, match=r"expects observations \(72, 9, 9\), the game gives \(72, 53, 53\)"):
        SB3Agent.load(path).select_move(Game(Rules(players=2)))  # the unbounded game: window 53


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
@pytest.mark.parametrize("game, players, options", GAMES)
def test_torchrl_pettingzoo_wrapper_collector_and_ppo_loss(game, players, options):
    torch = pytest.importorskip("torch")
    pytest.importorskip("tensordict")
    pytest.importorskip("torchrl")
    from tensordict.nn import TensorDictModule
    from torch import nn
    from torchrl.collectors import Collector
    from torchrl.envs import PettingZooWrapper
    from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE

    torch.manual_seed(0)  # the networks' initial weights and the collector's sampling
    spec = get_game(game)
    env = PettingZooWrapper(
        env=spec.load("env_module").env(players=players, **options),
        use_mask=True,
        group_map={"players": [f"player_{s}" for s in range(players)]},
        categorical_actions=True,
        seed=0,
    )
    obs_key, mask_key = ("players", "observation", "observation"), ("players", "action_mask")
    n_actions = env.full_action_spec["players", "action"].space.n
    assert n_actions == spec.new_game(spec.load("rules_class")(players=players, **options), seed=0).num_actions
    shape = (
        spec.load("env_module").raw_env(players=players, **options).observation_space("player_0")["observation"].shape
    )

    # Reset and step with masked random actions. ("players", "mask") marks the acting seat; TorchRL
    # gives the waiting seats an all-True action mask (their action is ignored in AEC envs).
    td = env.reset()
    assert td[obs_key].shape == (players, *shape)
    gen = torch.Generator().manual_seed(0)
    for _ in range(10):
        acting = td["players", "mask"]
        assert acting.sum() == 1
        seat = int(acting.nonzero())
        mask = td[mask_key]
        assert 0 < mask[seat].sum() < n_actions and mask[~acting].all()
        legal = mask[seat].nonzero().squeeze(-1)
        action = torch.zeros(players, dtype=torch.long)
        action[seat] = legal[torch.randint(len(legal), (), generator=gen)]
        td["players", "action"] = action
        td = env.step(td)["next"]

    def net(out: int) -> nn.Module:
        size = int(np.prod(shape))
        return nn.Sequential(nn.Flatten(-len(shape)), nn.Linear(size, 32), nn.Tanh(), nn.Linear(32, out))

    class Floats(nn.Module):
        def __init__(self, body: nn.Module):
            super().__init__()
            self.body = body

        def forward(self, obs):
            return self.body(obs.float())

    actor = ProbabilisticActor(
        TensorDictModule(Floats(net(n_actions)), in_keys=[obs_key], out_keys=[("players", "logits")]),
        in_keys={"logits": ("players", "logits"), "mask": mask_key},
        out_keys=[("players", "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=("players", "action_log_prob"),
    )
    critic = ValueOperator(Floats(net(1)), in_keys=[obs_key], out_keys=[("players", "state_value")])
    collector = Collector(env, actor, frames_per_batch=160, total_frames=160, auto_register_policy_transforms=False)
    data = next(iter(collector))
    collector.shutdown()
    acting = data["players", "mask"]  # (160, players): the seat that decided at each step
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
def _random_game_moves(rules: Rules, tied: bool, seeds=range(2000)) -> list[str]:
    """The moves of the first seeded random game whose winners are shared (``tied``) or not."""
    import random

    for seed in seeds:
        rng, game = random.Random(seed), Game(rules)
        while not game.is_over:
            moves = game.legal_moves()
            game.play(moves[rng.randrange(len(moves))])
        if (len(game.winners()) > 1) == tied:
            return list(game.history)
    raise AssertionError(f"no {'tied' if tied else 'single-winner'} game among the seeds")


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_tianshou_env_infos_have_fixed_shapes_so_a_shared_win_fits_the_buffer():
    """The regression of the flaky Tianshou example: a buffer that stored a one-winner game's last
    step took a shared win's ``winners`` list of two as a shape mismatch. ``TianshouEnv`` gives the
    same info keys and shapes at every step (win shares per seat)."""
    pytest.importorskip("tianshou")
    from tianshou.data import Batch, ReplayBuffer
    from tianshou.env import PettingZooEnv

    from kardinal_env.integrations.tianshou import TianshouEnv, make_env

    rules = Rules(players=2, window=W)
    games = [_random_game_moves(rules, tied=False), _random_game_moves(rules, tied=True)]

    def last_steps(env) -> list[tuple]:
        out = []
        for moves in games:
            obs, info = env.reset()
            for move in moves:
                action = env.env.unwrapped.encode_move(move)
                assert obs["mask"][action]
                obs_next, rew, term, trunc, info = env.step(action)
                step = (obs, action, rew, term, trunc, obs_next, info)
                obs = obs_next
            assert term
            out.append(step)
        return out

    def store(steps) -> None:
        buffer = ReplayBuffer(8)
        for obs, act, rew, term, trunc, obs_next, info in steps:
            buffer.add(Batch(obs=obs, act=act, rew=rew, terminated=term, truncated=trunc, obs_next=obs_next, info=info))

    # Tianshou's own wrapper: the end of a shared win does not fit what a one-winner game stored.
    plain = last_steps(PettingZooEnv(kardinal_v0.env(players=2, window=W)))
    assert [len(step[-1]["winners"]) for step in plain] == [1, 2]
    with pytest.raises(ValueError, match="shape mismatch"):
        store(plain)

    env = make_env("kardinal", players=2, window=W)
    assert isinstance(env, TianshouEnv)
    obs, info = env.reset()
    assert obs["mask"].dtype == bool and obs["mask"].shape == (17 * W * W + 5,) and obs["mask"].any()
    assert set(info) == {"scores", "win_share"} and info["win_share"].shape == (2,) and not info["win_share"].any()
    fixed = last_steps(env)
    assert [step[-1]["win_share"].tolist() for step in fixed][1] == [0.5, 0.5]
    assert sorted(fixed[0][-1]["win_share"].tolist()) == [0.0, 1.0]
    for step in fixed:
        assert set(step[-1]) == {"scores", "win_share"} and step[-1]["scores"].shape == (2,)
    store(fixed)


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
@pytest.mark.parametrize(
    "game, players, options, steps",
    [("kardinal", 2, {"window": W}, 256), (KK, 3, {}, 400), ("nim", 3, {"pile": "7"}, 64)],
    ids=["kardinal", KK, "nim"],
)
def test_tianshou_collects_legal_actions_and_updates(request, game, players, options, steps):
    pytest.importorskip("tianshou")
    if game == "nim":
        request.getfixturevalue("nim")
    collected = _tianshou_dqn_collect(game, players, steps, **options)
    _check_tianshou(*collected, players=players, steps=steps)


# ---------------------------------------------------------------------- Ray RLlib
def _rllib_args(out, **options) -> list[str]:
    """``scripts/train_rllib.py`` arguments of a one-iteration run into ``out`` on a local Ray; threshold -1
    so that the league takes its first frozen snapshot. ``options``: more flags (``name=value``)."""
    flags = {"iterations": 1, "num_epochs": 1, "win_rate_threshold": -1, "min_episodes": 0, "object_store_mb": 128}
    return train_rllib_args(out=out, **{**flags, **options})


@pytest.mark.integration
@pytest.mark.timeout(400)
def test_rllib_league_self_play_checkpoint_plays_via_rllib_agent(tmp_path):
    pytest.importorskip("ray.rllib")
    from agents.networks.rllib_agent import RLlibAgent
    from kardinal_env.integrations import rllib_train as train_rllib
    from kardinal_env.integrations.common import GameFeaturizer

    out = tmp_path / "rllib"
    sizes = dict(players=2, window=W, minibatch_size=128, channels=8, blocks=2)
    assert train_rllib.main(_rllib_args(out, train_batch_size=256, **sizes)) == 0
    progress = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    assert progress[-1]["env_steps"] >= 256 and progress[-1]["league_size"] == 3
    checkpoint = out / "checkpoint"
    assert (checkpoint / "learner_group" / "learner" / "rl_module" / "main_v1").is_dir()

    agent = RLlibAgent.from_checkpoint(checkpoint)
    assert agent.obs_shape == (72, W, W)
    # The module is fully convolutional: it plays the unbounded game of scripts/evaluate.py (window 53).
    assert _play_full_game(agent, "kardinal", Rules(players=2), seed=5).is_over
    # The window variant it was trained on: the env option window=9 of kardinal_v0.env(window=9)
    # (Kardinal's codec and encoder default to window 53, whatever the rules' window).
    featurizer = agent.featurizer = GameFeaturizer(window=W)
    for seat in (0, 1):
        assert _play_full_game(agent, "kardinal", Rules(players=2, window=W), agent_seat=seat, seed=seat).winners()

    # --resume brings the league back (snapshots re-added before the weights are restored).
    resumed = tmp_path / "resumed"
    assert train_rllib.main(_rllib_args(resumed, train_batch_size=128, resume=checkpoint, **sizes)) == 0
    assert json.loads((resumed / "progress.jsonl").read_text().splitlines()[-1])["league_size"] == 4
    old = RLlibAgent.from_checkpoint(checkpoint, module_id="main_v1").module.state_dict()
    new = RLlibAgent.from_checkpoint(resumed / "checkpoint", module_id="main_v1").module.state_dict()
    assert all(np.array_equal(old[k].numpy(), new[k].numpy()) for k in old)

    # The module's masked logits: every legal action finite, every illegal one at FLOAT_MIN.
    game = Game(Rules(players=2, window=W))
    logits = agent.action_logits(game)
    assert logits.shape == (17 * W * W + 5,)
    mask = featurizer.action_mask(game).astype(bool)
    assert np.isfinite(logits).all() and logits[mask].min() > -1e30 and (logits[~mask] < -1e30).all()


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
    args = _rllib_args(out, game=KK, players=3, discard="any", hidden=[32], train_batch_size=400, minibatch_size=200)
    assert rllib_train.main(args) == 0
    last = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()][-1]
    assert last["env_steps"] >= 400 and last["episodes"] >= 1 and last["league_size"] == 3
    assert 0.0 <= last["win_rate"] <= 1.0 and np.isfinite(last["policy_loss"])
    modules = Path(out) / "checkpoint" / "learner_group" / "learner" / "rl_module"
    assert (modules / "main_v1").is_dir()

    module = RLModule.from_checkpoint(str(modules / "main"))
    assert isinstance(module, MaskedMLPRLModule)
    spec = get_game(KK)
    rules = spec.rules(players=3, discard="any")
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

    assert _play_full_game(ModuleAgent(), spec, rules, seed=3).winners()

    with pytest.raises(SystemExit):  # a rules option of another game is a usage error naming it
        rllib_train.parse_args(["--game", KK, "--preset", "german"])
    assert rllib_train.main(["--game", KK, "--window", "9", "--out", str(tmp_path / "bad")]) == 2


class _FakeAgentEpisode:
    def __init__(self, info: dict):
        self._infos = [{}, info]

    def get_infos(self):
        return self._infos


class _FakeEpisode:
    """What ``LeagueCallback`` reads of an RLlib ``MultiAgentEpisode``: agents, their modules, infos, rewards."""

    def __init__(self, main_seat: int, winners: list[int], rewards: list[float]):
        ids = [f"player_{s}" for s in range(len(rewards))]
        self.agent_ids = set(ids)
        self._modules = {a: ("main" if s == main_seat else "random") for s, a in enumerate(ids)}
        self.agent_episodes = {a: _FakeAgentEpisode({"winners": winners}) for a in ids}
        self._rewards = {a: [0.0, r] for a, r in zip(ids, rewards, strict=True)}

    def module_for(self, agent_id):
        return self._modules[agent_id]

    def get_rewards(self):
        return self._rewards


class _Logger:
    def __init__(self):
        self.values: dict[str, list[float]] = {}

    def log_value(self, key, value, **kwargs):
        self.values.setdefault(key, []).append(value)


@pytest.mark.integration
def test_rllib_league_win_rate_is_the_win_share():
    """``win_rate`` counts a shared win among k winners as 1/k (``kardinal_env.core.rewards.win_share``),
    whatever the reward: a "margin" reward of 0 for a shared win, or a positive one for a lost game."""
    pytest.importorskip("ray.rllib")
    from kardinal_env.integrations.rllib import LeagueCallback

    callback, logger = LeagueCallback(players=3), _Logger()
    for main_seat, winners, rewards in (
        (0, [0], [1.0, -1.0, -1.0]),  # a win
        (1, [0, 1], [0.0, 0.0, -0.5]),  # a win shared by two ("margin" reward 0)
        (2, [0, 1, 2], [0.0, 0.0, 0.0]),  # shared by three
        (2, [0], [0.3, -0.3, 0.2]),  # lost, with a positive reward (not a win)
    ):
        callback.on_episode_end(episode=_FakeEpisode(main_seat, winners, rewards), metrics_logger=logger)
    assert logger.values["win_rate"] == pytest.approx([1.0, 0.5, 1 / 3, 0.0])
    assert logger.values["main_final_reward"] == [1.0, 0.0, 0.0, 0.2]


# ---------------------------------------------------------------------- SB3 features extractors
@pytest.mark.integration
def test_sb3_crop_extractor_shapes_crop_and_errors():
    torch = pytest.importorskip("torch")
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("sb3_contrib")
    from gymnasium import spaces

    from kardinal_env.integrations.sb3 import KardinalCNN, KardinalCropCNN, make_self_play_env

    env = make_self_play_env(players=2, window=53, pool=("random",))
    obs, _ = env.reset(seed=3)
    for _ in range(12):  # a few decisions in, so that the castle has grown
        obs, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert not done
    space = env.observation_space
    assert space.shape == (72, 53, 53)

    ex = KardinalCropCNN(space, crop=15)
    assert ex.crop == 15 and ex.offset == 26 - 7 and ex.features_dim == 256
    assert KardinalCropCNN(space).crop == 21  # the default
    assert KardinalCropCNN(make_self_play_env(players=2, window=9).observation_space).crop == 9  # min(21, W)
    batch = torch.as_tensor(np.stack([obs, obs]))
    with torch.no_grad():
        out = ex(batch)
    assert out.shape == (2, 256) and torch.isfinite(out).all()

    def features(change=None):
        o = obs.copy()
        if change is not None:
            change(o)
        with torch.no_grad():
            return ex(torch.as_tensor(o[None]))[0]

    base = features()[None]

    half = 26
    # A house of colour slot 0 just outside the crop (|x| = 8 > 7) is invisible to it ...
    assert torch.equal(features(lambda o: o.__setitem__((2, half, half + 8), 1)), base[0])
    # ... one inside (the crop covers |x|, |y| <= 7) changes the features,
    assert not torch.equal(features(lambda o: o.__setitem__((2, half - 7, half + 7), 1)), base[0])
    # and so do the constant planes (chips in the supply), read from one square.
    assert not torch.equal(features(lambda o: o.__setitem__(17, o[17] - 1)), base[0])

    cnn = KardinalCNN(space, channels=8, blocks=2)
    with torch.no_grad():
        out = cnn(batch)
    assert out.shape == (2, cnn.features_dim) == (2, 2 * 8 + 64)
    with torch.no_grad():  # the full window: a house in the far corner changes the pooled features
        far = obs.copy()
        far[2, 0, 0] = 1
        assert not torch.equal(cnn(torch.as_tensor(far[None]))[0], out[0])

    for bad in (14, 55, 1, True):
        with pytest.raises(ValueError, match="crop must be an odd integer"):
            KardinalCropCNN(space, crop=bad)
    dict_space = env.aec.observation_space("player_0")
    for cls in (KardinalCropCNN, KardinalCNN):
        with pytest.raises(ValueError, match="board shape"):
            cls(dict_space)
        with pytest.raises(ValueError, match="board shape"):
            cls(spaces.Box(0, 1, (17, 53, 53), np.uint8))


def test_torch_trunks_need_torch_only_and_keep_shapes():
    """``torch_nets`` imports torch but no RL library; both trunks map (B, 72, W, W) to (B, features_dim)."""
    torch = pytest.importorskip("torch")
    code = (
        "import sys, kardinal_env.integrations.torch_nets\n"
        f"bad = sorted(m for m in {THIRD_PARTY!r} if m != 'torch' and m in sys.modules)\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    from kardinal_env.integrations.torch_nets import CropTrunk, PooledTrunk

    boards = torch.zeros((3, 72, 53, 53), dtype=torch.uint8)
    boards[:, 17:21] = 12  # a full supply, as at the start
    crop = CropTrunk(53, crop=15, channels=8, features_dim=32)
    pooled = PooledTrunk(channels=8, blocks=2, scalar_dim=16)
    with torch.no_grad():
        assert crop(boards).shape == (3, 32) and pooled(boards).shape == (3, 2 * 8 + 16) == (3, pooled.features_dim)
    assert CropTrunk(9).crop == 9 and CropTrunk(53).crop == 21
    with pytest.raises(ValueError, match="crop must be an odd integer from 3 to the window 9"):
        CropTrunk(9, crop=11)
    with pytest.raises(ValueError, match="blocks must be a positive integer"):
        PooledTrunk(blocks=0)


_CROP_TRAINING = r"""
import json, resource, sys
import numpy as np, torch
from sb3_contrib import MaskablePPO
from agents.baselines.random import RandomAgent
from kardinal_env.kardinal import Game, Rules
from kardinal_env.integrations.sb3 import KardinalCropCNN, SB3Agent, make_self_play_env

torch.set_num_threads(1)
env = make_self_play_env(players=2, window=53, pool=("random",))
rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=2, seed=0, device="cpu",
                    policy_kwargs=dict(features_extractor_class=KardinalCropCNN))
before = [p.detach().clone() for p in model.policy.features_extractor.parameters()]
model.learn(total_timesteps=128)
assert model.num_timesteps >= 128
assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.features_extractor.parameters())), "no update"
assert model.rollout_buffer.observations.dtype == np.uint8

# The mask still applies: zero probability outside it, predictions inside it.
obs, _ = env.reset(seed=7)
checked = 0
done = False
while not done:
    mask = env.action_masks()
    with torch.no_grad():
        obs_t, _ = model.policy.obs_to_tensor(obs)
        probs = model.policy.get_distribution(obs_t, action_masks=mask[None]).distribution.probs[0].numpy()
    assert probs[~mask].max(initial=0.0) == 0.0, "probability on an illegal action"
    assert abs(probs[mask].sum() - 1.0) < 1e-4
    action, _ = model.predict(obs, action_masks=mask, deterministic=False)
    assert mask[int(action)], "predicted an illegal action"
    obs, _, done, _, _ = env.step(int(action))
    checked += 1

# As an agent on the unbounded game (window 53): every move it picks is legal.
agent, other, game = SB3Agent.from_model(model, greedy=True), RandomAgent(seed=0), Game(Rules(players=2))
while not game.is_over:
    move = (agent if game.current_player == 0 else other).select_move(game)
    assert move in game.legal_moves()
    game.play(move)
params = sum(p.numel() for p in model.policy.parameters())
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"params": params, "checked": checked, "rss_before_mib": rss_before / 1024, "peak_mib": peak / 1024}))
"""


@pytest.mark.integration
@pytest.mark.timeout(400)
def test_sb3_crop_extractor_trains_on_window_53_with_mask():
    """MaskablePPO + KardinalCropCNN on the full 53 window: trains, keeps the mask, stays small.

    In a fresh process so that its peak memory is its own: ``MlpPolicy`` on this window has 29M
    parameters and grew the process by about 1 GiB for a 256-step rollout (docs/libraries/sb3.md).
    """
    pytest.importorskip("torch")
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("sb3_contrib")
    proc = subprocess.run(
        [sys.executable, "-c", _CROP_TRAINING],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=380,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["checked"] > 10
    assert out["params"] < 5_000_000  # MlpPolicy: 29,000,527 on this window
    assert out["peak_mib"] - out["rss_before_mib"] < 600, out


# ---------------------------------------------------------------------- Ray cluster example
@pytest.mark.integration
def test_example_ray_cluster_config_is_valid_for_ray_up():
    """docs/ray-cluster.yaml passes the checks of ``ray up`` (defaults filled in, Ray's cluster schema),
    and every ``ray start`` option it uses is an option of the installed ``ray start``."""
    pytest.importorskip("ray.autoscaler")
    yaml = pytest.importorskip("yaml")
    import re

    from ray.autoscaler._private.commands import prepare_config
    from ray.autoscaler._private.util import validate_config
    from ray.scripts.scripts import start

    config = yaml.safe_load((ROOT / "docs" / "ray-cluster.yaml").read_text())
    validate_config(prepare_config(config))
    assert config["provider"]["type"] == "local" and len(config["provider"]["worker_ips"]) == config["max_workers"]
    known = {opt for param in start.params for opt in param.opts}
    commands = config["head_start_ray_commands"] + config["worker_start_ray_commands"]
    used = set()
    for cmd in commands:
        for args in re.findall(r"\bray start\b(.*)", cmd):
            used.update(re.findall(r"(--[a-z-]+)", args))
    assert "--head" in used and "--address" in used
    assert used <= known, f"not options of ray start: {sorted(used - known)}"


# ---------------------------------------------------------------------- distributed evaluation (local Ray)
def test_chunk_games_keeps_order_and_sizes_even():
    from agents.evaluation.distributed import chunk_games

    tasks = list(range(10))
    parts = chunk_games(tasks, 4)
    assert [len(p) for p in parts] == [3, 3, 2, 2] and [t for p in parts for t in p] == tasks
    assert chunk_games(tasks[:3], 8) == [[0], [1], [2]]
    with pytest.raises(ValueError, match="chunks must be >= 1"):
        chunk_games(tasks, 0)


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_evaluate_on_a_local_ray_gives_the_serial_per_game_results(capsys):
    """The Ray back-end on a private local Ray (started and shut down by the call) plays the same games
    as the serial one (per-game results equal but for the thinking times); chunks of consecutive games,
    two per CPU of the local Ray. One Ray start, on K&K: both games on Ray, against their local results,
    are tests/test_cluster.py's (a two-node cluster, in CI's cluster step)."""
    pytest.importorskip("ray")
    from agents.evaluation.distributed import RayTasks
    from agents.evaluation.tournament import Table, evaluate, main

    table = Table.of("kardinal_koenig", 3)
    serial = evaluate(["greedy", "random"], table, games=4, seed=5)
    on_ray = evaluate(["greedy", "random"], table, games=4, seed=5, backend=RayTasks("local", workers=2))
    assert sum(on_ray["ray"]["games_per_node"].values()) == 4 and on_ray["ray"]["tasks"] == 4
    for a, b in zip(serial["games"], on_ray["games"], strict=True):
        assert {**a, "seconds": None} == {**b, "seconds": None}
    assert "ray" not in serial
    with pytest.raises(ValueError, match="agent objects"):
        from agents.baselines.random import RandomAgent

        evaluate([RandomAgent(), "greedy"], Table.of("kardinal", 2), games=2, backend=RayTasks("local"))
    with pytest.raises(SystemExit) as exc:
        main(["--agents", "greedy", "--ray", "--address", "auto"])
    assert exc.value.code == 2 and "give one of them" in capsys.readouterr().err
