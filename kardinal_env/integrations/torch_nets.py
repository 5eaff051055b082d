"""Library-free torch trunks for the ``(72, W, W)`` kardinal_v0 board: a fixed crop and a pooled full window.

Torch only, for SB3 (:mod:`kardinal_env.integrations.sb3`), TorchRL, Tianshou or an RLlib ``TorchRLModule``. Both map a
board batch ``(B, 72, W, W)`` (raw counts) to features ``(B, features_dim)``:

* :class:`CropTrunk` — the 17 spatial planes of a fixed ``crop x crop`` square centred on the nave (``crop`` odd, at
  most ``W``; default ``min(21, W)``), two 3x3 convolutions and a strided one, flattened (positions kept), joined with
  an embedding of the 55 constant planes. Its size does not depend on the window; lossy outside the crop.
* :class:`PooledTrunk` — ``blocks`` 3x3 convolutions over the whole window, mean- and max-pooled (:func:`pool`), joined
  with the constant-plane embedding. Lossless and tiny, but position-blind.

``docs/libraries/sb3.md`` measures what they cost with SB3 and explains the trade-off.
"""

from __future__ import annotations

import torch
from torch import nn

from kardinal_env.core.checks import is_int
from kardinal_env.kardinal.observation import COUNT_SCALE, NUM_CHANNELS, SPATIAL_CHANNELS

__all__ = [
    "CropTrunk",
    "PooledTrunk",
    "DEFAULT_CROP",
    "SPATIAL_CHANNELS",
    "SCALAR_CHANNELS",
    "check_window",
    "conv_stack",
    "pool",
]

#: Observation channels 0..16 are the 0/1 spatial planes; 17..71 are constant planes (counts), which are scaled by
#: ``COUNT_SCALE`` (counts reach 48; this brings them to about [0, 4]).
SCALAR_CHANNELS = NUM_CHANNELS - SPATIAL_CHANNELS
#: Default side of :class:`CropTrunk`'s crop: the squares with ``|x|, |y| <= 10``.
DEFAULT_CROP = 21


def check_window(shape, who: str) -> int:
    """The window ``W`` of a board shape ``(72, W, W)``; ``ValueError`` naming ``who`` otherwise."""
    shape = tuple(shape) if shape is not None else None
    if shape is None or len(shape) != 3 or shape[0] != SPATIAL_CHANNELS + SCALAR_CHANNELS or shape[1] != shape[2]:
        raise ValueError(
            f"{who}: expected the kardinal_v0 board shape (72, W, W), got {shape!r} "
            "(pass the board alone, not the Dict with the action mask)"
        )
    return int(shape[1])


def conv_stack(channels_in: int, channels: int, blocks: int) -> nn.Sequential:
    """``blocks`` 3x3 convolutions (``channels`` wide, same size), each followed by a ReLU."""
    layers: list[nn.Module] = []
    for i in range(blocks):
        layers += [nn.Conv2d(channels_in if i == 0 else channels, channels, 3, padding=1), nn.ReLU()]
    return nn.Sequential(*layers)


def pool(x: torch.Tensor) -> torch.Tensor:
    """Mean and max over the squares of ``(B, C, H, W)`` features: ``(B, 2 * C)``."""
    return torch.cat([x.mean(dim=(-2, -1)), x.amax(dim=(-2, -1))], dim=-1)


class ScalarEmbedding(nn.Module):
    """The 55 constant planes read from square (0, 0) (they are equal on every square), scaled by 1/12."""

    def __init__(self, out: int):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(SCALAR_CHANNELS, out), nn.ReLU())

    def forward(self, boards: torch.Tensor) -> torch.Tensor:
        return self.net(boards[:, SPATIAL_CHANNELS:, 0, 0].float() * COUNT_SCALE)


class CropTrunk(nn.Module):
    """Fixed ``crop x crop`` square around the nave of a ``window``-wide board (the module docstring)."""

    def __init__(
        self,
        window: int,
        crop: int | None = None,
        channels: int = 32,
        features_dim: int = 256,
        scalar_dim: int = 64,
    ):
        super().__init__()
        if crop is None:
            crop = min(DEFAULT_CROP, window)
        if not is_int(crop) or crop < 3 or crop % 2 == 0 or crop > window:
            raise ValueError(f"crop must be an odd integer from 3 to the window {window}, got {crop!r}")
        self.window = window
        self.crop = crop
        self.features_dim = features_dim
        self.offset = window // 2 - crop // 2  # first row and column of the crop (the nave is at W//2, W//2)
        same_size = conv_stack(SPATIAL_CHANNELS, channels, 2)
        stride = [nn.Conv2d(channels, channels, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten()]
        self.convs = nn.Sequential(*same_size, *stride)
        reduced = (crop + 1) // 2
        self.scalars = ScalarEmbedding(scalar_dim)
        self.head = nn.Sequential(nn.Linear(channels * reduced * reduced + scalar_dim, features_dim), nn.ReLU())

    def forward(self, boards: torch.Tensor) -> torch.Tensor:
        lo, hi = self.offset, self.offset + self.crop
        spatial = boards[:, :SPATIAL_CHANNELS, lo:hi, lo:hi].float()
        return self.head(torch.cat([self.convs(spatial), self.scalars(boards)], dim=-1))


class PooledTrunk(nn.Module):
    """Whole window, pooled -> ``(B, 2 * channels + scalar_dim)`` (the module docstring)."""

    def __init__(self, channels: int = 32, blocks: int = 3, scalar_dim: int = 64):
        super().__init__()
        if not is_int(blocks) or blocks < 1:
            raise ValueError(f"blocks must be a positive integer, got {blocks!r}")
        self.convs = conv_stack(SPATIAL_CHANNELS, channels, blocks)
        self.scalars = ScalarEmbedding(scalar_dim)
        self.features_dim = 2 * channels + scalar_dim

    def forward(self, boards: torch.Tensor) -> torch.Tensor:
        return torch.cat([pool(self.convs(boards[:, :SPATIAL_CHANNELS].float())), self.scalars(boards)], dim=-1)
