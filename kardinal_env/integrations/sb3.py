"""Stable-Baselines3 / sb3-contrib ``MaskablePPO`` for every registered game.

Imports gymnasium, torch, stable_baselines3 and sb3_contrib; install with
``pip install "kardinal-env[sb3]"``. Nothing else in ``kardinal_env`` imports this module.

**The observation-only view.** The single-agent view of a game
(:class:`kardinal_env.core.single_agent.VsBots`, registered with Gymnasium as
``kardinal/KardinalVsBots-v0``, ``kardinal/KardinalKoenigVsBots-v1``, ...) observes a
``Dict(observation, action_mask)``, which SB3 accepts only with ``MultiInputPolicy``.
:class:`ObservationOnly` exposes the ``observation`` Box alone, so ``"MlpPolicy"`` (and the
extractors below) work, while ``action_masks()`` still gives the learner's mask, where
``MaskablePPO`` looks for it::

    env = ObservationOnly(gym.make("kardinal/KardinalKoenigVsBots-v1", players=3))
    model = MaskablePPO("MlpPolicy", env)

Two ways to train a ``MaskablePPO`` model, for any game (``game=`` a registered game's name):

1. **Against fixed bots** — :func:`make_vs_bots_env`: ``ObservationOnly(VsBots(game, ...))``, the
   learner plays one seat, the others are baselines (agent objects or spec strings) or ``"random"``.
2. **Self-play** — :class:`SelfPlayEnv`: every episode the learner takes a seat (random by default,
   so it plays every seat) and each other seat is played by an opponent drawn from a pool:
   ``"random"``, ``"self"`` (the live policy being trained) and frozen snapshots of it, which
   :class:`SelfPlayCallback` adds while training. :func:`make_self_play_env` builds it.

``players`` defaults to the game's ``default_players`` (2 for Kardinal, 4 for Kardinal & König);
every other keyword goes to the game's AEC environment (rule options, ``reward``, env options such
as Kardinal's ``window``, whose default is the lossless 53).

**Whose reward.** Every transition SB3 sees is a decision of the learner's seat, and its reward is
that seat's reward (terminal ±1 by default, plus any per-move reward the game's environment gives,
such as Kardinal's ``chip_shaping``, including the final reward when an opponent's move ends the
game). The opponents' moves happen inside ``step``. This is the fix for PettingZoo issue #1147 (the
SB3 tutorial once trained on the opponent's reward) taken one step further: the tutorial's wrapper
hands SB3 the seats' decisions interleaved in one trajectory, so GAE bootstraps a seat's value from
the *opponent's* next state; here each trajectory belongs to one seat, so returns and advantages
stay that seat's.

**Networks.** Kardinal observes a ``(72, W, W)`` uint8 board: ``MlpPolicy`` flattens it, which is
fine for small windows such as ``window=9``; on the full window 53 it has 29M parameters, so pass
``policy_kwargs=dict(features_extractor_class=KardinalCropCNN)`` (a fixed crop around the cathedral,
4.2M parameters in the whole policy) or :class:`KardinalCNN` (the whole window, globally pooled);
``docs/libraries/sb3.md`` has the measured cost and the trade-off. Kardinal & König observes a flat
``float32`` vector of counts (494 entries on the default board): ``MlpPolicy`` takes it as it is.

Playing a trained model: :class:`SB3Agent` (``select_move(game) -> str``, the ``agents`` protocol)
from ``SB3Agent.load("model.zip")`` or ``SB3Agent.from_model(model)``, for a game of any registered
game (the observation and mask come from the game's encoder and codec).
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


# ---------------------------------------------------------------------- wrappers and helpers
class ObservationOnly(gym.ObservationWrapper):
    """``Dict(observation, action_mask)`` → the ``observation`` Box; ``action_masks()`` gives the mask (bool).

    Wraps any env whose observation space is such a Dict and that has ``action_masks()`` somewhere
    in its wrapper chain (the single-agent view :class:`kardinal_env.core.single_agent.VsBots`).
    """

    def __init__(self, env: gym.Env):
        space = env.observation_space
        if not isinstance(space, spaces.Dict) or "observation" not in space.spaces:
            raise ValueError(f"ObservationOnly needs a Dict observation space with key 'observation', got {space!r}")
        super().__init__(env)
        self.observation_space = space["observation"]

    def observation(self, observation):
        return observation["observation"]

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as bool (``MaskablePPO`` calls this)."""
        return np.asarray(self.env.get_wrapper_attr("action_masks")(), dtype=bool)


def _players(spec: GameSpec, players: int | None) -> int:
    return spec.check_players(players)


def make_vs_bots_env(
    game: str | GameSpec = "kardinal",
    players: int | None = None,
    opponents: Any = "random",
    learner_seat: int | str = "random",
    **env_kwargs: Any,
) -> ObservationOnly:
    """``ObservationOnly(VsBots(game, players, opponents, learner_seat, **env_kwargs))``.

    ``opponents``: ``"random"``, an agent (``select_move(game)``), a callable ``game -> move``, an agent
    spec string, or a list with one per other seat (see :class:`~kardinal_env.core.single_agent.VsBots`).
    """
    spec = get_game(game)
    env = VsBots(
        game=spec.name,
        players=_players(spec, players),
        opponents=opponents,
        learner_seat=learner_seat,
        **env_kwargs,
    )
    return ObservationOnly(env)


# ---------------------------------------------------------------------- playing a policy
class SB3Agent:
    """A (maskable) SB3 policy as an agent: ``select_move(game) -> str`` (``agents.base`` protocol).

    ``greedy=True`` plays the most probable legal action; otherwise it samples (torch's generator,
    seeded with ``seed`` when given). The observation and the mask come from the game's encoder and
    codec (:class:`~kardinal_env.integrations.common.GameFeaturizer`, with ``env_options`` when the
    environment was made with options besides the rules); the observation must have the shape the
    policy was trained on (SB3 policies have fixed input shapes), otherwise ``select_move`` raises
    ``ValueError`` naming both shapes.
    """

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
        """An agent for ``model.policy`` (a copy on the CPU if ``frozen``, else the live policy).

        The copy is a new policy built from the policy's constructor parameters with its weights
        loaded (as ``BasePolicy.load`` does): a deep copy fails after ``learn``, when the policy's
        action distribution still holds tensors of the last gradient step."""
        policy = model.policy
        if frozen:
            frozen_policy = type(policy)(**policy._get_constructor_parameters())
            frozen_policy.load_state_dict(policy.state_dict())
            policy = frozen_policy.to("cpu")
            policy.set_training_mode(False)
        return cls(policy, **kw)

    @classmethod
    def load(cls, path, **kw) -> SB3Agent:
        """An agent for a saved ``MaskablePPO`` model (``model.save(path)``)."""
        from sb3_contrib import MaskablePPO

        return cls(MaskablePPO.load(path, device="cpu").policy, name=kw.pop("name", f"sb3:{path}"), **kw)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The policy's action for an observation and legal-action mask (as an environment gives them)."""
        expected = self.policy.observation_space.shape
        if observation.shape != expected:
            raise ValueError(
                f"{self.name}: the policy expects observations {expected}, the game gives {observation.shape}"
            )
        policy = self.policy
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


# ---------------------------------------------------------------------- self-play env
class SelfPlayEnv(VsBots):
    """Self-play of any registered game as a single-agent env: the learner's seat against a pool.

    ``pool`` entries: ``"random"`` (uniform legal moves from the env's generator), ``"self"`` (the
    live policy set with :meth:`set_live_policy`; random until then), an :class:`SB3Agent` (e.g. a
    frozen snapshot; it observes through this env: its ``act`` gets the env's observation and mask of
    the seat on turn) or any agent with ``select_move(game)`` / callable ``game -> str``.
    At each reset every other seat draws one entry (uniformly, from the env's seeded generator);
    ``learner_seat`` defaults to ``"random"``; ``players`` to the game's ``default_players``. Other
    keyword arguments go to the game's AEC environment. The observation is the ``observation`` Box
    only; the mask comes from ``action_masks()``.
    """

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
        players = _players(spec, players)
        super().__init__(
            game=spec.name,
            players=players,
            learner_seat=learner_seat,
            opponents=[self._seat_policy(k) for k in range(players - 1)],
            **env_kwargs,
        )
        self.observation_space = self.aec.observation_space(self.aec.possible_agents[0])["observation"]

    # -- pool management (call through VecEnv.env_method)
    @property
    def pool(self) -> list:
        return list(self._pool)

    def add_opponent(self, opponent) -> int:
        """Add an opponent; with ``max_pool`` the oldest non-string entry is dropped. Returns the pool size."""
        self._pool.append(opponent)
        if self.max_pool is not None:
            while len(self._pool) > self.max_pool:
                old = next((i for i, p in enumerate(self._pool) if not isinstance(p, str)), None)
                if old is None:
                    break
                del self._pool[old]
        return len(self._pool)

    def set_live_policy(self, policy) -> None:
        """The policy that ``"self"`` entries play (an ``SB3Agent`` or SB3 policy)."""
        self._live = policy if (policy is None or hasattr(policy, "select_move")) else SB3Agent(policy)

    # -- internals
    def _seat_policy(self, index: int):
        def play(game) -> str:
            choice = self._drawn.get(index)
            if choice is None:
                choice = self._drawn[index] = self._pool[int(self.np_random.integers(len(self._pool)))]
            if choice == "self":
                choice = self._live if self._live is not None else "random"
            if isinstance(choice, str):  # "random"
                moves = game.legal_moves()
                return moves[int(self.np_random.integers(len(moves)))]
            if isinstance(choice, SB3Agent):  # observes through this env (its encoder, codec and options)
                observation = self.aec.observe(self.aec.agent_selection)
                return self.aec.decode_action(choice.act(observation["observation"], observation["action_mask"]))
            if hasattr(choice, "select_move"):
                return choice.select_move(game)
            return choice(game)  # type: ignore[operator]  # a callable game -> move

        return play

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
    """A :class:`SelfPlayEnv` (it has ``action_masks()`` itself, so no ``ActionMasker`` is needed)."""
    return SelfPlayEnv(game=game, pool=pool, players=players, **kw)


class SelfPlayCallback(BaseCallback):
    """Keeps the self-play opponents current while ``MaskablePPO.learn`` runs.

    At the start it points every env's ``"self"`` entries at the live policy (in-process vector
    envs only: with ``SubprocVecEnv`` each worker gets a copy, i.e. a snapshot). Every
    ``snapshot_every`` env steps (summed over envs) it adds a frozen copy of the policy to each
    env's pool (the env's ``max_pool`` bounds the pool). These agents observe through the env
    (:meth:`SB3Agent.act` on the env's own observation and mask).
    """

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


# ---------------------------------------------------------------------- features extractors
def _board_window(observation_space, who: str) -> int:
    return check_window(getattr(observation_space, "shape", None), who)


class KardinalCropCNN(BaseFeaturesExtractor):
    """Recommended SB3 extractor for large windows: a fixed ``crop x crop`` square around the cathedral.

    SB3 wrapper of :class:`kardinal_env.integrations.torch_nets.CropTrunk`: the 17 spatial planes of
    the ``crop x crop`` squares centred on the nave (``|x|, |y| <= crop // 2``) go through two 3x3
    convolutions and a strided one, are flattened (so the features keep *where* things are, which
    SB3's linear action head over absolute action indices needs) and are joined with an embedding
    of the 55 constant planes read from one square. Its size does not depend on the window: about
    1.0M parameters, 4.2M in the whole policy on window 53 against 29.0M with ``MlpPolicy``.

    Lossy by design: buildings and sites outside the crop are invisible. In random 2- and 4-player
    games the sites stayed within ``crop=21`` at 99.8% of decisions and within ``crop=15`` at 94%.
    The action head still covers the whole window, so moves outside the crop stay playable and the
    mask still applies. :class:`KardinalCNN` is the lossless, position-blind alternative.

    ``crop`` must be odd and at most the window; ``None`` means ``min(21, W)``.
    """

    def __init__(
        self,
        observation_space: spaces.Box,
        crop: int | None = None,
        channels: int = 32,
        features_dim: int = 256,
        scalar_dim: int = 64,
    ):
        window = _board_window(observation_space, "KardinalCropCNN")
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
    """Lossless alternative: convolutions over the whole window, mean- and max-pooled over the squares.

    SB3 wrapper of :class:`kardinal_env.integrations.torch_nets.PooledTrunk`: ``blocks`` 3x3
    convolutions (``channels`` wide) on the 17 spatial planes of the full window, then the mean and
    the maximum over all squares, joined with an embedding of the 55 constant planes:
    ``features_dim = 2 * channels + scalar_dim``. It sees every square of any window with few
    parameters, but global pooling forgets *where* a feature is, so SB3's linear action head cannot
    tell one square's build from another's through it; it suits value estimates and small windows.
    Our own network and :mod:`kardinal_env.integrations.rllib` avoid that with a fully
    convolutional policy head instead.
    """

    def __init__(self, observation_space: spaces.Box, channels: int = 32, blocks: int = 3, scalar_dim: int = 64):
        _board_window(observation_space, "KardinalCNN")
        try:
            trunk = PooledTrunk(channels=channels, blocks=blocks, scalar_dim=scalar_dim)
        except ValueError as exc:
            raise ValueError(f"KardinalCNN: {exc}") from None
        super().__init__(observation_space, features_dim=trunk.features_dim)
        self.trunk = trunk

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.trunk(observations)
