"""Stable-Baselines3 / sb3-contrib ``MaskablePPO`` for every registered game.

Imports gymnasium, torch, stable_baselines3 and sb3_contrib (``pip install "kardinal-env[sb3]"``);
``docs/libraries/sb3.md`` shows it at work, with the networks' measured cost.

* :class:`ObservationOnly` — only the ``observation`` Box of the single-agent view
  (:class:`kardinal_env.core.single_agent.VsBots`), for ``"MlpPolicy"`` and the extractors below; ``action_masks()``
  still gives ``MaskablePPO`` the learner's mask.
* :func:`make_vs_bots_env` — train against fixed bots: ``ObservationOnly(VsBots(game, ...))``.
* :class:`SelfPlayEnv` (:func:`make_self_play_env`) — self-play: every episode the learner takes a seat (random by
  default) and each other seat draws an opponent from a pool: ``"random"``, ``"self"`` (the live policy) and frozen
  snapshots, which :class:`SelfPlayCallback` adds while training.
* :class:`SB3Agent` — a trained policy as an agent (``select_move(game) -> str``) for any registered game.
* :class:`KardinalCropCNN`, :class:`KardinalCNN` — features extractors for Kardinal's ``(72, W, W)`` board
  (:mod:`kardinal_env.integrations.torch_nets`): ``MlpPolicy`` flattens the board, fine for small windows but 29M
  parameters on the full window 53. Kardinal & König's flat vector suits ``MlpPolicy``.

``players`` defaults to the game's ``default_players``; every other keyword goes to the game's AEC environment (rule
options, ``reward``, env options such as Kardinal's ``window``).

**Whose reward.** Every transition SB3 sees is a decision of the learner's seat, with that seat's reward (the final one
too when an opponent's move ends the game); the opponents move inside ``step``. So each trajectory belongs to one seat,
and GAE never bootstraps a seat's value from an opponent's state (the PettingZoo SB3 tutorial's flaw, PettingZoo issue
#1147).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from kardinal_env.core.registry import GameSpec, get_game
from kardinal_env.core.single_agent import VsBots
from kardinal_env.integrations.common import GameFeaturizer
from kardinal_env.integrations.torch_nets import CropTrunk, PooledTrunk, check_window

__all__ = [
    "KardinalCNN",
    "KardinalCropCNN",
    "ObservationOnly",
    "SB3Agent",
    "SelfPlayCallback",
    "SelfPlayEnv",
    "make_self_play_env",
    "make_vs_bots_env",
]


class ObservationOnly(gym.ObservationWrapper):
    """``Dict(observation, action_mask)`` → the ``observation`` Box; ``action_masks()`` (bool) from the wrapped env."""

    def __init__(self, env: gym.Env):
        space = env.observation_space
        if not isinstance(space, spaces.Dict) or "observation" not in space.spaces:
            raise ValueError(f"ObservationOnly needs a Dict observation space with key 'observation', got {space!r}")
        super().__init__(env)
        self.observation_space = space["observation"]

    def observation(self, observation):
        return observation["observation"]

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.env.get_wrapper_attr("action_masks")(), dtype=bool)


def make_vs_bots_env(
    game: str | GameSpec = "kardinal",
    players: int | None = None,
    opponents: Any = "random",
    learner_seat: int | str = "random",
    **env_kwargs: Any,
) -> ObservationOnly:
    spec = get_game(game)
    players = spec.check_players(players)
    return ObservationOnly(
        VsBots(game=spec.name, players=players, opponents=opponents, learner_seat=learner_seat, **env_kwargs)
    )


class SB3Agent:
    """A (maskable) SB3 policy as an agent. ``greedy``: the most probable legal action, else a sample (torch's
    generator, seeded with ``seed``). Observation and mask from
    :class:`~kardinal_env.integrations.common.GameFeaturizer` (``env_options``); an observation shape other than the
    policy's is a ``ValueError`` naming both."""

    def __init__(
        self,
        policy,
        greedy: bool = False,
        name: str = "sb3",
        seed: int | None = None,
        env_options: dict | None = None,
    ):
        self.policy = policy
        self.greedy = bool(greedy)
        self.name = name
        self.featurizer = GameFeaturizer(**(env_options or {}))
        self._gen: torch.Generator | None = None
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed
        if seed is not None:
            self._gen = torch.Generator().manual_seed(int(seed))

    @classmethod
    def from_model(cls, model, frozen: bool = True, **kw) -> SB3Agent:
        """An agent for ``model.policy`` (``frozen``: a CPU copy rebuilt as ``BasePolicy.load`` does; deepcopy
        fails)."""
        policy = model.policy
        if frozen:
            frozen_policy = type(policy)(**policy._get_constructor_parameters())
            frozen_policy.load_state_dict(policy.state_dict())
            policy = frozen_policy.to("cpu")
            policy.set_training_mode(False)
        return cls(policy, **kw)

    @classmethod
    def load(cls, path, **kw) -> SB3Agent:
        from sb3_contrib import MaskablePPO

        return cls(MaskablePPO.load(path, device="cpu").policy, name=kw.pop("name", f"sb3:{path}"), **kw)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        policy = self.policy
        expected = policy.observation_space.shape
        if observation.shape != expected:
            raise ValueError(
                f"{self.name}: the policy expects observations {expected}, the game gives {observation.shape}"
            )
        with torch.no_grad():
            obs_t, _ = policy.obs_to_tensor(observation)
            dist = policy.get_distribution(obs_t, action_masks=np.asarray(mask, dtype=bool)[None])
            if self.greedy:
                return int(dist.mode()[0])
            probs = dist.distribution.probs[0]
            return int(torch.multinomial(probs.cpu(), 1, generator=self._gen)[0])

    def select_move(self, game) -> str:
        if game.is_over:
            raise ValueError("no legal move: the game is over")
        action = self.act(self.featurizer.observation(game), self.featurizer.action_mask(game))
        return self.featurizer.decode(game, action)


class SelfPlayEnv(VsBots):
    """The learner's seat against a pool of ``"random"``, ``"self"`` (the policy of :meth:`set_live_policy`; random
    until then), :class:`SB3Agent` s or any agent / callable ``game -> str``, one drawn per other seat at each reset
    (seeded). Observation: the ``observation`` Box; mask: ``action_masks()``."""

    def __init__(
        self,
        game: str | GameSpec = "kardinal",
        pool: Sequence = ("random",),
        learner_seat: int | str = "random",
        max_pool: int | None = None,
        players: int | None = None,
        **env_kwargs: Any,
    ):
        self._pool = list(pool)
        if not self._pool:
            raise ValueError("pool must not be empty")
        for entry in self._pool:
            if isinstance(entry, str) and entry not in ("random", "self"):
                raise ValueError(f"pool: unknown entry {entry!r} (strings: 'random', 'self')")
        self.max_pool = max_pool
        self._live: Any = None
        self._drawn: dict[int, object] = {}
        spec = get_game(game)
        players = spec.check_players(players)
        super().__init__(game=spec.name, players=players, learner_seat=learner_seat, **env_kwargs)
        self.observation_space = self.aec.observation_space(self.aec.possible_agents[0])["observation"]

    # called through VecEnv.env_method
    @property
    def pool(self) -> list:
        return list(self._pool)

    def add_opponent(self, opponent) -> int:
        """Add an opponent (beyond ``max_pool`` the oldest non-string entry goes); returns the pool size."""
        self._pool.append(opponent)
        while self.max_pool is not None and len(self._pool) > self.max_pool:
            old = next((i for i, p in enumerate(self._pool) if not isinstance(p, str)), None)
            if old is None:
                break
            del self._pool[old]
        return len(self._pool)

    def set_live_policy(self, policy) -> None:
        """The policy that ``"self"`` entries play (an ``SB3Agent`` or SB3 policy)."""
        self._live = policy if (policy is None or hasattr(policy, "select_move")) else SB3Agent(policy)

    def _opponent_move(self, seat: int) -> str:
        index = (seat - self.learner_seat - 1) % self.players
        choice = self._drawn.get(index)
        if choice is None:
            choice = self._drawn[index] = self._pool[int(self.np_random.integers(len(self._pool)))]
        if choice == "self":
            choice = self._live if self._live is not None else "random"
        if isinstance(choice, SB3Agent):  # observes through this env (its encoder, codec and options)
            observation = self.aec.observe(self.aec.agent_selection)
            return self.aec.decode_action(choice.act(observation["observation"], observation["action_mask"]))
        return self._play(choice)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self._drawn = {}
        obs, info = super().reset(seed=seed, options=options)
        return obs["observation"], info

    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        return obs["observation"], reward, terminated, truncated, info


def make_self_play_env(
    game: str | GameSpec = "kardinal",
    players: int | None = None,
    pool: Sequence = ("random", "self"),
    **kw: Any,
) -> SelfPlayEnv:
    return SelfPlayEnv(game=game, pool=pool, players=players, **kw)


class SelfPlayCallback(BaseCallback):
    """Points ``"self"`` at the live policy during ``MaskablePPO.learn`` (a copy per ``SubprocVecEnv`` worker) and every
    ``snapshot_every`` env steps (summed over envs) adds a frozen copy to each env's pool."""

    def __init__(self, snapshot_every: int = 10_000, verbose: int = 0):
        super().__init__(verbose)
        self.snapshot_every = int(snapshot_every)
        self._next = self.snapshot_every
        self.snapshots = 0

    def _on_training_start(self) -> None:
        self.training_env.env_method("set_live_policy", SB3Agent(self.model.policy, greedy=False, name="self"))

    def _on_step(self) -> bool:
        if self.snapshot_every > 0 and self.num_timesteps >= self._next:
            self._next += self.snapshot_every
            self.snapshots += 1
            agent = SB3Agent.from_model(self.model, frozen=True, name=f"snapshot_{self.snapshots}")
            self.training_env.env_method("add_opponent", agent)
            if self.verbose:
                print(f"self-play: snapshot {self.snapshots} at {self.num_timesteps} steps")
        return True


class KardinalCropCNN(BaseFeaturesExtractor):
    """The extractor for large windows: :class:`~kardinal_env.integrations.torch_nets.CropTrunk` (a ``crop x crop``
    square around the cathedral). Its features keep *where* things are, which SB3's linear action head needs; lossy
    outside the crop (moves there stay playable and masked)."""

    def __init__(
        self,
        observation_space: spaces.Box,
        crop: int | None = None,
        channels: int = 32,
        features_dim: int = 256,
        scalar_dim: int = 64,
    ):
        window = check_window(getattr(observation_space, "shape", None), "KardinalCropCNN")
        try:
            trunk = CropTrunk(window, crop, channels=channels, features_dim=features_dim, scalar_dim=scalar_dim)
        except ValueError as exc:
            raise ValueError(f"KardinalCropCNN: {exc}") from None
        super().__init__(observation_space, features_dim=features_dim)
        self.trunk = trunk
        self.crop = trunk.crop
        self.offset = trunk.offset

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.trunk(observations)


class KardinalCNN(BaseFeaturesExtractor):
    """The lossless alternative: :class:`~kardinal_env.integrations.torch_nets.PooledTrunk`. Pooling forgets *where* a
    feature is (SB3's linear action head cannot tell squares apart): for values and small windows."""

    def __init__(self, observation_space: spaces.Box, channels: int = 32, blocks: int = 3, scalar_dim: int = 64):
        check_window(getattr(observation_space, "shape", None), "KardinalCNN")
        try:
            trunk = PooledTrunk(channels=channels, blocks=blocks, scalar_dim=scalar_dim)
        except ValueError as exc:
            raise ValueError(f"KardinalCNN: {exc}") from None
        super().__init__(observation_space, features_dim=trunk.features_dim)
        self.trunk = trunk

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.trunk(observations)
