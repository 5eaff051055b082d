"""Third-party RL libraries on Kardinal (``kardinal_v0``): SB3/sb3-contrib, TorchRL, Tianshou and Ray RLlib.

Each library gets one tiny-budget training test, and the SB3 features extractors get two more
(shapes and crop semantics; MaskablePPO on the full 53 window, in a fresh process for its peak
memory); all are marked ``integration`` (``pytest -m integration``, with the documentation blocks of
``tests/test_docs.py`` that import an RL library). ``tests/test_integrations_games.py`` runs the same
libraries on Kardinal & König and on a third game registered by the test. They need the extras
(``pip install -e ".[integrations]"``); where a library is missing the test is skipped with
``importorskip``. CI installs every extra, so there they run. The library tests use 2 players and a
9x9 window to stay fast on two CPU cores.

Every random number is seeded (the policies' initial weights and sampling, exploration, the
environments), so a test's outcome does not depend on the run: the Tianshou test once failed now
and then because an unseeded run sometimes stored a game with one winner and later one with a shared
win, whose ``winners`` list did not fit the buffer (``kardinal_env.integrations.tianshou``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.registry import game_agents
from kardinal_env import kardinal_v0
from kardinal_env.kardinal import Game, Rules

ROOT = Path(__file__).resolve().parent.parent
W = 9  # small window: observation (72, 9, 9), 17 * 81 + 5 = 1382 actions
THIRD_PARTY = ("torch", "ray", "stable_baselines3", "sb3_contrib", "torchrl", "tensordict", "tianshou")


def _play_full_game(agent, rules: Rules, agent_seat: int = 0, seed: int = 0) -> Game:
    """Play ``agent`` in ``agent_seat`` against random moves; every move is checked by the engine."""
    from agents.baselines.random import RandomAgent

    game = Game(rules)
    other = RandomAgent(seed=seed)
    while not game.is_over:
        mover = agent if game.current_player == agent_seat else other
        move = mover.select_move(game)
        assert move in game.legal_moves()
        game.play(move)
    return game


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
def test_sb3_maskable_ppo_self_play_and_vs_bots(tmp_path):
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from kardinal_env.integrations.sb3 import (
        KardinalCNN,
        SB3Agent,
        SelfPlayCallback,
        make_self_play_env,
        make_vs_bots_env,
    )

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

    env = make_self_play_env("kardinal", players=2, window=W, pool=("random", "self"), max_pool=4)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    callback = SelfPlayCallback(snapshot_every=128)
    model.learn(total_timesteps=384, callback=callback)
    assert model.num_timesteps >= 384
    assert callback.snapshots >= 2 and len(env.pool) == 4  # "random", "self" + the 2 newest snapshots

    # The other documented path: the single-agent view against bots, observation only (here with the CNN extractor).
    greedy = game_agents("kardinal").baseline("greedy")
    vs_env = make_vs_bots_env("kardinal", players=2, window=W, opponents=greedy(seed=0))
    assert vs_env.observation_space.shape == (72, W, W)
    model2 = MaskablePPO(
        "MlpPolicy",
        vs_env,
        n_steps=128,
        batch_size=64,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs=dict(features_extractor_class=KardinalCNN, features_extractor_kwargs=dict(channels=8, blocks=2)),
    )
    model2.learn(total_timesteps=256)
    obs, _ = vs_env.reset(seed=1)
    mask = vs_env.action_masks()
    action, _ = model2.predict(obs, action_masks=mask, deterministic=True)
    assert mask[int(action)]

    path = tmp_path / "maskable_ppo.zip"
    model2.save(path)
    agent = SB3Agent.load(path, greedy=True, env_options={"window": W})
    game = _play_full_game(agent, Rules(players=2, window=W))
    assert game.is_over and game.winners()
    with pytest.raises(ValueError, match=r"expects observations \(72, 9, 9\), the game gives \(72, 53, 53\)"):
        SB3Agent.load(path).select_move(Game(Rules(players=2)))  # the unbounded game: window 53


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_sb3_mlp_policy_on_the_registered_gym_view_through_observation_only():
    """``MaskablePPO("MlpPolicy", gym.make(...))`` needs ``MultiInputPolicy`` on the Dict view; wrapped in
    ``ObservationOnly`` it trains with ``MlpPolicy`` and the mask still comes from ``action_masks()``."""
    pytest.importorskip("sb3_contrib")
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    from kardinal_env.integrations.sb3 import ObservationOnly

    with pytest.raises(ValueError, match="MultiInputPolicy"):
        MaskablePPO("MlpPolicy", gym.make("kardinal/KardinalVsBots-v0", players=2, window=W))
    env = ObservationOnly(gym.make("kardinal/KardinalVsBots-v0", players=2, window=W))
    board = kardinal_v0.raw_env(players=2, window=W).observation_space("player_0")["observation"]
    assert env.observation_space == board
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(64)
    obs, _ = env.reset(seed=3)
    for _ in range(5):
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert mask[int(action)]
        obs, _, done, _, _ = env.step(int(action))
        assert obs.shape == (72, W, W) and not done
    with pytest.raises(ValueError, match="Dict observation space with key 'observation'"):
        ObservationOnly(env)


# ---------------------------------------------------------------------- TorchRL
@pytest.mark.integration
@pytest.mark.timeout(300)
def test_torchrl_pettingzoo_wrapper_collector_and_ppo_loss():
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
    agents = ["player_0", "player_1"]
    env = PettingZooWrapper(
        env=kardinal_v0.env(players=2, window=W),
        use_mask=True,
        group_map={"players": agents},
        categorical_actions=True,
        seed=0,
    )
    obs_key, mask_key = ("players", "observation", "observation"), ("players", "action_mask")
    n_actions = env.full_action_spec["players", "action"].space.n
    assert n_actions == 17 * W * W + 5

    # Reset and step with masked random actions. ("players", "mask") marks the acting seat; TorchRL
    # gives the waiting seat an all-True action mask (its action is ignored in AEC envs).
    td = env.reset()
    assert td[obs_key].shape == (2, 72, W, W)
    gen = torch.Generator().manual_seed(0)
    for _ in range(10):
        acting = td["players", "mask"]
        assert acting.sum() == 1
        seat = int(acting.nonzero())
        mask = td[mask_key]
        assert 0 < mask[seat].sum() < n_actions and mask[1 - seat].all()
        legal = mask[seat].nonzero().squeeze(-1)
        action = torch.zeros(2, dtype=torch.long)
        action[seat] = legal[torch.randint(len(legal), (), generator=gen)]
        td["players", "action"] = action
        td = env.step(td)["next"]

    class Net(nn.Module):
        def __init__(self, out: int):
            super().__init__()
            self.body = nn.Sequential(nn.Flatten(-3), nn.Linear(72 * W * W, 32), nn.Tanh(), nn.Linear(32, out))

        def forward(self, obs):
            return self.body(obs.float() / 12)

    actor = ProbabilisticActor(
        TensorDictModule(Net(n_actions), in_keys=[obs_key], out_keys=[("players", "logits")]),
        in_keys={"logits": ("players", "logits"), "mask": mask_key},
        out_keys=[("players", "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=("players", "action_log_prob"),
    )
    critic = ValueOperator(Net(1), in_keys=[obs_key], out_keys=[("players", "state_value")])
    collector = Collector(env, actor, frames_per_batch=64, total_frames=64, auto_register_policy_transforms=False)
    data = next(iter(collector))
    collector.shutdown()
    assert data.batch_size == (64,)
    acting = data["players", "mask"]  # (64, 2): which seat acted at each step
    assert (acting.sum(-1) == 1).all()
    chosen = data["players", "action"][acting]
    assert data["players", "action_mask"][acting].gather(-1, chosen[:, None]).all()  # only legal moves

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
    assert grads and all(torch.isfinite(g).all() for g in grads)


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


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_tianshou_pettingzoo_env_marl_collect_and_update():
    torch = pytest.importorskip("torch")
    pytest.importorskip("tianshou")
    from tianshou.algorithm import DQN
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.utils.torch_utils import policy_within_training_step
    from torch import nn

    from kardinal_env.integrations.tianshou import make_env

    np.random.seed(0)  # Tianshou's exploration and the random opponent draw from NumPy's global generator
    torch.manual_seed(0)

    def make():
        return make_env("kardinal", players=2, window=W)

    env = make()
    assert env.agents == ["player_0", "player_1"]
    obs, _ = env.reset()
    assert obs["agent_id"] == "player_0" and obs["obs"].shape == (72, W, W) and obs["mask"].any()

    class QNet(nn.Module):
        def __init__(self, n: int):
            super().__init__()
            self.body = nn.Sequential(nn.Flatten(), nn.Linear(72 * W * W, 32), nn.ReLU(), nn.Linear(32, n))

        def forward(self, obs, state=None, info=None):
            return self.body(torch.as_tensor(np.asarray(obs), dtype=torch.float32) / 12), state

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
    # player_0 learns with DQN, player_1 plays uniformly random legal moves.
    algo = MultiAgentOffPolicyAlgorithm(
        algorithms=[dqn, MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space)], env=env
    )
    envs = DummyVectorEnv([make, make])
    buffer = VectorReplayBuffer(1000, len(envs))
    collector = Collector(algo, envs, buffer, exploration_noise=True)
    collector.reset()
    result = collector.collect(n_step=256)
    assert result.n_collected_steps >= 256 and len(buffer) >= 256 and result.n_collected_episodes >= 4
    # Every stored action was legal for the seat that made it (the env would have ended the game otherwise).
    stored = buffer[buffer.sample_indices(0)]
    masks = np.asarray(stored.obs.mask, dtype=bool)
    assert masks[np.arange(len(stored.act)), np.asarray(stored.act, dtype=np.int64)].all()
    # The last step of every finished game holds the seats' win shares (a shared win splits 1).
    ends = np.asarray(stored.terminated, dtype=bool)
    assert ends.sum() >= 4 and np.allclose(np.asarray(stored.info.win_share)[ends].sum(axis=1), 1.0)
    before = [p.detach().clone() for p in qnet.parameters()]
    with policy_within_training_step(algo.policy):
        algo.update(sample_size=32, buffer=buffer)
    assert any(not torch.equal(a, b) for a, b in zip(before, qnet.parameters()))


# ---------------------------------------------------------------------- Ray RLlib
@pytest.mark.integration
@pytest.mark.timeout(400)
def test_rllib_league_self_play_checkpoint_plays_via_rllib_agent(tmp_path):
    pytest.importorskip("ray.rllib")
    from agents.networks.rllib_agent import RLlibAgent
    from kardinal_env.integrations import rllib_train as train_rllib

    out = tmp_path / "rllib"
    # One iteration on a local Ray; threshold -1 so the league takes its first frozen snapshot.
    rc = train_rllib.main(
        [
            "--players",
            "2",
            "--window",
            str(W),
            "--iterations",
            "1",
            "--train-batch-size",
            "256",
            "--minibatch-size",
            "128",
            "--num-epochs",
            "1",
            "--channels",
            "8",
            "--blocks",
            "2",
            "--win-rate-threshold",
            "-1",
            "--min-episodes",
            "0",
            "--object-store-mb",
            "128",
            "--out",
            str(out),
        ]
    )
    assert rc == 0
    progress = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    assert progress[-1]["env_steps"] >= 256 and progress[-1]["league_size"] == 3
    checkpoint = out / "checkpoint"
    assert (checkpoint / "learner_group" / "learner" / "rl_module" / "main_v1").is_dir()

    from kardinal_env.integrations.common import GameFeaturizer

    agent = RLlibAgent.from_checkpoint(checkpoint)
    assert agent.obs_shape == (72, W, W)
    # The module is fully convolutional: it plays the unbounded game of scripts/evaluate.py (window 53).
    game = _play_full_game(agent, Rules(players=2), seed=5)
    assert game.is_over
    # The window variant it was trained on: the env option window=9 of kardinal_v0.env(window=9)
    # (Kardinal's codec and encoder default to window 53, whatever the rules' window).
    featurizer = agent.featurizer = GameFeaturizer(window=W)
    for seat in (0, 1):
        game = _play_full_game(agent, Rules(players=2, window=W), agent_seat=seat, seed=seat)
        assert game.winners()

    # --resume brings the league back (snapshots re-added before the weights are restored).
    rc = train_rllib.main(
        [
            "--players",
            "2",
            "--window",
            str(W),
            "--iterations",
            "1",
            "--train-batch-size",
            "128",
            "--minibatch-size",
            "128",
            "--num-epochs",
            "1",
            "--channels",
            "8",
            "--blocks",
            "2",
            "--win-rate-threshold",
            "-1",
            "--min-episodes",
            "0",
            "--object-store-mb",
            "128",
            "--out",
            str(tmp_path / "resumed"),
            "--resume",
            str(checkpoint),
        ]
    )
    assert rc == 0
    resumed = tmp_path / "resumed" / "checkpoint"
    assert json.loads((tmp_path / "resumed" / "progress.jsonl").read_text().splitlines()[-1])["league_size"] == 4
    old = RLlibAgent.from_checkpoint(checkpoint, module_id="main_v1").module.state_dict()
    new = RLlibAgent.from_checkpoint(resumed, module_id="main_v1").module.state_dict()
    assert all(np.array_equal(old[k].numpy(), new[k].numpy()) for k in old)

    # The module's masked logits: every legal action finite, every illegal one at FLOAT_MIN.
    game = Game(Rules(players=2, window=W))
    logits = agent.action_logits(game)
    assert logits.shape == (17 * W * W + 5,)
    mask = featurizer.action_mask(game).astype(bool)
    assert np.isfinite(logits).all() and logits[mask].min() > -1e30 and (logits[~mask] < -1e30).all()


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
