"""A trained PPO policy as an agent of either game, and the batched inference that training shares with it.

``PPOAgent.from_checkpoint(path, greedy=True, seed=None)`` loads a checkpoint written by
:mod:`agents.training.trainer` for either game: a Kardinal checkpoint (``env == "kardinal_v0"``) gives a
:class:`PPOAgent`, a Kardinal & König one (``"kardinal_koenig_v0"``) a :class:`KoenigPPOAgent`
(``select_move`` on a ``kardinal_env.koenig.Game`` from the deciding seat's own observation only,
``act`` on ``kardinal_koenig_v0`` observations). Every checkpoint is checked by
:func:`agents.networks.checkpoint.read_checkpoint` (a dict of tensors and plain Python values;
:class:`agents.networks.checkpoint.CheckpointError` names the path and what is wrong). For Kardinal:
Playing a game with another number of players than the checkpoint was trained for issues an
:class:`agents.networks.checkpoint.PlayerCountWarning` naming both counts (once per agent).
``select_move(game)`` encodes the observation of ``game.current_player``, masks illegal actions
and plays the most probable legal action (``greedy=True``) or samples one from the policy
(``greedy=False``, seeded by ``seed``).
``act(observation, action_mask)`` does the same on a PettingZoo observation and mask and returns the
full action integer.

:func:`prepare` / :func:`policy_step` are the batched path used by training and evaluation: many
games' decisions in one forward pass on crops (see :mod:`agents.networks.kardinal_net`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import torch

from agents.base import BaseAgent
from agents.networks.checkpoint import (
    KOENIG_ENV_NAME,
    CheckpointError,
    PlayerCountWarning,
    build_net,
    koenig_rules,
    player_count_warning,
    read_checkpoint,
    trained_players,
)
from agents.networks.kardinal_net import (
    PLANES,
    KardinalNet,
    MaskedCategorical,
    collate,
    crop_box,
    crop_mask,
    crop_obs,
    crop_to_full,
    padded_to_crop,
)
from kardinal_env.kardinal.actions import ActionCodec
from kardinal_env.kardinal.notation import format_move
from kardinal_env.kardinal.observation import ObservationEncoder
from kardinal_env.kardinal.rules import Rules

__all__ = [
    "PPOAgent",
    "KoenigPPOAgent",
    "Decision",
    "prepare",
    "crop_indices",
    "policy_step",
    "rules_from_config",
    "net_from_checkpoint",
    "load_checkpoint",
]


@dataclass
class Decision:
    """One prepared decision: the crop, its mask and what is needed to decode an action."""

    seat: int
    box: tuple
    spatial: np.ndarray  # (17, h, w) uint8
    scalars: np.ndarray  # (55,) uint8
    mask: np.ndarray  # (17*h*w + 5,) bool
    legal: np.ndarray  # full action indices of the legal moves
    window: int


def prepare(game, encoder: ObservationEncoder, codec: ActionCodec, margin: int = 1) -> Decision:
    """Encode the current decision of ``game`` (for ``game.current_player``) as a crop."""
    seat = game.current_player
    obs = encoder.encode(game, seat)
    box = crop_box(obs, margin)
    spatial, scalars = crop_obs(obs, box)
    legal = codec.legal_actions(game).astype(np.int64)
    return Decision(seat, box, spatial, scalars, _crop_mask_from_legal(legal, box, codec.window), legal, codec.window)


def crop_indices(legal: np.ndarray, box, window: int, padded: tuple[int, int] | None = None) -> np.ndarray:
    """Crop-layout indices (``17*h*w + 5`` entries, see :mod:`agents.networks.kardinal_net`) of the full action
    indices ``legal``; with ``padded=(H, W)`` the indices in the layout of a batch padded to ``H x W``.
    ``AssertionError`` if one lies outside the crop (the crop holds every legal move)."""
    r0, c0, h, w = box
    H, W = padded if padded is not None else (h, w)
    n = window * window
    legal = np.asarray(legal, dtype=np.int64)
    out = np.empty(legal.shape, dtype=np.int64)
    spatial = legal < PLANES * n
    a = legal[spatial]
    plane, sq = np.divmod(a, n)
    row, col = np.divmod(sq, window)
    r, c = row - r0, col - c0
    if a.size and (r.min() < 0 or c.min() < 0 or r.max() >= h or c.max() >= w):
        raise AssertionError(f"a legal action lies outside the crop {box}")
    out[spatial] = plane * H * W + r * W + c
    out[~spatial] = PLANES * H * W + (legal[~spatial] - PLANES * n)
    return out


def _crop_mask_from_legal(legal: np.ndarray, box, window: int) -> np.ndarray:
    h, w = box[2], box[3]
    mask = np.zeros(PLANES * h * w + 5, dtype=bool)
    mask[crop_indices(legal, box, window)] = True
    return mask


@torch.no_grad()
def policy_step(net, decisions: list[Decision], greedy: bool = False, generator=None):
    """One batched forward pass. Returns ``(crop_actions, full_actions, logprobs, values)`` as numpy
    arrays; crop actions are in each decision's own crop layout (what training stores)."""
    sp, sc, valid, mask = collate(
        [d.spatial for d in decisions], [d.scalars for d in decisions], [d.mask for d in decisions]
    )
    logits, values = net(sp, sc, valid)
    dist = MaskedCategorical(logits, mask)
    actions = dist.mode() if greedy else dist.sample(generator)
    logprobs = dist.log_prob(actions)
    H, W = sp.shape[2], sp.shape[3]
    crop_actions = np.empty(len(decisions), dtype=np.int64)
    full_actions = np.empty(len(decisions), dtype=np.int64)
    for i, (d, a) in enumerate(zip(decisions, actions.tolist())):
        h, w = d.box[2], d.box[3]
        ca = padded_to_crop(a, H, W, h, w)
        crop_actions[i] = ca
        full_actions[i] = crop_to_full(ca, d.box, d.window)
    return crop_actions, full_actions, logprobs.numpy(), values.numpy()


def rules_from_config(config: dict) -> Rules:
    return Rules(players=int(config.get("players", 2)), preset=config.get("preset", "english"))


def net_from_checkpoint(ckpt: dict) -> KardinalNet:
    """The network of a checkpoint dict in eval mode (:class:`agents.networks.checkpoint.CheckpointError` if
    the weights do not fit its ``model_config``)."""
    return build_net(ckpt)


def load_checkpoint(path) -> tuple[KardinalNet, dict]:
    """``(network in eval mode, training config)`` of a checkpoint written by :mod:`agents.training.trainer`,
    checked by :func:`agents.networks.checkpoint.read_checkpoint` (:class:`agents.networks.checkpoint.CheckpointError`
    naming the path and the problem otherwise). The config also holds ``players`` as trained.
    Kardinal checkpoints only (a Kardinal & König checkpoint is refused: :meth:`PPOAgent.from_checkpoint`
    loads either)."""
    ckpt, net = read_checkpoint(path)
    if ckpt.get("env") == KOENIG_ENV_NAME:
        raise CheckpointError(path, f"made for env {KOENIG_ENV_NAME!r}; this needs a Kardinal (kardinal_v0) checkpoint")
    return net, _config_of(ckpt)


def _config_of(ckpt: dict) -> dict:
    config = dict(ckpt.get("config", {}))
    players = trained_players(ckpt)
    if players is not None:
        config["players"] = players
    return config


class PPOAgent(BaseAgent):
    """A policy network playing Kardinal (see the module docstring)."""

    name = "ppo"

    def __init__(
        self,
        net: KardinalNet,
        rules: Rules | None = None,
        greedy: bool = True,
        seed: int | None = None,
        window: int = 53,
        margin: int = 1,
        name: str = "ppo",
        trained_players: int | None = None,
    ):
        super().__init__(seed)
        self.net = net.eval()
        self.trained_players = trained_players
        self._warned = False
        self.greedy = greedy
        self.window = window
        self.margin = margin
        self.name = name
        self._rules = None
        self._generator = torch.Generator().manual_seed(seed if seed is not None else 0)
        if rules is not None:
            self._setup(rules)

    def _setup(self, rules: Rules) -> None:
        msg = player_count_warning(self.name, self.trained_players, rules.players)
        if msg and not self._warned:
            self._warned = True
            warnings.warn(msg, PlayerCountWarning, stacklevel=3)
        self._rules = rules
        self.encoder = ObservationEncoder(rules, self.window)
        self.codec = ActionCodec(rules, self.window)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._generator = torch.Generator().manual_seed(seed if seed is not None else 0)

    @classmethod
    def from_checkpoint(cls, path, greedy: bool = True, seed: int | None = None, **kw) -> PPOAgent | KoenigPPOAgent:
        """The agent of a checkpoint of either game: a :class:`PPOAgent` for a Kardinal checkpoint,
        a :class:`KoenigPPOAgent` for a Kardinal & König one (``env`` of the checkpoint)."""
        ckpt, net = read_checkpoint(path)
        config = _config_of(ckpt)
        if ckpt.get("env") == KOENIG_ENV_NAME:
            kw.setdefault("name", f"ppo:{path}")
            kw.setdefault("trained_players", config.get("players"))
            return KoenigPPOAgent(net, koenig_rules(ckpt, path), greedy=greedy, seed=seed, **kw)
        kw.setdefault("margin", int(config.get("crop_margin", 1)))
        kw.setdefault("name", f"ppo:{path}")
        kw.setdefault("trained_players", config.get("players"))
        return cls(net, greedy=greedy, seed=seed, **kw)

    def select_move(self, game) -> str:
        if game.is_over:
            raise ValueError("no legal move: the game is over")
        codes = game.legal_move_codes()
        if len(codes) == 1:
            return format_move(codes[0])
        if self._rules is not game.rules:
            self._setup(game.rules)
        d = prepare(game, self.encoder, self.codec, self.margin)
        _, full, _, _ = policy_step(self.net, [d], greedy=self.greedy, generator=self._generator)
        return format_move(self.codec.decode_code(int(full[0]), d.seat))

    @torch.no_grad()
    def act(self, observation, action_mask) -> int:
        """Full action integer for a PettingZoo observation ``(72, W, W)`` and its ``action_mask``."""
        if isinstance(observation, dict):
            observation, action_mask = observation["observation"], observation["action_mask"]
        obs = np.asarray(observation)
        window = obs.shape[1]
        box = crop_box(obs, self.margin)
        spatial, scalars = crop_obs(obs, box)
        mask_full = np.asarray(action_mask).astype(bool)
        cm = crop_mask(mask_full, box, window)
        if cm.sum() != mask_full.sum():  # a legal action outside the crop (should not happen): full window
            box = (0, 0, window, window)
            spatial, scalars = crop_obs(obs, box)
            cm = mask_full
        sp, sc, valid, mask = collate([spatial], [scalars], [cm])
        logits, _ = self.net(sp, sc, valid)
        dist = MaskedCategorical(logits, mask)
        a = dist.mode() if self.greedy else dist.sample(self._generator)
        return crop_to_full(int(a[0]), box, window)


class KoenigPPOAgent(BaseAgent):
    """A policy network playing Kardinal & König (:mod:`agents.networks.koenig_net`).

    ``select_move(game)`` on a :class:`kardinal_env.koenig.Game`: encodes *only* the deciding seat's
    observation (``ObservationEncoder.encode(game, seat)``: its own hand and public facts), masks the
    illegal move ids and plays the most probable legal move (``greedy=True``) or samples one
    (``greedy=False``, seeded by ``seed``); a single legal move is played without the network.
    ``act(observation, action_mask)`` does the same on a ``kardinal_koenig_v0`` observation and
    returns the action (the move id). Games of another player count than trained for issue an
    :class:`agents.networks.checkpoint.PlayerCountWarning` (the observation has the same layout); a game on
    another board raises ``ValueError``."""

    name = "ppo"

    def __init__(
        self,
        net,
        rules,
        greedy: bool = True,
        seed: int | None = None,
        name: str = "ppo",
        trained_players: int | None = None,
    ):
        super().__init__(seed)
        self.net = net.eval()
        self.greedy = greedy
        self.name = name
        self.trained_players = trained_players
        self._warned = False
        self._train_rules = rules
        self._board = rules.compiled
        self._generator = torch.Generator().manual_seed(seed if seed is not None else 0)
        self._setup(rules, warn=False)

    def _setup(self, rules, warn: bool = True) -> None:
        from kardinal_env.koenig.observation import ObservationEncoder

        if rules.compiled.data != self._board.data:
            raise ValueError(
                f"{self.name} was trained on board {self._board.name!r} and cannot play board {rules.compiled.name!r}"
            )
        msg = player_count_warning(self.name, self.trained_players, rules.players) if warn else None
        if msg and not self._warned:
            self._warned = True
            warnings.warn(msg, PlayerCountWarning, stacklevel=3)
        self._rules = rules
        self.encoder = ObservationEncoder(rules)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._generator = torch.Generator().manual_seed(seed if seed is not None else 0)

    @torch.no_grad()
    def _choose(self, obs: np.ndarray, mask: np.ndarray) -> int:
        logits, _ = self.net(torch.as_tensor(obs, dtype=torch.float32).reshape(1, -1))
        dist = MaskedCategorical(logits, torch.as_tensor(mask, dtype=torch.bool).reshape(1, -1))
        a = dist.mode() if self.greedy else dist.sample(self._generator)
        return int(a[0])

    def select_move(self, game) -> str:
        if game.is_over:
            raise ValueError("no legal move: the game is over")
        ids = game.legal_move_ids()
        if len(ids) == 1:
            return game.board.moves[ids[0]]
        if game.rules is not self._rules:
            self._setup(game.rules)
        mask = np.zeros(self._board.num_moves, dtype=bool)
        mask[list(ids)] = True
        seat = game.current_player
        return game.board.moves[self._choose(self.encoder.encode(game, seat), mask)]

    def act(self, observation, action_mask=None) -> int:
        """The action (move id) for a ``kardinal_koenig_v0`` observation and its ``action_mask`` (or
        the env's observation dict)."""
        if isinstance(observation, dict):
            observation, action_mask = observation["observation"], observation["action_mask"]
        mask = np.asarray(action_mask).astype(bool)
        if not mask.any():
            raise ValueError("no legal action in action_mask")
        return self._choose(np.asarray(observation, dtype=np.float32), mask)
