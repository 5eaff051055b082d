"""Which engine backs the games' ``Game(...)``: the backend selection, one for every game of the suite.

The standard library only (no numpy, no environment libraries): the engines ask it for every
``Game(...)``. ``KARDINAL_ENV_BACKEND`` = ``python`` (never the compiled core), ``core`` (the core must
be there) or unset (the core when it is installed; else the Python engines, and one
:class:`CoreMissingWarning`, a ``RuntimeWarning``, per process: at the first request, which is the
first ``Game(...)`` — so the first environment — a program makes, or any other way in; a user of a
plain ``pip install kardinal-env`` sees once that the games run on the slower engines and how to get
the core, ``pip install "kardinal-env[core]"``). One extension module, ``kardinal_core``, holds every
game's compiled engine;
:mod:`kardinal_env.kardinal.compiled` and :mod:`kardinal_env.koenig.compiled` are the games' ways in
(they re-export these names), :mod:`kardinal_env.koenig.backend` adds that the module must hold the
Kardinal & König engine.
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from types import ModuleType
from typing import Any

__all__ = [
    "BACKEND_VARIABLE",
    "BUILD_HINT",
    "CoreBacked",
    "CoreMissingWarning",
    "core_module",
    "available",
    "backend",
    "requested",
]

#: The environment variable that chooses the backend: ``python``, ``core`` or unset.
BACKEND_VARIABLE = "KARDINAL_ENV_BACKEND"
#: How to get the core (named by the warning and the errors): the ``core`` extra from an index, else a build.
BUILD_HINT = (
    'install it with `pip install "kardinal-env[core]"` (from a checkout: `bash scripts/setup.sh` or '
    "`pip install ./cpp`, which need a C++17 compiler)"
)
#: Modules whose frames the warning skips, so that it points at the line of the program that asked.
_INTERNAL = ("kardinal_env", "agents", "kardinal_configs", "pettingzoo", "gymnasium", "importlib")


class CoreMissingWarning(RuntimeWarning):
    """The compiled core is not installed and ``KARDINAL_ENV_BACKEND`` is unset: the games run on the
    Python engines. Given once per process; ``KARDINAL_ENV_BACKEND=python`` (or a warnings filter on
    this class) silences it."""


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


def core_module() -> ModuleType | None:
    """The ``kardinal_core`` extension module, or None when the backend is ``python`` or the core is
    not installed. ``ImportError`` when ``KARDINAL_ENV_BACKEND=core`` and it is missing.

    When the core is missing and the backend is unset, the first call of the process gives one
    :class:`CoreMissingWarning` (pointing at the first line outside this package that asked), whoever
    asks: ``Game(...)`` too, so a pure-Python install says once that it plays on the Python engines."""
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
        if not _warned:
            _warned = True
            warnings.warn(
                "kardinal_env: the compiled core (kardinal_core, the distribution kardinal-env-core) is not "
                "built or not installed, so the games run on the Python engines (several times slower); "
                f"{BUILD_HINT}; or set {BACKEND_VARIABLE}=python to silence this",
                CoreMissingWarning,
                stacklevel=_caller_level(),
            )
    return module


def _caller_level() -> int:
    """The ``stacklevel`` for ``warnings.warn`` called in :func:`core_module` that names the first frame
    outside this package, the game libraries and the import machinery (the program's own line)."""
    frame = sys._getframe(2)  # the caller of core_module
    level = 2
    while frame is not None and frame.f_back is not None:
        name = frame.f_globals.get("__name__", "") or ""
        if name.split(".")[0] not in _INTERNAL and not name.startswith("_frozen_importlib"):
            break
        frame = frame.f_back
        level += 1
    return level


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
