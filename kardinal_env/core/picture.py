"""Pictures of positions as PNG files, for any registered game, with the standard library and numpy only.

* :func:`write_png` — an ``(H, W, 3)`` ``uint8`` array as an 8-bit RGB PNG (``zlib``; no Pillow or
  matplotlib), byte for byte the same for the same array.
* :func:`position_after` — a new game of a registered game (rule options by name) after ``moves``
  random legal moves (a ``random.Random(seed)`` picks them; the game's chance is dealt with the same
  seed), so the same arguments give the same position. Fewer moves are played when the game ends
  first (``scripts/demo.py`` plays whole games so).
* :func:`write_position_png` — both, drawn by the game's image renderer (its registry entry's
  ``image(game)``, the picture of ``render_mode="rgb_array"``): the pictures of the documentation's
  game pages (``python scripts/docs_pictures.py``, ``bash scripts/docs.sh pictures``).

Bad arguments raise ``ValueError`` naming them (an array of another shape or type, a game without
an image renderer, a negative move count); an unknown game is the registry's ``UnknownGameError``.
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
    """A game of the registered game ``game`` (its rules for ``players`` seats and the rule ``options``)
    after up to ``moves`` random legal moves chosen by ``random.Random(seed)``."""
    if not is_int(moves) or moves < 0:
        raise ValueError(f"moves must be an integer >= 0, got {moves!r}")
    spec = get_game(game)
    position = spec.new_game(spec.rules(players, **options), seed=seed)
    rng = random.Random(seed)
    while position.move_count < moves and not position.is_over:
        position.play(rng.choice(position.legal_moves()))
    return position


def write_position_png(game: str, path: str | Path, players: int | None = None, moves: int = 0, seed: int = 0) -> Path:
    """Draw :func:`position_after` with the game's image renderer and write it to ``path`` as a PNG."""
    spec = get_game(game)
    if spec.renderers.image is None:
        raise ValueError(f"game {spec.name!r} has no image renderer (its registry entry's 'image' is not set)")
    return write_png(spec.renderer("image")(position_after(game, players, moves, seed)), path)
