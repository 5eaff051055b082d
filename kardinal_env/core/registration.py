"""Registration of every registered game's environments with PettingZoo's and Gymnasium's registries.

For each game, now and when registered later (:func:`kardinal_env.core.registry.on_register`):

* its ``env_id`` with PettingZoo: its own module's ``env``, else the generic :func:`kardinal_env.core.generic_env.env`
  with ``game=NAME`` (``kardinal/kardinal-v0``, ...);
* its ``gym_id`` with Gymnasium: :class:`kardinal_env.core.single_agent.VsBots` with ``game=NAME``
  (``kardinal/KardinalVsBots-v0``, ...), without Gymnasium's ``OrderEnforcing`` and passive checker (they hide
  ``action_masks()``; the env checks the order).

``import kardinal_env`` calls :func:`register` when gymnasium and pettingzoo are installed (again: a no-op).
Unregistering a game removes its ids. An id already registered with another entry point is a ``ValueError`` (the game's
registration is undone).
"""

from __future__ import annotations

import functools
from typing import Any

from kardinal_env.core.registry import GameSpec, on_register

__all__ = ["register", "pettingzoo_entry", "gymnasium_entry"]

GENERIC_ENV = "kardinal_env.core.generic_env:env"
SINGLE_AGENT = "kardinal_env.core.single_agent:VsBots"

_registered = False


def pettingzoo_entry(spec: GameSpec) -> tuple[str, dict[str, Any]]:
    """The PettingZoo entry point and default keyword arguments of ``spec``'s ``env_id``."""
    if spec.env_module is None:
        return GENERIC_ENV, {"game": spec.name}
    module = spec.env_module if isinstance(spec.env_module, str) else spec.env_module.__name__
    return f"{module}:env", {}


def gymnasium_entry(spec: GameSpec) -> tuple[str, dict[str, Any]]:
    """The Gymnasium entry point and default keyword arguments of ``spec``'s ``gym_id``."""
    return SINGLE_AGENT, {"game": spec.name}


def _same(existing: Any, entry_point: str, kwargs: dict[str, Any]) -> bool:
    return existing.entry_point == entry_point and dict(existing.kwargs or {}) == kwargs


def _ids(spec: GameSpec) -> list[tuple[Any, ...]]:
    """Per id of ``spec`` that is set: library, registry, id, (entry point, kwargs) and a register function."""
    import gymnasium
    import pettingzoo

    aec = functools.partial(pettingzoo.register, "aec")
    gym = functools.partial(gymnasium.register, order_enforce=False, disable_env_checker=True)
    ids = [
        ("PettingZoo", pettingzoo.aec_registry, spec.env_id, pettingzoo_entry(spec), aec),
        ("Gymnasium", gymnasium.registry, spec.gym_id, gymnasium_entry(spec), gym),
    ]
    return [entry for entry in ids if entry[2] is not None]


def _add(spec: GameSpec) -> None:
    for library, registry, env_id, (entry_point, kwargs), register_id in _ids(spec):
        existing = registry.get(env_id)
        if existing is None:
            register_id(env_id, entry_point, kwargs=kwargs)
        elif not _same(existing, entry_point, kwargs):
            raise ValueError(
                f"game {spec.name!r}: {library} id {env_id!r} is already registered for {existing.entry_point!r}"
            )


def _remove(spec: GameSpec) -> None:
    for _, registry, env_id, entry, _ in _ids(spec):
        existing = registry.get(env_id)
        if existing is not None and _same(existing, *entry):
            del registry[env_id]


def register() -> None:
    """Register every game's ids, now and later (idempotent); ImportError without gymnasium/pettingzoo."""
    global _registered
    import gymnasium  # noqa: F401  (fail early, before listening)
    import pettingzoo  # noqa: F401

    if _registered:
        return
    _registered = True
    on_register(_add, on_unregister=_remove)
