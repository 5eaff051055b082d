"""Pictures of positions as PNG files, for any registered game, with the standard library and numpy only.

* :func:`write_png` — an ``(H, W, 3)`` ``uint8`` array as an 8-bit RGB PNG (``zlib``; no Pillow), deterministic.
* :func:`position_after` — a new game (rule options by name) after up to ``moves`` random legal moves picked by
  ``random.Random(seed)`` (its chance dealt with the same seed): the same arguments give the same position.
* :func:`write_position_png` — both, drawn by the game's ``image`` renderer: the docs' game pictures (``python
  scripts/docs_pictures.py``).

Bad arguments raise ``ValueError`` naming them; an unknown game is the registry's ``UnknownGameError``.
"""

from __future__ import annotations

import random
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from kardinal_env.core.checks import is_int
from kardinal_env.core.registry import get_game

__all__ = ["write_png", "position_after", "write_position_png"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def write_png(image: np.ndarray, path: str | Path) -> Path:
    """Write ``image`` (``uint8``, shape ``(height, width, 3)``) to ``path`` as a PNG; return the path."""
    array = np.asarray(image)
    if array.dtype != np.uint8 or array.ndim != 3 or array.shape[2] != 3 or 0 in array.shape:
        raise ValueError(f"image must be a uint8 array of shape (height, width, 3), got {array.dtype} {array.shape}")
    height, width, _ = array.shape
    rows = np.concatenate([np.zeros((height, 1), np.uint8), array.reshape(height, width * 3)], axis=1)  # filter 0
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8 bits, RGB, no interlace
    data = _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 9))
    data += _chunk(b"IEND", b"")
    out = Path(path)
    out.write_bytes(data)
    return out


def position_after(game: str, players: int | None = None, moves: int = 0, seed: int = 0, **options: Any) -> Any:
    if not is_int(moves) or moves < 0:
        raise ValueError(f"moves must be an integer >= 0, got {moves!r}")
    spec = get_game(game)
    position = spec.new_game(spec.rules(players, **options), seed=seed)
    rng = random.Random(seed)
    while position.move_count < moves and not position.is_over:
        position.play(rng.choice(position.legal_moves()))
    return position


def write_position_png(game: str, path: str | Path, players: int | None = None, moves: int = 0, seed: int = 0) -> Path:
    spec = get_game(game)
    if spec.renderers.image is None:
        raise ValueError(f"game {spec.name!r} has no image renderer (its registry entry's 'image' is not set)")
    return write_png(spec.renderer("image")(position_after(game, players, moves, seed)), path)
