"""Ray RLlib (new API stack) for every registered game: masking RLModules, league self-play, env registration.

Imports ray; install with ``pip install "kardinal-env[rllib]"``. Nothing else in ``kardinal_env``
imports this module.

* :func:`register_game_env` — ``register_env(spec.env_name, ...)`` (``"kardinal_v0"``,
  ``"kardinal_koenig_v1"``, ...) so configs can name a game's environment by string:
  ``config.environment("kardinal_koenig_v1", env_config={"players": 3})``. The creator wraps the
  game's AEC environment (:func:`kardinal_env.integrations.common.aec_env`) in RLlib's
  ``PettingZooEnv``. The observation dict is passed through unchanged (keys ``"observation"`` and
  ``"action_mask"``; no renaming). The environment is made with ``illegal_action="lose"`` unless
  ``env_config`` names another (:mod:`kardinal_env.core.illegal`; ``None``: PettingZoo's classic
  ``TerminateIllegalWrapper``): an action the mask forbids ends the episode by forfeit, the offender
  gets the loss reward and the others the win reward, and the final ``infos`` name the rule. So
  RLlib's environment pre-check, which steps unmasked random actions, runs with checking on
  (:func:`ppo_config` leaves it on) and passes quietly; the masked modules never send such an action.
* :class:`KardinalMaskedRLModule` — a small convolutional actor-critic (torch) for board
  observations ``(C, H, W)`` (Kardinal's): it sets the logits of illegal actions to ``FLOAT_MIN`` in
  every forward pass (exploration, inference and training) and computes values for PPO's GAE. On
  Kardinal's action layout the policy head is fully convolutional: one 1×1 convolution gives the 17
  spatial action planes of :mod:`kardinal_env.kardinal.actions` (16 build planes + cardinal) square
  by square, and a pooled linear layer gives the 5 non-spatial actions (4 chips, keep the cardinal).
  The board is multiplied by ``COUNT_SCALE`` of :mod:`kardinal_env.kardinal.observation` (1/12).
  ``model_config`` keys: ``channels`` (32), ``blocks`` (3 conv layers), ``value_hidden`` (64).
* :class:`MaskedMLPRLModule` — the same masking actor-critic for flat observations (Kardinal &
  König's vector, any game whose encoder gives a 1-D observation): the observation divided by
  ``obs_scale`` (the encoder's ``scale``, its recommended divisors, when it has one), an MLP, a
  linear policy and value head. ``model_config`` keys: ``hidden`` (``[128, 128]``), ``obs_scale``.
* :class:`MaskedRandomRLModule` — a parameter-free module that plays uniformly among legal actions
  (the league's first opponent).
* :class:`LeagueMapping` — the agent→module mapping for any number of seats: in each episode one
  seat (chosen from the episode id) plays the trained module ``"main"``; every other seat draws an
  opponent from the league (``"random"`` at first, then frozen snapshots ``"main_v1"``, …).
* :class:`LeagueCallback` — logs ``win_rate`` (``"main"``'s mean win share over the last 100
  episodes, :func:`kardinal_env.core.rewards.win_share`: a win shared by ``k`` seats counts ``1/k``)
  and, when it passes ``win_rate_threshold``, freezes a copy of ``"main"`` with
  ``Algorithm.add_module`` (weights copied in), makes it an opponent and reports ``league_size``.
* :func:`ppo_config` — a ``PPOConfig`` for a game that puts these together (tiny defaults; scale
  with the keyword arguments or the returned config). The module is chosen from the observation's
  shape: :class:`KardinalMaskedRLModule` for a ``(C, H, W)`` board, :class:`MaskedMLPRLModule` for a
  vector.

Rewards reach RLlib through ``PettingZooEnv``: each seat receives its own (cumulative) reward when
it next observes and its final reward when the game ends, so ``"main"`` only ever learns from the
seat it plays. Checkpoints are ordinary RLlib checkpoints; ``agents.networks.rllib_agent.RLlibAgent``
plays from one without starting Ray.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Sequence
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
    "league_callback",
    "legal_argmax",
    "ppo_config",
    "register_game_env",
    "restore_league",
    "snapshot_ids",
    "split_obs",
]

MAIN = "main"
RANDOM = "random"


# ---------------------------------------------------------------------- environment
#: The ``illegal_action`` of the environments :func:`env_creator` makes unless ``env_config`` names one.
ILLEGAL_ACTION = "lose"


def env_creator(env_config: dict | None = None, game: str | GameSpec = "kardinal") -> PettingZooEnv:
    """``PettingZooEnv`` over ``game``'s AEC environment made with ``env_config`` (the creator behind
    :func:`register_game_env`; ``illegal_action`` defaults to :data:`ILLEGAL_ACTION`)."""
    options = {"illegal_action": ILLEGAL_ACTION, **dict(env_config or {})}
    # RLlib's episodes keep the observations they are given: copies (kardinal_v0 hands out its buffers).
    return PettingZooEnv(FreshObservationWrapper(aec_env(game, **options)))


def register_game_env(game: str | GameSpec = "kardinal", name: str | None = None) -> str:
    """Register ``game``'s environment with Ray Tune/RLlib under ``name`` (default: the game's
    ``env_name``, e.g. ``"kardinal_v0"``) and return the name.

    Call it in the driver before building an algorithm (it is idempotent). Env runners on other
    nodes receive the creator with the algorithm; it names the game, which must be registered
    there too (the built-in games are; a game of another package through its entry point).
    """
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


# ---------------------------------------------------------------------- modules
class KardinalMaskedRLModule(TorchRLModule, ValueFunctionAPI):
    """Masked convolutional actor-critic for board observations ``(C, H, W)`` (see the module docstring)."""

    def setup(self):
        board_space = _board_space(self.observation_space, "KardinalMaskedRLModule")
        if len(board_space.shape) != 3:
            raise ValueError(
                f"KardinalMaskedRLModule needs a board observation (C, H, W), got shape {board_space.shape}; "
                "use MaskedMLPRLModule for a flat observation"
            )
        channels_in, height, width = board_space.shape
        self.window = width
        num_actions = int(self.action_space.n)
        self.num_actions = num_actions
        cfg = self.model_config or {}
        ch = int(cfg.get("channels", 32))
        blocks = int(cfg.get("blocks", 3))
        hidden = int(cfg.get("value_hidden", 64))
        layers: list[nn.Module] = []
        c = channels_in
        for _ in range(blocks):
            layers += [nn.Conv2d(c, ch, 3, padding=1), nn.ReLU()]
            c = ch
        self.trunk = nn.Sequential(*layers)
        # The action layout of kardinal_env.kardinal.actions: plane * W*W + square, then 5 scalar actions.
        self.spatial_head = num_actions == SPATIAL_ACTION_PLANES * height * width + NON_SPATIAL_ACTIONS
        if self.spatial_head:
            self.plane_logits = nn.Conv2d(ch, SPATIAL_ACTION_PLANES, 1)
            self.scalar_logits = nn.Linear(2 * ch, NON_SPATIAL_ACTIONS)
        else:  # some other action layout: a plain linear head on the pooled features
            self.scalar_logits = nn.Linear(2 * ch, num_actions)
        self.value_head = nn.Sequential(nn.Linear(2 * ch, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    # -- helpers
    def _features(self, board: torch.Tensor):
        x = self.trunk(board.float() * COUNT_SCALE)
        pooled = torch.cat([x.mean(dim=(-2, -1)), x.amax(dim=(-2, -1))], dim=-1)
        return x, pooled

    def _logits(self, x: torch.Tensor, pooled: torch.Tensor) -> torch.Tensor:
        if self.spatial_head:
            return torch.cat([self.plane_logits(x).flatten(1), self.scalar_logits(pooled)], dim=-1)
        return self.scalar_logits(pooled)

    # -- RLModule API
    def _forward(self, batch, **kwargs):
        board, mask = split_obs(batch[Columns.OBS])
        x, pooled = self._features(board)
        return {Columns.ACTION_DIST_INPUTS: _apply_mask(self._logits(x, pooled), mask)}

    def _forward_train(self, batch, **kwargs):
        board, mask = split_obs(batch[Columns.OBS])
        x, pooled = self._features(board)
        return {
            Columns.ACTION_DIST_INPUTS: _apply_mask(self._logits(x, pooled), mask),
            Columns.EMBEDDINGS: pooled,
        }

    def compute_values(self, batch, embeddings=None):
        if embeddings is None:
            board, _ = split_obs(batch[Columns.OBS])
            _, embeddings = self._features(board)
        return self.value_head(embeddings).squeeze(-1)


class MaskedMLPRLModule(TorchRLModule, ValueFunctionAPI):
    """Masked MLP actor-critic for flat observations (see the module docstring)."""

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
        width = size
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.policy_head = nn.Linear(width, self.num_actions)
        self.value_head = nn.Linear(width, 1)

    def _features(self, obs: torch.Tensor) -> torch.Tensor:
        return self.trunk(obs.float().flatten(1) * self.inv_scale)

    def _forward(self, batch, **kwargs):
        obs, mask = split_obs(batch[Columns.OBS])
        return {Columns.ACTION_DIST_INPUTS: _apply_mask(self.policy_head(self._features(obs)), mask)}

    def _forward_train(self, batch, **kwargs):
        obs, mask = split_obs(batch[Columns.OBS])
        features = self._features(obs)
        return {
            Columns.ACTION_DIST_INPUTS: _apply_mask(self.policy_head(features), mask),
            Columns.EMBEDDINGS: features,
        }

    def compute_values(self, batch, embeddings=None):
        if embeddings is None:
            obs, _ = split_obs(batch[Columns.OBS])
            embeddings = self._features(obs)
        return self.value_head(embeddings).squeeze(-1)


class MaskedRandomRLModule(TorchRLModule):
    """Uniformly random legal actions: all-zero logits under the mask (no parameters to train)."""

    def setup(self):
        # One dummy parameter so that device placement and state handling behave as usual.
        self._dummy = nn.Parameter(torch.zeros(1), requires_grad=False)

    def _forward(self, batch, **kwargs):
        _, mask = split_obs(batch[Columns.OBS])
        logits = torch.zeros(mask.shape, dtype=torch.float32, device=mask.device)
        return {Columns.ACTION_DIST_INPUTS: _apply_mask(logits, mask)}

    _forward_train = _forward


# ---------------------------------------------------------------------- league self-play
def _stable_hash(*parts) -> int:
    return zlib.crc32("/".join(str(p) for p in parts).encode())


class LeagueMapping:
    """Agent→module mapping for any number of seats (picklable, so env runners on other nodes can use it).

    Per episode, seat ``crc32(episode.id_) % players`` plays ``main``; every other seat plays an
    opponent drawn (deterministically from the episode id and seat) from ``opponents``. Agent ids
    are the environments' ``player_<seat>``.
    """

    def __init__(self, players: int, opponents: Sequence[str] = (RANDOM,), main: str = MAIN):
        if not opponents:
            raise ValueError("LeagueMapping needs at least one opponent module id")
        self.players = int(players)
        self.opponents = tuple(opponents)
        self.main = main

    def main_seat(self, episode_id) -> int:
        return _stable_hash(episode_id) % self.players

    def __call__(self, agent_id, episode=None, **kwargs) -> str:
        seat = int(str(agent_id).rsplit("_", 1)[-1])
        eid = getattr(episode, "id_", None)
        if seat == self.main_seat(eid):
            return self.main
        return self.opponents[_stable_hash(eid, seat) % len(self.opponents)]

    def __repr__(self) -> str:
        return f"LeagueMapping(players={self.players}, opponents={list(self.opponents)}, main={self.main!r})"


class LeagueCallback(RLlibCallback):
    """Win-rate logging and league growth (frozen snapshots of ``main``) for :class:`LeagueMapping`.

    ``win_rate`` is ``main``'s mean win share over the last 100 episodes, with the one definition of
    a win (:func:`kardinal_env.core.rewards.win_share`: ``1/k`` when ``main``'s seat is among ``k``
    winners, else 0), read from the ``winners`` of the environment's final ``infos``; the reward
    scheme does not matter. With ``players`` seats the chance level is about ``1 / players``. When
    the windowed win rate exceeds ``win_rate_threshold`` (after at least ``min_episodes`` episodes
    since the last snapshot), ``main`` is copied into a frozen module ``main_v<k>`` and the mapping's
    opponents become all snapshots so far (plus ``"random"`` if ``keep_random``).
    ``main_final_reward`` logs ``main``'s final reward (the reward scheme's, for reference).
    """

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

    @staticmethod
    def main_win_share(episode) -> float | None:
        """``main``'s win share in a finished episode (``None`` if no seat played ``main`` or the
        final ``infos`` carry no ``winners``)."""
        for agent_id in episode.agent_ids:
            if episode.module_for(agent_id) != MAIN:
                continue
            infos = episode.agent_episodes[agent_id].get_infos()
            winners = infos[-1].get("winners") if len(infos) else None
            if winners is None:
                return None
            return win_share(winners, int(str(agent_id).rsplit("_", 1)[-1]))
        return None

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        if metrics_logger is None:
            return
        share = self.main_win_share(episode)
        if share is not None:
            metrics_logger.log_value("win_rate", share, reduce="mean", window=100)
        rewards = episode.get_rewards()
        for agent_id in episode.agent_ids:
            r = rewards.get(agent_id)
            if episode.module_for(agent_id) == MAIN and r is not None and len(r):
                metrics_logger.log_value("main_final_reward", float(r[-1]), reduce="mean", window=100)

    def on_train_result(self, *, algorithm, result, metrics_logger=None, **kwargs) -> None:
        env_results = result.get(ENV_RUNNER_RESULTS, {})
        win_rate = env_results.get("win_rate")
        self._episodes_since_snapshot += int(env_results.get("num_episodes", 0) or 0)
        if (
            win_rate is not None
            and win_rate > self.win_rate_threshold
            and self._episodes_since_snapshot >= self.min_episodes
        ):
            self.add_snapshot(algorithm)
        result["league_size"] = len(self.snapshots) + 2  # main + random + snapshots
        result["league"] = [MAIN, RANDOM, *self.snapshots]

    def add_snapshot(self, algorithm, module_id: str | None = None) -> str:
        """Freeze the current ``main`` as ``main_v<k>`` (or ``module_id``) and make it an opponent; returns its id."""
        module_id = module_id or f"{MAIN}_v{len(self.snapshots) + 1}"
        main_module = algorithm.get_module(MAIN)
        opponents = [*self.snapshots, module_id]
        if self.keep_random:
            opponents = [RANDOM, *opponents]
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


def league_callback(algorithm) -> LeagueCallback | None:
    """The algorithm's :class:`LeagueCallback` (``None`` without a league)."""
    callbacks = getattr(algorithm, "callbacks", None)
    for cb in callbacks if isinstance(callbacks, (list, tuple)) else [callbacks]:
        if isinstance(cb, LeagueCallback):
            return cb
    return None


def snapshot_ids(checkpoint) -> list[str]:
    """The frozen snapshots (``main_v<k>``) stored in an Algorithm checkpoint, in order."""
    from pathlib import Path

    modules = Path(checkpoint) / "learner_group" / "learner" / "rl_module"
    found = [p.name for p in modules.glob(f"{MAIN}_v*") if p.is_dir() and p.name[len(MAIN) + 2 :].isdigit()]
    return sorted(found, key=lambda name: int(name[len(MAIN) + 2 :]))


def restore_league(algorithm, checkpoint) -> list[str]:
    """Resume a league run: re-add the checkpoint's snapshots, then restore every module's weights.

    RLlib's ``restore_from_path`` only fills modules the algorithm already has, and a fresh
    algorithm has just ``main`` and ``random``; this adds ``main_v1``, ``main_v2``, … first (and
    tells the league callback), then restores. Returns the snapshot ids.
    """
    from pathlib import Path

    checkpoint = Path(checkpoint).resolve()
    callback = league_callback(algorithm)
    ids = snapshot_ids(checkpoint)
    if callback is not None:
        for module_id in ids:
            if module_id not in callback.snapshots:
                callback.add_snapshot(algorithm, module_id)
    algorithm.restore_from_path(str(checkpoint))
    return ids


# ---------------------------------------------------------------------- config
def default_module(game: str | GameSpec = "kardinal", env_config: dict | None = None) -> tuple[type, dict]:
    """``(module_class, model_config defaults)`` for ``game``'s observation: :class:`KardinalMaskedRLModule`
    for a ``(C, H, W)`` board, else :class:`MaskedMLPRLModule` with the encoder's ``scale`` (when it has one)."""
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
    """A PPO config on the new API stack for self-play on ``game``'s environment (registers the env).

    ``players``: a seat count of the game (default: its ``default_players``); ``env_config``: the
    other environment options (rule options, ``reward``, env options such as Kardinal's ``window``).
    ``module_class`` / ``model_config``: the trained module and its options (default:
    :func:`default_module`; ``model_config`` entries override the defaults).
    ``league=True``: ``main`` against the league (:class:`LeagueMapping`, :class:`LeagueCallback`).
    ``league=False``: every seat plays ``main`` (pure self-play with shared weights).
    """
    from ray.rllib.algorithms.ppo import PPOConfig

    spec = get_game(game)
    players = spec.check_players(players)
    env_config = {**(env_config or {}), "players": players}
    name = register_game_env(spec)
    default_class, default_model = default_module(spec, env_config)
    if module_class is None:
        module_class = default_class
    else:
        default_model = {}
    model_config = {**default_model, **(model_config or {})}
    main_spec = RLModuleSpec(module_class=module_class, model_config=model_config)
    config = (
        PPOConfig()
        # RLlib's env pre-check stays on: it steps unmasked random actions, which end the episode by
        # forfeit (env_creator's illegal_action="lose"); the masked modules never send them.
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
        config = (
            config.multi_agent(
                policies={MAIN, RANDOM},
                policy_mapping_fn=LeagueMapping(players, (RANDOM,)),
                policies_to_train=[MAIN],
            )
            .rl_module(
                rl_module_spec=MultiRLModuleSpec(
                    rl_module_specs={MAIN: main_spec, RANDOM: RLModuleSpec(module_class=MaskedRandomRLModule)}
                )
            )
            .callbacks(
                functools.partial(
                    LeagueCallback, players, win_rate_threshold=win_rate_threshold, min_episodes=min_episodes
                )
            )
        )
    else:
        config = config.multi_agent(
            policies={MAIN},
            policy_mapping_fn=_all_main,
            policies_to_train=[MAIN],
        ).rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MAIN: main_spec}))
    return config


def _all_main(agent_id, episode=None, **kwargs) -> str:
    return MAIN


def legal_argmax(logits: np.ndarray, legal: Sequence[int]) -> int:
    """The legal action with the largest logit (ties: the lowest action)."""
    codes = np.asarray(legal, dtype=np.int64)
    return int(codes[int(np.argmax(np.asarray(logits)[codes]))])
