"""The compiled core's Kardinal engine, when it is built: ``kardinal_core.KardinalGame``.

The core is a separate distribution, ``kardinal-env-core`` in ``cpp/`` (C++17, nanobind,
scikit-build-core); ``bash scripts/setup.sh`` builds it into ``.venv`` (``pip install ./cpp`` by hand).
Its Kardinal engine plays on the Python engine's move codes (:meth:`Game.legal_move_codes
<kardinal_env.kardinal.engine.Game.legal_move_codes>`): the same tuples in the same order, checked
``play_code``, ``clone``, scores, winners and finishing order, and ``random_playouts(n_games, seed)``
(whole games inside C++). ``tests/test_core_kardinal.py`` keeps the two engines in lockstep.

The environment variable ``KARDINAL_ENV_BACKEND`` chooses, read at every call:

* ``python`` — never use the core (:func:`available` is False, :func:`core_game` raises);
* ``core`` — the core must be there (:func:`available` and :func:`core_game` raise ``ImportError``
  when it is not);
* unset or empty — use the core when it is installed; when it is not, one ``RuntimeWarning`` (per
  process) says how to build it, and the Python engine remains.

**The public Game.** When the core is used, ``Game(rules)`` (and the registry's ``new_game``,
``Game.from_record``) builds a :class:`~kardinal_env.kardinal.core_game.CoreGame`: a
:class:`~kardinal_env.kardinal.engine.Game` subclass with the same public API and results whose state
lives in a ``KardinalGame`` (notation, records, rule-naming errors and the action ids stay the
Python modules'; see :mod:`kardinal_env.kardinal.core_game`). The backend is read when a game is
built (a game keeps its engine); when the core is missing, the first request of the process (a
``Game(...)`` too) gives the one warning below. ``Game.reference(rules)`` always builds the
Python engine, the readable reference the lockstep tests compare against.

**Observations and masks.** The core also writes what the Python
:class:`~kardinal_env.kardinal.observation.ObservationEncoder` and
:class:`~kardinal_env.kardinal.actions.ActionCodec` build, byte for byte, into caller-owned NumPy
buffers (cpp/src/kardinal/observation.hpp; nothing is allocated per call):

* :func:`encode_into` — ``ObservationEncoder(rules, W).encode(game, observer)`` into a writable
  C-contiguous ``uint8`` array of shape ``(72, W, W)``;
* :func:`action_mask_into` — ``ActionCodec(rules, W).action_mask(game, seat)`` into a writable
  C-contiguous ``bool`` (or ``int8``) array of length ``17·W² + 5``;
* :func:`legal_action_ids` — ``ActionCodec(rules, W).legal_actions(game)`` as a new ``int64`` array;
* :func:`observation_buffer` / :func:`mask_buffer` — buffers of the right shape for a rule set.

``W`` is read from the buffer and must be the one window the Python encoder accepts for the rules
(``actions.frame_window``: the rules' window variant, else the lossless 53); every other window,
dtype, shape, a non-contiguous or read-only buffer and an observer or seat out of range raise
``TypeError`` (not an array, wrong dtype) or ``ValueError`` (everything else), naming the problem.
Each takes a core game (``KardinalGame``), a core-backed :class:`~kardinal_env.kardinal.core_game.CoreGame`
(its core is read directly: the fast path; ``CoreGame.encode_into`` / ``action_mask_into`` are the same
calls), or a Python :class:`~kardinal_env.kardinal.engine.Game`, which is replayed into the core first
(:func:`core_position`, one checked move at a time: for tests and tools, not for a training loop).
``tests/test_core_observation.py`` keeps them in lockstep with the Python encoder and codec. The
batched environment :class:`kardinal_env.vector.VectorEnv` steps Kardinal games in the core and has it
write every game's observation and mask into the batch's arrays (``kardinal_core.KardinalBatch``).
The AEC environment ``kardinal_v0`` on a core-backed game has the core write each seat's observation
and mask into arrays the environment owns and hands out (no allocation per step); the Python
:class:`~kardinal_env.kardinal.observation.ObservationEncoder` and
:class:`~kardinal_env.kardinal.actions.ActionCodec` given a core-backed game also ask the core.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from kardinal_env.core import backend as _backend
from kardinal_env.core.backend import BACKEND_VARIABLE, BUILD_HINT, available, backend, core_module
from kardinal_env.kardinal.actions import NON_SPATIAL_ACTIONS, SPATIAL_ACTION_PLANES, frame_window
from kardinal_env.kardinal.core_game import game_of_module
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
    "encode_into",
    "action_mask_into",
    "legal_action_ids",
    "observation_buffer",
    "mask_buffer",
]


def core_game(rules: Rules) -> Any:
    """A new ``kardinal_core.KardinalGame`` with these rules; ``RuntimeError`` when the backend is
    ``python`` or the core is not built (``ImportError`` under ``KARDINAL_ENV_BACKEND=core``)."""
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a kardinal_env.kardinal.Rules, got {type(rules).__name__}")
    module = core_module()
    if module is None:
        raise _backend.unavailable("Kardinal engine")
    return game_of_module(module, rules)


def core_position(game: Game, module: ModuleType | None = None) -> Any:
    """A new core ``KardinalGame`` in the position of the Python ``game``: its rules, its moves replayed
    (the core checks each one). ``module``: the core module (default :func:`core_module`; ``RuntimeError``
    when the core is not used, as :func:`core_game`)."""
    if not isinstance(game, Game):
        raise TypeError(f"game must be a kardinal_env.kardinal.Game, got {type(game).__name__}")
    if game.compiled:  # a core-backed game: a copy of its core (no replay)
        return game.core.clone()  # type: ignore[attr-defined]
    core = core_game(game.rules) if module is None else game_of_module(module, game.rules)
    for code in game.history_codes:  # the move codes as played (Game.history formats them)
        core.play_code(code)
    if core.move_count != game.move_count or core.current_player != game.current_player:
        raise RuntimeError("the compiled core and the Python engine disagree on this game's position")
    return core


def _core_of(game: Any, module: ModuleType | None) -> Any:
    """The core game to read: ``game`` itself when it is one (a ``kardinal_core.KardinalGame``), else the core
    replay of a Python :class:`Game` (:func:`core_position`)."""
    if isinstance(game, Game):
        return game.core if game.compiled else core_position(game, module)  # type: ignore[attr-defined]
    if type(game).__name__ == "KardinalGame" and type(game).__module__ == "kardinal_core":  # the core's own object
        return game
    raise TypeError(
        f"game must be a kardinal_env.kardinal.Game or a kardinal_core.KardinalGame, got {type(game).__name__}"
    )


def encode_into(game: Any, observer: int, out: np.ndarray, module: ModuleType | None = None) -> np.ndarray:
    """``ObservationEncoder(rules, W).encode(game, observer)`` written by the core into ``out``
    (:func:`observation_buffer`); returns ``out`` (see the module docstring)."""
    _core_of(game, module).encode_into(observer, out)
    return out


def action_mask_into(
    game: Any, out: np.ndarray, seat: int | None = None, module: ModuleType | None = None
) -> np.ndarray:
    """``ActionCodec(rules, W).action_mask(game, seat)`` written by the core into ``out``
    (:func:`mask_buffer`); returns ``out`` (see the module docstring)."""
    _core_of(game, module).action_mask_into(out, seat)
    return out


def legal_action_ids(game: Any, window: int | None = None, module: ModuleType | None = None) -> np.ndarray:
    """``ActionCodec(rules, window).legal_actions(game)`` computed by the core (a new ``int64`` array)."""
    return _core_of(game, module).legal_action_ids(window)


def observation_buffer(rules: Rules, window: int | None = None) -> np.ndarray:
    """A new zeroed ``uint8`` array of shape ``(72, W, W)`` for :func:`encode_into`, ``W =
    frame_window(rules, window)``."""
    w = frame_window(rules, window)
    return np.zeros((NUM_CHANNELS, w, w), dtype=np.uint8)


def mask_buffer(rules: Rules, window: int | None = None, dtype: Any = np.bool_) -> np.ndarray:
    """A new zeroed array of length ``17·W² + 5`` for :func:`action_mask_into` (``dtype`` ``bool`` or
    ``int8``), ``W = frame_window(rules, window)``."""
    w = frame_window(rules, window)
    return np.zeros(SPATIAL_ACTION_PLANES * w * w + NON_SPATIAL_ACTIONS, dtype=dtype)


def _reset_for_tests() -> None:
    """Forget the import attempt and the warning (tests of the backend selection only)."""
    _backend._reset_for_tests()
