"""The compiled core's Kardinal & König engine, when it is built: ``kardinal_core.KoenigGame``.

The core (``cpp/``; ``bash scripts/setup.sh`` builds it) holds the rules of :class:`kardinal_env.koenig.Game`, the
reference (``tests/test_core_koenig.py`` compares them in lockstep): the same move ids in the same order, the same
``IllegalMoveError`` (rule and message), the same shuffles for a seed, and ``random_playouts(n_games, seed)``.
:func:`encode_into` and :func:`action_mask_into` write the observation and the environment's mask, byte for byte, into
caller-owned arrays (:func:`observation_buffer`, :func:`mask_buffer`) without allocating, reading only what the observer
may know. A buffer is taken as it is: ``TypeError`` for a non-array or another dtype, ``ValueError`` for another shape,
a non-contiguous or read-only array, or a seat out of range. :class:`kardinal_env.vector.VectorEnv` steps N games in the
core (``KoenigBatch``). The board is validated in Python; :func:`core_board` passes its arrays to the core, which checks
them again.

:mod:`kardinal_env.core.backend` decides, when a game is built, whether the core is used (a core without
``KoenigGame`` counts as not built); then ``Game(rules, seed)`` (and ``new_game``, ``Game.from_record``) builds a
:class:`~kardinal_env.koenig.core_game.CoreGame`. ``Game.reference(rules, seed)`` is always the Python engine.
:func:`core_game` and :func:`core_position` are the raw core's way in (benchmarks, lockstep tests, tools).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kardinal_env.core.backend import BACKEND_VARIABLE, BUILD_HINT, available, backend, core_module
from kardinal_env.koenig.core_game import action_mask_into, core_board, core_game, core_position, encode_into
from kardinal_env.koenig.rules import Rules

__all__ = [
    "BACKEND_VARIABLE",
    "BUILD_HINT",
    "available",
    "backend",
    "core_module",
    "core_board",
    "core_game",
    "core_position",
    "encode_into",
    "action_mask_into",
    "observation_buffer",
    "mask_buffer",
]


def observation_buffer(rules: Rules) -> np.ndarray:
    """A zeroed ``float32`` array of the observation's shape under ``rules``, for :func:`encode_into`."""
    from kardinal_env.koenig.observation import ObservationEncoder

    return np.zeros(ObservationEncoder(rules).shape, dtype=np.float32)


def mask_buffer(rules: Rules, dtype: Any = np.int8) -> np.ndarray:
    """A zeroed array of length ``num_moves`` for :func:`action_mask_into` (``int8``, the env's, or ``bool``)."""
    return np.zeros(rules.compiled.num_moves, dtype=dtype)
