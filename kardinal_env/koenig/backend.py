"""Whether ``kardinal_env.koenig.Game(...)`` is backed by the compiled core: the backend selection for
Kardinal & König's public game, in the standard library only (no numpy: the engines need nothing
else; ``tests/test_packaging.py``).

The choice is the suite's (:mod:`kardinal_env.core.backend`, one module ``kardinal_core``, one
variable): ``KARDINAL_ENV_BACKEND=python`` never uses the core, ``core`` requires it (``ImportError``
naming what is missing), unset uses it when it is built and holds the Kardinal & König engine.
When the core is missing, the first request of the process gives the suite's one warning
(:func:`kardinal_env.core.backend.core_module`); :mod:`kardinal_env.koenig.compiled` is the way in for
tools.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from kardinal_env.core import backend as _suite
from kardinal_env.core.backend import BACKEND_VARIABLE, BUILD_HINT, requested

__all__ = [
    "BACKEND_VARIABLE",
    "BUILD_HINT",
    "requested",
    "core_module",
    "core_board",
    "unavailable",
]

_boards: dict[int, tuple[Any, Any]] = {}  # id(Board) -> (Board, KoenigBoard): boards are compiled once and shared


def core_module() -> ModuleType | None:
    """The ``kardinal_core`` module when it is used and holds the Kardinal & König engine, else None
    (:func:`kardinal_env.core.backend.core_module`: one warning per process when the core is not
    built); ``ImportError`` under ``KARDINAL_ENV_BACKEND=core`` when the core, or its Kardinal &
    König engine, is missing."""
    module = _suite.core_module()
    if module is not None and not hasattr(module, "KoenigGame"):
        if requested() == "core":
            raise ImportError(
                f"{BACKEND_VARIABLE}=core but the installed kardinal_core has no Kardinal & König engine "
                f"(built before it was added); {BUILD_HINT}"
            )
        return None
    return module


def unavailable() -> RuntimeError:
    """The error for a core-backed game asked for when the core is not used (names why)."""
    reason = f"{BACKEND_VARIABLE}=python" if requested() == "python" else "the core is not built"
    return RuntimeError(f"the compiled Kardinal & König engine is not available ({reason}); {BUILD_HINT}")


def core_board(board: Any, module: ModuleType) -> Any:
    """The core's ``KoenigBoard`` of a compiled :class:`~kardinal_env.koenig.board.Board` (built once per
    board and cached; the two move tables must be one)."""
    entry = _boards.get(id(board))
    if entry is None or entry[0] is not board or type(entry[1]).__module__ != module.__name__:
        kb = module.KoenigBoard(
            board.name,
            list(board.country_ids),
            list(board.site_ids),
            list(board.site_country),
            list(board.types),
            list(board.counts),
            [list(cs) for cs in board.type_countries],
            [tuple(r) for r in board.roads],
            [tuple(a) for a in board.alliances],
        )
        if list(kb.moves) != list(board.moves):
            raise RuntimeError(f"the compiled core's move table differs from the Python one on board {board.name!r}")
        entry = _boards[id(board)] = (board, kb)
    return entry[1]
