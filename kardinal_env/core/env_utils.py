"""Pieces every environment of this package shares: the action check, the action mask and the classic wrappers.

* :func:`check_action` — an action must be a Python or NumPy integer (not a bool, not a float such
  as ``1.5``, not a string) inside ``Discrete(n)``; anything else raises
  :class:`~kardinal_env.core.errors.IllegalMoveError` with rule ``"action"`` and a message that names the
  value and the allowed range. Nothing is rounded or clipped.
* :func:`seat_action_mask` — a codec's ``action_mask`` (PettingZoo's classic convention): ones at the
  legal actions when the seat asked about decides now, all zeros otherwise and once the game is over.
* :func:`wrap_classic` — PettingZoo's classic wrapper stack for a raw AEC env, with
  :class:`ActionCheckWrapper` in place of ``AssertOutOfBoundsWrapper`` (whose bare
  ``AssertionError`` does not say what was wrong): ``TerminateIllegalWrapper(illegal_reward=-1)``
  (a legal-range action that the mask forbids costs the offender −1 and ends the game), then
  :class:`ActionCheckWrapper`, then ``OrderEnforcingWrapper``. Each layer is PettingZoo's class (a
  subclass) reading the AEC state (``agent_selection``, ``terminations`` ...) straight from the raw
  env through properties rather than through ``__getattr__`` once per layer (the same values).
  ``terminate_illegal=False`` leaves ``TerminateIllegalWrapper`` out.
* :func:`classic_env` — what every environment module's ``env(**kwargs)`` is: its ``raw_env`` in the
  classic stack. Without ``illegal_action`` (or with ``None``) the stack has
  ``TerminateIllegalWrapper`` (the classic behaviour: −1 to the offender, 0 to the others, the game
  ends, PettingZoo prints a warning); with ``illegal_action="raise"`` or ``"lose"`` it is passed to
  ``raw_env`` and the stack has no ``TerminateIllegalWrapper``, so the raw env's rule applies
  (:mod:`kardinal_env.core.illegal`).
* :func:`fresh_observation` / :class:`FreshObservationWrapper` — copies of observations, for code that
  keeps them (an environment may hand out arrays it rewrites in place).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.base import BaseWrapper

from kardinal_env.core.checks import check_action as check_action  # re-exported: its home was here

__all__ = [
    "check_action",
    "seat_action_mask",
    "ActionCheckWrapper",
    "wrap_classic",
    "classic_env",
    "fresh_observation",
    "FreshObservationWrapper",
]


def seat_action_mask(
    game: Any, seat: int | None, out: np.ndarray | None, num_actions: int, legal: Callable[[Any], Any]
) -> np.ndarray:
    """int8 mask of length ``num_actions`` (written into ``out`` when given): ones at ``legal(game)``
    (the legal action ids) when ``seat`` (default: the deciding seat) decides now, all zeros
    otherwise and once the game is over. ``legal`` is called only when the seat decides."""
    if out is None:
        out = np.zeros(num_actions, dtype=np.int8)
    else:
        out.fill(0)
    deciding = game.current_player
    if deciding is not None and (seat is None or seat == deciding):
        out[legal(game)] = 1
    return out


#: The AEC state every step of an agent loop reads through the wrappers: forwarded by properties.
_HOT_STATE = ("agents", "agent_selection", "terminations", "truncations", "rewards", "infos", "_cumulative_rewards")
#: What ``OrderEnforcingWrapper`` refuses to show before ``reset()``.
_ORDER_GUARDED = frozenset({"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"})


def _forwarded(name: str, guarded: bool) -> property:
    def put(self, value):
        setattr(self._raw, name, value)

    if not guarded:  # a C-level getter: the common case costs one call
        return property(operator.attrgetter(f"_raw.{name}"), put, doc=f"The unwrapped environment's ``{name}``.")

    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get, put, doc=f"The unwrapped environment's ``{name}``.")


class _ForwardState:
    """Reads the AEC state (``agents``, ``agent_selection``, ``terminations`` ...) straight from the
    unwrapped environment through properties. PettingZoo's ``BaseWrapper`` forwards it through
    ``__getattr__``, once per wrapper layer: with three layers that was a third of an agent loop's
    time. The same values (no wrapper of the classic stack defines them), and the same errors."""

    _raw: AECEnv
    _guard_order = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in _HOT_STATE:
            setattr(cls, name, _forwarded(name, cls._guard_order and name in _ORDER_GUARDED))

    def _bind_raw(self, env: AECEnv) -> None:
        self._raw = env.unwrapped


class _TerminateIllegal(_ForwardState, wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` with :class:`_ForwardState`."""

    def __init__(self, env: AECEnv, illegal_reward: float):
        self._bind_raw(env)
        super().__init__(env, illegal_reward)


class _OrderEnforcing(_ForwardState, wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with :class:`_ForwardState` (its before-reset errors kept)."""

    _guard_order = True

    def __init__(self, env: AECEnv):
        self._bind_raw(env)
        super().__init__(env)

    def __str__(self) -> str:
        return str(self.env) if hasattr(self, "metadata") else repr(self)


class ActionCheckWrapper(_ForwardState, BaseWrapper):
    """Rejects actions that are not integers of the action space with a clear IllegalMoveError
    (``None`` stays allowed for agents that are done, as PettingZoo requires)."""

    def __init__(self, env: AECEnv):
        self._bind_raw(env)
        super().__init__(env)

    def step(self, action):  # noqa: D401 - PettingZoo signature
        agent = self.agent_selection
        if action is None and (self.terminations[agent] or self.truncations[agent]):
            super().step(action)
            return
        check_action(action, int(self.action_space(agent).n))
        super().step(action)


def fresh_observation(observation: Any) -> Any:
    """A copy of ``observation`` (its NumPy arrays copied; a dict of them copied entry by entry), for
    code that keeps observations: an environment may hand out arrays it owns and rewrites in place
    (``kardinal_v0`` on a core-backed game)."""
    if isinstance(observation, dict):
        return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in observation.items()}
    return observation.copy() if isinstance(observation, np.ndarray) else observation


class FreshObservationWrapper(_ForwardState, BaseWrapper):
    """``observe`` (and so ``last``) returns copies (:func:`fresh_observation`): for learners that keep
    the observations they are given (RLlib's episodes hold references until they are batched)."""

    def __init__(self, env: AECEnv):
        self._bind_raw(env)
        super().__init__(env)

    def observe(self, agent):
        return fresh_observation(super().observe(agent))


def wrap_classic(raw: AECEnv, terminate_illegal: bool = True) -> AECEnv:
    """The classic wrapper stack described in the module docstring (``terminate_illegal=False``:
    without ``TerminateIllegalWrapper``)."""
    env: AECEnv = _TerminateIllegal(raw, illegal_reward=-1) if terminate_illegal else raw
    env = ActionCheckWrapper(env)
    return _OrderEnforcing(env)


def classic_env(raw_class: Callable[..., AECEnv], **kwargs: Any) -> AECEnv:
    """``raw_class(**kwargs)`` in the classic stack; ``illegal_action`` picks it (the module docstring)."""
    if kwargs.get("illegal_action") is None:
        kwargs.pop("illegal_action", None)
        return wrap_classic(raw_class(**kwargs))
    return wrap_classic(raw_class(**kwargs), terminate_illegal=False)
