"""The compiled core's Kardinal & König engine, when it is built: ``kardinal_core.KoenigGame``.

The core (``kardinal-env-core``, ``cpp/``; ``bash scripts/setup.sh`` builds it) holds the same rules as
the Python engine (:class:`kardinal_env.koenig.Game`, the reference), compared in lockstep by
``tests/test_core_koenig.py``: the same move ids (the board's move table) in the same order, checked
``play_id`` / ``play`` raising the same :class:`~kardinal_env.core.errors.IllegalMoveError` (same
``rule``, same message), the same shuffles (:mod:`kardinal_env.core.shuffle`: a seed deals the same
deck and reshuffles the discard pile the same way), scores, winners, finishing order, ``clone``,
``snapshot`` and ``koenig_search.random_playouts`` (whole games inside C++). The observation encoder
and the action mask are in C++ too (``cpp/src/koenig/observation.hpp``): :func:`encode_into` and
:func:`action_mask_into` write :class:`~kardinal_env.koenig.observation.ObservationEncoder`'s and
the environment's mask, byte for byte, into caller-owned arrays
(:func:`observation_buffer`, :func:`mask_buffer`) without allocating, reading only what the observer
may know (``tests/test_core_koenig_observation.py``). A buffer is taken only as it is: ``TypeError``
for something that is not a NumPy array or has another dtype, ``ValueError`` for another shape, a
non-contiguous or read-only array, or a seat out of range. The batched environment
:class:`kardinal_env.vector.VectorEnv` steps N games in the core at once (``kardinal_core.KoenigBatch``,
``cpp/src/koenig/batch.hpp``), byte for byte its python backend (``tests/test_vector.py``). The board is parsed
and validated in Python (:mod:`kardinal_env.koenig.board`); :func:`core_board` passes its arrays to
the core, which checks them again.

Backend selection is Kardinal's (:mod:`kardinal_env.kardinal.compiled`, one module ``kardinal_core``):
``KARDINAL_ENV_BACKEND=python`` never uses the core, ``core`` requires it, unset uses it when built
(one ``RuntimeWarning`` per process when it is not). A core built before Kardinal & König was added
(no ``KoenigGame``) counts as not built.

**The public Game.** When the core is used, ``Game(rules, seed)`` (and the registry's ``new_game``,
``Game.from_record``) builds a :class:`~kardinal_env.koenig.core_game.CoreGame`: a
:class:`~kardinal_env.koenig.Game` subclass with the same public API and results whose state lives in
a ``KoenigGame`` (see :mod:`kardinal_env.koenig.core_game`; its determinized worlds are the Python
engine's). The backend is read when a game is built (a game keeps its engine), quietly: a
pure-Python install plays without the warning. ``Game.reference(rules, seed)`` always builds the
Python engine, the readable reference the lockstep tests compare against. This module's functions
(:func:`core_game`, :func:`core_position`) are the raw core's way in, for benchmarks, lockstep tests
and tools; records are the game's own (``CoreGame.from_record``, ``to_record``).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from kardinal_env.core import backend as _backend
from kardinal_env.core.backend import BACKEND_VARIABLE, BUILD_HINT, available, backend, core_module
from kardinal_env.koenig.board import Board
from kardinal_env.koenig.core_game import action_mask_into, encode_into
from kardinal_env.koenig.core_game import core_board as _core_board
from kardinal_env.koenig.engine import Game
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


def _module_or_raise(module: ModuleType | None) -> ModuleType:
    module = module or core_module()
    if module is None:
        raise _backend.unavailable("Kardinal & König engine")
    return module


def core_board(board: Board, module: ModuleType | None = None) -> Any:
    """The core's ``KoenigBoard`` of a compiled :class:`~kardinal_env.koenig.board.Board` (built once per
    board and cached)."""
    if not isinstance(board, Board):
        raise TypeError(f"board must be a kardinal_env.koenig.board.Board, got {type(board).__name__}")
    return _core_board(board, _module_or_raise(module))


def core_game(
    rules: Rules,
    seed: int | str | None = None,
    *,
    deck: list[int] | None = None,
    reshuffle: list[int] | None = None,
    module: ModuleType | None = None,
) -> Any:
    """A new ``kardinal_core.KoenigGame``: ``Game(rules, seed, deck=deck, reshuffle=reshuffle)`` in C++
    (the same deal for the same seed). ``RuntimeError`` when the core is not used (``ImportError``
    under ``KARDINAL_ENV_BACKEND=core``); ``DeckError`` for a deck or reshuffle that does not fit."""
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a kardinal_env.koenig.Rules, got {type(rules).__name__}")
    module = _module_or_raise(module)
    return module.KoenigGame(core_board(rules.compiled, module), rules.players, rules.discard, seed, deck, reshuffle)


def core_position(game: Game, module: ModuleType | None = None) -> Any:
    """A new core game in the position of the Python ``game`` (its deck, its reshuffle order or plan, its
    moves replayed, each checked by the core). A determinized world (:meth:`Game.with_hidden`) has no
    first deck: ``RuntimeError``."""
    if not isinstance(game, Game):
        raise TypeError(f"game must be a kardinal_env.koenig.Game, got {type(game).__name__}")
    if game.compiled:  # a core-backed game: a copy of its core (no replay)
        return game.core.clone()  # type: ignore[attr-defined]
    plan = game.reshuffle_order
    if plan is None:
        plan = game.reshuffle_plan
    core = core_game(game.rules, deck=game.initial_deck, reshuffle=plan, module=module)
    for m in game.to_record()["moves"]:
        core.play(m)
    if core.snapshot()["history"] != game.snapshot()["history"]:
        raise RuntimeError("the compiled core and the Python engine disagree on this game's position")
    return core


def observation_buffer(rules: Rules) -> np.ndarray:
    """A new zeroed ``float32`` array of the observation's shape under ``rules``, for :func:`encode_into`."""
    from kardinal_env.koenig.observation import ObservationEncoder

    return np.zeros(ObservationEncoder(rules).shape, dtype=np.float32)


def mask_buffer(rules: Rules, dtype: Any = np.int8) -> np.ndarray:
    """A new zeroed array of length ``num_moves`` (the board's move table) for :func:`action_mask_into`
    (``dtype`` ``int8``, the env's, or ``bool``)."""
    return np.zeros(rules.compiled.num_moves, dtype=dtype)
