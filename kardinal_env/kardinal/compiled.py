"""The compiled core's Kardinal engine, when it is built: ``kardinal_core.KardinalGame``.

The core (``cpp/``, C++17, nanobind; ``bash scripts/setup.sh`` builds it) plays on the Python engine's move codes, in
the same order (``tests/test_core_kardinal.py`` keeps the two in lockstep). :mod:`kardinal_env.core.backend` decides
whether it is used; then ``Game(rules)`` (and ``new_game``, ``Game.from_record``) builds a
:class:`~kardinal_env.kardinal.core_game.CoreGame`, while ``Game.reference(rules)`` is always the Python engine.

**Observations and masks.** A core game writes what the Python ``ObservationEncoder`` and ``ActionCodec`` build, byte
for byte, into caller-owned NumPy buffers: ``encode_into(observer, out)`` (writable C-contiguous ``uint8``, shape
``(72, W, W)``), ``action_mask_into(out, seat=None)`` (``bool`` or ``int8``, length ``17·W² + 5``) and
``legal_action_ids(window=None)`` (a new ``int64`` array). A Python ``Game`` reaches them through :func:`core_position`
(its moves replayed: tools and tests). :func:`observation_buffer` / :func:`mask_buffer` allocate buffers. ``W`` comes
from the buffer and must be ``actions.frame_window(rules)``; a wrong window, dtype or shape, a non-contiguous or
read-only buffer, an observer or seat out of range raise ``TypeError`` (not an array, wrong dtype) or ``ValueError``,
naming the problem.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from kardinal_env.core import backend as _backend
from kardinal_env.core.backend import BACKEND_VARIABLE, BUILD_HINT, available, backend, core_module
from kardinal_env.kardinal.actions import NON_SPATIAL_ACTIONS, SPATIAL_ACTION_PLANES, frame_window
from kardinal_env.kardinal.core_game import CoreGame, game_of_module
from kardinal_env.kardinal.engine import Game
from kardinal_env.kardinal.observation import NUM_CHANNELS
from kardinal_env.kardinal.rules import Rules

__all__ = [
    "BACKEND_VARIABLE",
    "BUILD_HINT",
    "available",
    "backend",
    "core_game",
    "core_module",
    "game_of_module",
    "core_position",
    "observation_buffer",
    "mask_buffer",
]


def core_game(rules: Rules) -> Any:
    """A new ``kardinal_core.KardinalGame`` with these rules; ``RuntimeError`` when the backend is
    ``python`` or the core is not built (``ImportError`` under ``KARDINAL_ENV_BACKEND=core``)."""
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a kardinal_env.kardinal.Rules, got {type(rules).__name__}")
    return CoreGame(rules).core


def core_position(game: Game, module: ModuleType | None = None) -> Any:
    """A new core ``KardinalGame`` in the position of ``game``: a core-backed game's core cloned, a Python
    game's moves replayed (each checked by the core). ``module``: the core module (default
    :func:`core_module`; ``RuntimeError`` when the core is not used, as :func:`core_game`)."""
    if not isinstance(game, Game):
        raise TypeError(f"game must be a kardinal_env.kardinal.Game, got {type(game).__name__}")
    if game.compiled:
        return game.core.clone()  # type: ignore[attr-defined]
    core = core_game(game.rules) if module is None else game_of_module(module, game.rules)
    for code in game.history_codes:
        core.play_code(code)
    if core.move_count != game.move_count or core.current_player != game.current_player:
        raise RuntimeError("the compiled core and the Python engine disagree on this game's position")
    return core


def observation_buffer(rules: Rules, window: int | None = None) -> np.ndarray:
    """A zeroed ``uint8`` array of shape ``(72, W, W)`` for ``encode_into``, ``W = frame_window(rules, window)``."""
    w = frame_window(rules, window)
    return np.zeros((NUM_CHANNELS, w, w), dtype=np.uint8)


def mask_buffer(rules: Rules, window: int | None = None, dtype: Any = np.bool_) -> np.ndarray:
    """A zeroed array (``bool`` or ``int8``) of length ``17·W² + 5`` for ``action_mask_into``."""
    w = frame_window(rules, window)
    return np.zeros(SPATIAL_ACTION_PLANES * w * w + NON_SPATIAL_ACTIONS, dtype=dtype)


def _reset_for_tests() -> None:
    """Forget the import attempt and the warning (tests of the backend selection only)."""
    _backend._reset_for_tests()
