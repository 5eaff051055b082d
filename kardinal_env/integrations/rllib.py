"""Ray RLlib (new API stack) for every registered game: masking RLModules, league self-play, env registration.

Imports ray (``pip install "kardinal-env[rllib]"``); ``docs/libraries/rllib.md`` shows it at work.

* :func:`register_game_env` — registers ``PettingZooEnv(aec_env(game, **env_config))`` under the game's ``env_name``
  (``"kardinal_v0"``, ...), observations as dicts (``"observation"``, ``"action_mask"``), with ``illegal_action="lose"``
  (:data:`ILLEGAL_ACTION`) unless ``env_config`` names another, so RLlib's unmasked pre-check passes.
* :class:`KardinalMaskedRLModule` — a convolutional actor-critic for board observations ``(C, H, W)`` (scaled by
  ``COUNT_SCALE``); on Kardinal's action layout a 1×1 convolution gives the 17 spatial action planes and a pooled linear
  layer the 5 others. ``model_config``: ``channels`` (32), ``blocks`` (3), ``value_hidden`` (64).
  :class:`MaskedMLPRLModule` — the same for flat observations: divided by ``obs_scale`` (the encoder's ``scale`` when it
  has one), an MLP (``hidden``, ``[128, 128]``), policy and value heads. Both mask illegal logits to ``FLOAT_MIN`` and
  have value heads. :class:`MaskedRandomRLModule` plays uniformly among legal actions.
* :class:`LeagueMapping` — one seat per episode (from the episode id) plays ``"main"``, every other seat an opponent
  from the league (``"random"``, then frozen snapshots ``"main_v1"``, ...).
* :class:`LeagueCallback` — logs ``win_rate`` (``"main"``'s mean :func:`~kardinal_env.core.rewards.win_share` over the
  last 100 episodes) and ``league_size``; past ``win_rate_threshold`` it freezes a copy of ``"main"`` as a new opponent.
  :func:`restore_league` resumes a league run.
* :func:`ppo_config` — a ``PPOConfig`` putting these together (tiny defaults; module: :func:`default_module`).

Each seat receives its own reward through ``PettingZooEnv``, so ``"main"`` learns only from the seat it plays.
Checkpoints are ordinary RLlib checkpoints; ``agents.networks.rllib_agent.RLlibAgent`` plays one without starting Ray.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS
from ray.rllib.utils.torch_utils import FLOAT_MIN
from ray.tune.registry import register_env
from torch import nn

from kardinal_env.core.env_utils import FreshObservationWrapper
from kardinal_env.core.registry import GameSpec, get_game
from kardinal_env.core.rewards import win_share
from kardinal_env.integrations.common import aec_env
from kardinal_env.integrations.torch_nets import conv_stack, pool
from kardinal_env.kardinal.actions import NON_SPATIAL_ACTIONS, SPATIAL_ACTION_PLANES
from kardinal_env.kardinal.observation import COUNT_SCALE

__all__ = [
    "ILLEGAL_ACTION",
    "KardinalMaskedRLModule",
    "LeagueCallback",
    "LeagueMapping",
    "MaskedMLPRLModule",
    "MaskedRandomRLModule",
    "default_module",
    "env_creator",
    "ppo_config",
    "register_game_env",
    "restore_league",
    "split_obs",
]

MAIN = "main"
RANDOM = "random"


#: The ``illegal_action`` of the environments :func:`env_creator` makes unless ``env_config`` names one.
ILLEGAL_ACTION = "lose"


def env_creator(env_config: dict | None = None, game: str | GameSpec = "kardinal") -> PettingZooEnv:
    """``PettingZooEnv`` over ``game``'s AEC environment made with ``env_config`` (:func:`register_game_env`)."""
    options = {"illegal_action": ILLEGAL_ACTION, **dict(env_config or {})}
    # RLlib's episodes keep the observations they are given: copies (kardinal_v0 hands out its buffers).
    return PettingZooEnv(FreshObservationWrapper(aec_env(game, **options)))


def register_game_env(game: str | GameSpec = "kardinal", name: str | None = None) -> str:
    """Register ``game``'s env under ``name`` (default: its ``env_name``), returned; the game must be on every node."""
    spec = get_game(game)
    name = name or spec.env_name
    register_env(name, functools.partial(env_creator, game=spec.name))
    return name


def split_obs(obs: dict) -> tuple:
    """``(board, mask)`` of a (batched) observation dict; accepts ``"observation"`` or RLlib's ``"observations"``."""
    board = obs["observation"] if "observation" in obs else obs["observations"]
    return board, obs["action_mask"]


def _apply_mask(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.where(mask.to(torch.bool), logits, torch.full_like(logits, FLOAT_MIN))


def _board_space(space: Any, who: str) -> Any:
    if not isinstance(space, gym.spaces.Dict) or "action_mask" not in space.spaces:
        raise ValueError(
            f"{who} needs an observation space Dict(observation=Box(...), action_mask=Box(A)), got {space!r}"
        )
    return space["observation"] if "observation" in space.spaces else space["observations"]


class _MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """Masking and values; a subclass builds ``value_head``, ``_features(obs) -> (x, embeddings)`` and ``_logits``."""

    def _outputs(self, batch) -> tuple[torch.Tensor, torch.Tensor]:
        obs, mask = split_obs(batch[Columns.OBS])
        x, embeddings = self._features(obs)
        return _apply_mask(self._logits(x, embeddings), mask), embeddings

    def _forward(self, batch, **kwargs):
        return {Columns.ACTION_DIST_INPUTS: self._outputs(batch)[0]}

    def _forward_train(self, batch, **kwargs):
        logits, embeddings = self._outputs(batch)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: embeddings}

    def compute_values(self, batch, embeddings=None):
        if embeddings is None:
            embeddings = self._features(split_obs(batch[Columns.OBS])[0])[1]
        return self.value_head(embeddings).squeeze(-1)


class KardinalMaskedRLModule(_MaskedActorCritic):
    def setup(self):
        board_space = _board_space(self.observation_space, "KardinalMaskedRLModule")
        if len(board_space.shape) != 3:
            raise ValueError(
                f"KardinalMaskedRLModule needs a board observation (C, H, W), got shape {board_space.shape}; "
                "use MaskedMLPRLModule for a flat observation"
            )
        channels_in, height, width = board_space.shape
        self.window = width
        self.num_actions = num_actions = int(self.action_space.n)
        cfg = self.model_config or {}
        ch = int(cfg.get("channels", 32))
        hidden = int(cfg.get("value_hidden", 64))
        self.trunk = conv_stack(channels_in, ch, int(cfg.get("blocks", 3)))
        # The action layout of kardinal_env.kardinal.actions: plane * W*W + square, then 5 scalar actions.
        self.spatial_head = num_actions == SPATIAL_ACTION_PLANES * height * width + NON_SPATIAL_ACTIONS
        if self.spatial_head:
            self.plane_logits = nn.Conv2d(ch, SPATIAL_ACTION_PLANES, 1)
        # on another action layout, a plain linear head on the pooled features
        self.scalar_logits = nn.Linear(2 * ch, NON_SPATIAL_ACTIONS if self.spatial_head else num_actions)
        self.value_head = nn.Sequential(nn.Linear(2 * ch, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def _features(self, board: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.trunk(board.float() * COUNT_SCALE)
        return x, pool(x)

    def _logits(self, x: torch.Tensor, pooled: torch.Tensor) -> torch.Tensor:
        if self.spatial_head:
            return torch.cat([self.plane_logits(x).flatten(1), self.scalar_logits(pooled)], dim=-1)
        return self.scalar_logits(pooled)


class MaskedMLPRLModule(_MaskedActorCritic):
    def setup(self):
        space = _board_space(self.observation_space, "MaskedMLPRLModule")
        size = int(np.prod(space.shape))
        self.num_actions = int(self.action_space.n)
        cfg = self.model_config or {}
        hidden = [int(h) for h in cfg.get("hidden", (128, 128))]
        if not hidden or min(hidden) < 1:
            raise ValueError(f"MaskedMLPRLModule: model_config['hidden'] must be positive layer sizes, got {hidden}")
        scale = cfg.get("obs_scale")
        divisor = torch.ones(size) if scale is None else torch.as_tensor(np.asarray(scale, dtype=np.float32))
        if divisor.shape != (size,):
            raise ValueError(
                f"MaskedMLPRLModule: model_config['obs_scale'] has {divisor.numel()} entries, the observation {size}"
            )
        self.register_buffer("inv_scale", 1.0 / divisor)
        layers: list[nn.Module] = []
        for width, h in zip([size, *hidden], hidden):
            layers += [nn.Linear(width, h), nn.ReLU()]
        self.trunk = nn.Sequential(*layers)
        self.policy_head = nn.Linear(hidden[-1], self.num_actions)
        self.value_head = nn.Linear(hidden[-1], 1)

    def _features(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.trunk(obs.float().flatten(1) * self.inv_scale)
        return features, features

    def _logits(self, features: torch.Tensor, _: torch.Tensor) -> torch.Tensor:
        return self.policy_head(features)


class MaskedRandomRLModule(TorchRLModule):
    """Uniformly random legal actions: all-zero logits under the mask (no parameters to train)."""

    def setup(self):
        # A dummy parameter for the usual device placement and state handling.
        self._dummy = nn.Parameter(torch.zeros(1), requires_grad=False)

    def _forward(self, batch, **kwargs):
        _, mask = split_obs(batch[Columns.OBS])
        logits = torch.zeros(mask.shape, dtype=torch.float32, device=mask.device)
        return {Columns.ACTION_DIST_INPUTS: _apply_mask(logits, mask)}

    _forward_train = _forward


def _stable_hash(*parts) -> int:
    return zlib.crc32("/".join(str(p) for p in parts).encode())


def _seat(agent_id) -> int:
    return int(str(agent_id).rsplit("_", 1)[-1])


class LeagueMapping:
    """Picklable agent→module mapping: seat ``crc32(episode.id_) % players`` plays ``main``, every other seat an
    opponent drawn from ``opponents`` (seeded by the episode id and seat)."""

    def __init__(self, players: int, opponents: Sequence[str] = (RANDOM,), main: str = MAIN):
        if not opponents:
            raise ValueError("LeagueMapping needs at least one opponent module id")
        self.players = int(players)
        self.opponents = tuple(opponents)
        self.main = main

    def __call__(self, agent_id, episode=None, **kwargs) -> str:
        seat = _seat(agent_id)
        eid = getattr(episode, "id_", None)
        if seat == _stable_hash(eid) % self.players:
            return self.main
        return self.opponents[_stable_hash(eid, seat) % len(self.opponents)]

    def __repr__(self) -> str:
        return f"LeagueMapping(players={self.players}, opponents={list(self.opponents)}, main={self.main!r})"


class LeagueCallback(RLlibCallback):
    """Win-rate logging and league growth for :class:`LeagueMapping`: a snapshot needs ``win_rate > win_rate_threshold``
    and ``min_episodes`` episodes since the last; the opponents become all snapshots (plus ``"random"`` if
    ``keep_random``). Also logs ``main_final_reward``."""

    def __init__(
        self, players: int, win_rate_threshold: float = 0.6, min_episodes: int = 20, keep_random: bool = False
    ):
        super().__init__()
        self.players = int(players)
        self.win_rate_threshold = float(win_rate_threshold)
        self.min_episodes = int(min_episodes)
        self.keep_random = bool(keep_random)
        self.snapshots: list[str] = []
        self._episodes_since_snapshot = 0

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        """Log ``main``'s win share (its first seat's final ``infos``' ``winners``) and final rewards."""
        if metrics_logger is None:
            return
        mains = [agent_id for agent_id in episode.agent_ids if episode.module_for(agent_id) == MAIN]
        infos = episode.agent_episodes[mains[0]].get_infos() if mains else []
        winners = infos[-1].get("winners") if len(infos) else None
        if winners is not None:
            metrics_logger.log_value("win_rate", win_share(winners, _seat(mains[0])), reduce="mean", window=100)
        rewards = episode.get_rewards()
        for agent_id in mains:
            r = rewards.get(agent_id)
            if r is not None and len(r):
                metrics_logger.log_value("main_final_reward", float(r[-1]), reduce="mean", window=100)

    def on_train_result(self, *, algorithm, result, metrics_logger=None, **kwargs) -> None:
        env_results = result.get(ENV_RUNNER_RESULTS, {})
        win_rate = env_results.get("win_rate")
        self._episodes_since_snapshot += int(env_results.get("num_episodes", 0) or 0)
        enough = self._episodes_since_snapshot >= self.min_episodes
        if win_rate is not None and win_rate > self.win_rate_threshold and enough:
            self.add_snapshot(algorithm)
        result["league_size"] = len(self.snapshots) + 2  # main + random + snapshots
        result["league"] = [MAIN, RANDOM, *self.snapshots]

    def add_snapshot(self, algorithm, module_id: str | None = None) -> str:
        """Freeze ``main`` as ``main_v<k>`` (or ``module_id``), an opponent from now on; returns its id."""
        module_id = module_id or f"{MAIN}_v{len(self.snapshots) + 1}"
        main_module = algorithm.get_module(MAIN)
        opponents = [RANDOM] * self.keep_random + [*self.snapshots, module_id]
        algorithm.add_module(
            module_id=module_id,
            module_spec=RLModuleSpec.from_module(main_module),
            new_agent_to_module_mapping_fn=LeagueMapping(self.players, opponents),
            new_should_module_be_updated=[MAIN],
        )
        algorithm.set_state({"learner_group": {"learner": {"rl_module": {module_id: main_module.get_state()}}}})
        self.snapshots.append(module_id)
        self._episodes_since_snapshot = 0
        return module_id


def restore_league(algorithm, checkpoint) -> list[str]:
    """Resume a league run: add the checkpoint's snapshots ``main_v1``, … (``restore_from_path`` only fills modules the
    algorithm has; the league callback is told), then restore; returns their ids."""
    checkpoint = Path(checkpoint).resolve()
    modules = checkpoint / "learner_group" / "learner" / "rl_module"
    found = [p.name for p in modules.glob(f"{MAIN}_v*") if p.is_dir() and p.name[len(MAIN) + 2 :].isdigit()]
    ids = sorted(found, key=lambda name: int(name[len(MAIN) + 2 :]))
    callbacks = getattr(algorithm, "callbacks", None)
    for callback in callbacks if isinstance(callbacks, (list, tuple)) else [callbacks]:
        if isinstance(callback, LeagueCallback):
            for module_id in ids:
                if module_id not in callback.snapshots:
                    callback.add_snapshot(algorithm, module_id)
    algorithm.restore_from_path(str(checkpoint))
    return ids


def default_module(game: str | GameSpec = "kardinal", env_config: dict | None = None) -> tuple[type, dict]:
    """``(module_class, model_config defaults)`` for ``game``'s observation (the module docstring)."""
    options = {k: v for k, v in dict(env_config or {}).items() if k != "illegal_action"}  # not the spaces
    probe = aec_env(game, wrapped=False, **options)
    space = _board_space(probe.observation_space(probe.possible_agents[0]), "ppo_config")
    if len(space.shape) == 3:
        return KardinalMaskedRLModule, {"channels": 32, "blocks": 3, "value_hidden": 64}
    model_config: dict[str, Any] = {"hidden": [128, 128]}
    scale = getattr(getattr(probe, "encoder", None), "scale", None)
    if scale is not None:
        model_config["obs_scale"] = [float(v) for v in np.asarray(scale, dtype=np.float32).ravel()]
    return MaskedMLPRLModule, model_config


def ppo_config(
    game: str | GameSpec = "kardinal",
    players: int | None = None,
    env_config: dict | None = None,
    league: bool = True,
    win_rate_threshold: float = 0.6,
    min_episodes: int = 20,
    model_config: dict | None = None,
    module_class: type | None = None,
    train_batch_size: int = 512,
    minibatch_size: int = 128,
    num_epochs: int = 2,
    lr: float = 3e-4,
    num_env_runners: int = 0,
    num_envs_per_env_runner: int = 1,
    seed: int | None = None,
):
    """A PPO config for self-play on ``game``'s environment (registered). ``env_config``: the environment options
    besides ``players``; ``module_class`` / ``model_config``: the trained module (default :func:`default_module`;
    entries override its defaults). ``league``: ``main`` against the league, else every seat plays ``main``."""
    from ray.rllib.algorithms.ppo import PPOConfig

    spec = get_game(game)
    players = spec.check_players(players)
    env_config = {**(env_config or {}), "players": players}
    name = register_game_env(spec)
    default_class, defaults = default_module(spec, env_config)  # builds one environment: bad options fail here
    if module_class is not None:
        default_class, defaults = module_class, {}
    specs = {MAIN: RLModuleSpec(module_class=default_class, model_config={**defaults, **(model_config or {})})}
    config = (
        PPOConfig()
        # the env pre-check stays on: its unmasked random actions end episodes by forfeit (illegal_action="lose")
        .environment(name, env_config=env_config)
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=num_envs_per_env_runner,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
        )
        .debugging(seed=seed)
    )
    if league:
        specs[RANDOM] = RLModuleSpec(module_class=MaskedRandomRLModule)
        config = config.callbacks(
            functools.partial(LeagueCallback, players, win_rate_threshold=win_rate_threshold, min_episodes=min_episodes)
        )
    mapping = LeagueMapping(players, (RANDOM,) if league else (MAIN,))  # without a league every seat plays main
    return config.multi_agent(policies=set(specs), policy_mapping_fn=mapping, policies_to_train=[MAIN]).rl_module(
        rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs)
    )
