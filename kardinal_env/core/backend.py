"""Which engine backs the games' ``Game(...)``: the backend selection, one for every game of the suite.

The standard library only (no numpy, no environment libraries): the engines ask it for every
``Game(...)``. ``KARDINAL_ENV_BACKEND`` = ``python`` (never the compiled core), ``core`` (the core must
be there) or unset (the core when it is built; else one ``RuntimeWarning`` per process, unless asked
quietly). One extension module, ``kardinal_core``, holds every game's compiled engine;
:mod:`kardinal_env.kardinal.compiled` and :mod:`kardinal_env.koenig.compiled` are the games' ways in
(they re-export these names), :mod:`kardinal_env.koenig.backend` adds that the module must hold the
Kardinal & König engine.
"""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType
from typing import Any

__all__ = ["BACKEND_VARIABLE", "BUILD_HINT", "CoreBacked", "core_module", "available", "backend", "requested"]

#: The environment variable that chooses the backend: ``python``, ``core`` or unset.
BACKEND_VARIABLE = "KARDINAL_ENV_BACKEND"
#: How to build the core (named by the warning and the errors).
BUILD_HINT = "build it with `bash scripts/setup.sh` or `pip install ./cpp` (needs a C++17 compiler)"
_BACKENDS = ("python", "core")

_module: ModuleType | None = None
_import_error: ImportError | None = None
_tried = False
_warned = False


def requested() -> str:
    """What ``KARDINAL_ENV_BACKEND`` asks for: ``"python"``, ``"core"`` or ``""`` (unset: the core when it
    is built); ``ValueError`` naming the variable for any other value."""
    value = os.environ.get(BACKEND_VARIABLE, "").strip().lower()
    if value and value not in _BACKENDS:
        raise ValueError(f"{BACKEND_VARIABLE} must be 'python', 'core' or unset, got {value!r}")
    return value


def _load() -> ModuleType | None:
    global _module, _import_error, _tried
    if not _tried:
        _tried = True
        try:
            _module = importlib.import_module("kardinal_core")
        except ImportError as exc:
            _import_error = exc
    return _module


def core_module(warn: bool = True) -> ModuleType | None:
    """The ``kardinal_core`` extension module, or None when the backend is ``python`` or the core is
    not built (then, unless the backend was forced to ``python`` or ``warn`` is False, one
    ``RuntimeWarning`` per process). ``ImportError`` when ``KARDINAL_ENV_BACKEND=core`` and it is
    missing. ``Game(...)`` asks with ``warn=False``: a pure-Python install plays quietly."""
    global _warned
    wanted = requested()
    if wanted == "python":
        return None
    module = _load()
    if module is None:
        if wanted == "core":
            raise ImportError(
                f"{BACKEND_VARIABLE}=core but the compiled core (kardinal_core) is not importable "
                f"({_import_error}); {BUILD_HINT}"
            )
        if warn and not _warned:
            _warned = True
            warnings.warn(
                f"kardinal_env: the compiled core (kardinal_core) is not built, using the Python engine; "
                f"{BUILD_HINT}, or set {BACKEND_VARIABLE}=python to silence this",
                RuntimeWarning,
                stacklevel=3,
            )
    return module


def available() -> bool:
    """Whether the compiled core will be used (built, and the backend not forced to ``python``)."""
    return core_module() is not None


def backend() -> str:
    """``"core"`` or ``"python"``: what :func:`available` decides, as a name."""
    return "core" if available() else "python"


def _reset_for_tests() -> None:
    """Forget the import attempt and the warning (tests of the backend selection only)."""
    global _module, _import_error, _tried, _warned
    _module, _import_error, _tried, _warned = None, None, False, False


class CoreBacked:
    """What every core-backed ``Game`` (both games' ``CoreGame``) reads straight from its core object
    ``_core``: the core itself and the turn state. Mixed in before the game's ``Game`` class."""

    __slots__ = ()
    compiled = True
    _core: Any

    @property
    def core(self) -> Any:
        """The core object (``kardinal_core.KardinalGame`` / ``KoenigGame``) holding this game's state, for
        the core's readers (observation writers, searches). Never play a move on it: the game would no
        longer know its history."""
        return self._core

    @property
    def current_player(self) -> int | None:
        return self._core.current_player

    @property
    def phase(self) -> str:
        return self._core.phase

    @property
    def is_over(self) -> bool:
        return self._core.is_over
