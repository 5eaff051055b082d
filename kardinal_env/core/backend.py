"""Which engine backs a game: the suite's one backend switch (standard library only).

**Explicit first.** A game or an environment is made with ``backend="core"`` (the compiled core must be there:
``ImportError`` naming what is missing), ``"python"`` (never the core) or ``None`` (the core when installed, else the
Python engines). ``KARDINAL_ENV_BACKEND`` (``python`` / ``core``) only overrides that default. :func:`core_module` is
the whole decision.

**One check.** One extension module, ``kardinal_core``, holds every game's compiled engine; its ``ABI`` must be
:data:`CORE_ABI` (a core built from other sources is refused once, with one message). :func:`unavailable` is the one
error for a core-backed object asked for when the core is not used.

When the core is missing and nothing forces a backend, the first request of the process gives one
:class:`CoreMissingWarning` (a ``RuntimeWarning``) saying how to get it: ``pip install "kardinal-env[core]"``.
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from operator import attrgetter
from types import ModuleType
from typing import Any

__all__ = [
    "BACKEND_VARIABLE",
    "BUILD_HINT",
    "CoreBacked",
    "CoreMissingWarning",
    "core_module",
    "unavailable",
    "CORE_ABI",
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
    """No compiled core and no ``KARDINAL_ENV_BACKEND``: the Python engines run. Once per process;
    ``KARDINAL_ENV_BACKEND=python`` or a warnings filter silences it."""


_BACKENDS = ("python", "core")

_module: ModuleType | None = None
_import_error: ImportError | None = None
_tried = False
_warned = False


def requested() -> str:
    """``KARDINAL_ENV_BACKEND``: ``"python"``, ``"core"`` or ``""`` (unset); ``ValueError`` for another value."""
    value = os.environ.get(BACKEND_VARIABLE, "").strip().lower()
    if value and value not in _BACKENDS:
        raise ValueError(f"{BACKEND_VARIABLE} must be 'python', 'core' or unset, got {value!r}")
    return value


#: The interface version this package expects of ``kardinal_core`` (its ``ABI`` attribute).
CORE_ABI = 3


def _load() -> ModuleType | None:
    global _module, _import_error, _tried
    if not _tried:
        _tried = True
        try:
            module = importlib.import_module("kardinal_core")
        except ImportError as exc:
            _import_error = exc
        else:
            found = getattr(module, "ABI", None)
            if found == CORE_ABI:
                _module = module
            else:
                _import_error = ImportError(
                    f"kardinal_core at {getattr(module, '__file__', None)} has interface version {found}, "
                    f"this kardinal_env needs {CORE_ABI} (built from other sources)"
                )
    return _module


def core_module(backend: str | None = None) -> ModuleType | None:
    """The ``kardinal_core`` module when a game made with ``backend`` is core-backed, else None (module docstring)."""
    global _warned
    if backend is not None and backend not in _BACKENDS:
        raise ValueError(f"backend must be 'core', 'python' or None, got {backend!r}")
    wanted = requested() if backend is None else backend
    if wanted == "python":
        return None
    module = _load()
    if module is None:
        if wanted == "core":
            who = f"{BACKEND_VARIABLE}=core" if backend is None else "backend='core'"
            raise ImportError(
                f"{who} but the compiled core (kardinal_core) cannot be used ({_import_error}); {BUILD_HINT}"
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


def unavailable(what: str) -> RuntimeError:
    """The error for a core-backed ``what`` asked for when the core is not used: why, and how to get it."""
    _load()
    reason = f"{BACKEND_VARIABLE}=python" if requested() == "python" else f"the core is not built: {_import_error}"
    return RuntimeError(f"the compiled {what} is not available ({reason}); {BUILD_HINT}")


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside this package, the game libraries and the import machinery."""
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
    return "core" if available() else "python"


def _reset_for_tests() -> None:
    global _module, _import_error, _tried, _warned
    _module, _import_error, _tried, _warned = None, None, False, False


class CoreBacked:
    """The turn state every core-backed ``Game`` reads from its core object ``_core`` (mixed in first)."""

    __slots__ = ()
    compiled = True
    _core: Any

    @property
    def core(self) -> Any:
        """The core object holding this game's state, to read; never play a move on it (the history would be lost)."""
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


def forward_to_core(cls: type, methods: str = "", properties: str = "") -> None:
    """Give ``cls`` the ``methods`` and read-only ``properties`` (space-separated names) of its core."""

    def forward(name: str) -> Any:
        def method(self: Any, *args: Any) -> Any:
            return getattr(self._core, name)(*args)

        method.__name__ = method.__qualname__ = name
        return method

    for name in methods.split():
        setattr(cls, name, forward(name))
    for name in properties.split():
        setattr(cls, name, property(attrgetter(f"_core.{name}")))
