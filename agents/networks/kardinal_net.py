"""Policy/value network for Kardinal on crops of the observation (cheap on a CPU), and its agent.

The ``(72, W, W)`` observation enters as ``spatial`` ``(B, 17, h, w)`` (0/1 planes), ``scalars`` ``(B, 55)`` (raw
counts, divided by 12 inside) and ``valid`` ``(B, h, w)`` (0 on batch padding), cut to the sites' bounding box plus one
square (:func:`crop_box`), which holds every legal action and building. A crop's actions are ``17 * h * w + 5`` (17
planes over the crop, then the 4 chips and "keep the cardinal", as in
:class:`kardinal_env.kardinal.actions.ActionCodec`); :func:`relayout` and its users map layouts.

:class:`KardinalNet`: the planes plus 7 fixed 4-neighbour sums; a ``conv3x3`` stem plus ``Linear(55 -> C)`` as a channel
bias; ``blocks`` residual blocks, each adding a linear map of the features pooled (mean, max) over the valid squares; a
1x1 convolution to 17 logits per square, an MLP on the pooled features for the other 5 and the value.
:class:`AdvisedKardinalNet` (kind ``advised``) adds ``exp(log_advice_scale)`` (trained; ``advice_scale`` at first) times
the greedy agent's cardinal advice (:func:`cardinal_advice_crop`), which needs the game (``act`` refuses).
:data:`build_network` is the builder (layout: channels, action planes, non-spatial actions, window).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from agents.networks.base import MASK_VALUE, MaskedCategorical, NetworkBuilder, advised, network_kind, softmax
from agents.networks.ppo_agent import PPOAgent
from kardinal_env.core.registry import get_game
from kardinal_env.kardinal.actions import DEFAULT_WINDOW, NON_SPATIAL_ACTIONS, SPATIAL_ACTION_PLANES, ActionCodec
from kardinal_env.kardinal.notation import CARDINAL, format_move
from kardinal_env.kardinal.observation import (
    CHANNEL_NAMES,
    COUNT_SCALE,
    NUM_CHANNELS,
    SPATIAL_CHANNELS,
    ObservationEncoder,
)

__all__ = [
    "KardinalNet",
    "AdvisedKardinalNet",
    "KardinalPPOAgent",
    "ADVICE_SCALE",
    "batch",
    "cardinal_advice_crop",
    "PLANES",
    "Decision",
    "prepare",
    "decision_of",
    "policy_step",
    "crop_indices",
    "crop_box",
    "crop_obs",
    "crop_mask",
    "crop_to_full",
    "full_to_crop",
    "relayout",
    "scatter_logits",
    "collate",
    "build_network",
    "layout",
    "current_layout",
]

SPATIAL = SPATIAL_CHANNELS  # observation channels 0..16: the 0/1 spatial planes
SCALARS = NUM_CHANNELS - SPATIAL_CHANNELS  # observation channels 17..71 (constant planes)
PLANES = SPATIAL_ACTION_PLANES  # policy planes per square: 16 build planes + the cardinal
NON_SPATIAL = NON_SPATIAL_ACTIONS  # 4 chips + keep the cardinal
SCALE = 1.0 / COUNT_SCALE  # the count planes are divided by this (12)
TOUCH_FEATURES = 7
SITES_CHANNEL = CHANNEL_NAMES.index("sites")
PLANES_BEFORE_CARDINAL = PLANES - 1  # the cardinal plane is the last spatial action plane
#: The advised network's initial weight of the cardinal advice (per chip) where the options name none.
ADVICE_SCALE = 4.0


# ---------------------------------------------------------------------- crop
def crop_box(obs: np.ndarray, margin: int = 1) -> tuple[int, int, int, int]:
    """``(r0, c0, h, w)``: the sites' bounding box grown by ``margin`` squares, clipped to the window."""
    sites = obs[SITES_CHANNEL]
    window = sites.shape[0]
    rows = np.flatnonzero(sites.any(axis=1))
    if rows.size == 0:  # game over (no site): a tiny box around the cathedral
        half = window // 2
        r0, r1, c0, c1 = half - 1, half + 1, half - 1, half + 2
    else:
        cols = np.flatnonzero(sites.any(axis=0))
        r0, r1, c0, c1 = rows[0], rows[-1], cols[0], cols[-1]
    r0 = max(0, int(r0) - margin)
    c0 = max(0, int(c0) - margin)
    r1 = min(window - 1, int(r1) + margin)
    c1 = min(window - 1, int(c1) + margin)
    return r0, c0, r1 - r0 + 1, c1 - c0 + 1


def crop_obs(obs: np.ndarray, box) -> tuple[np.ndarray, np.ndarray]:
    """``(spatial (17, h, w) uint8, scalars (55,) uint8)`` of ``obs`` for the crop ``box``."""
    r0, c0, h, w = box
    return (
        np.ascontiguousarray(obs[:SPATIAL, r0 : r0 + h, c0 : c0 + w]),
        obs[SPATIAL:, 0, 0].copy(),
    )


def crop_mask(mask: np.ndarray, box, window: int) -> np.ndarray:
    """The full action mask (length ``17 W² + 5``) restricted to the crop: ``17 h w + 5`` entries."""
    r0, c0, h, w = box
    n = window * window
    planes = mask[: PLANES * n].reshape(PLANES, window, window)[:, r0 : r0 + h, c0 : c0 + w]
    return np.concatenate([planes.reshape(-1), mask[PLANES * n :]])


def relayout(action: int, src: tuple[int, int], dst: tuple[int, int], offset=(0, 0)) -> int:
    """An action over an ``src`` (h, w) grid in the layout over ``dst``, its square moved by ``offset``."""
    (h, w), (H, W) = src, dst
    action = int(action)
    if action >= PLANES * h * w:
        return PLANES * H * W + (action - PLANES * h * w)
    plane, rest = divmod(action, h * w)
    r, c = divmod(rest, w)
    r, c = r + offset[0], c + offset[1]
    if not (0 <= r < H and 0 <= c < W):
        raise ValueError(f"action {action} lies outside the {H}x{W} layout")
    return plane * H * W + r * W + c


def crop_to_full(action: int, box, window: int) -> int:
    """Full action index of the action ``action`` of the crop ``box``."""
    return relayout(action, box[2:], (window, window), box[:2])


def full_to_crop(action: int, box, window: int) -> int:
    """Crop action of full action ``action``; ``ValueError`` if its square lies outside the crop."""
    return relayout(action, (window, window), box[2:], (-box[0], -box[1]))


def scatter_logits(crop_logits: torch.Tensor, box, window: int, fill: float = MASK_VALUE) -> torch.Tensor:
    """Full-size logit vector (``17 W² + 5``) from the logits of one crop (``17 h w + 5``)."""
    r0, c0, h, w = box
    full = crop_logits.new_full((PLANES, window, window), fill)
    full[:, r0 : r0 + h, c0 : c0 + w] = crop_logits[: PLANES * h * w].reshape(PLANES, h, w)
    return torch.cat([full.reshape(-1), crop_logits[PLANES * h * w :]])


def collate(spatials, scalars, masks=None, advices=None):
    """Crops padded to the largest: ``spatial``, ``scalars``, ``valid`` and, when given, ``mask`` and ``advice``."""
    B = len(spatials)
    hs = [s.shape[1] for s in spatials]
    ws = [s.shape[2] for s in spatials]
    H, W = max(hs), max(ws)
    sp = np.zeros((B, SPATIAL, H, W), dtype=np.float32)
    valid = np.zeros((B, H, W), dtype=np.float32)
    for i, s in enumerate(spatials):
        sp[i, :, : hs[i], : ws[i]] = s
        valid[i, : hs[i], : ws[i]] = 1.0
    out = [torch.from_numpy(sp), torch.from_numpy(np.stack(scalars).astype(np.float32)), torch.from_numpy(valid)]

    def pad(vectors, dtype, first: int, planes: int) -> torch.Tensor:  # planes first.. of the padded layout
        padded = np.zeros((B, PLANES * H * W + NON_SPATIAL), dtype=dtype)
        for i, v in enumerate(vectors):
            h, w = hs[i], ws[i]
            head = padded[i, first * H * W : (first + planes) * H * W].reshape(planes, H, W)
            head[:, :h, :w] = v[: planes * h * w].reshape(planes, h, w)
            padded[i, PLANES * H * W :] = v[planes * h * w :]
        return torch.from_numpy(padded)

    if masks is not None:
        out.append(pad(masks, bool, 0, PLANES))
    if advices is not None:
        out.append(pad(advices, np.float32, PLANES_BEFORE_CARDINAL, 1))
    return tuple(out)


def batch(decisions, masks: bool = True):
    """``(forward-pass inputs, padded mask or None)`` of ``decisions`` (all with advice or none)."""
    advised = [d.advice is not None for d in decisions]
    if any(advised) and not all(advised):
        raise ValueError("a batch mixes decisions with and without the cardinal advice")
    out = collate(
        [d.spatial for d in decisions],
        [d.scalars for d in decisions],
        [d.mask for d in decisions] if masks else None,
        advices=[d.advice for d in decisions] if advised and advised[0] else None,
    )
    inputs = out[:3] + out[4 if masks else 3 :]
    return inputs, (out[3] if masks else None)


# ---------------------------------------------------------------------- network
class _Block(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.glob = nn.Linear(2 * channels, channels)
        nn.init.zeros_(self.conv2.weight)
        nn.init.zeros_(self.conv2.bias)  # type: ignore[arg-type]

    def forward(self, x, valid, count):
        y = F.relu(self.conv1(x) * valid)
        y = y + self.glob(_pool(y, valid, count))[:, :, None, None]
        y = self.conv2(F.relu(y)) * valid
        return F.relu(x + y)


def _pool(x, valid, count):
    """Mean and max over the valid squares: ``(B, 2C)``. ``x`` is already zero outside ``valid``."""
    mean = x.sum(dim=(2, 3)) / count
    mx = (x - (1.0 - valid) * 1e4).amax(dim=(2, 3))
    return torch.cat([mean, mx], dim=1)


class KardinalNet(nn.Module):
    touch_kernel: torch.Tensor

    def __init__(self, channels: int = 32, blocks: int = 3, hidden: int = 64):
        super().__init__()
        self.config: dict[str, Any] = {"channels": channels, "blocks": blocks, "hidden": hidden}
        self.stem = nn.Conv2d(SPATIAL + TOUCH_FEATURES, channels, 3, padding=1)
        # Fixed 4-neighbour sums: the squares of each colour slot / shape a new edifice would touch.
        groups = torch.zeros(TOUCH_FEATURES, SPATIAL)
        for j in range(4):
            groups[j, [2 + j, 6 + j, 10 + j]] = 1.0  # colour slot j: house, tower, yard
        groups[4, [0, 2, 3, 4, 5]] = 1.0  # houses (nave included)
        groups[5, [1, 6, 7, 8, 9]] = 1.0  # towers (clock tower included)
        groups[6, [10, 11, 12, 13]] = 1.0  # yards
        cross = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
        self.register_buffer("touch_kernel", groups[:, :, None, None] * cross, persistent=False)  # conv2d weight
        self.stem_scalars = nn.Linear(SCALARS, channels)
        self.blocks = nn.ModuleList(_Block(channels) for _ in range(blocks))
        self.policy_conv = nn.Conv2d(channels, PLANES, 1)
        self.global_mlp = nn.Sequential(nn.Linear(2 * channels + SCALARS, hidden), nn.ReLU())
        self.policy_global = nn.Linear(hidden, NON_SPATIAL)
        self.value_head = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        nn.init.normal_(self.policy_conv.weight, std=0.01)
        nn.init.zeros_(self.policy_conv.bias)  # type: ignore[arg-type]
        nn.init.normal_(self.policy_global.weight, std=0.01)
        nn.init.zeros_(self.policy_global.bias)

    def forward(self, spatial: torch.Tensor, scalars: torch.Tensor, valid: torch.Tensor, advice=None):
        """``(logits (B, 17*H*W + 5), value (B,))``; ``advice``: only for the advised network."""
        if advice is not None:
            raise ValueError("the cnn network reads no cardinal advice (only network kind 'advised' does)")
        return self._forward(spatial, scalars, valid)

    def _forward(self, spatial: torch.Tensor, scalars: torch.Tensor, valid: torch.Tensor):
        scalars = scalars / SCALE  # raw counts; the spatial planes are already 0/1
        spatial = torch.cat([spatial, F.conv2d(spatial, self.touch_kernel, padding=1)], dim=1)
        v = valid[:, None]
        count = valid.sum(dim=(1, 2))[:, None].clamp_min(1.0)
        x = F.relu((self.stem(spatial) + self.stem_scalars(scalars)[:, :, None, None]) * v)
        for block in self.blocks:
            x = block(x, v, count)
        B = x.shape[0]
        spatial_logits = self.policy_conv(x).reshape(B, -1)
        g = self.global_mlp(torch.cat([_pool(x, v, count), scalars], dim=1))
        logits = torch.cat([spatial_logits, self.policy_global(g)], dim=1)
        return logits, self.value_head(g).squeeze(-1)


class AdvisedKardinalNet(KardinalNet):
    def __init__(self, channels: int = 32, blocks: int = 3, hidden: int = 64, advice_scale: float = ADVICE_SCALE):
        super().__init__(channels, blocks, hidden)
        self.config = {"kind": "advised", "channels": channels, "blocks": blocks, "hidden": hidden}
        self.log_advice_scale = nn.Parameter(torch.tensor(math.log(advice_scale)))

    def forward(self, spatial: torch.Tensor, scalars: torch.Tensor, valid: torch.Tensor, advice=None):
        if advice is None:
            raise ValueError(
                "the advised network reads the greedy agent's cardinal advice: prepare its decisions "
                "with advised=True (kardinal_net.prepare)"
            )
        logits, value = self._forward(spatial, scalars, valid)
        return logits + self.log_advice_scale.exp() * advice, value


# ---------------------------------------------------------------------- decisions
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
    #: the ``advised`` network's input (:func:`cardinal_advice_crop`); ``None`` for the plain network
    advice: np.ndarray | None = None


def prepare(game, encoder: ObservationEncoder, codec: ActionCodec, margin: int = 1, advised: bool = False) -> Decision:
    """The crop decision of ``game.current_player`` (``advised``: with the cardinal advice)."""
    seat = game.current_player
    d = decision_of(encoder.encode(game, seat), game.legal_actions(), seat, codec.window, margin)
    if advised:
        d.advice = cardinal_advice_crop(game, codec, d.box)
    return d


def decision_of(obs: np.ndarray, legal: np.ndarray, seat: int, window: int, margin: int = 1) -> Decision:
    """The crop decision of ``seat`` from its full observation (copied) and the legal action ids."""
    box = crop_box(obs, margin)
    spatial, scalars = crop_obs(obs, box)
    legal = np.asarray(legal, dtype=np.int64)
    mask = np.zeros(PLANES * box[2] * box[3] + NON_SPATIAL, dtype=bool)
    mask[crop_indices(legal, box, window)] = True
    return Decision(seat, box, spatial, scalars, mask, legal, window)


def cardinal_advice_crop(game, codec: ActionCodec, box) -> np.ndarray:
    """The advised network's input on the crop ``box``: the cardinal plane's advice, then 5 zeros."""
    from agents.baselines.kardinal_heuristics import cardinal_advice

    h, w = box[2], box[3]
    out = np.zeros(h * w + NON_SPATIAL, dtype=np.float32)
    codes = game.legal_move_codes()
    if len(codes) < 2 or codes[0][0] != CARDINAL:
        return out
    advice = cardinal_advice(game)
    actions = np.array([codec.encode_code(code, game.current_player) for code, _ in advice], dtype=np.int64)
    out[crop_indices(actions, box, codec.window) - PLANES_BEFORE_CARDINAL * h * w] = [a for _, a in advice]
    return out


def crop_indices(legal: np.ndarray, box, window: int, padded: tuple[int, int] | None = None) -> np.ndarray:
    """Crop-layout indices of the full action ids ``legal`` (``padded=(H, W)``: in a padded batch)."""
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


@torch.no_grad()
def policy_step(net, decisions: list[Decision], greedy: bool = False, generator=None):
    """One batched forward pass: ``(crop_actions, full_actions, logprobs, values)`` arrays."""
    inputs, mask = batch(decisions)
    logits, values = net(*inputs)
    dist = MaskedCategorical(logits, mask)
    actions = dist.mode() if greedy else dist.sample(generator)
    logprobs = dist.log_prob(actions)
    H, W = inputs[0].shape[2], inputs[0].shape[3]
    crop_actions = np.array([relayout(a, (H, W), d.box[2:]) for d, a in zip(decisions, actions.tolist())], np.int64)
    full_actions = np.array([crop_to_full(a, d.box, d.window) for d, a in zip(decisions, crop_actions)], np.int64)
    return crop_actions, full_actions, logprobs.numpy(), values.numpy()


def _build(rules: Any, options: Mapping[str, Any]) -> nn.Module:
    sizes = int(options["channels"]), int(options["blocks"]), int(options["hidden"])
    if network_kind(build_network, options) == "advised":
        scale = options.get("advice_scale")
        return AdvisedKardinalNet(*sizes, advice_scale=ADVICE_SCALE if scale is None else float(scale))
    return KardinalNet(*sizes)


def layout(rules: Any = None, model_config: Mapping[str, Any] | None = None) -> dict:
    """The observation/action layout of Kardinal's network (``"network": "advised"`` for that kind)."""
    out: dict[str, Any] = {
        "observation_channels": int(NUM_CHANNELS),
        "spatial_channels": int(SPATIAL_CHANNELS),
        "action_planes": int(PLANES),
        "non_spatial_actions": int(NON_SPATIAL),
        "window": int(DEFAULT_WINDOW),
    }
    if model_config is not None and advised(model_config):
        out["network"] = "advised"
    return out


def current_layout() -> dict:
    """The layout a Kardinal checkpoint of this version records (with the environment's name)."""
    return {"env": get_game("kardinal").env_name, **layout()}


class KardinalPPOAgent(PPOAgent):
    """A network playing Kardinal on crops (``window``: default the game's; ``margin``: the crop margin)."""

    def __init__(self, net: nn.Module, rules=None, window: int | None = None, margin: int = 1, **kw):
        super().__init__(net, **kw)
        self.window = window
        self.margin = margin
        if rules is not None:
            self._setup(rules)

    @classmethod
    def from_checkpoint_dict(cls, ckpt: dict, net: nn.Module, path="checkpoint", **kw) -> PPOAgent:
        kw.setdefault("margin", int(ckpt.get("config", {}).get("crop_margin", 1)))
        return super().from_checkpoint_dict(ckpt, net, path, **kw)

    @property
    def advised(self) -> bool:
        """Whether the network reads the greedy agent's cardinal advice (kind ``advised``)."""
        return isinstance(self.net, AdvisedKardinalNet)

    def _setup(self, rules) -> None:
        self._warn_players(rules.players)
        window = self.window or rules.window or DEFAULT_WINDOW
        self.encoder = ObservationEncoder(rules, window)
        self.codec = ActionCodec(rules, window)
        self._rules = rules  # last: a rules object whose encoder failed is set up again (and fails again)

    def select_move(self, game) -> str:
        if game.is_over:
            raise ValueError("no legal move: the game is over")
        codes = game.legal_move_codes()
        if len(codes) == 1:
            return format_move(codes[0])
        if self._rules is not game.rules:
            self._setup(game.rules)
        d = prepare(game, self.encoder, self.codec, self.margin, self.advised)
        _, full, _, _ = policy_step(self.net, [d], greedy=self.greedy, generator=self._generator)
        return format_move(self.codec.decode_code(int(full[0]), d.seat))

    @torch.no_grad()
    def act(self, observation, action_mask=None) -> int:
        """Full action integer for a ``kardinal_v0`` observation ``(72, W, W)`` and its ``action_mask``."""
        if self.advised:
            raise ValueError(
                f"{self.name}: an 'advised' network reads the greedy agent's cardinal advice, which needs the "
                "game: use select_move(game) (or policy_value), not act(observation)"
            )
        if isinstance(observation, dict):
            observation, action_mask = observation["observation"], observation["action_mask"]
        obs = np.asarray(observation)
        window = obs.shape[1]
        box = crop_box(obs, self.margin)
        mask_full = np.asarray(action_mask).astype(bool)
        cm = crop_mask(mask_full, box, window)
        if cm.sum() != mask_full.sum():  # a legal action outside the crop (should not happen): full window
            box = (0, 0, window, window)
            cm = mask_full
        d = Decision(0, box, *crop_obs(obs, box), cm, np.flatnonzero(mask_full), window)
        return int(policy_step(self.net, [d], greedy=self.greedy, generator=self._generator)[1][0])

    @torch.no_grad()
    def _policy_value(self, games: list) -> list[tuple[np.ndarray, np.ndarray, float]]:
        ds = [prepare(g, self.encoder, self.codec, self.margin, self.advised) for g in games]
        inputs, _ = batch(ds, masks=False)
        logits, values = self.net(*inputs)
        logits_np = logits.numpy().astype(np.float64)
        padded = (inputs[0].shape[2], inputs[0].shape[3])
        return [
            (d.legal, softmax(logits_np[row, crop_indices(d.legal, d.box, d.window, padded)]), float(values[row]))
            for row, d in enumerate(ds)
        ]


#: Kardinal's network builder (its agents' entry's ``network``, :mod:`agents.games`).
build_network = NetworkBuilder(("cnn", "advised"), _build, layout, KardinalPPOAgent, options=("advice_scale",))
